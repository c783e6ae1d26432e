/* test_topo.c -- topology generators, up/down routes, deadlock freedom, DOT,
 * endpoint names (NODE, NODE.PORT). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "topo/topo.h"
#include "myri/rng.h"

static myri_error err;

static myri_topo *gen(myri_topo_generator g, uint32_t k, uint32_t n, uint32_t x, uint32_t y)
{
    myri_topo_gen_params p = {.gen = g, .k = k, .n = n, .x = x, .y = y, .length_m = 10.0};
    if (g == MYRI_GEN_CLOS) {
        p.leaves = x;
        p.spines = y;
    }
    myri_topo *t = NULL;
    myri_status st = myri_topo_generate(&p, &t, &err);
    if (st) fprintf(stderr, "generate: %s\n", err.msg);
    assert_int_equal(st, MYRI_OK);
    assert_int_equal(myri_topo_validate(t, &err), MYRI_OK);
    return t;
}

/* Every link joins two connected ports that point back at each other. */
static void check_ports(const myri_topo *t)
{
    for (size_t l = 0; l < t->nlinks; l++) {
        const myri_topo_link *lk = &t->link[l];
        const myri_topo_port *a = &t->node[lk->a_node].port[lk->a_port];
        const myri_topo_port *b = &t->node[lk->b_node].port[lk->b_port];
        assert_int_equal(a->link, (int32_t)l);
        assert_int_equal(b->link, (int32_t)l);
        assert_int_equal(a->peer_node, (int32_t)lk->b_node);
        assert_int_equal(b->peer_port, (int32_t)lk->a_port);
    }
}

static void test_fat_tree_4_3(void **state)
{
    (void)state;
    myri_topo *t = gen(MYRI_GEN_FAT_TREE, 4, 3, 0, 0);
    assert_int_equal(t->nhosts, 64);
    assert_int_equal(myri_topo_nswitches(t), 48);
    /* 64 host links + 2 levels x 16 switches x 4 up links */
    assert_int_equal(t->nlinks, 64 + 2 * 16 * 4);
    assert_int_equal(t->nroots, 16);
    size_t free_ports = 0;
    for (size_t i = 0; i < t->nnodes; i++) {
        if (t->node[i].kind != MYRI_TOPO_SWITCH) continue;
        assert_int_equal(t->node[i].nports, 8);
        for (uint32_t p = 0; p < 8; p++) free_ports += t->node[i].port[p].link < 0;
    }
    assert_int_equal(free_ports, 16 * 4); /* top level's up ports */
    check_ports(t);
    /* host to host: at most up 2 levels and down: 5 links, 4 switch hops + 1 */
    assert_int_equal(myri_topo_host_diameter(t), 6);
    assert_string_equal(t->node[t->host_node[5]].name, "h5");
    myri_topo_destroy(t);
}

static void test_generators(void **state)
{
    (void)state;
    myri_topo *t = gen(MYRI_GEN_STAR, 0, 0, 0, 0);
    assert_int_equal(t->nhosts, 8);
    assert_int_equal(myri_topo_nswitches(t), 1);
    myri_topo_destroy(t);
    t = gen(MYRI_GEN_MESH, 0, 0, 3, 2);
    assert_int_equal(t->nhosts, 6);
    assert_int_equal(t->nlinks, 6 + 2 * 2 + 3 * 1);
    check_ports(t);
    myri_topo_destroy(t);
    t = gen(MYRI_GEN_RING, 0, 5, 0, 0);
    assert_int_equal(t->nlinks, 5 + 5);
    myri_topo_destroy(t);
    t = gen(MYRI_GEN_CLOS, 0, 0, 6, 3);
    assert_int_equal(t->nhosts, 18);
    assert_int_equal(myri_topo_nswitches(t), 9);
    assert_int_equal(t->nlinks, 18 + 18);
    myri_topo_destroy(t);
    t = gen(MYRI_GEN_BACK_TO_BACK, 0, 0, 0, 0);
    assert_int_equal(t->nhosts, 2);
    assert_int_equal(t->nlinks, 1);
    myri_topo_destroy(t);
    /* parameters that do not fit */
    myri_topo_gen_params p = {.gen = MYRI_GEN_FAT_TREE, .k = 4, .n = 3, .nports = 4, .length_m = 1};
    assert_int_equal(myri_topo_generate(&p, &t, &err), MYRI_EINVAL);
    assert_non_null(strstr(err.msg, "ports"));
    p = (myri_topo_gen_params){.gen = MYRI_GEN_RING, .n = 2, .length_m = 1};
    assert_int_equal(myri_topo_generate(&p, &t, &err), MYRI_EINVAL);
}

