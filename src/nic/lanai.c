/* lanai.c -- the LANai 4.x: creation, the register file, ISR/IMR, RTC and
 * interrupt timer, the CPU's two contexts, observation.  The DMA engines are
 * in lanai_dma.c.  See lanai.h and docs/NIC.md. */
#include "nic/lanai_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Consecutive zero-cycle punts with (ISR & IMR) still set before the CPU is
 * parked as a firmware fault (an interrupt handler that never clears). */
#define LANAI_MAX_SPIN 16

/* ---- observation, faults --------------------------------------------------------- */

void myri_lanai__trace_at(myri_lanai *l, myri_time_ps t, myri_lanai_ev ev, uint32_t a, uint32_t b)
{
    for (unsigned i = 0; i < l->ntr; i++) l->tr[i](l->tr_ctx[i], l, t, ev, a, b);
}

void myri_lanai_trace(myri_lanai *l, myri_lanai_ev ev, uint32_t a, uint32_t b)
{
    if (!l || (unsigned)ev >= MYRI_LANAI_NEVS) return;
    myri_lanai__trace_at(l, myri_sim_now(l->sim), ev, a, b);
}

myri_status myri_lanai_add_trace(myri_lanai *l, myri_lanai_trace_fn fn, void *ctx)
{
    if (!l || !fn) return MYRI_EINVAL;
    if (l->ntr >= 4) return MYRI_EFULL;
    l->tr[l->ntr] = fn;
    l->tr_ctx[l->ntr++] = ctx;
    return MYRI_OK;
}

void myri_lanai__fault(myri_lanai *l) { l->st.faults++; }

void myri_lanai__acct(myri_lanai *l)
{
    myri_time_ps now = myri_sim_now(l->sim);
    if (now > l->acct_ps && l->hdma_busy && l->on_port) l->st.hdma_sdma_ps += now - l->acct_ps;
    l->acct_ps = now;
}

/* ---- CPU ------------------------------------------------------------------------------ */

/* Schedules the CPU event at `at` unless one is pending at or before it
 * (at most one CPU event is ever pending). */
static void lanai__cpu_at(myri_lanai *l, myri_time_ps at)
{
    if (l->cpu_ev) {
        if (l->cpu_ev_at <= at) return;
        l->cpu_ev = myri_sim_reschedule(l->sim, l->cpu_ev, at);
        l->cpu_ev_at = at;
        if (l->cpu_ev) return;
    }
    myri_event ev = {.target = l->comp, .kind = LANAI_EV_CPU};
    l->cpu_ev = myri_sim_schedule(l->sim, at, &ev);
    l->cpu_ev_at = at;
}

void myri_lanai_wake(myri_lanai *l, myri_time_ps at_ps)
{
    if (!l || !l->started) return;
    myri_time_ps now = myri_sim_now(l->sim);
    if (at_ps < now) at_ps = now;
    if (!l->idle) { /* asked during a step (or while busy): kept until the CPU goes idle */
        if (at_ps < l->wake_at) l->wake_at = at_ps;
        return;
    }
    lanai__cpu_at(l, at_ps);
}

void myri_lanai__wake_now(myri_lanai *l)
{
    if (l->started && l->idle) lanai__cpu_at(l, myri_sim_now(l->sim));
}

void myri_lanai__set_isr(myri_lanai *l, uint32_t bits)
{
    uint32_t old = l->isr;
    l->isr |= bits;
    if (l->isr != old) {
        myri_lanai__trace_at(l, myri_sim_now(l->sim), MYRI_LANAI_EV_ISR, l->isr, 0);
        myri_lanai__wake_now(l);
    }
}

static void lanai__cpu_state(myri_lanai *l, uint32_t a)
{
    myri_lanai__trace_at(l, myri_sim_now(l->sim), MYRI_LANAI_EV_CPU, a, 0);
}

/* The CPU is free: interrupt if due, step, and either stay busy for the
 * step's cycles or punt / go idle. */
