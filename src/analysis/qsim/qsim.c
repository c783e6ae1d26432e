/* qsim.c -- the station network on the engine: sources, stations, batches.
 *
 * Workload: a handful of stations and at most a few pending events (one per
 * source, one per busy station), run for up to ~10^8 events, so the hot path
 * is one engine pop, a few queue operations and a few time-weighted updates.
 * Messages carry only their class: the statistics are time averages, so no
 * per-message record is needed.  Messages move between stations by direct
 * calls inside the event that completes them (transfers take no time); every
 * service completion, arrival and wake-up is an engine event.
 */
#include "analysis/qsim/qsim.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "myri/rng.h"
#include "myri/sim.h"
#include "myri/stats.h"

enum { EV_ARRIVAL = 1, EV_DONE = 2, EV_WAKE = 3 };
enum { ST_IDLE = 0, ST_BUSY = 1, ST_HELD = 2 };
#define NO_STATION 0xff
/* The longest simulated time a run may span: 2^62 ps (4.6e12 us, about 53
 * simulated days), a quarter of the engine's 2^64 ps, so no time sum or
 * batch doubling can wrap.  A plan that needs more is refused before the run. */
#define RUN_HORIZON_PS 4611686018427387904ull

/* Per-station statistics collected per batch: util, lq, blocked, queues. */
enum { STAT_UTIL = 0, STAT_LQ = 1, STAT_BLOCKED = 2, STAT_Q0 = 3 };
#define STATS_PER_STATION (STAT_Q0 + MYRI_QSIM_MAX_QUEUES)
#define NSTATS_ST (MYRI_QSIM_MAX_STATIONS * STATS_PER_STATION)
/* Last two columns: the control variates.  The first: the batch's relative
 * excess of external arrivals A_b / (lambda T_b) - 1, expectation exactly 0
 * (utilisations are nearly linear in it).  The second:  A "shadow" M/G/1 queue is fed by the
 * same external arrivals, each bringing the (deterministic) work its message
 * chain brings to the bottleneck station; its time-average workload V has
 * the exact mean sum(lambda_k D_k^2) / (2 (1 - sum(lambda_k D_k)))
 * (Pollaczek-Khinchine, with PASTA).  The column holds V_b / E[V] - 1,
 * whose expectation is exactly 0.  The shadow needs no events: its workload
 * is updated at each arrival (Lindley's recursion) and integrated in closed
 * form. */
#define STAT_ARR NSTATS_ST
#define STAT_CTRL (NSTATS_ST + 1)
#define NCTRL 2
#define NSTATS (NSTATS_ST + NCTRL)

typedef struct nics_ring {
    uint8_t *buf;   /* classes of the waiting messages, FCFS order */
    uint32_t cap;   /* power of two */
    uint32_t head, n;
} nics_ring;

typedef struct nics_run nics_run;

typedef struct nics_station {
    const myri_qsim_station_spec *spec;
    nics_run *run;
    myri_component *comp;
    uint8_t idx, state, cur_cls, pos;
    uint8_t waiter;      /* bufferless: the feeder holding a message for us */
    uint8_t nfeeders;
    uint8_t feeders[MYRI_QSIM_MAX_STATIONS];
    uint32_t gate;       /* gated discipline: messages left in this visit */
    uint32_t nwait;      /* messages waiting in all queues */
    nics_ring q[MYRI_QSIM_MAX_QUEUES];
    myri_tw tw_busy, tw_lq, tw_held, tw_q[MYRI_QSIM_MAX_QUEUES];
    uint64_t hold_start_ps;
    uint64_t served[MYRI_QSIM_MAX_CLASSES];
    uint64_t held_ps[MYRI_QSIM_MAX_CLASSES];
    uint64_t found_idle, found_busy;
} nics_station;

typedef struct nics_source {
    const myri_qsim_source_spec *spec;
    nics_run *run;
    double mean_us;
    bool antithetic;
} nics_source;

struct nics_run {
    const myri_qsim_net *net;
    myri_sim *sim;
    nics_station st[MYRI_QSIM_MAX_STATIONS];
    nics_source src[MYRI_QSIM_MAX_SOURCES];
    uint64_t arrivals;
    /* The shadow queue (control variate); times in us. */
    double sh_work_us[MYRI_QSIM_MAX_SOURCES]; /* work each source's arrival brings */
    double sh_v_us;           /* workload just after the last arrival */
    myri_time_ps sh_last_ps;  /* time of the last arrival */
    double sh_area;           /* integral of the workload up to sh_last_ps (us^2) */
    double sh_area0;          /* the same at the start of the open batch */
    double sh_mean_us;        /* exact mean workload */
    myri_time_ps batch_start_ps;
    uint64_t batch_arrivals0; /* arrivals when the open batch began */
    double lambda_per_ps;     /* total external arrival rate */
};

/* Integral of the shadow workload from time 0 to t (>= the last arrival). */
static double shadow__area(const nics_run *r, myri_time_ps t)
{
    double gap = (double)(t - r->sh_last_ps) / (double)MYRI_PS_PER_US, v = r->sh_v_us;
    return r->sh_area + (gap < v ? v * gap - 0.5 * gap * gap : 0.5 * v * v);
}

/* An arrival of source k at time t. */
static void shadow__arrive(nics_run *r, unsigned k, myri_time_ps t)
{
    double gap = (double)(t - r->sh_last_ps) / (double)MYRI_PS_PER_US;
    r->sh_area = shadow__area(r, t);
    r->sh_v_us = (gap < r->sh_v_us ? r->sh_v_us - gap : 0.0) + r->sh_work_us[k];
    r->sh_last_ps = t;
}

/* ---- queues ------------------------------------------------------------------ */

