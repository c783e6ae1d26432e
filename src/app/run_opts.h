/* run_opts.h -- the options of one run of a scenario job, from the command
 * line: `myri run` and the commands that run a job (bench, map, reproduce,
 * verify --replay).  The engine's job table (myri/job.h) only passes them
 * through; the jobs (src/app/) read them. */
#ifndef MYRI_APP_RUN_OPTS_H
#define MYRI_APP_RUN_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "myri/job.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Processes that share a sweep (the myri program under mpirun: src/app/ranks.c,
 * docs/RANKS.md).  The library knows them only through this hook; it never
 * calls MPI itself. */
typedef struct myri_run_ranks {
    int rank, size; /* this process, of `size` (>= 2) */
    /* Every process passes its bytes; on rank 0 *all receives all ranks'
     * bytes one after another in rank order (malloc'd, the caller frees it;
     * NULL if none) and lens[r] (lens: `size` entries, or NULL: not kept) rank
     * r's length; on the other ranks *all is NULL.  0, or -1 if the exchange
     * failed or rank 0 could not keep the bytes. */
    int (*gather)(const struct myri_run_ranks *self, const void *mine, size_t len, unsigned char **all,
                  size_t *lens);
    /* A run cut across the ranks (app/part.c, docs/PARTITION.md section 4): every process passes k words
     * for each rank (send[r * k ...]) and receives each rank's k words for it (recv[r * k ...]); then
     * bytes: scount[r] bytes for rank r one after another in send, rcount[r] (known from the words) from
     * rank r into recv; bcast: len bytes of rank root's buf to every rank.  0, or -1 if it failed. */
    int (*alltoall)(const struct myri_run_ranks *self, const uint64_t *send, uint64_t *recv, int k);
    int (*alltoallv)(const struct myri_run_ranks *self, const void *send, const size_t *scount, void *recv,
                     const size_t *rcount);
    int (*bcast)(const struct myri_run_ranks *self, void *buf, size_t len, int root);
} myri_run_ranks;

struct myri_run_opts {
    bool json;          /* write one JSON object to `out` instead of text */
    bool have_seed;     /* --seed given: overrides the scenario's seed */
    uint64_t seed;
    FILE *out;          /* results */
    FILE *progress;     /* a terminal for the progress line, or NULL */
    const char *pcap_path; /* --pcap FILE or NULL (jobs that support it) */
    const char *vcd_path;  /* --vcd FILE or NULL: NIC timelines (the system job) */
    const char *program_path; /* --program FILE.so or NULL: the user program (the system job) */
    const char *const *programs; /* more: --program NAME=FILE.so (entries `program: NAME`; FILE.so alone: user) */
    size_t nprograms;
    bool no_advance;       /* tests: every process sleep and CPU step is an engine event (myri_sim_advance off) */
    const myri_run_ranks *ranks; /* NULL: one process; else a sweep's runs are spread over the ranks, or
                                  * (fabric job, no sweep) the run is cut into one partition per rank
                                  * (docs/RANKS.md), and rank 0 alone writes to `out` */
    uint32_t partitions;   /* --partitions N: the run cut into N partitions in this process (fabric and
                            * system jobs, docs/PARTITION.md step 9); 0: not cut */
    const char *partition; /* --partition MODE: leaf (NULL: the default), block or random:SEED */
    uint64_t part_test_fault_ps; /* tests only (MYRI_PART_TEST_FAULT_PS): messages delivered this early */
    bool part_test_one_pass;     /* tests only (MYRI_PART_TEST_ONE_PASS): a cut system run reports its first
                                  * pass, run past its last program's return (the fault to catch) */
};

#ifdef __cplusplus
}
#endif

#endif