static void lanai__cpu_run(myri_lanai *l)
{
    myri_time_ps now = myri_sim_now(l->sim);
    l->cpu_ev = 0;
    bool was_idle = l->idle;
    l->idle = false;
next_step:
    if (l->wake_at <= now) l->wake_at = MYRI_TIME_NEVER; /* this step is the look asked for */
    for (int spin = 0;; spin++) {
        if (l->ctx == MYRI_LANAI_USER && (l->isr & l->imr) != 0) {
            if (spin > LANAI_MAX_SPIN) { /* the handler never clears the bit: park the CPU */
                myri_lanai__fault(l);
                break;
            }
            l->ctx = MYRI_LANAI_SYSTEM;
            l->st.interrupts++;
            lanai__cpu_state(l, 2);
        } else if (was_idle && spin == 0) {
            lanai__cpu_state(l, l->ctx == MYRI_LANAI_USER ? 1 : 2);
        }
        uint32_t cycles = l->ops && l->ops->step ? l->ops->step(l->fw, l, l->ctx) : 0;
        if (cycles > 0) {
            myri_time_ps busy = (myri_time_ps)cycles * l->cycle_ps;
            l->st.cpu_ps[l->ctx] += busy; /* charged whole at the start; get_stats keeps its future out */
            l->step_start_ps = now;
            l->step_end_ps = now + busy;
            l->step_ctx = l->ctx;
            l->stepping = true;
            if (!l->cpu_ev && myri_sim_advance_kind(l->sim, now + busy, LANAI_EV_CPU)) {
                /* nothing else happens before the step ends: the next step now, without an event */
                now += busy;
                was_idle = false;
                goto next_step;
            }
            lanai__cpu_at(l, now + busy);
            return;
        }
        if (l->ctx == MYRI_LANAI_USER) break;
        l->ctx = MYRI_LANAI_USER; /* punt */
        lanai__cpu_state(l, 1);
        if (spin > LANAI_MAX_SPIN) {
            myri_lanai__fault(l);
            break;
        }
    }
    l->stepping = false;
    l->idle = true;
    lanai__cpu_state(l, 0);
    if (l->wake_at != MYRI_TIME_NEVER) {
        lanai__cpu_at(l, l->wake_at);
        l->wake_at = MYRI_TIME_NEVER;
    }
}

myri_status myri_lanai_set_cpu(myri_lanai *l, const myri_lanai_cpu_ops *ops, void *fw)
{
    if (!l || !ops || !ops->step) return MYRI_EINVAL;
    l->ops = ops;
    l->fw = fw;
    return MYRI_OK;
}

myri_status myri_lanai_start(myri_lanai *l)
{
    if (!l) return MYRI_EINVAL;
    if (!l->ops) return MYRI_ESTATE;
    if (l->hdma_busy || l->on_port || l->armed || l->sml_busy) return MYRI_ESTATE;
    myri_time_ps now = myri_sim_now(l->sim);
    l->isr = l->imr = 0;
    l->ear = l->lar = l->ctr = l->dir = 0;
    l->smp = l->sa = l->rmp = l->rml = 0;
    l->timeout_reg = l->myrinet_reg = 0;
    if (l->it_ev) myri_sim_cancel(l->sim, l->it_ev);
    l->it_ev = 0;
    l->rtc_base_ps = now;
    l->start_ps = l->acct_ps = now;
    l->ctx = MYRI_LANAI_SYSTEM;
    l->started = true;
    l->idle = true;
    l->stepping = false;
    l->wake_at = MYRI_TIME_NEVER;
    lanai__cpu_at(l, now);
    return MYRI_OK;
}

myri_lanai_ctx myri_lanai_context(const myri_lanai *l) { return l ? l->ctx : MYRI_LANAI_SYSTEM; }

/* ---- timer ---------------------------------------------------------------------------- */

static void lanai__it_write(myri_lanai *l, uint32_t ticks)
{
    if (l->it_ev) myri_sim_cancel(l->sim, l->it_ev);
    l->it_ev = 0;
    if (ticks == 0) return;
    l->it_at = myri_sim_now(l->sim) + (myri_time_ps)ticks * l->p.rtc_tick_ps;
    myri_event ev = {.target = l->comp, .kind = LANAI_EV_TIMER};
    l->it_ev = myri_sim_schedule(l->sim, l->it_at, &ev);
}

