/* test_qsim.c -- the seed-004 simulation models: exact single-node results
 * (M/M/1, M/D/1), a differential test of the station code against a direct
 * reference computation on the same arrival stream, determinism, the
 * NSDMA-busy readings, network checks, and the paper's Tables 4-7 and 9 at
 * two arrival rates.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "myri/rng.h"
#include "myri/sim.h"
#include "analysis/qsim/qsim.h"

/* |est - exact| within 3 half-widths (a 99.7 % interval: the fixed seeds
 * make the test deterministic, the factor keeps it robust to engine
 * changes), and the interval itself tight, so the test can fail. */
static void assert_covers(myri_qsim_est e, double exact, double max_rel_hw)
{
    if (!(fabs(e.mean - exact) <= 3.0 * e.hw) || !(e.hw <= max_rel_hw * exact)) {
        fprintf(stderr, "estimate %.6f +- %.6f, exact %.6f\n", e.mean, e.hw, exact);
        fail();
    }
}

static void run_single(double lambda, uint64_t service_ps, myri_qsim_dist dist, bool plain, uint64_t seed,
                       myri_qsim_result *r)
{
    myri_qsim_net net;
    myri_qsim_net_single(&net, lambda, service_ps, dist);
    myri_qsim_opts o = {.seed = seed, .precision = 0.01, .plain_batch_means = plain};
    assert_int_equal(myri_qsim_run(&net, &o, r), MYRI_OK);
    assert_true(r->converged);
}

/* M/M/1, rho = 0.5: Lq = rho^2 / (1 - rho) = 0.5, utilisation 0.5. */
static void test_mm1(void **state)
{
    (void)state;
    for (int plain = 0; plain < 2; plain++) {
        myri_qsim_result r;
        run_single(0.5, MYRI_PS_PER_US, MYRI_QSIM_EXP, plain, 11, &r);
        assert_covers(r.st[0].lq, 0.5, 0.02);
        assert_covers(r.st[0].util, 0.5, 0.02);
    }
}

/* M/D/1, rho = 0.8: Lq = rho^2 / (2 (1 - rho)) = 1.6 (Pollaczek-Khinchine). */
static void test_md1(void **state)
{
    (void)state;
    for (int plain = 0; plain < 2; plain++) {
        myri_qsim_result r;
        run_single(0.8, MYRI_PS_PER_US, MYRI_QSIM_DET, plain, 12, &r);
        assert_covers(r.st[0].lq, 1.6, 0.02);
        assert_covers(r.st[0].util, 0.8, 0.02);
    }
}

/* Reference: the same Poisson stream regenerated from the source's random
 * stream (the stream of the component "source0"), an FCFS server with a
 * deterministic service time, and the integral of the number waiting over
 * the observation window computed directly from arrival and start times. */
static double reference_lq(double lambda, uint64_t d_ps, uint64_t seed, uint64_t t0, uint64_t t1)
{
    myri_rng rng;
    myri_rng_named(&rng, seed, "source0", 0);
    double mean_us = 1.0 / lambda, area = 0.0;
    uint64_t a = 0, free_at = 0;
    for (;;) {
        double x = -mean_us * log1p(-myri_rng_uniform01(&rng)) * (double)MYRI_PS_PER_US;
        a += x < 1.0 ? 1 : (uint64_t)llround(x);
        if (a > t1) break;
        uint64_t start = a > free_at ? a : free_at;
        free_at = start + d_ps;
        uint64_t lo = a > t0 ? a : t0, hi = start < t1 ? start : t1;
        if (hi > lo) area += (double)(hi - lo);
    }
    return area / (double)(t1 - t0);
}

