/* sim.h -- the discrete-event engine.
 *
 * Time is an unsigned 64-bit count of picoseconds (myri_time_ps); 2^64 ps is
 * about 213 days of simulated time.  Every component is a logical process
 * with a stable id (its creation index) and its own sequence counter.  Events
 * are executed in order of (time, round, id of the logical process that
 * scheduled the event, that process's sequence number), where the scheduler
 * is the component whose handler is running (outside any handler: the
 * event's target) and the round is one more than the running event's for an
 * event scheduled for the running instant, else 0 (docs/ENGINE.md "Time and
 * order").  No global counter enters the order, so it does not depend on how
 * the processes' calls interleave, and a run is a deterministic function of
 * its inputs.
 *
 * The pending-event set is a calendar queue that tunes its bucket width and
 * size to the workload, in front of a 4-ary min-heap for the events beyond
 * its ring (docs/ENGINE.md): schedule O(1), next event O(1) amortised while
 * the gaps between events change slowly.  Cancellation is lazy: a cancelled
 * event stays pending and is skipped when it comes up; when more than half of
 * the entries are cancelled they are dropped.  Rescheduling is cancel +
 * schedule.
 *
 * Components (links, switches, NICs, hosts, traffic sources, queueing
 * stations) attach through a table of operations (myri_component_ops) and are
 * created with it (myri_sim_add).  Each component owns an independent
 * random stream derived from the simulation's seed (see rng.h).
 *
 * The engine keeps a hash of the executed event sequence (time, target
 * component id, event kind): same inputs, same hash.
 */
#ifndef MYRI_SIM_H
#define MYRI_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "myri/rng.h"
#include "myri/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C11 _Noreturn, or its C++ spelling. */
#ifdef __cplusplus
#define MYRI_NORETURN [[noreturn]]
#else
#define MYRI_NORETURN _Noreturn
#endif

typedef uint64_t myri_time_ps;
#define MYRI_TIME_NEVER UINT64_MAX
#define MYRI_PS_PER_NS 1000ull
#define MYRI_PS_PER_US 1000000ull
#define MYRI_PS_PER_MS 1000000000ull
#define MYRI_PS_PER_S 1000000000000ull

typedef struct myri_sim myri_sim;
typedef struct myri_component myri_component;
typedef struct myri_json myri_json;

/* An event as a component sees it.  The engine copies it into its pool when
 * scheduled; `time_ps` is filled in by the engine. */
typedef struct myri_event {
    myri_component *target; /* who handles it (required) */
    uint32_t kind;          /* component-defined event kind */
    uint32_t arg32;         /* component-defined */
    uint64_t arg;           /* component-defined */
    void *ptr;              /* component-defined; not owned by the engine */
    myri_time_ps time_ps;   /* set by the engine */
} myri_event;

/* Handle of a scheduled event; 0 is "no event".  Stale handles (event already
 * executed or cancelled) are detected and rejected. */
typedef uint64_t myri_event_id;

typedef struct myri_component_ops {
    const char *type;  /* type name used in scenarios, e.g. "hold", "switch" */
    const char *help;  /* one line */
    /* Called once by myri_sim_add after the component record exists (may be
     * NULL); `config` is the component's own configuration (type-specific,
     * may be NULL).  Sets self->state.  Returns MYRI_OK, or a status that
     * myri_sim_add returns without adding the component (there is no error
     * text: a type that has one to give checks its configuration before, as
     * myri_fabric_create does with its myri_error). */
    myri_status (*create)(myri_component *self, const void *config);
    void (*handle)(myri_component *self, const myri_event *ev);
    void (*finish)(myri_component *self);                 /* may be NULL */
    void (*report)(myri_component *self, myri_json *out); /* may be NULL; the fabric job's --json calls it */
    void (*destroy)(myri_component *self);                /* may be NULL */
} myri_component_ops;

