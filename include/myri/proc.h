/* proc.h -- processes: plain C functions run as coroutines in simulated time.
 *
 * A process is a function `fn(p, arg)` with its own stack.  It runs only
 * inside engine events (so a run stays a deterministic function of its
 * inputs): it starts in an event at the time given to myri_proc_start, and
 * each myri_proc_sleep / myri_proc_wait returns control to the engine until a
 * later event resumes it.  A process is a component of the simulation (type
 * "proc"): it has its own random stream, keyed by its name, and is destroyed
 * with the simulation, even while suspended.
 *
 * Order: a resumption is an ordinary event, scheduled when the process
 * yields (sleep, wait's timeout) or when it is woken (myri_proc_wake): among
 * events at the same time it runs in insertion order, like any other event
 * (docs/ENGINE.md, "Processes").
 *
 * Misuse never crashes: it returns MYRI_EINVAL (NULL, bad time) or
 * MYRI_ESTATE (sleep or wait from outside the process, start twice, wake of
 * a finished process).  Under AddressSanitizer every switch is announced to
 * it (fiber annotations).
 */
#ifndef MYRI_PROC_H
#define MYRI_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "myri/rng.h"
#include "myri/sim.h"
#include "myri/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_proc myri_proc;
typedef void (*myri_proc_fn)(myri_proc *p, void *arg);

/* Stack of a process when 0 is asked for, and the least accepted. */
#define MYRI_PROC_STACK_DEFAULT (256u * 1024u)
#define MYRI_PROC_STACK_MIN (16u * 1024u)

/* Creates a process (not yet started) named `name` (copied) that will run
 * fn(p, arg) on a stack of `stack_bytes` (0 = MYRI_PROC_STACK_DEFAULT; less
 * than MYRI_PROC_STACK_MIN is raised to it).  Returns NULL if an argument is
 * NULL or memory runs out.  The process belongs to `sim` and is freed by
 * myri_sim_destroy. */
myri_proc *myri_proc_create(myri_sim *sim, const char *name, myri_proc_fn fn, void *arg, size_t stack_bytes);

/* Schedules the start of the process at absolute time at_ps (>= now).
 * MYRI_ESTATE if already started; MYRI_EINVAL for NULL or at_ps < now;
 * MYRI_EFULL if the engine cannot take the event. */
myri_status myri_proc_start(myri_proc *p, myri_time_ps at_ps);

/* Inside the process only: yields to the engine and resumes at now + delay_ps
 * (saturating).  MYRI_OK after the sleep; MYRI_ESTATE (without yielding)
 * when not called by the running process itself. */
myri_status myri_proc_sleep(myri_proc *p, myri_time_ps delay_ps);

/* Inside the process only: yields until myri_proc_wake(p) or until now +
 * max_ps (MYRI_TIME_NEVER: no timeout).  Returns MYRI_OK when woken,
 * MYRI_ETIMEDOUT when the time ran out, MYRI_ESTATE when not called by the
 * running process.  A wake that came while the process was not waiting is
 * kept (one at most): the next wait consumes it and returns MYRI_OK at once,
 * without yielding, so a wake is never lost. */
myri_status myri_proc_wait(myri_proc *p, myri_time_ps max_ps);

/* From anywhere (an event handler, another process, the process itself):
 * if p waits, resumes it in a new engine event at the current time (never
 * inside the caller); otherwise keeps the wake for its next wait.  MYRI_OK;
 * MYRI_ESTATE if p has finished; MYRI_EINVAL for NULL. */
myri_status myri_proc_wake(myri_proc *p);

/* ---- a process that misbehaves ------------------------------------------
 * A process is C code running in this program: a fault in it must not take
 * the whole simulation down.  A process is ended where it stands -- its
 * frames dropped, the engine going on -- when, while it runs:
 *   - it raises a synchronous fault signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 *     SIGABRT, SIGTRAP), a stack overflow included (the guard page below its
 *     stack; plain builds only: under ASan the sanitizer reports overflows);
 *   - it calls myri_proc_exit_current (the `myri` program routes a loaded
 *     program's exit() there);
 *   - it runs longer than its wall-clock limit without sleeping, waiting or
 *     yielding (myri_proc_set_wall_limit; checked ten times a second by
 *     SIGALRM while a process with a limit exists).
 * The end callback (myri_proc_set_on_end) is then called from the engine,
 * never from the process.  Caveat: a process ended inside a C library call
 * (a busy loop in malloc) may leave that library's state inconsistent; the
 * run reports the fault and should be treated as failed, which it is. */
typedef enum myri_proc_end_kind {
    MYRI_PROC_END_SIGNAL = 1,   /* signo, addr (fault address where the signal has one) */
    MYRI_PROC_END_STACK = 2,    /* stack overflow: addr in the guard page */
    MYRI_PROC_END_EXIT = 3,     /* exit(code) */
    MYRI_PROC_END_WALL = 4      /* ran wall_s seconds without yielding */
} myri_proc_end_kind;

typedef struct myri_proc_end {
    myri_proc_end_kind kind;
    int signo;
    int code;
    uintptr_t addr;
    double wall_s;
} myri_proc_end;

typedef void (*myri_proc_end_fn)(myri_proc *p, void *arg, const myri_proc_end *why);
/* Called when p is ended by a fault, exit or its wall limit (not when fn returns). */
myri_status myri_proc_set_on_end(myri_proc *p, myri_proc_end_fn fn, void *arg);
/* At most `seconds` of wall-clock time between yields (0: no limit). */
myri_status myri_proc_set_wall_limit(myri_proc *p, double seconds);
/* Inside a process: ends it as by exit(code) and does not return.  Outside
 * one (no process running): returns false and does nothing. */
bool myri_proc_exit_current(int code);
/* The process whose code is running now, or NULL. */
myri_proc *myri_proc_current(void);
/* True once p was ended by a fault, exit or its wall limit. */
bool myri_proc_ended(const myri_proc *p);

/* Current simulated time (0 for NULL). */
myri_time_ps myri_proc_now(const myri_proc *p);
/* True once fn has returned (its stack is then released). */
bool myri_proc_done(const myri_proc *p);
/* True while p's own code is executing (inside fn). */
bool myri_proc_running(const myri_proc *p);
/* The process's name, its component and its random stream. */
const char *myri_proc_name(const myri_proc *p);
myri_component *myri_proc_component(myri_proc *p);
myri_rng *myri_proc_rng(myri_proc *p);

#ifdef __cplusplus
}
#endif

#endif
