/* test_fabric_latency.c -- unloaded cut-through latency of one packet equals
 * the formula of docs/FABRIC.md, to the picosecond, in both models, whatever
 * part of the switch latency is route time (the rest falls through); the
 * packet-hops counted are the links it crossed; a lone flow of back-to-back
 * small packets through an idle switch loses nothing to the switch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "fabric_testlib.h"

static ft_log g_log;

/* Formula (docs/FABRIC.md, "Unloaded latency"): with character time T,
 * switch latency L, propagation P_i on link i (i = 0 host link ... R last),
 * R route bytes, H type bytes, B payload bytes, N0 = R + H + B + 2 characters
 * (CRC trailer and GAP included) on the first hop:
 *   head sent -> GAP received = sum_{i<R} (T + P_i + max(L, T)) + (N0 - R) T + P_R. */
static uint64_t formula(uint64_t T, uint64_t L, const uint64_t *P, uint32_t R, uint32_t H, uint32_t B)
{
    uint64_t lat = 0;
    for (uint32_t i = 0; i < R; i++) lat += T + P[i] + (L > T ? L : T);
    return lat + ((uint64_t)R + H + B + 2 - R) * T + P[R];
}

static void run_case(int model, uint32_t hops, uint32_t payload, const double *len, uint64_t L, uint64_t R,
                     int64_t type_bytes)
{
    myri_topo *t = ft_line(hops, 8, len);
    myri_sim *sim = myri_sim_create(1);
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    p.model = model;
    p.switch_latency_ps = L;
    p.switch_route_ps = R;
    p.type_bytes = type_bytes;
    memset(&g_log, 0, sizeof g_log);
    myri_fabric_callbacks cb = {ft_delivered, ft_dropped, &g_log};
    myri_fabric *f = NULL;
    assert_int_equal(myri_fabric_create(sim, t, &p, &cb, &f, NULL), MYRI_OK);
    uint8_t route[32];
    for (uint32_t i = 0; i < hops; i++) route[i] = 0x81; /* out of port 1 */
    myri_fabric_packet pk = {.id = 42, .src_host = 0, .route_len = (uint8_t)hops, .route = route,
                             .type = 0x0005, .payload_bytes = payload};
    assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
    myri_sim_run(sim, MYRI_TIME_NEVER, 0);
    assert_int_equal(g_log.n, 1);
    assert_int_equal(g_log.rec[0].reason, -1);
    assert_int_equal(g_log.rec[0].dst, 1);
    uint64_t T = myri_fabric_char_time_ps(f);
    uint64_t P[34];
    for (uint32_t i = 0; i <= hops; i++)
        P[i] = (uint64_t)floor(len[i] / (0.6 * 299792458.0) * 1e12 + 0.5);
    uint64_t want = formula(T, L, P, hops, (uint32_t)type_bytes, payload);
    assert_int_equal(g_log.rec[0].t - g_log.rec[0].head, want);
    assert_int_equal(g_log.rec[0].head, 0);
    /* a packet through `hops` switches crosses hops + 1 links: as many packet-hops */
    myri_fabric_counters ctr;
    myri_fabric_get_counters(f, &ctr);
    assert_int_equal(ctr.hops, hops + 1);
    myri_sim_destroy(sim);
    myri_topo_destroy(t);
}

static void test_latency_formula(void **state)
{
    (void)state;
    static const double lens[][6] = {{10, 10, 10, 10, 10, 10}, {1, 25, 3.3, 0.5, 17, 2},
                                     {0.001, 0.001, 0.001, 0.001, 0.001, 0.001}};
    static const uint32_t payloads[] = {0, 1, 20, 100, 4096};
    static const uint64_t lats[] = {550000, 150000, 5000, 1};
    for (int model = 0; model < 2; model++)
        for (uint32_t hops = 0; hops <= 5; hops++)
            for (size_t li = 0; li < 3; li++)
                for (size_t pi = 0; pi < 5; pi++)
                    for (size_t la = 0; la < 4; la++) {
                        /* route time: none, the default 12.5 ns (or all of a smaller
                         * latency), all of it: the unloaded latency is the sum */
                        uint64_t L = lats[la], rs[3] = {0, L < 12500 ? L : 12500, L};
                        for (size_t ri = 0; ri < 3; ri++)
                            run_case(model, hops, payloads[pi], lens[li], L, rs[ri], (pi & 1) ? 2 : 4);
                    }
}

