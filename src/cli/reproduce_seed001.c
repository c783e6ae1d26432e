/* reproduce_seed001.c -- `myri reproduce seed001`: seed 001's three
 * experiments (ping-pong up to 8 KB, small-packet latency, 200 x 8 KB
 * pipelined) for the systems it compares -- the old MCP (interrupt-driven
 * receive, no overlapped receive), the new one (polled receive with the
 * to-host DMA overlapped), polled receive without overlap, and DMA receive
 * notification on and off -- side by side, with the paper's claims checked
 * on the figures of this run. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/qsim/qsim.h"
#include "app/system_job.h"
#include "cli/cli.h"
#include "myri/json.h"

static const char r1__base[] = "job: system\n"
                               "preset: alpha-pci-1998\n"
                               "topology:\n"
                               "  generator: star\n"
                               "  hosts_per_switch: 2\n";

/* The systems compared (seed 001: "the old Myrinet system which did not use
 * overlapped DMA on receives, the new Myrinet system which does"). */
enum { R1_OLD, R1_POLLED, R1_NEW, R1_NEW_NOTIFY_OFF, R1_OLD_2X, R1_NEW_2X, R1_NVAR };
static const char *const r1__var_name[R1_NVAR] = {"old", "polled", "new", "new-no-notify", "old-66MHz",
                                                  "new-66MHz"};
static const char *const r1__var_help[R1_NVAR] = {
    "interrupt-driven receive, no overlapped receive",
    "polled receive, no overlapped receive",
    "polled receive with the to-host DMA overlapped",
    "new, polling SRAM instead of DMA receive notification",
    "old on a LANai clocked twice as fast (stream only: the \"mystery\")",
    "new on a LANai clocked twice as fast (stream only)",
};
static const char *const r1__var_sets[R1_NVAR][4] = {
    {"mcp.recv_mode=interrupt", "mcp.ovl_recv=false", "mcp.dma_notify=true", "nic.clock=33e6"},
    {"mcp.recv_mode=polled", "mcp.ovl_recv=false", "mcp.dma_notify=true", "nic.clock=33e6"},
    {"mcp.recv_mode=polled", "mcp.ovl_recv=true", "mcp.dma_notify=true", "nic.clock=33e6"},
    {"mcp.recv_mode=polled", "mcp.ovl_recv=true", "mcp.dma_notify=false", "nic.clock=33e6"},
    {"mcp.recv_mode=interrupt", "mcp.ovl_recv=false", "mcp.dma_notify=true", "nic.clock=66e6"},
    {"mcp.recv_mode=polled", "mcp.ovl_recv=true", "mcp.dma_notify=true", "nic.clock=66e6"},
};

enum { R1_PINGPONG, R1_LATENCY, R1_STREAM, R1_NEXP };
static const char *const r1__exp_name[R1_NEXP] = {"pingpong", "latency", "stream"};

#define R1_MAXPT 16

typedef struct r1__cell {
    bool ran;
    myri_bsys_point pt[R1_MAXPT];
    size_t n;
    uint64_t hash;
    bool ok;
} r1__cell;

typedef struct r1__all {
    r1__cell c[R1_NEXP][R1_NVAR];
    double crossover_bytes, small_cost_us, polled_minus_interrupt_us, notification_gain;
    double stream_old, stream_new, stream_old_2x, stream_new_2x;
    uint64_t hash;
} r1__all;

/* Which variants each experiment runs. */
static bool r1__runs(int e, int v)
{
    if (e == R1_STREAM) return true;
    return v == R1_OLD || v == R1_POLLED || v == R1_NEW;
}

static myri_status r1__run_one(int e, int v, bool have_seed, uint64_t seed, r1__cell *out, myri_error *err)
{
    myri_node *root = NULL;
    myri_status st = myri_doc_parse("(seed001 system)", r1__base, strlen(r1__base), &root, err);
    for (int k = 0; !st && k < 4; k++) st = myri_node_set(root, r1__var_sets[v][k], err);
    myri_run_opts ro = {.have_seed = have_seed, .seed = seed};
    myri_system_result res;
    if (!st) st = myri_bsys_run(r1__exp_name[e], root, &ro, &res, err);
    myri_node_free(root);
    if (st) return st;
    out->ran = true;
    out->n = myri_bsys_points(r1__exp_name[e], &res, out->pt, R1_MAXPT);
    out->hash = res.hash;
    out->ok = res.all_done && res.worst_exit == 0;
    myri_system_result_free(&res);
    return MYRI_OK;
}

