/* part.h -- a run cut into N partitions inside one process (docs/PARTITION.md
 * section 4, step 9): the conservative window loop and the exchange of the
 * partitions' messages.  Each partition is a simulation of its own (its
 * myri_sim and fabric instance, only its units' components); the harness
 * knows them through three calls (myri_part_ops) and carries the fabric's
 * messages (myri_fabric_msg) between them, in key order, at window ends.
 *
 *   L = the smallest lookahead of a cut cable (none cut: one window to the end)
 *   loop: g = the earliest pending event of any partition; stop when g > end
 *         W = min(g + L, end + 1); every partition runs its events at < W
 *         every message sent in the window (all at >= W, checked) goes to
 *         its partition with its key
 *
 * A message is a flat record (the packet by id, its record inline: step 7),
 * so the same loop runs across MPI ranks, one partition per rank
 * (myri_part_set_ranks, step 10): per window one exchange of (message count,
 * next event time) per pair of ranks and one of the messages, through the
 * program's hook (myri_run_ranks: src/app/ranks.c; this file never calls MPI). */
#ifndef MYRI_APP_PART_H
#define MYRI_APP_PART_H

#include <stdbool.h>
#include <stdint.h>

#include "app/run_opts.h"
#include "fabric/fabric.h"
#include "myri/config.h"
#include "myri/json.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_part_ops {
    /* the time of partition q's earliest pending event, MYRI_TIME_NEVER if none */
    myri_time_ps (*next_ps)(void *ctx, uint32_t q);
    /* runs partition q's events at times <= last_ps (its clock then at last_ps) */
    myri_status (*run_to)(void *ctx, uint32_t q, myri_time_ps last_ps);
    /* gives partition q a message of another partition (its node m->dst_node) */
    myri_status (*take)(void *ctx, uint32_t q, const myri_fabric_msg *m);
    /* optional (NULL: never): true when the run is over before end_ps (a system job's programs all
     * returned); asked after each window's exchange, myri_part_run then returns at once.  One
     * process only: across ranks (myri_part_set_ranks) it is not asked, and system jobs are refused there */
    bool (*done)(void *ctx);
} myri_part_ops;

typedef struct myri_part_stats {
    uint64_t windows;           /* windows run */
    uint64_t messages;          /* messages exchanged */
    uint64_t max_window_messages; /* the most in one window */
    uint64_t busy_windows;      /* windows that carried at least one message */
} myri_part_stats;

typedef struct myri_part myri_part;

/* n partitions; node_owner[node] (kept by the caller) names each node's
 * partition, so that a message finds its partition by its dst_node;
 * lookahead_ps: L (UINT64_MAX: nothing cut). */
myri_part *myri_part_create(uint32_t n, const uint32_t *node_owner, uint64_t lookahead_ps,
                            const myri_part_ops *ops, void *ctx);
void myri_part_destroy(myri_part *h);
/* The outbox of every partition (a myri_fabric_outbox_fn; ctx: the harness). */
void myri_part_post(void *harness, const myri_fabric_msg *m);
/* Runs the window loop to end_ps and every partition's clock to end_ps (or
 * until ops.done says the run is over: the clocks are then at the window's end).
 * MYRI_OK; MYRI_ESTATE with the reason in err if a message is for a time
 * before its window's end or a partition refused one; a partition's status. */
myri_status myri_part_run(myri_part *h, myri_time_ps end_ps, myri_error *err);
void myri_part_get_stats(const myri_part *h, myri_part_stats *out);
/* The members every cut run's report has in its `partitions` object (fabric
 * and system jobs; the caller opens and closes the object and adds its own):
 * n, mode, hosts[n], nodes[n] (left out when nodes is NULL), cut_links,
 * lookahead_ps (null when no cable is cut: L is then no figure), windows,
 * messages, max_window_messages. */
void myri_part_json_members(myri_json *j, uint32_t n, const char *mode, const uint32_t *hosts,
                            const uint32_t *nodes, uint64_t cut_links, uint64_t lookahead_ps,
                            const myri_part_stats *st);

/* Across ranks: this process runs partition rk->rank only (the ops are
 * called for it alone) and rk->size must be n.  myri_part_run then
 * exchanges each window's messages with the other ranks (every message is
 * for another partition) and ends on every rank with the same status: a
 * failure of any rank is every rank's, with the lowest failing rank's error
 * in err.  MYRI_EINVAL if rk lacks the exchange or its size is not n. */
myri_status myri_part_set_ranks(myri_part *h, const myri_run_ranks *rk);
/* Across ranks: every rank passes its status (and error) and gets the first
 * failing rank's (MYRI_OK if none): a failure met by one rank outside the
 * window loop (building its partition) becomes every rank's. */
myri_status myri_part_agree(const myri_run_ranks *rk, myri_status st, myri_error *err);

/* Test hook (tests only): every message is delivered early_ps before its
 * time, so that a test can show that the check of identity fails. */
void myri_part__test_fault(myri_part *h, myri_time_ps early_ps);

#ifdef __cplusplus
}
#endif

#endif
