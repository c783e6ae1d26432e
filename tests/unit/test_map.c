/* test_map.c -- mapping (issue 12, docs/MAPPING.md) on whole systems: every
 * NIC runs seed 001's MCP with the mapping machines (`mapping: on`), every
 * firmware action is compared with its table row (check_firmware), on random
 * networks (seeded) with cycles, hosts on random ports and host-less switches
 * (a cycle of them, and one behind a bridge: Mainwaring's F).  At the first
 * map, and after each fault script -- a link on a cycle cut and restored, the
 * mapper's host dead (its cable cut), a partition and its merge -- it checks:
 *  - which NIC maps: every live NIC of a connected part follows the same
 *    mapper, the highest (level, unique ID) of the part, and that NIC maps;
 *  - the mapper's map is isomorphic to the live network it can reach
 *    (myri_map_check_live: nothing missing, nothing extra, no dead link);
 *  - every pair's installed route (the NICs' route tables) walks the true
 *    network over live links to its destination, and the routes together
 *    are deadlock-free;
 *  - packets arrive: every pair of live hosts of a part runs a ping-pong
 *    through the API with its routes (every byte checked by the program);
 *  - no firmware action left its row, and the mapping machines' rules fired.
 * Mainwaring's F is mapped (test_mainwaring_f_mapped) and what is too far for
 * a route is named; the checkers themselves fail on a damaged map and route
 * (test_checkers_fail).  MYRI_TEST_MAP_SEEDS=N runs N seeds of each random
 * test; MYRI_TEST_MAP_FAILED=FILE writes the first failing scenario there
 * (`myri run FILE` replays it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "app/system_int.h"
#include "firmware/mcp_map.h"
#include "host/host.h"
#include "map/map.h"
#include "topo/topo.h"

#define MAXH 16u
#define MAXS 16u
#define MAXL 64u

/* ---- text ------------------------------------------------------------------------------ */

typedef struct tbuf {
    char *s;
    size_t n, cap;
} tbuf;

