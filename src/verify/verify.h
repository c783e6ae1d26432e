/* verify.h -- model checking of the running firmware (docs/VERIFY.md).
 *
 * A firmware's state-machine tables (firmware/firmware.h) are turned into
 * Promela: one proctype per machine (module), the polling loop that chooses
 * which module runs as its own proctype, the DMA engines, the host and the
 * network as environment processes.  Only the abstraction of the tables'
 * events and guards (a Promela expression each, and whether it is exact) and
 * the environment are written by hand, per firmware (verify_abs_*.c); the
 * states, the rules, their order and their effects come from the tables the
 * simulator runs.  SPIN (Debian's `spin`) and the C compiler check it.
 *
 * Property kinds: REACH asks whether a state is reachable (verdict reachable
 * or unreachable; checked as the invariant "never P"); SAFETY is an
 * invariant (holds or violated); LIVE is a liveness property checked with
 * weak fairness (holds or violated). */
#ifndef MYRI_VERIFY_VERIFY_H
#define MYRI_VERIFY_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "myri/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum myri_verify_kind { MYRI_VERIFY_REACH, MYRI_VERIFY_SAFETY, MYRI_VERIFY_LIVE } myri_verify_kind;

typedef struct myri_verify_prop {
    const char *name;     /* "1A", "1A-engine", "mutex", ... */
    const char *formula;  /* LTL as SPIN reads it, over the generated model's names */
    const char *printed;  /* the formula as the paper prints it ("" when it has none) */
    const char *meaning;  /* in words */
    uint8_t kind;         /* myri_verify_kind */
    const char *paper;    /* the paper's verdict in our words ("" when the paper has none) */
} myri_verify_prop;

/* The bounds of a model: sends the host posts, frames the network delivers,
 * and (timed variant) the ticks each engine takes. */
typedef struct myri_verify_bounds {
    uint32_t sends;       /* 1 .. 8 */
    uint32_t frames;      /* 0 .. 8 */
    bool timed;           /* add a clock: engines take the ticks below, the CPU none */
    uint32_t hdma_ticks, sdma_ticks, small_ticks; /* data transfer, send, descriptor/completion transfer */
    uint32_t time_limit_s;  /* per SPIN run (pan); beyond it the verdict is "unknown" (default 60) */
} myri_verify_bounds;
void myri_verify_bounds_default(myri_verify_bounds *b);

/* The firmwares that can be verified ("lcp", "myricom", "mcp"). */
size_t myri_verify_nfirmwares(void);
const char *myri_verify_firmware(size_t i);

/* The properties of firmware fw (NULL if it is not known). */
const myri_verify_prop *myri_verify_props(const char *fw, size_t *n);

/* Writes the Promela model of fw with bounds b (and every property as a
 * named ltl block) to out.  MYRI_ERANGE for an unknown firmware or bounds out
 * of range; MYRI_EINVAL if the abstraction misses an event or guard of the
 * tables (err says which). */
myri_status myri_verify_model(const char *fw, const myri_verify_bounds *b, FILE *out, char *err, size_t errlen);

/* One property's result. */
typedef struct myri_verify_result {
    const myri_verify_prop *prop;
    const char *verdict;      /* "reachable", "unreachable", "holds", "violated", or "unknown" (see why) */
    const char *why;          /* "unknown": "time limit", "memory limit" or "depth limit"; else "" */
    bool error;               /* SPIN found a violation (a counterexample exists) */
    uint64_t states, transitions;
    double memory_mb, seconds;
    bool depth_limited;       /* the search hit its depth limit (the verdict would not be sound) */
    char trail[4096];         /* the counterexample as firmware states and events (error only) */
} myri_verify_result;

/* Runs SPIN on fw's model in a temporary directory: every property, or only
 * `only` (NULL: all).  out has room for max results; *n gets how many.
 * MYRI_ENOTFOUND: spin or cc is not installed (err says which);
 * MYRI_ERANGE: unknown firmware or property; MYRI_EIO: SPIN failed. */
myri_status myri_verify_run(const char *fw, const myri_verify_bounds *b, const char *only, myri_verify_result *out,
                            size_t max, size_t *n, char *err, size_t errlen);

/* The same with the paper's own Promela (verify/paper: figures 7, 8, 13 and 14 completed from its prose),
 * for lcp and myricom: the printed formulas as reachability questions, and as SPIN checks them (on every run:
 * 1A-all ...), mutex, deadlock and progress. */
myri_status myri_verify_paper(const char *fw, const myri_verify_bounds *b, const char *only, myri_verify_result *out,
                              size_t max, size_t *n, char *err, size_t errlen);

/* Timed variant: the least number of ticks in which all b->sends sends
 * complete (by bisection over a bound on the clock; b->timed is set).
 * *ticks = 0 when none completes.  MYRI_ETIMEDOUT: a SPIN run reached
 * b->time_limit_s. */
myri_status myri_verify_min_time(const char *fw, const myri_verify_bounds *b, uint32_t *ticks, double *seconds,
                                 char *err, size_t errlen);

/* Where the checks run; "" until the first run.  Checks SPIN is on PATH. */
bool myri_verify_have_spin(char *why, size_t whylen);

#ifdef __cplusplus
}
#endif

#endif
