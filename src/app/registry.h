/* registry.h -- component types and scenario jobs, found by name.
 *
 * The one place that names every component type and every job: the tables
 * in src/app/registry.c.  Models create their own components with their own
 * ops (myri_sim_add); lookup by name is for names that come from a scenario
 * (the `job:` key) or from the command line.
 */
#ifndef MYRI_APP_REGISTRY_H
#define MYRI_APP_REGISTRY_H

#include "app/run_opts.h"
#include "myri/job.h"
#include "myri/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

const myri_component_ops *myri_component_type_find(const char *type);
/* Creates a component of the registered type named `type` (myri_sim_add
 * with that type's ops).  MYRI_ENOTFOUND if no such type is registered. */
myri_status myri_sim_add_type(myri_sim *sim, const char *type, const char *name, const void *config,
                              myri_component **out);
/* NULL-terminated list of all registered component types. */
const myri_component_ops *const *myri_component_types(void);

const myri_job *myri_job_find(const char *name);
const myri_job *const *myri_jobs(void);
/* Name of the job used when a scenario has no `job:` key. */
const char *myri_job_default(void);

/* The built-in scenario of `myri run` without a FILE (src/app/default_scenario.c). */
const char *myri_default_scenario(void);

#ifdef __cplusplus
}
#endif

#endif
