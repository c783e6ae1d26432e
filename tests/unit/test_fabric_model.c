/* test_fabric_model.c -- behaviour of the fabric that users rely on, in both
 * models: CRC-8 trailer and its incremental update; a hotspot on an 8-port
 * switch; corruption on any hop detected at the destination; to-host bytes,
 * unconnected ports and misrouted packets dropped and counted; a deadlock on
 * a cyclic route set broken by the long-period timeout with FRES; a cut and
 * restored link; determinism; a lone packet's events per hop (fast model). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/packet.h"
#include "fabric_diff.h"
#include "fabric_testlib.h"

static ft_log g_log;

/* ---- CRC ------------------------------------------------------------------------ */

static void test_crc_trailer_and_strip(void **state)
{
    (void)state;
    static const uint8_t polys[] = {0x07, 0x31, 0x9b};
    for (size_t pi = 0; pi < 3; pi++) {
        myri_crc8 c;
        myri_crc8_init(&c, polys[pi]);
        uint8_t route[3] = {0x81, 0x85, 0x82};
        uint8_t buf[64];
        size_t n = myri_packet_build(&c, 77, route, 3, 0x0005, 4, NULL, 40, buf);
        assert_int_equal(n, 3 + 4 + 40 + 1);
        assert_int_equal(myri_crc8_update(&c, 0, buf, n), 0); /* good packet: remainder 0 */
        /* A switch strips the route byte and folds it into the trailer. */
        uint8_t out[64];
        memcpy(out, buf + 1, n - 1);
        out[n - 2] ^= myri_crc8_strip_delta(&c, buf[0], n);
        assert_int_equal(myri_crc8_update(&c, 0, out, n - 1), 0);
        /* An error before the switch keeps the same syndrome after it. */
        buf[10] ^= 0x10;
        uint8_t syn = myri_crc8_update(&c, 0, buf, n);
        assert_int_not_equal(syn, 0);
        memcpy(out, buf + 1, n - 1);
        out[n - 2] ^= myri_crc8_strip_delta(&c, buf[0], n);
        assert_int_equal(myri_crc8_update(&c, 0, out, n - 1), syn);
        /* shift() agrees with repeated multiplication by x^8 */
        uint8_t r = 0x5a, m = 0x5a;
        for (int k = 0; k < 300; k++) {
            assert_int_equal(myri_crc8_shift(&c, r, (uint64_t)k), m);
            m = myri_crc8_mulx8(&c, m);
        }
    }
}

/* ---- helpers --------------------------------------------------------------------- */

typedef struct tapseen {
    size_t n;
    uint64_t first[512];
    size_t len[512];
} tapseen;

static void tap_rec(void *ctx, size_t ch, myri_time_ps first, const uint8_t *b, size_t len, bool tr)
{
    (void)ch;
    (void)b;
    (void)tr;
    tapseen *t = ctx;
    if (t->n < 512) {
        t->first[t->n] = first;
        t->len[t->n++] = len;
    }
}

static myri_fabric *mk(myri_sim *sim, myri_topo *t, int model, myri_fabric_params *pp)
{
    myri_fabric *f = ft_make(sim, t, model, pp, &g_log);
    assert_non_null(f);
    return f;
}


/* ---- hotspot --------------------------------------------------------------------- */

