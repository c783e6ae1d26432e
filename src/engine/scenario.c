/* scenario.c -- the keys every scenario has. */
#include <stddef.h>

#include "myri/job.h"

const myri_param myri_scenario_params[] = {
    {"seed", MYRI_P_UINT, "", "1", "0", "18446744073709551615", "seed of all random streams of the run",
     offsetof(myri_scenario_common, seed), NULL},
    {"duration", MYRI_P_TIME, "ns", "1ms", "1ps", NULL, "simulated time measured after the warm-up",
     offsetof(myri_scenario_common, duration_ps), NULL},
    {"warmup", MYRI_P_TIME, "ns", "0", "0", NULL, "simulated time before measurement starts",
     offsetof(myri_scenario_common, warmup_ps), NULL},
    {"job", MYRI_P_STRING, "", "", NULL, NULL, "what `myri run` does with the scenario (default: fabric)",
     offsetof(myri_scenario_common, job), NULL},
};
const size_t myri_scenario_nparams = sizeof myri_scenario_params / sizeof myri_scenario_params[0];
