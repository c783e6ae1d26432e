/* bench_routes.c -- building a fat tree's routes, now and by the old path,
 * in the same run (issue 24: a 4096-host fat tree, topology and routes as
 * `myri run` builds them, in under 0.1 s).
 *
 * For each network, in a child process of its own (so that its peak resident
 * memory is its own):
 *  - new: generate the topology, myri_routes_updown (arithmetic on a
 *    generated fat tree: no table), no deadlock check (deadlock-free by
 *    construction, as myri_topo_build decides), and the sum of route lengths
 *    of every source (what the traffic sources compute at set-up);
 *  - old: the same topology, myri_routes_updown_table (a breadth-first search
 *    per switch and one walk per source switch and destination, interned in
 *    the compact store), the channel dependency check, and the sum of route
 *    lengths pair by pair: what `myri run` did before.
 * Then an FNV-1a hash of every route's bytes from both sets (a speed run is
 * also a correctness run: the two hashes must be equal, and equal to the
 * hash this benchmark printed before the arithmetic routes existed).
 * Relative encoding (the first bytes differ per host).  The topology
 * generation (in both columns) no longer compares names with strcmp per node
 * (a hash set in topo.c): 0.28 s at 4 096 hosts before, in no column here.
 * Output: aligned text, then one JSON line per network.
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

static uint64_t hash_all(const myri_routes *r)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t s = 0; s < r->nhosts; s++)
        for (size_t d = 0; d < r->nhosts; d++) {
            myri_route b;
            myri_routes_get(r, s, d, &b);
            h = fnv(h, &b.len, 1);
            if (b.len != MYRI_ROUTE_NONE) h = fnv(h, b.byte, b.len);
        }
    return h;
}

typedef struct build_times {
    double gen_s, routes_s, check_s, lensum_s;
    uint64_t lensum;
    bool ok;
} build_times;

/* One build; table = the old path. */
static myri_topo *build(const myri_topo_gen_params *gp, bool table, myri_routes *r, build_times *bt,
                        myri_error *err)
{
    myri_topo *t = NULL;
    double t0 = now_s();
    if (myri_topo_generate(gp, &t, err)) return NULL;
    double t1 = now_s();
    myri_status st = table ? myri_routes_updown_table(t, MYRI_ROUTE_RELATIVE, r, err)
                           : myri_routes_updown(t, MYRI_ROUTE_RELATIVE, r, err);
    if (st) {
        myri_topo_destroy(t);
        return NULL;
    }
    double t2 = now_s();
    bt->ok = myri_routes_by_construction(r) || myri_routes_deadlock_free(t, MYRI_ROUTE_RELATIVE, r, err);
    double t3 = now_s();
    bt->lensum = 0;
    for (size_t s = 0; s < r->nhosts; s++) {
        if (!table) {
            bt->lensum += myri_routes_len_sum(r, s);
            continue;
        }
        for (size_t d = 0; d < r->nhosts; d++)
            if (d != s) bt->lensum += myri_routes_len(r, s, d);
    }
    double t4 = now_s();
    *bt = (build_times){t1 - t0, t2 - t1, t3 - t2, t4 - t3, bt->lensum, bt->ok};
    return t;
}

static int run_case(const char *name, uint32_t k, uint32_t n)
{
    myri_topo_gen_params gp = {.gen = MYRI_GEN_FAT_TREE, .k = k, .n = n, .length_m = 10.0};
    myri_routes rn = {0}, ro = {0};
    myri_error err = {.msg = ""};
    build_times bn, bo;
    myri_topo *tn = build(&gp, false, &rn, &bn, &err);
    myri_topo *to = tn ? build(&gp, true, &ro, &bo, &err) : NULL;
    if (!tn || !to) {
        fprintf(stderr, "bench_routes: %s: %s\n", name, err.msg);
        myri_topo_destroy(tn);
        return 1;
    }
    uint64_t hn = hash_all(&rn), ho = hash_all(&ro);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double new_s = bn.gen_s + bn.routes_s + bn.check_s + bn.lensum_s;
    double old_s = bo.gen_s + bo.routes_s + bo.check_s + bo.lensum_s;
    bool same = hn == ho && bn.lensum == bo.lensum && bn.ok && bo.ok;
    printf("%-14s %5zu hosts  build new %8.4f s (gen %.4f, routes %.6f, check -, lengths %.6f)  "
           "old %7.3f s (gen %.4f, routes %.3f, check %.3f, lengths %.3f)  %6.0fx  %s\n"
           "               store new %zu B, old %.2f MB (%zu rows, %zu distinct)  route hash %016" PRIx64 "%s\n",
           name, rn.nhosts, new_s, bn.gen_s, bn.routes_s, bn.lensum_s, old_s, bo.gen_s, bo.routes_s, bo.check_s,
           bo.lensum_s, old_s / new_s, same ? "same routes" : "ROUTES DIFFER", myri_routes_memory(&rn),
           myri_routes_memory(&ro) / 1e6, ro.nrows, ro.ndistinct, hn, hn == ho ? "" : " (old differs)");
    printf("{\"bench\": \"routes\", \"case\": \"%s\", \"hosts\": %zu, \"new_build_s\": %.6f, \"new_generate_s\": %.6f, "
           "\"new_routes_s\": %.6f, \"new_lengths_s\": %.6f, \"old_build_s\": %.4f, \"old_generate_s\": %.4f, "
           "\"old_routes_s\": %.4f, \"old_deadlock_s\": %.4f, \"old_lengths_s\": %.4f, \"speedup\": %.1f, "
           "\"old_store_mb\": %.3f, \"peak_rss_mb\": %.3f, \"same\": %s, \"hash\": \"%016" PRIx64 "\"}\n",
           name, rn.nhosts, new_s, bn.gen_s, bn.routes_s, bn.lensum_s, old_s, bo.gen_s, bo.routes_s, bo.check_s,
           bo.lensum_s, old_s / new_s, myri_routes_memory(&ro) / 1e6, (double)ru.ru_maxrss / 1e3,
           same ? "true" : "false", hn);
    myri_routes_free(&rn);
    myri_routes_free(&ro);
    myri_topo_destroy(tn);
    myri_topo_destroy(to);
    return same ? 0 : 1;
}

int main(void)
{
    static const struct { const char *name; uint32_t k, n; } cases[] = {
        {"4-ary 3-tree", 4, 3}, {"4-ary 4-tree", 4, 4}, {"4-ary 5-tree", 4, 5},
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