static void test_differential_single(void **state)
{
    (void)state;
    myri_rng pick;
    myri_rng_seed(&pick, 2024);
    for (int c = 0; c < 6; c++) {
        double rho = myri_rng_uniform(&pick, 0.1, 0.9);
        uint64_t d_ps = 1000000 + myri_rng_below(&pick, 50000000);
        double lambda = rho / ((double)d_ps / (double)MYRI_PS_PER_US);
        uint64_t seed = myri_rng_next(&pick);
        myri_qsim_net net;
        myri_qsim_net_single(&net, lambda, d_ps, MYRI_QSIM_DET);
        myri_qsim_opts o = {.seed = seed, .arrivals = 20000, .plain_batch_means = true};
        myri_qsim_result r;
        assert_int_equal(myri_qsim_run(&net, &o, &r), MYRI_OK);
        double ref = reference_lq(lambda, d_ps, seed, r.t0_ps, r.t1_ps);
        if (fabs(ref - r.st[0].lq.mean) > 1e-9 * (1.0 + ref)) {
            fprintf(stderr, "case %d: rho %.3f D %llu ps: sim %.12f ref %.12f\n", c, rho,
                    (unsigned long long)d_ps, r.st[0].lq.mean, ref);
            fail();
        }
    }
}

/* ---- reference model of the pooled NIC (model 1, HOLD) -------------------------
 * Written independently of the station code, as a plain loop over four
 * clocks (next arrival, LANai, HDMA, NSDMA completions), fed by the same
 * arrival stream; integrates LANai busy time and the waiting counts of LANai
 * and HDMA over the observation window. */
typedef struct ref_q {
    int cls[4096];
    int head, n;
} ref_q;

static void refq_push(ref_q *q, int c)
{
    assert_true(q->n < 4096);
    q->cls[(q->head + q->n++) % 4096] = c;
}

static int refq_pop(ref_q *q)
{
    int c = q->cls[q->head];
    q->head = (q->head + 1) % 4096;
    q->n--;
    return c;
}

typedef struct ref_nic {
    ref_q lq, hq;
    int lanai_cls, lanai_held, hdma_cls;
    uint64_t lanai_done, hdma_done, nsdma_done, now, t0, t1;
    double busy, lwait, hwait;
} ref_nic;

#define NEVER UINT64_MAX

/* Advances the integrals to time t (clipped to the window). */
static void ref_advance(ref_nic *m, uint64_t t)
{
    uint64_t lo = m->now > m->t0 ? m->now : m->t0, hi = t < m->t1 ? t : m->t1;
    if (hi > lo) {
        double dt = (double)(hi - lo);
        m->busy += dt * (m->lanai_cls >= 0 || m->lanai_held);
        m->lwait += dt * m->lq.n;
        m->hwait += dt * m->hq.n;
    }
    m->now = t;
}

static void ref_lanai_next(ref_nic *m)
{
    static const uint64_t svc[3] = {MYRI_QSIM_T_LANAI_DOORBELL_PS, MYRI_QSIM_T_LANAI_DESCRIPTOR_PS,
                                    MYRI_QSIM_T_LANAI_PROGRAM_PS};
    if (m->lanai_cls >= 0 || m->lanai_held || m->lq.n == 0) return;
    int c = refq_pop(&m->lq);
    if (c == MYRI_QSIM_DATA && m->nsdma_done != NEVER) {
        m->lanai_held = 1;
        return;
    }
    m->lanai_cls = c;
    m->lanai_done = m->now + svc[c];
}

static void ref_hdma_next(ref_nic *m)
{
    if (m->hdma_cls >= 0 || m->hq.n == 0) return;
    m->hdma_cls = refq_pop(&m->hq);
    m->hdma_done = m->now + (m->hdma_cls == MYRI_QSIM_DOORBELL ? MYRI_QSIM_T_HDMA_DOORBELL_PS
                                                               : MYRI_QSIM_T_HDMA_DESCRIPTOR_PS);
}

