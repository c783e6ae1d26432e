/* bench.c -- `myri bench engine`: the hold model as an engine benchmark. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "app/hold.h"
#include "myri/json.h"

static const char bench_usage[] =
    "usage: myri bench engine [--pending N] [--events M] [--mean T_ps] [--seed S] [--json]\n"
    "       myri bench pingpong|latency|stream [FILE] [--json] [--seed S] [--set key=value]...\n"
    "           (seed 001's experiments on a system: see 'myri bench pingpong --help')\n\n"
    "Runs the classic hold model: N events are pending; each executed event schedules one\n"
    "new event at now + Exp(mean), so the pending count stays N.  Prints events per second\n"
    "(wall clock, after the N initial events are scheduled), the pending count and a hash\n"
    "of the executed event sequence (same seed, same hash).\n"
    "Defaults: N = 10000, M = 20000000 (or 10 N if larger), mean = 1000000 ps, seed 1.\n"
    "M must be at least 1; --set is not taken (a benchmark reads no scenario).\n";

int myri_cmd_bench(int argc, char **argv)
{
    const char *pending_s, *events_s, *mean_s;
    myri_cli_opt opts[] = {{"pending", true, &pending_s}, {"events", true, &events_s}, {"mean", true, &mean_s}};
    myri_cli cli;
    if (myri_cli_parse("bench", argc, argv, &cli, opts, 3)) return MYRI_EXIT_INPUT;
    if (cli.npositional >= 1 && (!strcmp(cli.positional[0], "pingpong") || !strcmp(cli.positional[0], "latency") ||
                                 !strcmp(cli.positional[0], "stream"))) {
        if (pending_s || events_s || mean_s) {
            fprintf(stderr, "myri bench %s: --pending, --events and --mean belong to 'myri bench engine'\n",
                    cli.positional[0]);
            return MYRI_EXIT_INPUT;
        }
        return myri_cmd_bench_system(cli.positional[0], &cli);
    }
    if (cli.help) {
        fputs(bench_usage, stdout);
        return MYRI_EXIT_OK;
    }
    if (cli.npositional != 1 || strcmp(cli.positional[0], "engine") != 0) {
        fprintf(stderr, "myri bench: expected a benchmark name: engine, pingpong, latency or stream "
                        "(see 'myri bench --help')\n");
        return MYRI_EXIT_INPUT;
    }
    if (cli.nsets) {
        fprintf(stderr, "myri bench: --set is not used by benchmarks\n");
        return MYRI_EXIT_INPUT;
    }
    uint64_t pending = 10000, events = 0, mean = 1000000, seed = cli.have_seed ? cli.seed : 1;
    if (pending_s && myri_cli_uint("bench", "pending", pending_s, &pending)) return MYRI_EXIT_INPUT;
    if (events_s && myri_cli_uint("bench", "events", events_s, &events)) return MYRI_EXIT_INPUT;
    if (mean_s && myri_cli_uint("bench", "mean", mean_s, &mean)) return MYRI_EXIT_INPUT;
    if (events_s && events == 0) {
        fprintf(stderr, "myri bench: --events expects a positive number of events, got '%s' "
                        "(leave --events out for the default)\n", events_s);
        return MYRI_EXIT_INPUT;
    }
    if (pending < 1 || pending > 16000000 || mean < 1) {
        fprintf(stderr, "myri bench: --pending must be in 1..16000000 and --mean at least 1 ps\n");
        return MYRI_EXIT_INPUT;
    }
    if (!events_s) events = pending * 10 > 20000000 ? pending * 10 : 20000000;
    myri_hold_result r;
    myri_status st = myri_hold_bench(seed, pending, events, mean, &r);
    if (st != MYRI_OK) {
        fprintf(stderr, "myri bench: %s\n", myri_strerror(st));
        return MYRI_EXIT_FAIL;
    }
    if (cli.json) {
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
