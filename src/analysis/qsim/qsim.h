/* qsim.h -- the queueing simulator: simulation models of the Myrinet NIC of seed 004 on the engine.
 *
 * Seed 004 (Cherukuri, Kandiraju, Gautam, Sivasubramaniam, "Analytical model
 * and performance analysis of a network interface card") models the send side
 * of a Myrinet NIC as three stations -- LANai (the processor), HDMA (host DMA)
 * and NSDMA (network send DMA) -- and three message classes that switch into
 * each other: doorbell -> descriptor -> data.  Its Section 4 checks its QNA
 * model against two simulation models; this module implements both, plus a
 * send-and-receive extension, as small open networks of stations:
 *
 *   - a source component per external stream (Poisson arrivals, its own
 *     random stream from the component rng);
 *   - a station component per server: one server, a set of FCFS queues, a
 *     per-class service time (deterministic or exponential) and a per-class
 *     route to the next (station, class) or out of the network;
 *   - a station may have no waiting room ("bufferless": NSDMA, NRDMA): a
 *     message is only handed to it when it is idle.  A class whose next
 *     station is bufferless may start service only when that station is idle;
 *     what the server does when it is not is `myri_qsim_blocking`.
 *
 * Several queues at one station are served by cyclic polling with zero
 * switch-over time and a discipline (limited-1, gated, exhaustive); one queue
 * is plain FCFS.  The same station code runs a single M/M/1 or M/D/1 node
 * (see myri_qsim_net_single), which the tests compare with exact results.
 *
 * Statistics: time-weighted utilisation (busy, including time blocked while
 * holding a message), queue length (messages waiting, not in service, not
 * held -- unless the station says held_queued: then a held message still
 * counts in its queue), per-queue lengths and blocked fraction; after a warm-up they are
 * collected in batches of equal simulated length (batch means, 95 %
 * Student-t intervals); the run stops when the half-width of the bottleneck
 * station's queue length is within `precision` of its mean, or after a fixed
 * number of arrivals.
 *
 * Times are integer picoseconds (the engine's unit); service times are given
 * in microseconds in the paper (Table 2) and converted exactly.
 */
#ifndef MYRI_ANALYSIS_QSIM_H
#define MYRI_ANALYSIS_QSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "myri/sim.h"
#include "myri/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_json myri_json;

#define MYRI_QSIM_MAX_STATIONS 6
#define MYRI_QSIM_MAX_CLASSES 8
#define MYRI_QSIM_MAX_QUEUES 4
#define MYRI_QSIM_MAX_SOURCES 4

typedef enum myri_qsim_dist { MYRI_QSIM_DET = 0, MYRI_QSIM_EXP = 1 } myri_qsim_dist;

/* Polling discipline at a station with several queues (ignored with one). */
typedef enum myri_qsim_discipline {
    MYRI_QSIM_LIMITED = 0,   /* one message per visit (seed 004's abstract) */
    MYRI_QSIM_GATED = 1,     /* the messages present when the visit starts */
    MYRI_QSIM_EXHAUSTIVE = 2 /* until the queue is empty */
} myri_qsim_discipline;

/* What a server does with a message whose next (bufferless) station is busy:
 *   HOLD: takes it anyway and stays busy, holding it, until the next station
 *         frees; then serves it (LANai programs NSDMA when NSDMA frees).
 *   SKIP: leaves it queued and serves something else (another queue, or the
 *         next eligible message of an FCFS queue); it is served when the next
 *         station is idle and the server picks it up.
 * Seed 004 does not say which; HOLD reproduces its LANai utilisations
 * (docs/NICSIM.md), so it is the default. */
typedef enum myri_qsim_blocking { MYRI_QSIM_HOLD = 0, MYRI_QSIM_SKIP = 1 } myri_qsim_blocking;

/* Service and route of one class at one station. */
typedef struct myri_qsim_class_spec {
    bool served;         /* the class visits this station */
    uint8_t queue;       /* which of the station's queues holds it */
    myri_qsim_dist dist;
    uint64_t service_ps; /* mean service time */
    int8_t next_station; /* -1: leaves the network */
    int8_t next_class;
} myri_qsim_class_spec;