static void test_hotspot(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        myri_topo *t = ft_star8();
        myri_sim *sim = myri_sim_create(3);
        /* A switch without fall-through (latency = route time = T): what is
         * checked is the arbitration, back to back.  With the default 537.5 ns
         * fall-through, counted in the input's slack, a worm that STOP held
         * restarts with a gap (docs/FABRIC.md, "The switch pipeline"). */
        myri_fabric_params pp;
        myri_fabric_params_default(&pp);
        pp.switch_latency_ps = pp.switch_route_ps = 12500;
        myri_fabric *f = mk(sim, t, model, &pp);
        /* channel out of the switch to h0: link 0 is h0-s0 (a = h0), so s0->h0 is 1 */
        tapseen seen = {0};
        myri_fabric_set_tap(f, 1, tap_rec, &seen);
        uint8_t route = 0x80; /* port 0 = h0 */
        uint64_t id = 1;
        const uint32_t per = 30, payload = 200;
        for (uint32_t k = 0; k < per; k++)
            for (uint32_t h = 1; h < 8; h++) {
                myri_fabric_packet pk = {.id = id++, .src_host = h, .route_len = 1, .route = &route,
                                         .type = 5, .payload_bytes = payload};
                assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
            }
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        myri_fabric_counters c;
        myri_fabric_get_counters(f, &c);
        assert_int_equal(c.delivered, 7 * per); /* nothing lost */
        assert_int_equal(c.dropped_total, 0);
        /* The output to h0 is busy all the time: each packet starts the slot
         * after the previous one's GAP (payload + 4 type + 1 CRC bytes + GAP). */
        uint64_t T = myri_fabric_char_time_ps(f);
        assert_int_equal(seen.n, 7 * per);
        for (size_t i = 1; i < seen.n; i++) {
            assert_int_equal(seen.len[i - 1], payload + 5);
            assert_int_equal(seen.first[i], seen.first[i - 1] + (seen.len[i - 1] + 1) * T);
        }
        /* Slack never beyond its size; STOP and GO visible on the host links. */
        uint64_t stops = 0, gos = 0;
        for (size_t ch = 0; ch < myri_fabric_channel_count(f); ch++) {
            myri_fabric_channel_stats s;
            myri_fabric_get_channel_stats(f, ch, &s);
            assert_true(s.max_slack_bytes <= 80);
            stops += s.stops;
            gos += s.gos;
            if (ch % 2 == 0 && ch > 0) { /* h1..h7 -> s0 */
                assert_true(s.stops > 0);
                assert_true(s.stopped_ps > 0);
            }
        }
        assert_true(stops >= 7);
        assert_true(gos >= 7);
        myri_fabric_channel_stats out;
        myri_fabric_get_channel_stats(f, 1, &out);
        assert_int_equal(out.chars, 7ull * per * (payload + 6));
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
    }
}

/* ---- one packet alone: events per hop ---------------------------------------- */

/* A packet that nothing blocks costs the fast model two events per switch (its
 * decoding, with the arbitration in it, and the end of its run on the output;
 * the run is planned at the grant) plus three (the source's run start and end,
 * the GAP's arrival at the destination), plus one per hop: the message that
 * tells the run to the receiver (EV_F_MSG at the sender's now + the cable's
 * delay): 2R + 3 + (R + 1) (docs/FABRIC.md, fast model).  Both models deliver
 * it at the same time. */
static void test_lone_packet_events(void **state)
{
    (void)state;
    const double len[4] = {10, 10, 10, 10};
    myri_time_ps tail[2] = {0, 0};
    for (int model = 0; model < 2; model++) {
        myri_topo *t = ft_line(3, 8, len);
        myri_sim *sim = myri_sim_create(5);
        myri_fabric *f = mk(sim, t, model, NULL);
        uint8_t route[3] = {0x81, 0x81, 0x81}; /* port 1 of each switch, towards h1 */
        myri_fabric_packet pk = {.id = 1, .src_host = 0, .route_len = 3, .route = route, .type = 5,
                                 .payload_bytes = 20};
        assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        myri_fabric_counters c;
        myri_fabric_get_counters(f, &c);
        assert_int_equal(c.delivered, 1);
        assert_int_equal(c.hops, 4);
        assert_int_equal(g_log.n, 1);
        tail[model] = g_log.rec[0].t;
        if (model == MYRI_FABRIC_FAST) assert_int_equal(c.events, 2 * 3 + 3 + 4);
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
    }
    assert_int_equal(tail[0], tail[1]);
}

/* ---- corruption on any hop ------------------------------------------------------ */

