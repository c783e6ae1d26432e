/* cmd_verify.c -- `myri verify FIRMWARE [--property NAME] [--json] ...`:
 * seed 000's model checking on the firmware that runs (docs/VERIFY.md).
 * Generates Promela from the firmware's tables, runs SPIN, prints a table
 * (property, meaning, verdict, the paper's verdict, states, transitions,
 * memory, time) and each counterexample as firmware states and events. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "myri/json.h"
#include "verify/verify.h"

#define VERIFY_MAXP 16

int myri_verify_replay(const char *fw, const myri_verify_result *r, FILE *out); /* verify_replay.c */

static const char verify__usage[] =
    "usage: myri verify FIRMWARE [--property NAME] [--sends N] [--frames N] [--json]\n"
    "       myri verify FIRMWARE --model [--sends N] [--frames N]\n"
    "       myri verify FIRMWARE --timed [--sends N] [--json]\n"
    "       myri verify lcp|myricom --paper [--property NAME] [--json]\n"
    "       myri verify FIRMWARE --property NAME --replay\n\n"
    "Model-checks a firmware's own state-machine tables with SPIN (Debian's 'spin'; make deps installs it):\n"
    "FIRMWARE is lcp, myricom or mcp.  The tables the simulator runs are turned into Promela (one proctype\n"
    "per module, the polling loop, the DMA engines, the host and the network as processes) and every\n"
    "property is checked: seed 000's 1A, 1B (lcp) and 2A, 2B (myricom) as printed, the same questions on\n"
    "the engines' activity (1A-engine ...), mutex, deadlock, overflow and progress.\n\n"
    "  --property NAME  check only this property\n"
    "  --sends N        sends the host posts (1..8, default 2)\n"
    "  --frames N       frames the network delivers (0..8, default 1)\n"
    "  --model          print the generated Promela and stop\n"
    "  --paper          check the paper's own Promela instead (figures 7, 8, 13, 14 completed from its prose):\n"
    "                   the printed formulas as reachability questions and as SPIN checks them (1A-all ...)\n"
    "  --replay         (with --property) play the counterexample on the simulated NIC: the firmware on two\n"
    "                   hosts sending to each other, its timeline read back: when the state holds, and\n"
    "                   whether the counterexample's firmware steps happen in the same order\n"
    "  --timed          the timed variant: the least ticks in which N sends complete (engines take ticks,\n"
    "                   the CPU none), and the throughput it implies beside seed 000's formulas\n"
    "  --small-ticks N  (timed) ticks of a descriptor or completion transfer (0..4, default 1; a message's\n"
    "                   host DMA and send DMA take 4: a/b = 1)\n"
    "  --json           one JSON object: firmware, sends, frames, properties [{name, formula, verdict,\n"
    "                   states, seconds, ...}], seconds\n"
    "Verdicts: reachable / unreachable (a state the paper asks about), holds / violated (an invariant or\n"
    "liveness property).  Exit 0 when every property was checked (whatever the verdicts), 1 when SPIN\n"
    "could not run, 2 on bad input.\n";

typedef struct verify__args {
    myri_cli cli;
    const char *fw, *prop;
    bool model, timed, paper, replay;
    myri_verify_bounds b;
} verify__args;

