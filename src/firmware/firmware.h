/* firmware.h -- firmware as data: state machines held as tables, run by one
 * interpreter (fw.c) on a LANai's CPU.  See docs/FIRMWARE.md.
 *
 * A firmware module (myri_fw_def, found by name) is:
 *   machines  each with its states and the context it runs in (user: polled
 *             by the main loop; system: run when an interrupt switches the
 *             CPU to system context, and at reset);
 *   events    named predicates over the LANai and the firmware state, each
 *             with a Promela expression and the cycles one poll of it costs;
 *   guards    named predicates with their Promela text;
 *   rules     {from, to, event, guard, abstract effects, action, cycles, name}
 *             per machine: when the machine is in `from`, its event holds
 *             and its guard holds, the rule fires: the action (a C function,
 *             the concrete work) runs and the machine goes to `to`;
 *   queues, variables, counters   named in tables; the actions change them
 *             only through myri_fw_q_put/q_get/set/count, which the
 *             interpreter logs so that a test can check each action against
 *             its row's effects (myri_fw_set_check).
 * The interpreter is the only control flow: actions are straight-line work
 * (no choice between effects; a choice is two rules with two guards).
 *
 * Time unit: LANai CPU cycles (nic.clock) for costs, picoseconds for times.
 */
#ifndef MYRI_FIRMWARE_FIRMWARE_H
#define MYRI_FIRMWARE_FIRMWARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "myri/config.h"
#include "nic/lanai.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_fw_inst myri_fw_inst;

/* ---- abstract effects ------------------------------------------------------ */
typedef enum myri_fw_op {
    MYRI_FW_NOP = 0,      /* end of a rule's effect list */
    MYRI_FW_START_HDMA,   /* a = DMA_DIR (MYRI_LANAI_DIR_*): the DMA_CTR write; b = 1 when it moves a message's
                           * data, 0 for a descriptor, completion or length (for the model checker: src/verify;
                           * not compared by the check, which sees only the register writes) */
    MYRI_FW_START_SDMA,   /* a = 1 with tail (SMLT), 0 without (SML); MYRI_FW_ANY (as uint32_t): decided by the
                           * action (a chunk that may turn out to be the last; the model checker takes it as 1) */
    MYRI_FW_ARM_RDMA,     /* the RML write */
    MYRI_FW_CLEAR_ISR,    /* a = the ISR bits written (write-1-to-clear) */
    MYRI_FW_SET_IMR,      /* a = the IMR value written */
    MYRI_FW_PIO_SEND,     /* SB/SH/SW writes (one effect for the run of them, a = 0) or ST (a = 1: tail) */
    MYRI_FW_Q_PUT,        /* a = queue index, b = the value put (0 for a queue of plain entries) */
    MYRI_FW_Q_GET,        /* a = queue index */
    MYRI_FW_SET,          /* a = variable index, b = value (MYRI_FW_ANY: computed by the action) */
    MYRI_FW_COUNT,        /* a = counter index */
    MYRI_FW_NOPS
} myri_fw_op;
#define MYRI_FW_ANY INT32_MIN
#define MYRI_FW_MAX_EFF 8

typedef struct myri_fw_effect {
    uint8_t op;   /* myri_fw_op */
    uint32_t a;
    int32_t b;
} myri_fw_effect;

/* ---- tables ----------------------------------------------------------------- */
typedef struct myri_fw_event {
    const char *name;
    const char *promela;   /* the predicate as a Promela expression */
    uint32_t poll_cycles;  /* cycles one test of it costs in the polling loop */
    bool (*test)(void *fw, myri_lanai *l);
    /* A live pointer (LAR, RMP) changes without waking the idle CPU: while a
     * machine's current state polls an event whose `live` returns true, the
     * idle loop looks again every follow_ps (myri_fw_set_follow).  NULL: the
     * event changes only with what wakes the CPU (ISR, host writes). */
    bool (*live)(void *fw, myri_lanai *l);
} myri_fw_event;

typedef struct myri_fw_guard {
    const char *name;
    const char *promela;
    bool (*test)(void *fw, myri_lanai *l);  /* NULL: always true */
} myri_fw_guard;

