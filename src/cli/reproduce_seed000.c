/* reproduce_seed000.c -- `myri reproduce seed000`: seed 000's section 4 on
 * the register-level NIC.  Seed 000 explains Berkeley-VIA's half bandwidth by
 * the structure of its firmware: when the host DMA (rate a) and the send DMA
 * (rate b) run one after the other, as the LCP makes them,
 *     throughput = a / (1 + a / b) = a b / (a + b),
 * and when they run in parallel, as Myricom's MCP lets them,
 *     throughput = min(a, b).
 * Here both firmwares run on the same NIC with the same VIA host interface,
 * the link rate b fixed (the preset's 1.28 Gb/s) and the host-DMA rate a
 * (bus.dma_rate) swept so that a/b goes from 0.25 to 4, with large messages
 * one way from h0 to h1 (every byte checked).  Per point: the formula, the
 * simulated throughput, the difference, and the bottleneck the report names.
 * Seed 001's MCP runs the same sweep for comparison (its own API and frame,
 * 8 KB packets, its largest). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/system_job.h"
#include "cli/cli.h"
#include "myri/json.h"

#define R0_B_MBPS 160.0 /* 1.28 Gb/s: the alpha-pci-1998 preset's link (LANai 4 era, seed 001) */
static const double r0__ratio[] = {0.25, 0.5, 1.0, 2.0, 4.0};
#define R0_NRATIO (sizeof r0__ratio / sizeof r0__ratio[0])

typedef struct r0__fw {
    const char *name;    /* firmware */
    const char *program; /* built-in program */
    const char *args;    /* its arguments (YAML flow list) */
    const char *key;     /* its bandwidth report, 1e6 bytes/s */
    uint32_t key_host;   /* the host that reports it */
    bool parallel;       /* seed 000's formula: min(a, b), else a b / (a + b) */
} r0__fw;

static const r0__fw r0__fws[] = {
    {"lcp", "via-stream", "[count=COUNT, size=32768, window=4]", "via-stream.steady_MBps", 1, false},
    {"myricom", "via-stream", "[count=COUNT, size=32768, window=4]", "via-stream.steady_MBps", 1, true},
    {"mcp", "stream", "[count=COUNT, size=8192, window=8]", "stream.bandwidth_MBps", 0, true},
};
#define R0_NFW (sizeof r0__fws / sizeof r0__fws[0])

/* The LANai clocks: the preset's LANai 4 (33 MHz), and one so fast that the
 * firmware's instructions cost nothing, as the formulas assume (1 GHz:
 * assumption, large enough that the results stop changing). */
static const double r0__clock[] = {33e6, 1e9};
#define R0_NCLOCK 2

typedef struct r0__point {
    const r0__fw *fw;
    double clock_Hz;
    double a_MBps, b_MBps, formula_MBps, simulated_MBps, overlap;
    char bottleneck[48];
    uint64_t hash;
} r0__point;

static double r0__formula(const r0__fw *f, double a, double b) { return f->parallel ? fmin(a, b) : a * b / (a + b); }

/* The sender's busiest engine and whether its host DMA and send DMA overlapped. */
static void r0__bottleneck(const myri_system_result *res, r0__point *p)
{
    static const char *const key[] = {"nic.util_hdma", "nic.util_sdma", "nic.util_cpu", "nic.util_bus"};
    static const char *const name[] = {"host DMA", "send DMA", "LANai CPU", "I/O bus"};
    int w = 0;
    double best = -1;
    for (int k = 0; k < 4; k++) {
        double u = myri_system_figure_host(res, 0, key[k]);
        if (u > best) best = u, w = k;
    }
    p->overlap = myri_system_figure_host(res, 0, "nic.overlap_hdma_sdma");
    snprintf(p->bottleneck, sizeof p->bottleneck, "%s %.0f %%", name[w], 100 * best);
}

