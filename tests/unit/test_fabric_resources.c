/* test_fabric_resources.c -- issue 8: the host queue count behind a bounded
 * source (myri_fabric_host_queued) and misdelivered packets (a corrupted
 * route byte that the CRC-8 does not see sends a packet to another host: it
 * is counted misdelivered, not delivered, with no delivery callback), in both
 * models. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/packet.h"
#include "myri/json.h"
#include "fabric_testlib.h"

static ft_log g_log;
static int g_mis_dst = -1, g_mis_n;

static void on_mis(void *ctx, const myri_fabric_delivery *d)
{
    (void)ctx;
    g_mis_dst = (int)d->dst_host;
    g_mis_n++;
}

static myri_fabric *mk(myri_sim *sim, myri_topo *t, int model)
{
    myri_fabric *f = ft_make(sim, t, model, NULL, &g_log);
    assert_non_null(f);
    return f;
}


static void test_host_queued(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        myri_topo *t = ft_star8();
        myri_sim *sim = myri_sim_create(1);
        myri_fabric *f = mk(sim, t, model);
        uint8_t r1 = 0x81;
        for (uint64_t i = 0; i < 5; i++) {
            myri_fabric_packet pk = {.id = i, .src_host = 0, .route_len = 1, .route = &r1, .type = 5,
                                     .payload_bytes = 100, .dst_host = 1, .dst_known = true};
            assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
        }
        assert_int_equal(myri_fabric_host_queued(f, 0), 5); /* nothing begun before the run */
        assert_int_equal(myri_fabric_host_queued(f, 1), 0);
        assert_int_equal(myri_fabric_host_queued(f, 99), 0);
        myri_sim_run(sim, 1 * MYRI_PS_PER_US, 0); /* 108 characters = 1.35 us each: the first on the wire */
        assert_int_equal(myri_fabric_host_queued(f, 0), 4);
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        assert_int_equal(myri_fabric_host_queued(f, 0), 0);
        myri_fabric_counters c;
        myri_fabric_get_counters(f, &c);
        assert_int_equal(c.delivered, 5);
        assert_int_equal(c.misdelivered, 0);
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
    }
}

/* Packet 1 (h0 -> h1, route 0x81) gets its route byte turned into 0x82 on
 * h0's link and its trailer corrected so that the CRC-8 still checks: it
 * reaches h2 with a good CRC.  Packet 2 (dst known, not corrupted) is
 * delivered; packet 3 is corrupted the same way without dst_known: delivered
 * at h2 as before (nothing to check against). */
static void test_misdelivered(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        myri_topo *t = ft_star8();
        myri_sim *sim = myri_sim_create(1);
        myri_fabric *f = mk(sim, t, model);
        myri_fabric_set_misdelivered(f, on_mis);
        g_mis_n = 0;
        uint8_t r1 = 0x81, bytes[64];
        myri_crc8 crc;
        myri_crc8_init(&crc, 7);
        size_t ch = (size_t)myri_topo_out_channel(t, (uint32_t)myri_topo_find(t, "h0"), 0);
        for (uint64_t id = 1; id <= 3; id++) {
            size_t n = myri_packet_build(&crc, id, &r1, 1, 5, 4, NULL, 8, bytes);
            bytes[0] ^= 0x03;
            uint8_t syn = myri_crc8_update(&crc, 0, bytes, n); /* the error's remainder */
            if (id != 2) {
                assert_int_equal(myri_fabric_corrupt(f, id, ch, 0, 0x03), MYRI_OK);
                assert_int_equal(myri_fabric_corrupt(f, id, ch, (uint32_t)n - 1, syn), MYRI_OK);
            }
            myri_fabric_packet pk = {.id = id, .src_host = 0, .route_len = 1, .route = &r1, .type = 5,
                                     .payload_bytes = 8, .dst_host = 1, .dst_known = id != 3};
            assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
        }
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        myri_fabric_counters c;
        myri_fabric_get_counters(f, &c);
        assert_int_equal(c.misdelivered, 1);
        assert_int_equal(c.delivered, 2);
        assert_int_equal(c.dropped_total, 0);
        assert_int_equal(c.in_flight, 0);
        assert_int_equal(c.delivered_payload_bytes, 16);
        ft_sort(&g_log);
        assert_int_equal(g_log.n, 2); /* no delivery callback for the misdelivered packet */
        assert_int_equal(g_mis_n, 1);  /* its own callback: where it went */
        assert_int_equal(g_mis_dst, 2);
        assert_int_equal(g_log.rec[0].id, 2);
        assert_int_equal(g_log.rec[0].dst, 1);
        assert_int_equal(g_log.rec[1].id, 3);
        assert_int_equal(g_log.rec[1].dst, 2);
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
    }
}

/* The report step brings the channels up to date once (it did once per
 * channel: quadratic), with the same figures as channel by channel. */
static void test_report_linear(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        myri_topo *t = ft_star8();
        myri_sim *sim = myri_sim_create(1);
        myri_fabric *f = mk(sim, t, model);
        uint8_t r0 = 0x80;
        for (uint32_t h = 1; h < 8; h++) { /* hotspot on h0: STOP/GO, slack */
            myri_fabric_packet pk = {.id = h, .src_host = h, .route_len = 1, .route = &r0, .type = 5,
                                     .payload_bytes = 200};
            assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
        }
        myri_sim_run(sim, 5 * MYRI_PS_PER_US, 0); /* mid-flight */
        size_t n = myri_fabric_channel_count(f);
        uint64_t s0 = myri_fabric__test_stats_syncs(f);
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        myri_json *j = myri_json_create(mem, false);
        myri_json_obj_begin(j);
        myri_fabric_report(f, j);
        myri_json_obj_end(j);
        assert_int_equal(myri_json_finish(j), MYRI_OK);
        fclose(mem);
        assert_int_equal(myri_fabric__test_stats_syncs(f), s0 + 1);
        myri_fabric_channel_stats all[32], one;
        assert_true(n <= 32);
        assert_int_equal(myri_fabric_get_all_channel_stats(f, all, n), MYRI_OK);
        assert_int_equal(myri_fabric__test_stats_syncs(f), s0 + 2);
        assert_int_equal(myri_fabric_get_all_channel_stats(f, all, n + 1), MYRI_EINVAL);
        uint64_t stops = 0;
        for (size_t ch = 0; ch < n; ch++) {
            assert_int_equal(myri_fabric_get_channel_stats(f, ch, &one), MYRI_OK);
            assert_memory_equal(&one, &all[ch], sizeof one);
            stops += one.stops;
        }
        assert_true(stops > 0);
        assert_non_null(strstr(buf, "\"max_slack_bytes\""));
        free(buf);
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_queued),
        cmocka_unit_test(test_misdelivered),
        cmocka_unit_test(test_report_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