static uint32_t lanai__it_read(const myri_lanai *l)
{
    if (!l->it_ev) return 0;
    myri_time_ps now = myri_sim_now(l->sim);
    return l->it_at <= now ? 0 : (uint32_t)((l->it_at - now + l->p.rtc_tick_ps - 1) / l->p.rtc_tick_ps);
}

/* ---- register file -------------------------------------------------------------------- */

uint32_t myri_lanai_read(myri_lanai *l, uint32_t reg)
{
    if (!l) return 0;
    myri_time_ps now = myri_sim_now(l->sim);
    switch (reg) {
    case MYRI_LANAI_IT: return lanai__it_read(l);
    case MYRI_LANAI_RTC: return (uint32_t)((now - l->rtc_base_ps) / l->p.rtc_tick_ps);
    case MYRI_LANAI_EAR: return l->ear;
    case MYRI_LANAI_LAR: return l->lar;
    case MYRI_LANAI_DMA_CTR: return l->ctr;
    case MYRI_LANAI_DMA_DIR: return l->dir;
    case MYRI_LANAI_RMP: return myri_lanai__rmp(l);
    case MYRI_LANAI_RML: return l->rml;
    case MYRI_LANAI_SMP: return l->smp;
    case MYRI_LANAI_SA: return l->sa;
    case MYRI_LANAI_SML: case MYRI_LANAI_SMLT: return 0;
    case MYRI_LANAI_TIMEOUT: return l->timeout_reg;
    case MYRI_LANAI_MYRINET: return l->myrinet_reg;
    case MYRI_LANAI_ISR: return l->isr;
    case MYRI_LANAI_IMR: return l->imr;
    default: myri_lanai__fault(l); return 0;
    }
}

myri_status myri_lanai_write(myri_lanai *l, uint32_t reg, uint32_t v)
{
    if (!l) return MYRI_EINVAL;
    myri_lanai__trace_at(l, myri_sim_now(l->sim), MYRI_LANAI_EV_REG, reg, v);
    switch (reg) {
    case MYRI_LANAI_IT: lanai__it_write(l, v); return MYRI_OK;
    case MYRI_LANAI_RTC: /* sets the clock's count to v now */
        l->rtc_base_ps = myri_sim_now(l->sim) - (myri_time_ps)v * l->p.rtc_tick_ps;
        return MYRI_OK;
    case MYRI_LANAI_EAR: case MYRI_LANAI_LAR: case MYRI_LANAI_DMA_CTR: case MYRI_LANAI_DMA_DIR:
        return myri_lanai__hdma_write(l, reg, v);
    case MYRI_LANAI_RMP: case MYRI_LANAI_RML: return myri_lanai__recv_write(l, reg, v);
    case MYRI_LANAI_SMP: case MYRI_LANAI_SML: case MYRI_LANAI_SMLT: case MYRI_LANAI_SA: case MYRI_LANAI_SB:
    case MYRI_LANAI_SH: case MYRI_LANAI_SW: case MYRI_LANAI_ST:
        return myri_lanai__send_write(l, reg, v);
    case MYRI_LANAI_TIMEOUT: l->timeout_reg = v; return MYRI_OK;
    case MYRI_LANAI_MYRINET: l->myrinet_reg = v; return MYRI_OK;
    case MYRI_LANAI_ISR: /* write 1 to clear (HOST_SIG included: the firmware acknowledges it) */
        if (l->isr & v) {
            l->isr &= ~v;
            myri_lanai__trace_at(l, myri_sim_now(l->sim), MYRI_LANAI_EV_ISR, l->isr, 0);
        }
        return MYRI_OK;
    case MYRI_LANAI_IMR:
        l->imr = v;
        if (l->isr & l->imr) myri_lanai__wake_now(l);
        return MYRI_OK;
    default: myri_lanai__fault(l); return MYRI_EINVAL;
    }
}