static myri_status r0__run(const r0__fw *f, double a, double clock, int count, bool have_seed, uint64_t seed,
                           r0__point *p, myri_error *err)
{
    char doc[1024], args[128];
    const char *c = strstr(f->args, "COUNT");
    snprintf(args, sizeof args, "%.*s%d%s", (int)(c - f->args), f->args, count, c + 5);
    snprintf(doc, sizeof doc,
             "job: system\npreset: alpha-pci-1998\nfirmware: %s\nbus:\n  dma_rate: %.6g\nnic:\n  clock: %.6g\n"
             "topology:\n  generator: star\n  hosts_per_switch: 2\n"
             "programs:\n  - program: %s\n    hosts: [h0, h1]\n    args: %s\n",
             f->name, a * 1e6, clock, f->program, args);
    myri_node *root = NULL;
    myri_status st = myri_doc_parse("(seed000 system)", doc, strlen(doc), &root, err);
    myri_run_opts ro = {.have_seed = have_seed, .seed = seed};
    myri_system_result res;
    memset(&res, 0, sizeof res);
    if (!st) st = myri_system_run_doc(root, NULL, &ro, &res, err);
    myri_node_free(root);
    if (st) return st;
    p->fw = f;
    p->clock_Hz = clock;
    p->a_MBps = a;
    p->b_MBps = R0_B_MBPS;
    p->formula_MBps = r0__formula(f, a, R0_B_MBPS);
    p->simulated_MBps = myri_system_figure_host(&res, f->key_host, f->key);
    p->hash = res.hash;
    r0__bottleneck(&res, p);
    bool ok = res.all_done && res.worst_exit == 0 && isfinite(p->simulated_MBps);
    myri_system_result_free(&res);
    if (!ok) {
        snprintf(err->msg, sizeof err->msg, "the %s stream at a = %.0f MB/s (LANai %.0f MHz) did not complete", f->name,
                 a, clock * 1e-6);
        return MYRI_EMODEL;
    }
    return MYRI_OK;
}

/* ---- claims (myri_cli_claim) ----------------------------------------------------------- */

#define R0_TOL_FORMULA 0.05 /* a formula point holds within 5 % (stated here, before the run) */
#define R0_MAXCLAIMS 8

typedef struct r0__claims {
    myri_cli_claim c[R0_MAXCLAIMS];
    char text[R0_MAXCLAIMS][128], note[R0_MAXCLAIMS][160];
    int n;
} r0__claims;

/* The point of firmware fw at clock clk whose simulated throughput is furthest from its formula. */
static const r0__point *r0__worst(const r0__point *pt, size_t n, const char *fw, double clk)
{
    const r0__point *w = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(pt[i].fw->name, fw) != 0 || pt[i].clock_Hz != clk) continue;
        double d = fabs(pt[i].simulated_MBps / pt[i].formula_MBps - 1);
        if (!w || d > fabs(w->simulated_MBps / w->formula_MBps - 1)) w = &pt[i];
    }
    return w;
}

static void r0__claims_formula(r0__claims *cs, const r0__point *pt, size_t n)
{
    static const char *const fw[2] = {"lcp", "myricom"};
    for (int f = 0; f < 2; f++)
        for (int c = 0; c < R0_NCLOCK && cs->n < R0_MAXCLAIMS; c++) {
            const r0__point *w = r0__worst(pt, n, fw[f], r0__clock[c]);
            if (!w) continue;
            int k = cs->n++;
            snprintf(cs->text[k], sizeof cs->text[k], "4: %s throughput = %s at every a/b (LANai %.0f MHz, worst point)",
                     fw[f], f ? "min(a, b)" : "a b / (a + b)", r0__clock[c] * 1e-6);
            snprintf(cs->note[k], sizeof cs->note[k], "worst at a/b = %.2f%s", w->a_MBps / w->b_MBps,
                     r0__clock[c] < 100e6 ? "; the formula leaves out the firmware's own work per message" : "");
            cs->c[k] = (myri_cli_claim){.id = f ? "myricom_formula" : "lcp_formula", .text = cs->text[k],
                                        .unit = "MB/s", .paper = w->formula_MBps, .ours = w->simulated_MBps,
                                        .tol_rel = R0_TOL_FORMULA, .note = cs->note[k]};
        }
}

static void r0__claims_build(r0__claims *cs, const r0__point *pt, size_t n)
{
    cs->n = 0;
    r0__claims_formula(cs, pt, n);
    double half = NAN, lcp_overlap = 0, myr_overlap = INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(pt[i].fw->name, "myricom")) myr_overlap = fmin(myr_overlap, pt[i].overlap);
        if (strcmp(pt[i].fw->name, "lcp") != 0) continue;
        lcp_overlap = fmax(lcp_overlap, pt[i].overlap);
        if (pt[i].clock_Hz == r0__clock[0] && pt[i].a_MBps == pt[i].b_MBps) half = pt[i].simulated_MBps / pt[i].b_MBps;
    }
    if (cs->n + 2 > R0_MAXCLAIMS) return;
    cs->c[cs->n++] = (myri_cli_claim){
        .id = "lcp_half", .unit = "",
        .text = "1, 4: Berkeley-VIA (the LCP) \"utilizes only about 1/2 of bandwidth\" (a = b, 33 MHz; share of b)",
        .paper = 0.5, .ours = half, .tol_rel = 0.10};
    int k = cs->n++;
    snprintf(cs->note[k], sizeof cs->note[k], "myricom's smallest overlap over its points: %.1f %%", 100 * myr_overlap);
    cs->c[k] = (myri_cli_claim){
        .id = "lcp_no_overlap", .unit = "",
        .text = "4, SPIN formula 1-A false for the LCP: host DMA and send DMA never at once (largest overlap)",
        .paper = 0, .ours = lcp_overlap, .tol_abs = 0, .note = cs->note[k]};
}

