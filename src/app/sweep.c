/* sweep.c -- the `sweep:` section of the scenario jobs (sweep.h). */
#include "app/sweep.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
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

/* ---- a sweep spread over ranks -------------------------------------------------- */

/* A record: this header, the error when status is not MYRI_OK, then len bytes of result. */
typedef struct sweep__hdr {
    uint64_t unit, len;
    int32_t status, pad;
} sweep__hdr;

bool myri_sweep_mine(const myri_run_opts *opts, size_t unit)
{
    const myri_run_ranks *rk = opts ? opts->ranks : NULL;
    return !rk || rk->size < 2 || unit % (size_t)rk->size == (size_t)rk->rank;
}

bool myri_sweep_reports(const myri_run_opts *opts)
{
    return !opts || !opts->ranks || opts->ranks->rank == 0;
}

static bool sweep__grow(myri_sweep_log *log, size_t more)
{
    if (log->len + more <= log->cap) return true;
    size_t cap = log->cap ? log->cap : 4096;
    while (cap < log->len + more) cap *= 2;
    unsigned char *b = realloc(log->b, cap);
    if (!b) return false;
    log->b = b, log->cap = cap;
    return true;
}

myri_status myri_sweep_log_put(myri_sweep_log *log, size_t unit, myri_status st, const myri_error *err,
                               const void *res, size_t len)
{
    sweep__hdr h = {.unit = unit, .len = st ? 0 : len, .status = (int32_t)st};
    size_t n = sizeof h + (st ? sizeof *err : 0) + (size_t)h.len;
    if (!sweep__grow(log, n)) return MYRI_ENOMEM;
    memcpy(log->b + log->len, &h, sizeof h);
    log->len += sizeof h;
    if (st) {
        myri_error e;
        memset(&e, 0, sizeof e);
        if (err) e = *err;
        memcpy(log->b + log->len, &e, sizeof e);
        log->len += sizeof e;
    } else if (len) {
        memcpy(log->b + log->len, res, len);
        log->len += len;
    }
    return MYRI_OK;
}

myri_status myri_sweep_gather(const myri_run_opts *opts, myri_sweep_log *mine, myri_sweep_logs *all,
                              myri_error *err)
{
    const myri_run_ranks *rk = opts ? opts->ranks : NULL;
    size_t nr = rk && rk->size > 1 ? (size_t)rk->size : 1;
    memset(all, 0, sizeof *all);
    all->len = calloc(nr, sizeof *all->len);
    all->at = calloc(nr, sizeof *all->at);
    all->nranks = nr;
    int bad = !all->len || !all->at;
    if (nr == 1) {
        all->all = mine->b;
        if (all->len) all->len[0] = mine->len;
    } else {
        /* the exchange is collective: it happens even if this process cannot keep the others' logs */
        bad |= rk->gather(rk, mine->b, mine->len, &all->all, all->len) != 0;
        free(mine->b);
    }
    memset(mine, 0, sizeof *mine);
    if (bad) return myri_error_at(err, NULL, "the sweep's results could not be gathered from the ranks"), MYRI_ENOMEM;
    return MYRI_OK;
}

myri_status myri_sweep_take(myri_sweep_logs *all, size_t unit, myri_error *err, const unsigned char **res,
                            size_t *len)
{
    size_t r = all->nranks > 1 ? unit % all->nranks : 0, off = 0;
    for (size_t k = 0; k < r; k++) off += all->len[k];
    sweep__hdr h;
    size_t at = all->at[r];
    if (!all->all || at + sizeof h > all->len[r]) goto lost;
    memcpy(&h, all->all + off + at, sizeof h);
    at += sizeof h;
    if (h.unit != unit) goto lost;
    if (h.status) {
        if (at + sizeof *err > all->len[r]) goto lost;
        memcpy(err, all->all + off + at, sizeof *err);
        /* bytes from another process: its strings end inside their fields */
        err->msg[sizeof err->msg - 1] = err->file[sizeof err->file - 1] = 0;
        err->key[sizeof err->key - 1] = err->node[sizeof err->node - 1] = 0;
        all->at[r] = at + sizeof *err;
        return (myri_status)h.status;
    }
    if (h.len > all->len[r] - at) goto lost;
    *res = all->all + off + at;
    *len = (size_t)h.len;
    all->at[r] = at + (size_t)h.len;
    return MYRI_OK;
lost:
    myri_error_at(err, NULL, "the result of sweep run %zu is missing from rank %zu's log", unit, r);
    return MYRI_EINVAL;
}

void myri_sweep_logs_free(myri_sweep_logs *all)
{
    free(all->all);
    free(all->len);
    free(all->at);
    memset(all, 0, sizeof *all);
}
