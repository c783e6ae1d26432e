/* partition.h -- the partitioner of a cut run (docs/PARTITION.md section 4
 * "Partitioner"): which partition owns every node (switch or host) of a
 * built topology, the cables that join two partitions, and the window L of
 * the conservative synchronisation (the smallest lookahead of a cut cable).
 * Pure functions of the topology and the links' lookaheads: no simulation. */
#ifndef MYRI_APP_PARTITION_H
#define MYRI_APP_PARTITION_H

#include <stddef.h>
#include <stdint.h>

#include "myri/config.h"
#include "topo/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MYRI_PART_MAX 64 /* partitions of one run: assumption, far above the 4 ranks the issue asks */

typedef enum myri_part_kind {
    MYRI_PART_LEAF = 0, /* each host with the switch its cable reaches, groups in N blocks of hosts */
    MYRI_PART_BLOCK,    /* nodes by index in N blocks */
    MYRI_PART_RANDOM    /* every node to a random partition (tests only) */
} myri_part_kind;

typedef struct myri_part_mode {
    myri_part_kind kind;
    uint64_t seed; /* random: its SEED */
} myri_part_mode;

/* Parses "leaf", "block" or "random:SEED" (SEED a decimal number).  MYRI_OK,
 * or MYRI_EINPUT with the reason in err (key "--partition"). */
myri_status myri_part_mode_parse(const char *s, myri_part_mode *out, myri_error *err);
/* The mode's name as parsed ("random:7"), into buf. */
void myri_part_mode_name(const myri_part_mode *m, char *buf, size_t len);

typedef struct myri_partition {
    uint32_t n;              /* partitions */
    size_t nnodes, nhosts, nlinks;
    uint32_t *owner;         /* nnodes: the partition of every node */
    uint32_t *host_owner;    /* nhosts: the partition of host h (its node's) */
    uint32_t *cut;           /* the links whose two ends are in different partitions, in link order */
    size_t ncut;
    uint64_t lookahead_ps;   /* L: the smallest lookahead of a cut link; UINT64_MAX when none is cut */
    uint32_t *nodes, *hosts; /* n: nodes and hosts of each partition */
} myri_partition;

/* Cuts topology t into n partitions (1 <= n <= MYRI_PART_MAX) by mode m.
 * link_lookahead_ps[l] is link l's lookahead L_c = P_c + min(T, ctrl_delay)
 * (myri_fabric_link_lookahead_ps).  MYRI_OK, MYRI_EINPUT (n out of range, in
 * err) or MYRI_ENOMEM; free with myri_partition_free. */
myri_status myri_partition_make(const myri_topo *t, uint32_t n, const myri_part_mode *m,
                                const uint64_t *link_lookahead_ps, myri_partition *out, myri_error *err);
void myri_partition_free(myri_partition *p);

#ifdef __cplusplus
}
#endif

#endif
