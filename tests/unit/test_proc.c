/* test_proc.c -- processes (coroutines in simulated time): ping-pong through
 * wake/wait with exact times; the order of a resumption among ordinary
 * events at the same time; wait time-outs; 1000 processes sleeping random
 * delays against a reference computed without coroutines; processes freed
 * while suspended; misuse codes; deep recursion and longjmp on a process's
 * stack (the ASan build checks the fiber annotations). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "myri/proc.h"
#include "myri/sim.h"

#define NS MYRI_PS_PER_NS

/* A log of (time, who) pairs shared by processes and probe events. */
typedef struct plog {
    uint64_t t[64];
    int who[64];
    size_t n;
} plog;

static void plog_add(plog *l, uint64_t t, int who)
{
    if (l->n < 64) {
        l->t[l->n] = t;
        l->who[l->n] = who;
        l->n++;
    }
}

/* A probe component: an event of kind K logs (now, K) and, for arg32 == 1,
 * wakes the process in ev->ptr; arg32 == 2 schedules kind arg at time 100 ns. */
static void probe_handle(myri_component *self, const myri_event *ev)
{
    plog *l = self->state;
    plog_add(l, ev->time_ps, (int)ev->kind);
    if (ev->arg32 == 1) assert_int_equal(myri_proc_wake(ev->ptr), MYRI_OK);
    if (ev->arg32 == 2) {
        myri_event e = {.target = self, .kind = (uint32_t)ev->arg};
        assert_true(myri_sim_schedule(self->sim, 100 * NS, &e) != 0);
    }
}

static myri_status probe_create(myri_component *self, const void *config)
{
    self->state = (void *)config;
    return MYRI_OK;
}

static const myri_component_ops probe_ops = {.type = "probe", .create = probe_create, .handle = probe_handle};

/* ---- ping-pong ------------------------------------------------------------------ */
typedef struct pingpong {
    myri_proc *a, *b;
    plog log;
    myri_status bad;
} pingpong;

static void ping(myri_proc *p, void *arg)
{
    pingpong *pp = arg;
    for (int i = 0; i < 3; i++) {
        myri_proc_sleep(p, 10 * NS);
        plog_add(&pp->log, myri_proc_now(p), 'A');
        myri_proc_wake(pp->b);
        myri_status st = myri_proc_wait(p, MYRI_TIME_NEVER);
        if (st != MYRI_OK) pp->bad = st;
    }
}

static void pong(myri_proc *p, void *arg)
{
    pingpong *pp = arg;
    for (;;) { /* never finishes: freed at destroy */
        myri_status st = myri_proc_wait(p, MYRI_TIME_NEVER);
        if (st != MYRI_OK) pp->bad = st;
        plog_add(&pp->log, myri_proc_now(p), 'B');
        myri_proc_sleep(p, 5 * NS);
        myri_proc_wake(pp->a);
    }
}