static int ring__push(nics_ring *r, uint8_t cls)
{
    if (r->n == r->cap) {
        uint32_t ncap = r->cap ? r->cap * 2 : 16;
        uint8_t *nb = malloc(ncap);
        if (!nb) return -1;
        for (uint32_t i = 0; i < r->n; i++) nb[i] = r->buf[(r->head + i) & (r->cap - 1)];
        free(r->buf);
        r->buf = nb;
        r->cap = ncap;
        r->head = 0;
    }
    r->buf[(r->head + r->n) & (r->cap - 1)] = cls;
    r->n++;
    return 0;
}

static uint8_t ring__at(const nics_ring *r, uint32_t i) { return r->buf[(r->head + i) & (r->cap - 1)]; }

/* Removes the i-th waiting message (0 = head), keeping the order of the rest. */
static uint8_t ring__take(nics_ring *r, uint32_t i)
{
    uint8_t cls = ring__at(r, i);
    for (uint32_t k = i; k > 0; k--)
        r->buf[(r->head + k) & (r->cap - 1)] = r->buf[(r->head + k - 1) & (r->cap - 1)];
    r->head = (r->head + 1) & (r->cap - 1);
    r->n--;
    return cls;
}

/* ---- stations ------------------------------------------------------------------ */

static myri_time_ps now_ps(const nics_station *s) { return myri_sim_now(s->run->sim); }

/* True when a message of class cls may start service at s now: its next
 * station, if bufferless, is idle (SKIP); under HOLD every message may. */
static bool station__eligible(const nics_station *s, uint8_t cls)
{
    int next = s->spec->cls[cls].next_station;
    if (next < 0 || s->spec->blocking == MYRI_QSIM_HOLD) return true;
    const nics_station *n = &s->run->st[next];
    return !n->spec->bufferless || n->state == ST_IDLE;
}

/* Index of the first eligible message of queue qi, or -1. */
static int32_t station__first_eligible(const nics_station *s, unsigned qi)
{
    const nics_ring *r = &s->q[qi];
    for (uint32_t i = 0; i < r->n; i++)
        if (station__eligible(s, ring__at(r, i))) return (int32_t)i;
    return -1;
}

static uint64_t station__service_ps(nics_station *s, uint8_t cls)
{
    const myri_qsim_class_spec *c = &s->spec->cls[cls];
    if (c->dist == MYRI_QSIM_DET) return c->service_ps;
    double u = myri_rng_uniform01(&s->comp->rng);
    double x = -(double)c->service_ps * log1p(-u);
    return x < 1.0 ? 1 : (uint64_t)llround(x);
}

static void station__begin(nics_station *s, uint8_t cls)
{
    myri_time_ps t = now_ps(s);
    s->state = ST_BUSY;
    s->cur_cls = cls;
    myri_tw_set(&s->tw_busy, t, 1.0);
    myri_event ev = {.target = s->comp, .kind = EV_DONE, .arg32 = cls};
    myri_sim_schedule_in(s->run->sim, station__service_ps(s, cls), &ev);
}

/* Starts service of message i of queue qi: either serves it, or (HOLD, its
 * bufferless next station busy) holds it until that station frees. */
static void station__start(nics_station *s, unsigned qi, uint32_t i)
{
    myri_time_ps t = now_ps(s);
    uint8_t cls = ring__take(&s->q[qi], i);
    s->nwait--;
    int next = s->spec->cls[cls].next_station;
    if (next >= 0 && s->run->st[next].spec->bufferless) {
        nics_station *n = &s->run->st[next];
        if (n->state != ST_IDLE) {
            MYRI_ASSERT(s->comp, s->spec->blocking == MYRI_QSIM_HOLD, "skip mode started a blocked message");
            if (!s->spec->held_queued) { /* else it leaves its queue's count when served (station__wake) */
                myri_tw_add(&s->tw_q[qi], t, -1.0);
                myri_tw_add(&s->tw_lq, t, -1.0);
            }
            s->found_busy++;
            s->state = ST_HELD;
            s->cur_cls = cls;
            s->hold_start_ps = t;
            n->waiter = s->idx;
            myri_tw_set(&s->tw_busy, t, 1.0);
            myri_tw_set(&s->tw_held, t, 1.0);
            return;
        }
        s->found_idle++;
    }
    myri_tw_add(&s->tw_q[qi], t, -1.0);
    myri_tw_add(&s->tw_lq, t, -1.0);
    station__begin(s, cls);
}

/* The server is free: picks the next message by the station's discipline.
 * `stay` lets the current visit continue at queue `pos`. */
static void station__next(nics_station *s, bool stay)
{
    if (s->state != ST_IDLE || s->nwait == 0) return;
    unsigned nq = s->spec->nqueues;
    for (unsigned k = stay ? 0 : 1; k <= nq; k++) {
        unsigned qi = (s->pos + k) % nq;
        if (s->q[qi].n == 0) continue;
        int32_t i = station__first_eligible(s, qi);
        if (i < 0) continue;
        if (k != 0 || !stay) {
            s->pos = (uint8_t)qi;
            s->gate = s->q[qi].n;
        }
        if (s->gate > 0) s->gate--;
        station__start(s, qi, (uint32_t)i);
        return;
    }
}

static bool station__stay(const nics_station *s)
{
    switch (s->spec->discipline) {
    case MYRI_QSIM_EXHAUSTIVE: return true;
    case MYRI_QSIM_GATED: return s->gate > 0;
    default: return false;
    }
}

/* A message of class cls arrives at s (from a source or another station). */
static void station__arrive(nics_station *s, uint8_t cls)
{
    myri_time_ps t = now_ps(s);
    if (s->spec->bufferless) {
        MYRI_ASSERT(s->comp, s->state == ST_IDLE, "message handed to busy bufferless station");
        station__begin(s, cls);
        return;
    }
    unsigned qi = s->spec->cls[cls].queue;
    if (ring__push(&s->q[qi], cls) != 0) myri_panic(s->comp, "out of memory for queue");
    s->nwait++;
    myri_tw_add(&s->tw_q[qi], t, 1.0);
    myri_tw_add(&s->tw_lq, t, 1.0);
    if (s->state == ST_IDLE) {
        /* An idle poller with zero switch-over finds the message at once. */
        s->pos = (uint8_t)qi;
        s->gate = s->q[qi].n;
        station__next(s, true);
    }
}