typedef struct myri_fw_rule {
    uint8_t from, to;
    uint8_t event;                        /* index into def->events */
    uint8_t guard;                        /* index into def->guards (0: the "true" guard) */
    myri_fw_effect eff[MYRI_FW_MAX_EFF];  /* in the order the action does them; ends at NOP */
    void (*act)(void *fw, myri_lanai *l); /* the concrete work */
    uint32_t cycles;                      /* fixed LANai cycles */
    uint32_t (*extra)(void *fw, myri_lanai *l);  /* data-dependent cycles (NULL: none), at choice time */
    const char *name;
} myri_fw_rule;

typedef struct myri_fw_machine {
    const char *name;
    myri_lanai_ctx ctx;          /* where its rules run */
    const char *const *states;   /* state names; state 0 is the initial state */
    uint8_t nstates;
    const myri_fw_rule *rules;   /* tried in table order */
    uint16_t nrules;
    /* User machines: cycles the polling loop spends on each visit of a state
     * that has rules, before its tests (the service routine's call, state
     * dispatch and return).  A state without rules is not visited. */
    uint32_t visit_cycles;
} myri_fw_machine;

/* What a counter means to the system job's packet accounting (counters
 * only; queues and variables leave it 0).  Every packet a NIC takes off the
 * wire is counted once under RX_GOOD, DROP_CRC or DROP_OTHER; every packet
 * whose send the firmware abandoned under TX_DROPPED. */
typedef enum myri_fw_role {
    MYRI_FW_ROLE_NONE = 0,
    MYRI_FW_ROLE_RX_GOOD,     /* delivered to the host */
    MYRI_FW_ROLE_DROP_CRC,    /* received with a bad CRC and dropped */
    MYRI_FW_ROLE_DROP_OTHER,  /* received and dropped for another reason (the counter's name says which) */
    MYRI_FW_ROLE_TX_SENT,     /* sent (tail left) */
    MYRI_FW_ROLE_TX_DROPPED   /* a send the firmware abandoned */
} myri_fw_role;

typedef struct myri_fw_name {
    const char *name;
    const char *help;
    uint8_t role;             /* counters: myri_fw_role */
} myri_fw_name;

typedef struct myri_fw_def {
    const char *name;             /* "mcp"; also the prefix of its parameters */
    const char *summary;
    const myri_param *params;     /* the firmware's parameter table (prefix = name) */
    size_t nparams, params_size;  /* params_size: bytes of the parameter struct */
    void (*params_default)(void *params);
    const myri_fw_machine *machines;
    uint8_t nmachines;
    const myri_fw_event *events;
    uint8_t nevents;
    const myri_fw_guard *guards;  /* guards[0] is "true" */
    uint8_t nguards;
    const myri_fw_name *queues, *vars, *counters;
    uint8_t nqueues, nvars, ncounters;
    /* The firmware's own state: created with its parameters on a LANai, with
     * the interpreter instance it reports through (myri_fw_inst). */
    myri_status (*create)(const void *params, myri_lanai *l, myri_fw_inst *rt, void **fw);
    void (*destroy)(void *fw);
    /* A firmware that is a program, not tables (the elf kind, fw_elf.h): the
     * LANai steps this with the state create made; NULL: the interpreter. */
    const myri_lanai_cpu_ops *cpu;
} myri_fw_def;

/* The registry of firmwares: NULL if unknown. */
const myri_fw_def *myri_fw_find(const char *name);
size_t myri_fw_ndefs(void);
const myri_fw_def *myri_fw_at(size_t i);

/* ---- instances ------------------------------------------------------------------ */

/* Creates the firmware `def` with its parameters (NULL: defaults) on l and
 * makes it l's CPU (myri_lanai_set_cpu).  Start the LANai with
 * myri_lanai_start(l) afterwards.  The instance must outlive the LANai's
 * stepping (destroy it after the simulation ends). */
myri_status myri_fw_create(const myri_fw_def *def, const void *params, myri_lanai *l, myri_fw_inst **out);
/* The same, with the reason a firmware refuses to be created (a kind's
 * create calls myri_fw_fail) in *err (FILE:LINE:COL of the scenario node
 * when the kind names one) instead of on standard error.  err may be NULL. */