static void test_construction_errors(void **state)
{
    (void)state;
    myri_topo *t = myri_topo_create();
    uint32_t h, s;
    assert_int_equal(myri_topo_add_host(t, "a", &h), MYRI_OK);
    assert_int_equal(myri_topo_add_host(t, "a", NULL), MYRI_EINVAL);
    assert_int_equal(myri_topo_add_switch(t, "s", 6, NULL), MYRI_EINVAL);
    assert_int_equal(myri_topo_add_switch(t, "s", 4, &s), MYRI_OK);
    assert_int_equal(myri_topo_connect(t, h, 1, s, 0, 1.0, NULL), MYRI_EINVAL);
    assert_int_equal(myri_topo_connect(t, h, 0, s, 4, 1.0, NULL), MYRI_EINVAL);
    assert_int_equal(myri_topo_connect(t, s, 0, s, 1, 1.0, NULL), MYRI_EINVAL);
    assert_int_equal(myri_topo_connect(t, h, 0, s, 0, 0.0, NULL), MYRI_EINVAL);
    assert_int_equal(myri_topo_connect(t, h, 0, s, 0, 1.0, NULL), MYRI_OK);
    assert_int_equal(myri_topo_connect(t, h, 0, s, 1, 1.0, NULL), MYRI_EINVAL);
    assert_int_equal(myri_topo_validate(t, &err), MYRI_OK);
    assert_int_equal(myri_topo_add_host(t, "b", NULL), MYRI_OK);
    assert_int_equal(myri_topo_validate(t, &err), MYRI_EINVAL);
    assert_non_null(strstr(err.msg, "'b'"));
    assert_string_equal(err.node, "b");
    assert_int_equal(myri_topo_find(t, "s"), (int32_t)s);
    assert_int_equal(myri_topo_find(t, "zz"), -1);
    myri_topo_destroy(t);
    myri_topo_destroy(NULL);
}

/* Every route reaches its destination and the route set has an acyclic
 * channel dependency graph. */
static void check_routes(const myri_topo *t, myri_route_encoding enc)
{
    myri_routes r = {0};
    myri_status st = myri_routes_updown(t, enc, &r, &err);
    if (st) fprintf(stderr, "routes: %s\n", err.msg);
    assert_int_equal(st, MYRI_OK);
    for (uint32_t s = 0; s < t->nhosts; s++) {
        for (uint32_t d = 0; d < t->nhosts; d++) {
            myri_route rb;
            const myri_route *rt = myri_routes_get(&r, s, d, &rb);
            if (s == d) {
                assert_int_equal(rt->len, MYRI_ROUTE_NONE);
                continue;
            }
            uint32_t chan[40], reached = 99999;
            size_t nc = 0;
            st = myri_route_walk(t, enc, s, rt, chan, &nc, &reached, &err);
            if (st) fprintf(stderr, "walk %u->%u: %s\n", s, d, err.msg);
            assert_int_equal(st, MYRI_OK);
            assert_int_equal(reached, d);
            assert_int_equal(nc, (size_t)rt->len + 1);
            for (size_t i = 0; i < rt->len; i++) assert_true(rt->byte[i] & 0x80);
        }
    }
    bool ok = myri_routes_deadlock_free(t, enc, &r, &err);
    if (!ok) fprintf(stderr, "deadlock: %s\n", err.msg);
    assert_true(ok);
    myri_routes_free(&r);
}