static void station__wake(nics_station *s)
{
    if (s->state == ST_HELD) {
        myri_time_ps t = now_ps(s);
        s->held_ps[s->cur_cls] += t - s->hold_start_ps;
        myri_tw_set(&s->tw_held, t, 0.0);
        if (s->spec->held_queued) {
            myri_tw_add(&s->tw_q[s->spec->cls[s->cur_cls].queue], t, -1.0);
            myri_tw_add(&s->tw_lq, t, -1.0);
        }
        station__begin(s, s->cur_cls);
    } else if (s->state == ST_IDLE) {
        station__next(s, true);
    }
}

static void station__done(nics_station *s, uint8_t cls)
{
    myri_time_ps t = now_ps(s);
    s->served[cls]++;
    s->state = ST_IDLE;
    myri_tw_set(&s->tw_busy, t, 0.0);
    const myri_qsim_class_spec *c = &s->spec->cls[cls];
    if (c->next_station >= 0) station__arrive(&s->run->st[c->next_station], (uint8_t)c->next_class);
    if (s->spec->bufferless) {
        /* Wake the feeder holding a message for us, or an idle feeder that
         * may now start a skipped one. */
        for (unsigned f = 0; f < s->nfeeders; f++) {
            nics_station *fd = &s->run->st[s->feeders[f]];
            bool held = fd->state == ST_HELD && s->waiter == fd->idx;
            if (held || (fd->state == ST_IDLE && fd->nwait > 0)) {
                myri_event ev = {.target = fd->comp, .kind = EV_WAKE};
                myri_sim_schedule_in(s->run->sim, 0, &ev);
            }
        }
        s->waiter = NO_STATION;
    }
    station__next(s, station__stay(s));
}

/* The configs of stations and sources belong to a run of this simulation
 * (made by the run's setup); anything else is MYRI_EINVAL. */
static myri_status station_create(myri_component *self, const void *config)
{
    const nics_station *s = config;
    if (!s || !s->run || !s->spec || s->run->sim != self->sim || s->comp) return MYRI_EINVAL;
    self->state = (void *)config; /* owned by the run, not the component */
    return MYRI_OK;
}

static void station_handle(myri_component *self, const myri_event *ev)
{
    nics_station *s = self->state;
    if (ev->kind == EV_DONE) {
        MYRI_ASSERT(self, s->state == ST_BUSY && s->cur_cls == ev->arg32, "stray completion");
        station__done(s, (uint8_t)ev->arg32);
    } else if (ev->kind == EV_WAKE) {
        station__wake(s);
    } else {
        myri_panic(self, "unknown event kind %u", (unsigned)ev->kind);
    }
}

const myri_component_ops myri_qsim_station_ops = {
    .type = "nicsim-station",
    .help = "seed-004 NIC station: FCFS or polled queues, or bufferless",
    .create = station_create,
    .handle = station_handle,
};

/* ---- sources ------------------------------------------------------------------ */

static uint64_t source__gap_ps(nics_source *src, myri_rng *rng)
{
    double u = myri_rng_uniform01(rng);
    double x;
    if (src->antithetic) x = u > 0.0 ? -src->mean_us * log(u) : 40.0 * src->mean_us;
    else x = -src->mean_us * log1p(-u);
    double ps = x * (double)MYRI_PS_PER_US;
    if (!(ps < (double)RUN_HORIZON_PS)) return RUN_HORIZON_PS; /* beyond any run: no integer overflow */
    return ps < 1.0 ? 1 : (uint64_t)llround(ps);
}

static myri_status source_create(myri_component *self, const void *config)
{
    const nics_source *src = config;
    if (!src || !src->run || !src->spec || src->run->sim != self->sim) return MYRI_EINVAL;
    self->state = (void *)config;
    return MYRI_OK;
}

static void source_handle(myri_component *self, const myri_event *ev)
{
    nics_source *src = self->state;
    MYRI_ASSERT(self, ev->kind == EV_ARRIVAL, "unknown event kind %u", (unsigned)ev->kind);
    src->run->arrivals++;
    shadow__arrive(src->run, (unsigned)(src - src->run->src), myri_sim_now(src->run->sim));
    station__arrive(&src->run->st[src->spec->station], src->spec->cls);
    myri_event next = {.target = self, .kind = EV_ARRIVAL};
    myri_sim_schedule_in(src->run->sim, source__gap_ps(src, &self->rng), &next);
}

const myri_component_ops myri_qsim_source_ops = {
    .type = "nicsim-source",
    .help = "Poisson source of one class into one station",
    .create = source_create,
    .handle = source_handle,
};

/* ---- network checks -------------------------------------------------------------- */

