/* test_fabric_clock.c -- the engine's clock and the fabric's: the fabric runs
 * its instants ahead of the other components' events without an event of
 * its own per pass to move the engine's clock (docs/FABRIC.md, "Agenda"):
 * an open-ended run still ends with the clock not behind the last delivery
 * and nothing pending, another component's event sees its own time and may
 * advance the clock, and what the fabric does is the same with or without
 * such an event (after the traffic, or in the middle of it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric_testlib.h"

static ft_log g_log[2];

typedef struct clk__dummy {
    myri_time_ps seen_ps;  /* myri_sim_now in its event */
    bool advanced;         /* myri_sim_advance(now + 1 ps) in its event */
} clk__dummy;

static myri_status clk__create(myri_component *self, const void *config)
{
    self->state = (void *)config;
    return MYRI_OK;
}

static void clk__handle(myri_component *self, const myri_event *ev)
{
    clk__dummy *d = self->state;
    (void)ev;
    d->seen_ps = myri_sim_now(self->sim);
    d->advanced = myri_sim_advance(self->sim, d->seen_ps + 1);
}

static const myri_component_ops clk__ops = {.type = "clock_dummy", .help = "test", .create = clk__create,
                                            .handle = clk__handle};

/* Packets from every host of a star to the next one; with `dummy`, another
 * component has one event at dummy_ps.  Returns the engine's time after an
 * open-ended run. */
static myri_time_ps run_case(int model, ft_log *log, clk__dummy *dummy, myri_time_ps dummy_ps)
{
    myri_topo *t = ft_star8();
    myri_sim *sim = myri_sim_create(1);
    myri_fabric *f = ft_make(sim, t, model, NULL, log);
    assert_non_null(f);
    if (dummy) {
        myri_component *c = NULL;
        assert_int_equal(myri_sim_add(sim, &clk__ops, "dummy", dummy, &c), MYRI_OK);
        myri_event ev = {.target = c, .kind = 1};
        assert_true(myri_sim_schedule(sim, dummy_ps, &ev) != 0);
    }
    for (uint32_t h = 0; h < 8; h++) {
        uint8_t route = (uint8_t)(0x80u | ((h + 1) % 8));
        myri_fabric_packet pk = {.id = 100 + h, .src_host = h, .route_len = 1, .route = &route,
                                 .type = 5, .payload_bytes = 200 + 37 * h};
        assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
    }
    assert_int_equal(myri_sim_run(sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    myri_time_ps now = myri_sim_now(sim);
    assert_int_equal(myri_sim_pending(sim), 0);
    myri_sim_destroy(sim);
    myri_topo_destroy(t);
    return now;
}

static void test_clock_reaches_fabric(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        myri_time_ps end = run_case(model, &g_log[0], NULL, 0);
        assert_int_equal(g_log[0].n, 8);
        myri_time_ps last = 0;
        for (size_t i = 0; i < g_log[0].n; i++) {
            assert_int_equal(g_log[0].rec[i].reason, -1);
            if (g_log[0].rec[i].t > last) last = g_log[0].rec[i].t;
        }
        assert_true(end >= last); /* the clock is not behind the fabric's last instant */

        /* another component's event long after: it sees its own time, may
         * advance the clock (no event of the fabric is pending), and the
         * fabric does exactly the same */
        clk__dummy d = {0};
        myri_time_ps at = last + 1000000;
        myri_time_ps end2 = run_case(model, &g_log[1], &d, at);
        assert_int_equal(d.seen_ps, at);
        assert_true(d.advanced);
        assert_int_equal(end2, at + 1);
        ft_sort(&g_log[0]);
        ft_sort(&g_log[1]);
        assert_int_equal(g_log[0].n, g_log[1].n);
        assert_memory_equal(g_log[0].rec, g_log[1].rec, g_log[0].n * sizeof g_log[0].rec[0]);

        /* and one in the middle of the traffic: the same again */
        clk__dummy m = {0};
        myri_time_ps mid = last / 2 + 1;
        run_case(model, &g_log[1], &m, mid);
        assert_int_equal(m.seen_ps, mid);
        ft_sort(&g_log[1]);
        assert_int_equal(g_log[0].n, g_log[1].n);
        assert_memory_equal(g_log[0].rec, g_log[1].rec, g_log[0].n * sizeof g_log[0].rec[0]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clock_reaches_fabric),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
