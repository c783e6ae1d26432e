/* bench_system.c -- `myri bench pingpong|latency|stream [FILE]`: seed 001's
 * three experiments on a system scenario (two hosts through a switch, the
 * alpha-pci-1998 preset, seed 001's MCP, unless FILE says otherwise). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/system_job.h"
#include "myri/api0.h"
#include "cli/args.h"
#include "myri/json.h"

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

static const char bsys__usage[] =
    "usage: myri bench pingpong|latency|stream [FILE] [--json] [--seed S] [--set key=value]...\n\n"
    "Seed 001's three experiments on a system: two hosts through an 8-port switch with the\n"
    "alpha-pci-1998 preset and seed 001's MCP, or the system of FILE (a `job: system` scenario;\n"
    "its programs are replaced by the benchmark's).\n"
    "  pingpong  one packet back and forth, sizes 4 B to 8 KiB; latency = half the round trip,\n"
    "            bandwidth = bytes sent / 2 / time (seed 001)\n"
    "  latency   the same for small packets (1 B to 1 KiB)\n"
    "  stream    200 x 8 KiB one way, up to 8 in flight, one ack after the 200 (seed 001)\n"
    "JSON: {benchmark, points: [{bytes, latency_us, bandwidth_MBps}], hash, ...}; for stream the\n"
    "time column is us_per_packet (the stream's time / 200: a cost per packet, not a latency).\n";

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
