/* test_fabric_msg.c -- what a cable cut does to a packet whose passage over the
 * cable was told to the receiver only by a message still on its way (the fast
 * model tells a run at the sender's now + the cable's delay D,
 * docs/PARTITION.md rows 1-3): a packet sent entirely within the last D
 * before the cut is lost, dropped "link_down" and dated at the cut (not when
 * the stale message comes), exactly as the byte-by-byte reference model
 * says; after the restore the cable carries packets again, at the same times
 * in both models. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric_diff.h"
#include "fabric_testlib.h"

static ft_log g_log;

/* h0 - s0 (25 m, the longest cable: propagation P = 139 ns, D = T + P =
 * 151.5 ns at the default 640 Mb/s) - h1 (10 m), packets with no payload: on
 * h0 -> s0 a packet is 7 characters (route, type, trailer, GAP), sent from 0
 * to 75 ns when h0 sends it at 0.  Sends packet 1 at 0 (and packet 2 at
 * `second_at` if nonzero) with link 0 (h0 - s0) cut at cut_at (0: none) and
 * restored 2 us later; the log is left sorted. */
static void run_line(int model, myri_time_ps cut_at, myri_time_ps second_at)
{
    double len[2] = {25, 10};
    myri_topo *t = ft_line(1, 8, len);
    myri_sim *sim = myri_sim_create(3);
    myri_fabric *f = ft_make(sim, t, model, NULL, &g_log);
    assert_non_null(f);
    if (cut_at) {
        assert_int_equal(myri_fabric_cut_link(f, 0, cut_at), MYRI_OK);
        assert_int_equal(myri_fabric_restore_link(f, 0, cut_at + 2 * MYRI_PS_PER_US), MYRI_OK);
    }
    uint8_t route = 0x81;
    myri_fabric_packet pk = {.id = 1, .route_len = 1, .route = &route, .type = 5, .payload_bytes = 0};
    assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
    if (second_at) {
        myri_sim_run(sim, second_at, 0);
        pk.id = 2;
        assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
    }
    myri_sim_run(sim, MYRI_TIME_NEVER, 0);
    myri_fabric_counters c;
    myri_fabric_get_counters(f, &c);
    assert_int_equal(c.in_flight, 0);
    ft_sort(&g_log);
    myri_sim_destroy(sim);
    myri_topo_destroy(t);
}

static void test_lost_within_the_last_delay(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        g_log.n = 0;
        run_line(model, 0, 0); /* uncut: delivered */
        assert_int_equal(g_log.n, 1);
        assert_int_equal(g_log.rec[0].reason, -1);
        /* cut at 100 ns: the packet went wholly onto the cable in (cut - D,
         * cut) (its GAP at 75 ns, its first character arriving at 151.5 ns),
         * so every character of it is lost; the fast model's receiver learns
         * of the run only after the cut (a stale message) */
        myri_time_ps cut = 100 * MYRI_PS_PER_NS;
        g_log.n = 0;
        run_line(model, cut, 0);
        assert_int_equal(g_log.n, 1);
        assert_int_equal(g_log.rec[0].id, 1);
        assert_int_equal(g_log.rec[0].reason, MYRI_FABRIC_DROP_LINK_DOWN);
        assert_int_equal(g_log.rec[0].t, cut); /* dated at the cut */
    }
}

static void test_restored_cable_carries_again(void **state)
{
    (void)state;
    myri_time_ps tail[2] = {0, 0};
    myri_time_ps cut = 100 * MYRI_PS_PER_NS;
    for (int model = 0; model < 2; model++) {
        /* packet 2 is sent after the restore (cut + 2 us) and arrives */
        g_log.n = 0;
        run_line(model, cut, cut + 3 * MYRI_PS_PER_US);
        assert_int_equal(g_log.n, 2);
        assert_int_equal(g_log.rec[0].id, 1);
        assert_int_equal(g_log.rec[0].reason, MYRI_FABRIC_DROP_LINK_DOWN);
        assert_int_equal(g_log.rec[1].id, 2);
        assert_int_equal(g_log.rec[1].reason, -1);
        assert_true(g_log.rec[1].t > cut + 3 * MYRI_PS_PER_US);
        tail[model] = g_log.rec[1].t;
    }
    assert_int_equal(tail[0], tail[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lost_within_the_last_delay),
        cmocka_unit_test(test_restored_cable_carries_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
