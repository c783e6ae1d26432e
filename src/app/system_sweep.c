/* system_sweep.c -- the system job with a `sweep:` section (sweep.h): every
 * value of sweep.key, each run sweep.runs times with seeds seed, seed+1, ...;
 * every figure the programs report is averaged over the hosts that report
 * it in a run, then given as the mean over the runs with the half-width of
 * its 95 % confidence interval (Student t).  The runs are those `myri run`
 * would make with the value set by --set and the seed by --seed. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/system_int.h"
#include "myri/json.h"
#include "myri/rng.h"

/* One figure of one point: its value in each run (mean over the hosts). */
typedef struct ssw__fig {
    char program[32];
    char key[72];
    uint32_t hosts; /* hosts that reported it (the most in any run) */
    double *x;      /* one value per run that reported it */
    size_t n;
} ssw__fig;

typedef struct ssw__point {
    const char *value;
    ssw__fig *fig;
    size_t nfig, cap;
    size_t runs_ok; /* runs whose programs all returned 0 */
    uint64_t hash;  /* of its runs' hashes */
} ssw__point;

typedef struct ssw__sweep {
    const myri_sweep *s;
    size_t npoints, runs;
    uint64_t seed0;
    ssw__point *pt;
    uint64_t events, hash;
    double wall_s;
} ssw__sweep;

static ssw__fig *ssw__fig_of(ssw__point *p, const char *program, const char *key, size_t runs)
{
    for (size_t i = 0; i < p->nfig; i++)
        if (!strcmp(p->fig[i].key, key) && !strcmp(p->fig[i].program, program)) return &p->fig[i];
    if (p->nfig == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        ssw__fig *f = realloc(p->fig, cap * sizeof *f);
        if (!f) return NULL;
        p->fig = f, p->cap = cap;
    }
    ssw__fig *f = &p->fig[p->nfig];
    memset(f, 0, sizeof *f);
    snprintf(f->program, sizeof f->program, "%s", program);
    snprintf(f->key, sizeof f->key, "%s", key);
    f->x = calloc(runs, sizeof *f->x);
    if (!f->x) return NULL;
    p->nfig++;
    return f;
}

/* What one run sends to the reporting rank (docs/RANKS.md): this header, then
 * `nfig` figures, each the mean over the hosts that reported it in the run
 * (`host`: how many hosts did), in the order they first appear. */
typedef struct ssw__rec {
    uint64_t seed, hash, events;
    double wall_s;
    uint32_t ok, nfig;
} ssw__rec;

/* The record of a run: its totals and its program figures averaged over the hosts (malloc'd, *len bytes). */
static unsigned char *ssw__record(const myri_system_result *res, uint64_t seed, size_t *len)
{
    ssw__rec h = {.seed = seed, .hash = res->hash, .events = res->events, .wall_s = res->wall_s,
                  .ok = res->all_done && res->worst_exit == 0};
    unsigned char *b = malloc(sizeof h + (res->nfig ? res->nfig : 1) * sizeof(myri_system_figure));
    bool *done = calloc(res->nfig ? res->nfig : 1, sizeof *done);
    if (!b || !done) {
        free(b), free(done);
        return NULL;
    }
    unsigned char *at = b + sizeof h;
    for (size_t i = 0; i < res->nfig; i++) {
        const myri_system_figure *g = &res->fig[i];
        if (done[i] || !strcmp(g->program, "nic") || !strcmp(g->program, "system")) continue;
        double sum = 0;
        uint32_t hosts = 0;
        for (size_t k = i; k < res->nfig; k++)
            if (!done[k] && !strcmp(res->fig[k].key, g->key) && !strcmp(res->fig[k].program, g->program)) {
                done[k] = true;
                sum += res->fig[k].value;
                hosts++;
            }
        myri_system_figure f;
        memset(&f, 0, sizeof f);
        f.host = hosts;
        snprintf(f.program, sizeof f.program, "%s", g->program);
        snprintf(f.key, sizeof f.key, "%s", g->key);
        f.value = sum / hosts;
        memcpy(at, &f, sizeof f);
        at += sizeof f;
        h.nfig++;
    }
    free(done);
    memcpy(b, &h, sizeof h);
    *len = (size_t)(at - b);
    return b;
}

