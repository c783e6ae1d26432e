/* test_partition.c -- the partitioner of a cut run (src/app/partition.c,
 * docs/PARTITION.md section 4): leaf keeps every host with its leaf switch
 * and balances hosts, random is reproducible by its seed, L is the smallest
 * lookahead of a cut cable, one partition cuts nothing, bad modes are
 * refused; and the cable's lookahead as the fabric computes it.  The window
 * loop (src/app/part.c) on a toy model whose messages do cross partitions:
 * the same result for 1-4 partitions, a message delivered 1 ps early seen,
 * a delay below L refused; the fabric's hooks: a cable cut at set-up is done
 * once, each half by its owner, and foreign or stale messages are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "app/part.h"
#include "app/partition.h"
#include "fabric/fabric.h"
#include "fabric/fabric_int.h"
#include "myri/rng.h"

static myri_topo *fat_tree(void)
{
    myri_topo_gen_params gp = {.gen = MYRI_GEN_FAT_TREE, .k = 4, .n = 3, .length_m = 10};
    myri_topo *t = NULL;
    myri_error err;
    assert_int_equal(myri_topo_generate(&gp, &t, &err), MYRI_OK);
    return t;
}

/* The lookahead of every link, as the fabric computes it (default parameters). */
static uint64_t *lookaheads(const myri_topo *t)
{
    myri_sim *sim = myri_sim_create(1);
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    myri_fabric *f = NULL;
    myri_fabric_callbacks cb = {0};
    myri_error err;
    assert_int_equal(myri_fabric_create(sim, t, &p, &cb, &f, &err), MYRI_OK);
    uint64_t *la = calloc(t->nlinks, sizeof *la);
    for (size_t l = 0; l < t->nlinks; l++) la[l] = myri_fabric_link_lookahead_ps(f, l);
    myri_sim_destroy(sim);
    return la;
}

static void test_mode_parse(void **state)
{
    (void)state;
    myri_part_mode m;
    myri_error err;
    char buf[32];
    assert_int_equal(myri_part_mode_parse("leaf", &m, &err), MYRI_OK);
    assert_int_equal(m.kind, MYRI_PART_LEAF);
    assert_int_equal(myri_part_mode_parse("block", &m, &err), MYRI_OK);
    assert_int_equal(m.kind, MYRI_PART_BLOCK);
    assert_int_equal(myri_part_mode_parse("random:17", &m, &err), MYRI_OK);
    assert_int_equal(m.kind, MYRI_PART_RANDOM);
    assert_int_equal(m.seed, 17);
    myri_part_mode_name(&m, buf, sizeof buf);
    assert_string_equal(buf, "random:17");
    const char *bad[] = {"", "leaves", "random", "random:", "random:x", "random:7x", "random:-1", "Leaf"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        myri_error_clear(&err);
        assert_int_equal(myri_part_mode_parse(bad[i], &m, &err), MYRI_EINPUT);
        assert_non_null(strstr(err.msg, "--partition"));
        assert_non_null(strstr(err.msg, "random:SEED"));
    }
}

/* The switch host node h's cable reaches. */
static uint32_t leaf_of(const myri_topo *t, uint32_t node) { return (uint32_t)t->node[node].port[0].peer_node; }

static void test_leaf_keeps_hosts_with_their_switch(void **state)
{
    (void)state;
    myri_topo *t = fat_tree(); /* 64 hosts, 4 per leaf switch */
    uint64_t *la = lookaheads(t);
    myri_part_mode m = {.kind = MYRI_PART_LEAF};
    for (uint32_t n = 1; n <= 4; n++) {
        myri_partition p;
        myri_error err;
        assert_int_equal(myri_partition_make(t, n, &m, la, &p, &err), MYRI_OK);
        uint32_t lo = UINT32_MAX, hi = 0, sum = 0;
        for (uint32_t q = 0; q < n; q++) {
            lo = p.hosts[q] < lo ? p.hosts[q] : lo;
            hi = p.hosts[q] > hi ? p.hosts[q] : hi;
            sum += p.hosts[q];
        }
        assert_int_equal(sum, 64);
        assert_true(hi - lo <= 4); /* blocks of whole leaf switches (4 hosts each) */
        for (size_t h = 0; h < t->nhosts; h++) {
            uint32_t node = t->host_node[h];
            assert_int_equal(p.owner[node], p.owner[leaf_of(t, node)]);
            assert_int_equal(p.host_owner[h], p.owner[node]);
        }
        for (size_t i = 0; i < p.ncut; i++) { /* only switch-switch cables */
            const myri_topo_link *lk = &t->link[p.cut[i]];
            assert_int_equal(t->node[lk->a_node].kind, MYRI_TOPO_SWITCH);
            assert_int_equal(t->node[lk->b_node].kind, MYRI_TOPO_SWITCH);
        }
        if (n == 1) {
            assert_int_equal(p.ncut, 0);
            assert_true(p.lookahead_ps == UINT64_MAX);
        } else {
            assert_true(p.ncut > 0);
            assert_int_equal(p.lookahead_ps, 12500 + 55594); /* every cable 10 m: T + P at 640 Mb/s */
        }
        myri_partition_free(&p);
    }
    free(la);
    myri_topo_destroy(t);
}