myri_status myri_qsim_net_check(const myri_qsim_net *net)
{
    if (!net || net->nstations == 0 || net->nstations > MYRI_QSIM_MAX_STATIONS ||
        net->nclasses == 0 || net->nclasses > MYRI_QSIM_MAX_CLASSES || net->nsources == 0 ||
        net->nsources > MYRI_QSIM_MAX_SOURCES || net->bottleneck >= net->nstations)
        return MYRI_EINVAL;
    for (unsigned i = 0; i < net->nstations; i++) {
        const myri_qsim_station_spec *st = &net->st[i];
        if (st->nqueues == 0 || st->nqueues > MYRI_QSIM_MAX_QUEUES) return MYRI_EINVAL;
        for (unsigned c = 0; c < net->nclasses; c++) {
            const myri_qsim_class_spec *cs = &st->cls[c];
            if (!cs->served) continue;
            if (cs->queue >= st->nqueues || cs->service_ps == 0) return MYRI_EINVAL;
            if (cs->next_station >= (int)net->nstations || cs->next_station < -1) return MYRI_EINVAL;
            if (cs->next_station >= 0) {
                if (cs->next_class < 0 || cs->next_class >= (int)net->nclasses) return MYRI_EINVAL;
                const myri_qsim_station_spec *n = &net->st[cs->next_station];
                if (!n->cls[cs->next_class].served) return MYRI_EINVAL;
                /* A bufferless station must be fed by another, queueing one. */
                if (n->bufferless && (st->bufferless || cs->next_station == (int)i)) return MYRI_EINVAL;
            }
        }
    }
    for (unsigned k = 0; k < net->nsources; k++) {
        const myri_qsim_source_spec *s = &net->src[k];
        if (s->station >= net->nstations || s->cls >= net->nclasses) return MYRI_EINVAL;
        if (!(s->rate_per_us > 0.0) || !isfinite(s->rate_per_us)) return MYRI_EINVAL;
        if (!net->st[s->station].cls[s->cls].served || net->st[s->station].bufferless)
            return MYRI_EINVAL;
    }
    /* Each bufferless station has at most one feeding station (two feeders
     * could both find it idle and hand it a message at once). */
    for (unsigned b = 0; b < net->nstations; b++) {
        if (!net->st[b].bufferless) continue;
        int feeder = -1;
        for (unsigned i = 0; i < net->nstations; i++)
            for (unsigned c = 0; c < net->nclasses; c++)
                if (net->st[i].cls[c].served && net->st[i].cls[c].next_station == (int)b) {
                    if (feeder >= 0 && feeder != (int)i) return MYRI_EINVAL;
                    feeder = (int)i;
                }
    }
    return MYRI_OK;
}

/* Flow of each (station, class) from the traffic equations: classes move
 * along a chain (no branching), so follow each source's chain. */
void myri_qsim_net_offered(const myri_qsim_net *net, double *rho_out)
{
    for (unsigned i = 0; i < MYRI_QSIM_MAX_STATIONS; i++) rho_out[i] = 0.0;
    for (unsigned k = 0; k < net->nsources; k++) {
        int st = net->src[k].station, cls = net->src[k].cls;
        double rate = net->src[k].rate_per_us;
        for (unsigned hops = 0; st >= 0 && hops < 64; hops++) {
            const myri_qsim_class_spec *c = &net->st[st].cls[cls];
            rho_out[st] += rate * (double)c->service_ps / (double)MYRI_PS_PER_US;
            int nst = c->next_station;
            cls = c->next_class;
            st = nst;
        }
    }
}

/* ---- the run: warm-up, batches, stop rule ---------------------------------------- */

typedef struct nics_batches {
    double *row;   /* n rows of NSTATS batch means */
    size_t n, cap; /* cap = 2 * min_batches: pairs are merged when full */
} nics_batches;

static void run__reset_stats(nics_run *r, myri_time_ps t)
{
    for (unsigned i = 0; i < r->net->nstations; i++) {
        nics_station *s = &r->st[i];
        myri_tw_reset(&s->tw_busy, t);
        myri_tw_reset(&s->tw_lq, t);
        myri_tw_reset(&s->tw_held, t);
        for (unsigned q = 0; q < MYRI_QSIM_MAX_QUEUES; q++) myri_tw_reset(&s->tw_q[q], t);
    }
}

/* Closes a batch at t: appends the time averages since the last reset. */
static void run__collect(nics_run *r, myri_time_ps t, nics_batches *b)
{
    double *row = b->row + b->n * NSTATS;
    memset(row, 0, sizeof(double) * NSTATS);
    for (unsigned i = 0; i < r->net->nstations; i++) {
        nics_station *s = &r->st[i];
        double *x = row + i * STATS_PER_STATION;
        x[STAT_UTIL] = myri_tw_mean(&s->tw_busy, t);
        x[STAT_LQ] = myri_tw_mean(&s->tw_lq, t);
        x[STAT_BLOCKED] = myri_tw_mean(&s->tw_held, t);
        for (unsigned q = 0; q < MYRI_QSIM_MAX_QUEUES; q++) x[STAT_Q0 + q] = myri_tw_mean(&s->tw_q[q], t);
    }
    double area = shadow__area(r, t);
    row[STAT_CTRL] = r->sh_mean_us > 0.0 && t > r->batch_start_ps
                         ? (area - r->sh_area0) / (double)(t - r->batch_start_ps) *
                                   (double)MYRI_PS_PER_US / r->sh_mean_us - 1.0
                         : 0.0;
    row[STAT_ARR] = t > r->batch_start_ps ? (double)(r->arrivals - r->batch_arrivals0) /
                                                (r->lambda_per_ps * (double)(t - r->batch_start_ps)) - 1.0
                                          : 0.0;
    r->batch_arrivals0 = r->arrivals;
    r->sh_area0 = area;
    r->batch_start_ps = t;
    b->n++;
    run__reset_stats(r, t);
}

static void batches__merge(nics_batches *b)
{
    for (size_t k = 0; k < b->n / 2; k++)
        for (size_t j = 0; j < NSTATS; j++)
            b->row[k * NSTATS + j] = 0.5 * (b->row[2 * k * NSTATS + j] + b->row[(2 * k + 1) * NSTATS + j]);
    b->n /= 2;
}

static myri_qsim_est batches__est(const nics_batches *b, size_t stat)
{
    myri_qsim_est e = {0.0, INFINITY};
    myri_bm bm;
    if (myri_bm_init(&bm, 1) != MYRI_OK) return e;
    for (size_t k = 0; k < b->n; k++) myri_bm_add_batch(&bm, b->row[k * NSTATS + stat]);
    e.mean = myri_bm_mean(&bm);
    e.hw = myri_bm_halfwidth(&bm);
    myri_bm_free(&bm);
    return e;
}