static void ref_pooled(double lambda, uint64_t seed, uint64_t t0, uint64_t t1, double out[3])
{
    ref_nic *m = calloc(1, sizeof *m);
    assert_non_null(m);
    m->lanai_cls = m->hdma_cls = -1;
    m->lanai_done = m->hdma_done = m->nsdma_done = NEVER;
    m->t0 = t0;
    m->t1 = t1;
    myri_rng rng;
    myri_rng_named(&rng, seed, "source0", 0);
    double mean_us = 1.0 / lambda;
    uint64_t next_arr = 0;
    double x = -mean_us * log1p(-myri_rng_uniform01(&rng)) * (double)MYRI_PS_PER_US;
    next_arr = x < 1.0 ? 1 : (uint64_t)llround(x);
    for (;;) {
        uint64_t t = next_arr;
        int which = 0;
        if (m->lanai_done < t) t = m->lanai_done, which = 1;
        if (m->hdma_done < t) t = m->hdma_done, which = 2;
        if (m->nsdma_done < t) t = m->nsdma_done, which = 3;
        if (t > t1) break;
        ref_advance(m, t);
        if (which == 0) {
            refq_push(&m->lq, MYRI_QSIM_DOORBELL);
            x = -mean_us * log1p(-myri_rng_uniform01(&rng)) * (double)MYRI_PS_PER_US;
            next_arr = t + (x < 1.0 ? 1 : (uint64_t)llround(x));
            ref_lanai_next(m);
        } else if (which == 1) {
            int c = m->lanai_cls;
            m->lanai_cls = -1;
            m->lanai_done = NEVER;
            if (c == MYRI_QSIM_DATA) m->nsdma_done = t + MYRI_QSIM_T_NSDMA_DATA_PS;
            else refq_push(&m->hq, c);
            ref_hdma_next(m);
            ref_lanai_next(m);
        } else if (which == 2) {
            refq_push(&m->lq, m->hdma_cls == MYRI_QSIM_DOORBELL ? MYRI_QSIM_DESCRIPTOR : MYRI_QSIM_DATA);
            m->hdma_cls = -1;
            m->hdma_done = NEVER;
            ref_hdma_next(m);
            ref_lanai_next(m);
        } else {
            m->nsdma_done = NEVER;
            if (m->lanai_held) {
                m->lanai_held = 0;
                m->lanai_cls = MYRI_QSIM_DATA;
                m->lanai_done = t + MYRI_QSIM_T_LANAI_PROGRAM_PS;
            }
        }
    }
    ref_advance(m, t1);
    double w = (double)(t1 - t0);
    out[0] = m->busy / w;
    out[1] = m->lwait / w;
    out[2] = m->hwait / w;
    free(m);
}

/* Randomised rates and seeds: the station network and the reference agree
 * on LANai utilisation, LANai queue and HDMA queue to rounding. */
static void test_differential_pooled(void **state)
{
    (void)state;
    myri_rng pick;
    myri_rng_seed(&pick, 77);
    for (int c = 0; c < 5; c++) {
        double lambda = myri_rng_uniform(&pick, 0.002, 0.0108);
        uint64_t seed = myri_rng_next(&pick);
        myri_qsim_net net;
        assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_POOLED, lambda, 0.0, MYRI_QSIM_LIMITED, MYRI_QSIM_HOLD),
                         MYRI_OK);
        myri_qsim_opts o = {.seed = seed, .arrivals = 30000, .plain_batch_means = true};
        myri_qsim_result r;
        assert_int_equal(myri_qsim_run(&net, &o, &r), MYRI_OK);
        double ref[3];
        ref_pooled(lambda, seed, r.t0_ps, r.t1_ps, ref);
        double sim[3] = {r.st[0].util.mean, r.st[0].lq.mean, r.st[1].lq.mean};
        for (int k = 0; k < 3; k++)
            if (fabs(sim[k] - ref[k]) > 1e-9 * (1.0 + ref[k])) {
                fprintf(stderr, "case %d lambda %.5f stat %d: sim %.12f ref %.12f\n", c, lambda, k, sim[k], ref[k]);
                fail();
            }
    }
}

/* arrivals = 0: to +-2 % on the HDMA queue; else a fixed run. */
static void run_seed004_n(myri_qsim_model m, double lambda, myri_qsim_blocking b, uint64_t seed, uint64_t arrivals,
                          myri_qsim_result *r)
{
    myri_qsim_net net;
    assert_int_equal(myri_qsim_net_seed004(&net, m, lambda, 0.0, MYRI_QSIM_LIMITED, b), MYRI_OK);
    myri_qsim_opts o = {.seed = seed, .precision = 0.02, .arrivals = arrivals};
    assert_int_equal(myri_qsim_run(&net, &o, r), MYRI_OK);
    assert_true(r->converged);
}

