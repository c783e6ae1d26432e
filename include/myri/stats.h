/* stats.h -- statistics collected during a run.
 *
 *  - myri_tw: time-weighted average of a piecewise-constant quantity
 *    (queue length, busy flag -> utilisation).
 *  - myri_hist: log-linear histogram of non-negative integers (for example
 *    latencies in ps) with percentiles; values below 2^(precision_bits+1) are
 *    kept exactly, larger ones with a relative error below 2^-precision_bits.
 *    Its sum is an exact integer, so histograms recorded apart (partitions,
 *    ranks) merge into one that is bit for bit the histogram of all samples.
 *  - myri_bm: batch means with a Student-t 95 % confidence interval and a
 *    stop rule "half-width below X % of the mean".
 *
 * Warm-up: call the *_reset functions at the end of the warm-up period.
 *
 * Merging: only myri_hist merges exactly (myri_hist_merge).  myri_tw keeps a
 * double integral of one quantity over one window, and myri_bm the batches of
 * one ordered stream; neither is a sum of per-sample terms that parts of a run
 * could add up exactly (the batches of a split stream are other batches), so
 * they have no merge.
 */
#ifndef MYRI_STATS_H
#define MYRI_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "myri/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- time-weighted average ------------------------------------------- */
typedef struct myri_tw {
    uint64_t start_ps;  /* start of the observation window */
    uint64_t last_ps;   /* time of the last change */
    double value;       /* current value */
    double area;        /* integral of value over [start, last] in value*ps */
} myri_tw;

void myri_tw_init(myri_tw *tw, uint64_t t_ps, double v0);
/* The quantity changes to v at time t_ps (t_ps >= last change). */
void myri_tw_set(myri_tw *tw, uint64_t t_ps, double v);
/* Adds delta to the current value at time t_ps. */
void myri_tw_add(myri_tw *tw, uint64_t t_ps, double delta);
/* Time average over [start, t_end_ps]; the current value if the window is empty. */
double myri_tw_mean(const myri_tw *tw, uint64_t t_end_ps);
/* Restarts the window at t_ps keeping the current value (end of warm-up). */
void myri_tw_reset(myri_tw *tw, uint64_t t_ps);

/* ---- histogram --------------------------------------------------------- */
typedef struct myri_hist myri_hist;

/* precision_bits in 1..16 (7 gives < 0.8 % relative error).  NULL on ENOMEM
 * or bad argument. */
myri_hist *myri_hist_create(unsigned precision_bits);
void myri_hist_destroy(myri_hist *h);
void myri_hist_add(myri_hist *h, uint64_t v);
void myri_hist_reset(myri_hist *h);
uint64_t myri_hist_count(const myri_hist *h);
uint64_t myri_hist_min(const myri_hist *h);   /* exact; 0 if empty */
uint64_t myri_hist_max(const myri_hist *h);   /* exact; 0 if empty */
/* The exact (128-bit integer) sum rounded to the nearest double, divided by
 * the count: correctly rounded while the sum is below 2^53; 0 if empty. */
double myri_hist_mean(const myri_hist *h);
/* The smallest recorded bucket value v such that at least p (0..1) of the
 * samples are <= v ("nearest rank"); exact for exactly-kept values, and
 * clamped to [min, max].  0 if empty. */
uint64_t myri_hist_percentile(const myri_hist *h, double p);
/* Adds every sample of src to dst (bucket counts, count, exact sum, min,
 * max), src unchanged: merging the histograms of any split of the samples, in
 * any order, gives the same count, min, max, mean and percentiles, bit for
 * bit, as one histogram that recorded them all.  MYRI_EINVAL if either is
 * NULL or their precisions differ; MYRI_ERANGE (dst unchanged) if the merged
 * count would exceed 2^64 - 1. */
myri_status myri_hist_merge(myri_hist *dst, const myri_hist *src);

/* A histogram as flat words (the same on every process of one build: MPI
 * ranks send it, docs/RANKS.md): myri_hist_pack writes it into buf if cap
 * (words) is enough and returns the words it needs (call with buf NULL to
 * size it); myri_hist_unpack makes h (same precision) that histogram, bit
 * for bit (MYRI_EINVAL, h unchanged, on a precision or size that does not fit). */
size_t myri_hist_pack(const myri_hist *h, uint64_t *buf, size_t cap);
myri_status myri_hist_unpack(myri_hist *h, const uint64_t *buf, size_t nwords);

/* ---- batch means --------------------------------------------------------- */
typedef struct myri_bm {
    double *batch;      /* completed batch means */
    size_t n, cap;
    double cur_sum;     /* observations of the open batch */
    uint64_t cur_n;
    uint64_t batch_size;/* observations per batch (observe mode) */
} myri_bm;

/* batch_size: observations per batch for myri_bm_observe (>= 1).  Batches
 * whose mean the caller computes itself (time-weighted ones) are added with
 * myri_bm_add_batch. */
myri_status myri_bm_init(myri_bm *bm, uint64_t batch_size);
void myri_bm_free(myri_bm *bm);
myri_status myri_bm_observe(myri_bm *bm, double x);
myri_status myri_bm_add_batch(myri_bm *bm, double batch_mean);
void myri_bm_reset(myri_bm *bm); /* drops all batches (end of warm-up) */
size_t myri_bm_batches(const myri_bm *bm);
double myri_bm_mean(const myri_bm *bm); /* mean of batch means */
/* 95 % half-width t_{0.975,k-1} * s / sqrt(k) over k >= 2 batches; INFINITY
 * with fewer. */
double myri_bm_halfwidth(const myri_bm *bm);
/* True when at least min_batches batches exist and halfwidth <= rel * |mean|
 * (rel = 0.02 for "+-2 %").  A zero mean with zero half-width counts as
 * converged. */
int myri_bm_converged(const myri_bm *bm, double rel, size_t min_batches);

/* Student t quantile t_{p, df} for p in (0.5, 1), df >= 1. */
double myri_student_t_quantile(double p, unsigned df);

#ifdef __cplusplus
}
#endif

#endif
