/* test_fabric_latency.c -- unloaded cut-through latency of one packet equals
 * the formula of docs/FABRIC.md, to the picosecond, in both models; the
 * packet-hops counted are the links it crossed. */
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

static void run_case(int model, uint32_t hops, uint32_t payload, const double *len, uint64_t L,
                     int64_t type_bytes)
{
    myri_topo *t = ft_line(hops, 8, len);
    myri_sim *sim = myri_sim_create(1);
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    p.model = model;
    p.switch_latency_ps = L;
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
                    for (size_t la = 0; la < 4; la++)
                        run_case(model, hops, payloads[pi], lens[li], lats[la], (pi & 1) ? 2 : 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_latency_formula),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
