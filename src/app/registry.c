/* registry.c -- the one table of component types and the one table of jobs.
 * To add a component type or a job, declare its ops here and list it. */
#include "app/registry.h"

#include <stddef.h>
#include <string.h>

#include "analysis/qsim/qsim.h"
#include "app/fabric_job.h"
#include "app/hold.h"
#include "app/system_job.h"
#include "nic/lanai.h"
#include "workload/hostdev.h"
#include "workload/traffic.h"

static const myri_component_ops *const component_types[] = {
    &myri_hold_ops,
    &myri_fabric_ops,
    &myri_traffic_source_ops,
    &myri_traffic_ops,
    &myri_hostdev_ops,
    &myri_lanai_ops,
    &myri_qsim_station_ops,
    &myri_qsim_source_ops,
    NULL,
};

static const myri_job *const jobs[] = {
    &myri_fabric_job,
    &myri_hold_job,
    &myri_system_job,
    NULL,
};

const myri_component_ops *const *myri_component_types(void) { return component_types; }

const myri_component_ops *myri_component_type_find(const char *type)
{
    if (!type) return NULL;
    for (size_t i = 0; component_types[i]; i++)
        if (strcmp(component_types[i]->type, type) == 0) return component_types[i];
    return NULL;
}

myri_status myri_sim_add_type(myri_sim *sim, const char *type, const char *name, const void *config,
                              myri_component **out)
{
    const myri_component_ops *ops = myri_component_type_find(type);
    if (!ops) {
        if (out) *out = NULL;
        return MYRI_ENOTFOUND;
    }
    return myri_sim_add(sim, ops, name, config, out);
}

const myri_job *const *myri_jobs(void) { return jobs; }

const myri_job *myri_job_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; jobs[i]; i++)
        if (strcmp(jobs[i]->name, name) == 0) return jobs[i];
    return NULL;
}

const char *myri_job_default(void) { return myri_job_find("fabric") ? "fabric" : "hold"; }
