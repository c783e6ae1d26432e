/* bench_system.c -- `myri bench pingpong|latency|stream [FILE]`: seed 001's
 * three experiments on a system scenario (two hosts through a switch, the
 * alpha-pci-1998 preset, seed 001's MCP, unless FILE says otherwise). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/sweep.h"
#include "app/system_job.h"
#include "myri/api0.h"
#include "cli/args.h"
#include "myri/json.h"
#include "myri/rng.h"

/* Two hosts through one 8-port switch (seed 001's test bed). */
static const char bsys__base[] = "job: system\n"
                                 "preset: alpha-pci-1998\n"
                                 "topology:\n"
                                 "  generator: star\n"
                                 "  hosts_per_switch: 2\n";

/* The sizes of each experiment (seed 001: "up to 8K"; "small packets"). */
#define BSYS_PINGPONG_SIZES "4,16,64,128,256,512,1024,2048,4096,6144,8192"
#define BSYS_LATENCY_SIZES "1,4,8,16,32,64,128,256,512,768,1024"

static const char *bsys__programs(const char *which)
{
    if (!strcmp(which, "pingpong"))
        return "programs:\n- {program: pingpong, hosts: [h0, h1], args: [\"sizes=" BSYS_PINGPONG_SIZES "\", reps=200, warmup=16]}\n";
    if (!strcmp(which, "latency"))
        return "programs:\n- {program: latency, hosts: [h0, h1], args: [\"sizes=" BSYS_LATENCY_SIZES "\", reps=500, warmup=16]}\n";
    if (!strcmp(which, "stream"))
        return "programs:\n- {program: stream, hosts: [h0, h1], args: [count=200, size=8192, window=8]}\n";
    return NULL;
}

myri_status myri_bsys_run(const char *which, const myri_node *root, const myri_run_opts *ro,
                          myri_system_result *res, myri_error *err)
{
    const char *text = bsys__programs(which);
    if (!text) return MYRI_EINVAL;
    myri_node *prog = NULL;
    myri_status st = myri_doc_parse("(benchmark programs)", text, strlen(text), &prog, err);
    if (st) return st;
    st = myri_system_run_doc(root, myri_node_get(prog, "programs"), ro, res, err);
    myri_node_free(prog);
    return st;
}

/* The sizes a result has figures for, in order. */
static size_t bsys__sizes(const char *which, long *sizes, size_t max)
{
    const char *list = !strcmp(which, "latency") ? BSYS_LATENCY_SIZES : BSYS_PINGPONG_SIZES;
    size_t n = 0;
    for (const char *p = list; *p && n < max; n++) {
        sizes[n] = strtol(p, (char **)&p, 10);
        if (*p == ',') p++;
    }
    return n;
}

size_t myri_bsys_points(const char *which, const myri_system_result *r, myri_bsys_point *pt, size_t max)
{
    if (!strcmp(which, "stream")) {
        if (max < 1) return 0;
        pt[0].bytes = 8192;
        pt[0].latency_us = myri_system_figure_get(r, "stream.time_us") / 200.0;
        pt[0].bandwidth_MBps = myri_system_figure_get(r, "stream.bandwidth_MBps");
        return 1;
    }
    long sizes[32];
    size_t n = bsys__sizes(which, sizes, 32), k = 0;
    for (size_t i = 0; i < n && k < max; i++) {
        char key[96];
        snprintf(key, sizeof key, "%s.%ld.latency_us", which, sizes[i]);
        pt[k].bytes = sizes[i];
        pt[k].latency_us = myri_system_figure_get(r, key);
        snprintf(key, sizeof key, "%s.%ld.bandwidth_MBps", which, sizes[i]);
        pt[k].bandwidth_MBps = myri_system_figure_get(r, key);
        k++;
    }
    return k;
}

/* The sum over the hosts of figure `which.what` (0 if none). */
static double bsys__sum(const myri_system_result *r, const char *which, const char *what)
{
    char key[96];
    snprintf(key, sizeof key, "%s.%s", which, what);
    double v = 0;
    for (size_t i = 0; i < r->nfig; i++)
        if (!strcmp(r->fig[i].key, key)) v += r->fig[i].value;
    return v;
}

/* A size without a figure: why, in words (its return code by name, or what went missing). */
static void bsys__why(const myri_system_result *r, const char *which, long bytes, char *buf, size_t n)
{
    char key[96];
    snprintf(key, sizeof key, "%s.%ld.error", which, bytes);
    double code = myri_system_figure_get(r, key);
    if (!isnan(code)) snprintf(buf, n, "%s: %s", myri_api0_strname((int)code), myri_api0_strerror((int)code));
    else snprintf(buf, n, "packets lost or corrupted: no figure");
}