static int verify__parse(int argc, char **argv, verify__args *a)
{
    memset(a, 0, sizeof *a);
    myri_verify_bounds_default(&a->b);
    const char *model = NULL, *timed = NULL, *sends = NULL, *frames = NULL, *paper = NULL, *small = NULL, *replay = NULL;
    myri_cli_opt opts[] = {{"property", true, &a->prop}, {"model", false, &model}, {"timed", false, &timed},
                           {"paper", false, &paper}, {"small-ticks", true, &small}, {"replay", false, &replay},
                           {"sends", true, &sends}, {"frames", true, &frames}};
    int rc = myri_cli_parse("verify", argc, argv, &a->cli, opts, sizeof opts / sizeof opts[0]);
    if (rc || a->cli.help) return rc;
    uint64_t v;
    if (sends) {
        if (myri_cli_uint("verify", "sends", sends, &v)) return MYRI_EXIT_INPUT;
        if (v < 1 || v > 8) {
            fprintf(stderr, "myri verify: --sends %s is out of range; expected 1 to 8\n", sends);
            return MYRI_EXIT_INPUT;
        }
        a->b.sends = (uint32_t)v;
    }
    if (frames) {
        if (myri_cli_uint("verify", "frames", frames, &v)) return MYRI_EXIT_INPUT;
        if (v > 8) {
            fprintf(stderr, "myri verify: --frames %s is out of range; expected 0 to 8\n", frames);
            return MYRI_EXIT_INPUT;
        }
        a->b.frames = (uint32_t)v;
    }
    if (small) {
        if (myri_cli_uint("verify", "small-ticks", small, &v)) return MYRI_EXIT_INPUT;
        if (v > 4) {
            fprintf(stderr, "myri verify: --small-ticks %s is out of range; expected 0 to 4\n", small);
            return MYRI_EXIT_INPUT;
        }
        a->b.small_ticks = (uint32_t)v;
    }
    a->model = model != NULL, a->timed = timed != NULL, a->paper = paper != NULL, a->replay = replay != NULL;
    if (a->cli.npositional != 1) {
        fprintf(stderr, "myri verify: expected one FIRMWARE (lcp, myricom or mcp)\n");
        return MYRI_EXIT_INPUT;
    }
    a->fw = a->cli.positional[0];
    if (!myri_verify_props(a->fw, NULL)) {
        fprintf(stderr, "myri verify: unknown firmware '%s'; expected lcp, myricom or mcp\n", a->fw);
        return MYRI_EXIT_INPUT;
    }
    if (a->replay && (!a->prop || a->paper || a->model || a->timed || a->cli.json)) {
        fprintf(stderr, "myri verify: --replay needs --property NAME (and goes without --paper, --model, --timed, "
                        "--json)\n");
        return MYRI_EXIT_INPUT;
    }
    if (a->paper && strcmp(a->fw, "lcp") && strcmp(a->fw, "myricom")) {
        fprintf(stderr, "myri verify: --paper: the paper gives Promela for lcp and myricom, not '%s'\n", a->fw);
        return MYRI_EXIT_INPUT;
    }
    if ((a->model && (a->timed || a->prop || a->cli.json || a->paper)) || (a->timed && (a->prop || a->paper))) {
        fprintf(stderr, "myri verify: --model, --timed and --property go alone (--json with --timed or a check)\n");
        return MYRI_EXIT_INPUT;
    }
    return MYRI_EXIT_OK;
}

static void verify__trail_json(myri_json *j, const char *trail)
{
    myri_json_key(j, "counterexample");
    myri_json_arr_begin(j);
    const char *p = trail;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        myri_json_str(j, line);
        p += n + (e ? 1 : 0);
    }
    myri_json_arr_end(j);
}

