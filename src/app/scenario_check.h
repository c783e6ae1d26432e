/* scenario_check.h -- checks of the keys every scenario has (myri/job.h),
 * shared by the jobs of src/app/. */
#ifndef MYRI_APP_SCENARIO_CHECK_H
#define MYRI_APP_SCENARIO_CHECK_H

#include "myri/job.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest run: warmup + duration at most 2^63 - 1 ps (about 106 days), so
 * that the end of the run and the times computed from it do not wrap. */
#define MYRI_SCENARIO_MAX_END_PS 9223372036854775807ull

/* MYRI_OK, or MYRI_EINPUT with FILE:LINE:COL of `duration` (or `warmup`)
 * when warmup + duration exceeds MYRI_SCENARIO_MAX_END_PS. */
myri_status myri_scenario_check_times(const myri_scenario_common *c, const myri_node *root, myri_error *err);

#ifdef __cplusplus
}
#endif

#endif