/* Folds run r of point i (its record) into the sweep, as the one-process run does, in order. */
static myri_status ssw__fold(ssw__sweep *w, size_t i, size_t r, const unsigned char *b, size_t len, myri_error *err)
{
    ssw__rec h;
    if (len < sizeof h) goto bad;
    memcpy(&h, b, sizeof h);
    if (len != sizeof h + (size_t)h.nfig * sizeof(myri_system_figure)) goto bad;
    if (i == 0 && r == 0) w->seed0 = h.seed;
    ssw__point *p = &w->pt[i];
    for (size_t k = 0; k < h.nfig; k++) {
        myri_system_figure g;
        memcpy(&g, b + sizeof h + k * sizeof g, sizeof g);
        ssw__fig *f = ssw__fig_of(p, g.program, g.key, w->runs);
        if (!f) return MYRI_ENOMEM;
        if (g.host > f->hosts) f->hosts = g.host;
        if (f->n < w->runs) f->x[f->n++] = g.value;
    }
    p->runs_ok += h.ok;
    uint64_t x = p->hash ^ h.hash;
    p->hash = myri_splitmix64(&x);
    x = w->hash ^ h.hash;
    w->hash = myri_splitmix64(&x);
    w->events += h.events;
    w->wall_s += h.wall_s;
    return MYRI_OK;
bad:
    myri_error_at(err, NULL, "sweep run %zu of value %zu: a record of %zu bytes that does not parse (ranks running "
                             "different myri programs?)", r + 1, i + 1, len);
    return MYRI_EINVAL;
}

/* Run r of point i: the configuration with the value and seed, the run, its record in the log. */
static myri_status ssw__one(ssw__sweep *w, size_t i, size_t r, const myri_node *root, const myri_run_opts *opts,
                            myri_sweep_log *log, myri_error *err)
{
    myri_sys_cfg c;
    myri_status st = myri_sys_cfg_load(&c, root, err);
    bool seed_swept = w->s->key && !strcmp(w->s->key, "seed");
    if (!st && *w->s->key && (st = myri_sweep_apply(&c.sweep, c.ps, c.nps, i, err)) == MYRI_OK)
        st = myri_sys_cfg_derive(&c, root, err);
    if (!st) c.common.seed = (opts->have_seed && !seed_swept ? opts->seed : c.common.seed) + r;
    myri_sys_run run;
    memset(&run, 0, sizeof run);
    myri_system_result res;
    memset(&res, 0, sizeof res);
    if (!st) st = myri_sys_run_cfg(&run, &c, root, opts, false, err);
    if (!st) st = myri_sys_collect(&run, &res);
    unsigned char *rec = NULL;
    size_t len = 0;
    if (!st && !(rec = ssw__record(&res, c.common.seed, &len))) st = MYRI_ENOMEM;
    if (myri_sweep_log_put(log, i * w->runs + r, st, err, rec, len) && !st) st = MYRI_ENOMEM;
    free(rec);
    myri_system_result_free(&res);
    myri_sys_run_free(&run);
    myri_sys_cfg_free(&c);
    return st;
}

