/* host.c -- the simulated host (host.h): host memory and DMA regions, the
 * host interface over the LANai model and the bus, programs as processes,
 * and the program services of include/myri/prog.h. */
#include "host/host.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "myri/api0.h"
#include "myri/proc.h"
#include "myri/prog.h"

const myri_param myri_host_param_table[] = {
    {"api_call", MYRI_P_TIME, "ns", "300ns", "0ns", "1ms",
     "host CPU time of every API call (checks, the shared segment's bookkeeping; PIO is charged apart); "
     "assumption, seed 001 gives no figure: about 160 instructions at 533 MHz (AlphaServer 1200, seed 001)",
     offsetof(myri_host_params, api_call_ps), NULL},
    {"copy_rate", MYRI_P_DOUBLE, "B/s", "200e6", "1", "1e12",
     "bytes/s the host CPU copies memory (charged by programs through myri_prog_copy_cost); assumption: "
     "STREAM-copy class figure for a 1998 533 MHz Alpha server, no source in the seeds",
     offsetof(myri_host_params, copy_Bps), NULL},
    {"dma_region", MYRI_P_SIZE, "B", "4MiB", "4KiB", "1GiB",
     "bytes of DMA-able host memory per board (poll words, receive slots, send buffers; seed 001: "
     "one large block allocated by the driver); assumption: 4 MiB holds 64 channels x 16 slots of 8 KiB "
     "payloads would not, the API takes what fits (docs/HOST.md)",
     offsetof(myri_host_params, dma_bytes), NULL},
    {"init_poll", MYRI_P_TIME, "ns", "10us", "1ns", "1s",
     "time between two SRAM reads while init and handshake wait for the MCP; assumption (seed 001 only "
     "says the API loops until the HCB pointer is non-zero)",
     offsetof(myri_host_params, poll_gap_ps), NULL},
    {"init_timeout", MYRI_P_TIME, "ms", "100ms", "1us", "1000s",
     "how long init and handshake wait for the MCP before MYRI_API0_ETIMEOUT; assumption",
     offsetof(myri_host_params, init_timeout_ps), NULL},
    {"lock_spin", MYRI_P_TIME, "ns", "100ns", "1ns", "1ms",
     "one turn of the send-channel lock's spin loop; assumption (a test-and-set and a pause)",
     offsetof(myri_host_params, lock_spin_ps), NULL},
    {"lock_timeout", MYRI_P_TIME, "ms", "10ms", "1us", "1000s",
     "how long a program waits for the send-channel lock held by another before "
     "MYRI_API0_ELOCKTIMEOUT; assumption",
     offsetof(myri_host_params, lock_timeout_ps), NULL},
    {"stack", MYRI_P_SIZE, "B", "256KiB", "16KiB", "64MiB",
     "stack of each program's process; assumption: the engine's default (include/myri/proc.h)",
     offsetof(myri_host_params, stack_bytes), NULL},
    {"wall_limit", MYRI_P_TIME, "s", "10s", "1ms", "1000s",
     "WALL-CLOCK time a program may run without calling the API, sleeping or waiting; past it the program is "
     "ended and reported (a busy loop must not hang myri); assumption: not a model value but a guard, 10 s by "
     "choice",
     offsetof(myri_host_params, wall_limit_ps), NULL},
    {"alloc_limit", MYRI_P_SIZE, "B", "256MiB", "1KiB", "64GiB",
     "bytes myri_prog_alloc gives the programs of one host in all; past it the call returns NULL; not a "
     "model value: a guard against a program that allocates without bound; assumption: 256 MiB by choice",
     offsetof(myri_host_params, alloc_limit_bytes), NULL},
};
const size_t myri_host_nparams = sizeof myri_host_param_table / sizeof myri_host_param_table[0];

void myri_host_params_default(myri_host_params *p)
{
    if (!p) return;
    memset(p, 0, sizeof *p);
    myri_pset set = {"host", myri_host_param_table, myri_host_nparams, p};
    myri_error err;
    (void)myri_params_load(&set, 1, NULL, NULL, &err);
}

enum { HOST__GUARD = 4096, HOST__MAX_REPORTS = 256, HOST__KEY = 65, HOST__EV_LAND = 1 };

/* A posted PIO write burst on its way: its bytes land in SRAM at at_ps. */
typedef struct host__landing {
    myri_time_ps at_ps;
    uint32_t addr, n;
    uint8_t data[MYRI_BUS_PIO_MERGE_MAX];
} host__landing;

typedef struct host__board {
    myri_lanai *l;
    myri_bus *bus;
    host__landing *land;     /* ring of posted write bursts in bus order (they land in that order) */
    size_t land_head, land_n, land_cap;
    uint8_t *mem;            /* HOST__GUARD + dma_bytes; bus address a is mem[a] */
    void *seg;               /* the shared segment, while it has users */
    size_t seg_bytes;
    int seg_users;
    bool mem_ext;            /* mem is the caller's (myri_host_add_board_mem) */
} host__board;

typedef struct host__report {
    char key[HOST__KEY];
    double value;
} host__report;

