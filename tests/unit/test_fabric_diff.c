/* test_fabric_diff.c -- the differential test of the two fabric models:
 * randomised topologies (trees, extra links, rings with cyclic routes that
 * deadlock and are broken by the long-period timeout, half of them with small
 * packets in bursts that deadlock inside the slack buffers), parameters (slack
 * sizes and lines, latencies, control delays, type length, bit errors) and
 * traffic (sizes, bursts, bad routes, scripted corruption), cut and restored
 * links.  Both models must
 * give identical per-packet delivery times to the picosecond, identical drops
 * with identical reasons, identical per-channel counters, and identical bytes
 * seen by taps on every channel.  More cases:
 * bench/bench_fabric_diff. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric_diff.h"

#define NCASES 300

static void test_models_agree(void **state)
{
    (void)state;
    uint64_t delivered = 0, timeouts = 0, crc = 0, stops = 0, taps = 0, down = 0, small_timeouts = 0;
    uint64_t dev_cases = 0, notices = 0, dev_timeouts = 0, dev_crc = 0;
    myri_port_stats dev = {0};
    for (uint64_t s = 1; s <= NCASES; s++) {
        fd_case c;
        fd_case_make(&c, s);
        fd_out a, b;
        char msg[512];
        fd_run(&c, MYRI_FABRIC_REFERENCE, s, 0, &a);
        fd_run(&c, MYRI_FABRIC_FAST, s, 0, &b);
        int bad = fd_compare(&a, &b, msg, sizeof msg);
        if (bad) print_error("case %llu: %s\n", (unsigned long long)s, msg);
        assert_int_equal(bad, 0);
        delivered += a.ctr.delivered;
        taps += a.taps;
        timeouts += a.ctr.dropped[MYRI_FABRIC_DROP_TIMEOUT];
        if (c.small) small_timeouts += a.ctr.dropped[MYRI_FABRIC_DROP_TIMEOUT];
        crc += a.ctr.dropped[MYRI_FABRIC_DROP_CRC];
        down += a.ctr.dropped[MYRI_FABRIC_DROP_LINK_DOWN];
        for (size_t ch = 0; ch < a.nch; ch++) stops += a.ch[ch].stops;
        if (c.devmask) {
            dev_cases++;
            notices += a.dev_notices;
            dev_timeouts += a.ctr.dropped[MYRI_FABRIC_DROP_TIMEOUT];
            dev_crc += a.ctr.dropped[MYRI_FABRIC_DROP_CRC]; /* bit errors drawn while packets were open */
            dev.tx_packets += a.dev.tx_packets;
            dev.rx_tail += a.dev.rx_tail;
            dev.rx_buff += a.dev.rx_buff;
            dev.rx_trunc += a.dev.rx_trunc;
        }
        free(a.rec);
        free(b.rec);
        fd_case_free(&c);
    }
    /* The cases must exercise what they claim to. */
    assert_true(delivered > 1000);
    assert_true(timeouts > 10);
    /* rings of small packets in bursts: deadlocks in the slack buffers
     * (packets granted at stopped outputs, not begun, dropped by the timeout) */
    assert_true(small_timeouts > 10);
    assert_true(crc > 10);
    assert_true(down > 10);
    assert_true(stops > 1000);
    assert_true(taps > delivered);
    /* devices on the ports: packets sent with underruns, windows ending in
     * each way, devices that stop arming (STOP back into the network, then
     * the long-period timeout) */
    assert_true(dev_cases > 50);
    assert_true(dev_crc > 0);
    assert_true(notices > 1000);
    assert_true(dev.tx_packets > 500);
    assert_true(dev.rx_tail > 500);
    assert_true(dev.rx_buff > 100);
    assert_true(dev.rx_trunc > 10);
    assert_true(dev_timeouts > 10);
}

/* The checker can fail: 1 ps added to the fast model's delivery times. */
static void test_checker_detects_one_ps(void **state)
{
    (void)state;
    fd_case c;
    fd_case_make(&c, 7);
    fd_out a, b;
    char msg[512];
    fd_run(&c, MYRI_FABRIC_REFERENCE, 7, 0, &a);
    assert_true(a.ctr.delivered > 0);
    fd_run(&c, MYRI_FABRIC_FAST, 7, 1, &b);
    assert_int_equal(fd_compare(&a, &b, msg, sizeof msg), 1);
    free(a.rec);
    free(b.rec);
    fd_case_free(&c);
}

/* The checker sees what devices see: with the same 1 ps in the fast model's
 * notice times, the devices' hash differs. */
static void test_checker_detects_device_notices(void **state)
{
    (void)state;
    uint64_t s = 1;
    fd_case c;
    for (;; s++) {
        fd_case_make(&c, s);
        if (c.devmask) break;
        fd_case_free(&c);
    }
    fd_out a, b;
    fd_run(&c, MYRI_FABRIC_REFERENCE, s, 0, &a);
    assert_true(a.dev_notices > 0);
    fd_run(&c, MYRI_FABRIC_FAST, s, 1, &b);
    assert_true(a.dev_hash != b.dev_hash);
    free(a.rec);
    free(b.rec);
    fd_case_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_models_agree),
        cmocka_unit_test(test_checker_detects_one_ps),
        cmocka_unit_test(test_checker_detects_device_notices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