/* The claims of seed 001, measured on this run's figures. */
static void r1__claims(r1__all *a)
{
    const r1__cell *po = &a->c[R1_PINGPONG][R1_OLD], *pn = &a->c[R1_PINGPONG][R1_NEW];
    /* the size where new stops costing and starts winning: the difference
     * new - old interpolated linearly between the two measured sizes around
     * its last change of sign to negative */
    a->crossover_bytes = NAN;
    for (size_t i = 1; i < po->n && i < pn->n; i++) {
        double d0 = pn->pt[i - 1].latency_us - po->pt[i - 1].latency_us, d1 = pn->pt[i].latency_us - po->pt[i].latency_us;
        if (d0 >= 0 && d1 < 0)
            a->crossover_bytes = (double)pn->pt[i - 1].bytes +
                                 d0 / (d0 - d1) * (double)(pn->pt[i].bytes - pn->pt[i - 1].bytes);
    }
    const r1__cell *lo = &a->c[R1_LATENCY][R1_OLD], *lp = &a->c[R1_LATENCY][R1_POLLED], *ln = &a->c[R1_LATENCY][R1_NEW];
    a->small_cost_us = ln->n && lo->n ? ln->pt[0].latency_us - lo->pt[0].latency_us : NAN;
    a->polled_minus_interrupt_us = lp->n && lo->n ? lp->pt[0].latency_us - lo->pt[0].latency_us : NAN;
    const r1__cell *sn = &a->c[R1_STREAM][R1_NEW], *sf = &a->c[R1_STREAM][R1_NEW_NOTIFY_OFF];
    a->notification_gain = sn->n && sf->n && sf->pt[0].bandwidth_MBps > 0
                               ? sn->pt[0].bandwidth_MBps / sf->pt[0].bandwidth_MBps - 1.0
                               : NAN;
    a->stream_old = a->c[R1_STREAM][R1_OLD].n ? a->c[R1_STREAM][R1_OLD].pt[0].bandwidth_MBps : NAN;
    a->stream_new = sn->n ? sn->pt[0].bandwidth_MBps : NAN;
    a->stream_old_2x = a->c[R1_STREAM][R1_OLD_2X].n ? a->c[R1_STREAM][R1_OLD_2X].pt[0].bandwidth_MBps : NAN;
    a->stream_new_2x = a->c[R1_STREAM][R1_NEW_2X].n ? a->c[R1_STREAM][R1_NEW_2X].pt[0].bandwidth_MBps : NAN;
}

static const char *r1__verdict(bool holds) { return holds ? "holds" : "DIFFERS"; }

static void r1__print_exp(const r1__all *a, int e)
{
    if (e == R1_STREAM) { /* one line per system */
        printf("\nstream (200 x 8 KiB, up to 8 in flight, one ack after the 200)\n%-16s %12s %16s\n", "system",
               "us/packet", "bandwidth MB/s");
        for (int v = 0; v < R1_NVAR; v++)
            if (a->c[e][v].n)
                printf("%-16s %12.2f %16.2f\n", r1__var_name[v], a->c[e][v].pt[0].latency_us,
                       a->c[e][v].pt[0].bandwidth_MBps);
        return;
    }
    printf("\n%s (latency us / bandwidth MB/s)\n%-8s", r1__exp_name[e], "bytes");
    for (int v = 0; v < R1_NVAR; v++)
        if (r1__runs(e, v)) printf(" %22s", r1__var_name[v]);
    printf("\n");
    const r1__cell *ref = &a->c[e][R1_OLD];
    for (size_t i = 0; i < ref->n; i++) {
        printf("%-8ld", ref->pt[i].bytes);
        for (int v = 0; v < R1_NVAR; v++) {
            if (!r1__runs(e, v)) continue;
            const r1__cell *c = &a->c[e][v];
            if (i < c->n) printf(" %10.2f / %9.2f", c->pt[i].latency_us, c->pt[i].bandwidth_MBps);
        }
        printf("\n");
    }
}