struct myri_component {
    const myri_component_ops *ops;
    myri_sim *sim;
    char *name;     /* owned by the engine */
    uint32_t id;    /* creation index, 0-based: the logical process's id in the event order (below 2^20) */
    void *state;    /* owned by the component (freed by ops->destroy) */
    myri_rng rng;   /* this component's random stream, keyed by its name (docs/ENGINE.md) */
    uint64_t name_hash; /* FNV-1a of name */
};

/* Creates an empty simulation whose random streams derive from `seed`.
 * Returns NULL only when out of memory. */
myri_sim *myri_sim_create(uint64_t seed);
/* Destroys all components (ops->destroy, in reverse creation order) and
 * frees the engine.  Does not call ops->finish.  NULL is allowed. */
void myri_sim_destroy(myri_sim *sim);

/* Adds a component of the given ops; `name` is copied.  The component gets the
 * random stream of its name (the k-th component of a name gets the k-th) and
 * the next id, which orders its events among same-time events of others: a
 * model must create its components in an order that does not depend on how
 * the network may be cut.  MYRI_EFULL past 2^20 components.  On success *out
 * (if non-NULL) points to the component, which stays valid until
 * myri_sim_destroy. */
myri_status myri_sim_add(myri_sim *sim, const myri_component_ops *ops, const char *name,
                         const void *config, myri_component **out);
/* Reserves the next n ids without creating components (MYRI_EFULL past
 * 2^20 ids, MYRI_ENOMEM): a partition of a run that does not own some
 * components reserves their ids where the single run creates them, so that
 * every component it does create gets its single-run id (docs/ENGINE.md
 * "Time and order", docs/PARTITION.md section 1).  A reserved id is counted by
 * myri_sim_component_count; myri_sim_component returns NULL for it; events
 * are never addressed to it, but events scheduled by it elsewhere arrive with
 * their keys (myri_sim_insert_keyed).  Streams go by name (the k-th component
 * of one name gets the k-th), which reserving does not count: components whose
 * names repeat must be created in every partition. */
myri_status myri_sim_reserve(myri_sim *sim, size_t n);
/* Ids in use, reserved ones included. */
size_t myri_sim_component_count(const myri_sim *sim);
/* The component of id `index`; NULL out of range or for a reserved id. */
myri_component *myri_sim_component(const myri_sim *sim, size_t index);

/* Schedules a copy of *ev at absolute time `at_ps` (>= now), with the key of
 * the running handler's component (outside a handler: ev->target's).  Returns
 * the event's handle, or 0 if at_ps < now, ev/target is NULL or of another
 * simulation (misuse), or the engine is full. */
myri_event_id myri_sim_schedule(myri_sim *sim, myri_time_ps at_ps, const myri_event *ev);
/* Same, with the key of component `lp` instead of the running handler's:
 * lp's next sequence number and the usual round (one more than the running
 * event's for the running instant, else 0).  What a model uses to schedule
 * on behalf of another process (the fabric: a notice or a callback as the
 * host's device, docs/PARTITION.md section 3).  0 as myri_sim_schedule, and
 * when lp is not a created component of this simulation. */
myri_event_id myri_sim_schedule_as(myri_sim *sim, uint32_t lp, myri_time_ps at_ps, const myri_event *ev);
/* Same as myri_sim_schedule_as, and the event runs as lp: ev->target's
 * handler runs it, but the schedules its handler makes take lp's key (as if
 * lp's own handler ran) and it counts in lp's hash, not the target's.  What
 * the fabric uses to deliver a host's port notices and callbacks as that
 * host's unit (docs/PARTITION.md section 3).  0 as myri_sim_schedule_as, and
 * when ev->kind has its top bit set (kinds below 2^31 only; myri_sim_schedule,
 * myri_sim_schedule_as and myri_sim_schedule_in refuse such kinds too).  A reschedule
 * (myri_sim_reschedule) makes it an ordinary event of the caller. */
myri_event_id myri_sim_schedule_for(myri_sim *sim, uint32_t lp, myri_time_ps at_ps, const myri_event *ev);