static void tb_add(tbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        assert_true(k >= 0);
        if (b->s && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        b->cap = (b->cap + (size_t)k + 1) * 2;
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
}

/* ---- random networks --------------------------------------------------------------------- */

typedef struct lnk {
    uint32_t a, pa, b, pb;     /* node numbers: hosts 0.., ring switches 100.., host-less 200.. */
} lnk;

typedef struct net {
    uint32_t ns, nx, nh;       /* ring switches s*, host-less x*, hosts h* */
    uint32_t host_sw[MAXH];
    lnk l[MAXL];
    uint32_t nl;
    uint32_t chord;            /* index in l of a link on a cycle (a chord of the ring) */
    uint8_t free_n[MAXS * 2];
    uint8_t free_p[MAXS * 2][8];
    uint64_t rng;
} net;

static uint32_t rnd(net *n, uint32_t below)
{
    n->rng ^= n->rng >> 12, n->rng ^= n->rng << 25, n->rng ^= n->rng >> 27;
    return (uint32_t)((n->rng * UINT64_C(2685821657736338717)) >> 33) % below;
}

static uint32_t sw_slot(uint32_t node) { return node >= 200 ? MAXS + node - 200 : node - 100; }

/* A random free port of a switch (hosts and links land on any port). */
static uint32_t take_port(net *n, uint32_t node)
{
    uint32_t s = sw_slot(node);
    assert_true(n->free_n[s] > 0);
    uint32_t k = rnd(n, n->free_n[s]), p = n->free_p[s][k];
    n->free_p[s][k] = n->free_p[s][--n->free_n[s]];
    return p;
}

static void add_link(net *n, uint32_t a, uint32_t b)
{
    assert_true(n->nl < MAXL);
    lnk *l = &n->l[n->nl++];
    l->a = a, l->b = b;
    l->pa = a >= 100 ? take_port(n, a) : 0;
    l->pb = take_port(n, b);
}

/* ns ring switches (8 ports) with 1 or 2 hosts each, one or two chords; a
 * triangle of host-less switches hanging off one ring switch (sometimes also
 * tied to a second one: then it lies on a cycle), and a host-less switch
 * behind a bridge from the triangle (Mainwaring's F). */
static void net_random(net *n, uint64_t seed)
{
    memset(n, 0, sizeof *n);
    n->rng = seed * UINT64_C(0x9e3779b97f4a7c15) + 1;
    n->ns = 4 + rnd(n, 4);
    n->nx = 4;
    for (uint32_t s = 0; s < MAXS * 2; s++) {
        n->free_n[s] = 8;
        for (uint8_t p = 0; p < 8; p++) n->free_p[s][p] = p;
    }
    for (uint32_t s = 0; s < n->ns; s++)
        for (uint32_t k = 1 + rnd(n, 2); k > 0 && n->nh < 12; k--) {
            n->host_sw[n->nh] = s;
            add_link(n, n->nh++, 100 + s);
        }
    for (uint32_t s = 0; s < n->ns; s++) add_link(n, 100 + s, 100 + (s + 1) % n->ns);
    for (uint32_t c = 1 + rnd(n, 2), tries = 0; c > 0 && tries < 100; tries++) {
        uint32_t a = rnd(n, n->ns), b = rnd(n, n->ns);
        uint32_t d = a > b ? a - b : b - a;
        if (d < 2 || d == n->ns - 1) continue;
        if (!n->chord) n->chord = n->nl; /* the first chord (index 0 is a host's cable) */
        add_link(n, 100 + a, 100 + b), c--;
    }
    uint32_t r1 = rnd(n, n->ns);
    add_link(n, 100 + r1, 200);
    add_link(n, 200, 201), add_link(n, 201, 202), add_link(n, 202, 200);
    if (rnd(n, 2)) add_link(n, 201, 100 + (r1 + 1 + rnd(n, n->ns - 1)) % n->ns);
    add_link(n, 200, 203);
}

static void node_name(uint32_t v, char *buf, size_t len)
{
    if (v >= 200) snprintf(buf, len, "x%u", v - 200);
    else if (v >= 100) snprintf(buf, len, "s%u", v - 100);
    else snprintf(buf, len, "h%u", v);
}

static void net_yaml(const net *n, tbuf *y)
{
    tb_add(y, "topology:\n  switches:\n");
    for (uint32_t s = 0; s < n->ns; s++) tb_add(y, "    - {name: s%u, ports: 8}\n", s);
    for (uint32_t s = 0; s < n->nx; s++) tb_add(y, "    - {name: x%u, ports: 8}\n", s);
    tb_add(y, "  hosts: [");
    for (uint32_t h = 0; h < n->nh; h++) tb_add(y, "%sh%u", h ? ", " : "", h);
    tb_add(y, "]\n  links:\n");
    for (uint32_t k = 0; k < n->nl; k++) {
        char a[16], b[16];
        node_name(n->l[k].a, a, sizeof a);
        node_name(n->l[k].b, b, sizeof b);
        if (n->l[k].a < 100) tb_add(y, "    - {a: %s, b: [%s, %u]}\n", a, b, n->l[k].pb);
        else tb_add(y, "    - {a: [%s, %u], b: [%s, %u]}\n", a, n->l[k].pa, b, n->l[k].pb);
    }
}

/* The fault endpoint of link k ("s2.5"; a host's cable by its name). */
static void link_ref(const net *n, uint32_t k, char *buf, size_t len)
{
    char a[16];
    node_name(n->l[k].a, a, sizeof a);
    if (n->l[k].a < 100) snprintf(buf, len, "%s", a);
    else snprintf(buf, len, "%s.%u", a, n->l[k].pa);
}

/* The system scenario: header, the network, then `extra` (faults); a
 * receive channel per tournament round (mcp.nchan). */
static void scenario(const net *n, const char *extra, tbuf *y)
{
    tb_add(y, "job: system\nseed: 1\nduration: 150ms\ncheck_firmware: true\nswitch: {addressing: relative}\n"
              "mcp: {nchan: 16}\nmapping: on\nmap: {remap_every: 5}\n");
    net_yaml(n, y);
    if (extra) tb_add(y, "%s", extra);
}

/* Every pair of hosts[0..k) exchanges packets: a ping-pong program on each
 * side (every byte checked), the pairs of a round-robin tournament, round r
 * on channel r + 1 from start_ms + r ms: the receiving side starts then, the
 * side that sends first (the lower index) 0.5 ms later, so that the
 * receiver's channel is ready.  One round at a time: each host runs one
 * program at a time (a round takes about 0.2 ms). */
static void tournament(tbuf *y, const uint32_t *hosts, uint32_t k, uint32_t start_ms)
{
    uint32_t K = k + (k & 1u);
    for (uint32_t r = 0; r + 1 < K; r++)
        for (uint32_t i = 0; i < K / 2; i++) {
            uint32_t ia = i == 0 ? 0 : 1 + (i - 1 + r) % (K - 1), ib = 1 + (K - 2 - i + r) % (K - 1);
            if (ia >= k || ib >= k) continue;
            for (int side = 0; side < 2; side++) {
                uint32_t me = side ? hosts[ib] : hosts[ia], peer = side ? hosts[ia] : hosts[ib];
                uint32_t at_us = (start_ms + r) * 1000u + (me < peer ? 500u : 0u);
                tb_add(y, "  - {program: pingpong, hosts: [h%u], start: %uus, args: [peer=%u, chan=%u, sizes=64, "
                          "reps=2, warmup=0, timeout_us=5000]}\n", me, at_us, peer, r + 1);
            }
        }
}

/* ---- a run ------------------------------------------------------------------------------- */

typedef struct run {
    myri_node *root;
    myri_sys_cfg c;
    myri_sys_run r;
    bool have_c;
    uint32_t nprog;            /* programs the scenario started */
    const char *text;          /* the scenario */
} run;

static void run_text(run *x, const char *text, bool stop_when_mapped)
{
    memset(x, 0, sizeof *x);
    myri_error err = {.msg = ""};
    x->text = text;
    myri_status st = myri_doc_parse("map.yaml", text, strlen(text), &x->root, &err);
    if (!st) st = myri_sys_cfg_load(&x->c, x->root, &err), x->have_c = true;
    if (!st) {
        x->c.map_stop = stop_when_mapped;
        myri_run_opts ro = {0};
        st = myri_sys_run_cfg(&x->r, &x->c, x->root, &ro, false, &err);
    }
    if (st) fail_msg("%s\n%s", err.msg, text);
    x->nprog = (uint32_t)x->r.nprograms;
}

static void run_free(run *x)
{
    myri_sys_run_free(&x->r);
    if (x->have_c) myri_sys_cfg_free(&x->c);
    myri_node_free(x->root);
}

/* The timeline of the run, to read a failure by. */
static void run_dump(const run *x)
{
    const char *path = getenv("MYRI_TEST_MAP_FAILED"); /* where to write the failing scenario */
    FILE *f = path ? fopen(path, "wx") : NULL; /* the first failure's */
    if (f) fputs(x->text, f), fclose(f);
    myri_fw_inst *fw[MAXH];
    for (uint32_t i = 0; i < x->r.nnic && i < MAXH; i++) fw[i] = x->r.nic[i].fw;
    myri_sysmap_text(x->r.map, fw, x->r.nnic, x->r.b.topo, stderr);
}

static int64_t host_of_id(void *ctx, uint64_t id)
{
    const myri_topo *t = ctx;
    for (uint32_t h = 0; h < t->nhosts; h++)
        if (myri_sysmap_id(h) == id) return h;
    return -1;
}

/* ---- checks ------------------------------------------------------------------------------ */

/* Every program returned 0 and counted no error; at least `want` ran. */
static void check_programs(const run *x, uint32_t want)
{
    uint32_t done = 0;
    for (uint32_t i = 0; i < x->r.nnic; i++)
        for (size_t p = 0; p < myri_host_nprograms(x->r.nic[i].host); p++) {
            const myri_program *pg = myri_host_program(x->r.nic[i].host, p);
            double errors = -1;
            if (!myri_program_done(pg) || myri_program_exit_code(pg) != 0 ||
                myri_program_report_get(pg, "pingpong.errors", &errors) != MYRI_OK || errors != 0) {
                run_dump(x);
                for (size_t q = 0; q < myri_program_nreports(pg); q++) {
                    const char *key;
                    double v;
                    myri_program_report(pg, q, &key, &v);
                    fprintf(stderr, "  h%u %s = %g\n", i, key, v);
                }
                fail_msg("h%u program %zu: done %d, exit %d, errors %g", i, p, myri_program_done(pg),
                         myri_program_exit_code(pg), errors);
            }
            done++;
        }
    assert_int_equal(done, x->nprog);
    assert_true(done >= want);
}

/* No firmware action left its row on any NIC; the mapping machines ran (every
 * live NIC answered scouts and installed a map, the mapper sent probes). */
static void check_firmware(const run *x, const bool *alive, uint32_t mapper)
{
    for (uint32_t i = 0; i < x->r.nnic; i++) {
        const myri_fw_inst *fw = x->r.nic[i].fw;
        myri_fw_check ck;
        myri_fw_get_check(fw, &ck);
        if (ck.mismatches) fail_msg("h%u: %llu mismatches: %s", i, (unsigned long long)ck.mismatches, ck.first);
        assert_true(ck.actions > 0);
        if (alive && !alive[i]) continue;
        assert_true(myri_fw_counter(fw, MYRI_MCPM_C_MAPS_GOT) > 0);
        if (i == mapper) assert_true(myri_fw_counter(fw, MYRI_MCPM_C_SCOUTS) > 0);
        else assert_true(myri_fw_counter(fw, MYRI_MCPM_C_REPLIES) > 0);
        for (uint8_t m = MYRI_MCPM_M_RX; m < MYRI_MCPM_NMACHINES; m++) {
            uint64_t fired = 0;
            for (uint16_t r = 0; r < myri_fw_def_of(fw)->machines[m].nrules; r++) fired += myri_fw_fired(fw, m, r);
            assert_true(fired > 0);
        }
    }
}

/* The mapper every member NIC follows: it maps, it is `want`, and its map is
 * isomorphic to the live network it reaches; the check is left in ck. */
static void check_mapper(const run *x, const bool *member, uint32_t want, const bool *dead, myri_map_check *ck)
{
    uint64_t id = myri_sysmap_id(want);
    for (uint32_t i = 0; i < x->r.nnic; i++) {
        if (!member[i]) continue;
        myri_mcp_map_state s;
        myri_mcp_map_get_state(x->r.nic[i].fw, &s);
        if (s.mapper_id != id || (i == want) != (s.role == MYRI_MAPW_ROLE_MAPPING)) {
            run_dump(x);
            fail_msg("h%u follows %012llx (role %d); expected h%u's %012llx", i, (unsigned long long)s.mapper_id,
                     s.role, want, (unsigned long long)id);
        }
    }
    const myri_map *m = myri_sysmap_map_of(x->r.map, want);
    assert_non_null(m);
    assert_int_equal(myri_map_check_live(m, x->r.b.topo, dead, want, MYRI_MAP_REACH, host_of_id,
                                         (void *)x->r.b.topo, ck), MYRI_OK);
    if (!ck->isomorphic) {
        run_dump(x);
        myri_map_write_text(m, stderr);
        fail_msg("h%u's map is not isomorphic: %s", want, ck->why);
    }
    uint32_t members = 0;
    for (uint32_t i = 0; i < x->r.nnic; i++) members += member[i];
    assert_int_equal(m->nhosts, members);
    assert_int_equal(ck->unmappable_n, x->r.b.topo->nnodes - ck->true_hosts - ck->true_switches);
}

/* Every member pair's installed route walks the true network over live links
 * to its destination; the routes together are deadlock-free. */
static void check_routes(const run *x, const bool *member, const bool *dead)
{
    const myri_topo *t = x->r.b.topo;
    myri_routes all;
    myri_error err = {.msg = ""};
    assert_int_equal(myri_routes_init(&all, t, MYRI_ROUTE_RELATIVE), MYRI_OK);
    for (uint32_t a = 0; a < t->nhosts; a++)
        for (uint32_t b = 0; b < t->nhosts; b++) {
            if (a == b || !member[a] || !member[b]) continue;
            myri_route rt = {0};
            uint32_t chan[40], dst = UINT32_MAX;
            size_t nchan = 0;
            int len = myri_mcp_map_route(x->r.nic[a].fw, myri_sysmap_id(b), rt.byte);
            if (len < 0) fail_msg("h%u has no route to h%u", a, b);
            rt.len = (uint8_t)len;
            if (myri_route_walk(t, MYRI_ROUTE_RELATIVE, a, &rt, chan, &nchan, &dst, &err) != MYRI_OK || dst != b)
                fail_msg("h%u's route to h%u reaches h%d: %s", a, b, (int)dst, err.msg);
            for (size_t c = 0; dead && c < nchan; c++)
                if (dead[chan[c] / 2]) fail_msg("h%u's route to h%u crosses dead link %u", a, b, chan[c] / 2);
            assert_int_equal(myri_routes_set(&all, a, b, &rt), MYRI_OK);
        }
    if (!myri_routes_deadlock_free(t, MYRI_ROUTE_RELATIVE, &all, &err)) fail_msg("routes can deadlock: %s", err.msg);
    myri_routes_free(&all);
}

/* ---- tests ------------------------------------------------------------------------------- */

/* Seeds 1..n of each test, n given (more with MYRI_TEST_MAP_SEEDS=N: 40 of
 * each passed when these tests were written). */
static uint64_t seeds(uint64_t n)
{
    const char *e = getenv("MYRI_TEST_MAP_SEEDS");
    long v = e ? strtol(e, NULL, 10) : 0;
    return v > 0 ? (uint64_t)v : n;
}

static uint32_t all_hosts(const net *n, uint32_t *hosts, bool *member)
{
    for (uint32_t h = 0; h < n->nh; h++) hosts[h] = h, member[h] = true;
    return n->nh;
}

/* Random networks, mapped from boot: the highest host maps, its map is
 * isomorphic to the network (Mainwaring's F included), every pair's route
 * and packets arrive, every firmware action kept to its row. */
static void test_random_networks(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= seeds(12); seed++) {
        net n;
        net_random(&n, seed);
        uint32_t hosts[MAXH];
        bool member[MAXH];
        uint32_t k = all_hosts(&n, hosts, member);
        tbuf y = {0};
        scenario(&n, "programs:\n", &y);
        tournament(&y, hosts, k, 15);
        run x;
        run_text(&x, y.s, false);
        myri_map_check ck;
        check_mapper(&x, member, n.nh - 1, NULL, &ck);
        assert_int_equal(ck.true_switches, n.ns + n.nx);
        assert_int_equal(ck.unmappable_n, 0);
        assert_true(ck.mainwaring_n >= 1); /* x3 behind its bridge, at least */
        myri_map_check_free(&ck);
        myri_sysmap_summary s;
        myri_fw_inst *fw[MAXH];
        for (uint32_t i = 0; i < n.nh; i++) fw[i] = x.r.nic[i].fw;
        myri_sysmap_get_summary(x.r.map, fw, n.nh, &s);
        assert_true(s.maps_complete >= 1);
        assert_true(s.mapped_ps > 0 && s.mapped_ps < 15 * MYRI_PS_PER_MS);
        check_routes(&x, member, NULL);
        check_programs(&x, k * (k - 1));
        check_firmware(&x, NULL, n.nh - 1);
        run_free(&x);
        free(y.s);
    }
}