/* Control-variate estimate (Lavenberg and Welch, "A perspective on the use of
 * control variables to increase the efficiency of Monte Carlo simulations",
 * Management Science 27(3), 1981): least-squares regression of the batch
 * means Y on the NCTRL control columns C (known means 0):
 *   Y_cv = mean(Y) - beta . mean(C),  beta = S_cc^-1 S_cy,
 * with the half-width t_{0.975, n-1-q} * sqrt(s2 (1/n + mean(C)' S_cc^-1 mean(C))),
 * s2 the residual variance with n - 1 - q degrees of freedom.  *corr gets the
 * multiple correlation R of Y on the controls.  Falls back to plain batch
 * means when the controls are degenerate. */
static myri_qsim_est batches__est_cv(const nics_batches *b, size_t stat, double *corr)
{
    size_t n = b->n;
    *corr = 0.0;
    if (n < NCTRL + 3) return batches__est(b, stat);
    double my = 0.0, mc[NCTRL] = {0.0};
    for (size_t k = 0; k < n; k++) {
        const double *row = b->row + k * NSTATS;
        my += row[stat];
        for (size_t c = 0; c < NCTRL; c++) mc[c] += row[STAT_ARR + c];
    }
    my /= (double)n;
    for (size_t c = 0; c < NCTRL; c++) mc[c] /= (double)n;
    double scc[NCTRL][NCTRL] = {{0.0}}, scy[NCTRL] = {0.0}, syy = 0.0;
    for (size_t k = 0; k < n; k++) {
        const double *row = b->row + k * NSTATS;
        double dy = row[stat] - my, dc[NCTRL];
        for (size_t c = 0; c < NCTRL; c++) dc[c] = row[STAT_ARR + c] - mc[c];
        syy += dy * dy;
        for (size_t c = 0; c < NCTRL; c++) {
            scy[c] += dc[c] * dy;
            for (size_t d = 0; d < NCTRL; d++) scc[c][d] += dc[c] * dc[d];
        }
    }
    double det = scc[0][0] * scc[1][1] - scc[0][1] * scc[1][0];
    if (!(det > 1e-12 * scc[0][0] * scc[1][1]) || !(syy > 0.0)) return batches__est(b, stat);
    double inv[NCTRL][NCTRL] = {{scc[1][1] / det, -scc[0][1] / det}, {-scc[1][0] / det, scc[0][0] / det}};
    double beta[NCTRL], quad = 0.0, explained = 0.0;
    for (size_t c = 0; c < NCTRL; c++) beta[c] = inv[c][0] * scy[0] + inv[c][1] * scy[1];
    for (size_t c = 0; c < NCTRL; c++) {
        explained += beta[c] * scy[c];
        for (size_t d = 0; d < NCTRL; d++) quad += mc[c] * inv[c][d] * mc[d];
    }
    double rss = syy - explained;
    if (rss < 0.0) rss = 0.0;
    unsigned df = (unsigned)(n - 1 - NCTRL);
    myri_qsim_est e;
    e.mean = my - beta[0] * mc[0] - beta[1] * mc[1];
    e.hw = myri_student_t_quantile(0.975, df) * sqrt(rss / (double)df * (1.0 / (double)n + quad));
    *corr = sqrt(fmax(0.0, explained / syy));
    return e;
}

/* The estimate of a statistic whose values lie in [lo, hi].  A batch mean
 * always does (it is a time average); the control-variate estimate is an
 * extrapolation that may not, on short runs or near saturation: then the
 * plain batch means are used (and *corr is 0). */
static myri_qsim_est batches__get(const nics_batches *b, size_t stat, bool plain, double lo, double hi,
                                  double *corr)
{
    double c = 0.0;
    myri_qsim_est e = plain ? batches__est(b, stat) : batches__est_cv(b, stat, &c);
    if (!plain && !(e.mean >= lo && e.mean <= hi && isfinite(e.hw))) {
        e = batches__est(b, stat);
        c = 0.0;
    }
    if (corr) *corr = c;
    return e;
}

static double batches__lag1(const nics_batches *b, size_t stat)
{
    if (b->n < 3) return 0.0;
    double mean = 0.0, var = 0.0, cov = 0.0;
    for (size_t k = 0; k < b->n; k++) mean += b->row[k * NSTATS + stat];
    mean /= (double)b->n;
    for (size_t k = 0; k < b->n; k++) {
        double d = b->row[k * NSTATS + stat] - mean;
        var += d * d;
        if (k > 0) cov += d * (b->row[(k - 1) * NSTATS + stat] - mean);
    }
    return var > 0.0 ? cov / var : 0.0;
}

