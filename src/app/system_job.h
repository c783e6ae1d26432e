/* system_job.h -- the `system` scenario job: hosts running programs against
 * the Myrinet API (src/host/), LANai NICs (src/nic/) running a firmware
 * (src/firmware/, seed 001's MCP by default), on the fabric.  See
 * docs/SYSTEM.md.
 *
 * Scenario keys (besides seed, duration and the fabric's link/switch/packet/
 * topology): `preset` (system presets, app/presets.h), `nic.*`, `bus.*`,
 * `host.*`, `firmware` (a name) with its parameters under `<firmware>.*`, and
 * `programs:`, a list of {program, hosts, args, start}.  The run ends when
 * every program has returned (or at `duration`, a limit: programs still
 * running then make the run fail). */
#ifndef MYRI_APP_SYSTEM_JOB_H
#define MYRI_APP_SYSTEM_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "myri/config.h"
#include "app/run_opts.h"
#include "myri/job.h"
#include "topo/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const myri_job myri_system_job;

/* One figure a program reported. */
typedef struct myri_system_figure {
    uint32_t host;
    char program[32];
    char key[72];
    double value;
} myri_system_figure;

/* What a run measured, for the benchmarks and `reproduce seed001`. */
typedef struct myri_system_result {
    myri_system_figure *fig;
    size_t nfig;
    uint64_t hash;
    uint64_t sim_time_ps;
    uint64_t events;
    double wall_s;
    bool all_done;          /* every program returned */
    int worst_exit;         /* the largest exit code */
} myri_system_result;

/* Runs a system scenario without printing (opts may carry vcd/program
 * paths; opts->out unused).  `programs` (may be NULL) replaces the
 * document's `programs:` list.  Returns MYRI_EINPUT with err for bad input. */
myri_status myri_system_run_doc(const myri_node *root, const myri_node *programs, const myri_run_opts *opts,
                                myri_system_result *out, myri_error *err);
void myri_system_result_free(myri_system_result *r);
/* The topology and routes a system scenario's run would build (its preset's
 * switch and link values included), for `myri topo`.  MYRI_EINPUT with err
 * for bad input; free *out with myri_topo_built_free. */
myri_status myri_system_build_topo(const myri_node *root, myri_topo_built *out, myri_error *err);
/* The first figure with this key (any host), or NAN. */
double myri_system_figure_get(const myri_system_result *r, const char *key);
/* The figure with this key reported on host index `host`, or NAN.  Besides
 * the programs' reports, every NIC reports (program "nic"): nic.util_cpu,
 * nic.util_hdma, nic.util_sdma, nic.util_rdma, nic.util_bus (fractions of the
 * run), nic.overlap_hdma_sdma (fraction of the run with host DMA and send DMA
 * busy at once), nic.hdma_e2l_MBps, nic.hdma_l2e_MBps, nic.sdma_MBps (bytes
 * per busy time of each engine, 1e6 bytes/s), nic.hdma_e2l_own_MBps (the same
 * without the host DMA's waits for the bus). */
double myri_system_figure_host(const myri_system_result *r, uint32_t host, const char *key);

#ifdef __cplusplus
}
#endif

#endif