/* The first map, as `myri map` sees it (the run stops once it is installed on
 * every host): the candidates explore at once in the election window, yet
 * the highest host's first map is already the whole network (scouts lost
 * between exploring NICs are found by exploring again). */
static void test_first_maps(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= seeds(40); seed++) {
        net n;
        net_random(&n, seed);
        tbuf y = {0};
        scenario(&n, NULL, &y);
        run x;
        run_text(&x, y.s, true);
        bool member[MAXH];
        uint32_t hosts[MAXH];
        all_hosts(&n, hosts, member);
        myri_map_check ck;
        check_mapper(&x, member, n.nh - 1, NULL, &ck);
        myri_map_check_free(&ck);
        check_firmware(&x, NULL, n.nh - 1);
        run_free(&x);
        free(y.s);
    }
}

/* The dead mask of a network with links `cut` (indices into n->l) cut: per
 * true link, found by its two ends. */
static void dead_mask(const net *n, const run *x, const uint32_t *cut, uint32_t ncut, bool *dead)
{
    const myri_topo *t = x->r.b.topo;
    memset(dead, 0, t->nlinks * sizeof *dead);
    for (uint32_t c = 0; c < ncut; c++) {
        char a[16];
        node_name(n->l[cut[c]].a, a, sizeof a);
        int32_t v = myri_topo_find(t, a);
        assert_true(v >= 0);
        int32_t l = t->node[v].port[n->l[cut[c]].a < 100 ? 0 : n->l[cut[c]].pa].link;
        assert_true(l >= 0);
        dead[l] = true;
    }
}

