/* bench_fabric.c -- the fabric benchmark of MISSION.md.
 *
 * Runs scenarios/fattree64.yaml (64 hosts, 4-ary 3-tree of 8-port switches,
 * uniform random traffic at 20 % load, 20-byte payloads, 100 000 byte-times
 * after the warm-up; target: at most 0.1 s of wall time) and
 * scenarios/fattree64-4k.yaml (4 KiB payloads, one simulated second; target:
 * at most one wall second), each with the fast model, then fattree64 again
 * with a host device on every port (port.device: dma, window 64 KiB, re-armed
 * at once: the same packets at the same times as the ideal hosts, so the
 * same result hash), and prints wall time,
 * simulated time, events, events per second, packets and the result hash
 * (a speed run is also a correctness run), then one JSON line per case, then
 * the ratio of the ports case's wall time to the bare fattree64-20B case's
 * in the same run (what the ports and the devices cost; no target: 0).
 * wall_s is the wall time of the simulation run itself, warm-up included
 * (the target is for the 100 000 byte-times after it, so this is stricter);
 * total_wall_s adds everything else `myri run` does for the scenario: loading
 * the YAML, building the topology and routes, creating the fabric and the
 * traffic, and collecting the results.  The source directory is found from
 * __FILE__ or given as the first argument.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app/fabric_job.h"

#define NCASES 3

static const char *source_dir(int argc, char **argv, char *buf, size_t len)
{
    if (argc > 1) return argv[1];
    const char *f = __FILE__, *cut = strstr(f, "bench/bench_fabric.c");
    if (!cut || cut == f) return ".";
    snprintf(buf, len, "%.*s", (int)(cut - f - 1), f);
    return buf;
}

static double bench__now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    static const char *const ports[] = {"port.device=dma", "port.window=64KiB", "port.arm_delay=0ns", NULL};
    static const struct {
        const char *name, *file;
        double target_wall_s;
        const char *const *set; /* --set edits, NULL-terminated (or NULL) */
    } cases[NCASES] = {{"fattree64-20B", "scenarios/fattree64.yaml", 0.1, NULL},
                       {"fattree64-4KiB", "scenarios/fattree64-4k.yaml", 1.0, NULL},
                       {"fattree64-ports", "scenarios/fattree64.yaml", 0.0, ports}};
    char dir[4096], path[4200];
    const char *src = source_dir(argc, argv, dir, sizeof dir);
    myri_fabric_run_result r[NCASES];
    double total[NCASES];
    printf("%-15s %9s %9s %10s %12s %12s %10s %10s %8s  %s\n", "benchmark", "wall_s", "total_s", "target_s",
           "sim_time_s", "events", "events/s", "delivered", "load", "hash");
    for (int i = 0; i < NCASES; i++) {
        snprintf(path, sizeof path, "%s/%s", src, cases[i].file);
        myri_node *root = NULL;
        myri_error err = {.msg = ""};
        double t0 = bench__now_s();
        myri_status st = myri_doc_load(path, &root, &err);
        for (size_t k = 0; !st && cases[i].set && cases[i].set[k]; k++) st = myri_node_set(root, cases[i].set[k], &err);
        if (st != MYRI_OK ||
            myri_fabric_run_doc(root, NULL, &r[i], &err) != MYRI_OK) {
            fprintf(stderr, "bench_fabric: %s: %s\n", path, err.msg);
            myri_node_free(root);
            return 1;
        }
        myri_node_free(root);
        total[i] = bench__now_s() - t0;
        printf("%-15s %9.4f %9.4f %10.2f %12.6f %12" PRIu64 " %10.3g %10" PRIu64 " %8.4f  0x%016" PRIx64 "\n",
               cases[i].name, r[i].wall_s, total[i], cases[i].target_wall_s, (double)r[i].sim_time_ps * 1e-12,
               r[i].events, r[i].wall_s > 0 ? (double)r[i].events / r[i].wall_s : 0, r[i].delivered,
               r[i].offered_load, r[i].hash);
    }
    for (int i = 0; i < NCASES; i++)
        printf("{\"benchmark\":\"fabric-%s\",\"wall_s\":%.6f,\"total_wall_s\":%.6f,\"target_wall_s\":%.2f,\"sim_time_ps\":%" PRIu64
               ",\"events\":%" PRIu64 ",\"fabric_events\":%" PRIu64 ",\"events_per_sec\":%.0f,\"injected\":%" PRIu64
               ",\"delivered\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"in_flight\":%" PRIu64
               ",\"offered_load\":%.6f,\"latency_mean_ns\":%.3f,\"latency_p99_ns\":%.3f,\"hash\":\"0x%016" PRIx64
               "\",\"result_hash\":\"0x%016" PRIx64 "\"}\n",
               cases[i].name, r[i].wall_s, total[i], cases[i].target_wall_s, r[i].sim_time_ps, r[i].events, r[i].fabric_events,
               r[i].wall_s > 0 ? (double)r[i].events / r[i].wall_s : 0, r[i].injected, r[i].delivered, r[i].dropped,
               r[i].in_flight, r[i].offered_load, r[i].latency_mean_ns, r[i].latency_p99_ns, r[i].hash,
               r[i].result_hash);
    printf("ports: fattree64-ports / fattree64-20B wall time %.3f (%.4f s / %.4f s; result_hash %s)\n",
           r[0].wall_s > 0 ? r[2].wall_s / r[0].wall_s : 0, r[2].wall_s, r[0].wall_s,
           r[2].result_hash == r[0].result_hash ? "the same" : "DIFFERENT");
    printf("{\"benchmark\":\"fabric-ports-cost\",\"wall_ratio\":%.4f,\"wall_s\":%.6f,\"bare_wall_s\":%.6f,"
           "\"same_result_hash\":%s}\n",
           r[0].wall_s > 0 ? r[2].wall_s / r[0].wall_s : 0, r[2].wall_s, r[0].wall_s,
           r[2].result_hash == r[0].result_hash ? "true" : "false");
    return 0;
}
