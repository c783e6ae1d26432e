/* fabric_job.h -- the `fabric` scenario job: topology + routes + fabric +
 * traffic sources, run and measured (src/app/fabric_job.c). */
#ifndef MYRI_APP_FABRIC_JOB_H
#define MYRI_APP_FABRIC_JOB_H

#include <stdint.h>

#include "myri/config.h"
#include "app/run_opts.h"
#include "myri/job.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Figures of one run of the fabric job, for benchmarks and tests. */
typedef struct myri_fabric_run_result {
    uint64_t injected, delivered, dropped, in_flight; /* run totals */
    uint64_t events;          /* engine events executed */
    uint64_t fabric_events;   /* of which the fabric model's */
    uint64_t sim_time_ps;
    uint64_t hash;            /* same as the JSON "hash" (mixes in the engine's event hash) */
    uint64_t result_hash;     /* same as the JSON "result_hash": packets, fates, times only */
    uint64_t hops;            /* packet-hops simulated (myri_fabric_counters.hops): in-flight packets' included */
    double wall_s;            /* wall time of myri_sim_run only */
    double cpu_s;             /* process CPU time of myri_sim_run only */
    uint64_t mem_bytes;       /* heap the run holds at its end beyond the built topology and routes (the
                               * fabric, traffic, engine: the state events touch); 0 where unknown (not glibc) */
    double throughput_bytes_per_sec, offered_load;
    double latency_mean_ns, latency_p99_ns;
} myri_fabric_run_result;

/* Runs a scenario document with the fabric job (no output; a `sweep:`
 * section is ignored).  seed: NULL keeps the scenario's.  Returns MYRI_OK,
 * MYRI_EINPUT (bad input, message in err) or the status of what failed. */
myri_status myri_fabric_run_doc(const myri_node *root, const uint64_t *seed, myri_fabric_run_result *out,
                                myri_error *err);

/* Checks a scenario document as `myri run` does with the fabric job before
 * running it: every key known (unknown keys rejected with a hint), types,
 * units and ranges, the fabric's parameter checks.  MYRI_OK or MYRI_EINPUT
 * with FILE:LINE:COL in err.  (`myri topo` uses it.) */
myri_status myri_fabric_check_doc(const myri_node *root, myri_error *err);

/* The `fabric` scenario job (src/app/registry.c lists it). */
extern const myri_job myri_fabric_job;

#ifdef __cplusplus
}
#endif

#endif