/* Faults `cut` at 20 ms (restored at `restore`, if given) as a faults: list. */
static void faults(const net *n, const uint32_t *cut, uint32_t ncut, const char *restore, tbuf *y)
{
    tb_add(y, "faults:\n");
    for (uint32_t c = 0; c < ncut; c++) {
        char ref[24];
        link_ref(n, cut[c], ref, sizeof ref);
        tb_add(y, "  - {at: 20ms, action: cut, link: %s}\n", ref);
        if (restore) tb_add(y, "  - {at: %s, action: restore, link: %s}\n", restore, ref);
    }
}

/* A link on a cycle (a chord of the ring) is cut at 20 ms and restored at
 * 60 ms.  While it is down (programs at 40 ms): the mapper's verification has
 * found it, its map lacks it, no route crosses it, packets arrive.  After the
 * restore (programs at 90 ms): a full exploration has found it again.  (An
 * exploration of these networks takes 4 to 7 ms; one that a cut crosses can
 * give a wrong map, which the next verification or exploration corrects:
 * the checks come once that has happened.) */
static void test_cut_and_restore(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= seeds(6); seed++) {
        net n;
        net_random(&n, seed);
        uint32_t hosts[MAXH];
        bool member[MAXH];
        uint32_t k = all_hosts(&n, hosts, member);
        for (int phase = 0; phase < 2; phase++) {
            tbuf y = {0};
            scenario(&n, NULL, &y);
            faults(&n, &n.chord, 1, "60ms", &y);
            tb_add(&y, "programs:\n");
            tournament(&y, hosts, k, phase ? 90 : 40);
            run x;
            run_text(&x, y.s, false);
            bool *dead = calloc(x.r.b.topo->nlinks, sizeof *dead);
            assert_non_null(dead);
            if (phase == 0) dead_mask(&n, &x, &n.chord, 1, dead);
            myri_map_check ck;
            check_mapper(&x, member, n.nh - 1, dead, &ck);
            assert_int_equal(ck.true_links, n.nl - (phase == 0));
            myri_map_check_free(&ck);
            check_routes(&x, member, dead);
            check_programs(&x, k * (k - 1));
            check_firmware(&x, NULL, n.nh - 1);
            assert_true(x.r.end_ps < (phase ? 150 : 60) * MYRI_PS_PER_MS); /* ended by the programs */
            free(dead);
            run_free(&x);
            free(y.s);
        }
    }
}