struct myri_program {
    myri_host *h;
    myri_proc *proc;
    int id;
    char *name;
    myri_prog_main main;
    int argc;
    char **argv;
    int exit_code;
    char fault[160];         /* why it was ended, when it did not return ("" if it returned) */
    myri_time_ps end_ps;     /* when main returned */
    void **mem;              /* myri_prog_alloc blocks, freed with the program */
    size_t nmem, capmem;
    bool done, waiting;
    bool attached[MYRI_API0_MAX_UNITS];
    void (*on_leave[MYRI_API0_MAX_UNITS])(void *, int);
    myri_hostif hi;
    uint64_t pio_reads;      /* this program's PIO reads (recv_wait tells a bus-free poll by it) */
    myri_time_ps wb_end[MYRI_BUS_PIO_POSTED_MAX]; /* the CPU's write buffer: ends of bursts under way */
    unsigned wb_head, wb_n;
    myri_time_ps prepaid;    /* CPU time recv_wait has let pass for the next API call */
    myri_time_ps owe;        /* CPU time spent but not yet slept (host__spend): the program's clock is now + owe */
    myri_time_ps ahead_at, ahead_pio_ps; /* a PIO read booked ahead (host__pio_read_book): at, its pio_ps */
    host__report *rep;
    size_t nrep;
    uint32_t *group;         /* the hosts of the program's entry (myri_prog_group); NULL: every host */
    size_t ngroup;
};

struct myri_host {
    myri_sim *sim;
    myri_component *comp;
    char *name;
    uint32_t index;
    myri_host_params p;
    uint64_t alloc_bytes;    /* myri_prog_alloc bytes given to its programs (host.alloc_limit) */
    myri_hostif_costs costs;
    myri_host_env env;
    host__board board[MYRI_API0_MAX_UNITS];
    myri_status (*load)(void *ctx, int unit, const char *name);
    void *load_ctx;
    myri_program **prog;
    size_t nprog, cap;
    myri_host_stats st;
    void (*listen)(void *ctx, uint64_t bus_addr, uint32_t bytes); /* myri_host_set_dma_listener */
    void *listen_ctx;
};

/* The running program (set whenever one of them resumes, see host__cur_set). */
static myri_program *host__cur;

static myri_hostif *host__provider(void)
{
    if (!host__cur || !myri_proc_running(host__cur->proc)) return NULL;
    return &host__cur->hi;
}
static myri_program *host__running(void) { return host__provider() ? host__cur : NULL; }

/* ---- hostif over the LANai and the bus ------------------------------------------ */

static host__board *host__board_of(myri_program *pr, int unit)
{
    if (unit < 0 || unit >= MYRI_API0_MAX_UNITS || !pr->h->board[unit].l) return NULL;
    return &pr->h->board[unit];
}

/* The program sleeps ps (a yield: the current program is set again after it). */
static void host__sleep(myri_program *pr, myri_time_ps ps)
{
    if (ps > 0) myri_proc_sleep(pr->proc, ps);
    host__cur = pr;
}

/* CPU time is slept lazily (issue 24): host__spend adds it to pr->owe, and
 * the program sleeps what it owes, in one sleep, just before it next does
 * something another agent can see or that sees another agent -- a PIO read
 * or write (they book the bus), a wait, a sleep, a read of host memory the
 * NIC writes (hostif sync), its end.  Between those points the program only
 * computes on its own memory, so running that code at the time of the first
 * spend instead of the last changes nothing: the sleeps it saves were
 * events no one else could observe, and the engine orders events of equal
 * time by their scheduler's id and sequence (docs/ENGINE.md), which skipping
 * a process's own sleeps leaves in the same relative order.  Only with one
 * program on the host: programs of one host share the API's segment
 * (lock, buffer lists), which another program could read in between. */
static void host__sync(myri_program *pr)
{
    myri_time_ps owe = pr->owe;
    pr->owe = 0;
    host__sleep(pr, owe);
}
static myri_time_ps host__clock(const myri_program *pr) { return myri_sim_now(pr->h->sim) + pr->owe; }

/* Whether a PIO read the program asks for at `at` (after the CPU time it
 * owes) can be booked now, ahead of the clock: no other booking of the
 * board's bus can be asked for at or before `at` -- the host-DMA engine's
 * next one comes later (myri_lanai_hdma_next_book_ps; equal times are left
 * to the engine's order), no other program shares the bus (the program owes
 * time only when alone on its host), its own posted writes are booked
 * already -- and the run reaches `at` (its end, env.end_ps, else its horizon).  The booking is then
 * the one the program would make at `at`, in the same place in the bus's
 * order; the bus and the host statistics count it from `at` on. */
static bool host__book_ahead_ok(const myri_program *pr, const host__board *b, myri_time_ps at)
{
    myri_time_ps end = pr->h->env.end_ps ? pr->h->env.end_ps : myri_sim_horizon(pr->h->sim);
    return at <= end && at < myri_lanai_hdma_next_book_ps(b->l);
}

/* Books a PIO read of n bytes on the board's bus (bus.pio_read a word) and
 * waits until it ends.  The CPU time owed and the read are slept in one
 * sleep when the read can be booked ahead (host__book_ahead_ok, issue 24):
 * the read's bytes are taken at its end either way. */