typedef struct myri_qsim_station_spec {
    const char *name;
    bool bufferless;     /* no waiting room: arrivals only when idle */
    uint8_t nqueues;     /* 1 = FCFS; more = cyclic polling in queue order */
    const char *queue_names[MYRI_QSIM_MAX_QUEUES];
    myri_qsim_discipline discipline;
    myri_qsim_blocking blocking;
    /* HOLD: a held message stays counted in its queue (and in lq) until it is
     * served -- the SRAM queues of seed 004's model 2, where a data message
     * LANai has polled stays in the data queue until NSDMA takes it. */
    bool held_queued;
    myri_qsim_class_spec cls[MYRI_QSIM_MAX_CLASSES];
} myri_qsim_station_spec;

typedef struct myri_qsim_source_spec {
    uint8_t station, cls;
    double rate_per_us;  /* Poisson rate of external arrivals */
} myri_qsim_source_spec;

typedef struct myri_qsim_net {
    uint8_t nstations, nclasses, nsources;
    const char *class_names[MYRI_QSIM_MAX_CLASSES];
    myri_qsim_station_spec st[MYRI_QSIM_MAX_STATIONS];
    myri_qsim_source_spec src[MYRI_QSIM_MAX_SOURCES];
    uint8_t bottleneck;  /* station whose queue length drives the stop rule */
} myri_qsim_net;

/* ---- the seed-004 models --------------------------------------------------- */
typedef enum myri_qsim_model {
    MYRI_QSIM_POOLED = 0,  /* model 1 (Section 4.1): one pooled FCFS LANai queue */
    MYRI_QSIM_POLLING = 1, /* model 2 (Section 4.2): LANai polls three queues */
    MYRI_QSIM_SENDRECV = 2 /* extension: send and receive (docs/NICSIM.md) */
} myri_qsim_model;

/* Station indices of the seed-004 networks. */
enum { MYRI_QSIM_LANAI = 0, MYRI_QSIM_HDMA = 1, MYRI_QSIM_NSDMA = 2, MYRI_QSIM_NRDMA = 3 };
/* Class indices: send side (seed 004) and receive side (extension). */
enum {
    MYRI_QSIM_DOORBELL = 0, MYRI_QSIM_DESCRIPTOR = 1, MYRI_QSIM_DATA = 2,
    MYRI_QSIM_RDOORBELL = 3, MYRI_QSIM_RDESCRIPTOR = 4, MYRI_QSIM_RPACKET = 5, MYRI_QSIM_RDATA = 6
};

/* Service times of seed 004, Table 2 ("measured on a Myrinet NIC", 4 KB
 * blocks), in picoseconds. */
#define MYRI_QSIM_T_LANAI_DOORBELL_PS 22000000ull   /* 22 us */
#define MYRI_QSIM_T_LANAI_DESCRIPTOR_PS 120000ull   /* 0.12 us */
#define MYRI_QSIM_T_LANAI_PROGRAM_PS 10000000ull    /* 10 us to program NSDMA (Sec. 3.1) */
#define MYRI_QSIM_T_HDMA_DOORBELL_PS 21000000ull    /* 21 us */
#define MYRI_QSIM_T_HDMA_DESCRIPTOR_PS 68315400ull  /* 68.3154 us */
#define MYRI_QSIM_T_NSDMA_DATA_PS 52688700ull       /* 52.6887 us */

/* The six doorbell arrival rates (per us) of seed 004, Tables 3-9. */
#define MYRI_QSIM_NRATES 6
extern const double myri_qsim_paper_rates[MYRI_QSIM_NRATES];

/* Fills *net with a seed-004 model at doorbell rate lambda_per_us (send
 * side) and rx_lambda_per_us (receive side; sendrecv only).  Returns
 * MYRI_EINVAL on a bad model or a negative rate. */
myri_status myri_qsim_net_seed004(myri_qsim_net *net, myri_qsim_model model, double lambda_per_us,
                               double rx_lambda_per_us, myri_qsim_discipline disc,
                               myri_qsim_blocking blocking);
/* A single FCFS station fed by one Poisson source: M/M/1 (EXP) or M/D/1. */
void myri_qsim_net_single(myri_qsim_net *net, double lambda_per_us, uint64_t service_ps,
                       myri_qsim_dist dist);
/* Checks a network description (indices, routes to existing stations,
 * bufferless stations with a single class of feeder, positive times).
 * Returns MYRI_OK or MYRI_EINVAL. */