/* The mapper (the highest host) dies at 20 ms: its cable is cut.  The others
 * hear no mapper for map.mapper_timeout (20 ms), stand, and elect the next
 * highest, whose map lacks the dead host; their routes and packets work
 * (programs at 65 ms). */
static void test_mapper_death(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= seeds(6); seed++) {
        net n;
        net_random(&n, seed);
        uint32_t hosts[MAXH], dead_host = n.nh - 1, cable = 0;
        bool member[MAXH];
        uint32_t k = all_hosts(&n, hosts, member) - 1; /* the live ones: all but the last */
        member[dead_host] = false;
        while (n.l[cable].a != dead_host) cable++;
        tbuf y = {0};
        scenario(&n, NULL, &y);
        faults(&n, &cable, 1, NULL, &y);
        tb_add(&y, "programs:\n");
        tournament(&y, hosts, k, 65);
        run x;
        run_text(&x, y.s, false);
        bool *dead = calloc(x.r.b.topo->nlinks, sizeof *dead);
        assert_non_null(dead);
        dead_mask(&n, &x, &cable, 1, dead);
        myri_map_check ck;
        check_mapper(&x, member, n.nh - 2, dead, &ck);
        assert_int_equal(ck.true_hosts, n.nh - 1);
        myri_map_check_free(&ck);
        check_routes(&x, member, dead);
        check_programs(&x, k * (k - 1));
        check_firmware(&x, member, n.nh - 2);
        /* the dead host mapped first */
        assert_true(myri_fw_counter(x.r.nic[dead_host].fw, MYRI_MCPM_C_MAPS_SENT) > 0);
        free(dead);
        run_free(&x);
        free(y.s);
    }
}