static void test_routes_all_generators(void **state)
{
    (void)state;
    struct { myri_topo_generator g; uint32_t k, n, x, y; } cases[] = {
        {MYRI_GEN_BACK_TO_BACK, 0, 0, 0, 0}, {MYRI_GEN_STAR, 0, 0, 0, 0},
        {MYRI_GEN_MESH, 0, 0, 4, 3},         {MYRI_GEN_MESH, 0, 0, 5, 5},
        {MYRI_GEN_FAT_TREE, 4, 3, 0, 0},     {MYRI_GEN_FAT_TREE, 2, 4, 0, 0},
        {MYRI_GEN_CLOS, 0, 0, 5, 3},         {MYRI_GEN_RING, 0, 3, 0, 0},
        {MYRI_GEN_RING, 0, 8, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        myri_topo *t = gen(cases[i].g, cases[i].k, cases[i].n, cases[i].x, cases[i].y);
        check_routes(t, MYRI_ROUTE_ABSOLUTE);
        check_routes(t, MYRI_ROUTE_RELATIVE);
        myri_topo_destroy(t);
    }
}

/* On a fat tree with the top level as roots, up/down routes are minimal
 * (2 * height of the nearest common ancestor switch hops) and the
 * destination-digit rule spreads destinations evenly over the top switches. */
static void test_fat_tree_routes_minimal_and_spread(void **state)
{
    (void)state;
    myri_topo *t = gen(MYRI_GEN_FAT_TREE, 4, 3, 0, 0);
    myri_routes r = {0};
    assert_int_equal(myri_routes_updown(t, MYRI_ROUTE_ABSOLUTE, &r, &err), MYRI_OK);
    unsigned top_use[48] = {0};
    for (uint32_t s = 0; s < 64; s++) {
        for (uint32_t d = 0; d < 64; d++) {
            if (s == d) continue;
            unsigned level = s / 4 == d / 4 ? 0 : s / 16 == d / 16 ? 1 : 2;
            myri_route rb;
            const myri_route *rt = myri_routes_get(&r, s, d, &rb);
            assert_int_equal(rt->len, 2 * level + 1);
            if (level == 2) {
                uint32_t chan[40];
                size_t nc;
                assert_int_equal(myri_route_walk(t, MYRI_ROUTE_ABSOLUTE, s, rt, chan, &nc, NULL,
                                                 &err), MYRI_OK);
                const myri_topo_link *lk = &t->link[chan[2] / 2]; /* into the top switch */
                uint32_t top = chan[2] % 2 ? lk->a_node : lk->b_node;
                top_use[top - 64 - 32]++;
            }
        }
    }
    /* every top switch carries the same number of routes */
    for (int i = 1; i < 16; i++) assert_int_equal(top_use[i], top_use[0]);
    myri_routes_free(&r);
    myri_topo_destroy(t);
}

/* A ring with all routes going clockwise two hops has a cyclic channel
 * dependency graph: the checker must say so. */
static void test_cyclic_routes_detected(void **state)
{
    (void)state;
    myri_topo *t = gen(MYRI_GEN_RING, 0, 4, 0, 0);
    myri_routes r = {0};
    assert_int_equal(myri_routes_updown(t, MYRI_ROUTE_ABSOLUTE, &r, &err), MYRI_OK);
    for (uint32_t s = 0; s < 4; s++) {
        uint32_t d = (s + 2) % 4, ports[3] = {0, 0, 2};
        myri_route rt;
        assert_int_equal(myri_route_from_ports(t, MYRI_ROUTE_ABSOLUTE, s, d, ports, 3, &rt, &err), MYRI_OK);
        assert_int_equal(myri_routes_set(&r, s, d, &rt), MYRI_OK);
    }
    assert_false(myri_routes_deadlock_free(t, MYRI_ROUTE_ABSOLUTE, &r, &err));
    assert_non_null(strstr(err.msg, "cycle"));
    uint32_t bad[2] = {1, 2};
    assert_int_equal(myri_route_from_ports(t, MYRI_ROUTE_ABSOLUTE, 0, 1, bad, 2, &(myri_route){0}, &err), MYRI_EINVAL);
    myri_routes_free(&r);
    myri_topo_destroy(t);
}

/* Random connected networks of 4/8/16/32-port switches with random extra
 * links (cycles, parallel links) and hosts on random switches: every route
 * reaches its destination and every up/down route set is deadlock-free, with
 * automatic roots and with a random root set that still connects all pairs. */
static void test_routes_random_networks(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    unsigned built = 0, rooted = 0;
    for (int trial = 0; trial < 200; trial++) {
        myri_topo *t = myri_topo_create();
        uint32_t ns = 1 + (uint32_t)(myri_splitmix64(&seed) % 10), nh = 2 + (uint32_t)(myri_splitmix64(&seed) % 12);
        char name[16];
        for (uint32_t h = 0; h < nh; h++) {
            snprintf(name, sizeof name, "h%u", h);
            assert_int_equal(myri_topo_add_host(t, name, NULL), MYRI_OK);
        }
        for (uint32_t s = 0; s < ns; s++) {
            snprintf(name, sizeof name, "s%u", s);
            uint32_t ports = 4u << (myri_splitmix64(&seed) % 4);
            assert_int_equal(myri_topo_add_switch(t, name, ports, NULL), MYRI_OK);
        }
        /* a random spanning tree over the switches, then extra links */
        for (uint32_t s = 1; s < ns; s++) {
            uint32_t other = (uint32_t)(myri_splitmix64(&seed) % s);
            for (uint32_t pa = 0, done = 0; pa < t->node[nh + s].nports && !done; pa++)
                for (uint32_t pb = 0; pb < t->node[nh + other].nports && !done; pb++)
                    done = myri_topo_connect(t, nh + s, pa, nh + other, pb, 5.0, NULL) == MYRI_OK;
        }
        for (int extra = (int)(myri_splitmix64(&seed) % 8); extra > 0; extra--) {
            uint32_t a = nh + (uint32_t)(myri_splitmix64(&seed) % ns), b = nh + (uint32_t)(myri_splitmix64(&seed) % ns);
            uint32_t pa = (uint32_t)(myri_splitmix64(&seed) % t->node[a].nports);
            uint32_t pb = (uint32_t)(myri_splitmix64(&seed) % t->node[b].nports);
            (void)myri_topo_connect(t, a, pa, b, pb, 5.0, NULL); /* may fail: port in use, a == b */
        }
        for (uint32_t h = 0; h < nh; h++) { /* on a random switch with a free port */
            uint32_t s0 = (uint32_t)(myri_splitmix64(&seed) % ns);
            bool done = false;
            for (uint32_t i = 0; i < ns && !done; i++) {
                uint32_t s = nh + (s0 + i) % ns;
                for (uint32_t p = 0; p < t->node[s].nports && !done; p++)
                    done = myri_topo_connect(t, h, 0, s, p, 2.0, NULL) == MYRI_OK;
            }
        }
        if (myri_topo_validate(t, &err) == MYRI_OK) {
            built++;
            check_routes(t, MYRI_ROUTE_ABSOLUTE);
            /* a random root set: routes may not exist for every pair then */
            myri_topo_add_root(t, nh + (uint32_t)(myri_splitmix64(&seed) % ns));
            myri_topo_add_root(t, nh + (uint32_t)(myri_splitmix64(&seed) % ns));
            myri_routes r = {0};
            if (myri_routes_updown(t, MYRI_ROUTE_RELATIVE, &r, &err) == MYRI_OK) {
                rooted++;
                myri_routes_free(&r);
                check_routes(t, MYRI_ROUTE_RELATIVE);
            } else {
                assert_non_null(strstr(err.msg, "no up*-then-down* route"));
            }
        }
        myri_topo_destroy(t);
    }
    if (built <= 150 || rooted <= 50) fprintf(stderr, "built %u, rooted %u\n", built, rooted);
    assert_true(built > 150); /* most random networks are usable */
    assert_true(rooted > 50);
}

/* Dimension-order routes on meshes: minimal (Manhattan distance + 1 route
 * bytes), reach their destination, and deadlock-free; up/down routes on the
 * same mesh are never shorter. */
static void test_mesh_dimension_order(void **state)
{
    (void)state;
    uint32_t dims[][3] = {{2, 2, 1}, {4, 3, 2}, {5, 5, 1}, {1, 6, 3}};
    for (size_t c = 0; c < 4; c++) {
        myri_topo_gen_params p = {.gen = MYRI_GEN_MESH, .x = dims[c][0], .y = dims[c][1],
                                  .per_switch = dims[c][2], .length_m = 1};
        myri_topo *t = NULL;
        assert_int_equal(myri_topo_generate(&p, &t, &err), MYRI_OK);
        for (int e = 0; e < 2; e++) {
            myri_routes r = {0}, ud = {0};
            assert_int_equal(myri_routes_mesh_xy(t, p.x, p.y, p.per_switch, (myri_route_encoding)e, &r, &err), MYRI_OK);
            assert_int_equal(myri_routes_updown(t, (myri_route_encoding)e, &ud, &err), MYRI_OK);
            uint32_t h = p.per_switch;
            for (uint32_t s = 0; s < t->nhosts; s++) {
                for (uint32_t d = 0; d < t->nhosts; d++) {
                    if (s == d) continue;
                    myri_route rb;
                    const myri_route *rt = myri_routes_get(&r, s, d, &rb);
                    uint32_t si = (s / h) % p.x, sj = (s / h) / p.x, di = (d / h) % p.x, dj = (d / h) / p.x;
                    uint32_t manhattan = (si > di ? si - di : di - si) + (sj > dj ? sj - dj : dj - sj);
                    assert_int_equal(rt->len, manhattan + 1);
                    assert_true(myri_routes_len(&ud, s, d) >= rt->len);
                    uint32_t reached = 0;
                    assert_int_equal(myri_route_walk(t, (myri_route_encoding)e, s, rt, NULL, NULL, &reached, &err),
                                     MYRI_OK);
                    assert_int_equal(reached, d);
                }
            }
            assert_true(myri_routes_deadlock_free(t, (myri_route_encoding)e, &r, &err));
            myri_routes_free(&r);
            myri_routes_free(&ud);
        }
        myri_topo_destroy(t);
    }
    /* not a mesh */
    myri_topo_gen_params p = {.gen = MYRI_GEN_STAR, .length_m = 1};
    myri_topo *t = NULL;
    myri_routes r = {0};
    assert_int_equal(myri_topo_generate(&p, &t, &err), MYRI_OK);
    assert_int_equal(myri_routes_mesh_xy(t, 3, 3, 1, MYRI_ROUTE_ABSOLUTE, &r, &err), MYRI_EINVAL);
    myri_topo_destroy(t);
}

static void test_route_encoding(void **state)
{
    (void)state;
    for (uint32_t in = 0; in < 32; in++) {
        for (uint32_t out = 0; out < 32; out++) {
            for (int e = 0; e < 2; e++) {
                uint8_t b = myri_route_encode(in, out, (myri_route_encoding)e);
                assert_true(b & 0x80);
                assert_int_equal(myri_route_decode(b, in, 32, (myri_route_encoding)e), (int)out);
            }
        }
    }
    assert_int_equal(myri_route_decode(0x05, 0, 8, MYRI_ROUTE_ABSOLUTE), -1); /* to-host byte */
    assert_int_equal(myri_route_decode(0x88, 0, 8, MYRI_ROUTE_ABSOLUTE), -1); /* no port 8 */
}

static void test_dot(void **state)
{
    (void)state;
    myri_topo *t = gen(MYRI_GEN_STAR, 0, 0, 0, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    myri_topo_write_dot(t, f);
    fclose(f);
    assert_non_null(strstr(buf, "graph myrinet {"));
    assert_non_null(strstr(buf, "\"h3\" [shape=box"));
    assert_non_null(strstr(buf, "\"s0\" [shape=circle"));
    /* edges from the upper end (the switch); the same length on every cable: said once */
    assert_non_null(strstr(buf, "\"s0\" -- \"h3\" [taillabel=\"3\", headlabel=\"0\"];"));
    assert_null(strstr(buf, "label=\"10m\""));
    assert_non_null(strstr(buf, "every cable 10m"));
    assert_non_null(strstr(buf, "\"h3\" [shape=box, pos=\"")); /* hosts in the bottom row */
    assert_non_null(strstr(buf, ",0.000!\"]"));
    free(buf);
    myri_topo_destroy(t);
}

/* Issue 8: the up/down routes are walked once per (source switch,
 * destination) and copied to the other hosts of the switch with their own
 * first byte.  Every route of a 4-ary 3-tree and a Clos, in both encodings,
 * must reach its destination, and both encodings take the same channels. */
static void test_updown_shared_routes(void **state)
{
    (void)state;
    for (int g = 0; g < 2; g++) {
        myri_topo *t = g ? gen(MYRI_GEN_CLOS, 0, 0, 4, 2) : gen(MYRI_GEN_FAT_TREE, 4, 3, 0, 0);
        myri_routes ra = {0}, rr = {0};
        assert_int_equal(myri_routes_updown(t, MYRI_ROUTE_ABSOLUTE, &ra, &err), MYRI_OK);
        assert_int_equal(myri_routes_updown(t, MYRI_ROUTE_RELATIVE, &rr, &err), MYRI_OK);
        for (uint32_t s = 0; s < t->nhosts; s++)
            for (uint32_t d = 0; d < t->nhosts; d++) {
                if (s == d) continue;
                uint32_t ca[40], cr[40], da = UINT32_MAX, dr = UINT32_MAX;
                size_t na = 0, nr = 0;
                assert_int_equal(myri_route_walk(t, MYRI_ROUTE_ABSOLUTE, s, myri_routes_get(&ra, s, d, &(myri_route){0}), ca, &na, &da, &err), MYRI_OK);
                assert_int_equal(myri_route_walk(t, MYRI_ROUTE_RELATIVE, s, myri_routes_get(&rr, s, d, &(myri_route){0}), cr, &nr, &dr, &err), MYRI_OK);
                assert_int_equal(da, d);
                assert_int_equal(dr, d);
                assert_int_equal(na, nr);
                assert_memory_equal(ca, cr, na * sizeof ca[0]);
            }
        assert_true(myri_routes_deadlock_free(t, MYRI_ROUTE_RELATIVE, &rr, &err));
        myri_routes_free(&ra);
        myri_routes_free(&rr);
        myri_topo_destroy(t);
    }
}

/* A fat tree: hosts at y 0, leaves one row up, roots at the top, one row per
 * level; a mesh: switches on a grid (3 inches apart). */
static void test_dot_levels_grid(void **state)
{
    (void)state;
    myri_topo *t = gen(MYRI_GEN_FAT_TREE, 4, 3, 0, 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    myri_topo_write_dot(t, f);
    fclose(f);
    char *p = strstr(buf, "\"s0\" [shape=circle, pos=\""), *q = strstr(buf, "\"s47\" [shape=circle, pos=\"");
    assert_non_null(p);
    assert_non_null(q);
    assert_true(strstr(p, ",1.600!\"]") < strchr(p, '\n')); /* s0: a leaf, the row above the hosts */
    assert_true(strstr(q, ",4.800!\"]") < strchr(q, '\n')); /* s47: a root, the top row */
    assert_non_null(strstr(buf, "\"s47\" -- \"s"));         /* edges from the upper end */
    assert_null(strstr(buf, "xlabel"));                /* every switch has 8 ports: said once */
    free(buf);
    myri_topo_destroy(t);
    t = gen(MYRI_GEN_MESH, 0, 0, 4, 4);
    f = open_memstream(&buf, &len);
    myri_topo_write_dot(t, f);
    fclose(f);
    assert_non_null(strstr(buf, "grid"));
    assert_non_null(strstr(buf, "\"s5\" [shape=circle, pos=\"3,3!\"]"));   /* (1, 1) */
    assert_non_null(strstr(buf, "\"s15\" [shape=circle, pos=\"9,9!\"]"));  /* (3, 3) */
    free(buf);
    myri_topo_destroy(t);
}

/* h0, h1, h2 on ports 0..2 of the 4-port switch s0; port 3 unconnected. */
static myri_topo *endpoint_net(void)
{
    myri_topo *t = myri_topo_create();
    assert_non_null(t);
    const char *names[] = {"h0", "h1", "h2"};
    uint32_t s0 = 0, h = 0;
    assert_int_equal(myri_topo_add_switch(t, "s0", 4, &s0), MYRI_OK);
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(myri_topo_add_host(t, names[i], &h), MYRI_OK);
        assert_int_equal(myri_topo_connect(t, h, 0, s0, i, 10.0, NULL), MYRI_OK);
    }
    return t;
}

static void test_endpoint_good(void **state)
{
    (void)state;
    myri_topo *t = endpoint_net();
    uint32_t node = 99, port = 99;
    const struct {
        const char *s;
        const char *node;
        uint32_t port;
        int64_t link;
    } cases[] = {
        {"h0", "h0", MYRI_TOPO_NO_PORT, 0}, {"h2", "h2", MYRI_TOPO_NO_PORT, 2}, {"h1.0", "h1", 0, 1},
        {"s0.0", "s0", 0, 0},               {"s0.2", "s0", 2, 2},               {"s0.3", "s0", 3, -1},
        {"s0", "s0", MYRI_TOPO_NO_PORT, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(myri_topo_parse_endpoint(t, cases[i].s, &node, &port, &err), MYRI_OK);
        assert_int_equal(node, (uint32_t)myri_topo_find(t, cases[i].node));
        assert_int_equal(port, cases[i].port);
        assert_int_equal(myri_topo_endpoint_link(t, cases[i].s, NULL), cases[i].link);
    }
    /* The two that parse but name no link say why. */
    assert_int_equal(myri_topo_endpoint_link(t, "s0.3", &err), -1);
    assert_non_null(strstr(err.msg, "not connected"));
    assert_int_equal(myri_topo_endpoint_link(t, "s0", &err), -1);
    assert_non_null(strstr(err.msg, "s0.PORT"));
    myri_topo_destroy(t);
}

static void test_endpoint_bad(void **state)
{
    (void)state;
    myri_topo *t = endpoint_net();
    char longname[200];
    memset(longname, 'h', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    const struct {
        const char *s;
        const char *word; /* in the message */
    } cases[] = {
        {"", "not a node"},          {"nosuch", "not a node"},       {"nosuch.1", "not a node"},
        {".1", "not a node"},        {"h0.0.0", "not a node"},       {longname, "not a node"},
        {"h0.", "whole number"},     {"s0.x", "whole number"},       {"s0.1x", "whole number"},
        {"s0.1.", "not a node"},     {"h0.1", "out of range"},       {"s0.4", "out of range"},
        {"s0.-1", "out of range"},   {"s0.4294967297", "out of range"}, /* not port 1 modulo 2^32 */
        {"s0.99999999999999999999", "out of range"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&err, 0, sizeof err);
        uint32_t node = 0, port = 0;
        assert_int_equal(myri_topo_parse_endpoint(t, cases[i].s, &node, &port, &err), MYRI_EINPUT);
        if (!strstr(err.msg, cases[i].word) || !strstr(err.msg, "expected"))
            fail_msg("'%s': message '%s' lacks '%s' or 'expected'", cases[i].s, err.msg, cases[i].word);
        assert_int_equal(myri_topo_parse_endpoint(t, cases[i].s, &node, &port, NULL), MYRI_EINPUT);
        assert_int_equal(myri_topo_endpoint_link(t, cases[i].s, NULL), -1);
    }
    uint32_t node = 0, port = 0;
    assert_int_equal(myri_topo_parse_endpoint(NULL, "h0", &node, &port, NULL), MYRI_EINVAL);
    assert_int_equal(myri_topo_parse_endpoint(t, NULL, &node, &port, NULL), MYRI_EINVAL);
    assert_int_equal(myri_topo_parse_endpoint(t, "h0", NULL, &port, NULL), MYRI_EINVAL);
    assert_int_equal(myri_topo_endpoint_link(t, NULL, NULL), -1);
    myri_topo_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fat_tree_4_3),
        cmocka_unit_test(test_generators),
        cmocka_unit_test(test_construction_errors),
        cmocka_unit_test(test_routes_all_generators),
        cmocka_unit_test(test_fat_tree_routes_minimal_and_spread),
        cmocka_unit_test(test_cyclic_routes_detected),
        cmocka_unit_test(test_routes_random_networks),
        cmocka_unit_test(test_mesh_dimension_order),
        cmocka_unit_test(test_route_encoding),
        cmocka_unit_test(test_dot),
        cmocka_unit_test(test_dot_levels_grid),
        cmocka_unit_test(test_updown_shared_routes),
        cmocka_unit_test(test_endpoint_good),
        cmocka_unit_test(test_endpoint_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
