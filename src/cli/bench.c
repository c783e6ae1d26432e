/* bench.c -- `myri bench engine`: the hold model as an engine benchmark. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "app/hold.h"
#include "myri/json.h"

static const char bench_usage[] =
    "usage: myri bench engine [--pending N] [--events M] [--mean T_ps] [--seed S] [--json]\n"
    "       myri bench pingpong|latency|stream [FILE] [--runs N] [--json] [--seed S] [--set key=value]...\n"
    "           (seed 001's experiments on a system: see 'myri bench pingpong --help')\n\n"
    "Runs the classic hold model: N events are pending; each executed event schedules one\n"
    "new event at now + Exp(mean), so the pending count stays N.  Prints events per second\n"
    "(wall clock, after the N initial events are scheduled), the pending count and a hash\n"
    "of the executed event sequence (same seed, same hash).\n"
    "Defaults: N = 10000, M = 20000000 (or 10 N if larger), mean = 1000000 ps, seed 1.\n"
    "M must be at least 1; --set is not taken (a benchmark reads no scenario).\n";

int myri_cmd_bench(int argc, char **argv)
{
    myri_cmd_bench_args a;
    if (myri_cmd_bench_parse(argc, argv, &a)) return MYRI_EXIT_INPUT;
    if (a.system) return myri_cmd_bench_system(&a);
    if (a.cli.help) {
        fputs(bench_usage, stdout);
        return MYRI_EXIT_OK;
    }
    uint64_t seed = a.seed;
    myri_hold_result r;
    myri_status st = myri_hold_bench(seed, a.pending, a.events, a.mean, &r);
    if (st != MYRI_OK) {
        fprintf(stderr, "myri bench: %s\n", myri_strerror(st));
        return MYRI_EXIT_FAIL;
    }
    if (a.cli.json) {
        myri_json *j = myri_json_create(stdout, false);
        myri_json_obj_begin(j);
        myri_json_kstr(j, "benchmark", "engine-hold");
        myri_json_knum(j, "events_per_sec", r.events_per_sec);
        myri_json_kuint(j, "pending", r.pending);
        myri_json_kuint(j, "events", r.events);
        myri_json_knum(j, "wall_s", r.wall_s);
        myri_json_kuint(j, "seed", seed);
        myri_json_key(j, "hash");
        myri_json_hash(j, r.hash);
        myri_json_obj_end(j);
        myri_json_finish(j);
    } else {
        printf("engine hold model: %" PRIu64 " pending, %" PRIu64 " events in %.3f s\n", r.pending, r.events,
               r.wall_s);
        printf("events/s  %.3f M\nhash      0x%016" PRIx64 "\n", r.events_per_sec * 1e-6, r.hash);
    }
    return MYRI_EXIT_OK;
}