static void run_seed004(myri_qsim_model m, double lambda, myri_qsim_blocking b, uint64_t seed, myri_qsim_result *r)
{
    myri_qsim_net net;
    assert_int_equal(myri_qsim_net_seed004(&net, m, lambda, 0.0, MYRI_QSIM_LIMITED, b), MYRI_OK);
    myri_qsim_opts o = {.seed = seed, .precision = 0.02};
    assert_int_equal(myri_qsim_run(&net, &o, r), MYRI_OK);
    assert_true(r->converged);
}

static void test_determinism(void **state)
{
    (void)state;
    myri_qsim_result a, b, c;
    run_seed004_n(MYRI_QSIM_POLLING, 0.009, MYRI_QSIM_HOLD, 5, 50000, &a);
    run_seed004_n(MYRI_QSIM_POLLING, 0.009, MYRI_QSIM_HOLD, 5, 50000, &b);
    run_seed004_n(MYRI_QSIM_POLLING, 0.009, MYRI_QSIM_HOLD, 6, 50000, &c);
    assert_int_equal(a.hash, b.hash);
    assert_int_equal(myri_qsim_result_hash(&a, 0), myri_qsim_result_hash(&b, 0));
    assert_true(a.st[1].lq.mean == b.st[1].lq.mean && a.st[0].util.mean == b.st[0].util.mean);
    assert_true(a.hash != c.hash);
    assert_true(a.st[1].lq.mean != c.st[1].lq.mean);
    /* Threads do not change results. */
    myri_qsim_job jobs[2];
    memset(jobs, 0, sizeof jobs);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(myri_qsim_net_seed004(&jobs[k].net, MYRI_QSIM_POLLING, 0.009, 0.0, MYRI_QSIM_LIMITED,
                                               MYRI_QSIM_HOLD),
                         MYRI_OK);
        jobs[k].opts = (myri_qsim_opts){.seed = (uint64_t)(5 + k), .precision = 0.02, .arrivals = 50000};
    }
    assert_int_equal(myri_qsim_run_jobs(jobs, 2, 2), MYRI_OK);
    assert_int_equal(jobs[0].result.hash, a.hash);
    assert_int_equal(jobs[1].result.hash, c.hash);
}

static bool within(double ours, double paper, double rel)
{
    bool ok = fabs(ours - paper) <= rel * paper;
    if (!ok) fprintf(stderr, "ours %.5f paper %.5f (tolerance %.1f %%)\n", ours, paper, 100 * rel);
    return ok;
}

/* Tables 4-7 and 9 at two rates.  Tolerances (docs/NICSIM.md): utilisations
 * 1 %, HDMA queue 3 %, LANai queues 6 % (the paper's own model-1/model-2
 * difference is up to 6.76 %), model 2's sum of queues 1.5 % (the held data
 * message counted in the data queue), Table 4's data queue 8 %, its doorbell
 * and descriptor queues 12 % (no reading of the paper fits them closer). */