/* The side of every node when the ring is split between switches m-1 and m
 * (and ns-1 and 0): ring switches by index, host-less ones with x0's ring
 * switch, hosts with theirs.  Returns the links that cross. */
static uint32_t split(const net *n, uint32_t m, bool *side_b, uint32_t *cut)
{
    uint32_t r1 = 0, ncut = 0;
    for (uint32_t k = 0; k < n->nl; k++)
        if (n->l[k].b == 200 && n->l[k].a >= 100 && n->l[k].a < 200) r1 = n->l[k].a - 100;
    for (uint32_t h = 0; h < n->nh; h++) side_b[h] = n->host_sw[h] >= m;
    for (uint32_t k = 0; k < n->nl; k++) {
        uint32_t a = n->l[k].a, b = n->l[k].b;
        if (a < 100) continue;
        bool sa = a >= 200 ? r1 >= m : a - 100 >= m, sb = b >= 200 ? r1 >= m : b - 100 >= m;
        if (sa != sb) cut[ncut++] = k;
    }
    return ncut;
}

/* The ring is split in two parts at 20 ms and merged at 80 ms.  During the
 * split (programs at 65 ms, within each part): the part with the highest host
 * keeps it as its mapper, the other elects its own highest host after
 * map.mapper_timeout; each mapper's map is isomorphic to its part.  After the
 * merge (programs at 120 ms, every pair): one mapper again, the highest, with
 * the whole network. */
