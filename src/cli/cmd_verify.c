/* cmd_verify.c -- `myri verify FIRMWARE [--property NAME] [--json] ...`:
 * seed 000's model checking on the firmware that runs (docs/VERIFY.md).
 * Generates Promela from the firmware's tables, runs SPIN, prints a table
 * (property, meaning, verdict, the paper's verdict, states, transitions,
 * memory, time) and each counterexample as firmware states and events. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/args.h"
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
    "  --time-limit S   seconds per SPIN run (1..3600, default 60): a property not decided in time (or in\n"
    "                   pan's 4 GiB, or its depth) gets the verdict unknown, and the exit status is 1\n"
    "  --small-ticks N  (timed) ticks of a descriptor or completion transfer (0..4, default 1; a message's\n"
    "                   host DMA and send DMA take 4: a/b = 1)\n"
    "  --json           one JSON object: firmware, sends, frames, properties [{name, formula, verdict,\n"
    "                   states, seconds, ...}], seconds\n"
    "Verdicts: reachable / unreachable (a state the paper asks about), holds / violated (an invariant or\n"
    "liveness property), unknown (not decided: time, memory or depth limit).  Exit 0 when every property\n"
    "was decided (whatever the verdicts), 1 when SPIN could not run or a verdict is unknown, 2 on bad input.\n";

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

static void verify__json(const myri_cmd_verify_args *a, const myri_verify_result *r, size_t n, double total)
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
        if (*r[i].why) myri_json_kstr(j, "why", r[i].why);
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

static void verify__text(const myri_cmd_verify_args *a, const myri_verify_result *r, size_t n, double total)
{
    printf("myri verify %s: %s, %" PRIu32 " send(s) and %" PRIu32 " frame(s), SPIN\n\n", a->fw,
           a->paper ? "the paper's Promela (figures completed from its prose: verify/paper)" : "the firmware's own tables",
           a->b.sends, a->b.frames);
    printf("%-10s %-12s %-12s %10s %12s %9s %8s  %s\n", "property", "verdict", "paper", "states", "transitions",
           "memory_MB", "seconds", "meaning");
    for (size_t i = 0; i < n; i++)
        printf("%-10s %-12s %-12s %10" PRIu64 " %12" PRIu64 " %9.1f %8.3f  %s%s\n", r[i].prop->name, r[i].verdict,
               *r[i].prop->paper ? r[i].prop->paper : "-", r[i].states, r[i].transitions, r[i].memory_mb,
               r[i].seconds, r[i].prop->meaning, *r[i].why ? " [not decided]" : "");
    for (size_t i = 0; i < n; i++)
        if (*r[i].why) printf("%s: not decided (%s); raise --time-limit or lower --sends/--frames\n", r[i].prop->name,
                              r[i].why);
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

static int verify__timed(const myri_cmd_verify_args *a)
{
    char err[512] = "";
    uint32_t ticks = 0;
    double secs = 0;
    myri_status s = myri_verify_min_time(a->fw, &a->b, &ticks, &secs, err, sizeof err);
    if (s == MYRI_ETIMEDOUT) {
        fprintf(stderr, "myri verify: %s; raise --time-limit or lower --sends\n", err);
        return MYRI_EXIT_FAIL;
    }
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
    myri_cmd_verify_args a;
    int rc = myri_cmd_verify_parse(argc, argv, &a);
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
    for (size_t i = 0; i < n; i++)
        if (*r[i].why) rc = MYRI_EXIT_FAIL; /* a property not decided is not a result */
    free(r);
    return rc;
}