static void test_random_reproducible(void **state)
{
    (void)state;
    myri_topo *t = fat_tree();
    uint64_t *la = lookaheads(t);
    myri_partition a, b, c;
    myri_part_mode m1 = {.kind = MYRI_PART_RANDOM, .seed = 5}, m2 = {.kind = MYRI_PART_RANDOM, .seed = 6};
    assert_int_equal(myri_partition_make(t, 3, &m1, la, &a, NULL), MYRI_OK);
    assert_int_equal(myri_partition_make(t, 3, &m1, la, &b, NULL), MYRI_OK);
    assert_int_equal(myri_partition_make(t, 3, &m2, la, &c, NULL), MYRI_OK);
    assert_memory_equal(a.owner, b.owner, t->nnodes * sizeof *a.owner);
    assert_true(memcmp(a.owner, c.owner, t->nnodes * sizeof *a.owner) != 0);
    size_t host_cut = 0;
    for (size_t i = 0; i < a.ncut; i++)
        host_cut += t->node[t->link[a.cut[i]].a_node].kind == MYRI_TOPO_HOST ||
                    t->node[t->link[a.cut[i]].b_node].kind == MYRI_TOPO_HOST;
    assert_true(host_cut > 0); /* host cables are cut too */
    myri_partition_free(&a);
    myri_partition_free(&b);
    myri_partition_free(&c);
    free(la);
    myri_topo_destroy(t);
}

/* h0 h1 - s0 =(25 m)= s1 - h2 h3, host cables 1 m. */
static void test_lookahead_hand_made(void **state)
{
    (void)state;
    myri_topo *t = myri_topo_create();
    uint32_t h[4], s0, s1;
    const char *hn[4] = {"h0", "h1", "h2", "h3"};
    for (int i = 0; i < 4; i++) assert_int_equal(myri_topo_add_host(t, hn[i], &h[i]), MYRI_OK);
    assert_int_equal(myri_topo_add_switch(t, "s0", 4, &s0), MYRI_OK);
    assert_int_equal(myri_topo_add_switch(t, "s1", 4, &s1), MYRI_OK);
    for (uint32_t i = 0; i < 2; i++) {
        assert_int_equal(myri_topo_connect(t, h[i], 0, s0, i, 1.0, NULL), MYRI_OK);
        assert_int_equal(myri_topo_connect(t, h[2 + i], 0, s1, i, 1.0, NULL), MYRI_OK);
    }
    uint32_t mid;
    assert_int_equal(myri_topo_connect(t, s0, 3, s1, 3, 25.0, &mid), MYRI_OK);
    uint64_t *la = lookaheads(t);
    /* PARTITION.md section 2's table at 640 Mb/s (T 12.5 ns < ctrl_delay 25 ns: L_c = T + P_c) */
    assert_int_equal(la[mid], 151485);
    assert_int_equal(la[0], 18059);
    myri_part_mode leaf = {.kind = MYRI_PART_LEAF}, block = {.kind = MYRI_PART_BLOCK};
    myri_partition p;
    assert_int_equal(myri_partition_make(t, 2, &leaf, la, &p, NULL), MYRI_OK);
    assert_int_equal(p.ncut, 1);
    assert_int_equal(p.cut[0], mid);
    assert_int_equal(p.lookahead_ps, 151485); /* the 1 m host cables are not cut */
    assert_int_equal(p.hosts[0], 2);
    assert_int_equal(p.hosts[1], 2);
    assert_int_equal(p.nodes[0], 3);
    myri_partition_free(&p);
    /* block: nodes 0-2 (h0 h1 h2) and 3-5 (h3 s0 s1): host cables cut, L the 1 m one */
    assert_int_equal(myri_partition_make(t, 2, &block, la, &p, NULL), MYRI_OK);
    assert_int_equal(p.ncut, 3);
    assert_int_equal(p.lookahead_ps, 18059);
    myri_partition_free(&p);
    myri_error err;
    myri_error_clear(&err);
    assert_int_equal(myri_partition_make(t, 0, &leaf, la, &p, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "--partitions"));
    assert_int_equal(myri_partition_make(t, MYRI_PART_MAX + 1, &leaf, la, &p, &err), MYRI_EINPUT);
    free(la);
    myri_topo_destroy(t);
}

