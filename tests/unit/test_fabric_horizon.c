/* test_fabric_horizon.c -- a fabric run executed in windows (myri_sim_run to
 * successive horizons, as the partition harness src/app/part.c does) gives
 * the same printed hash, result hash and per-unit hashes as the same run in
 * one go (issue 24 section 3, docs/PARTITION.md step 8): a delivery callback
 * made while the fabric's pass runs ahead of the engine (deferred to an
 * engine event) and one made at the engine's instant (at once, in the pass)
 * must give the destination's unit the same keys.  Where a horizon falls
 * decides which of the two a callback takes; the windows here are random
 * (seeded).  The deliberate fault (myri_fabric__set_fault 1: the old
 * deferral, scheduled and run as the unit) must be caught. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric/fabric_int.h"
#include "fabric_testlib.h"

#define NH 8                 /* the 8-port star: pairs (h, h + 4) play ping-pong */
#define PAYLOAD 64u
#define END_PS 200000000ull  /* 200 us: about a hundred round trips a pair */
#define MAXC 16

enum { EV_SEND = 1 };

typedef struct host {
    myri_component *comp;
    uint32_t h, sent;
    uint8_t route;
} host;

typedef struct world {
    myri_sim *sim;
    myri_topo *topo;
    myri_fabric *f;
    host u[NH];
    uint64_t delivered, in_pass; /* callbacks, and those made at once (in the fabric's pass) */
} world;

/* Pair p's think time before a reply: 0 (the reply at the delivery's own
 * instant: its round counts), 1 ps, 37 ns, 1.1 us. */
static const uint64_t think_ps[4] = {0, 1, 37000, 1100000};

static void h_send(host *u, myri_fabric *f)
{
    uint64_t id = (uint64_t)u->h << 32 | u->sent++;
    myri_fabric_packet pk = {.id = id, .src_host = u->h, .route_len = 1, .route = &u->route, .type = 5,
                             .payload_bytes = PAYLOAD, .dst_host = (u->h + 4) % NH, .dst_known = true};
    assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
}

static void h_handle(myri_component *self, const myri_event *ev)
{
    host *u = self->state;
    world *w = ev->ptr;
    if (ev->kind == EV_SEND) h_send(u, w->f);
}

static myri_status h_create(myri_component *self, const void *cfg)
{
    self->state = (void *)cfg;
    return MYRI_OK;
}

static const myri_component_ops h_ops = {.type = "horizonhost", .help = "", .create = h_create, .handle = h_handle};

/* The reply: the destination's unit schedules its send (the callback runs as it). */
static void w_delivered(void *ctx, const myri_fabric_delivery *d)
{
    world *w = ctx;
    host *u = &w->u[d->dst_host];
    w->delivered++;
    assert_int_equal(d->tail_ps, myri_sim_now(w->sim)); /* the receiver sees its delivery's time */
    w->in_pass += w->f->in_tick;
    myri_event e = {.target = u->comp, .kind = EV_SEND, .ptr = w};
    assert_int_not_equal(myri_sim_schedule(w->sim, myri_sim_now(w->sim) + think_ps[d->dst_host % 4], &e), 0);
}

static void w_make(world *w, int fault)
{
    memset(w, 0, sizeof *w);
    w->topo = ft_star8();
    w->sim = myri_sim_create(5);
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    myri_fabric_callbacks cb = {w_delivered, NULL, w};
    assert_int_equal(myri_fabric_create(w->sim, w->topo, &p, &cb, &w->f, NULL), MYRI_OK);
    myri_fabric__set_fault(w->f, fault);
    for (uint32_t h = 0; h < NH; h++) {
        host *u = &w->u[h];
        char name[16];
        snprintf(name, sizeof name, "h%u", h);
        u->h = h;
        u->route = (uint8_t)(0x80u | ((h + 4) % NH));
        assert_int_equal(myri_sim_add(w->sim, &h_ops, name, u, &u->comp), MYRI_OK);
        assert_int_equal(myri_fabric_set_host_unit(w->f, h, (uint32_t)u->comp->id), MYRI_OK);
        if (h < 4) { /* the pair's first ping, pairs staggered by 333 ns */
            myri_event e = {.target = u->comp, .kind = EV_SEND, .ptr = w};
            assert_int_not_equal(myri_sim_schedule(w->sim, 1000000ull + 333000ull * h, &e), 0);
        }
    }
}

/* What a run gives: the printed hash, the fabric's result hash, every unit's hash. */
typedef struct outcome {
    uint64_t hash, result_hash, delivered, nc;
    uint64_t lp[MAXC];
} outcome;

