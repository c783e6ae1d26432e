/* sweep.h -- the `sweep:` section both scenario jobs read (docs/SCENARIOS.md):
 * one scenario key, the values it takes in order, and how many runs (seeds)
 * each value gets.  The fabric job runs each value once; the system job runs
 * each value `runs` times with seeds seed, seed+1, ... and reports every
 * figure's mean with its 95 % confidence interval over the runs. */
#ifndef MYRI_APP_SWEEP_H
#define MYRI_APP_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "myri/config.h"
#include "app/run_opts.h"
#include "myri/job.h"

typedef struct myri_sweep {
    const char *key;          /* "" : no sweep */
    const myri_node *values;  /* the list of values */
    int64_t runs;             /* runs (seeds) per value, 1 .. MYRI_SWEEP_MAX_RUNS */
} myri_sweep;

#define MYRI_SWEEP_MAX_VALUES 256
#define MYRI_SWEEP_MAX_RUNS 100

/* The `sweep` table (key, values, runs), for a job's parameter sets. */
extern const myri_param myri_sweep_params[];
extern const size_t myri_sweep_nparams;

/* The parameter the dotted key names in the job's sets and the struct it
 * writes into (*out), or NULL. */
const myri_param *myri_sweep_find_param(const myri_pset *ps, size_t nps, const char *key, void **out);

/* Checks the section: the key is a scenario key with a scalar value (not
 * sweep.* nor one of `refused`, NULL-terminated keys the job cannot vary
 * between runs), the values a list of 1 to 256 scalars, no --pcap/--vcd (they
 * record one run).  MYRI_EINPUT with FILE:LINE:COL in err. */
myri_status myri_sweep_check(const myri_sweep *s, const myri_pset *ps, size_t nps, const myri_node *root,
                             const char *const *refused, const myri_run_opts *opts, myri_error *err);

/* Writes value i of the sweep into the job's configuration (the sets of a
 * configuration loaded from the same document).  MYRI_EINPUT with err. */
myri_status myri_sweep_apply(const myri_sweep *s, const myri_pset *ps, size_t nps, size_t i, myri_error *err);

/* Mean and half-width of the 95 % confidence interval (Student t, n - 1
 * degrees of freedom) of x[0..n-1]; half-width 0 for n = 1 (one run: no
 * interval; callers print it as "-"). */
void myri_sweep_ci95(const double *x, size_t n, double *mean, double *halfwidth);

#endif