static void host__pio_read_book(myri_program *pr, host__board *b, size_t n)
{
    const myri_bus_params *bp = myri_bus_params_of(b->bus);
    myri_time_ps now = myri_sim_now(pr->h->sim), dur = bp->pio_read_ps * (myri_time_ps)((n + 3) / 4);
    myri_time_ps at = now + pr->owe;
    if (pr->owe > 0 && dur > 0 && host__book_ahead_ok(pr, b, at)) {
        pr->owe = 0;
        myri_time_ps end = myri_bus_book(b->bus, MYRI_BUS_PIO_READ, at, dur, n) + dur;
        pr->ahead_at = at;
        pr->ahead_pio_ps = end - at;
        host__sleep(pr, end - now);
        pr->h->st.pio_ps += pr->ahead_pio_ps;
        pr->ahead_pio_ps = 0;
        return;
    }
    host__sync(pr);
    now = myri_sim_now(pr->h->sim);
    myri_time_ps end = myri_bus_book(b->bus, MYRI_BUS_PIO_READ, now, dur, n) + dur;
    pr->h->st.pio_ps += end - now;
    host__sleep(pr, end - now);
}

static myri_status host__pio_read(void *h, int unit, uint32_t addr, void *dst, size_t n)
{
    myri_program *pr = h;
    host__board *b = host__board_of(pr, unit);
    if (!b) return MYRI_ENOTFOUND;
    if (!dst || n > UINT32_MAX || !myri_lanai_sram(b->l, addr, (uint32_t)n)) return MYRI_ERANGE;
    host__pio_read_book(pr, b, n);
    pr->pio_reads++;
    pr->h->st.pio_reads++;
    pr->h->st.pio_read_bytes += n;
    return myri_lanai_host_read(b->l, addr, dst, (uint32_t)n); /* the value at the end of the read */
}

/* Queues a posted burst to land in SRAM when the bus has carried it. */
static myri_status host__land_push(myri_host *h, int unit, myri_time_ps at_ps, uint32_t addr, const uint8_t *src,
                                   uint32_t n)
{
    host__board *b = &h->board[unit];
    if (b->land_n == b->land_cap) {
        size_t cap = b->land_cap ? 2 * b->land_cap : 8;
        host__landing *q = malloc(cap * sizeof *q);
        if (!q) return MYRI_ENOMEM;
        for (size_t i = 0; i < b->land_n; i++) q[i] = b->land[(b->land_head + i) % b->land_cap];
        free(b->land);
        b->land = q;
        b->land_head = 0;
        b->land_cap = cap;
    }
    host__landing *e = &b->land[(b->land_head + b->land_n++) % b->land_cap];
    *e = (host__landing){.at_ps = at_ps, .addr = addr, .n = n};
    memcpy(e->data, src, n);
    myri_event ev = {.target = h->comp, .kind = HOST__EV_LAND, .arg32 = (uint32_t)unit};
    return myri_sim_schedule(h->sim, at_ps, &ev) ? MYRI_OK : MYRI_ENOMEM;
}

/* One posted burst: waits for a free write-buffer entry, books the bus, and
 * queues the bytes to land at the burst's end. */
static myri_status host__pio_post(myri_program *pr, int unit, uint32_t addr, const uint8_t *src, uint32_t n)
{
    host__board *b = &pr->h->board[unit];
    unsigned posted = myri_bus_pio_posted(b->bus);
    myri_time_ps now = myri_sim_now(pr->h->sim);
    while (pr->wb_n > 0 && (pr->wb_end[pr->wb_head] <= now || pr->wb_n >= posted)) {
        myri_time_ps end = pr->wb_end[pr->wb_head];
        pr->wb_head = (pr->wb_head + 1) % MYRI_BUS_PIO_POSTED_MAX;
        pr->wb_n--;
        if (end > now) { /* the buffer is full: the store waits for its oldest entry */
            pr->h->st.pio_ps += end - now;
            host__sleep(pr, end - now);
            now = end;
        }
    }
    myri_time_ps dur = myri_bus_pio_write_ps(b->bus, n);
    myri_time_ps end = myri_bus_book(b->bus, MYRI_BUS_PIO_WRITE, now, dur, n) + dur;
    pr->wb_end[(pr->wb_head + pr->wb_n++) % MYRI_BUS_PIO_POSTED_MAX] = end;
    return host__land_push(pr->h, unit, end, addr, src, n);
}

/* A PIO write: split into the aligned blocks the write buffer merges.  With
 * bus.pio_posted 0 the CPU waits until the bus has carried every block and
 * the bytes land then; else the blocks are posted (host__pio_post). */
static myri_status host__pio_write(void *h, int unit, uint32_t addr, const void *src, size_t n)
{
    myri_program *pr = h;
    host__board *b = host__board_of(pr, unit);
    if (!b) return MYRI_ENOTFOUND;
    if (!src || n > UINT32_MAX || !myri_lanai_sram(b->l, addr, (uint32_t)n)) return MYRI_ERANGE;
    host__sync(pr);
    pr->h->st.pio_writes++;
    pr->h->st.pio_write_bytes += n;
    uint32_t merge = myri_bus_pio_merge(b->bus);
    if (myri_bus_pio_posted(b->bus) == 0) {
        myri_time_ps dur = 0;
        for (uint32_t a = addr, end = addr + (uint32_t)n; a < end;) {
            uint32_t next = (a / merge + 1) * merge, k = (next < end ? next : end) - a;
            dur += myri_bus_pio_write_ps(b->bus, k);
            a += k;
        }
        myri_time_ps now = myri_sim_now(pr->h->sim);
        myri_time_ps done = myri_bus_book(b->bus, MYRI_BUS_PIO_WRITE, now, dur, n) + dur;
        pr->h->st.pio_ps += done - now;
        host__sleep(pr, done - now);
        return myri_lanai_host_write(b->l, addr, src, (uint32_t)n);
    }
    const uint8_t *p = src;
    for (uint32_t a = addr, end = addr + (uint32_t)n; a < end;) {
        uint32_t next = (a / merge + 1) * merge, k = (next < end ? next : end) - a;
        myri_status st = host__pio_post(pr, unit, a, p, k);
        if (st) return st;
        a += k;
        p += k;
    }
    return MYRI_OK;
}