static void r1__print(const r1__all *a)
{
    printf("# myri reproduce seed001: seed 001's experiments on the alpha-pci-1998 system\n");
    for (int v = 0; v < R1_NVAR; v++) printf("#   %-14s %s\n", r1__var_name[v], r1__var_help[v]);
    for (int e = 0; e < R1_NEXP; e++) r1__print_exp(a, e);
    printf("\nclaims of seed 001, checked on these runs\n");
    bool c1 = a->small_cost_us > 0 && a->small_cost_us < 10 && a->crossover_bytes >= 256 && a->crossover_bytes <= 2048;
    printf("  overlapped receive costs small packets a few us and wins above about 800 B: %s\n"
           "    costs %.2f us at %ld B; new < old from %.0f B on (interpolated)\n",
           r1__verdict(c1), a->small_cost_us, a->c[R1_LATENCY][R1_OLD].n ? a->c[R1_LATENCY][R1_OLD].pt[0].bytes : 0L,
           a->crossover_bytes);
    bool c2 = a->polled_minus_interrupt_us >= 2.5 && a->polled_minus_interrupt_us <= 7.5;
    printf("  polled receive adds about 5 us: %s\n    %.2f us\n", r1__verdict(c2), a->polled_minus_interrupt_us);
    bool c3 = a->notification_gain > 0;
    printf("  DMA notification raises the DMA rate where host polling interferes (up to +50 %%): %s\n"
           "    %+.1f %% on the stream\n", r1__verdict(c3), 100 * a->notification_gain);
    printf("  the \"mystery\": the new system is slower when pipelining: %s\n"
           "    old %.2f MB/s, new %.2f MB/s; on a LANai clocked twice as fast old %.2f, new %.2f:\n"
           "    the gap (%.2f -> %.2f MB/s) is the MCP's reaction time (docs/SYSTEM.md)\n",
           a->stream_new < a->stream_old ? "reproduced" : "NOT REPRODUCED", a->stream_old, a->stream_new,
           a->stream_old_2x, a->stream_new_2x, a->stream_old - a->stream_new, a->stream_old_2x - a->stream_new_2x);
    printf("hash 0x%016" PRIx64 "\n", a->hash);
}

static void r1__json(const r1__all *a)
{
    myri_json *j = myri_json_create(stdout, false);
    myri_json_obj_begin(j);
    myri_json_kstr(j, "paper", "seed001");
    myri_json_key(j, "experiments");
    myri_json_obj_begin(j);
    for (int e = 0; e < R1_NEXP; e++) {
        myri_json_key(j, r1__exp_name[e]);
        myri_json_obj_begin(j);
        for (int v = 0; v < R1_NVAR; v++) {
            if (!r1__runs(e, v)) continue;
            myri_json_key(j, r1__var_name[v]);
            myri_json_obj_begin(j);
            myri_json_key(j, "points");
            myri_json_arr_begin(j);
            for (size_t i = 0; i < a->c[e][v].n; i++) {
                myri_json_obj_begin(j);
                myri_json_kint(j, "bytes", a->c[e][v].pt[i].bytes);
                myri_json_knum(j, "latency_us", a->c[e][v].pt[i].latency_us);
                myri_json_knum(j, "bandwidth_MBps", a->c[e][v].pt[i].bandwidth_MBps);
                myri_json_obj_end(j);
            }
            myri_json_arr_end(j);
            myri_json_kbool(j, "ok", a->c[e][v].ok);
            myri_json_obj_end(j);
        }
        myri_json_obj_end(j);
    }
    myri_json_obj_end(j);
    myri_json_knum(j, "crossover_bytes", a->crossover_bytes);
    myri_json_knum(j, "small_packet_cost_us", a->small_cost_us);
    myri_json_knum(j, "polled_minus_interrupt_us", a->polled_minus_interrupt_us);
    myri_json_knum(j, "notification_gain", a->notification_gain);
    myri_json_knum(j, "stream_old_MBps", a->stream_old);
    myri_json_knum(j, "stream_new_MBps", a->stream_new);
    myri_json_knum(j, "stream_old_66MHz_MBps", a->stream_old_2x);
    myri_json_knum(j, "stream_new_66MHz_MBps", a->stream_new_2x);
    myri_json_key(j, "hash");
    myri_json_hash(j, a->hash);
    myri_json_obj_end(j);
    myri_json_finish(j);
}

