/* qna.h -- Whitt's Queueing Network Analyzer as written in seed 004 (section
 * 2.2, equations (1)-(15)), the seed-004 NIC model, and the reproduction of
 * the paper's analytical Tables 3 and 8.
 *
 * A network (myri_qna_net) is a set of nodes (each with m servers, FCFS, infinite
 * waiting room) and classes.  Customers are identified by (node, class)
 * pairs; routing goes from one pair to another with a probability, which is
 * how class switching is expressed; whatever probability is left over leaves
 * the network.  Every (node, class) pair that receives traffic must have a
 * service time (mean and SCV).
 *
 * Units: the solver is unit-agnostic.  Rates are "per time unit" and means
 * are "time units", the same unit for all (the seed-004 model uses
 * microseconds, so rates are per microsecond).
 *
 * Solving (myri_qna_solve):
 *   Step 1: traffic equations (1)-(2) with class switching, solved exactly
 *           (linear system over (node, class) flows); (3)-(7).
 *   Step 2: superposition (8)-(9), flow (10), splitting (11) with the
 *           per-class routing probability, iterated in Gauss-Seidel sweeps in
 *           node order starting from every SCV = 1: until the SCVs converge
 *           (default) or exactly `sweeps` times.
 *   Step 3: (12)-(15).  For m = 1 the paper and Whitt agree (Kingman).  For
 *           m > 1 the default is Whitt's GI/G/m approximation (see
 *           docs/QNA.md); QNA_WQ_PAPER evaluates (12) literally.
 * A node with utilisation >= 1 makes the solve fail with MYRI_EMODEL and a
 * message naming the node and its utilisation (the result still holds the
 * arrival rates and utilisations of every node).
 *
 * Errors: every function returns a myri_status; NULL or out-of-range
 * arguments give MYRI_EINVAL, never a crash.
 */
#ifndef MYRI_ANALYSIS_QNA_H
#define MYRI_ANALYSIS_QNA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "myri/config.h"
#include "myri/json.h"
#include "myri/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits (fixed so that a solve needs no allocation beyond the result). */
#define QNA_MAX_NODES 32
#define QNA_MAX_CLASSES 16
#define QNA_MAX_ROUTES 1024 /* routing entries (from, to) of one network */
#define QNA_NAME_MAX 32
/* Destination "leave the network" for myri_qna_net_route (to_node). */
#define QNA_EXIT ((size_t)-1)

typedef struct myri_qna_net myri_qna_net; /* opaque */

/* ---- building a network ------------------------------------------------------ */
/* Creates an empty network; NULL on ENOMEM.  myri_qna_net_destroy(NULL) is safe. */
myri_qna_net *myri_qna_net_create(void);
void myri_qna_net_destroy(myri_qna_net *net);
/* Deep copy (NULL on ENOMEM or net == NULL). */
myri_qna_net *myri_qna_net_clone(const myri_qna_net *net);

/* Adds a node with `servers` >= 1 identical servers; *idx (may be NULL) gets
 * its index.  Names are unique, 1..QNA_NAME_MAX-1 chars.  MYRI_EINVAL on a bad
 * or duplicate name or servers < 1, MYRI_EFULL past QNA_MAX_NODES. */
myri_status myri_qna_net_add_node(myri_qna_net *net, const char *name, int servers, size_t *idx);
/* Adds a class (same rules, QNA_MAX_CLASSES). */
myri_status myri_qna_net_add_class(myri_qna_net *net, const char *name, size_t *idx);
/* Service time of class `cls` at `node`: mean > 0, scv >= 0 (replaces). */
myri_status myri_qna_net_service(myri_qna_net *net, size_t node, size_t cls, double mean, double scv);
/* External arrivals of class `cls` at `node`: rate >= 0, scv >= 0 (replaces). */
myri_status myri_qna_net_arrival(myri_qna_net *net, size_t node, size_t cls, double rate, double scv);
/* Routing probability from (from_node, from_cls) to (to_node, to_cls), in
 * [0, 1] (replaces).  to_node = QNA_EXIT records an explicit exit probability
 * (to_cls ignored); it only serves the sum check.  MYRI_ERANGE if the
 * probabilities out of (from_node, from_cls) would sum to more than 1. */
myri_status myri_qna_net_route(myri_qna_net *net, size_t from_node, size_t from_cls, size_t to_node,
                          size_t to_cls, double p);

size_t myri_qna_net_nodes(const myri_qna_net *net);
size_t myri_qna_net_classes(const myri_qna_net *net);
const char *myri_qna_net_node_name(const myri_qna_net *net, size_t node);   /* NULL if out of range */
const char *myri_qna_net_class_name(const myri_qna_net *net, size_t cls);   /* NULL if out of range */
/* Whether (node, cls) has a service time (false if out of range). */
bool myri_qna_net_has_service(const myri_qna_net *net, size_t node, size_t cls);
/* Index lookups by name: MYRI_ENOTFOUND if unknown. */
myri_status myri_qna_net_find_node(const myri_qna_net *net, const char *name, size_t *idx);
myri_status myri_qna_net_find_class(const myri_qna_net *net, const char *name, size_t *idx);

/* ---- solving ------------------------------------------------------------------ */
typedef enum myri_qna_wq_formula {
    QNA_WQ_WHITT = 0, /* default: m=1 Kingman (= (12)); m>1 Whitt's GI/G/m */
    QNA_WQ_PAPER = 1  /* (12) exactly as printed in seed 004 */
} myri_qna_wq_formula;

typedef enum myri_qna_split {
    QNA_SPLIT_CLASS = 0,    /* default: (11) with the per-class p_{ij,r} (seed 004) */
    QNA_SPLIT_AGGREGATE = 1 /* Whitt: p = share of node i's total departures */
} myri_qna_split;

typedef struct myri_qna_options {
    int sweeps;          /* 0: iterate until converged; N > 0: exactly N sweeps */
    double tol;          /* convergence: max |change| of any SCV in a sweep */
    int max_sweeps;      /* give up (MYRI_EMODEL) after this many when sweeps == 0 */
    myri_qna_wq_formula wq;
    myri_qna_split split;
} myri_qna_options;

/* Defaults: converge, tol 1e-12, max_sweeps 10000, QNA_WQ_WHITT, QNA_SPLIT_CLASS. */
void myri_qna_options_default(myri_qna_options *opt);

typedef struct myri_qna_node_result {
    char name[QNA_NAME_MAX];
    int servers;
    double lambda; /* (3) total arrival rate */
    double rho;    /* (5) utilisation */
    double mu;     /* (6) aggregate service rate of the node (all servers) */
    double ca2;    /* (9) arrival SCV */
    double cs2;    /* (7) aggregate service SCV */
    double cd2;    /* (10) departure SCV */
    double wq;     /* (12) mean wait in queue */
    double w;      /* (13) mean time in node */
    double lq;     /* (14) mean queue length */
    double l;      /* (15) mean number in node */
} myri_qna_node_result;

typedef struct myri_qna_result {
    size_t n_nodes, n_classes;
    myri_qna_node_result node[QNA_MAX_NODES];
    double lambda_nc[QNA_MAX_NODES][QNA_MAX_CLASSES]; /* (2) lambda_{i,r} */
    double ca2_nc[QNA_MAX_NODES][QNA_MAX_CLASSES];    /* (8) C^2_{A_{i,r}} */
    size_t bottleneck; /* index of the node with the highest utilisation */
    int iterations;    /* sweeps of step 2 performed */
    bool converged;    /* step 2 reached tol (always false with fixed sweeps) */
} myri_qna_result;

/* Solves the network.  opt may be NULL (defaults).  Returns MYRI_OK;
 * MYRI_EMODEL with err naming the node if some utilisation >= 1 (out holds
 * step 1 results) or the traffic equations are singular (traffic that never
 * leaves); MYRI_EINPUT if a (node, class) with traffic has no service time;
 * MYRI_EINVAL on NULL arguments.  err may be NULL. */
myri_status myri_qna_solve(const myri_qna_net *net, const myri_qna_options *opt, myri_qna_result *out,
                      myri_error *err);

/* Prints the per-node table (aligned text) and the bottleneck. */
void myri_qna_result_print(const myri_qna_result *res, FILE *out);
/* Writes members "nodes" (list of objects: name, servers, lambda, rho, mu,
 * ca2, cs2, cd2, wq, w, lq, l), "bottleneck", "iterations", "converged"
 * into the current JSON object. */
void myri_qna_result_json(const myri_qna_result *res, myri_json *j);

/* ---- networks in YAML ------------------------------------------------------------
 * Reads the `network:` mapping of a document (see docs/QNA.md for the format).
 * Errors: MYRI_EINPUT with FILE:LINE:COL in err. */
myri_status myri_qna_net_from_doc(const myri_node *root, myri_qna_net **out, myri_error *err);

/* ---- the seed-004 NIC model ------------------------------------------------------ */
/* Node and class indices of the built-in model. */
enum { QNA_NIC_LANAI = 0, QNA_NIC_HDMA = 1, QNA_NIC_NSDMA = 2 };
enum { QNA_NIC_DOORBELL = 0, QNA_NIC_DESCRIPTOR = 1, QNA_NIC_DATA = 2 };

/* Service times in microseconds (seed 004 Table 2) and the NSDMA-programming
 * probability rule (section 3.1). */
typedef struct myri_qna_nic_params {
    double lanai_doorbell_us;   /* 22 */
    double lanai_descriptor_us; /* 0.12 */
    double lanai_program_us;    /* 10: LANai programming NSDMA; data mean = this * p */
    double hdma_doorbell_us;    /* 21 */
    double hdma_descriptor_us;  /* 68.3154 */
    double nsdma_data_us;       /* 52.6887 = t */
    double p_idle_share;        /* 0.5: p = share * (1 - lambda t) */
    double p_override;          /* < 0: use the rule above; else p itself */
} myri_qna_nic_params;

/* Table 2 as printed. */
void myri_qna_nic_params_default(myri_qna_nic_params *p);
/* Builds the NIC network at doorbell rate lambda_per_us (Poisson, SCV 1;
 * deterministic services, SCV 0).  params may be NULL (Table 2). */
myri_status myri_qna_nic_build(double lambda_per_us, const myri_qna_nic_params *params, myri_qna_net **out);

/* ---- reproduction of seed 004 Tables 3 and 8 ------------------------------------- */
#define QNA_SEED004_ROWS 6

typedef struct myri_qna_seed004_row {
    double lambda_per_us;      /* the paper's arrival rate */
    double paper_lq[3];        /* Table 3: LANai, HDMA, NSDMA (printed) */
    double paper_rho[3];       /* Table 8 analytical: LANai, HDMA, NSDMA (printed) */
    double conv_lq[3], conv_rho[3]; /* ours: Table 2 as printed, converged */
    double cond_lq[3], cond_rho[3]; /* ours under the paper's conditions */
} myri_qna_seed004_row;

/* The paper's unstated conditions (found by search, see docs/QNA.md): the
 * corrected Table 2 and the number of sweeps of step 2. */
void myri_qna_seed004_conditions(myri_qna_nic_params *params, int *sweeps);
/* One line describing the conditions, for reports. */
const char *myri_qna_seed004_conditions_text(void);
/* Fills rows[QNA_SEED004_ROWS] with the printed values and both of ours. */
myri_status myri_qna_seed004_tables(myri_qna_seed004_row rows[QNA_SEED004_ROWS], myri_error *err);

/* ---- the search that found the conditions ------------------------------------------
 * Every Table 2 entry (as printed, or replaced by one misprint variant: one
 * digit changed, two adjacent digits swapped, a digit inserted or deleted,
 * the decimal point moved by one or two places) combined with every number
 * of sweeps 1..max_sweeps and with convergence, scored by the number of the
 * 36 printed cells of Tables 3 and 8 reproduced to the printed precision. */
#define QNA_SEED004_ENTRIES 6 /* Table 2 entries, in myri_qna_nic_params order */

typedef struct myri_qna_seed004_candidate {
    int entry;        /* -1: Table 2 as printed; else 0..5 (myri_qna_seed004_entry_name) */
    char text[24];    /* the value tried, as text */
    double value_us;
    int sweeps;       /* 0: converged */
    int cells;        /* cells matched, of 36 */
} myri_qna_seed004_candidate;

/* Name of Table 2 entry k ("HDMA descriptor") and its printed text ("68.3154"). */
const char *myri_qna_seed004_entry_name(int k);
const char *myri_qna_seed004_entry_printed(int k);
/* Scores all candidates; writes the n best (most cells; ties: printed table
 * first, then fewer sweeps) into best, the number scored into *scored.
 * MYRI_EINVAL on bad arguments (max_sweeps 1..100). */
myri_status myri_qna_seed004_search(int max_sweeps, myri_qna_seed004_candidate *best, size_t n,
                               size_t *scored);

#ifdef __cplusplus
}
#endif

#endif
