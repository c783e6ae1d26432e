/* test_viafw.c -- the lcp and myricom firmwares (seed 000) end to end on the
 * system job: VIA programs on two hosts through one switch, every byte
 * checked by the receiving program, every firmware action compared with its
 * table row (check_firmware), packets conserved (delivered or counted by
 * reason), API misuse returning its codes (via-selftest), and seed 000's
 * finding: the LCP's host DMA and send DMA never run at once, Myricom's do.
 * Same seed, same hash. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "app/system_job.h"
#include "myri/config.h"

static const char *const fws[] = {"lcp", "myricom"};

static myri_status run(const char *fw, const char *program, const char *args, myri_system_result *res)
{
    char text[1024];
    snprintf(text, sizeof text,
             "job: system\npreset: alpha-pci-1998\nseed: 3\nfirmware: %s\ncheck_firmware: true\n"
             "topology: {generator: star, hosts_per_switch: 2}\n"
             "programs:\n  - {program: %s, hosts: [h0, h1], args: %s}\n",
             fw, program, args);
    myri_error err = {0};
    myri_node *root = NULL;
    myri_status st = myri_doc_parse("test.yaml", text, strlen(text), &root, &err);
    myri_run_opts ro = {0};
    if (!st) st = myri_system_run_doc(root, NULL, &ro, res, &err);
    myri_node_free(root);
    if (st) print_error("%s\n", err.msg);
    return st;
}

static double fig(const myri_system_result *r, uint32_t host, const char *key)
{
    double v = myri_system_figure_host(r, host, key);
    if (isnan(v)) fail_msg("no figure %s on host %u", key, host);
    return v;
}

/* Both programs returned 0, no byte differed, no action left its row. */
static void assert_clean(const myri_system_result *r, const char *prog)
{
    char key[64];
    snprintf(key, sizeof key, "%s.errors", prog);
    assert_true(r->all_done);
    assert_int_equal(r->worst_exit, 0);
    for (uint32_t h = 0; h < 2; h++) {
        assert_true(fig(r, h, key) == 0);
        assert_true(fig(r, h, "nic.fw_checked") > 0);
        assert_true(fig(r, h, "nic.fw_mismatches") == 0);
    }
}

static void test_stream_every_byte(void **state)
{
    (void)state;
    static const int sizes[] = {4, 1001, 32768};
    for (int f = 0; f < 2; f++)
        for (int s = 0; s < 3; s++) {
            char args[96];
            snprintf(args, sizeof args, "[count=12, size=%d, window=3]", sizes[s]);
            myri_system_result r;
            assert_int_equal(run(fws[f], "via-stream", args, &r), MYRI_OK);
            assert_clean(&r, "via-stream");
            assert_true(fig(&r, 0, "via-stream.bandwidth_MBps") > 0);
            assert_true(fig(&r, 0, "nic.rx_good") == 13); /* 12 messages and the ack */
            myri_system_result_free(&r);
        }
}

/* Every frame on the wire is delivered or counted with its reason; misuse of
 * the API returns its codes (via-selftest counts anything else as an error). */
static void test_conservation_and_misuse(void **state)
{
    (void)state;
    for (int f = 0; f < 2; f++) {
        myri_system_result r;
        assert_int_equal(run(fws[f], "via-selftest", "[]", &r), MYRI_OK);
        assert_clean(&r, "via-selftest");
        double good = fig(&r, 0, "nic.rx_good"), other = fig(&r, 0, "nic.drops_other");
        assert_true(good == 1 && other == 2); /* no descriptor on VI 5; too long for the posted buffer */
        assert_true(good + fig(&r, 0, "nic.drop_crc") + other == fig(&r, 0, "fabric.injected"));
        myri_system_result_free(&r);
    }
}

/* Seed 000: the LCP's host DMA and send DMA never at once; Myricom's a large
 * part of the run when they are equally fast. */
static void test_overlap(void **state)
{
    (void)state;
    myri_system_result r;
    assert_int_equal(run("lcp", "via-stream", "[count=16, size=32768, window=4]", &r), MYRI_OK);
    assert_clean(&r, "via-stream");
    assert_true(fig(&r, 0, "nic.overlap_hdma_sdma") == 0.0);
    assert_true(fig(&r, 0, "nic.util_hdma") > 0.3 && fig(&r, 0, "nic.util_sdma") > 0.3);
    double lcp_bw = fig(&r, 1, "via-stream.steady_MBps");
    myri_system_result_free(&r);
    assert_int_equal(run("myricom", "via-stream", "[count=16, size=32768, window=4]", &r), MYRI_OK);
    assert_clean(&r, "via-stream");
    assert_true(fig(&r, 0, "nic.overlap_hdma_sdma") > 0.2);
    assert_true(fig(&r, 1, "via-stream.steady_MBps") > 1.3 * lcp_bw);
    myri_system_result_free(&r);
}

static void test_same_seed_same_hash(void **state)
{
    (void)state;
    for (int f = 0; f < 2; f++) {
        myri_system_result a, b;
        assert_int_equal(run(fws[f], "via-poisson", "[count=40, size=4096, rate=0.004]", &a), MYRI_OK);
        assert_int_equal(run(fws[f], "via-poisson", "[count=40, size=4096, rate=0.004]", &b), MYRI_OK);
        assert_clean(&a, "via-poisson");
        assert_true(a.hash == b.hash);
        assert_true(fig(&a, 0, "via-poisson.mean_in_nic") > 0);
        assert_true(fig(&a, 0, "via-poisson.mean_waiting") >= 0);
        myri_system_result_free(&a);
        myri_system_result_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_every_byte),
        cmocka_unit_test(test_conservation_and_misuse),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_same_seed_same_hash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