/* ---- SRAM, host side ---------------------------------------------------------------------- */

uint8_t *myri_lanai_sram(myri_lanai *l, uint32_t addr, uint32_t len)
{
    if (!l || addr > l->sram_bytes || len > l->sram_bytes - addr) return NULL;
    return l->sram + addr;
}

myri_status myri_lanai_set_sram_watch(myri_lanai *l, void (*fn)(void *ctx, uint32_t addr, uint32_t bytes),
                                      void *ctx)
{
    if (!l) return MYRI_EINVAL;
    l->sram_watch = fn;
    l->sram_watch_ctx = ctx;
    return MYRI_OK;
}

uint32_t myri_lanai_sram_bytes(const myri_lanai *l) { return l ? l->sram_bytes : 0; }

myri_status myri_lanai_host_read(myri_lanai *l, uint32_t addr, void *dst, uint32_t n)
{
    if (!l || (!dst && n)) return MYRI_EINVAL;
    const uint8_t *s = myri_lanai_sram(l, addr, n);
    if (!s) return MYRI_ERANGE;
    if (n) memcpy(dst, s, n);
    return MYRI_OK;
}

myri_status myri_lanai_host_write(myri_lanai *l, uint32_t addr, const void *src, uint32_t n)
{
    if (!l || (!src && n)) return MYRI_EINVAL;
    uint8_t *d = myri_lanai_sram(l, addr, n);
    if (!d) return MYRI_ERANGE;
    if (n) memcpy(d, src, n);
    myri_lanai__sram_written(l, addr, n);
    myri_lanai__wake_now(l);
    return MYRI_OK;
}

void myri_lanai_host_signal(myri_lanai *l)
{
    if (l) myri_lanai__set_isr(l, MYRI_LANAI_HOST_SIG);
}

myri_status myri_lanai_set_host_mem(myri_lanai *l, uint8_t *base, uint64_t bytes)
{
    if (!l || (!base && bytes)) return MYRI_EINVAL;
    if (l->hdma_busy) return MYRI_ESTATE;
    l->hmem = base;
    l->hmem_bytes = bytes;
    return MYRI_OK;
}

myri_status myri_lanai_set_host_notify(myri_lanai *l, void (*fn)(void *ctx, uint64_t bus_addr, uint32_t bytes),
                                       void *ctx)
{
    if (!l) return MYRI_EINVAL;
    l->notify = fn;
    l->notify_ctx = ctx;
    return MYRI_OK;
}

myri_status myri_lanai_set_host_fetch(myri_lanai *l, void (*fn)(void *ctx, uint64_t bus_addr, uint32_t bytes),
                                      void *ctx)
{
    if (!l) return MYRI_EINVAL;
    l->fetch = fn;
    l->fetch_ctx = ctx;
    return MYRI_OK;
}

myri_status myri_lanai_use_sram(myri_lanai *l, uint8_t *mem)
{
    if (!l || !mem) return MYRI_EINVAL;
    if (mem != l->sram) memcpy(mem, l->sram, l->sram_bytes);
    l->sram = mem;
    myri_lanai__sram_written(l, 0, l->sram_bytes);
    return MYRI_OK;
}

/* ---- component ---------------------------------------------------------------------------- */

static myri_status lanai__comp_create(myri_component *self, const void *config)
{
    myri_lanai *l = (myri_lanai *)config;
    if (!l || l->comp || l->sim != self->sim) return MYRI_EINVAL;
    self->state = l; /* owned by myri_lanai_create / myri_lanai_destroy */
    return MYRI_OK;
}

static void lanai__comp_handle(myri_component *self, const myri_event *ev)
{
    myri_lanai *l = self->state;
    if (!l) return; /* destroyed */
    switch (ev->kind) {
    case LANAI_EV_CPU: lanai__cpu_run(l); break;
    case LANAI_EV_HDMA: myri_lanai__hdma_event(l, ev); break;
    case LANAI_EV_SML: myri_lanai__sml_event(l); break;
    case LANAI_EV_TIMER:
        l->it_ev = 0;
        myri_lanai__set_isr(l, MYRI_LANAI_TIME_INT);
        break;
    default: break;
    }
}

