/* test_fabric_order.c -- the fabric agenda's order (docs/FABRIC.md "Agenda",
 * docs/PARTITION.md section 3): events are taken in (time, phase, origin node,
 * origin's sequence) order, so the order of events pushed by different nodes
 * does not depend on how their pushes interleave; a node whose sequence
 * numbers run out is renumbered without changing any order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric/fabric_int.h"
#include "fabric_testlib.h"
#include "myri/rng.h"

#define MAXEV 4096

typedef struct push {
    uint32_t node;   /* the origin (the node whose handler pushes) */
    uint64_t t;
    fab_phase ph;
    uint32_t kind;
    uint64_t label;  /* identifies the event in the taken sequence */
} push;

typedef struct world {
    myri_sim *sim;
    myri_topo *topo;
    myri_fabric *f;
    ft_log *log;
} world;

static void world_make(world *w)
{
    w->topo = ft_star8();
    w->sim = myri_sim_create(7);
    w->log = malloc(sizeof *w->log);
    assert_non_null(w->log);
    w->f = ft_make(w->sim, w->topo, MYRI_FABRIC_FAST, NULL, w->log);
    assert_non_null(w->f);
}

static void world_free(world *w)
{
    myri_sim_destroy(w->sim);
    myri_topo_destroy(w->topo);
    free(w->log);
}

/* Pushes *p as the handler of p->node would, during a pass at instant now. */
static void push_as(myri_fabric *f, uint64_t now, const push *p)
{
    f->in_tick = true;
    f->now = now;
    f->now_phase = 0;
    f->cur_node = p->node;
    myri_fab_push(f, p->t, p->ph, p->kind, 0, p->label, NULL);
    f->in_tick = false;
}

/* Takes every keyed event; returns their count, labels into out. */
static size_t drain(myri_fabric *f, uint64_t *out)
{
    size_t n = 0;
    fab_ev e;
    while (n < MAXEV && myri_fab_agenda_test_take(f, &e)) out[n++] = e.b;
    return n;
}

/* Events of nodes 0..2 (s0 is node 0, hosts are 1..8 in ft_star8) at shared
 * instants and phases, some in the calendar, some beyond it (heap), some
 * timeouts (far heap); label = node * 100 + its push number. */
static size_t script(push *p)
{
    static const uint64_t ts[] = {5000, 5000, 9000, 5000, 3000000000000ull, 9000};
    static const fab_phase ph[] = {PH_SEND, PH_SEND, PH_ARRIVE, PH_DECODE, PH_SEND, PH_ARRIVE};
    size_t n = 0;
    for (uint32_t node = 0; node < 3; node++)
        for (uint32_t i = 0; i < 6; i++)
            p[n++] = (push){node, ts[i], ph[i], i == 4 ? EV_TIMEOUT : EV_F_SEND, node * 100 + i};
    return n;
}

static void test_interleavings_give_one_order(void **state)
{
    (void)state;
    push p[32];
    size_t n = script(p);
    /* Each node's pushes stay in their own order (a node's handler runs in
     * its own order); the nodes' pushes are interleaved in three ways. */
    static const uint32_t orders[3][3] = {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}};
    uint64_t seq[3][MAXEV];
    size_t got[3];
    for (int o = 0; o < 3; o++) {
        world w;
        world_make(&w);
        if (o == 0) { /* node by node */
            for (int k = 0; k < 3; k++)
                for (size_t i = 0; i < n; i++)
                    if (p[i].node == orders[o][k]) push_as(w.f, 0, &p[i]);
        } else { /* round robin over the nodes in the order orders[o] */
            for (uint32_t i = 0; i < 6; i++)
                for (int k = 0; k < 3; k++) push_as(w.f, 0, &p[orders[o][k] * 6 + i]);
        }
        got[o] = drain(w.f, seq[o]);
        world_free(&w);
    }
    assert_int_equal(got[0], n);
    for (int o = 1; o < 3; o++) {
        assert_int_equal(got[o], n);
        assert_memory_equal(seq[0], seq[o], n * sizeof seq[0][0]);
    }
    /* Phase first; at one (time, phase) the lower node first, and each node's
     * events in the order it pushed them: 5000/DECODE, then 5000/SEND. */
    static const uint64_t first[] = {3, 103, 203, 0, 1, 100, 101, 200, 201};
    assert_memory_equal(seq[0], first, sizeof first);
}

/* Outside a pass (set-up, a device's call) the origin is the node that will
 * handle the event: a host's send event is its own node's, a decode the
 * receiver's, STOP/GO the sender's. */
