/* proc.c -- processes as coroutines in simulated time (see proc.h).
 *
 * Each process is a component of type "proc" whose events resume it: START
 * (first entry), SLEEP (end of a sleep), WAKE (myri_proc_wake while it
 * waits) and TIMEOUT (end of a wait's time limit).  The handler switches to
 * the process's own stack with swapcontext; the process switches back when
 * it sleeps, waits or returns.  Only engine handlers switch into a process,
 * so a process never runs outside an engine event.
 *
 * Stacks: mmap with a PROT_NONE guard of 16 pages below the stack (an overflow
 * faults instead of corrupting memory); under AddressSanitizer plain
 * aligned_alloc, whose redzones make an overflow a reported heap overflow,
 * and every switch is announced with the fiber annotations
 * (__sanitizer_start_switch_fiber before, __sanitizer_finish_switch_fiber
 * after) so that ASan knows which stack is current.
 */
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS */
#include "myri/proc.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define PROC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROC_ASAN 1
#endif
#endif
/* Without the sanitizers, switches after the first use the compiler's
 * __builtin_setjmp/__builtin_longjmp (issue 24 round 6): they keep only the
 * frame, stack pointer and resume address (the function calling
 * __builtin_setjmp saves its callee-saved registers itself), and the signal
 * mask is never touched.  swapcontext saves and restores the signal mask with
 * a system call on every switch; sigsetjmp(.., 0)/siglongjmp (round 5) had no
 * system call but still ran about 80 instructions a switch in glibc (the
 * register save, pointer mangling, the cancellation clean-up walk of
 * _longjmp_unwind).  Leaving a fault or tick handler this way is as with
 * siglongjmp(.., 0): the handlers are SA_NODEFER, so no mask is to restore.
 * The first entry into a process still goes through its ucontext (the only
 * portable way onto a new stack).  Under ASan every switch stays a
 * swapcontext, announced to ASan as before. */
#ifndef PROC_ASAN
#define PROC_FAST_SWITCH 1
#endif
#ifdef PROC_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

enum { PROC_GUARD_PAGES = 16 }; /* below each stack, PROT_NONE */
enum { P_NEW, P_STARTING, P_RUNNING, P_SLEEPING, P_WAITING, P_DONE, P_ENDED };
enum { EV_START = 1, EV_SLEEP = 2, EV_WAKE = 3, EV_TIMEOUT = 4 };

struct myri_proc {
    myri_component *comp;
    myri_sim *sim;
    myri_proc_fn fn;
    void *arg;
    int state;
    bool wake_token;           /* a wake that came while not waiting */
    myri_status result;        /* what the current wait returns */
    myri_event_id wake_id;     /* pending WAKE event, or 0 */
    myri_event_id timeout_id;  /* pending TIMEOUT event, or 0 */
    ucontext_t ctx;            /* the process */
    ucontext_t caller;         /* the engine handler that resumed it */
#ifdef PROC_FAST_SWITCH
    void *caller_jb[5], *proc_jb[5]; /* fast switch (__builtin_setjmp): the resuming handler, the suspended process */
    bool entered;              /* the process's stack has been entered once (by swapcontext) */
#endif
    myri_proc_end_fn on_end;   /* ended by a fault, exit or the wall limit */
    void *on_end_arg;
    myri_proc_end end;         /* why it was ended (P_ENDED) */
    double wall_limit_s;       /* 0: none */
    char *map;                 /* allocation (guard page + stack), or NULL once released */
    size_t map_bytes;
    char *stack;
    size_t stack_bytes;
#ifdef PROC_ASAN
    void *fake_proc, *fake_caller; /* ASan fake stacks saved across switches */
    const void *caller_bottom;     /* the engine's stack, as ASan reported it */
    size_t caller_size;
#endif
};

typedef struct proc_config {
    myri_proc_fn fn;
    void *arg;
    size_t stack_bytes;
} proc_config;

/* ---- stacks ------------------------------------------------------------------ */
static bool stack_alloc(myri_proc *p, size_t bytes)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t page = pg > 0 ? (size_t)pg : 4096;
    if (bytes == 0) bytes = MYRI_PROC_STACK_DEFAULT;
    if (bytes < MYRI_PROC_STACK_MIN) bytes = MYRI_PROC_STACK_MIN;
    if (bytes > SIZE_MAX / 4) return false;
    bytes = (bytes + page - 1) / page * page;