static void test_paper_tables(void **state)
{
    (void)state;
    const int rows[2] = {2, 4}; /* lambda = 0.00786 and 0.01079 */
    for (int i = 0; i < 2; i++) {
        const myri_qsim_paper_row *p = &myri_qsim_paper[rows[i]];
        myri_qsim_result m1, m2;
        run_seed004(MYRI_QSIM_POOLED, p->lambda, MYRI_QSIM_HOLD, 7, &m1);
        run_seed004(MYRI_QSIM_POLLING, p->lambda, MYRI_QSIM_HOLD, 7, &m2);
        assert_true(within(m1.st[0].util.mean, p->t5_lanai1, 0.01));
        assert_true(within(m2.st[0].util.mean, p->t5_lanai2, 0.01));
        assert_true(within(m1.st[1].util.mean, p->t5_hdma1, 0.01));
        assert_true(within(m2.st[1].util.mean, p->t5_hdma2, 0.01));
        assert_true(within(m1.st[2].util.mean, p->t5_nsdma1, 0.01));
        assert_true(within(m2.st[2].util.mean, p->t5_nsdma2, 0.01));
        assert_true(within(m1.st[1].lq.mean, p->t6_hdma1, 0.03));
        assert_true(within(m2.st[1].lq.mean, p->t6_hdma2, 0.03));
        assert_true(within(m1.st[0].lq.mean, p->t7_lanai1, 0.06));
        assert_true(within(m2.st[0].lq.mean, p->t7_lanai2, 0.015));
        assert_true(within(m2.st[0].lq.mean, p->t9_sim, 0.015));
        assert_true(within(m2.st[0].queue[0].mean, p->t4_doorbell, 0.12));
        assert_true(within(m2.st[0].queue[1].mean, p->t4_descriptor, 0.12));
        assert_true(within(m2.st[0].queue[2].mean, p->t4_data, 0.08));
        /* The sum of the three queues is the LANai queue length. */
        double sum = m2.st[0].queue[0].mean + m2.st[0].queue[1].mean + m2.st[0].queue[2].mean;
        assert_true(fabs(sum - m2.st[0].lq.mean) < 1e-3 * m2.st[0].lq.mean);
        /* Utilisations of HDMA and NSDMA are the offered loads. */
        assert_true(within(m1.st[1].util.mean, p->lambda * 89.3154, 0.005));
        assert_true(within(m1.st[2].util.mean, p->lambda * 52.6887, 0.005));
    }
}

/* The reading of "NSDMA busy": HOLD reproduces the paper's model-1 LANai
 * utilisation at the highest rate (0.3690), SKIP cannot exceed the work
 * 32.12 us per doorbell (0.3533) and misses it by more than 4 %. */
static void test_blocking_readings(void **state)
{
    (void)state;
    myri_qsim_result hold, skip;
    run_seed004_n(MYRI_QSIM_POOLED, 0.011, MYRI_QSIM_HOLD, 3, 300000, &hold);
    run_seed004_n(MYRI_QSIM_POOLED, 0.011, MYRI_QSIM_SKIP, 3, 300000, &skip);
    assert_true(within(hold.st[0].util.mean, 0.3690, 0.005));
    assert_true(fabs(skip.st[0].util.mean - 0.011 * 32.12) < 0.002);
    assert_true(skip.st[0].util.mean < 0.3690 * 0.96);
    assert_true(hold.st[0].blocked.mean > 0.0 && skip.st[0].blocked.mean == 0.0);
}

/* Model 2's queues are SRAM queues: a data message LANai holds while NSDMA is
 * busy is still in the data queue.  Counted so, the default discipline (one
 * message per visit) reproduces the paper's Table 7 (sum of the queues)
 * within 1 % at lambda = 0.01079, closer than gated polling, and not counting
 * it (the blocked fraction taken out) leaves it 5 % short (docs/NICSIM.md). */
static void test_held_in_data_queue(void **state)
{
    (void)state;
    const myri_qsim_paper_row *p = &myri_qsim_paper[4];
    myri_qsim_net net;
    assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_POLLING, p->lambda, 0.0, MYRI_QSIM_GATED, MYRI_QSIM_HOLD),
                     MYRI_OK);
    myri_qsim_opts o = {.seed = 7, .precision = 0.02};
    myri_qsim_result g, l;
    assert_int_equal(myri_qsim_run(&net, &o, &g), MYRI_OK);
    run_seed004(MYRI_QSIM_POLLING, p->lambda, MYRI_QSIM_HOLD, 7, &l);
    assert_true(within(l.st[0].lq.mean, p->t7_lanai2, 0.01));
    assert_true(within(l.st[0].util.mean, p->t5_lanai2, 0.01));
    assert_true(fabs(l.st[0].lq.mean - p->t7_lanai2) < fabs(g.st[0].lq.mean - p->t7_lanai2));
    assert_true(l.st[0].blocked.mean > 0.005);
    assert_true(l.st[0].lq.mean - l.st[0].blocked.mean < p->t7_lanai2 * 0.96);
}

/* Gated and exhaustive polling run and conserve work (same utilisations of
 * HDMA and NSDMA; LANai's work per doorbell is at least 32.12 us). */
