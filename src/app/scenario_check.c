/* scenario_check.c -- checks of the keys every scenario has (see scenario_check.h). */
#include "app/scenario_check.h"

myri_status myri_scenario_check_times(const myri_scenario_common *c, const myri_node *root, myri_error *err)
{
    uint64_t max = MYRI_SCENARIO_MAX_END_PS;
    if (c->warmup_ps <= max && c->duration_ps <= max - c->warmup_ps) return MYRI_OK;
    const myri_node *at = myri_node_get(root, "duration");
    if (!at || c->warmup_ps > max) at = myri_node_get(root, "warmup");
    char w[64], d[64];
    myri_format_time(c->warmup_ps, w, sizeof w);
    myri_format_time(c->duration_ps, d, sizeof d);
    return myri_error_at(err, at ? at : root,
                         "warmup + duration (%s + %s) is too long; expected at most 9223372036854775807ps "
                         "(about 106 days) in all",
                         w, d);
}
