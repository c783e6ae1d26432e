/* test_topo_routes.c -- the compact route store (topo_routes.c) returns, for
 * every host pair, exactly the bytes of a flat table built the slow, obvious
 * way: one up*-then-down* walk per pair (or one dimension-order walk per
 * pair), each written into its own 33-byte slot, as the store did before it
 * was compact.  Also: single-pair overrides against a flat copy, misuse, and
 * the memory it takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "myri/rng.h"
#include "topo/topo.h"

static myri_error err;

/* ---- reference: a flat table, one walk per pair ------------------------------ */

typedef struct ref {
    const myri_topo *t;
    int32_t *rank, *dist;
    uint32_t *q;
} ref;

static bool ref_up(const ref *c, uint32_t u, uint32_t v)
{
    return c->rank[v] < c->rank[u] || (c->rank[v] == c->rank[u] && v < u);
}

static bool ref_is_switch(const myri_topo *t, int32_t n) { return n >= 0 && t->node[n].kind == MYRI_TOPO_SWITCH; }

/* Hop distances over switches from the sources already at 0 in d[] (in q). */
static void ref_bfs(const myri_topo *t, int32_t *d, uint32_t *q, size_t nq)
{
    for (size_t head = 0; head < nq; head++)
        for (uint32_t p = 0; p < t->node[q[head]].nports; p++) {
            int32_t v = t->node[q[head]].port[p].peer_node;
            if (!ref_is_switch(t, v) || d[v] >= 0) continue;
            d[v] = d[q[head]] + 1;
            q[nq++] = (uint32_t)v;
        }
}

static void ref_ranks(ref *c)
{
    const myri_topo *t = c->t;
    uint32_t best = UINT32_MAX;
    int32_t best_ecc = INT32_MAX;
    for (uint32_t s = 0; s < t->nnodes && !t->nroots; s++) {
        if (!ref_is_switch(t, (int32_t)s)) continue;
        for (size_t i = 0; i < t->nnodes; i++) c->rank[i] = -1;
        c->rank[s] = 0;
        c->q[0] = s;
        ref_bfs(t, c->rank, c->q, 1);
        int32_t ecc = 0;
        for (size_t i = 0; i < t->nnodes; i++) ecc = c->rank[i] > ecc ? c->rank[i] : ecc;
        if (ecc < best_ecc) best_ecc = ecc, best = s;
    }
    for (size_t i = 0; i < t->nnodes; i++) c->rank[i] = -1;
    size_t nq = 0;
    for (size_t i = 0; i < t->nroots; i++)
        if (c->rank[t->root[i]] != 0) c->rank[t->root[i]] = 0, c->q[nq++] = t->root[i];
    if (!t->nroots && best != UINT32_MAX) c->rank[best] = 0, c->q[nq++] = best;
    ref_bfs(t, c->rank, c->q, nq);
}

/* dist[2*v + phase]: legal switch hops from v to w, phase 1 = after a down hop. */
static void ref_dist_to(ref *c, uint32_t w)
{
    const myri_topo *t = c->t;
    for (size_t i = 0; i < 2 * t->nnodes; i++) c->dist[i] = -1;
    size_t head = 0, tail = 0;
    c->dist[2 * w] = c->dist[2 * w + 1] = 0;
    c->q[tail++] = 2 * w;
    c->q[tail++] = 2 * w + 1;
    while (head < tail) {
        uint32_t s = c->q[head++], v = s / 2, ph = s % 2;
        for (uint32_t p = 0; p < t->node[v].nports; p++) {
            int32_t u = t->node[v].port[p].peer_node;
            if (!ref_is_switch(t, u) || ref_up(c, (uint32_t)u, v) != (ph == 0)) continue;
            for (uint32_t pp = 0; pp <= ph; pp++)
                if (c->dist[2 * u + pp] < 0) c->dist[2 * u + pp] = c->dist[s] + 1, c->q[tail++] = 2 * (uint32_t)u + pp;
        }
    }
}

