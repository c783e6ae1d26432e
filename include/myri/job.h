/* job.h -- what a scenario job is, and the keys every scenario has.
 *
 * A job is what `myri run FILE` does with a scenario: the scenario's `job:`
 * key names it.  A job reads its own keys (with myri_params_load, including
 * the common ones of myri_scenario_params) and writes its results as text
 * and/or JSON.  The jobs themselves, and the table that finds them by name,
 * live outside the engine (src/app/registry.h).
 */
#ifndef MYRI_JOB_H
#define MYRI_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "myri/config.h"
#include "myri/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The options of one run, from the command line (--json, --seed, --pcap,
 * --vcd, --program ...): defined with the jobs, in app/run_opts.h; the
 * engine only passes them through to a job's run. */
typedef struct myri_run_opts myri_run_opts;

typedef struct myri_job {
    const char *name;
    const char *help;
    /* Prints the job's parameter tables (for `myri run --help`). */
    void (*help_params)(FILE *out);
    /* Runs the scenario.  Returns MYRI_OK, MYRI_EINPUT for bad input (with
     * the message in err), or another status when the run failed. */
    myri_status (*run)(const myri_node *root, const char *file, const myri_run_opts *opts,
               myri_error *err);
} myri_job;

/* The keys common to every scenario: seed, duration, warmup, job. */
typedef struct myri_scenario_common {
    uint64_t seed; /* 0 .. 2^64-1, as --seed */
    uint64_t duration_ps;
    uint64_t warmup_ps;
    const char *job;
} myri_scenario_common;
extern const myri_param myri_scenario_params[];
extern const size_t myri_scenario_nparams;

#ifdef __cplusplus
}
#endif

#endif
