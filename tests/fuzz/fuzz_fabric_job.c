/* fuzz_fabric_job.c -- fuzz target for the `fabric` job as a whole
 * (src/app/fabric_job.c): the input is a scenario document whose link,
 * switch, packet, port, traffic, faults, sweep and pcap values reach the
 * fabric, the traffic sources, the host devices, the sweep and the capture.
 * Any input must give MYRI_OK, or MYRI_EINPUT with a FILE:LINE:COL message,
 * never a crash, a leak or another status.
 *
 * Bounded work, so that no input runs long: `duration` is forced to 2 us and
 * `warmup` to 0; link.rate above 4 Gb/s is lowered to 4 Gb/s; inputs whose
 * generated or explicit topology could exceed 64 hosts, whose sweep has more
 * than 3 values or varies the topology, the duration, the warm-up or the
 * rate are skipped.  The results (text, or JSON when the input's size is
 * odd) go to /dev/null; inputs whose size is a multiple of 4 also write a
 * pcap capture to /dev/null (pcap.links). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/fabric_job.h"
#include "myri/config.h"
#include "fuzz_doc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Small networks only: k^n <= 64 (k <= 4, n <= 3), meshes and rings of a
 * few switches, at most 8 hosts per switch, short explicit lists. */
static bool fz__small(const myri_node *root)
{
    return fz__int_le(root, "topology.k", 4) && fz__int_le(root, "topology.n", 3) &&
           fz__int_le(root, "topology.x", 4) && fz__int_le(root, "topology.y", 4) &&
           fz__int_le(root, "topology.leaves", 8) && fz__int_le(root, "topology.spines", 8) &&
           fz__int_le(root, "topology.hosts_per_switch", 8) && fz__list_le(root, "topology.hosts", 64) &&
           fz__list_le(root, "topology.switches", 32) && fz__list_le(root, "topology.links", 128) &&
           fz__list_le(root, "topology.routes", 256);
}

/* A sweep of at most 3 values that leaves the bounds above alone. */
static bool fz__sweep_ok(const myri_node *root)
{
    const myri_node *key = myri_node_path(root, "sweep.key");
    if (!myri_node_path(root, "sweep")) return true;
    if (!fz__list_le(root, "sweep.values", 3)) return false;
    if (!key || !key->scalar) return true; /* an input error of the job */
    static const char *const banned[] = {"topology", "duration", "warmup", "link.rate", "link.preset"};
    for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
        if (strncmp(key->scalar, banned[i], strlen(banned[i])) == 0) return false;
    return true;
}

/* Forces the run length and caps the rate; false if the input is skipped. */
static bool fz__bound(myri_node *root)
{
    myri_error err;
    if (root->scalar || !fz__small(root) || !fz__sweep_ok(root)) return false;
    if (myri_node_set(root, "duration=2us", &err) || myri_node_set(root, "warmup=0ps", &err)) return false;
    const myri_node *rate = myri_node_path(root, "link.rate");
    double bps = 0;
    if (rate && rate->scalar && myri_parse_rate(rate->scalar, "b/s", &bps, &err) == MYRI_OK && bps > 4e9)
        return myri_node_set(root, "link.rate=4Gb/s", &err) == MYRI_OK;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 16384) return 0;
    myri_node *root = NULL;
    myri_error err;
    if (myri_doc_parse("fuzz.yaml", (const char *)data, size, &root, &err) != MYRI_OK) return 0;
    FILE *null = fopen("/dev/null", "w");
    if (null && fz__bound(root)) {
        myri_run_opts opts = {.json = size % 2 == 1, .out = null,
                              .pcap_path = size % 4 == 0 ? "/dev/null" : NULL};
        memset(&err, 0, sizeof err);
        myri_status st = myri_fabric_job.run(root, "fuzz.yaml", &opts, &err);
        if (st == MYRI_EINPUT && strncmp(err.msg, "fuzz.yaml:", 10) != 0 && strncmp(err.msg, "--set:", 6) != 0) {
            fprintf(stderr, "input error without a position: %s\n", err.msg);
            __builtin_trap();
        }
        if (st != MYRI_OK && st != MYRI_EINPUT) {
            fprintf(stderr, "status %d: %s\n", (int)st, err.msg);
            __builtin_trap(); /* a bounded run of a valid scenario does not fail */
        }
    }
    if (null) fclose(null);
    myri_node_free(root);
    return 0;
}