/* The route from src to dst, walked from src itself (no sharing). */
static bool ref_walk(ref *c, myri_route_encoding enc, uint32_t src, uint32_t dst, myri_route *r)
{
    const myri_topo *t = c->t;
    const myri_topo_port *hp = &t->node[t->host_node[src]].port[0];
    uint32_t sw = (uint32_t)hp->peer_node, in = (uint32_t)hp->peer_port, phase = 0;
    uint64_t v = dst;
    if (c->dist[2 * sw] < 0 || c->dist[2 * sw] >= 32) return false;
    r->len = 0;
    while (c->dist[2 * sw + phase] > 0) {
        uint32_t cand[32], nc = 0;
        for (uint32_t p = 0; p < t->node[sw].nports; p++) {
            int32_t u = t->node[sw].port[p].peer_node;
            if (!ref_is_switch(t, u)) continue;
            bool up = ref_up(c, sw, (uint32_t)u);
            if (!(phase == 1 && up) && c->dist[2 * u + (up ? 0 : 1)] == c->dist[2 * sw + phase] - 1) cand[nc++] = p;
        }
        uint32_t out = cand[v % nc];
        v /= nc;
        r->byte[r->len++] = myri_route_encode(in, out, enc);
        const myri_topo_port *op = &t->node[sw].port[out];
        phase = ref_up(c, sw, (uint32_t)op->peer_node) ? phase : 1;
        sw = (uint32_t)op->peer_node;
        in = (uint32_t)op->peer_port;
    }
    r->byte[r->len++] = myri_route_encode(in, (uint32_t)t->node[t->host_node[dst]].port[0].peer_port, enc);
    return true;
}

/* Up*-then-down* routes of every pair into a flat table; false if a pair has none. */
static bool ref_updown(const myri_topo *t, myri_route_encoding enc, myri_route *flat)
{
    size_t n = t->nhosts;
    ref c = {.t = t, .rank = malloc(t->nnodes * sizeof(int32_t)), .dist = malloc(2 * t->nnodes * sizeof(int32_t)),
             .q = malloc(2 * t->nnodes * sizeof(uint32_t))};
    assert_non_null(c.rank);
    assert_non_null(c.dist);
    assert_non_null(c.q);
    ref_ranks(&c);
    bool ok = true;
    for (size_t i = 0; i < n * n; i++) flat[i].len = MYRI_ROUTE_NONE;
    for (uint32_t d = 0; d < n && ok; d++) {
        const myri_topo_port *dp = &t->node[t->host_node[d]].port[0];
        if (ref_is_switch(t, dp->peer_node)) ref_dist_to(&c, (uint32_t)dp->peer_node);
        for (uint32_t s = 0; s < n && ok; s++) {
            if (s == d) continue;
            if (!ref_is_switch(t, dp->peer_node)) { /* back to back */
                if (dp->peer_node == (int32_t)t->host_node[s]) flat[s * n + d].len = 0;
                continue;
            }
            ok = ref_walk(&c, enc, s, d, &flat[s * n + d]);
        }
    }
    free(c.rank);
    free(c.dist);
    free(c.q);
    return ok;
}

/* Dimension order on the mesh generator's network, pair by pair. */
static void ref_mesh_xy(uint32_t n, uint32_t x, uint32_t h, myri_route_encoding enc, myri_route *flat)
{
    for (uint32_t s = 0; s < n; s++)
        for (uint32_t d = 0; d < n; d++) {
            myri_route *r = &flat[(size_t)s * n + d];
            r->len = s == d ? MYRI_ROUTE_NONE : 0;
            if (s == d) continue;
            uint32_t i = (s / h) % x, j = (s / h) / x, di = (d / h) % x, dj = (d / h) / x, in = 4 + s % h;
            while (i != di || j != dj) {
                uint32_t port = i < di ? 0 : i > di ? 1 : j < dj ? 2 : 3;
                r->byte[r->len++] = myri_route_encode(in, port, enc);
                in = port ^ 1u;
                i = port == 0 ? i + 1 : port == 1 ? i - 1 : i;
                j = port == 2 ? j + 1 : port == 3 ? j - 1 : j;
            }
            r->byte[r->len++] = myri_route_encode(in, 4 + d % h, enc);
        }
}

/* ---- comparison ------------------------------------------------------------- */

static void same_as_flat(const myri_routes *r, const myri_route *flat)
{
    size_t n = r->nhosts;
    for (size_t s = 0; s < n; s++)
        for (size_t d = 0; d < n; d++) {
            myri_route got;
            memset(&got, 0xa5, sizeof got);
            const myri_route *want = &flat[s * n + d];
            assert_ptr_equal(myri_routes_get(r, s, d, &got), &got);
            assert_int_equal(myri_routes_len(r, s, d), want->len);
            if (got.len != want->len) fprintf(stderr, "pair %zu -> %zu: len %u, want %u\n", s, d, got.len, want->len);
            assert_int_equal(got.len, want->len);
            if (want->len != MYRI_ROUTE_NONE) assert_memory_equal(got.byte, want->byte, want->len);
        }
}