static myri_status host__dma_region(void *h, int unit, uint8_t **base, uint64_t *bus_addr, uint64_t *bytes)
{
    myri_program *pr = h;
    host__board *b = host__board_of(pr, unit);
    if (!b) return MYRI_ENOTFOUND;
    *base = b->mem + HOST__GUARD;
    *bus_addr = HOST__GUARD;
    *bytes = pr->h->p.dma_bytes;
    return MYRI_OK;
}

static myri_status host__wait_dma(void *h, myri_time_ps max_ps)
{
    myri_program *pr = h;
    host__sync(pr);
    pr->waiting = true;
    myri_status st = myri_proc_wait(pr->proc, max_ps);
    pr->waiting = false;
    host__cur = pr;
    return st == MYRI_OK ? MYRI_OK : MYRI_ETIMEDOUT;
}

static void host__spend(void *h, myri_time_ps ps)
{
    myri_program *pr = h;
    myri_time_ps paid = pr->prepaid < ps ? pr->prepaid : ps; /* time recv_wait already let pass */
    pr->prepaid -= paid;
    pr->h->st.cpu_ps += ps;
    myri_time_ps d = ps - paid;
    if (pr->h->nprog == 1 && d < MYRI_TIME_NEVER - pr->owe) pr->owe += d;
    else { /* two programs (owe is 0 then), or a debt past the end of time: slept now, as before */
        host__sync(pr);
        host__sleep(pr, d);
    }
}
static void host__sync_op(void *h) { host__sync(h); }

static myri_time_ps host__now(void *h) { return host__clock(h); }
static int host__self(void *h) { return ((myri_program *)h)->id; }

static myri_status host__seg_attach(void *h, int unit, size_t bytes, void (*on_leave)(void *, int), void **seg,
                                    bool *first)
{
    myri_program *pr = h;
    host__board *b = host__board_of(pr, unit);
    if (!b) return MYRI_ENOTFOUND;
    *first = false;
    if (pr->attached[unit]) {
        if (b->seg_bytes != bytes) return MYRI_EINVAL; /* attached through the other API: not this segment */
        *seg = b->seg;
        return MYRI_ESTATE;
    }
    if (!b->seg) {
        b->seg = calloc(1, bytes);
        if (!b->seg) return MYRI_ENOMEM;
        b->seg_bytes = bytes;
    } else if (b->seg_bytes != bytes) {
        return MYRI_EINVAL;
    }
    *first = b->seg_users == 0;
    b->seg_users++;
    pr->attached[unit] = true;
    pr->on_leave[unit] = on_leave;
    *seg = b->seg;
    return MYRI_OK;
}

static void *host__seg_find(void *h, int unit)
{
    myri_program *pr = h;
    host__board *b = host__board_of(pr, unit);
    return b && pr->attached[unit] ? b->seg : NULL;
}

static myri_status host__load_mcp(void *h, int unit, const char *name)
{
    myri_program *pr = h;
    if (!host__board_of(pr, unit) || !pr->h->load) return MYRI_ENOTFOUND;
    return pr->h->load(pr->h->load_ctx, unit, name);
}

static const myri_hostif_ops host__ops = {host__pio_read, host__pio_write, host__dma_region, host__wait_dma,
                                          host__spend,    host__now,       host__self,       host__seg_attach,
                                          host__seg_find, host__load_mcp,  NULL,
                                          host__sync_op};

/* The NIC wrote host memory: wake the host's programs that wait on it. */
static void host__notify(void *ctx, uint64_t bus_addr, uint32_t bytes)
{
    (void)bus_addr;
    (void)bytes;
    myri_host *h = ctx;
    if (h->listen) h->listen(h->listen_ctx, bus_addr, bytes);
    for (size_t i = 0; i < h->nprog; i++)
        if (h->prog[i]->waiting && !h->prog[i]->done) {
            h->st.dma_wakes++;
            (void)myri_proc_wake(h->prog[i]->proc);
        }
}

/* ---- the host component ---------------------------------------------------------- */

static myri_status host__comp_create(myri_component *self, const void *config)
{
    self->state = (void *)config;
    return MYRI_OK;
}
/* Posted PIO write bursts land in SRAM: every one of the board's queue whose
 * time has come, in bus order. */
