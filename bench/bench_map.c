/* bench_map.c -- mapping networks of Mainwaring et al.'s sizes (SPAA 1997,
 * myrinet-facts section 2): 36 hosts, 13 switches, 64 links (248 ms on their
 * NOW) and 100 hosts, 40 switches, 193 links (981 ms).  Each network is a
 * random one of exactly that size (a ring of switches with chords, hosts
 * spread over the switches, 8-port switches); the mapper is chosen by
 * map.mapper so that the time is the exploration and distribution, not the
 * election.  Prints the simulated mapping time (goal: no more than theirs),
 * the wall time, the probes and whether the map is isomorphic.  Run by
 * `make bench` (build/bench_map). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/system_int.h"
#include "map/map.h"

static int64_t bm__host_of_id(void *ctx, uint64_t id)
{
    const myri_topo *t = ctx;
    for (uint32_t h = 0; h < t->nhosts; h++)
        if (myri_sysmap_id(h) == id) return h;
    return -1;
}

/* A YAML network of H hosts, S switches of 8 ports and L links in all. */
static int bm__doc(char *buf, size_t n, unsigned H, unsigned S, unsigned L, unsigned seed)
{
    unsigned used[64] = {0}, sw[128];
    size_t o = (size_t)snprintf(buf, n, "job: system\nduration: 10s\nswitch: {addressing: relative}\nmapping: on\n"
                                        "map: {mapper: h0, level: 0}\ntopology:\n  switches:\n");
    for (unsigned s = 0; s < S; s++) o += (size_t)snprintf(buf + o, n - o, "    - {name: s%u, ports: 8}\n", s);
    o += (size_t)snprintf(buf + o, n - o, "  hosts: %u\n  links:\n", H);
    srand(seed);
    for (unsigned h = 0; h < H; h++) {
        unsigned s = h % S;
        sw[h] = s;
        o += (size_t)snprintf(buf + o, n - o, "    - {a: h%u, b: [s%u, %u]}\n", h, s, used[s]++);
    }
    unsigned links = H;
    for (unsigned s = 0; s < S && links < L; s++, links++) {
        unsigned t = (s + 1) % S;
        o += (size_t)snprintf(buf + o, n - o, "    - {a: [s%u, %u], b: [s%u, %u]}\n", s, used[s]++, t, used[t]++);
    }
    for (unsigned tries = 0; links < L && tries < 100000; tries++) {
        unsigned a = (unsigned)rand() % S, b = (unsigned)rand() % S;
        if (a == b || used[a] >= 8 || used[b] >= 8) continue;
        o += (size_t)snprintf(buf + o, n - o, "    - {a: [s%u, %u], b: [s%u, %u]}\n", a, used[a]++, b, used[b]++);
        links++;
    }
    (void)sw;
    return links == L ? 0 : -1;
}

static double bm__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bm__case(unsigned H, unsigned S, unsigned L, double paper_ms)
{
    static char doc[65536];
    if (bm__doc(doc, sizeof doc, H, S, L, 1)) return fprintf(stderr, "bench_map: cannot build %u/%u/%u\n", H, S, L), 1;
    myri_node *root = NULL;
    myri_error err = {.msg = ""};
    if (myri_doc_parse("bench_map", doc, strlen(doc), &root, &err)) return fprintf(stderr, "%s\n", err.msg), 1;
    myri_sys_cfg c;
    myri_sys_run r;
    int rc = 1;
    if (!myri_sys_cfg_load(&c, root, &err)) {
        c.map_stop = true;
        myri_run_opts opts = {0};
        double t0 = bm__now();
        if (!myri_sys_run_cfg(&r, &c, root, &opts, false, &err)) {
            double wall = bm__now() - t0;
            myri_sysmap_summary s;
            myri_fw_inst **fws = malloc(r.nnic * sizeof *fws);
            for (uint32_t i = 0; fws && i < r.nnic; i++) fws[i] = r.nic[i].fw;
            myri_sysmap_get_summary(r.map, fws, r.nnic, &s);
            free(fws);
            const myri_map *m = myri_sysmap_map(r.map);
            myri_map_check ck = {0};
            if (m) myri_map_check_topo(m, r.b.topo, 0, MYRI_MAP_REACH, bm__host_of_id, r.b.topo, &ck);
            printf("%3u hosts %2u switches %3u links: mapped in %.3f ms simulated (Mainwaring 1997: %.0f ms), "
                   "%.3f s wall, %" PRIu64 " mapping packets, isomorphic %s\n",
                   H, S, L, (double)s.map_time_ps / 1e9, paper_ms, wall, s.packets, ck.isomorphic ? "yes" : "no");
            rc = m && ck.isomorphic && (double)s.map_time_ps / 1e9 <= paper_ms ? 0 : 1;
            myri_map_check_free(&ck);
        } else {
            fprintf(stderr, "%s\n", err.msg);
        }
        myri_sys_run_free(&r);
    } else {
        fprintf(stderr, "%s\n", err.msg);
    }
    myri_sys_cfg_free(&c);
    myri_node_free(root);
    return rc;
}

int main(void)
{
    int rc = bm__case(36, 13, 64, 248);
    rc |= bm__case(100, 40, 193, 981);
    return rc;
}