/* Text: a row per size; a size that was not measured says why instead of a number. */
static void bsys__text(const char *which, const myri_system_result *res, const myri_bsys_point *pt, size_t n, bool ok)
{
    printf("%-10s %13s %16s\n", "bytes", !strcmp(which, "stream") ? "us_per_packet" : "latency_us",
           "bandwidth_MB/s");
    for (size_t i = 0; i < n; i++) {
        if (isnan(pt[i].latency_us)) {
            char why[160];
            bsys__why(res, which, pt[i].bytes, why, sizeof why);
            printf("%-10ld %13s %16s  (%s)\n", pt[i].bytes, "-", "-", why);
        } else {
            printf("%-10ld %13.3f %16.3f\n", pt[i].bytes, pt[i].latency_us, pt[i].bandwidth_MBps);
        }
    }
    printf("run       %.3f us simulated in %.3f s wall, %" PRIu64 " events\nhash      0x%016" PRIx64 "\n",
           (double)res->sim_time_ps / 1e6, res->wall_s, res->events, res->hash);
    if (!ok)
        printf("FAILED: packets sent %.0f, received %.0f, lost %.0f, corrupted %.0f; API errors %.0f%s\n",
               bsys__sum(res, which, "sent"), bsys__sum(res, which, "received"), bsys__sum(res, which, "lost"),
               bsys__sum(res, which, "corrupted"), bsys__sum(res, which, "errors"),
               res->all_done ? "" : "; a program did not finish before `duration`");
}

/* --runs N: the runs' figures per size (NaN where a run measured none). */
typedef struct bsys__multi {
    size_t runs, ok, npt;
    uint64_t seed0, hash, events;
    double sim_us, wall_s, sums[5]; /* sent, received, lost, corrupted, errors over all runs */
    myri_bsys_point pt[32];         /* the sizes; figures filled per run into lat/bw */
    double lat[32][100], bw[32][100];
} bsys__multi;

static const char *const bsys__what[5] = {"sent", "received", "lost", "corrupted", "errors"};

/* The scenario's seed (the default 1 when it gives none); false if it is not a number (the run says why). */
static bool bsys__scenario_seed(const myri_node *root, uint64_t *seed)
{
    const myri_node *n = myri_node_get(root, "seed");
    *seed = 1;
    if (!n) return true;
    if (n->kind != MYRI_NODE_SCALAR || !n->scalar[0] || n->scalar[0] == '-') return false;
    char *end;
    *seed = strtoull(n->scalar, &end, 10);
    return *end == '\0';
}

/* Mean and 95 % half-width over the runs that measured a figure (NaN: none did). */
static size_t bsys__stat(const double *x, size_t n, double *mean, double *hw)
{
    double v[100];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i])) v[k++] = x[i];
    if (!k) *mean = NAN, *hw = NAN;
    else myri_sweep_ci95(v, k, mean, hw);
    return k;
}

static myri_status bsys__runs(const char *which, const myri_node *root, const myri_cli *cli, bsys__multi *m,
                              myri_error *err)
{
    myri_status st = MYRI_OK;
    m->hash = UINT64_C(0x6d797269);
    for (size_t r = 0; r < m->runs && !st; r++) {
        myri_run_opts ro = {.json = cli->json, .have_seed = true, .seed = m->seed0 + r, .out = stdout};
        myri_system_result res;
        if ((st = myri_bsys_run(which, root, &ro, &res, err)) != MYRI_OK) break;
        myri_bsys_point pt[32];
        m->npt = myri_bsys_points(which, &res, pt, 32);
        for (size_t i = 0; i < m->npt; i++) {
            m->pt[i].bytes = pt[i].bytes;
            m->lat[i][r] = pt[i].latency_us;
            m->bw[i][r] = isnan(pt[i].latency_us) ? NAN : pt[i].bandwidth_MBps;
        }
        m->ok += res.all_done && res.worst_exit == 0;
        for (int k = 0; k < 5; k++) m->sums[k] += bsys__sum(&res, which, bsys__what[k]);
        uint64_t x = m->hash ^ res.hash;
        m->hash = myri_splitmix64(&x);
        m->events += res.events;
        m->sim_us += (double)res.sim_time_ps / 1e6;
        m->wall_s += res.wall_s;
        myri_system_result_free(&res);
    }
    return st;
}