static void host__comp_handle(myri_component *self, const myri_event *ev)
{
    myri_host *h = self->state;
    if (ev->kind != HOST__EV_LAND || ev->arg32 >= MYRI_API0_MAX_UNITS) return;
    host__board *b = &h->board[ev->arg32];
    myri_time_ps now = myri_sim_now(h->sim);
    while (b->land_n && b->land[b->land_head].at_ps <= now) {
        host__landing *e = &b->land[b->land_head];
        b->land_head = (b->land_head + 1) % b->land_cap;
        b->land_n--;
        (void)myri_lanai_host_write(b->l, e->addr, e->data, e->n);
    }
}
static void host__prog_free(myri_program *pr)
{
    for (size_t i = 0; i < pr->nmem; i++) free(pr->mem[i]);
    free(pr->mem);
    for (int i = 0; i < pr->argc; i++) free(pr->argv[i]);
    free(pr->argv);
    free(pr->name);
    free(pr->rep);
    free(pr->group);
    free(pr);
}
static void host__comp_destroy(myri_component *self)
{
    myri_host *h = self->state;
    if (host__cur && host__cur->h == h) host__cur = NULL;
    for (size_t i = 0; i < h->nprog; i++) host__prog_free(h->prog[i]);
    for (int u = 0; u < MYRI_API0_MAX_UNITS; u++) {
        /* the LANai may be gone already (destroyed before the simulation):
         * it is not touched; no event runs after this */
        if (!h->board[u].mem_ext) free(h->board[u].mem);
        free(h->board[u].seg);
        free(h->board[u].land);
    }
    free(h->prog);
    free(h->name);
    free(h);
}
static const myri_component_ops host__comp_ops = {.type = "host",
                                                  .help = "a simulated host running programs (docs/HOST.md)",
                                                  .create = host__comp_create,
                                                  .handle = host__comp_handle,
                                                  .destroy = host__comp_destroy};

myri_status myri_host_create(myri_sim *sim, const char *name, uint32_t index, const myri_host_params *p,
                             const myri_host_env *env, myri_host **out)
{
    if (!sim || !name || !p || !out) return MYRI_EINVAL;
    if (p->dma_bytes < 4096 || p->dma_bytes > (1ull << 30) || !(p->copy_Bps > 0)) return MYRI_EINVAL;
    myri_host *h = calloc(1, sizeof *h);
    if (!h || !(h->name = strdup(name))) {
        free(h);
        return MYRI_ENOMEM;
    }
    h->sim = sim;
    h->index = index;
    h->p = *p;
    h->costs = (myri_hostif_costs){.call_ps = p->api_call_ps, .poll_gap_ps = p->poll_gap_ps,
                                   .init_timeout_ps = p->init_timeout_ps, .lock_spin_ps = p->lock_spin_ps,
                                   .lock_timeout_ps = p->lock_timeout_ps};
    h->env = env ? *env : (myri_host_env){.nhosts = 1};
    if (h->env.nhosts == 0) h->env.nhosts = 1;
    myri_status st = myri_sim_add(sim, &host__comp_ops, name, h, &h->comp);
    if (st != MYRI_OK) {
        free(h->name);
        free(h);
        return st;
    }
    myri_hostif_set_provider(host__provider);
    *out = h;
    return MYRI_OK;
}

myri_status myri_host_add_board(myri_host *h, int unit, myri_lanai *l, myri_bus *bus)
{
    return myri_host_add_board_mem(h, unit, l, bus, NULL);
}

uint64_t myri_host_board_mem_bytes(const myri_host *h) { return h ? HOST__GUARD + h->p.dma_bytes : 0; }

myri_status myri_host_add_board_mem(myri_host *h, int unit, myri_lanai *l, myri_bus *bus, uint8_t *mem)
{
    if (!h || !l || !bus || unit < 0 || unit >= MYRI_API0_MAX_UNITS) return MYRI_EINVAL;
    host__board *b = &h->board[unit];
    if (b->l) return MYRI_ESTATE;
    b->mem_ext = mem != NULL;
    b->mem = mem ? mem : calloc(1, HOST__GUARD + h->p.dma_bytes);
    if (!b->mem) return MYRI_ENOMEM;
    myri_status st = myri_lanai_set_host_mem(l, b->mem, HOST__GUARD + h->p.dma_bytes);
    if (st == MYRI_OK) st = myri_lanai_set_host_notify(l, host__notify, h);
    if (st != MYRI_OK) {
        if (!b->mem_ext) free(b->mem);
        b->mem = NULL;
        return st;
    }
    b->l = l;
    b->bus = bus;
    return MYRI_OK;
}

myri_status myri_host_set_dma_listener(myri_host *h, void (*fn)(void *ctx, uint64_t bus_addr, uint32_t bytes),
                                       void *ctx)
{
    if (!h) return MYRI_EINVAL;
    h->listen = fn;
    h->listen_ctx = ctx;
    return MYRI_OK;
}

/* A PIO write from outside the simulation (live mode): the blocks the write
 * buffer merges are booked on the bus from now, one after the other, and
 * land at their ends, as a program's posted writes do (host__pio_post,
 * without a program's write buffer to wait for: the real process already
 * went on). */
myri_status myri_host_pio_external(myri_host *h, int unit, uint32_t addr, const uint8_t *src, uint32_t n)
{
    if (!h || unit < 0 || unit >= MYRI_API0_MAX_UNITS || !h->board[unit].l) return MYRI_ENOTFOUND;
    host__board *b = &h->board[unit];
    if (!src || !myri_lanai_sram(b->l, addr, n)) return MYRI_ERANGE;
    h->st.pio_writes++;
    h->st.pio_write_bytes += n;
    uint32_t merge = myri_bus_pio_merge(b->bus);
    for (uint32_t a = addr, end = addr + n; a < end;) {
        uint32_t next = (a / merge + 1) * merge, k = (next < end ? next : end) - a;
        myri_time_ps now = myri_sim_now(h->sim), dur = myri_bus_pio_write_ps(b->bus, k);
        myri_time_ps done = myri_bus_book(b->bus, MYRI_BUS_PIO_WRITE, now, dur, k) + dur;
        myri_status st = host__land_push(h, unit, done, a, src + (a - addr), k);
        if (st) return st;
        a += k;
    }
    return MYRI_OK;
}