#ifdef PROC_ASAN
    p->map = aligned_alloc(page, bytes);
    if (!p->map) return false;
    p->map_bytes = bytes;
    p->stack = p->map;
#else
    size_t guard = PROC_GUARD_PAGES * page; /* a frame larger than this could jump over it */
    void *m = mmap(NULL, bytes + guard, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return false;
    if (mprotect(m, guard, PROT_NONE) != 0) {
        munmap(m, bytes + guard);
        return false;
    }
    p->map = m;
    p->map_bytes = bytes + guard;
    p->stack = p->map + guard;
#endif
    p->stack_bytes = bytes;
    return true;
}

static void stack_release(myri_proc *p)
{
    if (!p->map) return;
#ifdef PROC_ASAN
    free(p->map);
#else
    munmap(p->map, p->map_bytes);
#endif
    p->map = p->stack = NULL;
    p->map_bytes = p->stack_bytes = 0;
}

/* ---- guards: faults, exit and the wall-clock limit ------------------------------ */
/* The running process (only one runs at a time, on the thread that runs the
 * engine), a count of yields that the SIGALRM tick compares, and the tick's
 * own state.  Written by the engine's thread, read by its signal handlers. */
static myri_proc *volatile proc__cur;
static volatile sig_atomic_t proc__yields;
static sig_atomic_t proc__seen_yields;
static struct timespec proc__since;
static pthread_t proc__owner;
static int proc__nlimited;     /* live processes with a wall limit: the tick runs while > 0 */
static bool proc__installed;
static char proc__altstack[64 * 1024];

static double proc__mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#ifdef PROC_FAST_SWITCH
/* Resumes the context saved in jb by __builtin_setjmp (a function of its
 * own: __builtin_longjmp may not be called from the function that called
 * __builtin_setjmp). */
static __attribute__((noinline, noreturn)) void proc__jump(void **jb) { __builtin_longjmp(jb, 1); }
#endif

/* Leaves the running process for the engine handler that resumed it, for good. */
static void proc__unwind(myri_proc *p, const myri_proc_end *why)
{
    p->end = *why;
    p->state = P_ENDED;
    proc__cur = NULL;
#ifdef PROC_FAST_SWITCH
    proc__jump(p->caller_jb);
#else
#ifdef PROC_ASAN
    __sanitizer_start_switch_fiber(NULL, p->caller_bottom, p->caller_size);
#endif
    setcontext(&p->caller);
#endif
}

static void proc__on_fault(int signo, siginfo_t *si, void *uc)
{
    (void)uc;
    myri_proc *p = proc__cur;
    if (!p || !pthread_equal(pthread_self(), proc__owner)) {
        /* not a process's fault: the default action, as if no handler were here */
        signal(signo, SIG_DFL);
        if (signo == SIGABRT || signo == SIGTRAP) raise(signo);
        return; /* a fault instruction faults again, now with the default action */
    }
    myri_proc_end why = {.kind = MYRI_PROC_END_SIGNAL, .signo = signo};
    if (signo == SIGSEGV || signo == SIGBUS || signo == SIGILL || signo == SIGFPE) why.addr = (uintptr_t)si->si_addr;
#ifndef PROC_ASAN
    long pg = sysconf(_SC_PAGESIZE);
    if ((signo == SIGSEGV || signo == SIGBUS) && p->map && why.addr >= (uintptr_t)p->map &&
        why.addr < (uintptr_t)p->map + PROC_GUARD_PAGES * (uintptr_t)(pg > 0 ? pg : 4096))
        why.kind = MYRI_PROC_END_STACK;
#endif
    proc__unwind(p, &why);
}

static void proc__on_tick(int signo)
{
    (void)signo;
    myri_proc *p = proc__cur;
    if (!pthread_equal(pthread_self(), proc__owner)) return;
    if (!p || proc__yields != proc__seen_yields || !p->wall_limit_s) {
        proc__seen_yields = proc__yields;
        clock_gettime(CLOCK_MONOTONIC, &proc__since);
        return;
    }
    double ran = proc__mono_s() - ((double)proc__since.tv_sec + 1e-9 * (double)proc__since.tv_nsec);
    if (ran < p->wall_limit_s) return;
    myri_proc_end why = {.kind = MYRI_PROC_END_WALL, .wall_s = ran};
    proc__unwind(p, &why);
}