/* ---- the window loop and the exchange (src/app/part.c) on a toy model ----------------
 * K units in a ring; each event of unit u at t mixes (t, key) into u's hash and
 * makes one event of unit u + 1 at t + L + (0..999) ps, keyed (u, u's count),
 * inserted at once when u + 1 is in the same partition, else posted as a
 * message.  Every key is the unit's own, so the events run in the same order
 * however the ring is cut: the hashes must be the same for 1..4 partitions. */
#define TOY_K 8
#define TOY_L 1000
#define TOY_MAXQ 64

typedef struct toy_ev {
    uint64_t t, order;
    uint32_t unit;
} toy_ev;

typedef struct toy {
    uint32_t n;             /* partitions */
    uint32_t owner[TOY_K];
    toy_ev q[MYRI_PART_MAX][TOY_MAXQ];
    size_t nq[MYRI_PART_MAX];
    uint64_t now[MYRI_PART_MAX];
    uint64_t hash[TOY_K], seq[TOY_K];
    myri_part *h;
    bool short_delay;       /* unit 3 sends with delay L / 2 (a broken lookahead) */
} toy;

static uint64_t toy_mix(uint64_t x)
{
    return myri_splitmix64(&x);
}

static void toy_put(toy *w, uint32_t q, toy_ev e)
{
    assert_true(w->nq[q] < TOY_MAXQ);
    w->q[q][w->nq[q]++] = e;
}

static myri_time_ps toy_next(void *ctx, uint32_t q)
{
    toy *w = ctx;
    myri_time_ps t = MYRI_TIME_NEVER;
    for (size_t i = 0; i < w->nq[q]; i++)
        if (w->q[q][i].t < t) t = w->q[q][i].t;
    return t;
}

static myri_status toy_run(void *ctx, uint32_t q, myri_time_ps last)
{
    toy *w = ctx;
    for (;;) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < w->nq[q]; i++) {
            const toy_ev *e = &w->q[q][i];
            if (e->t > last) continue;
            if (best == SIZE_MAX || e->t < w->q[q][best].t || (e->t == w->q[q][best].t && e->order < w->q[q][best].order))
                best = i;
        }
        if (best == SIZE_MAX) break;
        toy_ev e = w->q[q][best];
        w->q[q][best] = w->q[q][--w->nq[q]];
        w->now[q] = e.t;
        uint32_t u = e.unit, v = (u + 1) % TOY_K;
        w->hash[u] = toy_mix(w->hash[u] ^ toy_mix(e.t * 31 + e.order));
        uint64_t d = TOY_L + w->hash[u] % 1000;
        if (w->short_delay && u == TOY_K / 2 - 1) d = TOY_L / 2; /* 3 -> 4 crosses at n = 2 */
        toy_ev next = {e.t + d, ((uint64_t)u << 32) | ++w->seq[u], v};
        if (w->owner[v] == q) {
            toy_put(w, q, next);
        } else {
            myri_fabric_msg m = {.time_ps = next.t, .order = next.order, .dst_node = v};
            myri_part_post(w->h, &m);
        }
    }
    w->now[q] = last;
    return MYRI_OK;
}

static myri_status toy_take(void *ctx, uint32_t q, const myri_fabric_msg *m)
{
    toy *w = ctx;
    if (w->owner[m->dst_node] != q || m->time_ps <= w->now[q]) return MYRI_EINVAL;
    toy_put(w, q, (toy_ev){m->time_ps, m->order, m->dst_node});
    return MYRI_OK;
}

static const myri_part_ops toy_ops = {toy_next, toy_run, toy_take, NULL};

/* Runs the ring cut into n partitions (units in blocks) to 2 ms; the sum of
 * the units' hashes, or 0 with *st the harness's status. */