static void test_corruption_any_hop(void **state)
{
    (void)state;
    double len[6] = {5, 5, 5, 5, 5, 5};
    for (int model = 0; model < 2; model++)
        for (uint32_t k = 1; k <= 4; k++)
            for (uint32_t hop = 0; hop <= k; hop++)
                for (uint32_t what = 0; what < 3; what++) {
                    myri_topo *t = ft_line(k, 8, len);
                    myri_sim *sim = myri_sim_create(1);
                    myri_fabric *f = mk(sim, t, model, NULL);
                    uint8_t route[8];
                    for (uint32_t i = 0; i < k; i++) route[i] = 0x81;
                    const uint32_t payload = 30;
                    /* characters on hop `hop`: k-hop route bytes, 4 type, payload, CRC */
                    uint32_t rb = k - hop;
                    uint32_t idx = what == 0 ? rb : what == 1 ? rb + 4 + 7 : rb + 4 + payload;
                    /* the channel of hop h: link h, direction towards h1 (a->b) */
                    assert_int_equal(myri_fabric_corrupt(f, 1, 2 * hop, idx, 0x04), MYRI_OK);
                    for (uint64_t id = 1; id <= 2; id++) {
                        myri_fabric_packet pk = {.id = id, .route_len = (uint8_t)k, .route = route,
                                                 .type = 5, .payload_bytes = payload};
                        assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
                    }
                    myri_sim_run(sim, MYRI_TIME_NEVER, 0);
                    ft_sort(&g_log);
                    assert_int_equal(g_log.n, 2);
                    assert_int_equal(g_log.rec[0].id, 1);
                    assert_int_equal(g_log.rec[0].reason, MYRI_FABRIC_DROP_CRC);
                    assert_int_equal(g_log.rec[1].reason, -1); /* the clean one arrives */
                    myri_fabric_counters c;
                    myri_fabric_get_counters(f, &c);
                    assert_int_equal(c.dropped[MYRI_FABRIC_DROP_CRC], 1);
                    myri_sim_destroy(sim);
                    myri_topo_destroy(t);
                }
}

/* ---- bad routes -------------------------------------------------------------------- */

static void test_bad_routes_counted(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        myri_topo *t = ft_star8();
        /* leave port 7 unconnected: rebuild with 7 hosts */
        myri_topo_destroy(t);
        t = myri_topo_create();
        uint32_t s, h;
        myri_topo_add_switch(t, "s0", 8, &s);
        for (uint32_t i = 0; i < 7; i++) {
            char name[8];
            snprintf(name, sizeof name, "h%u", i);
            myri_topo_add_host(t, name, &h);
            myri_topo_connect(t, h, 0, s, i, 10.0, NULL);
        }
        myri_sim *sim = myri_sim_create(1);
        myri_fabric *f = mk(sim, t, model, NULL);
        uint8_t to_host[1] = {0x02};        /* MSB 0 reaching the switch */
        uint8_t unconnected[1] = {0x87};    /* port 7: no cable */
        uint8_t too_long[2] = {0x82, 0x81}; /* second byte reaches host h2 */
        uint8_t good[1] = {0x82};
        const uint8_t *routes[4] = {to_host, unconnected, too_long, good};
        uint8_t lens[4] = {1, 1, 2, 1};
        for (int i = 0; i < 4; i++) {
            myri_fabric_packet pk = {.id = (uint64_t)i + 1, .src_host = 1, .route_len = lens[i],
                                     .route = routes[i], .type = 5, .payload_bytes = 100};
            assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
        }
        myri_fabric_packet none = {.id = 9, .src_host = 3, .route_len = 0, .type = 5, .payload_bytes = 4};
        assert_int_equal(myri_fabric_send(f, &none), MYRI_OK); /* type byte reaches the switch */
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        myri_fabric_counters c;
        myri_fabric_get_counters(f, &c);
        assert_int_equal(c.dropped[MYRI_FABRIC_DROP_TO_HOST_BYTE], 2);
        assert_int_equal(c.dropped[MYRI_FABRIC_DROP_UNCONNECTED_PORT], 1);
        assert_int_equal(c.dropped[MYRI_FABRIC_DROP_MISROUTED], 1);
        assert_int_equal(c.delivered, 1);
        assert_int_equal(c.in_flight, 0);
        myri_json *j = myri_json_create(stdout, false);
        myri_json_obj_begin(j);
        myri_fabric_report(f, j);
        myri_json_obj_end(j);
        assert_int_equal(myri_json_finish(j), MYRI_OK);
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
    }
}