static void test_disciplines(void **state)
{
    (void)state;
    for (int d = MYRI_QSIM_LIMITED; d <= MYRI_QSIM_EXHAUSTIVE; d++) {
        myri_qsim_net net;
        assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_POLLING, 0.009, 0.0, (myri_qsim_discipline)d,
                                               MYRI_QSIM_HOLD),
                         MYRI_OK);
        myri_qsim_opts o = {.seed = 9, .arrivals = 100000};
        myri_qsim_result r;
        assert_int_equal(myri_qsim_run(&net, &o, &r), MYRI_OK);
        assert_true(within(r.st[1].util.mean, 0.009 * 89.3154, 0.01));
        assert_true(r.st[0].util.mean >= 0.009 * 32.12 * 0.98);
    }
}

/* Issue 8: plans that cannot run are refused with their cause, before the
 * run; results outside their physical range are errors. */
static void test_plan_limits(void **state)
{
    (void)state;
    myri_qsim_net net;
    myri_qsim_result r;
    char why[400];
    myri_qsim_opts o = {.seed = 1, .precision = 0.02};
    assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_POLLING, 1e-8, 0, 0, 0), MYRI_OK);
    assert_int_equal(myri_qsim_check(&net, &o, why, sizeof why), MYRI_ERANGE);
    assert_non_null(strstr(why, "too small"));
    assert_int_equal(myri_qsim_run(&net, &o, &r), MYRI_ERANGE);
    assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_POLLING, 0.005, 0, 0, 0), MYRI_OK);
    o.warmup_arrivals = UINT64_MAX;
    assert_int_equal(myri_qsim_check(&net, &o, why, sizeof why), MYRI_ERANGE);
    assert_non_null(strstr(why, "--warmup"));
    o.warmup_arrivals = 0;
    assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_POLLING, 0.011195, 0, 0, 0), MYRI_OK);
    assert_int_equal(myri_qsim_check(&net, &o, why, sizeof why), MYRI_ERANGE);
    assert_non_null(strstr(why, "too close to saturation"));
    assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_POLLING, 0.02, 0, 0, 0), MYRI_OK);
    assert_int_equal(myri_qsim_check(&net, &o, why, sizeof why), MYRI_EMODEL);
    assert_non_null(strstr(why, "hdma"));
    /* The figures the issue saw printed as a result. */
    assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_POLLING, 0.011, 0, 0, 0), MYRI_OK);
    memset(&r, 0, sizeof r);
    assert_int_equal(myri_qsim_result_check(&net, &r, why, sizeof why), MYRI_OK);
    r.st[MYRI_QSIM_HDMA].util.mean = 2.4e9;
    assert_int_equal(myri_qsim_result_check(&net, &r, why, sizeof why), MYRI_ERANGE);
    assert_non_null(strstr(why, "hdma: utilisation"));
    r.st[MYRI_QSIM_HDMA].util.mean = 1.04;
    assert_int_equal(myri_qsim_result_check(&net, &r, why, sizeof why), MYRI_ERANGE);
    r.st[MYRI_QSIM_HDMA].util.mean = 0.5;
    r.st[MYRI_QSIM_HDMA].lq.mean = -3.1e7;
    assert_int_equal(myri_qsim_result_check(&net, &r, why, sizeof why), MYRI_ERANGE);
    assert_non_null(strstr(why, "queue length"));
    r.st[MYRI_QSIM_HDMA].lq.mean = NAN;
    assert_int_equal(myri_qsim_result_check(&net, &r, why, sizeof why), MYRI_ERANGE);
    /* Short runs at 0.011: every estimate in range (the control variate
     * used to extrapolate the HDMA utilisation past 1). */
    for (uint64_t seed = 1; seed <= 6; seed++) {
        myri_qsim_opts f = {.seed = seed, .arrivals = 1000};
        assert_int_equal(myri_qsim_run(&net, &f, &r), MYRI_OK);
        assert_true(r.st[MYRI_QSIM_HDMA].util.mean <= 1.0);
    }
}