static void test_partition_merge(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= seeds(6); seed++) {
        net n;
        net_random(&n, seed);
        bool side_b[MAXH], member[2][MAXH], all[MAXH];
        uint32_t cut[MAXL], hosts[2][MAXH], nhp[2] = {0, 0}, every[MAXH];
        uint32_t ncut = split(&n, n.ns / 2, side_b, cut);
        all_hosts(&n, every, all);
        for (uint32_t h = 0; h < n.nh; h++) {
            member[0][h] = !side_b[h], member[1][h] = side_b[h];
            hosts[side_b[h]][nhp[side_b[h]]++] = h;
        }
        assert_true(nhp[0] >= 1 && nhp[1] >= 1 && side_b[n.nh - 1]);
        for (int phase = 0; phase < 2; phase++) {
            tbuf y = {0};
            scenario(&n, NULL, &y);
            faults(&n, cut, ncut, "80ms", &y);
            tb_add(&y, "programs:\n");
            if (phase) tournament(&y, every, n.nh, 120);
            else for (int p = 0; p < 2; p++) tournament(&y, hosts[p], nhp[p], 65);
            run x;
            run_text(&x, y.s, false);
            bool *dead = calloc(x.r.b.topo->nlinks, sizeof *dead);
            assert_non_null(dead);
            myri_map_check ck;
            if (phase == 0) {
                dead_mask(&n, &x, cut, ncut, dead);
                for (int p = 0; p < 2; p++) {
                    uint32_t boss = hosts[p][nhp[p] - 1];
                    check_mapper(&x, member[p], boss, dead, &ck);
                    myri_map_check_free(&ck);
                    check_routes(&x, member[p], dead);
                }
            } else {
                check_mapper(&x, all, n.nh - 1, NULL, &ck);
                assert_int_equal(ck.true_hosts, n.nh);
                myri_map_check_free(&ck);
                check_routes(&x, all, NULL);
            }
            uint32_t want = phase ? n.nh * (n.nh - 1) : nhp[0] * (nhp[0] - 1) + nhp[1] * (nhp[1] - 1);
            check_programs(&x, want);
            check_firmware(&x, NULL, n.nh - 1);
            free(dead);
            run_free(&x);
            free(y.s);
        }
    }
}

/* Mainwaring et al. (1997) prove their mapper gives the network minus F, the
 * switches beyond a switch-bridge that reaches no host.  Ours maps them (a
 * loop probe reflected by offset 0 comes back to the mapper; docs/MAPPING.md):
 * a host-less tree whose three leaves look alike, a host-less ring, and a
 * host-less chain beyond a bridge, all behind one cable from the hosts'
 * switches.  The chain is 17 switches long: the last three are more than 14
 * hops from the mapper's switch, too far for a 32-byte route (unmappable,
 * named by the check, the rest isomorphic). */