/* ---- deadlock broken by the long-period timeout ------------------------------------ */

static void test_deadlock_timeout_fres(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        /* Ring s0->s1->s2->s3->s0 (port 0 out, port 1 in), host i on port 2 of si.
         * Every host sends a long packet two switches clockwise: the four worms
         * each hold one ring channel and wait for the next -- a deadlock. */
        myri_topo *t = myri_topo_create();
        uint32_t s[4], h;
        char name[8];
        for (int i = 0; i < 4; i++) {
            snprintf(name, sizeof name, "s%d", i);
            myri_topo_add_switch(t, name, 4, &s[i]);
        }
        for (int i = 0; i < 4; i++) myri_topo_connect(t, s[i], 0, s[(i + 1) % 4], 1, 10.0, NULL);
        for (int i = 0; i < 4; i++) {
            snprintf(name, sizeof name, "h%d", i);
            myri_topo_add_host(t, name, &h);
            myri_topo_connect(t, h, 0, s[i], 2, 10.0, NULL);
        }
        myri_sim *sim = myri_sim_create(1);
        myri_fabric *f = mk(sim, t, model, NULL); /* default timeout 50 ms (seed 002) */
        uint8_t route[3] = {0x80, 0x80, 0x82};
        for (uint32_t i = 0; i < 4; i++) { /* staggered by 400 ns: one worm blocks first */
            myri_sim_run(sim, i * 400 * MYRI_PS_PER_NS, 0);
            myri_fabric_packet pk = {.id = i + 1, .src_host = i, .route_len = 3, .route = route,
                                     .type = 5, .payload_bytes = 1000};
            assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
        }
        myri_sim_run(sim, 40 * MYRI_PS_PER_MS, 0);
        myri_fabric_counters c;
        myri_fabric_get_counters(f, &c);
        assert_int_equal(c.delivered + c.dropped_total, 0); /* deadlocked */
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        myri_fabric_get_counters(f, &c);
        assert_true(c.dropped[MYRI_FABRIC_DROP_TIMEOUT] >= 1);
        assert_int_equal(c.delivered + c.dropped_total, 4);
        assert_true(c.delivered >= 1); /* the others get through once the cycle is broken */
        for (size_t i = 0; i < g_log.n; i++)
            if (g_log.rec[i].reason == MYRI_FABRIC_DROP_TIMEOUT)
                assert_true(g_log.rec[i].t >= 50 * MYRI_PS_PER_MS);
        uint64_t trunc = 0;
        for (size_t ch = 0; ch < myri_fabric_channel_count(f); ch++) {
            myri_fabric_channel_stats st;
            myri_fabric_get_channel_stats(f, ch, &st);
            trunc += st.truncated;
        }
        assert_true(trunc >= 1); /* FRES went forward */
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
    }
}

/* ---- link cut and restore ----------------------------------------------------------- */

