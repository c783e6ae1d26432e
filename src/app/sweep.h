/* sweep.h -- the `sweep:` section both scenario jobs read (docs/SCENARIOS.md):
 * one scenario key, the values it takes in order, and how many runs (seeds)
 * each value gets.  The fabric job runs each value once; the system job runs
 * each value `runs` times with seeds seed, seed+1, ... and reports every
 * figure's mean with its 95 % confidence interval over the runs. */
#ifndef MYRI_APP_SWEEP_H
#define MYRI_APP_SWEEP_H

#include <stdbool.h>
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

/* ---- a sweep spread over ranks (docs/RANKS.md) -------------------------------
 * A sweep's units of work are its (value, run) pairs, numbered
 * unit = value x runs + run.  With opts->ranks (the myri program under mpirun),
 * unit u runs on rank u mod R (a static round-robin); every process logs the
 * result of each of its units, the logs are gathered on rank 0, and rank 0
 * takes the records in unit order -- the order of the one-process run -- to
 * fold them and print the one report.  Without opts->ranks the same code runs
 * every unit in this process, so one process and R ranks print the same. */

/* True if unit `unit` runs in this process. */
bool myri_sweep_mine(const myri_run_opts *opts, size_t unit);
/* True if this process prints the report (rank 0, or no ranks). */
bool myri_sweep_reports(const myri_run_opts *opts);

/* One process's records, in the order its units ran. */
typedef struct myri_sweep_log {
    unsigned char *b;
    size_t len, cap;
} myri_sweep_log;

/* Appends unit `unit`'s record: its status, the error when it failed (err),
 * and `len` bytes of the job's result (the same program reads them back).
 * MYRI_ENOMEM if it could not be kept. */
myri_status myri_sweep_log_put(myri_sweep_log *log, size_t unit, myri_status st, const myri_error *err,
                               const void *res, size_t len);

/* Every process's log, on the reporting process. */
typedef struct myri_sweep_logs {
    unsigned char *all; /* the logs one after another */
    size_t *len, *at;   /* per rank: its log's length, the next record's offset in it */
    size_t nranks;
} myri_sweep_logs;

/* Gathers the logs (collective: every rank calls it once per sweep, whatever
 * happened to its units); takes over `mine`'s bytes.  MYRI_OK on every rank,
 * or the exchange's failure with err. */
myri_status myri_sweep_gather(const myri_run_opts *opts, myri_sweep_log *mine, myri_sweep_logs *all,
                              myri_error *err);

/* Unit `unit`'s record on the reporting process (units taken in order 0, 1,
 * ... until one failed): its status (a failure with its error in err) and its
 * result bytes (*res, *len). */
myri_status myri_sweep_take(myri_sweep_logs *all, size_t unit, myri_error *err, const unsigned char **res,
                            size_t *len);

void myri_sweep_logs_free(myri_sweep_logs *all);

#endif
