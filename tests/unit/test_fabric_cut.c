/* test_fabric_cut.c -- when a link cut or restore may be asked: at set-up at
 * any time from now on; once the run has started only at now + the link's
 * lookahead (character time + the cable's propagation) or later, so that
 * each end of the cable can be told in time by a message (docs/PARTITION.md
 * row 11, docs/FABRIC.md "Link cut").  A cut asked while running at now + the
 * lookahead still truncates the packet being sent, in both models. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric_testlib.h"

static ft_log g_log;

/* The lookahead of a 10 m cable with the default parameters, computed as
 * the fabric does: T + length / (prop_speed * c), rounded to the ps. */
static uint64_t lookahead_10m_ps(void)
{
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    uint64_t prop = (uint64_t)floor(10.0 / (p.prop_speed_c * 299792458.0) * 1e12 + 0.5);
    return myri_fabric_char_ps(&p) + prop;
}

static void test_setup_any_time_from_now(void **state)
{
    (void)state;
    double len[2] = {10, 10};
    myri_topo *t = ft_line(1, 8, len); /* h0 - s0 - h1: link 0 h0-s0, link 1 s0-h1 */
    myri_sim *sim = myri_sim_create(1);
    myri_fabric *f = ft_make(sim, t, 0, NULL, &g_log);
    assert_non_null(f);
    /* nothing sent, clock at 0: no lookahead needed */
    assert_int_equal(myri_fabric_cut_link(f, 1, 0), MYRI_OK);
    assert_int_equal(myri_fabric_restore_link(f, 1, 1), MYRI_OK);
    assert_int_equal(myri_fabric_cut_link(f, 1, MYRI_TIME_NEVER), MYRI_EINVAL);
    assert_int_equal(myri_fabric_cut_link(f, 2, 5), MYRI_EINVAL); /* no link 2 */
    myri_sim_destroy(sim);
    myri_topo_destroy(t);
}

static void test_running_needs_lookahead(void **state)
{
    (void)state;
    uint64_t la = lookahead_10m_ps();
    assert_int_equal(la, 12500 + 55594); /* 640 Mb/s, 10 m at 0.6 c */
    for (int model = 0; model < 2; model++) {
        double len[2] = {10, 10};
        myri_topo *t = ft_line(1, 8, len);
        myri_sim *sim = myri_sim_create(1);
        myri_fabric *f = ft_make(sim, t, model, NULL, &g_log);
        assert_non_null(f);
        uint8_t route = 0x81;
        /* 2000 B = 25 us on the wire, sent at 0 */
        myri_fabric_packet pk = {.id = 1, .route_len = 1, .route = &route, .type = 5, .payload_bytes = 2000};
        assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
        uint64_t now = 5 * MYRI_PS_PER_US;
        myri_sim_run(sim, now, 0);
        /* in the past, now, and under the lookahead: refused */
        assert_int_equal(myri_fabric_cut_link(f, 1, now - 1), MYRI_EINVAL);
        assert_int_equal(myri_fabric_cut_link(f, 1, now), MYRI_EINVAL);
        assert_int_equal(myri_fabric_cut_link(f, 1, now + la - 1), MYRI_EINVAL);
        assert_int_equal(myri_fabric_restore_link(f, 1, now + la - 1), MYRI_EINVAL);
        /* at the lookahead: taken, and it cuts the packet being sent */
        assert_int_equal(myri_fabric_cut_link(f, 1, now + la), MYRI_OK);
        assert_int_equal(myri_fabric_restore_link(f, 1, now + la + MYRI_PS_PER_US), MYRI_OK);
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        myri_fabric_counters c;
        myri_fabric_get_counters(f, &c);
        assert_int_equal(c.dropped[MYRI_FABRIC_DROP_LINK_DOWN], 1);
        assert_int_equal(g_log.n, 1);
        assert_int_equal(g_log.rec[0].reason, MYRI_FABRIC_DROP_LINK_DOWN);
        assert_int_equal(g_log.rec[0].t, now + la);
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_setup_any_time_from_now),
        cmocka_unit_test(test_running_needs_lookahead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