static void test_link_cut_restore(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        double len[3] = {10, 10, 10};
        myri_topo *t = ft_line(1, 8, len); /* h0 - s0 - h1: link 0 h0-s0, link 1 s0-h1 */
        myri_sim *sim = myri_sim_create(1);
        myri_fabric *f = mk(sim, t, model, NULL);
        uint8_t route = 0x81;
        /* packet 1 (2000 B = 25 us) is cut in the middle of link 1 at 10 us;
         * packet 2 is queued behind it; link 1 comes back at 40 us; packet 3
         * is sent at 50 us and arrives. */
        assert_int_equal(myri_fabric_cut_link(f, 1, 10 * MYRI_PS_PER_US), MYRI_OK);
        assert_int_equal(myri_fabric_restore_link(f, 1, 40 * MYRI_PS_PER_US), MYRI_OK);
        for (uint64_t id = 1; id <= 2; id++) {
            myri_fabric_packet pk = {.id = id, .route_len = 1, .route = &route, .type = 5,
                                     .payload_bytes = 2000};
            assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
        }
        myri_sim_run(sim, 50 * MYRI_PS_PER_US, 0);
        myri_fabric_packet pk3 = {.id = 3, .route_len = 1, .route = &route, .type = 5, .payload_bytes = 100};
        assert_int_equal(myri_fabric_send(f, &pk3), MYRI_OK);
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        myri_fabric_counters c;
        myri_fabric_get_counters(f, &c);
        ft_sort(&g_log);
        assert_int_equal(g_log.n, 3);
        assert_int_equal(g_log.rec[0].reason, MYRI_FABRIC_DROP_LINK_DOWN);
        assert_int_equal(g_log.rec[0].t, 10 * MYRI_PS_PER_US); /* truncated at the cut */
        /* packet 2 went into the dead cable (its head was forwarded while down) */
        assert_int_equal(g_log.rec[1].reason, MYRI_FABRIC_DROP_LINK_DOWN);
        assert_int_equal(g_log.rec[2].reason, -1);
        assert_int_equal(c.dropped[MYRI_FABRIC_DROP_LINK_DOWN], 2);
        assert_int_equal(c.in_flight, 0);
        myri_fabric_channel_stats s;
        myri_fabric_get_channel_stats(f, 2, &s); /* s0 -> h1 */
        assert_int_equal(s.truncated, 1);
        assert_int_equal(myri_fabric_cut_link(f, 7, 0), MYRI_EINVAL);
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
    }
}

/* ---- determinism -------------------------------------------------------------------- */

static void test_determinism(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        fd_case c;
        fd_case_make(&c, 4242);
        c.p.ber = 1e-4;
        fd_out a, b, d;
        char msg[256];
        fd_run(&c, model, 99, 0, &a);
        fd_run(&c, model, 99, 0, &b);
        assert_int_equal(fd_compare(&a, &b, msg, sizeof msg), 0);
        assert_int_equal(a.ctr.result_hash, b.ctr.result_hash);
        fd_run(&c, model, 100, 0, &d); /* another seed: other bit errors */
        assert_int_not_equal(a.ctr.result_hash, d.ctr.result_hash);
        free(a.rec);
        free(b.rec);
        free(d.rec);
        fd_case_free(&c);
    }
}

static void test_api_misuse(void **state)
{
    (void)state;
    myri_topo *t = ft_star8();
    myri_sim *sim = myri_sim_create(1);
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    myri_fabric *f = NULL;
    assert_int_equal(myri_fabric_create(NULL, t, &p, NULL, &f, NULL), MYRI_EINVAL);
    p.slack_go_bytes = 60; /* above STOP */
    myri_error err;
    assert_int_equal(myri_fabric_create(sim, t, &p, NULL, &f, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "slack.go"));
    myri_fabric_params_default(&p);
    assert_int_equal(myri_fabric_create(sim, t, &p, NULL, &f, NULL), MYRI_OK);
    myri_fabric_packet pk = {.id = 1, .src_host = 99, .type = 5};
    assert_int_equal(myri_fabric_send(f, &pk), MYRI_EINVAL);
    pk.src_host = 0;
    pk.route_len = 40;
    assert_int_equal(myri_fabric_send(f, &pk), MYRI_EINVAL);
    assert_int_equal(myri_fabric_corrupt(f, 1, 999, 0, 1), MYRI_EINVAL);
    assert_int_equal(myri_fabric_set_tap(f, 999, NULL, NULL), MYRI_EINVAL);
    myri_sim_destroy(sim);
    myri_topo_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc_trailer_and_strip), cmocka_unit_test(test_hotspot),
        cmocka_unit_test(test_corruption_any_hop),    cmocka_unit_test(test_bad_routes_counted),
        cmocka_unit_test(test_deadlock_timeout_fres), cmocka_unit_test(test_link_cut_restore),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_api_misuse),
        cmocka_unit_test(test_lone_packet_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