static void verify__json(const verify__args *a, const myri_verify_result *r, size_t n, double total)
{
    myri_json *j = myri_json_create(stdout, false);
    myri_json_obj_begin(j);
    myri_json_kstr(j, "firmware", a->fw);
    myri_json_kstr(j, "model", a->paper ? "paper" : "tables");
    myri_json_kuint(j, "sends", a->b.sends);
    myri_json_kuint(j, "frames", a->b.frames);
    myri_json_key(j, "properties");
    myri_json_arr_begin(j);
    for (size_t i = 0; i < n; i++) {
        myri_json_obj_begin(j);
        myri_json_kstr(j, "name", r[i].prop->name);
        myri_json_kstr(j, "formula", r[i].prop->formula);
        myri_json_kstr(j, "printed", r[i].prop->printed);
        myri_json_kstr(j, "meaning", r[i].prop->meaning);
        myri_json_kstr(j, "verdict", r[i].verdict);
        myri_json_kstr(j, "paper", r[i].prop->paper);
        myri_json_kuint(j, "states", r[i].states);
        myri_json_kuint(j, "transitions", r[i].transitions);
        myri_json_knum(j, "memory_mb", r[i].memory_mb);
        myri_json_knum(j, "seconds", r[i].seconds);
        myri_json_kbool(j, "depth_limited", r[i].depth_limited);
        if (r[i].error) verify__trail_json(j, r[i].trail);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_knum(j, "seconds", total);
    myri_json_obj_end(j);
    (void)myri_json_finish(j);
    fputc('\n', stdout);
}

static void verify__text(const verify__args *a, const myri_verify_result *r, size_t n, double total)
{
    printf("myri verify %s: %s, %" PRIu32 " send(s) and %" PRIu32 " frame(s), SPIN\n\n", a->fw,
           a->paper ? "the paper's Promela (figures completed from its prose: verify/paper)" : "the firmware's own tables",
           a->b.sends, a->b.frames);
    printf("%-10s %-12s %-12s %10s %12s %9s %8s  %s\n", "property", "verdict", "paper", "states", "transitions",
           "memory_MB", "seconds", "meaning");
    for (size_t i = 0; i < n; i++)
        printf("%-10s %-12s %-12s %10" PRIu64 " %12" PRIu64 " %9.1f %8.3f  %s%s\n", r[i].prop->name, r[i].verdict,
               *r[i].prop->paper ? r[i].prop->paper : "-", r[i].states, r[i].transitions, r[i].memory_mb,
               r[i].seconds, r[i].prop->meaning, r[i].depth_limited ? " (DEPTH LIMITED)" : "");
    for (size_t i = 0; i < n; i++) {
        if (!r[i].error) continue;
        printf("\n%s is %s; SPIN's counterexample, as the firmware's steps:\n", r[i].prop->name, r[i].verdict);
        const char *p = r[i].trail;
        int k = 0;
        while (*p) {
            const char *e = strchr(p, '\n');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            printf("  %3d  %.*s\n", ++k, (int)len, p);
            p += len + (e ? 1 : 0);
        }
    }
    printf("\n%zu propert%s checked in %.2f s (formulas: --json; the model: --model)\n", n, n == 1 ? "y" : "ies",
           total);
}

static double verify__now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int verify__timed(const verify__args *a)
{
    char err[512] = "";
    uint32_t ticks = 0;
    double secs = 0;
    myri_status s = myri_verify_min_time(a->fw, &a->b, &ticks, &secs, err, sizeof err);
    if (s) {
        fprintf(stderr, "myri verify: %s\n", err);
        return MYRI_EXIT_FAIL;
    }
    const myri_verify_bounds *b = &a->b;
    /* Throughput in units of the send DMA's rate b: N messages of sdma_ticks each in `ticks`. */
    double thr = ticks ? (double)b->sends * b->sdma_ticks / ticks : 0;
    double ab = (double)b->sdma_ticks / b->hdma_ticks; /* a/b */
    double serial = ab / (1 + ab), parallel = ab < 1 ? ab : 1;
    if (a->cli.json) {
        myri_json *j = myri_json_create(stdout, false);
        myri_json_obj_begin(j);
        myri_json_kstr(j, "firmware", a->fw);
        myri_json_kuint(j, "sends", b->sends);
        myri_json_kuint(j, "hdma_ticks", b->hdma_ticks);
        myri_json_kuint(j, "sdma_ticks", b->sdma_ticks);
        myri_json_kuint(j, "small_ticks", b->small_ticks);
        myri_json_kuint(j, "min_ticks", ticks);
        myri_json_knum(j, "throughput_per_b", thr);
        myri_json_knum(j, "formula_serial_per_b", serial);
        myri_json_knum(j, "formula_parallel_per_b", parallel);
        myri_json_knum(j, "seconds", secs);
        myri_json_obj_end(j);
        (void)myri_json_finish(j);
        fputc('\n', stdout);
        return MYRI_EXIT_OK;
    }
    printf("myri verify %s --timed: host DMA of a message %" PRIu32 " ticks, send DMA %" PRIu32
           ", descriptor or completion %" PRIu32 ", the CPU none\n",
           a->fw, b->hdma_ticks, b->sdma_ticks, b->small_ticks);
    printf("  least time for %" PRIu32 " sends to complete: %" PRIu32 " ticks (SPIN, %.2f s)\n", b->sends, ticks,
           secs);
    printf("  throughput it implies: %.3f b   (seed 000: serial a/(1+a/b) = %.3f b, parallel min(a,b) = %.3f b)\n",
           thr, serial, parallel);
    return MYRI_EXIT_OK;
}

int myri_cmd_verify(int argc, char **argv)
{
    verify__args a;
    int rc = verify__parse(argc, argv, &a);
    if (rc) return rc;
    if (a.cli.help) {
        fputs(verify__usage, stdout);
        return MYRI_EXIT_OK;
    }
    char err[512] = "";
    if (a.model) {
        myri_status s = myri_verify_model(a.fw, &a.b, stdout, err, sizeof err);
        if (s) fprintf(stderr, "myri verify: %s\n", err);
        return s ? MYRI_EXIT_FAIL : MYRI_EXIT_OK;
    }
    if (a.timed) return verify__timed(&a);
    myri_verify_result *r = calloc(VERIFY_MAXP, sizeof *r);
    if (!r) return MYRI_EXIT_FAIL;
    size_t n = 0;
    double t0 = verify__now();
    myri_status s = (a.paper ? myri_verify_paper : myri_verify_run)(a.fw, &a.b, a.prop, r, VERIFY_MAXP, &n, err,
                                                                     sizeof err);
    double total = verify__now() - t0;
    if (s == MYRI_ERANGE) {
        fprintf(stderr, "myri verify: %s\n", err);
        free(r);
        return MYRI_EXIT_INPUT;
    }
    if (s) {
        fprintf(stderr, "myri verify: %s\n", err);
        free(r);
        return MYRI_EXIT_FAIL;
    }
    if (a.cli.json) verify__json(&a, r, n, total);
    else verify__text(&a, r, n, total);
    rc = a.replay && n == 1 ? myri_verify_replay(a.fw, &r[0], stdout) : MYRI_EXIT_OK;
    free(r);
    return rc;
}