static void mainwaring_run(const char *links, const char *switches, uint32_t f_want, const char *far)
{
    tbuf y = {0};
    tb_add(&y, "job: system\nseed: 1\nduration: 100ms\ncheck_firmware: true\nswitch: {addressing: relative}\n"
               "mapping: on\ntopology:\n  hosts: [a, b, c]\n  switches: [{name: s0, ports: 8}, {name: s1, ports: 8}%s]\n"
               "  links:\n    - {a: a, b: [s0, 0]}\n    - {a: b, b: [s0, 5]}\n    - {a: c, b: [s1, 7]}\n"
               "    - {a: [s0, 3], b: [s1, 1]}\n%s", switches, links);
    run x;
    run_text(&x, y.s, true);
    const myri_topo *t = x.r.b.topo;
    bool member[3] = {true, true, true};
    myri_map_check ck;
    check_mapper(&x, member, 2, NULL, &ck); /* c, the highest host, maps */
    assert_int_equal(ck.mainwaring_n, f_want);
    char got[256] = "";
    for (uint32_t k = 0; k < ck.unmappable_n; k++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", k ? " " : "", t->node[ck.unmappable[k]].name);
    assert_string_equal(got, far);
    assert_int_equal(ck.true_switches + ck.unmappable_n, t->nnodes - t->nhosts);
    myri_map_check_free(&ck);
    run_free(&x);
    free(y.s);
}

static void test_mainwaring_f_mapped(void **state)
{
    (void)state;
    /* a tree: x0 behind the bridge, three leaves alike (each with one cable,
     * on its port 0) */
    mainwaring_run("    - {a: [s1, 4], b: [x0, 2]}\n    - {a: [x0, 5], b: [x1, 0]}\n    - {a: [x0, 6], b: [x2, 0]}\n"
                   "    - {a: [x0, 1], b: [x3, 0]}\n",
                   ", {name: x0, ports: 8}, {name: x1, ports: 8}, {name: x2, ports: 8}, {name: x3, ports: 8}", 4, "");
    /* a ring of four alike switches behind the bridge */
    mainwaring_run("    - {a: [s0, 7], b: [x0, 0]}\n    - {a: [x0, 1], b: [x1, 2]}\n    - {a: [x1, 1], b: [x2, 2]}\n"
                   "    - {a: [x2, 1], b: [x3, 2]}\n    - {a: [x3, 1], b: [x0, 2]}\n",
                   ", {name: x0, ports: 8}, {name: x1, ports: 8}, {name: x2, ports: 8}, {name: x3, ports: 8}", 4, "");
    /* a chain of 17 (random ports): x13 is 14 hops from c's switch s1, x14.. beyond */
    tbuf sw = {0}, ln = {0};
    net rng = {.rng = 12345};
    uint32_t prev_port = 2;
    for (uint32_t k = 0; k < 17; k++) {
        uint32_t in = rnd(&rng, 8), out = (in + 1 + rnd(&rng, 7)) % 8;
        tb_add(&sw, ", {name: x%u, ports: 8}", k);
        if (k == 0) tb_add(&ln, "    - {a: [s1, %u], b: [x0, %u]}\n", prev_port, in);
        else tb_add(&ln, "    - {a: [x%u, %u], b: [x%u, %u]}\n", k - 1, prev_port, k, in);
        prev_port = out;
    }
    mainwaring_run(ln.s, sw.s, 17, "x14 x15 x16");
    free(sw.s);
    free(ln.s);
}

/* The checkers can fail: a map with a link moved to another port, with a
 * link dropped, or checked against a network where a mapped link is dead is
 * not isomorphic; a route with a byte changed does not reach its host. */
static void test_checkers_fail(void **state)
{
    (void)state;
    net n;
    net_random(&n, 1);
    tbuf y = {0};
    scenario(&n, NULL, &y);
    run x;
    run_text(&x, y.s, true); /* stops once the first map is installed everywhere */
    const myri_topo *t = x.r.b.topo;
    const myri_map *m = myri_sysmap_map_of(x.r.map, n.nh - 1);
    assert_non_null(m);
    myri_map_check ck;
    assert_int_equal(myri_map_check_live(m, t, NULL, n.nh - 1, MYRI_MAP_REACH, host_of_id, (void *)t, &ck), MYRI_OK);
    assert_true(ck.isomorphic);
    myri_map_check_free(&ck);
    myri_map bad;
    for (int fault = 0; fault < 3; fault++) {
        myri_map_init(&bad);
        assert_int_equal(myri_map_copy(&bad, m), MYRI_OK);
        bool *dead = calloc(t->nlinks, sizeof *dead);
        assert_non_null(dead);
        uint32_t k = bad.nlinks - 1; /* the last link found */
        if (fault == 0) bad.link[k].pb ^= 1u;
        else if (fault == 1) bad.nlinks--;
        else dead[t->node[t->host_node[0]].port[0].link] = true; /* h0's cable */
        assert_int_equal(myri_map_check_live(&bad, t, dead, n.nh - 1, MYRI_MAP_REACH, host_of_id, (void *)t, &ck),
                         MYRI_OK);
        assert_false(ck.isomorphic);
        assert_true(ck.why[0] != 0);
        myri_map_check_free(&ck);
        myri_map_free(&bad);
        free(dead);
    }
    myri_route rt = {0};
    uint32_t chan[40], dst = UINT32_MAX;
    size_t nchan = 0;
    myri_error err = {.msg = ""};
    int len = myri_mcp_map_route(x.r.nic[0].fw, myri_sysmap_id(n.nh - 1), rt.byte);
    assert_true(len > 0);
    rt.len = (uint8_t)len;
    assert_int_equal(myri_route_walk(t, MYRI_ROUTE_RELATIVE, 0, &rt, chan, &nchan, &dst, &err), MYRI_OK);
    assert_int_equal(dst, n.nh - 1);
    rt.byte[len - 1] = myri_mapw_rel(myri_mapw_off(rt.byte[len - 1]) + 1);
    dst = UINT32_MAX;
    assert_true(myri_route_walk(t, MYRI_ROUTE_RELATIVE, 0, &rt, chan, &nchan, &dst, &err) != MYRI_OK ||
                dst != n.nh - 1);
    run_free(&x);
    free(y.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_networks),
        cmocka_unit_test(test_first_maps),
        cmocka_unit_test(test_cut_and_restore),
        cmocka_unit_test(test_mapper_death),
        cmocka_unit_test(test_partition_merge),
        cmocka_unit_test(test_mainwaring_f_mapped),
        cmocka_unit_test(test_checkers_fail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