/* Installs the handlers once (the thread that runs processes gets the alternate stack). */
static void proc__install(void)
{
    if (proc__installed) return;
    proc__installed = true;
    proc__owner = pthread_self();
    stack_t ss = {.ss_sp = proc__altstack, .ss_size = sizeof proc__altstack};
    sigaltstack(&ss, NULL);
#ifndef PROC_ASAN /* under ASan its own reports of faults are worth more: it keeps the signals */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = proc__on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER; /* left by proc__jump: never keep it blocked */
    sigemptyset(&sa.sa_mask);
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);
#else
    (void)proc__on_fault;
#endif
    struct sigaction st;
    memset(&st, 0, sizeof st);
    st.sa_handler = proc__on_tick;
    st.sa_flags = SA_RESTART | SA_NODEFER;
    sigemptyset(&st.sa_mask);
    sigaction(SIGALRM, &st, NULL);
}

/* The 100 ms tick runs while a process with a wall limit exists. */
static void proc__tick(bool on)
{
    struct itimerval it = {{0, on ? 100000 : 0}, {0, on ? 100000 : 0}};
    setitimer(ITIMER_REAL, &it, NULL);
}

/* ---- switching ----------------------------------------------------------------- */
/* Engine handler -> process; returns when the process yields or finishes. */
static __attribute__((noinline)) void switch_in(myri_proc *p)
{
    p->state = P_RUNNING;
    proc__yields = proc__yields + 1;
    proc__cur = p;
#ifdef PROC_FAST_SWITCH
    if (__builtin_setjmp(p->caller_jb) == 0) {
        if (p->entered) proc__jump(p->proc_jb);
        p->entered = true;
        swapcontext(&p->caller, &p->ctx); /* does not return: the process comes back by proc__jump */
    }
    return;
#endif
#ifdef PROC_ASAN
    __sanitizer_start_switch_fiber(&p->fake_caller, p->stack, p->stack_bytes);
#endif
    swapcontext(&p->caller, &p->ctx);
#ifdef PROC_ASAN
    __sanitizer_finish_switch_fiber(p->fake_caller, NULL, NULL);
#endif
}

/* Process -> the engine handler that resumed it; returns when resumed. */
static __attribute__((noinline)) void switch_out(myri_proc *p, int state)
{
    p->state = state;
    proc__cur = NULL;
    proc__yields = proc__yields + 1;
#ifdef PROC_FAST_SWITCH
    if (__builtin_setjmp(p->proc_jb) == 0) proc__jump(p->caller_jb);
    return;
#endif
#ifdef PROC_ASAN
    __sanitizer_start_switch_fiber(&p->fake_proc, p->caller_bottom, p->caller_size);
#endif
    swapcontext(&p->ctx, &p->caller);
#ifdef PROC_ASAN
    __sanitizer_finish_switch_fiber(p->fake_proc, &p->caller_bottom, &p->caller_size);
#endif
}

/* First frame on the process's stack; makecontext passes int arguments, so
 * the pointer comes in two 32-bit halves. */
static void proc_entry(unsigned int hi, unsigned int lo)
{
    myri_proc *p = (myri_proc *)(uintptr_t)(((uint64_t)hi << 32) | (uint64_t)lo);
#ifdef PROC_ASAN
    __sanitizer_finish_switch_fiber(NULL, &p->caller_bottom, &p->caller_size);
#endif
    p->fn(p, p->arg);
    p->state = P_DONE;
    proc__cur = NULL;
#ifdef PROC_ASAN
    __sanitizer_start_switch_fiber(NULL, p->caller_bottom, p->caller_size); /* this fiber ends */
#endif
#ifdef PROC_FAST_SWITCH
    proc__jump(p->caller_jb);
#else
    setcontext(&p->caller);
#endif
}

static bool context_init(myri_proc *p)
{
    if (getcontext(&p->ctx) != 0) return false;
    p->ctx.uc_stack.ss_sp = p->stack;
    p->ctx.uc_stack.ss_size = p->stack_bytes;
    p->ctx.uc_link = NULL;
    uint64_t u = (uint64_t)(uintptr_t)p;
    makecontext(&p->ctx, (void (*)(void))proc_entry, 2, (unsigned int)(u >> 32), (unsigned int)(u & 0xffffffffu));
    return true;
}

