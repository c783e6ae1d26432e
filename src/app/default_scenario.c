/* default_scenario.c -- the built-in scenario of `myri run` (and `make run`):
 * the 64-host fat tree of the benchmark under rising uniform load, one line
 * per load (offered load, throughput, mean and p99 latency), with the
 * saturation point named.  Kept to a few seconds of wall time. */
#include "app/registry.h"

const char *myri_default_scenario(void)
{
    return "# built-in default scenario: a 64-host Myrinet fat tree under rising load\n"
           "# 4-ary 3-tree of 8-port switches (48 switches), 640 Mb/s channels, 10 m cables,\n"
           "# 550 ns path formation (seed 002), up/down routes, uniform random traffic with\n"
           "# 256-byte payloads and Poisson arrivals; each load runs 200 us of warm-up and\n"
           "# 1 ms of measurement.  The saturation point is the first load at which the\n"
           "# network delivers less than 95 % of what the hosts inject.\n"
           "seed: 1\n"
           "warmup: 200us\n"
           "duration: 1ms\n"
           "model: fast\n"
           "link:\n  rate: 640Mb/s\n  length: 10m\n"
           "switch:\n  latency: 550ns\n"
           "topology:\n  generator: fat-tree\n  k: 4\n  n: 3\n"
           "traffic:\n  pattern: uniform\n  size: 256B\n  arrivals: poisson\n"
           "sweep:\n  key: traffic.load\n"
           "  values: [0.05, 0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.8, 1.0]\n";
}
