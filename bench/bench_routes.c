/* bench_routes.c -- the all-pairs route store on 4096-host networks (MISSION.md
 * memory target: a 4096-host network in under 1 GiB).
 *
 * For each network, in a child process of its own (so that its peak resident
 * memory is its own): generate the topology, build its up*-then-down* routes
 * (relative encoding: the first bytes differ per host) and run the deadlock
 * check, as `myri topo` does.  Prints the time of each step, the bytes the
 * store holds against the 33 bytes per pair of a flat table (what the store
 * was before it was compact: 553 MB at 4096 hosts), the peak resident memory
 * of the child (ru_maxrss), and an FNV-1a hash of every route's bytes (a
 * speed run is also a correctness run: the hash must not change when the
 * store changes).  Output: aligned text, then one JSON line per network.
 */
#include <inttypes.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "topo/topo.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t fnv(uint64_t h, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static int run_case(const char *name, uint32_t k, uint32_t n)
{
    myri_topo_gen_params gp = {.gen = MYRI_GEN_FAT_TREE, .k = k, .n = n, .length_m = 10.0};
    myri_topo *t = NULL;
    myri_routes r = {0};
    myri_error err = {.msg = ""};
    double t0 = now_s();
    if (myri_topo_generate(&gp, &t, &err)) goto fail;
    double t1 = now_s();
    if (myri_routes_updown(t, MYRI_ROUTE_RELATIVE, &r, &err)) goto fail;
    double t2 = now_s();
    bool ok = myri_routes_deadlock_free(t, MYRI_ROUTE_RELATIVE, &r, &err);
    double t3 = now_s();
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t s = 0; s < r.nhosts; s++)
        for (size_t d = 0; d < r.nhosts; d++) {
            myri_route b;
            myri_routes_get(&r, s, d, &b);
            h = fnv(h, &b.len, 1);
            if (b.len != MYRI_ROUTE_NONE) h = fnv(h, b.byte, b.len);
        }
    double t4 = now_s();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double flat_mb = (double)r.nhosts * r.nhosts * sizeof(myri_route) / 1e6;
    double store_mb = (double)myri_routes_memory(&r) / 1e6, rss_mb = (double)ru.ru_maxrss / 1e3;
    printf("%-14s %5zu hosts  routes %6.3f s  deadlock check %6.3f s  (%s)  all pairs read %6.3f s\n"
           "               store %7.2f MB (%zu rows, %zu distinct routes), flat table %7.2f MB, peak RSS %7.2f MB"
           "  hash %016" PRIx64 "\n",
           name, r.nhosts, t2 - t1, t3 - t2, ok ? "deadlock-free" : "CYCLE", t4 - t3, store_mb, r.nrows,
           r.ndistinct, flat_mb, rss_mb, h);
    printf("{\"bench\": \"routes\", \"case\": \"%s\", \"hosts\": %zu, \"generate_s\": %.4f, \"routes_s\": %.4f, "
           "\"deadlock_s\": %.4f, \"read_all_s\": %.4f, \"store_mb\": %.3f, \"flat_mb\": %.3f, \"peak_rss_mb\": %.3f, "
           "\"hash\": \"%016" PRIx64 "\"}\n",
           name, r.nhosts, t1 - t0, t2 - t1, t3 - t2, t4 - t3, store_mb, flat_mb, rss_mb, h);
    myri_routes_free(&r);
    myri_topo_destroy(t);
    return ok ? 0 : 1;
fail:
    fprintf(stderr, "bench_routes: %s: %s\n", name, err.msg);
    myri_topo_destroy(t);
    return 1;
}

int main(void)
{
    static const struct { const char *name; uint32_t k, n; } cases[] = {
        {"4-ary 6-tree", 4, 6}, {"8-ary 4-tree", 8, 4}, {"16-ary 3-tree", 16, 3}};
    int rc = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) return 1;
        if (pid == 0) {
            int crc = run_case(cases[i].name, cases[i].k, cases[i].n);
            fflush(stdout);
            _exit(crc);
        }
        int status = 0;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) rc = 1;
    }
    return rc;
}