size_t myri_host_pio_pending(const myri_host *h, int unit)
{
    if (!h || unit < 0 || unit >= MYRI_API0_MAX_UNITS) return 0;
    return h->board[unit].land_n;
}

myri_status myri_host_set_mcp_loader(myri_host *h, myri_status (*load)(void *ctx, int unit, const char *name),
                                     void *ctx)
{
    if (!h) return MYRI_EINVAL;
    h->load = load;
    h->load_ctx = ctx;
    return MYRI_OK;
}

/* ---- programs ------------------------------------------------------------------------- */

/* The program has ended: its attachments undone (the semaphore's undo at
 * process exit, seed 001), its end time set, the job told. */
static void host__prog_finish(myri_program *pr, myri_time_ps now_ps)
{
    host__cur = pr;
    for (int u = 0; u < MYRI_API0_MAX_UNITS; u++) {
        if (!pr->attached[u]) continue;
        host__board *b = &pr->h->board[u];
        if (pr->on_leave[u]) pr->on_leave[u](b->seg, pr->id);
        pr->attached[u] = false;
        if (--b->seg_users == 0) {
            free(b->seg);
            b->seg = NULL;
        }
    }
    pr->done = true;
    pr->end_ps = now_ps;
    host__cur = NULL;
    if (pr->h->env.exit) pr->h->env.exit(pr->h->env.ctx, pr);
}

/* The process body: main, then the end. */
static void host__prog_body(myri_proc *p, void *arg)
{
    myri_program *pr = arg;
    host__cur = pr;
    pr->exit_code = pr->main(pr->argc, pr->argv);
    host__sync(pr); /* its last CPU time, before the end is seen */
    host__prog_finish(pr, myri_proc_now(p));
}

/* The process was ended where it stood (proc.h): a fault, exit() or the wall-clock guard. */
static void host__prog_ended(myri_proc *p, void *arg, const myri_proc_end *why)
{
    myri_program *pr = arg;
    static const struct {
        int n;
        const char *name;
    } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"}, {SIGILL, "SIGILL"},
                 {SIGFPE, "SIGFPE"},   {SIGABRT, "SIGABRT"}, {SIGTRAP, "SIGTRAP"}};
    const char *sig = "signal";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].n == why->signo) sig = names[i].name;
    switch (why->kind) {
    case MYRI_PROC_END_STACK:
        pr->exit_code = 128 + why->signo;
        snprintf(pr->fault, sizeof pr->fault, "stack overflow: %s at 0x%" PRIxPTR ", below its %llu-byte stack "
                 "(host.stack)", sig, why->addr, (unsigned long long)pr->h->p.stack_bytes);
        break;
    case MYRI_PROC_END_SIGNAL:
        pr->exit_code = 128 + why->signo;
        if (why->signo == SIGSEGV || why->signo == SIGBUS || why->signo == SIGILL || why->signo == SIGFPE)
            snprintf(pr->fault, sizeof pr->fault, "killed by %s at address 0x%" PRIxPTR, sig, why->addr);
        else snprintf(pr->fault, sizeof pr->fault, "killed by %s (signal %d)", sig, why->signo);
        break;
    case MYRI_PROC_END_EXIT:
        pr->exit_code = why->code;
        snprintf(pr->fault, sizeof pr->fault, "called exit(%d)", why->code);
        break;
    case MYRI_PROC_END_WALL:
        pr->exit_code = 124;
        snprintf(pr->fault, sizeof pr->fault, "ended after %.1f s of wall-clock time without calling the API, "
                 "sleeping or waiting (host.wall_limit)", why->wall_s);
        break;
    }
    host__prog_finish(pr, myri_proc_now(p) + pr->owe); /* ended where its clock stood */
}

static myri_status host__prog_args(myri_program *pr, const char *name, int argc, const char *const *args)
{
    pr->argv = calloc((size_t)argc + 2, sizeof *pr->argv);
    if (!pr->argv || !(pr->name = strdup(name))) return MYRI_ENOMEM;
    pr->argc = 0;
    if (!(pr->argv[pr->argc++] = strdup(name))) return MYRI_ENOMEM;
    for (int i = 0; i < argc; i++) {
        if (!args[i]) return MYRI_EINVAL;
        if (!(pr->argv[pr->argc++] = strdup(args[i]))) return MYRI_ENOMEM;
    }
    return MYRI_OK;
}