/* One SVG: latency (or bandwidth) against bytes for the variants an experiment ran. */
static int r1__figure(const r1__all *a, const char *dir, int e, bool bw)
{
    double x[R1_NVAR][R1_MAXPT], y[R1_NVAR][R1_MAXPT];
    myri_qsim_series s[R1_NVAR];
    size_t ns = 0;
    for (int v = 0; v < R1_NVAR; v++) {
        const r1__cell *c = &a->c[e][v];
        if (!r1__runs(e, v) || !c->n) continue;
        for (size_t i = 0; i < c->n; i++) {
            x[ns][i] = (double)c->pt[i].bytes;
            y[ns][i] = bw ? c->pt[i].bandwidth_MBps : c->pt[i].latency_us;
        }
        s[ns] = (myri_qsim_series){.label = r1__var_name[v], .n = c->n, .x = x[ns], .y = y[ns], .markers = true,
                                   .shape = v, .dashed = v == R1_POLLED};
        ns++;
    }
    char title[96], path[4096];
    snprintf(title, sizeof title, "seed 001, %s: %s", r1__exp_name[e], bw ? "bandwidth" : "latency");
    myri_qsim_plot p = {.title = title, .xlabel = "bytes", .ylabel = bw ? "MB/s" : "us", .nseries = ns, .series = s};
    snprintf(path, sizeof path, "%s/seed001-%s-%s.svg", dir, r1__exp_name[e], bw ? "bandwidth" : "latency");
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "myri reproduce: cannot write %s: %s\n", path, strerror(errno));
        return MYRI_EXIT_FAIL;
    }
    myri_status st = myri_qsim_plot_svg(&p, f);
    if (fclose(f) != 0 || st != MYRI_OK) {
        fprintf(stderr, "myri reproduce: writing %s failed\n", path);
        return MYRI_EXIT_FAIL;
    }
    fprintf(stderr, "wrote %s\n", path);
    return MYRI_EXIT_OK;
}

int myri_cmd_reproduce_seed001(bool json, const char *figures, bool have_seed, uint64_t seed)
{
    r1__all *a = calloc(1, sizeof *a);
    if (!a) return MYRI_EXIT_FAIL;
    myri_error err = {0};
    myri_error_clear(&err);
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    int rc = MYRI_EXIT_OK;
    for (int e = 0; e < R1_NEXP && !rc; e++)
        for (int v = 0; v < R1_NVAR && !rc; v++) {
            if (!r1__runs(e, v)) continue;
            myri_status st = r1__run_one(e, v, have_seed, seed, &a->c[e][v], &err);
            if (st) rc = myri_cli_exit(st, &err);
            h = (h ^ a->c[e][v].hash) * UINT64_C(0x100000001b3);
            if (!rc && !a->c[e][v].ok) {
                fprintf(stderr, "myri reproduce seed001: %s on the %s system did not complete\n", r1__exp_name[e],
                        r1__var_name[v]);
                rc = MYRI_EXIT_FAIL;
            }
        }
    if (!rc) {
        a->hash = h;
        r1__claims(a);
        if (json) r1__json(a);
        else r1__print(a);
        if (figures && mkdir(figures, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "myri reproduce: cannot create %s: %s\n", figures, strerror(errno));
            rc = MYRI_EXIT_FAIL;
        } else if (figures) {
            rc = r1__figure(a, figures, R1_PINGPONG, false);
            if (!rc) rc = r1__figure(a, figures, R1_PINGPONG, true);
            if (!rc) rc = r1__figure(a, figures, R1_LATENCY, false);
        }
    }
    free(a);
    return rc;
}