/* Creates the engine, the components and the first arrivals. */
static myri_status run__setup(nics_run *r, const myri_qsim_net *net, const myri_qsim_opts *o)
{
    memset(r, 0, sizeof *r);
    r->net = net;
    r->sim = myri_sim_create(o->seed);
    if (!r->sim) return MYRI_ENOMEM;
    /* Sources first: the arrival streams are then the same in every model
     * with the same sources (common random numbers across models). */
    for (unsigned k = 0; k < net->nsources; k++) {
        nics_source *src = &r->src[k];
        src->spec = &net->src[k];
        src->run = r;
        src->mean_us = 1.0 / net->src[k].rate_per_us;
        src->antithetic = o->antithetic;
        char name[32];
        snprintf(name, sizeof name, "source%u", k);
        myri_component *c;
        myri_status s = myri_sim_add(r->sim, &myri_qsim_source_ops, name, src, &c);
        if (s != MYRI_OK) return s;
        myri_event ev = {.target = c, .kind = EV_ARRIVAL};
        myri_sim_schedule_in(r->sim, source__gap_ps(src, &c->rng), &ev);
    }
    for (unsigned i = 0; i < net->nstations; i++) {
        nics_station *s = &r->st[i];
        s->spec = &net->st[i];
        s->run = r;
        s->idx = (uint8_t)i;
        s->waiter = NO_STATION;
        myri_status st = myri_sim_add(r->sim, &myri_qsim_station_ops, net->st[i].name, s, &s->comp);
        if (st != MYRI_OK) return st;
        myri_tw_init(&s->tw_busy, 0, 0.0);
        myri_tw_init(&s->tw_lq, 0, 0.0);
        myri_tw_init(&s->tw_held, 0, 0.0);
        for (unsigned q = 0; q < MYRI_QSIM_MAX_QUEUES; q++) myri_tw_init(&s->tw_q[q], 0, 0.0);
    }
    double m1 = 0.0, m2 = 0.0;
    for (unsigned k = 0; k < net->nsources; k++) {
        double w = 0.0;
        int st = net->src[k].station, cls = net->src[k].cls;
        for (unsigned hops = 0; st >= 0 && hops < 64; hops++) {
            const myri_qsim_class_spec *c = &net->st[st].cls[cls];
            if (st == net->bottleneck) w += (double)c->service_ps / (double)MYRI_PS_PER_US;
            st = c->next_station;
            cls = c->next_class;
        }
        r->sh_work_us[k] = w;
        m1 += net->src[k].rate_per_us * w;
        m2 += net->src[k].rate_per_us * w * w;
    }
    r->sh_mean_us = m1 < 1.0 ? m2 / (2.0 * (1.0 - m1)) : 0.0;
    for (unsigned b = 0; b < net->nstations; b++) {
        if (!net->st[b].bufferless) continue;
        for (unsigned i = 0; i < net->nstations; i++) {
            bool feeds = false;
            for (unsigned c = 0; c < net->nclasses; c++)
                feeds |= net->st[i].cls[c].served && net->st[i].cls[c].next_station == (int)b;
            if (feeds) r->st[b].feeders[r->st[b].nfeeders++] = (uint8_t)i;
        }
    }
    return MYRI_OK;
}

static void run__teardown(nics_run *r)
{
    for (unsigned i = 0; i < MYRI_QSIM_MAX_STATIONS; i++)
        for (unsigned q = 0; q < MYRI_QSIM_MAX_QUEUES; q++) free(r->st[i].q[q].buf);
    myri_sim_destroy(r->sim);
}

static void run__results(nics_run *r, const nics_batches *b, bool plain, myri_qsim_result *out)
{
    for (unsigned i = 0; i < r->net->nstations; i++) {
        myri_qsim_station_result *sr = &out->st[i];
        nics_station *s = &r->st[i];
        size_t base = i * STATS_PER_STATION;
        sr->util = batches__get(b, base + STAT_UTIL, plain, 0.0, 1.0, NULL);
        sr->lq = batches__get(b, base + STAT_LQ, plain, 0.0, INFINITY, &sr->lq_corr);
        sr->lq_plain = batches__est(b, base + STAT_LQ);
        sr->blocked = batches__get(b, base + STAT_BLOCKED, plain, 0.0, 1.0, NULL);
        for (unsigned q = 0; q < MYRI_QSIM_MAX_QUEUES; q++)
            sr->queue[q] = batches__get(b, base + STAT_Q0 + q, plain, 0.0, INFINITY, NULL);
        for (unsigned c = 0; c < MYRI_QSIM_MAX_CLASSES; c++) {
            sr->served[c] = s->served[c];
            sr->hold_per_msg_us[c] =
                s->served[c] ? (double)s->held_ps[c] / (double)s->served[c] / (double)MYRI_PS_PER_US : 0.0;
        }
        out->found_idle[i] = s->found_idle;
        out->found_busy[i] = s->found_busy;
    }
    out->batches = b->n;
    out->lag1 = batches__lag1(b, r->net->bottleneck * STATS_PER_STATION + STAT_LQ);
    out->events = myri_sim_events(r->sim);
    out->hash = myri_sim_hash(r->sim);
}

/* Run-length plan derived from the options and the offered loads.  Lengths
 * are computed in double and checked against RUN_HORIZON_PS before any
 * conversion to an integer. */
typedef struct nics_plan {
    size_t min_batches;
    uint64_t warm, cap, min_arr;
    double lambda;           /* total external rate per us */
    myri_time_ps batch_ps;   /* initial batch length */
    myri_time_ps warm_ps;    /* length of the warm-up */
} nics_plan;