static outcome w_outcome(world *w)
{
    outcome o = {.hash = myri_sim_hash(w->sim), .delivered = w->delivered};
    myri_fabric_counters c;
    myri_fabric_get_counters(w->f, &c);
    o.result_hash = c.result_hash;
    o.nc = myri_sim_component_count(w->sim);
    assert_true(o.nc <= MAXC);
    for (size_t i = 0; i < o.nc; i++) o.lp[i] = myri_sim_lp_hash(w->sim, i);
    myri_sim_destroy(w->sim);
    myri_topo_destroy(w->topo);
    return o;
}

/* The run in one go (seed 0) or in windows of random length from 1 ps to
 * max_ps (an xorshift stream of `seed`). */
static outcome run(int fault, uint64_t seed, uint64_t max_ps, uint64_t *windows)
{
    static world w;
    w_make(&w, fault);
    uint64_t t = 0, x = seed, n = 0;
    while (seed && t < END_PS) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        t += 1 + x % max_ps;
        if (t > END_PS) t = END_PS;
        assert_int_equal(myri_sim_run(w.sim, t, 0), MYRI_OK);
        n++;
    }
    assert_int_equal(myri_sim_run(w.sim, END_PS, 0), MYRI_OK);
    if (windows) *windows = n;
    return w_outcome(&w);
}

static bool same(const outcome *a, const outcome *b)
{
    return a->hash == b->hash && a->result_hash == b->result_hash && a->delivered == b->delivered &&
           a->nc == b->nc && memcmp(a->lp, b->lp, a->nc * sizeof a->lp[0]) == 0;
}

/* Windows of at most 70 ns (the partition harness's L is 68 ns), 1 us, 10 us, 100 us. */
static const uint64_t max_window_ps[] = {70000, 1000000, 10000000, 100000000};
#define NMAX (sizeof max_window_ps / sizeof max_window_ps[0])

static void test_windows_give_the_whole_runs_hashes(void **state)
{
    (void)state;
    outcome whole = run(0, 0, 0, NULL);
    assert_true(whole.delivered > 400); /* ping-pong went on the whole run */
    for (size_t k = 0; k < NMAX; k++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            uint64_t nw = 0;
            outcome o = run(0, seed * 0x9e3779b97f4a7c15ull + k, max_window_ps[k], &nw);
            assert_true(nw >= 2);
            assert_int_equal(o.result_hash, whole.result_hash);
            assert_int_equal(o.hash, whole.hash);
            for (size_t i = 0; i < whole.nc; i++) assert_int_equal(o.lp[i], whole.lp[i]);
            assert_true(same(&o, &whole));
        }
}

/* The test sees both paths: in one go some callbacks are deferred (the
 * fabric's pass ran ahead of the engine), in windows of 70 ns some are made
 * at once (a window's end stopped the pass before their instant). */
static void test_both_callback_paths_taken(void **state)
{
    (void)state;
    static world w;
    w_make(&w, 0);
    assert_int_equal(myri_sim_run(w.sim, END_PS, 0), MYRI_OK);
    uint64_t at_once_whole = w.in_pass, n_whole = w.delivered;
    w_outcome(&w);
    w_make(&w, 0);
    for (uint64_t t = 70000; t < END_PS; t += 70000) assert_int_equal(myri_sim_run(w.sim, t, 0), MYRI_OK);
    assert_int_equal(myri_sim_run(w.sim, END_PS, 0), MYRI_OK);
    uint64_t at_once_win = w.in_pass, n_win = w.delivered;
    w_outcome(&w);
    assert_int_equal(n_whole, n_win);
    assert_true(at_once_whole < n_whole);
    assert_true(at_once_win > at_once_whole);
    print_message("callbacks made at once: %llu of %llu in one go, %llu in windows of 70 ns\n",
                  (unsigned long long)at_once_whole, (unsigned long long)n_whole, (unsigned long long)at_once_win);
}

/* The deliberate fault: the old deferral (as the unit, in its hash) makes
 * the printed hash depend on the windows, not the results. */
static void test_fault_old_deferral_caught(void **state)
{
    (void)state;
    outcome whole = run(1, 0, 0, NULL);
    size_t differ = 0;
    for (size_t k = 0; k < NMAX; k++) {
        outcome o = run(1, 7 + k, max_window_ps[k], NULL);
        assert_int_equal(o.result_hash, whole.result_hash);
        differ += !same(&o, &whole);
    }
    print_message("with the fault, %zu of %zu windowed runs differ from the whole run\n", differ, (size_t)NMAX);
    assert_true(differ >= 1);
    outcome right = run(0, 0, 0, NULL);
    assert_int_equal(right.result_hash, whole.result_hash);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_windows_give_the_whole_runs_hashes),
        cmocka_unit_test(test_both_callback_paths_taken),
        cmocka_unit_test(test_fault_old_deferral_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