/* The default switch (550 ns: 12.5 ns route time + 537.5 ns fall-through):
 * one switch, 10 m cables, unloaded, head sent -> first byte out of the
 * switch = T + P + 550 ns, in both models (the formula with R = 1). */
static void test_default_switch_sum(void **state)
{
    (void)state;
    static const double len[] = {10, 10};
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    assert_int_equal(p.switch_latency_ps, 550000);
    assert_int_equal(p.switch_route_ps, 12500);
    for (int model = 0; model < 2; model++) run_case(model, 1, 8, len, p.switch_latency_ps, p.switch_route_ps, 4);
}

/* One flow of back-to-back packets (h0 -> s0 -> h1, all queued at 0): the
 * packets arrive at the host's link rate, one every (route + type + payload +
 * CRC + GAP) characters: the switch costs nothing but the route byte it
 * strips.  Returns the time between the first and the last delivery. */
static uint64_t flow_span(int model, uint32_t payload, uint32_t n, uint64_t L, uint64_t R)
{
    static const double len[] = {10, 10};
    myri_topo *t = ft_line(1, 8, len);
    myri_sim *sim = myri_sim_create(1);
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    p.model = model;
    p.switch_latency_ps = L;
    p.switch_route_ps = R;
    memset(&g_log, 0, sizeof g_log);
    myri_fabric_callbacks cb = {ft_delivered, ft_dropped, &g_log};
    myri_fabric *f = NULL;
    assert_int_equal(myri_fabric_create(sim, t, &p, &cb, &f, NULL), MYRI_OK);
    uint8_t route[1] = {0x81};
    for (uint32_t i = 0; i < n; i++) {
        myri_fabric_packet pk = {.id = 100 + i, .src_host = 0, .route_len = 1, .route = route,
                                 .type = 0x0005, .payload_bytes = payload};
        assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
    }
    myri_sim_run(sim, MYRI_TIME_NEVER, 0);
    assert_int_equal(g_log.n, n);
    for (uint32_t i = 0; i < n; i++) assert_int_equal(g_log.rec[i].reason, -1);
    myri_fabric_counters ctr;
    myri_fabric_get_counters(f, &ctr);
    assert_int_equal(ctr.dropped_total, 0);
    uint64_t span = g_log.rec[n - 1].t - g_log.rec[0].t;
    myri_sim_destroy(sim);
    myri_topo_destroy(t);
    return span;
}

static void test_lone_flow_full_rate(void **state)
{
    (void)state;
    const uint64_t T = 12500, n = 40;
    static const uint32_t payloads[] = {8, 64};
    for (int model = 0; model < 2; model++)
        for (size_t i = 0; i < 2; i++) {
            uint64_t chars = 1 + 4 + payloads[i] + 2; /* route, type, payload, CRC, GAP */
            /* the default switch: route time 12.5 ns, fall-through 537.5 ns */
            assert_int_equal(flow_span(model, payloads[i], (uint32_t)n, 550000, 12500), (n - 1) * chars * T);
            /* a route time of two characters still fits in the stripped route byte's slot */
            assert_int_equal(flow_span(model, payloads[i], (uint32_t)n, 550000, 2 * T), (n - 1) * chars * T);
            /* the whole 550 ns as occupancy (the previous model): the switch throttles the flow */
            assert_true(flow_span(model, payloads[i], (uint32_t)n, 550000, 550000) > (n - 1) * chars * T);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latency_formula),
        cmocka_unit_test(test_default_switch_sum),
        cmocka_unit_test(test_lone_flow_full_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
