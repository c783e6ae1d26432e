/* fuzz_system_job.c -- fuzz target for the `system` job as a whole
 * (src/app/system_job.c, system_report.c): the input is a scenario document
 * whose preset, nic, bus, host, firmware (mcp), programs, faults, link,
 * switch, packet and topology values reach the LANai models, the MCP, the
 * hosts, the API and the programs.  Any input must give MYRI_OK or
 * MYRI_EINPUT with a FILE:LINE:COL (or key) message -- never a crash, a
 * leak, a hang or another status.
 *
 * Bounded work: `duration` is forced to 300 us (a limit: programs still
 * running then are simply reported unfinished); inputs are skipped whose
 * topology could exceed 16 hosts, whose SRAM, DMA region or stack is large
 * (memory), or whose polling periods (mcp.follow, host.init_poll,
 * host.lock_spin) or clocks are so short or slow that 300 us would take
 * millions of events.  A `sweep:` may run at most 2 values twice and vary
 * only keys these bounds do not look at (link.*, switch.*, packet.*, seed,
 * check_firmware, model), so that no value escapes them.  The results
 * (text, or JSON when the input's size is odd) go to /dev/null. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/system_job.h"
#include "myri/config.h"
#include "fuzz_doc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A time at `path` absent or >= min_ps. */
static bool fz__time_ge(const myri_node *root, const char *path, uint64_t min_ps)
{
    const myri_node *n = myri_node_path(root, path);
    if (!n) return true;
    uint64_t ps;
    myri_error err;
    if (!n->scalar || myri_parse_time(n->scalar, "ns", &ps, &err) != MYRI_OK) return true; /* an input error */
    return ps >= min_ps;
}

/* A size at `path` absent or <= max bytes. */
static bool fz__size_le(const myri_node *root, const char *path, uint64_t max)
{
    const myri_node *n = myri_node_path(root, path);
    if (!n) return true;
    uint64_t b;
    myri_error err;
    if (!n->scalar || myri_parse_size(n->scalar, "B", &b, &err) != MYRI_OK) return true;
    return b <= max;
}

/* A plain number at `path` absent or within [lo, hi]. */
static bool fz__num_in(const myri_node *root, const char *path, double lo, double hi)
{
    const myri_node *n = myri_node_path(root, path);
    if (!n) return true;
    double v;
    myri_error err;
    if (!n->scalar || myri_parse_double(n->scalar, &v, &err) != MYRI_OK) return true;
    return v >= lo && v <= hi;
}

/* A sweep of at most 2 values x 2 runs, of a key the bounds below do not check. */
static bool fz__sweep_bounded(const myri_node *root)
{
    static const char *const free_keys[] = {"link.", "switch.", "packet.", "seed", "check_firmware", "model"};
    const myri_node *k = myri_node_path(root, "sweep.key");
    if (!fz__int_le(root, "sweep.runs", 2) || !fz__list_le(root, "sweep.values", 2)) return false;
    if (!k || (k->scalar && !k->scalar[0])) return true;
    if (!k->scalar) return true; /* an input error */
    for (size_t i = 0; i < sizeof free_keys / sizeof free_keys[0]; i++)
        if (!strncmp(k->scalar, free_keys[i], strlen(free_keys[i]))) return true;
    return false;
}

static bool fz__bounded(myri_node *root)
{
    myri_error err;
    if (root->scalar) return false;
    bool small = fz__int_le(root, "topology.k", 4) && fz__int_le(root, "topology.n", 2) &&
                 fz__int_le(root, "topology.x", 2) && fz__int_le(root, "topology.y", 2) &&
                 fz__int_le(root, "topology.leaves", 4) && fz__int_le(root, "topology.spines", 4) &&
                 fz__int_le(root, "topology.hosts_per_switch", 4) && fz__list_le(root, "topology.hosts", 16) &&
                 fz__list_le(root, "topology.switches", 16) && fz__list_le(root, "topology.links", 64) &&
                 fz__list_le(root, "programs", 8);
    bool memory = fz__size_le(root, "nic.sram", 4u << 20) && fz__size_le(root, "host.dma_region", 16u << 20) &&
                  fz__size_le(root, "host.stack", 1u << 20) && fz__int_le(root, "mcp.recv_q", 64) &&
                  fz__int_le(root, "mcp.rx_pool", 64) && fz__int_le(root, "mcp.send_q", 64) &&
                  fz__int_le(root, "mcp.nroutes", 256);
    bool events = fz__time_ge(root, "mcp.follow", 100000) && fz__time_ge(root, "host.init_poll", 100000) &&
                  fz__time_ge(root, "host.lock_spin", 100000) && fz__time_ge(root, "nic.rtc_tick", 100000) &&
                  fz__num_in(root, "nic.clock", 1e6, 1e9) && fz__num_in(root, "bus.dma_rate", 1e6, 1e10);
    if (!small || !memory || !events || !fz__sweep_bounded(root)) return false;
    return myri_node_set(root, "duration=300us", &err) == MYRI_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 16384) return 0;
    myri_node *root = NULL;
    myri_error err;
    if (myri_doc_parse("fuzz.yaml", (const char *)data, size, &root, &err) != MYRI_OK) return 0;
    FILE *null = fopen("/dev/null", "w");
    if (null && fz__bounded(root)) {
        myri_run_opts opts = {.json = size % 2 == 1, .out = null};
        memset(&err, 0, sizeof err);
        myri_status st = myri_system_job.run(root, "fuzz.yaml", &opts, &err);
        if (st == MYRI_EINPUT && strncmp(err.msg, "fuzz.yaml:", 10) != 0 && strncmp(err.msg, "--set:", 6) != 0 &&
            !err.key[0] && strncmp(err.msg, "preset", 6) != 0) {
            fprintf(stderr, "input error without a position or key: %s\n", err.msg);
            __builtin_trap();
        }
        /* MYRI_EMODEL: the run was bounded and a program did not finish (reported, not a failure of Myri) */
        if (st != MYRI_OK && st != MYRI_EINPUT && st != MYRI_EMODEL) {
            fprintf(stderr, "status %d: %s\n", (int)st, err.msg);
            __builtin_trap();
        }
    }
    if (null) fclose(null);
    myri_node_free(root);
    return 0;
}