/* In a handler: from now on the handler schedules as process lp (a created
 * component): its keys, as myri_sim_schedule_as would give; returns the
 * process it scheduled as before, to give back when done (the fabric calls a
 * host's callback so from its own event).  UINT32_MAX, nothing changed,
 * outside a handler or for an lp that is not a created component. */
uint32_t myri_sim_act_as(myri_sim *sim, uint32_t lp);

/* The whole key of an event (docs/ENGINE.md "Time and order"): what an
 * event sent to another partition carries. */
typedef struct myri_event_key {
    myri_time_ps time_ps;
    uint32_t round; /* 0 .. 4095 */
    uint32_t lp;    /* the process that scheduled it */
    uint32_t seq;   /* that process's number, 1 .. 2^32 - 2 */
} myri_event_key;

/* In a handler: the key the running handler's process would give an event
 * at at_ps (>= now), taking its number as myri_sim_schedule would, without
 * scheduling anything: for an event whose target is owned by another
 * partition.  MYRI_ESTATE outside a handler, MYRI_ERANGE if at_ps < now,
 * MYRI_EFULL if the renumbering its numbers needed found no memory. */
myri_status myri_sim_take_key(myri_sim *sim, myri_time_ps at_ps, myri_event_key *key);
/* Schedules a copy of *ev with the given key (an event received from the
 * partition that owns key->lp); no counter of this simulation moves.
 * Refusals, nothing scheduled: MYRI_EINVAL (NULLs, a target of another
 * simulation, key->lp not an id reserved here: a key of a created process
 * could meet that process's own numbers), MYRI_ERANGE (round above 4095,
 * seq 0 or >= 2^32 - 1), MYRI_ESTATE (key->time_ps before now, or the key
 * at or below that of the last event run: it would run out of order),
 * MYRI_EFULL.  The caller gives each key once (the owner's process never
 * makes one twice); on MYRI_OK *out (if non-NULL) is the handle. */
myri_status myri_sim_insert_keyed(myri_sim *sim, const myri_event_key *key, const myri_event *ev,
                                  myri_event_id *out);
/* Same as myri_sim_schedule, at now + delay_ps (saturating). */
myri_event_id myri_sim_schedule_in(myri_sim *sim, myri_time_ps delay_ps, const myri_event *ev);
/* Cancels a pending event.  Returns true if it was pending, false if the
 * handle is 0, stale, already executed or already cancelled. */
bool myri_sim_cancel(myri_sim *sim, myri_event_id id);
/* Moves a pending event to a new time (>= now); it gets a new key, as if
 * scheduled now by the caller (cancel + schedule).  Returns the new handle, or 0 if `id`
 * was not pending or at_ps < now. */
myri_event_id myri_sim_reschedule(myri_sim *sim, myri_event_id id, myri_time_ps at_ps);

myri_time_ps myri_sim_now(const myri_sim *sim);
/* Time of the next live pending event other than the one being handled (the
 * time of the next event to run; cancelled events never count, whatever the
 * engine's internal layout), or MYRI_TIME_NEVER.  With
 * myri_sim_horizon it lets a component that runs its own agenda process its
 * internal events up to the next event of anybody else without one engine
 * event per internal time (the fabric does). */
myri_time_ps myri_sim_next_time(const myri_sim *sim);
/* Inside an event handler: moves the clock forward to t_ps at once when no
 * other event is pending before t_ps (t_ps < myri_sim_next_time, t_ps within
 * the running myri_sim_run's horizon, no stop asked), and returns true; the
 * handler then goes on as the handler of an event at t_ps would (what it
 * would have scheduled for t_ps and handled next, in the same order, since
 * nothing else could run in between).  Returns false (the clock unchanged)
 * otherwise, outside a handler, or when disabled by myri_sim_set_advance.
 * Processes sleeping and the LANai's CPU stepping use it to save an event
 * per step; results are the same either way (tests compare). */