myri_status myri_host_run(myri_host *h, const char *name, myri_prog_main main, int argc, const char *const *args,
                          myri_time_ps at_ps, myri_program **out)
{
    if (!h || !name || !main || argc < 0 || (argc > 0 && !args)) return MYRI_EINVAL;
    if (at_ps < myri_sim_now(h->sim)) return MYRI_EINVAL;
    if (h->nprog == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 4;
        myri_program **np = realloc(h->prog, cap * sizeof *np);
        if (!np) return MYRI_ENOMEM;
        h->prog = np;
        h->cap = cap;
    }
    myri_program *pr = calloc(1, sizeof *pr);
    if (!pr) return MYRI_ENOMEM;
    myri_status st = host__prog_args(pr, name, argc, args);
    if (st != MYRI_OK) {
        host__prog_free(pr);
        return st;
    }
    pr->h = h;
    pr->main = main;
    pr->id = (int)h->nprog + 1;
    pr->hi = (myri_hostif){&host__ops, pr, &h->costs};
    char pname[160];
    snprintf(pname, sizeof pname, "%s.%s.%d", h->name, name, pr->id);
    pr->proc = myri_proc_create(h->sim, pname, host__prog_body, pr, (size_t)h->p.stack_bytes);
    if (!pr->proc) st = MYRI_ENOMEM;
    else if (!(st = myri_proc_set_on_end(pr->proc, host__prog_ended, pr)) &&
             !(st = myri_proc_set_wall_limit(pr->proc, (double)h->p.wall_limit_ps * 1e-12)))
        st = myri_proc_start(pr->proc, at_ps); /* a process never started never runs */
    if (st != MYRI_OK) {
        host__prog_free(pr);
        return st;
    }
    h->prog[h->nprog++] = pr;
    if (out) *out = pr;
    return MYRI_OK;
}

myri_status myri_host_sram_view(const myri_host *h, int unit, uint32_t addr, uint8_t *out, uint32_t n)
{
    if (!h || unit < 0 || unit >= MYRI_API0_MAX_UNITS || !out || !h->board[unit].l) return MYRI_EINVAL;
    const host__board *b = &h->board[unit];
    const uint8_t *p = myri_lanai_sram(b->l, addr, n);
    if (!p) return MYRI_ERANGE;
    memcpy(out, p, n);
    for (size_t i = 0; i < b->land_n; i++) { /* in bus order: the later bursts overwrite the earlier */
        const host__landing *e = &b->land[(b->land_head + i) % b->land_cap];
        for (uint32_t k = 0; k < e->n; k++)
            if (e->addr + k >= addr && e->addr + k < addr + n) out[e->addr + k - addr] = e->data[k];
    }
    return MYRI_OK;
}

uint32_t myri_host_index(const myri_host *h) { return h ? h->index : 0; }
size_t myri_host_nprograms(const myri_host *h) { return h ? h->nprog : 0; }
myri_program *myri_host_program(const myri_host *h, size_t i) { return h && i < h->nprog ? h->prog[i] : NULL; }
bool myri_program_done(const myri_program *p) { return p && p->done; }
int myri_program_exit_code(const myri_program *p) { return p ? p->exit_code : -1; }
const char *myri_program_fault(const myri_program *p) { return p && p->fault[0] ? p->fault : NULL; }
myri_time_ps myri_program_end_ps(const myri_program *p) { return p ? p->end_ps : 0; }
const char *myri_program_name(const myri_program *p) { return p ? p->name : NULL; }
myri_host *myri_program_host(const myri_program *p) { return p ? p->h : NULL; }
size_t myri_program_nreports(const myri_program *p) { return p ? p->nrep : 0; }

myri_status myri_program_report(const myri_program *p, size_t i, const char **key, double *value)
{
    if (!p || i >= p->nrep || !key || !value) return MYRI_EINVAL;
    *key = p->rep[i].key;
    *value = p->rep[i].value;
    return MYRI_OK;
}

myri_status myri_program_report_get(const myri_program *p, const char *key, double *value)
{
    if (!p || !key || !value) return MYRI_EINVAL;
    for (size_t i = p->nrep; i-- > 0;)
        if (strcmp(p->rep[i].key, key) == 0) {
            *value = p->rep[i].value;
            return MYRI_OK;
        }
    return MYRI_ENOTFOUND;
}

myri_status myri_host_get_stats(const myri_host *h, myri_host_stats *out)
{
    if (!h || !out) return MYRI_EINVAL;
    *out = h->st;
    for (size_t i = 0; i < h->nprog; i++) /* a read booked ahead counts once its time has come */
        if (h->prog[i]->ahead_pio_ps && h->prog[i]->ahead_at <= myri_sim_now(h->sim))
            out->pio_ps += h->prog[i]->ahead_pio_ps;
    return MYRI_OK;
}

/* ---- prog.h ------------------------------------------------------------------------------ */

int myri_prog_host(void)
{
    myri_program *pr = host__running();
    return pr ? (int)pr->h->index : -1;
}

myri_status myri_program_set_group(myri_program *p, const uint32_t *hosts, size_t n)
{
    if (!p || (n && !hosts)) return MYRI_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (hosts[i] >= p->h->env.nhosts) return MYRI_EINVAL;
    uint32_t *g = n ? malloc(n * sizeof *g) : NULL;
    if (n && !g) return MYRI_ENOMEM;
    if (n) memcpy(g, hosts, n * sizeof *g);
    free(p->group);
    p->group = g;
    p->ngroup = n;
    return MYRI_OK;
}

int myri_prog_group(int *hosts, int max)
{
    myri_program *pr = host__running();
    if (!pr || max < 0 || (!hosts && max > 0)) return -1;
    int n = pr->group ? (int)pr->ngroup : (int)pr->h->env.nhosts;
    for (int i = 0; i < n && i < max; i++) hosts[i] = pr->group ? (int)pr->group[i] : i;
    return n;
}