myri_status myri_qsim_net_check(const myri_qsim_net *net);
/* Offered utilisation of each station from the traffic equations (rates
 * times mean service times); out has MYRI_QSIM_MAX_STATIONS entries. */
void myri_qsim_net_offered(const myri_qsim_net *net, double *rho_out);

/* ---- runs ---------------------------------------------------------------------- */
typedef struct myri_qsim_opts {
    uint64_t seed;
    uint64_t arrivals;        /* >0: fixed run of this many arrivals after warm-up */
    double precision;         /* else: stop when half-width <= precision * mean (0.02) */
    uint64_t max_arrivals;    /* cap for the precision rule (0: 4e8) */
    uint64_t min_arrivals;    /* floor for the precision rule (0: 250000) */
    uint64_t warmup_arrivals; /* 0: automatic (see qsim.c) */
    unsigned min_batches;     /* batches before the stop rule applies (0: 32) */
    bool antithetic;          /* use 1-U for the arrival streams */
    bool plain_batch_means;   /* true: no control variate (see myri_qsim_result) */
} myri_qsim_opts;

/* A batch-means estimate: mean and 95 % half-width. */
typedef struct myri_qsim_est {
    double mean, hw;
} myri_qsim_est;

typedef struct myri_qsim_station_result {
    myri_qsim_est util;          /* fraction of time busy (serving or holding) */
    myri_qsim_est lq;            /* mean number waiting (not in service or held) */
    myri_qsim_est lq_plain;      /* the same without the control variate */
    double lq_corr;           /* correlation of batch lq with the control */
    myri_qsim_est blocked;       /* fraction of time holding a message (HOLD) */
    myri_qsim_est queue[MYRI_QSIM_MAX_QUEUES]; /* per-queue mean lengths */
    double hold_per_msg_us[MYRI_QSIM_MAX_CLASSES]; /* mean time held per message */
    uint64_t served[MYRI_QSIM_MAX_CLASSES];        /* completions after warm-up */
} myri_qsim_station_result;

typedef struct myri_qsim_result {
    myri_qsim_station_result st[MYRI_QSIM_MAX_STATIONS];
    uint64_t arrivals;        /* external arrivals after warm-up */
    uint64_t warmup_arrivals;
    uint64_t events;          /* engine events executed (including warm-up) */
    uint64_t hash;            /* engine event-sequence hash */
    double sim_time_us;       /* observed simulated time after warm-up */
    uint64_t t0_ps, t1_ps;    /* the observation window [end of warm-up, end] */
    size_t batches;
    double batch_us;          /* length of one batch */
    double lag1;              /* lag-1 autocorrelation of the bottleneck's batch means */
    bool converged;           /* precision rule met (always true for fixed runs) */
    bool time_limit;          /* stopped at the longest simulated time a run may span */
    /* Pairs (A, B) of completions used by the p estimate: data messages
     * served by LANai that found the next station idle / busy. */
    uint64_t found_idle[MYRI_QSIM_MAX_STATIONS], found_busy[MYRI_QSIM_MAX_STATIONS];
} myri_qsim_result;

/* Runs the network on the engine.  Returns MYRI_OK, MYRI_EINVAL (bad net or
 * options), MYRI_ENOMEM, MYRI_EMODEL (a station offered utilisation >= 1),
 * or MYRI_ERANGE: the run plan does not fit the longest simulated time a run
 * may span, 2^62 ps = 4.6e12 us (lambda too small, too close to saturation for the
 * batch plan, or a warm-up too long; see myri_qsim_check), or an estimate
 * came out of its physical range (see myri_qsim_result_check): *out is then
 * not a result.  Deterministic: same net and opts, same result and hash. */
myri_status myri_qsim_run(const myri_qsim_net *net, const myri_qsim_opts *opts, myri_qsim_result *out);
/* The checks myri_qsim_run makes before running, with the reason of a
 * failure in why[0..n) (may be NULL): same statuses. */
myri_status myri_qsim_check(const myri_qsim_net *net, const myri_qsim_opts *opts, char *why, size_t n);
/* MYRI_OK when every estimate of r is in its physical range: utilisation
 * and blocked fraction in [0, 1], queue lengths >= 0, means and half-widths
 * finite; else MYRI_ERANGE with the station and figure in why. */
myri_status myri_qsim_result_check(const myri_qsim_net *net, const myri_qsim_result *r, char *why, size_t n);