const myri_component_ops myri_lanai_ops = {
    .type = "lanai",
    .help = "a LANai 4.x NIC: SRAM, registers, host/send/receive DMA engines, CPU contexts (docs/NIC.md)",
    .create = lanai__comp_create,
    .handle = lanai__comp_handle,
};

static myri_status lanai__check(const myri_lanai_params *p)
{
    if (p->sram_bytes < 64 || p->sram_bytes > (1ull << 31) || p->sram_bytes % 4) return MYRI_EINVAL;
    if (!(p->clock_hz >= 1e3) || !isfinite(p->clock_hz) || p->clock_hz > 1e12) return MYRI_EINVAL;
    if (p->rtc_tick_ps == 0) return MYRI_EINVAL;
    if (p->type_bytes < 1 || p->type_bytes > 4) return MYRI_EINVAL;
    return MYRI_OK;
}

myri_status myri_lanai_create(myri_sim *sim, const char *name, const myri_lanai_params *p, myri_bus *bus,
                              myri_port *port, myri_lanai **out)
{
    if (out) *out = NULL;
    if (!sim || !name || !p || !bus || !out) return MYRI_EINVAL;
    myri_status st = lanai__check(p);
    if (st) return st;
    myri_lanai *l = calloc(1, sizeof *l);
    if (!l) return MYRI_ENOMEM;
    l->sim = sim;
    l->p = *p;
    l->bus = bus;
    myri_bus_set_clock(bus, sim); /* its statistics count up to this simulation's now */
    l->port = port;
    l->host = port ? myri_port_host(port) : 0;
    l->sram_bytes = (uint32_t)p->sram_bytes;
    l->sram = l->sram_own = calloc(1, l->sram_bytes);
    l->cycle_ps = (myri_time_ps)llround(1e12 / p->clock_hz);
    l->char_ps = p->link_char_ps ? p->link_char_ps : 6250; /* 8 bits at 1.28 Gb/s */
    l->last_byte = -1;
    l->wake_at = MYRI_TIME_NEVER;
    if (!l->sram) {
        free(l);
        return MYRI_ENOMEM;
    }
    st = myri_sim_add(sim, &myri_lanai_ops, name, l, &l->comp);
    if (st == MYRI_OK && port) st = myri_port_attach(port, &myri_lanai__port_ops, l);
    if (st) {
        free(l->sram);
        free(l);
        return st;
    }
    *out = l;
    return MYRI_OK;
}

void myri_lanai_destroy(myri_lanai *l)
{
    if (!l) return;
    if (l->comp) l->comp->state = NULL;
    myri_lanai__dma_free(l);
    free(l->sram_own);
    free(l);
}

myri_component *myri_lanai_component(myri_lanai *l) { return l ? l->comp : NULL; }
myri_time_ps myri_lanai_cycle_ps(const myri_lanai *l) { return l ? l->cycle_ps : 0; }
myri_time_ps myri_lanai_now(const myri_lanai *l) { return l ? myri_sim_now(l->sim) : 0; }

myri_status myri_lanai_get_stats(myri_lanai *l, myri_lanai_stats *out)
{
    if (!l || !out) return MYRI_EINVAL;
    myri_lanai__acct(l);
    *out = l->st;
    myri_time_ps now = myri_sim_now(l->sim);
    /* intervals still open count up to now */
    if (l->hdma_busy) out->hdma_ps[l->dir & 1] += now - l->hdma_start;
    if (l->on_port) out->sdma_ps += now - l->sdma_start;
    /* a step charged at its start but not over yet counts only up to now */
    if (l->step_end_ps > now) {
        myri_time_ps from = l->step_start_ps > now ? l->step_start_ps : now;
        out->cpu_ps[l->step_ctx & 1] -= l->step_end_ps - from;
    }
    out->elapsed_ps = l->started ? now - l->start_ps : 0;
    return MYRI_OK;
}