/* ---- the component ---------------------------------------------------------------- */
static myri_status proc_create_op(myri_component *self, const void *config)
{
    const proc_config *cfg = config;
    if (!cfg || !cfg->fn) return MYRI_EINVAL;
    myri_proc *p = calloc(1, sizeof *p);
    if (!p) return MYRI_ENOMEM;
    p->comp = self;
    p->sim = self->sim;
    p->fn = cfg->fn;
    p->arg = cfg->arg;
    p->state = P_NEW;
    if (!stack_alloc(p, cfg->stack_bytes)) {
        free(p);
        return MYRI_ENOMEM;
    }
    self->state = p;
    proc__install();
    return MYRI_OK;
}

/* Ended by a fault, exit or the wall limit: its frames are dropped; pending events are ignored. */
static void proc__ended(myri_proc *p)
{
    if (p->wake_id) myri_sim_cancel(p->sim, p->wake_id);
    if (p->timeout_id) myri_sim_cancel(p->sim, p->timeout_id);
    p->wake_id = p->timeout_id = 0;
    stack_release(p);
    if (p->wall_limit_s > 0 && --proc__nlimited == 0) proc__tick(false);
    p->wall_limit_s = 0;
    if (p->on_end) p->on_end(p, p->on_end_arg, &p->end);
}

static void proc_handle_op(myri_component *self, const myri_event *ev)
{
    myri_proc *p = self->state;
    switch (ev->kind) {
    case EV_START:
        if (p->state != P_STARTING) return;
        if (!context_init(p)) myri_panic(self, "getcontext failed");
        break;
    case EV_SLEEP:
        if (p->state != P_SLEEPING) return;
        break;
    case EV_WAKE:
        if (p->state != P_WAITING) return;
        p->wake_id = 0;
        if (p->timeout_id) myri_sim_cancel(p->sim, p->timeout_id);
        p->timeout_id = 0;
        p->result = MYRI_OK;
        break;
    case EV_TIMEOUT:
        if (p->state != P_WAITING) return;
        p->timeout_id = 0;
        if (p->wake_id) { /* woken at this same time, but later: keep the wake */
            myri_sim_cancel(p->sim, p->wake_id);
            p->wake_id = 0;
            p->wake_token = true;
        }
        p->result = MYRI_ETIMEDOUT;
        break;
    default: return;
    }
    switch_in(p);
    proc__cur = NULL;
    if (p->state == P_DONE) stack_release(p);
    if (p->state == P_ENDED) proc__ended(p);
}

static void proc_destroy_op(myri_component *self)
{
    myri_proc *p = self->state;
    if (!p) return;
    if (p->wall_limit_s > 0 && --proc__nlimited == 0) proc__tick(false);
    stack_release(p); /* a suspended process's frames are simply dropped */
    free(p);
    self->state = NULL;
}

static const myri_component_ops proc_ops = {
    .type = "proc",
    .help = "a host program run as a coroutine in simulated time",
    .create = proc_create_op,
    .handle = proc_handle_op,
    .destroy = proc_destroy_op,
};

/* ---- public API ------------------------------------------------------------------- */
myri_proc *myri_proc_create(myri_sim *sim, const char *name, myri_proc_fn fn, void *arg, size_t stack_bytes)
{
    if (!sim || !name || !fn) return NULL;
    proc_config cfg = {.fn = fn, .arg = arg, .stack_bytes = stack_bytes};
    myri_component *c = NULL;
    if (myri_sim_add(sim, &proc_ops, name, &cfg, &c) != MYRI_OK) return NULL;
    return c->state;
}

static myri_event_id proc_schedule(myri_proc *p, myri_time_ps at_ps, uint32_t kind)
{
    myri_event ev = {.target = p->comp, .kind = kind};
    return myri_sim_schedule(p->sim, at_ps, &ev);
}

static myri_time_ps after(const myri_proc *p, myri_time_ps delay_ps)
{
    myri_time_ps now = myri_sim_now(p->sim);
    return now + delay_ps < now ? MYRI_TIME_NEVER : now + delay_ps;
}