static void r0__print(const r0__point *pt, size_t n, const r0__claims *cs, uint64_t hash)
{
    printf("seed 000, section 4: throughput with host-DMA rate a and send rate b = %.0f MB/s (1.28 Gb/s)\n",
           R0_B_MBPS);
    printf("formula: lcp a b / (a + b) (DMA serialised), myricom and mcp min(a, b) (in parallel)\n");
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || pt[i].clock_Hz != pt[i - 1].clock_Hz)
            printf("\nLANai at %.0f MHz%s\n%-8s %5s %7s %9s %9s %7s %8s  %s\n", pt[i].clock_Hz * 1e-6,
                   pt[i].clock_Hz > 100e6 ? " (its instructions cost ~nothing, as the formulas assume)"
                                          : " (LANai 4, the preset)",
                   "firmware", "a/b", "a MB/s", "formula", "simulated", "diff", "overlap", "sender's busiest engine");
        printf("%-8s %5.2f %7.0f %9.2f %9.2f %+6.1f%% %7.1f%%  %s\n", pt[i].fw->name, pt[i].a_MBps / pt[i].b_MBps,
               pt[i].a_MBps, pt[i].formula_MBps, pt[i].simulated_MBps,
               100 * (pt[i].simulated_MBps / pt[i].formula_MBps - 1), 100 * pt[i].overlap, pt[i].bottleneck);
    }
    printf("\nsimulated: lcp and myricom the receiver's steady rate (messages 2..N of 32 KiB, between the\n"
           "first and last completion); mcp seed 001's stream (8 KiB, its largest; until the ack).\n"
           "overlap: fraction of the run the sender's host DMA and send DMA were busy at once (seed 000:\n"
           "zero for the LCP by construction).  At 33 MHz the firmware's own work per message (doorbell,\n"
           "descriptor, completion, dispatch) keeps the bottleneck engine waiting; the formulas leave it out.\n");
    printf("\nClaims (tolerance stated beforehand):\n");
    for (int i = 0; i < cs->n; i++) myri_cli_claim_print(stdout, &cs->c[i]);
    printf("hash     0x%016llx\n", (unsigned long long)hash);
}

static void r0__json(const r0__point *pt, size_t n, const r0__claims *cs, uint64_t hash)
{
    myri_json *j = myri_json_create(stdout, false);
    if (!j) return;
    myri_json_obj_begin(j);
    myri_json_kstr(j, "paper", "seed000");
    myri_json_key(j, "points");
    myri_json_arr_begin(j);
    for (size_t i = 0; i < n; i++) {
        myri_json_obj_begin(j);
        myri_json_kstr(j, "firmware", pt[i].fw->name);
        myri_json_knum(j, "lanai_MHz", pt[i].clock_Hz * 1e-6);
        myri_json_knum(j, "a_MBps", pt[i].a_MBps);
        myri_json_knum(j, "b_MBps", pt[i].b_MBps);
        myri_json_knum(j, "formula_MBps", pt[i].formula_MBps);
        myri_json_knum(j, "simulated_MBps", pt[i].simulated_MBps);
        myri_json_knum(j, "overlap_hdma_sdma", pt[i].overlap);
        myri_json_kstr(j, "bottleneck", pt[i].bottleneck);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_key(j, "claims");
    myri_json_arr_begin(j);
    for (int i = 0; i < cs->n; i++) myri_cli_claim_json(j, &cs->c[i]);
    myri_json_arr_end(j);
    myri_json_key(j, "hash");
    myri_json_hash(j, hash);
    myri_json_obj_end(j);
    myri_json_finish(j);
}

int myri_cmd_reproduce_seed000(bool json, bool have_seed, uint64_t seed, int count)
{
    r0__point pt[R0_NCLOCK * R0_NFW * R0_NRATIO];
    size_t n = 0;
    myri_error err = {0};
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t c = 0; c < R0_NCLOCK; c++)
        for (size_t f = 0; f < R0_NFW; f++)
            for (size_t r = 0; r < R0_NRATIO; r++) {
                myri_status st = r0__run(&r0__fws[f], r0__ratio[r] * R0_B_MBPS, r0__clock[c], count, have_seed, seed,
                                         &pt[n], &err);
                if (st) return myri_cli_exit(st, &err);
                h = (h ^ pt[n].hash) * UINT64_C(0x100000001b3);
                n++;
            }
    r0__claims cs;
    r0__claims_build(&cs, pt, n);
    if (json) r0__json(pt, n, &cs, h);
    else r0__print(pt, n, &cs, h);
    return MYRI_EXIT_OK;
}
