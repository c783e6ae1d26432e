/* sweep.c -- the `sweep:` section of the scenario jobs (sweep.h). */
#include "app/sweep.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "myri/stats.h"

const myri_param myri_sweep_params[] = {
    {"key", MYRI_P_STRING, NULL, "", NULL, NULL, "dotted key varied by the sweep (e.g. traffic.load)",
     offsetof(myri_sweep, key), NULL},
    {"values", MYRI_P_NODE, NULL, "", NULL, NULL, "the values, run in order with the same seed",
     offsetof(myri_sweep, values), NULL},
    {"runs", MYRI_P_INT, NULL, "1", "1", "100",
     "runs per value with seeds seed, seed+1, ...: mean and 95 % confidence interval of each figure (system job; "
     "the fabric job runs each value once). At most 100: a bound on the work of one command (assumption)",
     offsetof(myri_sweep, runs), NULL},
};
const size_t myri_sweep_nparams = sizeof myri_sweep_params / sizeof myri_sweep_params[0];

const myri_param *myri_sweep_find_param(const myri_pset *ps, size_t nps, const char *key, void **out)
{
    for (size_t s = 0; s < nps; s++) {
        const char *pre = ps[s].prefix;
        size_t pl = strlen(pre);
        const char *rest = key;
        if (pl) {
            if (strncmp(key, pre, pl) != 0 || key[pl] != '.') continue;
            rest = key + pl + 1;
        }
        for (size_t i = 0; i < ps[s].n; i++) {
            if (strcmp(ps[s].params[i].name, rest) == 0) {
                *out = ps[s].out;
                return &ps[s].params[i];
            }
        }
    }
    return NULL;
}

myri_status myri_sweep_check(const myri_sweep *s, const myri_pset *ps, size_t nps, const myri_node *root,
                             const char *const *refused, const myri_run_opts *opts, myri_error *err)
{
    const myri_node *vals = s->values;
    const myri_node *kn = myri_node_path(root, "sweep.key");
    void *dst = NULL;
    const myri_param *p = myri_sweep_find_param(ps, nps, s->key, &dst);
    if (!p || p->type == MYRI_P_NODE || strncmp(s->key, "sweep.", 6) == 0)
        return myri_error_at(err, kn, "sweep.key '%s' is not a scenario key that can be swept", s->key);
    for (size_t k = 0; refused && refused[k]; k++)
        if (!strcmp(s->key, refused[k]))
            return myri_error_at(err, kn, "sweep.key '%s' cannot be swept: it chooses which keys and defaults the "
                                          "run has; write one scenario per value", s->key);
    if (opts && opts->pcap_path)
        return myri_error_at(err, kn,
                             "--pcap records one run, not a sweep; remove the sweep (or run one value with --set)");
    if (opts && opts->vcd_path)
        return myri_error_at(err, kn,
                             "--vcd records one run, not a sweep; remove the sweep (or run one value with --set)");
    if (!vals || vals->kind != MYRI_NODE_SEQ || vals->n == 0 || vals->n > MYRI_SWEEP_MAX_VALUES)
        return myri_error_at(err, vals ? vals : kn, "sweep.values must be a list of 1 to %d values",
                             MYRI_SWEEP_MAX_VALUES);
    for (size_t i = 0; i < vals->n; i++)
        if (vals->item[i]->kind != MYRI_NODE_SCALAR) return myri_error_at(err, vals->item[i], "expected a value");
    return MYRI_OK;
}

myri_status myri_sweep_apply(const myri_sweep *s, const myri_pset *ps, size_t nps, size_t i, myri_error *err)
{
    void *dst = NULL;
    const myri_param *p = myri_sweep_find_param(ps, nps, s->key, &dst);
    if (!p || !s->values || i >= s->values->n) return MYRI_EINVAL;
    const myri_node *v = s->values->item[i];
    if (v->kind != MYRI_NODE_SCALAR) return myri_error_at(err, v, "expected a value");
    return myri_param_parse(p, v, dst, err) ? MYRI_EINPUT : MYRI_OK;
}

void myri_sweep_ci95(const double *x, size_t n, double *mean, double *halfwidth)
{
    double m = 0, ss = 0;
    bool same = true; /* equal runs: their value and 0 exactly (no rounding of the sum) */
    for (size_t i = 0; i < n; i++) m += x[i], same = same && x[i] == x[0];
    m = !n ? NAN : same ? x[0] : m / (double)n;
    for (size_t i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
    *mean = m;
    *halfwidth = n < 2 ? 0 : myri_student_t_quantile(0.975, (unsigned)(n - 1)) * sqrt(ss / (double)(n - 1)) /
                                 sqrt((double)n);
}