/* Both encodings, computed routes vs the reference, then overrides. */
static void check_updown(myri_topo *t)
{
    size_t n = t->nhosts;
    myri_route *flat = malloc(n * n * sizeof *flat);
    assert_non_null(flat);
    for (int e = 0; e < 2; e++) {
        myri_routes r = {0};
        bool ok = ref_updown(t, (myri_route_encoding)e, flat);
        myri_status st = myri_routes_updown(t, (myri_route_encoding)e, &r, &err);
        assert_int_equal(st, ok ? MYRI_OK : MYRI_EINVAL);
        if (!ok) continue;
        same_as_flat(&r, flat);
        assert_true(myri_routes_memory(&r) > 0);
        myri_routes_free(&r);
    }
    free(flat);
}

static myri_topo *gen(myri_topo_gen_params p)
{
    myri_topo *t = NULL;
    p.length_m = 10.0;
    assert_int_equal(myri_topo_generate(&p, &t, &err), MYRI_OK);
    return t;
}

static void test_generated_same_bytes(void **state)
{
    (void)state;
    myri_topo_gen_params cases[] = {
        {.gen = MYRI_GEN_BACK_TO_BACK},
        {.gen = MYRI_GEN_STAR, .per_switch = 7},
        {.gen = MYRI_GEN_FAT_TREE, .k = 4, .n = 3},
        {.gen = MYRI_GEN_FAT_TREE, .k = 2, .n = 5},
        {.gen = MYRI_GEN_FAT_TREE, .k = 3, .n = 3},
        {.gen = MYRI_GEN_FAT_TREE, .k = 8, .n = 2},
        {.gen = MYRI_GEN_CLOS, .leaves = 6, .spines = 3, .per_switch = 5},
        {.gen = MYRI_GEN_MESH, .x = 4, .y = 3, .per_switch = 2},
        {.gen = MYRI_GEN_MESH, .x = 5, .y = 5},
        {.gen = MYRI_GEN_RING, .n = 7, .per_switch = 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        myri_topo *t = gen(cases[i]);
        check_updown(t);
        myri_topo_destroy(t);
    }
}

static void test_mesh_xy_same_bytes(void **state)
{
    (void)state;
    uint32_t dims[][3] = {{2, 2, 1}, {4, 3, 2}, {5, 5, 1}, {1, 6, 3}, {3, 4, 4}};
    for (size_t c = 0; c < sizeof dims / sizeof dims[0]; c++) {
        myri_topo *t = gen((myri_topo_gen_params){.gen = MYRI_GEN_MESH, .x = dims[c][0], .y = dims[c][1],
                                                  .per_switch = dims[c][2]});
        myri_route *flat = malloc(t->nhosts * t->nhosts * sizeof *flat);
        assert_non_null(flat);
        for (int e = 0; e < 2; e++) {
            myri_routes r = {0};
            assert_int_equal(myri_routes_mesh_xy(t, dims[c][0], dims[c][1], dims[c][2], (myri_route_encoding)e, &r,
                                                 &err), MYRI_OK);
            ref_mesh_xy((uint32_t)t->nhosts, dims[c][0], dims[c][2], (myri_route_encoding)e, flat);
            same_as_flat(&r, flat);
            myri_routes_free(&r);
        }
        free(flat);
        myri_topo_destroy(t);
    }
}

/* Random networks (cycles, parallel links, hosts anywhere) with automatic
 * roots and with random root sets (some pairs then have no legal route: both
 * sides must agree). */
static void test_random_same_bytes(void **state)
{
    (void)state;
    uint64_t seed = 777;
    unsigned compared = 0;
    for (int trial = 0; trial < 80; trial++) {
        myri_topo *t = myri_topo_create();
        uint32_t ns = 1 + (uint32_t)(myri_splitmix64(&seed) % 9), nh = 2 + (uint32_t)(myri_splitmix64(&seed) % 20);
        char name[16];
        for (uint32_t h = 0; h < nh; h++) {
            snprintf(name, sizeof name, "h%u", h);
            assert_int_equal(myri_topo_add_host(t, name, NULL), MYRI_OK);
        }
        for (uint32_t s = 0; s < ns; s++) {
            snprintf(name, sizeof name, "s%u", s);
            assert_int_equal(myri_topo_add_switch(t, name, 4u << (myri_splitmix64(&seed) % 4), NULL), MYRI_OK);
        }
        for (uint32_t s = 1; s < ns; s++) { /* a random spanning tree, then extra links */
            uint32_t o = nh + (uint32_t)(myri_splitmix64(&seed) % s);
            for (uint32_t pa = 0, done = 0; pa < t->node[nh + s].nports && !done; pa++)
                for (uint32_t pb = 0; pb < t->node[o].nports && !done; pb++)
                    done = myri_topo_connect(t, nh + s, pa, o, pb, 5.0, NULL) == MYRI_OK;
        }
        for (int extra = (int)(myri_splitmix64(&seed) % 8); extra > 0; extra--) {
            uint32_t a = nh + (uint32_t)(myri_splitmix64(&seed) % ns), b = nh + (uint32_t)(myri_splitmix64(&seed) % ns);
            (void)myri_topo_connect(t, a, (uint32_t)(myri_splitmix64(&seed) % t->node[a].nports), b,
                                    (uint32_t)(myri_splitmix64(&seed) % t->node[b].nports), 5.0, NULL);
        }
        for (uint32_t h = 0; h < nh; h++) {
            uint32_t s0 = (uint32_t)(myri_splitmix64(&seed) % ns);
            bool done = false;
            for (uint32_t i = 0; i < ns && !done; i++)
                for (uint32_t p = 0; p < t->node[nh + (s0 + i) % ns].nports && !done; p++)
                    done = myri_topo_connect(t, h, 0, nh + (s0 + i) % ns, p, 2.0, NULL) == MYRI_OK;
        }
        if (myri_topo_validate(t, &err) == MYRI_OK) {
            compared++;
            check_updown(t);
            myri_topo_add_root(t, nh + (uint32_t)(myri_splitmix64(&seed) % ns));
            myri_topo_add_root(t, nh + (uint32_t)(myri_splitmix64(&seed) % ns));
            check_updown(t);
        }
        myri_topo_destroy(t);
    }
    assert_true(compared > 50);
}

/* myri_routes_set changes one pair only, also when its source shares a row:
 * random routes (any bytes, also first bytes no encoder makes) against the
 * same changes made to a flat copy. */
static void test_set_one_pair(void **state)
{
    (void)state;
    myri_topo *t = gen((myri_topo_gen_params){.gen = MYRI_GEN_FAT_TREE, .k = 4, .n = 3});
    size_t n = t->nhosts;
    myri_route *flat = malloc(n * n * sizeof *flat);
    assert_non_null(flat);
    uint64_t seed = 99;
    for (int e = 0; e < 2; e++) {
        myri_routes r = {0};
        assert_int_equal(myri_routes_updown(t, (myri_route_encoding)e, &r, &err), MYRI_OK);
        assert_true(ref_updown(t, (myri_route_encoding)e, flat));
        size_t before = myri_routes_memory(&r);
        for (int i = 0; i < 300; i++) {
            size_t s = myri_splitmix64(&seed) % n, d = myri_splitmix64(&seed) % n;
            myri_route rt = {.len = (uint8_t)(myri_splitmix64(&seed) % 34)};
            if (rt.len == 33) rt.len = MYRI_ROUTE_NONE;
            for (unsigned b = 0; b < sizeof rt.byte; b++) rt.byte[b] = (uint8_t)myri_splitmix64(&seed);
            if (i % 3 == 0 && s != d) rt = flat[((s + 1) % n) * n + d]; /* a neighbour's route */
            myri_status st = myri_routes_set(&r, s, d, &rt);
            assert_int_equal(st, s == d ? MYRI_EINVAL : MYRI_OK);
            if (s != d) flat[s * n + d] = rt;
        }
        same_as_flat(&r, flat);
        assert_true(myri_routes_memory(&r) > before); /* sources got rows of their own */
        myri_routes_free(&r);
    }
    free(flat);
    myri_topo_destroy(t);
}

static void test_misuse(void **state)
{
    (void)state;
    myri_topo *t = gen((myri_topo_gen_params){.gen = MYRI_GEN_STAR, .per_switch = 4});
    myri_routes r = {0}, empty = {0};
    myri_route b, big = {.len = 33};
    assert_int_equal(myri_routes_init(NULL, t, MYRI_ROUTE_ABSOLUTE), MYRI_EINVAL);
    assert_int_equal(myri_routes_init(&r, NULL, MYRI_ROUTE_ABSOLUTE), MYRI_EINVAL);
    assert_int_equal(myri_routes_init(&r, t, MYRI_ROUTE_RELATIVE), MYRI_OK);
    for (size_t s = 0; s < 4; s++) /* empty: no pair has a route */
        for (size_t d = 0; d < 4; d++) assert_int_equal(myri_routes_get(&r, s, d, &b)->len, MYRI_ROUTE_NONE);
    assert_null(myri_routes_get(&r, 4, 0, &b));
    assert_null(myri_routes_get(&r, 0, 4, &b));
    assert_null(myri_routes_get(&r, 0, 1, NULL));
    assert_null(myri_routes_get(NULL, 0, 1, &b));
    assert_null(myri_routes_get(&empty, 0, 0, &b));
    assert_int_equal(myri_routes_len(&r, 9, 0), MYRI_ROUTE_NONE);
    assert_int_equal(myri_routes_len(&empty, 0, 1), MYRI_ROUTE_NONE);
    assert_int_equal(myri_routes_set(&r, 0, 1, &big), MYRI_EINVAL);
    assert_int_equal(myri_routes_set(&r, 2, 2, &(myri_route){.len = 1}), MYRI_EINVAL);
    assert_int_equal(myri_routes_set(&r, 0, 4, &(myri_route){.len = 1}), MYRI_EINVAL);
    assert_int_equal(myri_routes_set(&r, 0, 1, NULL), MYRI_EINVAL);
    assert_int_equal(myri_routes_set_switch(&empty, 0, 1, &(myri_route){.len = 1}), MYRI_EINVAL);
    assert_int_equal(myri_routes_memory(&empty), 0);
    /* set_switch: every host on the switch, its first byte for its own port */
    myri_route one = {.len = 1, .byte = {myri_route_encode(t->node[t->host_node[0]].port[0].peer_port, 3,
                                                           MYRI_ROUTE_RELATIVE)}};
    assert_int_equal(myri_routes_set_switch(&r, 0, 3, &one), MYRI_OK);
    for (uint32_t s = 0; s < 3; s++) {
        uint32_t in = (uint32_t)t->node[t->host_node[s]].port[0].peer_port;
        assert_int_equal(myri_routes_get(&r, s, 3, &b)->len, 1);
        assert_int_equal(myri_route_decode(b.byte[0], in, 4, MYRI_ROUTE_RELATIVE), 3);
    }
    assert_int_equal(myri_routes_len(&r, 3, 3), MYRI_ROUTE_NONE);
    myri_routes_free(&r);
    myri_routes_free(&r); /* twice is fine */
    myri_routes_free(NULL);
    myri_topo_destroy(t);
}

/* The store of a 16-ary 2-tree (256 hosts, 16 per leaf): 16 rows, far below
 * the 33 bytes per pair of a flat table. */
static void test_memory(void **state)
{
    (void)state;
    myri_topo *t = gen((myri_topo_gen_params){.gen = MYRI_GEN_FAT_TREE, .k = 16, .n = 2});
    myri_routes r = {0};
    assert_int_equal(myri_routes_updown_table(t, MYRI_ROUTE_RELATIVE, &r, &err), MYRI_OK);
    size_t flat = t->nhosts * t->nhosts * sizeof(myri_route), mem = myri_routes_memory(&r);
    assert_int_equal(r.nrows, 16);
    assert_true(mem < flat / 20);
    myri_routes_free(&r);
    /* the generated fat tree's own routes hold no table at all */
    assert_int_equal(myri_routes_updown(t, MYRI_ROUTE_RELATIVE, &r, &err), MYRI_OK);
    assert_true(myri_routes_by_construction(&r));
    assert_int_equal(myri_routes_memory(&r), sizeof r);
    myri_routes_free(&r);
    myri_topo_destroy(t);
}

/* Same bytes, pair by pair, as two route sets. */
static void same_sets(const myri_routes *a, const myri_routes *b)
{
    assert_int_equal(a->nhosts, b->nhosts);
    for (size_t s = 0; s < a->nhosts; s++)
        for (size_t d = 0; d < a->nhosts; d++) {
            myri_route x, y;
            myri_routes_get(a, s, d, &x);
            myri_routes_get(b, s, d, &y);
            assert_int_equal(x.len, y.len);
            assert_int_equal(myri_routes_len(a, s, d), x.len);
            if (x.len != MYRI_ROUTE_NONE) assert_memory_equal(x.byte, y.byte, x.len);
        }
}

/* The arithmetic routes of generated fat trees and Clos networks: the table
 * of the up*-then-down* walks on larger networks than the flat reference
 * affords; the closed-form sum of route lengths; the channel dependency check
 * (they are deadlock-free by construction: this runs the check anyway at
 * small sizes); a topology changed after generation (a new root) is routed
 * by the table. */
static void test_arithmetic_updown(void **state)
{
    (void)state;
    myri_topo_gen_params cases[] = {
        {.gen = MYRI_GEN_FAT_TREE, .k = 2, .n = 1}, {.gen = MYRI_GEN_FAT_TREE, .k = 2, .n = 7},
        {.gen = MYRI_GEN_FAT_TREE, .k = 4, .n = 4}, {.gen = MYRI_GEN_FAT_TREE, .k = 5, .n = 3},
        {.gen = MYRI_GEN_FAT_TREE, .k = 16, .n = 2}, {.gen = MYRI_GEN_CLOS, .leaves = 1, .spines = 2},
        {.gen = MYRI_GEN_CLOS, .leaves = 9, .spines = 4, .per_switch = 3},
        {.gen = MYRI_GEN_CLOS, .leaves = 16, .spines = 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int e = 0; e < 2; e++) {
            myri_topo *t = gen(cases[i]);
            myri_routes a = {0}, tb = {0};
            assert_int_equal(myri_routes_updown(t, (myri_route_encoding)e, &a, &err), MYRI_OK);
            assert_true(myri_routes_by_construction(&a));
            assert_int_equal(myri_routes_updown_table(t, (myri_route_encoding)e, &tb, &err), MYRI_OK);
            assert_false(myri_routes_by_construction(&tb));
            same_sets(&a, &tb);
            for (size_t s = 0; s < t->nhosts; s++) assert_int_equal(myri_routes_len_sum(&a, s), myri_routes_len_sum(&tb, s));
            if (t->nhosts <= 256) assert_true(myri_routes_deadlock_free(t, (myri_route_encoding)e, &a, &err));
            myri_routes_free(&a);
            myri_routes_free(&tb);
            /* a leaf made a root: no longer the generator's network */
            size_t roots = t->nroots;
            assert_int_equal(myri_topo_add_root(t, (uint32_t)t->nhosts), MYRI_OK);
            myri_status st = myri_routes_updown(t, (myri_route_encoding)e, &a, &err);
            assert_true(st == MYRI_OK || st == MYRI_EINVAL); /* some pairs may have no legal route now */
            assert_true(t->nroots == roots || st || !myri_routes_by_construction(&a));
            myri_routes_free(&a);
            myri_topo_destroy(t);
        }
}

/* Dimension order on meshes: the closed-form length sum and the deadlock
 * check on the arithmetic routes. */
static void test_arithmetic_mesh(void **state)
{
    (void)state;
    uint32_t dims[][3] = {{1, 1, 3}, {2, 2, 1}, {5, 3, 2}, {8, 8, 1}, {1, 7, 2}};
    for (size_t c = 0; c < sizeof dims / sizeof dims[0]; c++) {
        myri_topo *t = gen((myri_topo_gen_params){.gen = MYRI_GEN_MESH, .x = dims[c][0], .y = dims[c][1],
                                                  .per_switch = dims[c][2]});
        for (int e = 0; e < 2; e++) {
            myri_routes r = {0};
            assert_int_equal(myri_routes_mesh_xy(t, dims[c][0], dims[c][1], dims[c][2], (myri_route_encoding)e, &r,
                                                 &err), MYRI_OK);
            assert_true(myri_routes_by_construction(&r));
            for (size_t s = 0; s < t->nhosts; s++) {
                uint64_t sum = 0;
                for (size_t d = 0; d < t->nhosts; d++) sum += d == s ? 0 : myri_routes_len(&r, s, d);
                assert_int_equal(myri_routes_len_sum(&r, s), sum);
            }
            assert_true(myri_routes_deadlock_free(t, (myri_route_encoding)e, &r, &err));
            myri_routes_free(&r);
        }
        myri_topo_destroy(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_same_bytes), cmocka_unit_test(test_mesh_xy_same_bytes),
        cmocka_unit_test(test_random_same_bytes),    cmocka_unit_test(test_set_one_pair),
        cmocka_unit_test(test_misuse),               cmocka_unit_test(test_memory),
        cmocka_unit_test(test_arithmetic_updown),    cmocka_unit_test(test_arithmetic_mesh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