static void test_pingpong(void **state)
{
    (void)state;
    myri_sim *sim = myri_sim_create(1);
    pingpong pp = {0};
    pp.a = myri_proc_create(sim, "a", ping, &pp, 0);
    pp.b = myri_proc_create(sim, "b", pong, &pp, 0);
    assert_non_null(pp.a);
    assert_non_null(pp.b);
    assert_int_equal(myri_proc_start(pp.b, 0), MYRI_OK);
    assert_int_equal(myri_proc_start(pp.a, 0), MYRI_OK);
    assert_int_equal(myri_sim_run(sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    const uint64_t t[] = {10, 10, 25, 25, 40, 40};
    const int who[] = {'A', 'B', 'A', 'B', 'A', 'B'};
    assert_int_equal(pp.log.n, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(pp.log.t[i], t[i] * NS);
        assert_int_equal(pp.log.who[i], who[i]);
    }
    assert_int_equal(pp.bad, MYRI_OK);
    assert_true(myri_proc_done(pp.a));
    assert_false(myri_proc_done(pp.b));
    assert_int_equal(myri_sim_pending(sim), 0);
    assert_int_equal(myri_sim_now(sim), 45 * NS);
    myri_sim_destroy(sim); /* b is still waiting */
}

/* ---- order at the same time -------------------------------------------------------- */
static void sleeper(myri_proc *p, void *arg)
{
    myri_proc_sleep(p, 100 * NS);
    plog_add(arg, myri_proc_now(p), 'P');
}

/* A resumption is an ordinary event scheduled when the process yields, by
 * the process: at 100 ns the events scheduled by the probe (a lower logical
 * process, created first) run before it, in the order the probe scheduled
 * them, whether before the sleep began ('E', set-up) or after ('L', from the
 * probe's event at 50 ns) (docs/ENGINE.md "Time and order"). */
static void test_same_time_order(void **state)
{
    (void)state;
    myri_sim *sim = myri_sim_create(1);
    plog log = {0};
    myri_component *probe = NULL;
    assert_int_equal(myri_sim_add(sim, &probe_ops, "probe", &log, &probe), MYRI_OK);
    myri_event early = {.target = probe, .kind = 'E'};
    assert_true(myri_sim_schedule(sim, 100 * NS, &early) != 0);
    myri_proc *p = myri_proc_create(sim, "p", sleeper, &log, 0);
    assert_int_equal(myri_proc_start(p, 0), MYRI_OK);
    myri_event later = {.target = probe, .kind = 'S', .arg32 = 2, .arg = 'L'}; /* schedules 'L' at 100 */
    assert_true(myri_sim_schedule(sim, 50 * NS, &later) != 0);
    assert_int_equal(myri_sim_run(sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    const int who[] = {'S', 'E', 'L', 'P'};
    const uint64_t t[] = {50, 100, 100, 100};
    assert_int_equal(log.n, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(log.who[i], who[i]);
        assert_int_equal(log.t[i], t[i] * NS);
    }
    assert_true(myri_proc_done(p));
    myri_sim_destroy(sim);
}

/* ---- wait with a time limit ------------------------------------------------------------ */
typedef struct waiter {
    myri_status st[4];
    uint64_t t[4];
} waiter;

static void waiting(myri_proc *p, void *arg)
{
    waiter *w = arg;
    for (int i = 0; i < 4; i++) {
        w->st[i] = myri_proc_wait(p, 1000 * NS);
        w->t[i] = myri_proc_now(p);
    }
}

static void test_wait_timeout(void **state)
{
    (void)state;
    myri_sim *sim = myri_sim_create(1);
    plog log = {0};
    waiter w = {0};
    myri_component *probe = NULL;
    assert_int_equal(myri_sim_add(sim, &probe_ops, "probe", &log, &probe), MYRI_OK);
    myri_proc *p = myri_proc_create(sim, "w", waiting, &w, 0);
    assert_int_equal(myri_proc_start(p, 0), MYRI_OK);
    /* 1: times out at 1000 ns.  2: woken at 1500 ns.  3: a wake at 2200 ns
     * and one more at 2200 ns (coalesced): 2200.  4: the second wake was not
     * kept (the process was waiting): times out at 3200 ns. */
    myri_event wake = {.target = probe, .kind = 'W', .arg32 = 1, .ptr = p};
    assert_true(myri_sim_schedule(sim, 1500 * NS, &wake) != 0);
    assert_true(myri_sim_schedule(sim, 2200 * NS, &wake) != 0);
    assert_true(myri_sim_schedule(sim, 2200 * NS, &wake) != 0);
    assert_int_equal(myri_sim_run(sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    const myri_status st[] = {MYRI_ETIMEDOUT, MYRI_OK, MYRI_OK, MYRI_ETIMEDOUT};
    const uint64_t t[] = {1000, 1500, 2200, 3200};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(w.st[i], st[i]);
        assert_int_equal(w.t[i], t[i] * NS);
    }
    assert_true(myri_proc_done(p));
    assert_int_equal(myri_sim_pending(sim), 0);
    assert_int_equal(myri_proc_wake(p), MYRI_ESTATE);
    assert_string_equal(myri_strerror(MYRI_ETIMEDOUT), "timed out");
    myri_sim_destroy(sim);
}

/* A wake at the very time of the time-out, but after the time-out event in
 * the (time, sequence) order: the wait times out and the wake is kept for the
 * next wait, which returns at once. */
static void test_wake_timeout_tie(void **state)
{
    (void)state;
    myri_sim *sim = myri_sim_create(1);
    plog log = {0};
    waiter w = {0};
    myri_component *probe = NULL;
    assert_int_equal(myri_sim_add(sim, &probe_ops, "probe", &log, &probe), MYRI_OK);
    myri_proc *p = myri_proc_create(sim, "w", waiting, &w, 0);
    myri_event wake = {.target = probe, .kind = 'W', .arg32 = 1, .ptr = p};
    assert_true(myri_sim_schedule(sim, 1000 * NS, &wake) != 0); /* before the time-out event */
    assert_int_equal(myri_proc_start(p, 0), MYRI_OK);
    assert_int_equal(myri_sim_run(sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    const myri_status st[] = {MYRI_ETIMEDOUT, MYRI_OK, MYRI_ETIMEDOUT, MYRI_ETIMEDOUT};
    const uint64_t t[] = {1000, 1000, 2000, 3000};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(w.st[i], st[i]);
        assert_int_equal(w.t[i], t[i] * NS);
    }
    myri_sim_destroy(sim);
}

/* A wake before the wait is kept: the wait returns at once. */
static void early_wake(myri_proc *p, void *arg)
{
    waiter *w = arg;
    w->st[0] = myri_proc_wake(p);
    w->st[1] = myri_proc_wait(p, 10 * NS);
    w->t[1] = myri_proc_now(p);
    w->st[2] = myri_proc_wait(p, 10 * NS);
    w->t[2] = myri_proc_now(p);
}

static void test_wake_kept(void **state)
{
    (void)state;
    myri_sim *sim = myri_sim_create(1);
    waiter w = {0};
    myri_proc *p = myri_proc_create(sim, "w", early_wake, &w, 0);
    assert_int_equal(myri_proc_start(p, 7), MYRI_OK);
    myri_sim_run(sim, MYRI_TIME_NEVER, 0);
    assert_int_equal(w.st[0], MYRI_OK);
    assert_int_equal(w.st[1], MYRI_OK);
    assert_int_equal(w.t[1], 7);
    assert_int_equal(w.st[2], MYRI_ETIMEDOUT);
    assert_int_equal(w.t[2], 7 + 10 * NS);
    myri_sim_destroy(sim);
}

/* ---- 1000 processes against a reference -------------------------------------------------- */
#define NPROC 1000
#define STEPS 20
#define MAX_REC (NPROC * STEPS)

typedef struct rec_log {
    uint64_t t[MAX_REC];
    uint32_t who[MAX_REC];
    size_t n;
} rec_log;

typedef struct many {
    rec_log *log;
    uint32_t index;
} many;

static myri_time_ps draw_delay(myri_rng *r) { return myri_rng_below(r, 40) * NS; } /* many ties */

static void random_sleeper(myri_proc *p, void *arg)
{
    many *m = arg;
    for (int k = 0; k < STEPS; k++) {
        myri_proc_sleep(p, draw_delay(myri_proc_rng(p)));
        m->log->t[m->log->n] = myri_proc_now(p);
        m->log->who[m->log->n++] = m->index;
    }
}

static uint64_t run_many(uint64_t seed, rec_log *log)
{
    myri_sim *sim = myri_sim_create(seed);
    static many m[NPROC];
    for (uint32_t i = 0; i < NPROC; i++) {
        char name[32];
        snprintf(name, sizeof name, "host%u", (unsigned)i);
        m[i] = (many){.log = log, .index = i};
        myri_proc *p = myri_proc_create(sim, name, random_sleeper, &m[i], 64 * 1024);
        assert_non_null(p);
        assert_int_equal(myri_proc_start(p, 0), MYRI_OK);
    }
    assert_int_equal(myri_sim_run(sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    uint64_t h = myri_sim_hash(sim);
    myri_sim_destroy(sim);
    return h;
}

/* The reference: a flat list of pending (time, round, process, seq) scanned
 * for the least, the engine's order (docs/ENGINE.md "Time and order"): each
 * process schedules its own resumptions, one at a time, so its component id
 * (= its index) is the logical process, and a sleep of 0 is a round later; a
 * process's step draws its next delay from a stream regenerated by name
 * (myri_rng_named). */
typedef struct ref_ent {
    uint64_t t, round, seq;
    uint32_t who;
} ref_ent;

static bool ref_before(const ref_ent *a, const ref_ent *b)
{
    if (a->t != b->t) return a->t < b->t;
    if (a->round != b->round) return a->round < b->round;
    if (a->who != b->who) return a->who < b->who;
    return a->seq < b->seq;
}

static void reference(uint64_t seed, rec_log *log)
{
    static ref_ent pend[NPROC];
    static myri_rng rng[NPROC];
    static int step[NPROC];
    uint64_t seq = 0;
    for (uint32_t i = 0; i < NPROC; i++) {
        char name[32];
        snprintf(name, sizeof name, "host%u", (unsigned)i);
        myri_rng_named(&rng[i], seed, name, 0);
        pend[i] = (ref_ent){.t = 0, .seq = seq++, .who = i};
        step[i] = -1; /* the start */
    }
    size_t n = NPROC;
    while (n > 0) {
        size_t best = 0;
        for (size_t j = 1; j < n; j++)
            if (ref_before(&pend[j], &pend[best])) best = j;
        ref_ent e = pend[best];
        pend[best] = pend[--n];
        if (step[e.who] >= 0) {
            log->t[log->n] = e.t;
            log->who[log->n++] = e.who;
        }
        if (++step[e.who] < STEPS) {
            myri_time_ps d = draw_delay(&rng[e.who]);
            pend[n++] = (ref_ent){.t = e.t + d, .round = d ? 0 : e.round + 1, .seq = seq++, .who = e.who};
        }
    }
}

static void test_many_reference(void **state)
{
    (void)state;
    rec_log *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b), *r = calloc(1, sizeof *r);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(r);
    uint64_t h1 = run_many(42, a);
    uint64_t h2 = run_many(42, b);
    reference(42, r);
    assert_int_equal(a->n, MAX_REC);
    assert_int_equal(r->n, MAX_REC);
    size_t ties = 0;
    for (size_t i = 0; i < MAX_REC; i++) {
        assert_int_equal(a->t[i], r->t[i]);
        assert_int_equal(a->who[i], r->who[i]);
        if (i > 0 && a->t[i] == a->t[i - 1]) ties++;
    }
    assert_true(ties > MAX_REC / 2); /* the order of ties was tested */
    assert_int_equal(h1, h2);
    assert_memory_equal(a->t, b->t, sizeof a->t);
    assert_memory_equal(a->who, b->who, sizeof a->who);
    rec_log *c = calloc(1, sizeof *c);
    assert_non_null(c);
    assert_true(run_many(43, c) != h1); /* another seed, another run */
    free(a);
    free(b);
    free(c);
    free(r);
}

/* ---- destroyed while suspended ------------------------------------------------------------ */
static void forever(myri_proc *p, void *arg)
{
    (void)arg;
    char *buf = NULL; /* frames on the stack only: nothing to leak */
    char local[256];
    memset(local, 1, sizeof local);
    buf = local;
    for (;;) {
        myri_proc_wait(p, MYRI_TIME_NEVER);
        buf[0]++;
    }
}

static void long_sleep(myri_proc *p, void *arg)
{
    (void)arg;
    myri_proc_sleep(p, MYRI_TIME_NEVER);
}

static void test_destroy_suspended(void **state)
{
    (void)state;
    myri_sim *sim = myri_sim_create(1);
    myri_proc *a = myri_proc_create(sim, "forever", forever, NULL, 0);
    myri_proc *b = myri_proc_create(sim, "sleeper", long_sleep, NULL, 0);
    myri_proc *c = myri_proc_create(sim, "never-started", forever, NULL, 0);
    myri_proc *d = myri_proc_create(sim, "starting", forever, NULL, 0);
    assert_non_null(c);
    assert_int_equal(myri_proc_start(a, 0), MYRI_OK);
    assert_int_equal(myri_proc_start(b, 0), MYRI_OK);
    assert_int_equal(myri_proc_start(d, 1000 * NS), MYRI_OK);
    assert_int_equal(myri_sim_run(sim, 10 * NS, 0), MYRI_OK);
    assert_false(myri_proc_done(a));
    assert_false(myri_proc_done(b));
    assert_int_equal(myri_sim_component_count(sim), 4);
    assert_string_equal(myri_proc_name(b), "sleeper");
    assert_ptr_equal(myri_proc_component(b), myri_sim_component(sim, 1));
    myri_sim_destroy(sim); /* LeakSanitizer checks the rest */
}

/* ---- misuse ---------------------------------------------------------------------------- */
typedef struct misuse {
    myri_proc *other;
    myri_status sleep_other, wait_other, start_self;
    bool running_inside;
} misuse;

static void misuser(myri_proc *p, void *arg)
{
    misuse *m = arg;
    m->running_inside = myri_proc_running(p);
    m->sleep_other = myri_proc_sleep(m->other, 1);
    m->wait_other = myri_proc_wait(m->other, 1);
    m->start_self = myri_proc_start(p, myri_proc_now(p));
}

static void nothing(myri_proc *p, void *arg)
{
    (void)p;
    (void)arg;
}

static void test_misuse(void **state)
{
    (void)state;
    myri_sim *sim = myri_sim_create(1);
    assert_null(myri_proc_create(NULL, "x", nothing, NULL, 0));
    assert_null(myri_proc_create(sim, NULL, nothing, NULL, 0));
    assert_null(myri_proc_create(sim, "x", NULL, NULL, 0));
    assert_null(myri_proc_create(sim, "x", nothing, NULL, SIZE_MAX));
    assert_int_equal(myri_proc_start(NULL, 0), MYRI_EINVAL);
    assert_int_equal(myri_proc_sleep(NULL, 0), MYRI_EINVAL);
    assert_int_equal(myri_proc_wait(NULL, 0), MYRI_EINVAL);
    assert_int_equal(myri_proc_wake(NULL), MYRI_EINVAL);
    assert_int_equal(myri_proc_now(NULL), 0);
    assert_false(myri_proc_done(NULL));
    assert_null(myri_proc_rng(NULL));
    assert_null(myri_proc_name(NULL));

    misuse m = {0};
    myri_proc *other = myri_proc_create(sim, "other", nothing, NULL, 0);
    myri_proc *p = myri_proc_create(sim, "p", misuser, &m, 1); /* raised to the minimum */
    m.other = other;
    assert_int_equal(myri_proc_sleep(p, 1), MYRI_ESTATE); /* from outside */
    assert_int_equal(myri_proc_wait(p, 1), MYRI_ESTATE);
    assert_false(myri_proc_running(p));
    assert_int_equal(myri_proc_start(p, 5), MYRI_OK);
    assert_int_equal(myri_proc_start(p, 5), MYRI_ESTATE); /* twice */
    assert_int_equal(myri_proc_start(other, 0), MYRI_OK);
    assert_int_equal(myri_sim_run(sim, 3, 0), MYRI_OK);
    assert_int_equal(myri_proc_start(other, 2), MYRI_ESTATE);
    myri_proc *late = myri_proc_create(sim, "late", nothing, NULL, 0);
    assert_int_equal(myri_proc_start(late, 2), MYRI_EINVAL); /* in the past */
    assert_int_equal(myri_sim_run(sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    assert_true(m.running_inside);
    assert_int_equal(m.sleep_other, MYRI_ESTATE);
    assert_int_equal(m.wait_other, MYRI_ESTATE);
    assert_int_equal(m.start_self, MYRI_ESTATE);
    assert_true(myri_proc_done(p));
    assert_true(myri_proc_done(other));
    assert_int_equal(myri_proc_wake(p), MYRI_ESTATE); /* finished */
    assert_int_equal(myri_proc_sleep(p, 1), MYRI_ESTATE);
    assert_int_equal(myri_proc_wait(p, 1), MYRI_ESTATE);
    assert_int_equal(myri_proc_wake(late), MYRI_OK); /* kept for its first wait */
    myri_sim_destroy(sim);
}

/* ---- a deep recursion on the process's stack ---------------------------------------------- */
typedef struct deep {
    jmp_buf jb;
    uint64_t sum;
    unsigned big;
    int jumped;
} deep;

static uint64_t recurse(deep *d, int depth)
{
    volatile unsigned char frame[1024];
    for (size_t i = 0; i < sizeof frame; i += 64) frame[i] = (unsigned char)(depth + (int)i);
    if (depth == 0) {
        if (!d->jumped) {
            d->jumped = 1;
            longjmp(d->jb, 1); /* a no-return unwind on the process's stack */
        }
        return frame[0];
    }
    uint64_t s = recurse(d, depth - 1);
    return s + frame[64];
}

/* One large frame over the region the abandoned frames of the longjmp used:
 * if ASan had not unpoisoned their redzones (no fiber annotations), the
 * memset would be reported as a stack-buffer-overflow. */
static unsigned big_frame(void)
{
    char buf[200 * 1024];
    memset(buf, 7, sizeof buf);
    volatile char *v = buf;
    return (unsigned)v[sizeof buf - 1] + (unsigned)v[0];
}

static void deep_proc(myri_proc *p, void *arg)
{
    deep *d = arg;
    if (setjmp(d->jb) == 0) recurse(d, 300);
    d->big = big_frame();
    myri_proc_sleep(p, 1);
    d->sum = recurse(d, 400); /* about 400 KiB of a 1 MiB stack */
    myri_proc_sleep(p, 1);
}

static void test_deep_recursion(void **state)
{
    (void)state;
    myri_sim *sim = myri_sim_create(1);
    deep *d = calloc(1, sizeof *d);
    assert_non_null(d);
    myri_proc *p = myri_proc_create(sim, "deep", deep_proc, d, 1024 * 1024);
    assert_int_equal(myri_proc_start(p, 0), MYRI_OK);
    assert_int_equal(myri_sim_run(sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    assert_true(myri_proc_done(p));
    uint64_t want = 0;
    for (int depth = 0; depth <= 400; depth++) want += (unsigned char)(depth + (depth ? 64 : 0));
    assert_int_equal(d->sum, want);
    assert_int_equal(d->big, 14);
    assert_int_equal(myri_sim_now(sim), 2);
    free(d);
    myri_sim_destroy(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pingpong),       cmocka_unit_test(test_same_time_order),
        cmocka_unit_test(test_wait_timeout),   cmocka_unit_test(test_wake_kept),
        cmocka_unit_test(test_wake_timeout_tie),
        cmocka_unit_test(test_many_reference), cmocka_unit_test(test_destroy_suspended),
        cmocka_unit_test(test_misuse),         cmocka_unit_test(test_deep_recursion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