static void why__set(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void why__set(char *why, size_t n, const char *fmt, ...)
{
    if (!why || n == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
}

/* Warm-up in arrivals: about 20 relaxation times of the busiest station
 * (relaxation ~ 1/(1-rho)^2 services), at least 2000; the batch length
 * (automatic plan) is 10/(1-rho)^2 arrivals, at least 500. */
static double plan__warm_arr(const myri_qsim_opts *o, double rho_max)
{
    if (o->warmup_arrivals) return (double)o->warmup_arrivals;
    return fmax(2000.0, 20.0 / ((1.0 - rho_max) * (1.0 - rho_max)));
}

/* Checks the simulated time the plan needs against RUN_HORIZON_PS and says
 * which part is too long. */
static myri_status plan__fits(const myri_qsim_opts *o, const nics_plan *pl, double rho_max, double warm_arr,
                              double batch_arr, char *why, size_t n)
{
    const double us_per_arr = 1.0 / pl->lambda, hor_us = (double)RUN_HORIZON_PS / (double)MYRI_PS_PER_US;
    double warm_us = warm_arr * us_per_arr;
    double obs_arr = o->arrivals ? (double)o->arrivals
                                 : fmax((double)pl->min_arr, (double)pl->min_batches * batch_arr);
    double obs_us = obs_arr * us_per_arr;
    if (o->warmup_arrivals && warm_us > hor_us) {
        why__set(why, n,
                 "--warmup %llu arrivals at %g per us take %.3g us of simulated time; a run spans at "
                 "most %.3g us (expected --warmup <= %.0f)",
                 (unsigned long long)o->warmup_arrivals, pl->lambda, warm_us, hor_us, hor_us * pl->lambda);
        return MYRI_ERANGE;
    }
    if (!o->warmup_arrivals && warm_arr > (double)pl->cap) {
        why__set(why, n,
                 "lambda %g is too close to saturation for the batch plan: the busiest station's offered "
                 "utilisation %.6f needs a warm-up of %.3g arrivals (20/(1-rho)^2), more than the %llu of "
                 "--max-arrivals (expected a smaller lambda, or --warmup N)",
                 pl->lambda, rho_max, warm_arr, (unsigned long long)pl->cap);
        return MYRI_ERANGE;
    }
    if (warm_us + obs_us <= hor_us && batch_arr * us_per_arr * (double)MYRI_PS_PER_US >= 1.0) return MYRI_OK;
    if (rho_max > 0.5)
        why__set(why, n,
                 "lambda %g is too close to saturation for the batch plan: the busiest station's offered "
                 "utilisation %.6f needs a warm-up of %.3g arrivals and %zu batches of %.3g arrivals "
                 "(20/(1-rho)^2 and 10/(1-rho)^2), %.3g us of simulated time; a run spans at most %.3g us",
                 pl->lambda, rho_max, warm_arr, pl->min_batches, batch_arr, warm_us + obs_us, hor_us);
    else
        why__set(why, n,
                 "lambda %g is too small: the %.3g arrivals of the run (warm-up %.3g, then %.3g) take %.3g us "
                 "of simulated time; a run spans at most %.3g us (expected lambda >= %.3g per us)",
                 pl->lambda, warm_arr + obs_arr, warm_arr, obs_arr, warm_us + obs_us, hor_us,
                 (warm_arr + obs_arr) / hor_us);
    return MYRI_ERANGE;
}

static myri_status run__plan(const myri_qsim_net *net, const myri_qsim_opts *opts, nics_plan *pl, char *why,
                             size_t n)
{
    double rho[MYRI_QSIM_MAX_STATIONS], rho_max = 0.0;
    unsigned busiest = 0;
    myri_qsim_net_offered(net, rho);
    for (unsigned i = 0; i < net->nstations; i++)
        if (rho[i] > rho_max) rho_max = rho[i], busiest = i;
    if (!(rho_max < 1.0)) {
        why__set(why, n, "station %s is unstable: offered utilisation %.4f >= 1", net->st[busiest].name,
                 rho_max);
        return MYRI_EMODEL;
    }
    memset(pl, 0, sizeof *pl);
    for (unsigned k = 0; k < net->nsources; k++) pl->lambda += net->src[k].rate_per_us;
    pl->min_batches = opts->min_batches ? opts->min_batches : 32;
    pl->cap = opts->max_arrivals ? opts->max_arrivals : 400000000ull;
    pl->min_arr = opts->min_arrivals ? opts->min_arrivals : 250000;
    double warm_arr = plan__warm_arr(opts, rho_max);
    double batch_arr = opts->arrivals ? (double)opts->arrivals / (double)pl->min_batches
                                      : fmax(500.0, 10.0 / ((1.0 - rho_max) * (1.0 - rho_max)));
    myri_status st = plan__fits(opts, pl, rho_max, warm_arr, batch_arr, why, n);
    if (st != MYRI_OK) return st;
    pl->warm = (uint64_t)warm_arr;
    pl->warm_ps = (myri_time_ps)(warm_arr / pl->lambda * (double)MYRI_PS_PER_US);
    pl->batch_ps = (myri_time_ps)(batch_arr / pl->lambda * (double)MYRI_PS_PER_US);
    return MYRI_OK;
}

myri_status myri_qsim_check(const myri_qsim_net *net, const myri_qsim_opts *opts, char *why, size_t n)
{
    why__set(why, n, "invalid network or options");
    if (!net || !opts || myri_qsim_net_check(net) != MYRI_OK) return MYRI_EINVAL;
    if (opts->arrivals == 0 && !(opts->precision > 0.0 && opts->precision < 1.0)) {
        why__set(why, n, "precision %g out of range; expected 0 < precision < 1", opts->precision);
        return MYRI_EINVAL;
    }
    nics_plan pl;
    return run__plan(net, opts, &pl, why, n);
}

/* Runs the warm-up and clears every statistic; returns its end time. */
static myri_time_ps run__warmup(nics_run *r, const nics_plan *pl, myri_qsim_result *out)
{
    myri_time_ps t = pl->warm_ps;
    myri_sim_run(r->sim, t, 0);
    out->warmup_arrivals = r->arrivals;
    run__reset_stats(r, t);
    for (unsigned i = 0; i < r->net->nstations; i++) {
        nics_station *s = &r->st[i];
        memset(s->served, 0, sizeof s->served);
        memset(s->held_ps, 0, sizeof s->held_ps);
        s->found_idle = s->found_busy = 0;
    }
    r->sh_area0 = shadow__area(r, t);
    r->batch_start_ps = t;
    r->batch_arrivals0 = r->arrivals;
    r->lambda_per_ps = pl->lambda / (double)MYRI_PS_PER_US;
    return t;
}

/* Runs batches from t until the fixed length or the stop rule; returns the
 * end time and the final batch length in *batch_ps. */
static myri_time_ps run__batches(nics_run *r, const myri_qsim_opts *opts, const nics_plan *pl, myri_time_ps t,
                                 nics_batches *b, myri_time_ps *batch_ps, myri_qsim_result *out)
{
    size_t stat = r->net->bottleneck * STATS_PER_STATION + STAT_LQ;
    for (;;) {
        if (*batch_ps > RUN_HORIZON_PS - t) {
            out->time_limit = true; /* the next batch would pass the horizon */
            return t;
        }
        t += *batch_ps;
        myri_sim_run(r->sim, t, 0);
        run__collect(r, t, b);
        uint64_t done = r->arrivals - out->warmup_arrivals;
        if (opts->arrivals) {
            if (b->n == pl->min_batches) {
                out->converged = true;
                return t;
            }
            continue;
        }
        if (b->n >= pl->min_batches && done >= pl->min_arr) {
            myri_qsim_est e = batches__get(b, stat, opts->plain_batch_means, 0.0, INFINITY, NULL);
            if (e.hw <= opts->precision * fabs(e.mean)) {
                out->converged = true;
                return t;
            }
        }
        if (done >= pl->cap) return t;
        if (b->n == b->cap) {
            batches__merge(b);
            *batch_ps *= 2;
        }
    }
}

myri_status myri_qsim_run(const myri_qsim_net *net, const myri_qsim_opts *opts, myri_qsim_result *out)
{
    if (!net || !opts || !out) return MYRI_EINVAL;
    myri_status st = myri_qsim_net_check(net);
    if (st != MYRI_OK) return st;
    if (opts->arrivals == 0 && !(opts->precision > 0.0 && opts->precision < 1.0)) return MYRI_EINVAL;
    memset(out, 0, sizeof *out);
    nics_plan pl;
    if ((st = run__plan(net, opts, &pl, NULL, 0)) != MYRI_OK) return st;
    nics_batches b = {.cap = 2 * pl.min_batches};
    b.row = malloc(sizeof(double) * NSTATS * b.cap);
    nics_run *r = calloc(1, sizeof *r);
    if (!b.row || !r) {
        free(b.row);
        free(r);
        return MYRI_ENOMEM;
    }
    st = run__setup(r, net, opts);
    if (st == MYRI_OK) {
        myri_time_ps batch_ps = pl.batch_ps;
        myri_time_ps t0 = run__warmup(r, &pl, out);
        myri_time_ps t = run__batches(r, opts, &pl, t0, &b, &batch_ps, out);
        out->arrivals = r->arrivals - out->warmup_arrivals;
        out->sim_time_us = (double)(t - t0) / (double)MYRI_PS_PER_US;
        out->t0_ps = t0;
        out->t1_ps = t;
        out->batch_us = (double)batch_ps / (double)MYRI_PS_PER_US;
        run__results(r, &b, opts->plain_batch_means, out);
        st = myri_qsim_result_check(net, out, NULL, 0);
    }
    run__teardown(r);
    free(r);
    free(b.row);
    return st;
}

/* One estimate in its physical range: a finite mean in [lo, hi] (up to a
 * rounding slack) and a finite, non-negative half-width. */
static bool est__ok(myri_qsim_est e, double lo, double hi)
{
    const double eps = 1e-9;
    return isfinite(e.mean) && e.mean >= lo - eps && e.mean <= hi + eps && e.hw >= 0.0 && isfinite(e.hw);
}

myri_status myri_qsim_result_check(const myri_qsim_net *net, const myri_qsim_result *r, char *why, size_t n)
{
    if (!net || !r) return MYRI_EINVAL;
    for (unsigned i = 0; i < net->nstations && i < MYRI_QSIM_MAX_STATIONS; i++) {
        const myri_qsim_station_result *s = &r->st[i];
        const char *bad = NULL;
        myri_qsim_est e = {0.0, 0.0};
        if (!est__ok(s->util, 0.0, 1.0)) bad = "utilisation", e = s->util;
        else if (!est__ok(s->blocked, 0.0, 1.0)) bad = "blocked fraction", e = s->blocked;
        else if (!est__ok(s->lq, 0.0, INFINITY)) bad = "queue length", e = s->lq;
        for (unsigned q = 0; !bad && q < net->st[i].nqueues && q < MYRI_QSIM_MAX_QUEUES; q++)
            if (!est__ok(s->queue[q], 0.0, INFINITY)) bad = "per-queue length", e = s->queue[q];
        if (bad) {
            why__set(why, n,
                     "station %s: %s %g +- %g is outside its physical range (%s, finite); the run is "
                     "not a result (too short, or too close to saturation)",
                     net->st[i].name, bad, e.mean, e.hw,
                     strcmp(bad, "utilisation") == 0 || strcmp(bad, "blocked fraction") == 0 ? "0 to 1" : ">= 0");
            return MYRI_ERANGE;
        }
    }
    return MYRI_OK;
}

/* ---- independent jobs on several threads ------------------------------------------ */

typedef struct nics_pool {
    myri_qsim_job *jobs;
    size_t njobs, next;
    pthread_mutex_t lock;
} nics_pool;

static double wall__s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *pool__worker(void *arg)
{
    nics_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t k = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (k >= p->njobs) return NULL;
        myri_qsim_job *j = &p->jobs[k];
        double t0 = wall__s();
        j->status = myri_qsim_run(&j->net, &j->opts, &j->result);
        j->wall_s = wall__s() - t0;
    }
}

myri_status myri_qsim_run_jobs(myri_qsim_job *jobs, size_t njobs, unsigned threads)
{
    if (!jobs && njobs) return MYRI_EINVAL;
    if (threads == 0) threads = 1;
    if (threads > 16) threads = 16;
    nics_pool pool = {.jobs = jobs, .njobs = njobs};
    if (pthread_mutex_init(&pool.lock, NULL) != 0) return MYRI_ENOMEM;
    pthread_t tid[16];
    unsigned started = 0;
    for (unsigned i = 1; i < threads && i < njobs; i++) {
        if (pthread_create(&tid[started], NULL, pool__worker, &pool) != 0) break;
        started++;
    }
    pool__worker(&pool); /* the calling thread works too */
    for (unsigned i = 0; i < started; i++) pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&pool.lock);
    myri_status worst = MYRI_OK;
    for (size_t k = 0; k < njobs; k++)
        if (jobs[k].status != MYRI_OK && worst == MYRI_OK) worst = jobs[k].status;
    return worst;
}