static void test_origin_outside_a_pass(void **state)
{
    (void)state;
    world w;
    world_make(&w);
    myri_fabric *f = w.f;
    fab_chan *up = &f->ch[2], *down = &f->ch[3]; /* h1 -> s0, s0 -> h1 */
    assert_int_equal(myri_fab_ev_node(f, EV_F_SEND, up->id), up->src_node);
    assert_int_equal(myri_fab_ev_node(f, EV_CTRL, up->id), up->src_node);
    assert_int_equal(myri_fab_ev_node(f, EV_ARB, down->id), down->src_node);
    assert_int_equal(myri_fab_ev_node(f, EV_DECODE, up->id), up->dst_node);
    assert_int_equal(myri_fab_ev_node(f, EV_F_RXEND, down->id), down->dst_node);
    /* a cut's and a restore's halves: each run by the owner of its half */
    assert_int_equal(myri_fab_ev_node(f, EV_CUT_TX, up->id), up->src_node);
    assert_int_equal(myri_fab_ev_node(f, EV_CUT_RX, up->id), up->dst_node);
    assert_int_equal(myri_fab_ev_node(f, EV_RESTORE_TX, down->id), down->src_node);
    assert_int_equal(myri_fab_ev_node(f, EV_RESTORE_RX, down->id), down->dst_node);
    /* two callers outside a pass, in both orders: the same sequence */
    uint64_t seq[2][8];
    for (int o = 0; o < 2; o++) {
        world v;
        world_make(&v);
        for (int k = 0; k < 2; k++) {
            uint32_t ch = (k ^ o) ? 2 : 6; /* h1 -> s0 or h3 -> s0 */
            myri_fab_push(v.f, 4000, PH_SEND, EV_F_SEND, ch, ch, NULL);
            myri_fab_push(v.f, 4000, PH_SEND, EV_F_SEND, ch, ch + 100, NULL);
        }
        assert_int_equal(drain(v.f, seq[o]), 4);
        world_free(&v);
    }
    assert_memory_equal(seq[0], seq[1], 4 * sizeof seq[0][0]);
    world_free(&w);
}

/* A random script of pushes (by random nodes, at or after the last taken
 * time, into the calendar, the heap beyond it and the far heap) and takes;
 * returns the taken labels. */
static size_t run_script(myri_fabric *f, uint64_t seed, uint64_t *out)
{
    uint64_t s = seed, now = 0, label = 0;
    size_t n = 0;
    for (int step = 0; step < 3000 && n < MAXEV; step++) {
        uint64_t r = myri_splitmix64(&s);
        if (r % 3 == 0) {
            fab_ev e;
            if (myri_fab_agenda_test_take(f, &e)) {
                out[n++] = e.b;
                now = e.time;
            }
            continue;
        }
        uint64_t far = (r >> 8) % 10 == 0 ? 1000000000ull : 0; /* beyond the calendar */
        push p = {(uint32_t)((r >> 16) % 9), now + far + (r >> 24) % 4 * 1000, (fab_phase)((r >> 40) % 8),
                  (r >> 50) % 7 == 0 ? EV_TIMEOUT : EV_F_SEND, label++};
        if (p.t == now) p.t++; /* a pass's own instant goes to its FIFOs */
        push_as(f, now, &p);
    }
    n += drain(f, out + n);
    return n;
}

/* Sequence numbers started a few short of the limit: the nodes are renumbered
 * while they have events pending everywhere, and the order taken is the one
 * of unbounded numbers. */
static void test_renumbering_keeps_the_order(void **state)
{
    (void)state;
    static uint64_t a[MAXEV], b[MAXEV];
    for (uint64_t seed = 1; seed <= 20; seed++) {
        world w, v;
        world_make(&w);
        world_make(&v);
        myri_fab_agenda_test_seq_left(v.f, seed % 5 + 1);
        size_t na = run_script(w.f, seed, a), nb = run_script(v.f, seed, b);
        assert_true(v.f->nrenumber > 0);
        assert_int_equal(w.f->nrenumber, 0);
        assert_int_equal(na, nb);
        assert_memory_equal(a, b, na * sizeof a[0]);
        world_free(&w);
        world_free(&v);
    }
}

/* A whole run (STOP/GO, arbitration) with sequences near the limit gives the
 * same deliveries and the same event hash as without. */
static void test_run_with_renumbering(void **state)
{
    (void)state;
    uint64_t hash[2], nren[2];
    ft_log *logs[2];
    for (int k = 0; k < 2; k++) {
        world *w = malloc(sizeof *w);
        assert_non_null(w);
        world_make(w);
        if (k) myri_fab_agenda_test_seq_left(w->f, 3);
        uint8_t route = 0x80;
        uint64_t id = 1;
        for (uint32_t i = 0; i < 20; i++)
            for (uint32_t h = 1; h < 8; h++) {
                myri_fabric_packet pk = {.id = id++, .src_host = h, .route_len = 1, .route = &route,
                                         .type = 5, .payload_bytes = 300};
                assert_int_equal(myri_fabric_send(w->f, &pk), MYRI_OK);
            }
        myri_sim_run(w->sim, MYRI_TIME_NEVER, 0);
        hash[k] = myri_sim_hash(w->sim);
        nren[k] = w->f->nrenumber;
        logs[k] = w->log;
        w->log = NULL;
        world_free(w);
        free(w);
    }
    assert_int_equal(nren[0], 0);
    assert_true(nren[1] > 0);
    assert_int_equal(logs[0]->n, 140);
    assert_int_equal(logs[0]->n, logs[1]->n);
    assert_memory_equal(logs[0]->rec, logs[1]->rec, logs[0]->n * sizeof logs[0]->rec[0]);
    assert_int_equal(hash[0], hash[1]);
    free(logs[0]);
    free(logs[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interleavings_give_one_order),
        cmocka_unit_test(test_origin_outside_a_pass),
        cmocka_unit_test(test_renumbering_keeps_the_order),
        cmocka_unit_test(test_run_with_renumbering),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