static void ssw__json(const ssw__sweep *w, const myri_sys_cfg *c, FILE *o)
{
    myri_json *j = myri_json_create(o, true);
    myri_json_obj_begin(j);
    myri_json_kstr(j, "job", "system");
    myri_json_key(j, "configuration");
    myri_json_obj_begin(j);
    myri_params_echo_json(c->ps, c->nps, j);
    myri_json_obj_end(j);
    myri_json_key(j, "sweep");
    myri_json_obj_begin(j);
    myri_json_kstr(j, "key", w->s->key);
    myri_json_kuint(j, "runs", w->runs);
    myri_json_kuint(j, "first_seed", w->seed0);
    myri_json_key(j, "points");
    myri_json_arr_begin(j);
    for (size_t i = 0; i < w->npoints; i++) {
        const ssw__point *p = &w->pt[i];
        myri_json_obj_begin(j);
        if (p->value) myri_json_kstr(j, "value", p->value);
        myri_json_kuint(j, "runs_ok", p->runs_ok);
        myri_json_key(j, "figures");
        myri_json_arr_begin(j);
        for (size_t k = 0; k < p->nfig; k++) {
            double m, hw;
            myri_sweep_ci95(p->fig[k].x, p->fig[k].n, &m, &hw);
            myri_json_obj_begin(j);
            myri_json_kstr(j, "program", p->fig[k].program);
            myri_json_kstr(j, "key", p->fig[k].key);
            myri_json_kuint(j, "hosts", p->fig[k].hosts);
            myri_json_kuint(j, "runs", p->fig[k].n);
            myri_json_knum(j, "mean", m);
            myri_json_key(j, "ci95");
            if (p->fig[k].n > 1) myri_json_num(j, hw);
            else myri_json_null(j);
            myri_json_obj_end(j);
        }
        myri_json_arr_end(j);
        myri_json_key(j, "hash");
        myri_json_hash(j, p->hash);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_obj_end(j);
    myri_json_kuint(j, "events", w->events);
    myri_json_knum(j, "wall_s", w->wall_s);
    myri_json_key(j, "hash");
    myri_json_hash(j, w->hash);
    myri_json_obj_end(j);
    myri_json_finish(j);
}

static void ssw__text(const ssw__sweep *w, FILE *o)
{
    for (size_t i = 0; i < w->npoints; i++) {
        const ssw__point *p = &w->pt[i];
        if (p->value) fprintf(o, "\n%s = %s: %zu of %zu runs ok\n", w->s->key, p->value, p->runs_ok, w->runs);
        else fprintf(o, "\n%zu of %zu runs ok\n", p->runs_ok, w->runs);
        fprintf(o, "  %-10s %-36s %5s %5s %14s %12s\n", "program", "figure", "hosts", "runs", "mean", "+-95%");
        for (size_t k = 0; k < p->nfig; k++) {
            const ssw__fig *f = &p->fig[k];
            double m, hw;
            myri_sweep_ci95(f->x, f->n, &m, &hw);
            char ci[32] = "-";
            if (f->n > 1) snprintf(ci, sizeof ci, "%.4g", hw);
            fprintf(o, "  %-10s %-36s %5u %5zu %14.6g %12s\n", f->program, f->key, f->hosts, f->n, m, ci);
        }
    }
    fprintf(o, "\ntotal: %" PRIu64 " events, wall %.3f s, hash 0x%016" PRIx64 "\n", w->events, w->wall_s, w->hash);
}

static void ssw__free(ssw__sweep *w)
{
    for (size_t i = 0; w->pt && i < w->npoints; i++) {
        for (size_t k = 0; k < w->pt[i].nfig; k++) free(w->pt[i].fig[k].x);
        free(w->pt[i].fig);
    }
    free(w->pt);
}

/* Runs this process's runs (all of them without ranks; unit i x runs + r on
 * rank unit mod R with them), then, on the reporting process, folds every
 * run in order and prints; c is the scenario's configuration (checked, for the echo). */
static myri_status ssw__runs(ssw__sweep *w, const myri_sys_cfg *c, const myri_node *root, const char *file,
                             const myri_run_opts *opts, myri_error *err)
{
    FILE *o = opts->out ? opts->out : stdout;
    const char *key = w->s->key;
    myri_status st = MYRI_OK;
    myri_sweep_log log = {0};
    for (size_t i = 0; i < w->npoints; i++) w->pt[i].value = *key ? w->s->values->item[i]->scalar : NULL;
    for (size_t u = 0; u < w->npoints * w->runs && !st; u++) {
        size_t i = u / w->runs, r = u % w->runs;
        if (!myri_sweep_mine(opts, u)) continue;
        if (opts->progress)
            fprintf(opts->progress, "\r%s%s%s run %zu of %zu ...", key, *key ? " = " : "",
                    *key ? w->pt[i].value : "", r + 1, w->runs);
        st = ssw__one(w, i, r, root, opts, &log, err);
    }
    if (opts->progress) fprintf(opts->progress, "\r%60s\r", "");
    myri_sweep_logs all;
    st = myri_sweep_gather(opts, &log, &all, err);
    for (size_t u = 0; u < w->npoints * w->runs && !st && myri_sweep_reports(opts); u++) {
        const unsigned char *b = NULL;
        size_t len = 0;
        if ((st = myri_sweep_take(&all, u, err, &b, &len)) == MYRI_OK)
            st = ssw__fold(w, u / w->runs, u % w->runs, b, len, err);
    }
    myri_sweep_logs_free(&all);
    if (st || !myri_sweep_reports(opts)) return st;
    if (opts->json) {
        ssw__json(w, c, o);
    } else {
        fprintf(o, "# system job: %s (", file ? file : "(document)");
        if (*key) fprintf(o, "sweep of %s, ", key);
        fprintf(o, "%zu run%s per value, seeds %" PRIu64 "..%" PRIu64 ")\n", w->runs, w->runs > 1 ? "s" : "",
                w->seed0, w->seed0 + w->runs - 1);
        myri_params_echo_text(c->ps, c->nps, o);
        fprintf(o, "\nEach figure: the mean over the hosts that report it in a run, then the mean over the runs "
                   "with the\nhalf-width of its 95 %% confidence interval (Student t; '-' for one run).\n");
        ssw__text(w, o);
    }
    size_t ok = 0;
    for (size_t i = 0; i < w->npoints; i++) ok += w->pt[i].runs_ok;
    if (ok < w->npoints * w->runs) {
        if (!opts->json) fprintf(o, "FAILED   %zu of %zu runs: a program did not finish or returned a non-zero code\n",
                                 w->npoints * w->runs - ok, w->npoints * w->runs);
        myri_error_at(err, NULL, "the sweep failed: in %zu of %zu runs a program did not finish or returned a "
                                 "non-zero exit code (see the runs ok above)", w->npoints * w->runs - ok,
                      w->npoints * w->runs);
        return MYRI_EMODEL;
    }
    return MYRI_OK;
}

myri_status myri_sys_sweep(const myri_node *root, const char *file, const myri_run_opts *opts, myri_error *err)
{
    static const char *const refused[] = {"firmware", "preset", NULL};
    myri_sys_cfg c;
    myri_status st = myri_sys_cfg_load(&c, root, err);
    ssw__sweep w = {.s = &c.sweep, .hash = UINT64_C(0x6d797269)};
    if (!st && *c.sweep.key) st = myri_sweep_check(&c.sweep, c.ps, c.nps, root, refused, opts, err);
    if (!st && !*c.sweep.key && (opts->pcap_path || opts->vcd_path))
        st = myri_error_at(err, myri_node_path(root, "sweep.runs"), "--pcap and --vcd record one run, not %lld; "
                           "remove sweep.runs (or give one seed with --seed)", (long long)c.sweep.runs);
    if (!st) {
        w.npoints = *c.sweep.key ? c.sweep.values->n : 1;
        w.runs = (size_t)c.sweep.runs;
        w.pt = calloc(w.npoints, sizeof *w.pt);
        if (!w.pt) st = MYRI_ENOMEM;
    }
    if (!st) st = ssw__runs(&w, &c, root, file, opts, err);
    ssw__free(&w);
    myri_sys_cfg_free(&c);
    return st;
}
