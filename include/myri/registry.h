/* registry.h -- component types and scenario jobs, found by name.
 *
 * Component types (myri_component_ops) are listed in one table in
 * src/engine/registry.c; scenarios and models create components by type name.
 *
 * A job is what `myri run FILE` does with a scenario: the scenario's `job:`
 * key names it (default "fabric" when it exists).  A job reads its own keys
 * (with myri_params_load, including the common ones of myri_scenario_params)
 * and writes its results as text and/or JSON.
 */
#ifndef MYRI_REGISTRY_H
#define MYRI_REGISTRY_H

#include <stdbool.h>
#include <stdio.h>

#include "myri/config.h"
#include "myri/sim.h"

const myri_component_ops *myri_component_type_find(const char *type);
/* Creates a component of the registered type named `type` (myri_sim_add
 * with that type's ops).  MYRI_ENOTFOUND if no such type is registered. */
myri_status myri_sim_add_type(myri_sim *sim, const char *type, const char *name, const void *config,
                              myri_component **out);
/* NULL-terminated list of all registered component types. */
const myri_component_ops *const *myri_component_types(void);

/* Options of a run, from the command line. */
typedef struct myri_run_opts {
    bool json;          /* write one JSON object to `out` instead of text */
    bool have_seed;     /* --seed given: overrides the scenario's seed */
    uint64_t seed;
    FILE *out;          /* results */
    FILE *progress;     /* a terminal for the progress line, or NULL */
    const char *pcap_path; /* --pcap FILE or NULL (jobs that support it) */
} myri_run_opts;

typedef struct myri_job {
    const char *name;
    const char *help;
    /* Prints the job's parameter tables (for `myri run --help`). */
    void (*help_params)(FILE *out);
    /* Runs the scenario.  Returns 0 ok, 1 run failure, 2 bad input (with
     * the message in err). */
    int (*run)(const myri_node *root, const char *file, const myri_run_opts *opts,
               myri_error *err);
} myri_job;

const myri_job *myri_job_find(const char *name);
const myri_job *const *myri_jobs(void);
/* Name of the job used when a scenario has no `job:` key. */
const char *myri_job_default(void);

/* The keys common to every scenario: seed, duration, warmup, job. */
typedef struct myri_scenario_common {
    int64_t seed;
    uint64_t duration_ps;
    uint64_t warmup_ps;
    const char *job;
} myri_scenario_common;
extern const myri_param myri_scenario_params[];
extern const size_t myri_scenario_nparams;

#endif