static void bsys__multi_json(const char *which, const bsys__multi *m)
{
    myri_json *j = myri_json_create(stdout, false);
    myri_json_obj_begin(j);
    myri_json_kstr(j, "benchmark", which);
    myri_json_kuint(j, "runs", m->runs);
    myri_json_kuint(j, "first_seed", m->seed0);
    const char *tkey = !strcmp(which, "stream") ? "us_per_packet" : "latency_us";
    char tci[40];
    snprintf(tci, sizeof tci, "%s_ci95", tkey);
    myri_json_key(j, "points");
    myri_json_arr_begin(j);
    for (size_t i = 0; i < m->npt; i++) {
        double lm, lh, bm, bh;
        size_t n = bsys__stat(m->lat[i], m->runs, &lm, &lh);
        bsys__stat(m->bw[i], m->runs, &bm, &bh);
        myri_json_obj_begin(j);
        myri_json_kint(j, "bytes", m->pt[i].bytes);
        myri_json_knum(j, tkey, lm);
        myri_json_knum(j, tci, n > 1 ? lh : NAN);
        myri_json_knum(j, "bandwidth_MBps", bm);
        myri_json_knum(j, "bandwidth_MBps_ci95", n > 1 ? bh : NAN);
        myri_json_kuint(j, "runs", n);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_kbool(j, "ok", m->ok == m->runs);
    myri_json_kuint(j, "runs_ok", m->ok);
    for (int k = 0; k < 5; k++) myri_json_knum(j, bsys__what[k], m->sums[k]);
    myri_json_knum(j, "sim_time_us", m->sim_us);
    myri_json_knum(j, "wall_s", m->wall_s);
    myri_json_kuint(j, "events", m->events);
    myri_json_key(j, "hash");
    myri_json_hash(j, m->hash);
    myri_json_obj_end(j);
    myri_json_finish(j);
}

static void bsys__multi_text(const char *which, const bsys__multi *m)
{
    printf("%-10s %13s %10s %16s %10s %5s\n", "bytes", !strcmp(which, "stream") ? "us_per_packet" : "latency_us",
           "+-95%", "bandwidth_MB/s", "+-95%", "runs");
    for (size_t i = 0; i < m->npt; i++) {
        double lm, lh, bm, bh;
        size_t n = bsys__stat(m->lat[i], m->runs, &lm, &lh);
        bsys__stat(m->bw[i], m->runs, &bm, &bh);
        if (!n) {
            printf("%-10ld %13s %10s %16s %10s %5zu  (no run measured it)\n", m->pt[i].bytes, "-", "-", "-", "-", n);
            continue;
        }
        char l[32] = "-", b[32] = "-";
        if (n > 1) snprintf(l, sizeof l, "%.3f", lh), snprintf(b, sizeof b, "%.3f", bh);
        printf("%-10ld %13.3f %10s %16.3f %10s %5zu\n", m->pt[i].bytes, lm, l, bm, b, n);
    }
    printf("runs      %zu, seeds %" PRIu64 "..%" PRIu64 ", %zu ok; mean and 95 %% confidence interval (Student t) "
           "over the runs that measured each size\n",
           m->runs, m->seed0, m->seed0 + m->runs - 1, m->ok);
    printf("run       %.3f us simulated in %.3f s wall, %" PRIu64 " events (all runs)\nhash      0x%016" PRIx64 "\n",
           m->sim_us, m->wall_s, m->events, m->hash);
    if (m->ok < m->runs)
        printf("FAILED: %zu of %zu runs; packets sent %.0f, received %.0f, lost %.0f, corrupted %.0f; API errors "
               "%.0f (all runs)\n",
               m->runs - m->ok, m->runs, m->sums[0], m->sums[1], m->sums[2], m->sums[3], m->sums[4]);
}

/* --runs N > 1 */
static int bsys__multi_cmd(const char *which, const myri_cmd_bench_args *a, myri_node *root)
{
    myri_error err = {0};
    myri_error_clear(&err);
    bsys__multi *m = calloc(1, sizeof *m);
    if (!m) return myri_cli_exit(MYRI_ENOMEM, NULL);
    m->runs = (size_t)a->runs;
    myri_status st = MYRI_OK;
    if (a->cli.have_seed) m->seed0 = a->cli.seed;
    else if (!bsys__scenario_seed(root, &m->seed0)) { /* let the run say what is wrong with it */
        myri_run_opts ro = {.out = stdout};
        myri_system_result res;
        st = myri_bsys_run(which, root, &ro, &res, &err);
        if (!st) myri_system_result_free(&res), st = myri_error_at(&err, myri_node_get(root, "seed"),
                                                                   "seed: expected a whole number");
    }
    if (!st) st = bsys__runs(which, root, &a->cli, m, &err);
    int rc;
    if (st) {
        rc = myri_cli_exit(st, &err);
    } else {
        if (a->cli.json) bsys__multi_json(which, m);
        else bsys__multi_text(which, m);
        rc = m->ok == m->runs ? MYRI_EXIT_OK : MYRI_EXIT_FAIL;
    }
    free(m);
    return rc;
}

static const char bsys__usage[] =
    "usage: myri bench pingpong|latency|stream [FILE] [--runs N] [--json] [--seed S] [--set key=value]...\n\n"
    "Seed 001's three experiments on a system: two hosts through an 8-port switch with the\n"
    "alpha-pci-1998 preset and seed 001's MCP, or the system of FILE (a `job: system` scenario;\n"
    "its programs are replaced by the benchmark's).\n"
    "  pingpong  one packet back and forth, sizes 4 B to 8 KiB; latency = half the round trip,\n"
    "            bandwidth = bytes sent / 2 / time (seed 001)\n"
    "  latency   the same for small packets (1 B to 1 KiB)\n"
    "  stream    200 x 8 KiB one way, up to 8 in flight, one ack after the 200 (seed 001)\n"
    "JSON: {benchmark, points: [{bytes, latency_us, bandwidth_MBps}], hash, ...}; for stream the\n"
    "time column is us_per_packet (the stream's time / 200: a cost per packet, not a latency).\n"
    "--runs N (1 to 100): N independent runs with seeds S, S+1, ... (S: --seed, else the scenario's\n"
    "seed); each figure is the mean over the runs that measured it with the half-width of its 95 %\n"
    "confidence interval (Student t), columns +-95%, JSON *_ci95 and runs.  A system with no random\n"
    "element (the built-in one: no link.ber, no random program) gives N equal runs and an interval of 0.\n";

int myri_cmd_bench_system(const myri_cmd_bench_args *a)
{
    const char *which = a->system;
    const myri_cli *cli = &a->cli;
    if (cli->help) {
        fputs(bsys__usage, stdout);
        return MYRI_EXIT_OK;
    }
    myri_error err = {0};
    myri_error_clear(&err);
    myri_node *root = NULL;
    myri_status st = a->file ? myri_doc_load(a->file, &root, &err)
                             : myri_doc_parse("(built-in two-host system)", bsys__base, strlen(bsys__base), &root, &err);
    if (st) return myri_cli_input_error(&err);
    int rc = myri_cli_apply_sets(cli, root);
    if (rc) {
        myri_node_free(root);
        return rc;
    }
    if (a->runs > 1) {
        rc = bsys__multi_cmd(which, a, root);
        myri_node_free(root);
        return rc;
    }
    myri_run_opts ro = {.json = cli->json, .have_seed = cli->have_seed, .seed = cli->seed, .out = stdout};
    myri_system_result res;
    st = myri_bsys_run(which, root, &ro, &res, &err);
    myri_node_free(root);
    if (st) return myri_cli_exit(st, &err);
    myri_bsys_point pt[32];
    size_t n = myri_bsys_points(which, &res, pt, 32);
    bool ok = res.all_done && res.worst_exit == 0;
    if (cli->json) {
        myri_json *j = myri_json_create(stdout, false);
        myri_json_obj_begin(j);
        myri_json_kstr(j, "benchmark", which);
        const char *tkey = !strcmp(which, "stream") ? "us_per_packet" : "latency_us"; /* stream: time per packet */
        myri_json_key(j, "points");
        myri_json_arr_begin(j);
        for (size_t i = 0; i < n; i++) {
            myri_json_obj_begin(j);
            myri_json_kint(j, "bytes", pt[i].bytes);
            myri_json_knum(j, tkey, pt[i].latency_us);
            myri_json_knum(j, "bandwidth_MBps", pt[i].bandwidth_MBps);
            myri_json_obj_end(j);
        }
        myri_json_arr_end(j);
        myri_json_kbool(j, "ok", ok);
        const char *what[5] = {"sent", "received", "lost", "corrupted", "errors"};
        for (int k = 0; k < 5; k++) myri_json_knum(j, what[k], bsys__sum(&res, which, what[k]));
        myri_json_knum(j, "sim_time_us", (double)res.sim_time_ps / 1e6);
        myri_json_knum(j, "wall_s", res.wall_s);
        myri_json_kuint(j, "events", res.events);
        myri_json_key(j, "hash");
        myri_json_hash(j, res.hash);
        myri_json_obj_end(j);
        myri_json_finish(j);
    } else {
        bsys__text(which, &res, pt, n, ok);
    }
    myri_system_result_free(&res);
    return ok ? MYRI_EXIT_OK : MYRI_EXIT_FAIL;
}