int myri_prog_nhosts(void)
{
    myri_program *pr = host__running();
    return pr ? (int)pr->h->env.nhosts : -1;
}

int myri_prog_route(int to, char *route, int max)
{
    myri_program *pr = host__running();
    if (!pr || to < 0 || (uint32_t)to >= pr->h->env.nhosts || max < 0 || (!route && max > 0)) return -1;
    if (!pr->h->env.route) return -1;
    return pr->h->env.route(pr->h->env.ctx, pr->h->index, (uint32_t)to, (uint8_t *)route, max);
}

uint64_t myri_prog_now_ps(void)
{
    myri_program *pr = host__running();
    return pr ? host__clock(pr) : 0;
}
double myri_prog_now_us(void) { return (double)myri_prog_now_ps() / 1e6; }

static myri_time_ps host__us_ps(double us)
{
    if (!(us > 0)) return 0;
    double ps = us * 1e6;
    return ps >= 1.8e19 ? MYRI_TIME_NEVER : (myri_time_ps)llround(ps);
}

void myri_prog_sleep_us(double us)
{
    myri_program *pr = host__running();
    if (!pr) return;
    myri_time_ps ps = host__us_ps(us);
    if (ps >= MYRI_TIME_NEVER - pr->owe) { /* past the end of time: as before */
        host__sync(pr);
        host__sleep(pr, ps);
        return;
    }
    pr->owe += ps; /* one sleep with the CPU time owed */
    host__sync(pr);
}

void myri_prog_compute_us(double us)
{
    myri_program *pr = host__running();
    if (pr) host__spend(pr, host__us_ps(us));
}

void myri_prog_copy_cost(size_t bytes)
{
    myri_program *pr = host__running();
    if (pr) host__spend(pr, (myri_time_ps)ceil((double)bytes / pr->h->p.copy_Bps * 1e12));
}

int myri_prog_recv_wait(int unit, int chan, double timeout_us)
{
    myri_program *pr = host__running();
    if (!pr) return MYRI_API0_ENOHOST;
    myri_time_ps t0 = host__clock(pr), limit = host__us_ps(timeout_us), period = 0;
    for (;;) {
        uint64_t reads = pr->pio_reads;
        myri_time_ps start = host__clock(pr);
        int n = myri_api0_recv_poll(unit, chan);
        pr->prepaid = 0;
        if (n != 0) return n;
        myri_time_ps end = host__clock(pr);
        if (end > start) period = end - start; /* one poll's cost (a prepaid poll takes no time here) */
        if (end - t0 >= limit) return 0;
        if (pr->pio_reads != reads || period == 0) continue; /* the poll crossed the bus: simulate each */
        /* a host-memory poll: nothing it reads changes until the NIC writes host memory */
        myri_status st = host__wait_dma(pr, limit - (end - t0));
        myri_time_ps now = myri_sim_now(pr->h->sim);
        if (st != MYRI_OK) return 0;
        /* the polls of the loop end at end + k * period (k >= 1) and read
         * memory as they end: the first ending at or after the write sees it.
         * Resume at that poll's end and let the next call's CPU time count as
         * already spent (prepaid), so that its read happens there. */
        myri_time_ps k = (now - end + period - 1) / period;
        if (k < 1) k = 1;
        pr->h->st.fast_polls += k - 1;
        myri_time_ps target = end + k * period;
        pr->h->st.cpu_ps += target - end - period;
        host__sleep(pr, target - now);
        pr->prepaid = period;
    }
}

uint64_t myri_prog_random(void)
{
    myri_program *pr = host__running();
    return pr ? myri_rng_next(myri_proc_rng(pr->proc)) : 0;
}
uint64_t myri_prog_random_below(uint64_t n)
{
    myri_program *pr = host__running();
    return pr && n > 0 ? myri_rng_below(myri_proc_rng(pr->proc), n) : 0;
}
double myri_prog_random_exp(double mean)
{
    myri_program *pr = host__running();
    return pr && mean > 0 ? myri_rng_exponential(myri_proc_rng(pr->proc), mean) : 0;
}

void *myri_prog_alloc(size_t bytes)
{
    myri_program *pr = host__running();
    if (!pr || bytes == 0) return NULL;
    myri_host *h = pr->h;
    if (bytes > h->p.alloc_limit_bytes - h->alloc_bytes) return NULL; /* host.alloc_limit */
    if (pr->nmem == pr->capmem) {
        size_t cap = pr->capmem ? 2 * pr->capmem : 8;
        void **m = realloc(pr->mem, cap * sizeof *m);
        if (!m) return NULL;
        pr->mem = m;
        pr->capmem = cap;
    }
    void *p = calloc(1, bytes);
    if (p) pr->mem[pr->nmem++] = p, h->alloc_bytes += bytes;
    return p;
}

int myri_prog_report(const char *key, double value)
{
    myri_program *pr = host__running();
    if (!pr || !key || !key[0] || strlen(key) >= HOST__KEY || pr->nrep >= HOST__MAX_REPORTS) return -1;
    if (!pr->rep && !(pr->rep = calloc(HOST__MAX_REPORTS, sizeof *pr->rep))) return -1;
    host__report *r = &pr->rep[pr->nrep++];
    strcpy(r->key, key);
    r->value = value;
    if (pr->h->env.report) pr->h->env.report(pr->h->env.ctx, pr, key, value);
    return 0;
}
