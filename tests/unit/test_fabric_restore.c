/* test_fabric_restore.c -- flow control across a cut and restored cable.
 *
 * A cable cut while its receiver's slack buffer stands above the STOP line
 * (the output draining it is blocked) and restored before the buffer drained:
 * the sender must not restart free, or a round trip of characters lands in a
 * buffer that has less than a round trip of room left (the slack-overflow
 * assertion of both models, found by bench_fabric_diff cases 35224 and 38673).
 * The sender starts stopped and waits for the receiver's GO. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric_diff.h" /* (first: its functions name variables `dev`, the type of the port test library) */
#include "fabric_port_testlib.h"

/* h0 - s0 - s1 - h1, the s0-s1 cable 25 m (the longest: the default slack
 * has 28 B above STOP for the 27 characters that arrive after STOP), no
 * fall-through (switch.latency = route_time), so a granted packet leaves s0
 * at once.  Channel 2 is s0 -> s1.  h1's device is unarmed until 60 us, so
 * s1's output to h1 is stopped and s1's input fills above STOP with packet 1
 * (300 B); the cable is cut at 20 us (packet 1 dropped link_down, its
 * characters stay in s1's slack) and restored at 30 us, when packet 2
 * (1000 B) comes.  Before the fix s0 sent packet 2 at once and channel 2's
 * slack overflowed (84 > 80) in both models. */
static void send2(myri_fabric *f, uint64_t id, uint32_t payload_bytes)
{
    static const uint8_t route[2] = {0x81, 0x81};
    uint8_t p[1000];
    for (uint32_t i = 0; i < payload_bytes; i++) p[i] = pay(id, i);
    myri_fabric_packet pk = {.id = id, .src_host = 0, .route_len = 2, .route = route, .type = PTYPE,
                             .payload_bytes = payload_bytes, .payload = p};
    assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
}

static void test_restore_into_full_slack(void **state)
{
    (void)state;
    dev *d[2];
    uint64_t deliv_ps[2];
    for (int model = 0; model < 2; model++) {
        static const double len[3] = {10, 25, 10};
        myri_topo *t = ft_line(2, 8, len);
        myri_sim *sim = myri_sim_create(1);
        myri_fabric_params p;
        myri_fabric_params_default(&p);
        p.switch_latency_ps = p.switch_route_ps; /* no fall-through: packet 2 leaves s0 at once */
        myri_fabric *f = mk(sim, t, model, &p);
        dev *dv = d[model] = dv_new(sim, f, 1, 4096, false);
        dv->rearm_ps = 0;
        dv->exp_payload = 1000;
        send2(f, 1, 300);
        assert_int_equal(myri_fabric_cut_link(f, 1, 20 * MYRI_PS_PER_US), MYRI_OK);
        assert_int_equal(myri_fabric_restore_link(f, 1, 30 * MYRI_PS_PER_US), MYRI_OK);
        myri_sim_run(sim, 30 * MYRI_PS_PER_US, 0);
        /* s1's input holds packet 1's head part, above the STOP line */
        myri_fabric_channel_stats s = chst(f, 2);
        assert_true(s.max_slack_bytes > 80 - 27 && s.max_slack_bytes <= 80);
        send2(f, 2, 1000);
        myri_sim_run(sim, 55 * MYRI_PS_PER_US, 0);
        /* the sender waits for GO: nothing of packet 2 reached s1 yet */
        s = chst(f, 2);
        assert_true(s.max_slack_bytes <= 80);
        assert_int_equal(ctrs(f).delivered, 0);
        dv_later(dv, EV_ARM, 60 * MYRI_PS_PER_US);
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        /* packet 1's head part went to the device cut short, packet 2 whole */
        assert_int_equal(count_kind(dv, 1), 2);
        assert_int_equal(dv->r[0].id, 1);
        assert_int_equal(dv->r[0].end, MYRI_PORT_RX_TRUNC);
        assert_int_equal(dv->r[1].id, 2);
        assert_int_equal(dv->r[1].end, MYRI_PORT_RX_TAIL);
        assert_int_equal(dv->good, 1);
        deliv_ps[model] = dv->r[1].at;
        myri_fabric_counters c = ctrs(f);
        assert_int_equal(c.delivered, 1);
        assert_int_equal(c.dropped[MYRI_FABRIC_DROP_LINK_DOWN], 1);
        assert_int_equal(c.dropped_total, 1);
        assert_int_equal(c.in_flight, 0);
        s = chst(f, 2);
        assert_true(s.max_slack_bytes <= 80);
        /* stopped from the restore (30 us) until the receiver's GO (after 60 us) */
        assert_true(s.stopped_ps >= 30 * MYRI_PS_PER_US);
        assert_int_equal(s.gos, 1);
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
    }
    same_recs(d[0], d[1]);
    assert_int_equal(deliv_ps[0], deliv_ps[1]);
    assert_true(deliv_ps[0] > 60 * MYRI_PS_PER_US);
    free(d[0]);
    free(d[1]);
}

/* The two randomised cases of bench_fabric_diff that stopped on the
 * reference model's slack-overflow assertion: both models run them now,
 * agree, and no slack buffer went above its size. */
static void test_diff_cases(void **state)
{
    (void)state;
    static const uint64_t seeds[] = {35224, 38673};
    for (size_t i = 0; i < 2; i++) {
        fd_case c;
        fd_case_make(&c, seeds[i]);
        assert_true(c.ncut > 0); /* both cut and restore a cable */
        fd_out a, b;
        char msg[512];
        fd_run(&c, MYRI_FABRIC_REFERENCE, seeds[i], 0, &a);
        fd_run(&c, MYRI_FABRIC_FAST, seeds[i], 0, &b);
        int bad = fd_compare(&a, &b, msg, sizeof msg);
        if (bad) print_error("case %llu: %s\n", (unsigned long long)seeds[i], msg);
        assert_int_equal(bad, 0);
        for (size_t ch = 0; ch < a.nch; ch++) assert_true(a.ch[ch].max_slack_bytes <= c.p.slack_size_bytes);
        free(a.rec);
        free(b.rec);
        fd_case_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_restore_into_full_slack),
        cmocka_unit_test(test_diff_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