static void test_bad_input(void **state)
{
    (void)state;
    myri_qsim_net net;
    myri_qsim_result r;
    myri_qsim_opts o = {.seed = 1, .precision = 0.02};
    assert_int_equal(myri_qsim_net_seed004(NULL, MYRI_QSIM_POOLED, 0.01, 0, 0, 0), MYRI_EINVAL);
    assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_POOLED, -1.0, 0, 0, 0), MYRI_EINVAL);
    assert_int_equal(myri_qsim_net_seed004(&net, (myri_qsim_model)9, 0.01, 0, 0, 0), MYRI_EINVAL);
    assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_SENDRECV, 0.01, 0.0, 0, 0), MYRI_EINVAL);
    assert_int_equal(myri_qsim_run(NULL, &o, &r), MYRI_EINVAL);
    /* Unstable: HDMA offered 0.02 * 89.3 > 1. */
    assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_POOLED, 0.02, 0, 0, 0), MYRI_OK);
    assert_int_equal(myri_qsim_run(&net, &o, &r), MYRI_EMODEL);
    /* A route to a missing station, a class a station does not serve. */
    assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_POOLED, 0.01, 0, 0, 0), MYRI_OK);
    net.st[MYRI_QSIM_HDMA].cls[MYRI_QSIM_DOORBELL].next_station = 7;
    assert_int_equal(myri_qsim_net_check(&net), MYRI_EINVAL);
    assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_POOLED, 0.01, 0, 0, 0), MYRI_OK);
    net.st[MYRI_QSIM_HDMA].cls[MYRI_QSIM_DOORBELL].next_class = MYRI_QSIM_DOORBELL; /* LANai serves it, fine */
    assert_int_equal(myri_qsim_net_check(&net), MYRI_OK);
    net.st[MYRI_QSIM_HDMA].cls[MYRI_QSIM_DOORBELL].next_station = MYRI_QSIM_NSDMA; /* NSDMA serves no doorbell */
    assert_int_equal(myri_qsim_net_check(&net), MYRI_EINVAL);
    /* Precision out of range, zero service time. */
    assert_int_equal(myri_qsim_net_seed004(&net, MYRI_QSIM_POOLED, 0.01, 0, 0, 0), MYRI_OK);
    myri_qsim_opts bad = {.seed = 1, .precision = 1.5};
    assert_int_equal(myri_qsim_run(&net, &bad, &r), MYRI_EINVAL);
    net.st[MYRI_QSIM_LANAI].cls[MYRI_QSIM_DATA].service_ps = 0;
    assert_int_equal(myri_qsim_net_check(&net), MYRI_EINVAL);
}

/* `myri reproduce seed004 --json` carries every table and the runs. */
static void test_reproduce_json(void **state)
{
    (void)state;
    /* The sanitizer build skips this one (MYRI_SLOW_TESTS=0): it runs the
     * whole reproduction; tests/scenario/nicsim_cli.sh covers it there. */
    const char *slow = getenv("MYRI_SLOW_TESTS");
    if (slow && strcmp(slow, "0") == 0) skip();
    FILE *p = popen(MYRI_BINARY " reproduce seed004 --json --threads 2", "r");
    assert_non_null(p);
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - 1 - n, p)) > 0) n += got;
    buf[n] = '\0';
    assert_int_equal(pclose(p), 0);
    const char *keys[] = {"\"table3\"", "\"table4\"", "\"table5\"", "\"table6\"", "\"table7\"",
                          "\"table8\"", "\"table9\"", "\"p_derived\"", "\"runs\"", "\"paper\"",
                          "\"ours\"",   "\"ci\"",     "\"converged\"", "\"paper_conditions\"",
                          "\"result_hash\""};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (!strstr(buf, keys[k])) {
            fprintf(stderr, "missing key %s\n", keys[k]);
            fail();
        }
    assert_null(strstr(buf, "\"converged\": false"));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mm1),
        cmocka_unit_test(test_md1),
        cmocka_unit_test(test_differential_single),
        cmocka_unit_test(test_differential_pooled),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_paper_tables),
        cmocka_unit_test(test_blocking_readings),
        cmocka_unit_test(test_held_in_data_queue),
        cmocka_unit_test(test_disciplines),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_plan_limits),
        cmocka_unit_test(test_reproduce_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