myri_status myri_fw_create_err(const myri_fw_def *def, const void *params, myri_lanai *l, myri_fw_inst **out,
                               myri_error *err);
/* For a kind's create: why it fails, at the scenario node `at` (NULL: none):
 * into the error of myri_fw_create_err, else on standard error.  Returns
 * MYRI_EINPUT. */
myri_status myri_fw_fail(myri_fw_inst *fi, const myri_node *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void myri_fw_destroy(myri_fw_inst *fi);
void *myri_fw_state(myri_fw_inst *fi);            /* the firmware's own state */
const myri_fw_def *myri_fw_def_of(const myri_fw_inst *fi);
uint8_t myri_fw_machine_state(const myri_fw_inst *fi, uint8_t machine);

/* For actions and guards: the logged operations on named things. */
void myri_fw_q_put(myri_fw_inst *fi, uint32_t q);
/* A put of a queue whose entries the firmware tells apart (an event queue):
 * the row's effect names the value (b), the model checker needs it. */
void myri_fw_q_put_v(myri_fw_inst *fi, uint32_t q, int32_t value);
void myri_fw_q_get(myri_fw_inst *fi, uint32_t q);
void myri_fw_set(myri_fw_inst *fi, uint32_t var, int32_t value);
int32_t myri_fw_get(const myri_fw_inst *fi, uint32_t var);
void myri_fw_count(myri_fw_inst *fi, uint32_t counter);
uint64_t myri_fw_counter(const myri_fw_inst *fi, uint32_t counter);
/* Adds n to a counter without logging (a firmware kind's own tallies). */
void myri_fw_count_add(myri_fw_inst *fi, uint32_t counter, uint64_t n);
/* While idle in a state that follows a live pointer, look again this often. */
void myri_fw_set_follow(myri_fw_inst *fi, myri_time_ps follow_ps);

/* ---- checking and report ---------------------------------------------------------- */
/* With check on, every action's register writes (seen through a LANai trace)
 * and logged operations are compared with its row's effects.  Off by default
 * (it adds a trace observer). */
myri_status myri_fw_set_check(myri_fw_inst *fi, bool on);
typedef struct myri_fw_check {
    uint64_t actions;        /* actions checked */
    uint64_t mismatches;     /* actions whose operations differ from their row */
    char first[256];         /* the first mismatch, in words */
} myri_fw_check;
void myri_fw_get_check(const myri_fw_inst *fi, myri_fw_check *out);
/* Times rule r of machine m fired. */
uint64_t myri_fw_fired(const myri_fw_inst *fi, uint8_t m, uint16_t r);

typedef struct myri_fw_stats {
    uint64_t steps;          /* CPU steps that did work (rules fired) */
    uint64_t idle_wakes;     /* returns from idle that found nothing to do */
    uint64_t poll_cycles;    /* cycles charged for polling */
    uint64_t rule_cycles;    /* cycles charged for rules (fixed + extra) */
} myri_fw_stats;
void myri_fw_get_stats(const myri_fw_inst *fi, myri_fw_stats *out);
/* A queue's occupancy as its puts and gets (myri_fw_q_put/q_get) make it:
 * a queue only put to or only taken from by the firmware (the HCB's send
 * queue, filled by the host) has a one-sided count.  mean = area / time. */
typedef struct myri_fw_qstat {
    int64_t len, max;        /* now, and the largest */
    uint64_t puts, gets;
    double area;             /* integral of len over time, entries x ps (up to since_ps) */
    myri_time_ps since_ps;
} myri_fw_qstat;
myri_status myri_fw_queue_stats(const myri_fw_inst *fi, uint32_t q, myri_fw_qstat *out);
/* Time machine m spent in state s so far (ps). */
myri_time_ps myri_fw_state_ps(const myri_fw_inst *fi, uint8_t m, uint8_t s);
/* Counters, rule counts and state times, as text (JSON goes through the
 * lead's report: the getters above). */
void myri_fw_report(const myri_fw_inst *fi, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