static uint64_t toy_go(uint32_t n, myri_time_ps early_ps, bool short_delay, myri_part_stats *ps, myri_status *st)
{
    toy *w = calloc(1, sizeof *w);
    w->n = n;
    w->short_delay = short_delay;
    for (uint32_t u = 0; u < TOY_K; u++) w->owner[u] = u * n / TOY_K;
    for (uint32_t u = 0; u < TOY_K; u++) toy_put(w, w->owner[u], (toy_ev){u * 7, (uint64_t)u << 32, u});
    /* a message crosses from u to u + 1 with delay >= L: the lookahead of every cut */
    w->h = myri_part_create(n, w->owner, n > 1 ? TOY_L : UINT64_MAX, &toy_ops, w);
    assert_non_null(w->h);
    myri_part__test_fault(w->h, early_ps);
    myri_error err;
    myri_error_clear(&err);
    *st = myri_part_run(w->h, 2000000, &err);
    if (*st) assert_non_null(strstr(err.msg, "t="));
    uint64_t sum = 0;
    for (uint32_t u = 0; u < TOY_K; u++) sum += w->hash[u];
    if (ps) myri_part_get_stats(w->h, ps);
    myri_part_destroy(w->h);
    free(w);
    return *st ? 0 : sum;
}

static void test_harness_same_result_whatever_the_cut(void **state)
{
    (void)state;
    myri_status st;
    myri_part_stats ps;
    uint64_t one = toy_go(1, 0, false, &ps, &st);
    assert_int_equal(st, MYRI_OK);
    assert_int_equal(ps.windows, 1); /* nothing cut: one window to the end */
    assert_int_equal(ps.messages, 0);
    for (uint32_t n = 2; n <= 4; n++) {
        assert_true(toy_go(n, 0, false, &ps, &st) == one);
        assert_int_equal(st, MYRI_OK);
        assert_true(ps.windows > 100);
        assert_true(ps.messages > 100); /* the messages really crossed */
        assert_true(ps.max_window_messages >= 1);
    }
}

/* The deliberate fault: a message delivered one ps early changes the result
 * (or is refused): the check above can fail. */
static void test_harness_fault_is_seen(void **state)
{
    (void)state;
    myri_status st;
    uint64_t one = toy_go(1, 0, false, NULL, &st);
    for (uint32_t n = 2; n <= 4; n++) {
        uint64_t bad = toy_go(n, 1, false, NULL, &st);
        assert_true(st != MYRI_OK || bad != one);
    }
}

/* A message for a time before its window's end (a delay of L / 2) stops the run. */
static void test_harness_refuses_short_delay(void **state)
{
    (void)state;
    myri_status st;
    toy_go(2, 0, true, NULL, &st);
    assert_int_equal(st, MYRI_ESTATE);
}

/* ---- the fabric's hooks ----------------------------------------------------------------
 * Two partitions of h0 h1 - s0 =(25 m)= s1 - h2 h3, cut at the s0-s1 cable:
 * a cable cut scheduled at set-up in both (as every partition makes the same
 * set-up calls) is done once, each half by its owner's fabric (section 2 row
 * 11: the sender's `down`, the receiver's `rx_down`), as in the whole run;
 * a fabric takes no message for another's node, nor one not after its clock. */
typedef struct two {
    myri_sim *sim[2];
    myri_fabric *f[2];
} two;

static myri_time_ps two_next(void *ctx, uint32_t q) { return myri_sim_next_time(((two *)ctx)->sim[q]); }
static myri_status two_run(void *ctx, uint32_t q, myri_time_ps last) { return myri_sim_run(((two *)ctx)->sim[q], last, 0); }
static myri_status two_take(void *ctx, uint32_t q, const myri_fabric_msg *m) { return myri_fabric_take_msg(((two *)ctx)->f[q], m); }
static const myri_part_ops two_ops = {two_next, two_run, two_take, NULL};

static myri_topo *two_leaves(uint32_t *mid)
{
    myri_topo *t = myri_topo_create();
    uint32_t h[4], s0, s1;
    const char *hn[4] = {"h0", "h1", "h2", "h3"};
    for (int i = 0; i < 4; i++) assert_int_equal(myri_topo_add_host(t, hn[i], &h[i]), MYRI_OK);
    assert_int_equal(myri_topo_add_switch(t, "s0", 4, &s0), MYRI_OK);
    assert_int_equal(myri_topo_add_switch(t, "s1", 4, &s1), MYRI_OK);
    for (uint32_t i = 0; i < 2; i++) {
        assert_int_equal(myri_topo_connect(t, h[i], 0, s0, i, 1.0, NULL), MYRI_OK);
        assert_int_equal(myri_topo_connect(t, h[2 + i], 0, s1, i, 1.0, NULL), MYRI_OK);
    }
    assert_int_equal(myri_topo_connect(t, s0, 3, s1, 3, 25.0, mid), MYRI_OK);
    return t;
}

