/* hold.h -- the classic hold model, as a component and as a scenario job.
 *
 * Each event schedules one new event at now + Exp(mean), so the number of
 * pending events stays at its initial value.  Used by `myri bench engine`
 * and as the `hold` job of `myri run`.
 */
#ifndef MYRI_APP_HOLD_H
#define MYRI_APP_HOLD_H

#include <stdint.h>

#include "myri/job.h"
#include "myri/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_hold_config {
    int64_t pending;      /* events kept pending */
    uint64_t mean_ps;     /* mean of the exponential hold time */
} myri_hold_config;

extern const myri_component_ops myri_hold_ops;
extern const myri_job myri_hold_job;

typedef struct myri_hold_result {
    uint64_t events;
    uint64_t pending;
    uint64_t hash;
    double wall_s;
    double events_per_sec;
    double cpu_s;              /* the process's CPU time over the same events (a shared machine's
                                * other processes do not count) */
} myri_hold_result;

/* Runs the hold model with `pending` events for `events` executed events.
 * Returns MYRI_OK or MYRI_ENOMEM/MYRI_EINVAL. */
myri_status myri_hold_bench(uint64_t seed, uint64_t pending, uint64_t events, uint64_t mean_ps,
                            myri_hold_result *out);

#ifdef __cplusplus
}
#endif

#endif