myri_status myri_proc_start(myri_proc *p, myri_time_ps at_ps)
{
    if (!p) return MYRI_EINVAL;
    if (p->state != P_NEW) return MYRI_ESTATE;
    if (at_ps < myri_sim_now(p->sim)) return MYRI_EINVAL;
    if (!proc_schedule(p, at_ps, EV_START)) return MYRI_EFULL;
    p->state = P_STARTING;
    return MYRI_OK;
}

myri_status myri_proc_sleep(myri_proc *p, myri_time_ps delay_ps)
{
    if (!p) return MYRI_EINVAL;
    if (p->state != P_RUNNING) return MYRI_ESTATE;
    myri_time_ps at = after(p, delay_ps);
    proc__yields = proc__yields + 1; /* a sleep is progress, also when no switch is needed */
    if (myri_sim_advance_kind(p->sim, at, EV_SLEEP)) return MYRI_OK; /* nothing else happens before `at`: no switch needed */
    if (!proc_schedule(p, at, EV_SLEEP)) return MYRI_EFULL;
    switch_out(p, P_SLEEPING);
    return MYRI_OK;
}

myri_status myri_proc_wait(myri_proc *p, myri_time_ps max_ps)
{
    if (!p) return MYRI_EINVAL;
    if (p->state != P_RUNNING) return MYRI_ESTATE;
    if (p->wake_token) {
        p->wake_token = false;
        return MYRI_OK;
    }
    if (max_ps != MYRI_TIME_NEVER) {
        p->timeout_id = proc_schedule(p, after(p, max_ps), EV_TIMEOUT);
        if (!p->timeout_id) return MYRI_EFULL;
    }
    p->result = MYRI_ETIMEDOUT;
    switch_out(p, P_WAITING);
    return p->result;
}

myri_status myri_proc_wake(myri_proc *p)
{
    if (!p) return MYRI_EINVAL;
    if (p->state == P_DONE || p->state == P_ENDED) return MYRI_ESTATE;
    if (p->state != P_WAITING) {
        p->wake_token = true;
        return MYRI_OK;
    }
    if (p->wake_id) return MYRI_OK; /* already being woken */
    p->wake_id = proc_schedule(p, myri_sim_now(p->sim), EV_WAKE);
    return p->wake_id ? MYRI_OK : MYRI_EFULL;
}

myri_time_ps myri_proc_now(const myri_proc *p) { return p ? myri_sim_now(p->sim) : 0; }
bool myri_proc_done(const myri_proc *p) { return p && (p->state == P_DONE || p->state == P_ENDED); }
bool myri_proc_running(const myri_proc *p) { return p && p->state == P_RUNNING; }
const char *myri_proc_name(const myri_proc *p) { return p ? p->comp->name : NULL; }
myri_component *myri_proc_component(myri_proc *p) { return p ? p->comp : NULL; }
myri_rng *myri_proc_rng(myri_proc *p) { return p ? &p->comp->rng : NULL; }

myri_status myri_proc_set_on_end(myri_proc *p, myri_proc_end_fn fn, void *arg)
{
    if (!p) return MYRI_EINVAL;
    p->on_end = fn;
    p->on_end_arg = arg;
    return MYRI_OK;
}

myri_status myri_proc_set_wall_limit(myri_proc *p, double seconds)
{
    if (!p || !(seconds >= 0)) return MYRI_EINVAL;
    if (p->state == P_DONE || p->state == P_ENDED) return MYRI_ESTATE;
    if (!p->wall_limit_s && seconds > 0 && proc__nlimited++ == 0) proc__tick(true);
    if (p->wall_limit_s > 0 && !seconds && --proc__nlimited == 0) proc__tick(false);
    p->wall_limit_s = seconds;
    return MYRI_OK;
}

bool myri_proc_exit_current(int code)
{
    myri_proc *p = proc__cur;
    if (!p || !pthread_equal(pthread_self(), proc__owner)) return false;
    myri_proc_end why = {.kind = MYRI_PROC_END_EXIT, .code = code};
    proc__unwind(p, &why);
    return true; /* not reached */
}

myri_proc *myri_proc_current(void) { return proc__cur; }
bool myri_proc_ended(const myri_proc *p) { return p && p->state == P_ENDED; }