static void test_fabric_halves_stay_with_their_owner(void **state)
{
    (void)state;
    uint32_t mid;
    myri_topo *t = two_leaves(&mid);
    uint64_t *la = lookaheads(t);
    myri_part_mode leaf = {.kind = MYRI_PART_LEAF};
    myri_partition p;
    assert_int_equal(myri_partition_make(t, 2, &leaf, la, &p, NULL), MYRI_OK);
    myri_fabric_params fp;
    myri_fabric_params_default(&fp);
    myri_fabric_callbacks cb = {0};
    two w;
    myri_part *h = myri_part_create(2, p.owner, p.lookahead_ps, &two_ops, &w);
    assert_non_null(h);
    for (uint32_t q = 0; q < 2; q++) {
        w.sim[q] = myri_sim_create(1);
        assert_int_equal(myri_fabric_create(w.sim[q], t, &fp, &cb, &w.f[q], NULL), MYRI_OK);
        assert_int_equal(myri_fabric_set_partition(w.f[q], p.owner, q, myri_part_post, h), MYRI_OK);
        assert_int_equal(myri_fabric_cut_link(w.f[q], mid, 1000000), MYRI_OK); /* at 1 us, in both */
        myri_fabric_partition_live(w.f[q]);
    }
    myri_error err;
    assert_int_equal(myri_part_run(h, 3000000, &err), MYRI_OK);
    myri_part_stats ps;
    myri_part_get_stats(h, &ps);
    assert_int_equal(ps.messages, 0);
    const fab_chan *ab[2] = {&w.f[0]->ch[2 * mid], &w.f[1]->ch[2 * mid]};         /* s0 -> s1 */
    const fab_chan *ba[2] = {&w.f[0]->ch[2 * mid + 1], &w.f[1]->ch[2 * mid + 1]}; /* s1 -> s0 */
    assert_true(ab[0]->part_cut && ba[1]->part_cut);
    assert_true(ab[0]->down && !ab[0]->rx_down && !ba[0]->down && ba[0]->rx_down);  /* s0's halves */
    assert_true(!ab[1]->down && ab[1]->rx_down && ba[1]->down && !ba[1]->rx_down);  /* s1's halves */
    assert_false(w.f[0]->ch[0].part_cut); /* h0 - s0: not cut */
    /* messages: only for an owned node, after the clock, with a key of its own */
    myri_fabric_msg m = {.time_ps = 5000000, .order = 0, .dst_node = ab[0]->dst_node, .kind = 0,
                         .a = (uint32_t)(2 * mid)};
    assert_int_equal(myri_fabric_take_msg(w.f[0], &m), MYRI_EINVAL); /* s1 is partition 1's */
    m.time_ps = myri_sim_now(w.sim[1]);
    assert_int_equal(myri_fabric_take_msg(w.f[1], &m), MYRI_EINVAL); /* not after its clock */
    m.time_ps = 5000000;
    m.order = 7; /* slot bits: not a key a fabric gives */
    assert_int_equal(myri_fabric_take_msg(w.f[1], &m), MYRI_EINVAL);
    myri_part_destroy(h);
    for (uint32_t q = 0; q < 2; q++) myri_sim_destroy(w.sim[q]);
    /* the whole run does the four halves in one fabric */
    myri_sim *sim = myri_sim_create(1);
    myri_fabric *f = NULL;
    assert_int_equal(myri_fabric_create(sim, t, &fp, &cb, &f, NULL), MYRI_OK);
    assert_int_equal(myri_fabric_cut_link(f, mid, 1000000), MYRI_OK);
    myri_sim_run(sim, 3000000, 0);
    assert_true(f->ch[2 * mid].down && f->ch[2 * mid].rx_down && f->ch[2 * mid + 1].down && f->ch[2 * mid + 1].rx_down);
    myri_sim_destroy(sim);
    myri_partition_free(&p);
    free(la);
    myri_topo_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mode_parse),
        cmocka_unit_test(test_leaf_keeps_hosts_with_their_switch),
        cmocka_unit_test(test_random_reproducible),
        cmocka_unit_test(test_lookahead_hand_made),
        cmocka_unit_test(test_harness_same_result_whatever_the_cut),
        cmocka_unit_test(test_harness_fault_is_seen),
        cmocka_unit_test(test_harness_refuses_short_delay),
        cmocka_unit_test(test_fabric_halves_stay_with_their_owner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