/* Runs several independent jobs on up to `threads` threads (each job's
 * result depends only on its inputs, never on scheduling).  status[i] gets
 * each job's status. */
typedef struct myri_qsim_job {
    myri_qsim_net net;
    myri_qsim_opts opts;
    myri_qsim_result result;
    myri_status status;
    double wall_s;
} myri_qsim_job;
myri_status myri_qsim_run_jobs(myri_qsim_job *jobs, size_t njobs, unsigned threads);

/* Writes a result as the `nodes` (and `queues` for several queues at the
 * first station) members of the current JSON object. */
void myri_qsim_result_json(const myri_qsim_net *net, const myri_qsim_result *r, myri_json *j);
/* Mixes a result's estimates into a 64-bit hash (FNV-1a over the doubles). */
uint64_t myri_qsim_result_hash(const myri_qsim_result *r, uint64_t h);

/* ---- the simulation part of `myri reproduce seed004` ------------------------- */
/* Both models at the six rates, each to the precision on the HDMA queue
 * length.  Run k (rate index) of both models uses the same seed, so their
 * arrival streams are identical (common random numbers: the differences of
 * Tables 5-7 are sharper than each value).  Jobs run on `threads` threads;
 * results do not depend on the thread count. */
typedef struct myri_qsim_seed004 {
    myri_qsim_job job[2][MYRI_QSIM_NRATES]; /* [MYRI_QSIM_POOLED / MYRI_QSIM_POLLING][rate] */
    double wall_s;                    /* wall time of all runs */
    uint64_t arrivals, events;        /* totals including warm-up */
    uint64_t hash;                    /* hash of all results */
} myri_qsim_seed004;

myri_status myri_qsim_seed004_run(uint64_t seed, double precision, unsigned threads, bool plain,
                               myri_qsim_blocking blocking, myri_qsim_discipline disc, myri_qsim_seed004 *out);

/* ---- the paper's printed values (seed 004) --------------------------------- */
typedef struct myri_qsim_paper_row {
    double lambda;
    double t4_doorbell, t4_descriptor, t4_data;    /* Table 4 (model 2 queues) */
    double t5_lanai1, t5_lanai2, t5_hdma1, t5_hdma2, t5_nsdma1, t5_nsdma2; /* Table 5 */
    double t6_hdma1, t6_hdma2;                     /* Table 6 (HDMA queue) */
    double t7_lanai1, t7_lanai2;                   /* Table 7 (LANai queue) */
    double t9_qna, t9_sim;                         /* Table 9 (LANai queue) */
} myri_qsim_paper_row;
extern const myri_qsim_paper_row myri_qsim_paper[MYRI_QSIM_NRATES];

/* ---- SVG plots (plot.c) ------------------------------------------------------- */
typedef struct myri_qsim_series {
    const char *label;
    size_t n;
    const double *x, *y;
    const double *err;   /* half-widths for error bars, or NULL */
    bool dashed, markers;
    int colour;          /* palette index + 1; 0 = by position in the plot */
    int shape;           /* marker: 0 circle, 1 square, 2 triangle, 3 diamond, 4 triangle down */
    bool open;           /* hollow marker (no fill) */
    bool no_line;        /* points only */
    double dodge;        /* horizontal offset of markers and error bars, pixels (coincident series) */
} myri_qsim_series;

typedef struct myri_qsim_plot {
    const char *title, *xlabel, *ylabel;
    bool log_y;
    size_t nseries;
    const myri_qsim_series *series;
} myri_qsim_plot;

/* Writes the plot as a standalone SVG (1060 x 500, legend right of the frame)
 * to `out`.  Solid lines are drawn first, wide and translucent, dashed lines
 * over them, markers over every line, so no series hides another; data are
 * inset from the frame so no marker is cut.  Returns MYRI_OK,
 * MYRI_EINVAL (no series or no points), MYRI_EIO on write error. */
myri_status myri_qsim_plot_svg(const myri_qsim_plot *p, FILE *out);

/* Component types (listed in src/app/registry.c): a station
 * ("nicsim-station") and a Poisson source of one class ("nicsim-source"). */
extern const myri_component_ops myri_qsim_station_ops;
extern const myri_component_ops myri_qsim_source_ops;

#ifdef __cplusplus
}
#endif

#endif