bool myri_sim_advance(myri_sim *sim, myri_time_ps t_ps);
/* The same, for a handler that would otherwise schedule an event of `kind`
 * for itself at t_ps: when it advances, that event counts in the running
 * LP's hash as if it had run (time, round, LP, kind), so that an LP's hash
 * does not depend on whether the advance was allowed, i.e. on other LPs'
 * pending events or on where a run's horizon falls (docs/PARTITION.md step 9). */
bool myri_sim_advance_kind(myri_sim *sim, myri_time_ps t_ps, uint32_t kind);
/* Enables (the default) or disables myri_sim_advance; the number of
 * advances made so far. */
void myri_sim_set_advance(myri_sim *sim, bool on);
uint64_t myri_sim_advances(const myri_sim *sim);
/* The `until_ps` of the running myri_sim_run (now when none is running or an
 * event limit is set): no component may act beyond it. */
myri_time_ps myri_sim_horizon(const myri_sim *sim);
uint64_t myri_sim_seed(const myri_sim *sim);
/* Number of events executed so far. */
uint64_t myri_sim_events(const myri_sim *sim);
/* Number of live (not cancelled) pending events. */
size_t myri_sim_pending(const myri_sim *sim);
/* Per process: the hash of the sequence of (time, round, scheduling
 * process, kind) of the events it ran (as target, or as the process it runs
 * as: myri_sim_schedule_for; 0 if none, reserved, unhashed or out of range;
 * the sequence number is left out, renumbering changes it), which does not
 * depend on how processes interleave nor on where the others run (nor on how
 * the numbers of a process were renumbered); the fold of n such hashes in id
 * order (a partitioned run folds each id's hash from the partition that owns
 * it). */
uint64_t myri_sim_lp_hash(const myri_sim *sim, size_t id);
uint64_t myri_sim_lp_hash_fold(const uint64_t *lp_hash, size_t n);
/* The run's hash, the one reports print: the fold of this simulation's
 * per-process hashes in id order (myri_sim_lp_hash_fold of myri_sim_lp_hash
 * for every id), docs/PARTITION.md section 3 "Hashes".  myri_sim_hash_by_lp
 * is the same (its earlier name). */
uint64_t myri_sim_hash(const myri_sim *sim);
uint64_t myri_sim_hash_by_lp(const myri_sim *sim);
/* Process id's own events count in no hash (its myri_sim_lp_hash reads 0):
 * partition machinery, such as the fabric's ticks, whose instants depend on
 * every unit. */
void myri_sim_set_unhashed(myri_sim *sim, uint32_t id);

/* Runs events in order until the next event is later than `until_ps`, no
 * event is pending, myri_sim_stop() is called, or `max_events` more events
 * have executed (0 = no limit).  Time is then advanced to until_ps if the
 * queue ran past it or emptied (never beyond MYRI_TIME_NEVER).  Returns
 * MYRI_OK. */
myri_status myri_sim_run(myri_sim *sim, myri_time_ps until_ps, uint64_t max_events);
/* Asks myri_sim_run to return after the current event. */
void myri_sim_stop(myri_sim *sim);
/* Calls ops->finish of every component in creation order. */
void myri_sim_finish(myri_sim *sim);

/* Progress reporting: when enabled, myri_sim_run prints a one-line progress
 * indicator to `tty` (only call with a terminal) about twice a second. */
void myri_sim_set_progress(myri_sim *sim, FILE *tty, myri_time_ps end_ps);

/* A broken model invariant: prints "myri: invariant broken in NAME (TYPE) at
 * t=T ps: MESSAGE" to stderr and ends the run (exit status 1), or calls the
 * panic hook if one is set (tests use it to longjmp out). */
MYRI_NORETURN void myri_panic(const myri_component *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
typedef void (*myri_panic_hook)(const char *message);
/* Sets the hook called with the formatted message instead of exit(1); the
 * hook must not return (longjmp).  NULL restores the default. */
void myri_set_panic_hook(myri_panic_hook hook);

#define MYRI_ASSERT(comp, cond, ...)                                                               \
    do {                                                                                           \
        if (!(cond)) myri_panic((comp), __VA_ARGS__);                                              \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif
