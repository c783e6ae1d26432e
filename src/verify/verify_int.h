/* verify_int.h -- what a firmware's abstraction gives the generator
 * (verify_gen.c): internal to src/verify/. */
#ifndef MYRI_VERIFY_VERIFY_INT_H
#define MYRI_VERIFY_VERIFY_INT_H

#include "firmware/firmware.h"
#include "verify/verify.h"

/* An event or guard of the tables, by name, as a Promela expression over the
 * model's names (see verify_gen.c for them).  exact: the expression is the
 * predicate itself; otherwise it is a necessary condition (the data decides
 * the rest, so the model lets the rule fire or not: an over-approximation),
 * and an earlier rule with it does not hide a later one. */
typedef struct myri_vabs_atom {
    const char *name;
    const char *model;
    bool exact;
    /* An inexact guard that closes a group of guards the data partitions (a frame is short, or has a bad
     * CRC, ..., or is good): when `covers` holds, some rule of the group fires, so a rule tried after them
     * does not.  NULL: no such group. */
    const char *covers;
    /* An inexact guard of a loop the data bounds (the chunks of an overlapped transfer): it may hold at most
     * budget x sends times in a run.  0: no bound. */
    uint8_t budget;
} myri_vabs_atom;

/* How a queue of the tables is modelled. */
typedef enum myri_vabs_qkind {
    MYRI_VQ_FW = 0,   /* the firmware puts and gets (a count, or a channel if puts carry values) */
    MYRI_VQ_HOST_IN,  /* the host puts (the environment), the firmware gets */
    MYRI_VQ_HOST_OUT, /* the firmware puts, the host takes (the environment) */
    MYRI_VQ_UNUSED    /* not modelled: an error if a rule touches it */
} myri_vabs_qkind;

typedef struct myri_vabs_queue {
    const char *name;
    uint8_t kind;     /* myri_vabs_qkind */
    uint32_t bound;   /* its capacity in the firmware (from its parameters) */
} myri_vabs_queue;

typedef struct myri_vabs {
    const char *firmware;               /* the myri_fw_def name */
    const myri_fw_def *(*def)(void);
    const myri_vabs_atom *events, *guards;
    size_t nevents, nguards;
    /* queues in the def's order; bounds come from the default parameters */
    void (*queues)(myri_vabs_queue *out, size_t n);
    const char *const *machines_left_out; /* machines not in the model (NULL-terminated list), with why in docs */
    const char *decls;                  /* extra Promela declarations (constants the atoms use) */
    void (*consts)(FILE *out);          /* the firmware's parameters the atoms use, as #defines (NULL: none) */
    const char *env;                    /* extra Promela environment processes (may be "") */
    const myri_verify_prop *props;
    size_t nprops;
} myri_vabs;

extern const myri_vabs myri_vabs_lcp, myri_vabs_myricom, myri_vabs_mcp;

/* The properties every firmware has (deadlock, overflow, progress); host: what the host does under fairness. */
#define MYRI_VABS_COMMON_PROPS(host)                                                                              \
    {"deadlock", "[] !deadlocked", "", "no state where nothing can move while work is left", MYRI_VERIFY_SAFETY,  \
     ""},                                                                                                         \
        {"overflow", "[] !overflowed", "", "no put on a full queue (bounds: the firmware's parameters)",         \
         MYRI_VERIFY_SAFETY, ""},                                                                                 \
        {"progress", "<> (n_tx == NSEND && n_rx == NFRAME)", "",                                                  \
         "every posted send completes and every frame is delivered or counted dropped (weak fairness: engines "   \
         "finish, " host ")",                                                                                     \
         MYRI_VERIFY_LIVE, ""}

/* Runs SPIN on a model text (verify_run.c): the properties (all, or `only`) as its ltl blocks p_<name>. */
myri_status myri_vrun_props(const char *text, bool noreduce, uint32_t limit_s, const myri_verify_prop *props,
                            size_t nprops, const char *only, myri_verify_result *out, size_t max, size_t *n, char *err,
                            size_t errlen);
/* Runs SPIN on the model generated from a (for tests: a mutated firmware). */
myri_status myri_vrun_abs(const myri_vabs *a, const myri_verify_bounds *b, const char *only, myri_verify_result *out,
                          size_t max, size_t *n, char *err, size_t errlen);
/* The paper's models (the .pml files of verify/paper, built into the library) and their properties (verify_paper.c). */
extern const char myri_verify_paper_lcp[], myri_verify_paper_myricom[];
const myri_verify_prop *myri_vpaper_props(const char *fw, size_t *n, const char **model);

/* Writes the model of a with bounds b (verify_gen.c). */
myri_status myri_vgen_write(const myri_vabs *a, const myri_verify_bounds *b, FILE *out, char *err, size_t errlen);

#endif
