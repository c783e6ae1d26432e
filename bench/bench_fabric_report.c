/* bench_fabric_report.c -- the cost of the fast model's report step.
 *
 * A 1024-host 4-ary 5-tree (1280 switches, 10240 channels) of the fast model:
 * every host sends four 64-byte packets to random hosts at time 0, the
 * simulation runs 20 us (packets still in flight: runs, STOP/GO and slack
 * occupancy to bring up to date), then the report step is timed:
 * myri_fabric_report (the JSON "links" of `myri run --json`) and
 * myri_fabric_get_all_channel_stats (the text summary's link line).  Both
 * bring the channels up to date once (issue 8: they did it once per channel,
 * quadratic in the channels; a 4096-host 4-ary 6-tree of 20 us did not finish
 * in 600 s).  Prints the times, the channel count, the fabric's result hash
 * and an FNV-1a hash of the report's JSON text (unchanged by the fix), then a
 * JSON line.  No target.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fabric/fabric.h"
#include "myri/json.h"
#include "myri/sim.h"
#include "topo/topo.h"

static double rep__now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rep__fnv(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h;
}

/* Sends four packets from every host to hosts drawn by a fixed LCG. */
static int rep__traffic(myri_fabric *f, const myri_routes *r)
{
    uint64_t x = 12345;
    for (uint32_t s = 0; s < r->nhosts; s++)
        for (uint64_t k = 0; k < 4; k++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t d = (uint32_t)((x >> 33) % r->nhosts);
            if (d == s) d = (d + 1) % (uint32_t)r->nhosts;
            myri_route rb;
            const myri_route *rt = myri_routes_get(r, s, d, &rb);
            myri_fabric_packet pk = {.id = ((uint64_t)s << 40) | k, .src_host = s, .route_len = rt->len,
                                     .route = rt->byte, .type = 5, .payload_bytes = 64};
            if (myri_fabric_send(f, &pk) != MYRI_OK) return 1;
        }
    return 0;
}

int main(void)
{
    myri_topo_gen_params gp = {.gen = MYRI_GEN_FAT_TREE, .k = 4, .n = 5, .length_m = 10.0};
    myri_topo *t = NULL;
    myri_routes routes = {0};
    myri_error err = {.msg = ""};
    if (myri_topo_generate(&gp, &t, &err) || myri_routes_updown(t, MYRI_ROUTE_ABSOLUTE, &routes, &err)) {
        fprintf(stderr, "bench_fabric_report: %s\n", err.msg);
        return 1;
    }
    myri_sim *sim = myri_sim_create(1);
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    myri_fabric *f = NULL;
    if (!sim || myri_fabric_create(sim, t, &p, NULL, &f, &err) || rep__traffic(f, &routes)) {
        fprintf(stderr, "bench_fabric_report: %s\n", err.msg);
        return 1;
    }
    myri_sim_run(sim, 20 * MYRI_PS_PER_US, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    double t0 = rep__now_s();
    myri_json *j = myri_json_create(mem, false);
    myri_json_obj_begin(j);
    myri_fabric_report(f, j);
    myri_json_obj_end(j);
    int bad = myri_json_finish(j) != MYRI_OK;
    double t_report = rep__now_s() - t0;
    fclose(mem);
    size_t n = myri_fabric_channel_count(f);
    myri_fabric_channel_stats *all = malloc(n * sizeof *all);
    t0 = rep__now_s();
    bad |= !all || myri_fabric_get_all_channel_stats(f, all, n) != MYRI_OK;
    double t_all = rep__now_s() - t0;
    myri_fabric_counters c;
    myri_fabric_get_counters(f, &c);
    uint64_t jh = rep__fnv(buf, len);
    printf("%-16s %9s %9s %8s %10s %10s  %-18s  %s\n", "benchmark", "report_s", "all_s", "channels", "delivered",
           "in_flight", "result_hash", "report_hash");
    printf("%-16s %9.4f %9.4f %8zu %10" PRIu64 " %10" PRIu64 "  0x%016" PRIx64 "  0x%016" PRIx64 "\n",
           "fattree1024-rep", t_report, t_all, n, c.delivered, c.in_flight, c.result_hash, jh);
    printf("{\"benchmark\":\"fabric-report-fattree1024\",\"report_s\":%.6f,\"all_channel_stats_s\":%.6f,"
           "\"channels\":%zu,\"delivered\":%" PRIu64 ",\"in_flight\":%" PRIu64 ",\"result_hash\":\"0x%016" PRIx64
           "\",\"report_hash\":\"0x%016" PRIx64 "\"}\n",
           t_report, t_all, n, c.delivered, c.in_flight, c.result_hash, jh);
    free(all);
    free(buf);
    myri_sim_destroy(sim);
    myri_routes_free(&routes);
    myri_topo_destroy(t);
    return bad;
}
