/* test_lanai.c -- the LANai model alone (no network): host DMA timing to the
 * picosecond and the bytes it copies, live registers, the to-host notify;
 * a PIO booked during a DMA delaying its next burst by exactly its duration;
 * interrupts (an unmasked ISR bit switches to system context, punt returns),
 * the interrupt timer; idle and wake (at most one pending CPU event); misuse
 * counted as faults with error codes.  Network tests: test_lanai_net.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "nic/lanai.h"

#define HMEM 65536

typedef struct fw {
    int state;
    uint32_t count;              /* bytes of the host DMA */
    uint32_t dir;
    myri_time_ps done_ps[4];     /* DMA_INT seen by the firmware */
    int ndone;
    /* interrupt test */
    uint32_t user_steps, sys_steps, sys_calls;
    myri_time_ps sys_at[8];
    uint32_t sys_isr[8];
    int nsys;
    myri_time_ps user_at[16];
    int nuser;
} fw;

typedef struct rig {
    myri_sim *sim;
    myri_bus *bus;
    myri_lanai *l;
    uint8_t hmem[HMEM];
    fw f;
    uint64_t notes, note_addr, note_bytes;
    myri_time_ps hdma_end;
} rig;

static myri_bus_params bus_params(void)
{
    return (myri_bus_params){.dma_rate_Bps = 120e6, .burst_bytes = 256, .dma_setup_ps = 500000,
                             .pio_read_ps = 1000000, .pio_write_ps = 120000};
}

static myri_lanai_params nic_params(void)
{
    return (myri_lanai_params){.sram_bytes = 1 << 20, .clock_hz = 33e6, .rtc_tick_ps = 500000, .type_bytes = 4};
}

static void notify(void *ctx, uint64_t addr, uint32_t bytes)
{
    rig *r = ctx;
    r->notes++;
    r->note_addr = addr;
    r->note_bytes = bytes;
}

static void tracer(void *ctx, const myri_lanai *l, myri_time_ps t, myri_lanai_ev ev, uint32_t a, uint32_t b)
{
    rig *r = ctx;
    (void)l;
    (void)b;
    if (ev == MYRI_LANAI_EV_HDMA && a == 0) r->hdma_end = t;
}

static rig *rig_new(const myri_lanai_cpu_ops *ops)
{
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->sim = myri_sim_create(1);
    myri_bus_params bp = bus_params();
    r->bus = myri_bus_create(&bp);
    assert_non_null(r->bus);
    myri_lanai_params np = nic_params();
    assert_int_equal(myri_lanai_create(r->sim, "nic0", &np, r->bus, NULL, &r->l), MYRI_OK);
    for (uint32_t i = 0; i < HMEM; i++) r->hmem[i] = (uint8_t)(i * 13u + 7u);
    assert_int_equal(myri_lanai_set_host_mem(r->l, r->hmem, HMEM), MYRI_OK);
    assert_int_equal(myri_lanai_set_host_notify(r->l, notify, r), MYRI_OK);
    assert_int_equal(myri_lanai_add_trace(r->l, tracer, r), MYRI_OK);
    assert_int_equal(myri_lanai_set_cpu(r->l, ops, &r->f), MYRI_OK);
    return r;
}

static void rig_free(rig *r)
{
    myri_lanai_destroy(r->l);
    myri_bus_destroy(r->bus);
    myri_sim_destroy(r->sim);
    free(r);
}

/* ---- host DMA: one E2L then one L2E of `count` bytes ------------------------------------ */

static uint32_t dma_step(void *fwp, myri_lanai *l, myri_lanai_ctx ctx)
{
    fw *f = fwp;
    if (ctx == MYRI_LANAI_SYSTEM) return 0; /* punt into user context */
    switch (f->state) {
    case 0:
    case 2:
        myri_lanai_write(l, MYRI_LANAI_EAR, f->state == 0 ? 0x100 : 0x8000);
        myri_lanai_write(l, MYRI_LANAI_LAR, 0x2000);
        myri_lanai_write(l, MYRI_LANAI_DMA_DIR, f->state == 0 ? MYRI_LANAI_DIR_E2L : MYRI_LANAI_DIR_L2E);
        assert_int_equal(myri_lanai_write(l, MYRI_LANAI_DMA_CTR, f->count), MYRI_OK);
        f->state++;
        return 5;
    case 1:
    case 3:
        if (!(myri_lanai_read(l, MYRI_LANAI_ISR) & MYRI_LANAI_DMA_INT)) return 0; /* idle until an ISR bit */
        f->done_ps[f->ndone++] = myri_lanai_now(l);
        myri_lanai_write(l, MYRI_LANAI_ISR, MYRI_LANAI_DMA_INT);
        f->state++;
        return 3;
    default: return 0;
    }
}
static const myri_lanai_cpu_ops dma_ops = {dma_step};

static void test_host_dma_timing(void **state)
{
    (void)state;
    rig *r = rig_new(&dma_ops);
    r->f.count = 1001; /* rounded up to 1004: 3 bursts of 256 and one of 236 */
    assert_int_equal(myri_lanai_start(r->l), MYRI_OK);
    myri_time_ps setup = 500000, b256 = myri_bus_dma_ps(r->bus, 256), b236 = myri_bus_dma_ps(r->bus, 236);
    assert_int_equal(b256, 2133334); /* 256 B at 120 MB/s, rounded up */
    /* the middle of the second burst: the registers show one burst landed */
    assert_int_equal(myri_sim_run(r->sim, setup + b256 + b256 / 2, 0), MYRI_OK);
    assert_int_equal(myri_lanai_read(r->l, MYRI_LANAI_LAR), 0x2000 + 256);
    assert_int_equal(myri_lanai_read(r->l, MYRI_LANAI_EAR), 0x100 + 256);
    assert_int_equal(myri_lanai_read(r->l, MYRI_LANAI_DMA_CTR), 1004 - 256);
    assert_int_equal(memcmp(myri_lanai_sram(r->l, 0x2000, 256), r->hmem + 0x100, 256), 0);
    assert_int_equal(*myri_lanai_sram(r->l, 0x2000 + 256, 1), 0); /* the second burst has not landed */
    assert_int_equal(myri_sim_run(r->sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    myri_time_ps want = setup + 3 * b256 + b236;
    assert_int_equal(r->f.ndone, 2);
    assert_int_equal(r->f.done_ps[0], want);
    /* bytes: 1004 copied, not one more */
    assert_int_equal(memcmp(myri_lanai_sram(r->l, 0x2000, 1004), r->hmem + 0x100, 1004), 0);
    assert_int_equal(*myri_lanai_sram(r->l, 0x2000 + 1004, 1), 0);
    /* the L2E started 3 cycles after the firmware saw DMA_INT */
    myri_time_ps t2 = want + 3 * myri_lanai_cycle_ps(r->l);
    assert_int_equal(r->f.done_ps[1], t2 + want);
    assert_int_equal(r->hdma_end, t2 + want);
    assert_int_equal(memcmp(r->hmem + 0x8000, r->hmem + 0x100, 1004), 0);
    assert_int_equal(r->notes, 1);
    assert_int_equal(r->note_addr, 0x8000);
    assert_int_equal(r->note_bytes, 1004);
    myri_lanai_stats st;
    assert_int_equal(myri_lanai_get_stats(r->l, &st), MYRI_OK);
    assert_int_equal(st.hdma_ops[MYRI_LANAI_DIR_E2L], 1);
    assert_int_equal(st.hdma_ops[MYRI_LANAI_DIR_L2E], 1);
    assert_int_equal(st.hdma_bytes[MYRI_LANAI_DIR_E2L], 1004);
    assert_int_equal(st.hdma_ps[MYRI_LANAI_DIR_E2L], want);
    assert_int_equal(st.hdma_ps[MYRI_LANAI_DIR_L2E], want);
    assert_int_equal(st.faults, 0);
    assert_int_equal(st.cpu_ps[MYRI_LANAI_USER], (5 + 3 + 5 + 3) * myri_lanai_cycle_ps(r->l));
    myri_bus_stats bs;
    assert_int_equal(myri_bus_get_stats(r->bus, &bs), MYRI_OK);
    assert_int_equal(bs.bookings[MYRI_BUS_DMA_E2L], 4);
    assert_int_equal(bs.bookings[MYRI_BUS_DMA_L2E], 4);
    assert_int_equal(bs.bytes[MYRI_BUS_DMA_L2E], 1004);
    rig_free(r);
}

/* ---- a PIO read during a DMA burst delays the next burst by its duration ------------------- */

typedef struct pio_host {
    myri_bus *bus;
    myri_time_ps started;
} pio_host;

static void pio_handle(myri_component *self, const myri_event *ev)
{
    pio_host *h = self->state;
    (void)ev;
    h->started = myri_bus_book(h->bus, MYRI_BUS_PIO_READ, myri_sim_now(self->sim),
                               myri_bus_params_of(h->bus)->pio_read_ps, 4);
}
static myri_status pio_create(myri_component *self, const void *cfg)
{
    self->state = (void *)cfg;
    return MYRI_OK;
}
static const myri_component_ops pio_ops = {.type = "piohost", .help = "", .create = pio_create,
                                           .handle = pio_handle};

static void test_pio_delays_dma(void **state)
{
    (void)state;
    for (int with_pio = 0; with_pio < 2; with_pio++) {
        rig *r = rig_new(&dma_ops);
        r->f.count = 1024;
        r->f.state = 0;
        pio_host h = {.bus = r->bus};
        myri_component *c = NULL;
        assert_int_equal(myri_sim_add(r->sim, &pio_ops, "host0", &h, &c), MYRI_OK);
        myri_time_ps setup = 500000, b = myri_bus_dma_ps(r->bus, 256);
        if (with_pio) {
            myri_event ev = {.target = c, .kind = 1};
            myri_sim_schedule(r->sim, setup + b + 1000, &ev); /* during the second burst */
        }
        assert_int_equal(myri_lanai_start(r->l), MYRI_OK);
        assert_int_equal(myri_sim_run(r->sim, MYRI_TIME_NEVER, 0), MYRI_OK);
        myri_time_ps want = setup + 4 * b + (with_pio ? 1000000 : 0);
        assert_int_equal(r->f.done_ps[0], want);
        if (with_pio) assert_int_equal(h.started, setup + 2 * b); /* at the end of that burst */
        myri_bus_stats bs;
        assert_int_equal(myri_bus_get_stats(r->bus, &bs), MYRI_OK);
        assert_int_equal(bs.wait_ps[MYRI_BUS_DMA_E2L], with_pio ? 1000000 : 0);
        rig_free(r);
    }
}

/* ---- interrupts, punt, the interrupt timer ------------------------------------------------- */

static uint32_t irq_step(void *fwp, myri_lanai *l, myri_lanai_ctx ctx)
{
    fw *f = fwp;
    if (ctx == MYRI_LANAI_SYSTEM) {
        if (f->state == 0) { /* reset: unmask, then punt into user context */
            myri_lanai_write(l, MYRI_LANAI_IMR, MYRI_LANAI_HOST_SIG | MYRI_LANAI_TIME_INT);
            f->state = 1;
            return 0;
        }
        f->sys_calls++;
        uint32_t isr = myri_lanai_read(l, MYRI_LANAI_ISR);
        if (isr & (MYRI_LANAI_HOST_SIG | MYRI_LANAI_TIME_INT)) {
            assert_true(f->nsys < 8);
            f->sys_at[f->nsys] = myri_lanai_now(l);
            f->sys_isr[f->nsys++] = isr;
            myri_lanai_write(l, MYRI_LANAI_ISR, isr & (MYRI_LANAI_HOST_SIG | MYRI_LANAI_TIME_INT));
            f->sys_steps++;
            return 20;
        }
        return 0; /* punt: back to user context */
    }
    assert_int_equal(myri_lanai_context(l), MYRI_LANAI_USER);
    if (f->user_steps == 0) myri_lanai_write(l, MYRI_LANAI_IT, 30); /* TIME_INT after 30 ticks = 15 us */
    if (f->user_steps >= 1000) return 0;
    f->user_steps++;
    return 100;
}
static const myri_lanai_cpu_ops irq_ops = {irq_step};

typedef struct sig_host {
    myri_lanai *l;
} sig_host;
static void sig_handle(myri_component *self, const myri_event *ev)
{
    sig_host *h = self->state;
    if (ev->kind == 1) myri_lanai_host_signal(h->l);
}
static const myri_component_ops sig_ops = {.type = "sighost", .help = "", .create = pio_create,
                                           .handle = sig_handle};

static void test_interrupts(void **state)
{
    (void)state;
    rig *r = rig_new(&irq_ops);
    sig_host h = {.l = r->l};
    myri_component *c = NULL;
    assert_int_equal(myri_sim_add(r->sim, &sig_ops, "host0", &h, &c), MYRI_OK);
    myri_event ev = {.target = c, .kind = 1};
    myri_sim_schedule(r->sim, 40 * MYRI_PS_PER_US + 7, &ev);
    assert_int_equal(myri_lanai_start(r->l), MYRI_OK);
    assert_int_equal(myri_sim_run(r->sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    myri_time_ps cyc = myri_lanai_cycle_ps(r->l), step = 100 * cyc;
    assert_int_equal(r->f.nsys, 2);
    /* the timer: 15 us after the first user step; the interrupt at the next step boundary */
    myri_time_ps t_it = 15 * MYRI_PS_PER_US;
    myri_time_ps b1 = (t_it + step - 1) / step * step;
    assert_int_equal(r->f.sys_at[0], b1);
    assert_true(r->f.sys_isr[0] & MYRI_LANAI_TIME_INT);
    /* HOST_SIG: the user steps are shifted by the handler's 20 cycles */
    myri_time_ps t_sig = 40 * MYRI_PS_PER_US + 7, base = b1 + 20 * cyc;
    myri_time_ps b2 = base + (t_sig - base + step - 1) / step * step;
    assert_int_equal(r->f.sys_at[1], b2);
    assert_true(r->f.sys_isr[1] & MYRI_LANAI_HOST_SIG);
    assert_int_equal(myri_lanai_read(r->l, MYRI_LANAI_ISR), 0);
    myri_lanai_stats st;
    assert_int_equal(myri_lanai_get_stats(r->l, &st), MYRI_OK);
    assert_int_equal(st.interrupts, 2);
    assert_int_equal(st.cpu_ps[MYRI_LANAI_SYSTEM], 2 * 20 * cyc);
    assert_int_equal(st.cpu_ps[MYRI_LANAI_USER], 1000 * step);
    assert_int_equal(r->f.user_steps, 1000);
    assert_int_equal(myri_lanai_context(r->l), MYRI_LANAI_USER); /* punt returned */
    rig_free(r);
}

/* ---- idle and wake: one pending CPU event whatever the wakes ---------------------------------- */

static uint32_t idle_step(void *fwp, myri_lanai *l, myri_lanai_ctx ctx)
{
    fw *f = fwp;
    if (ctx == MYRI_LANAI_USER) {
        assert_true(f->nuser < 16);
        f->user_at[f->nuser++] = myri_lanai_now(l);
    }
    return 0;
}
static const myri_lanai_cpu_ops idle_ops = {idle_step};

static void test_idle_wake(void **state)
{
    (void)state;
    rig *r = rig_new(&idle_ops);
    assert_int_equal(myri_lanai_start(r->l), MYRI_OK);
    assert_int_equal(myri_sim_run(r->sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    assert_int_equal(r->f.nuser, 1); /* the first punt, then idle */
    size_t before = myri_sim_pending(r->sim);
    myri_lanai_wake(r->l, 5 * MYRI_PS_PER_US);
    myri_lanai_wake(r->l, 3 * MYRI_PS_PER_US); /* earlier: moves the one event */
    myri_lanai_wake(r->l, 7 * MYRI_PS_PER_US); /* later: nothing */
    assert_int_equal(myri_sim_pending(r->sim), before + 1);
    assert_int_equal(myri_sim_run(r->sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    assert_int_equal(r->f.nuser, 2);
    assert_int_equal(r->f.user_at[1], 3 * MYRI_PS_PER_US);
    /* a host write into SRAM wakes it at once */
    uint32_t word = 0x12345678;
    assert_int_equal(myri_lanai_host_write(r->l, 0x100, &word, 4), MYRI_OK);
    assert_int_equal(myri_lanai_host_write(r->l, 0x104, &word, 4), MYRI_OK);
    assert_int_equal(myri_sim_pending(r->sim), before + 1);
    assert_int_equal(myri_sim_run(r->sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    assert_int_equal(r->f.nuser, 3);
    uint32_t back = 0;
    assert_int_equal(myri_lanai_host_read(r->l, 0x104, &back, 4), MYRI_OK);
    assert_int_equal(back, word);
    rig_free(r);
}

/* ---- misuse: faults counted, error codes, no crash ------------------------------------------- */

static void test_misuse(void **state)
{
    (void)state;
    rig *r = rig_new(&idle_ops);
    assert_int_equal(myri_lanai_start(r->l), MYRI_OK);
    myri_lanai *l = r->l;
    uint64_t want = 0;
    myri_lanai_stats st;
#define FAULTS(n)                                                                                  \
    do {                                                                                           \
        want += (n);                                                                               \
        assert_int_equal(myri_lanai_get_stats(l, &st), MYRI_OK);                                   \
        assert_int_equal(st.faults, want);                                                         \
    } while (0)
    assert_int_equal(myri_lanai_read(l, 0x3), 0);
    assert_int_equal(myri_lanai_write(l, 0x200, 1), MYRI_EINVAL);
    FAULTS(2);
    /* host DMA outside SRAM, outside host memory, misaligned, bad direction */
    myri_lanai_write(l, MYRI_LANAI_LAR, (1 << 20) - 8);
    myri_lanai_write(l, MYRI_LANAI_EAR, 0);
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_DMA_CTR, 16), MYRI_ERANGE);
    myri_lanai_write(l, MYRI_LANAI_LAR, 0);
    myri_lanai_write(l, MYRI_LANAI_EAR, HMEM - 4);
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_DMA_CTR, 5), MYRI_ERANGE);
    myri_lanai_write(l, MYRI_LANAI_EAR, 2);
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_DMA_CTR, 4), MYRI_ERANGE);
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_DMA_DIR, 7), MYRI_EINVAL);
    FAULTS(4);
    /* engine busy: a second start, and its live registers */
    myri_lanai_write(l, MYRI_LANAI_EAR, 0);
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_DMA_CTR, 64), MYRI_OK);
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_DMA_CTR, 64), MYRI_ESTATE);
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_LAR, 64), MYRI_ESTATE);
    FAULTS(2);
    /* send without a port; 0xa0 (a simulator-only register until issue 22) is unknown; receive without a port; bad windows */
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_SB, 0x81), MYRI_ESTATE); /* no port */
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_SA, 4), MYRI_ERANGE);
    assert_int_equal(myri_lanai_write(l, 0xa0, 16), MYRI_EINVAL);
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_ST, 0x81), MYRI_ESTATE); /* no port */
    myri_lanai_write(l, MYRI_LANAI_SMP, 0);
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_SML, (2 << 20)), MYRI_ERANGE);
    myri_lanai_write(l, MYRI_LANAI_RMP, 0x100);
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_RML, 0x100), MYRI_ERANGE);
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_RML, 0x200), MYRI_ESTATE); /* no port */
    FAULTS(7);
    /* host side and API misuse: errors, no faults */
    uint8_t buf[8];
    assert_int_equal(myri_lanai_host_read(l, (1 << 20) - 4, buf, 8), MYRI_ERANGE);
    assert_int_equal(myri_lanai_host_write(l, 1u << 31, buf, 1), MYRI_ERANGE);
    assert_null(myri_lanai_sram(l, (1 << 20) - 1, 2));
    assert_non_null(myri_lanai_sram(l, (1 << 20) - 1, 1));
    assert_int_equal(myri_lanai_set_host_mem(l, r->hmem, 16), MYRI_ESTATE); /* DMA running */
    assert_int_equal(myri_lanai_set_cpu(l, NULL, NULL), MYRI_EINVAL);
    assert_int_equal(myri_lanai_add_trace(l, tracer, r), MYRI_OK);
    assert_int_equal(myri_lanai_add_trace(l, tracer, r), MYRI_OK);
    assert_int_equal(myri_lanai_add_trace(l, tracer, r), MYRI_OK);
    assert_int_equal(myri_lanai_add_trace(l, tracer, r), MYRI_EFULL);
    FAULTS(0);
    myri_lanai_params bad = nic_params();
    bad.rtc_tick_ps = 0;
    myri_lanai *x = NULL;
    assert_int_equal(myri_lanai_create(r->sim, "bad", &bad, r->bus, NULL, &x), MYRI_EINVAL);
    assert_null(x);
    bad = nic_params();
    assert_int_equal(myri_lanai_create(r->sim, "bad", &bad, NULL, NULL, &x), MYRI_EINVAL);
    assert_int_equal(myri_lanai_get_stats(NULL, &st), MYRI_EINVAL);
    assert_int_equal(myri_lanai_read(NULL, MYRI_LANAI_ISR), 0);
    /* the run still completes: the DMA that started ends with DMA_INT */
    assert_int_equal(myri_sim_run(r->sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    assert_true(myri_lanai_read(l, MYRI_LANAI_ISR) & MYRI_LANAI_DMA_INT);
    rig_free(r);
#undef FAULTS
}

/* ---- parameter table ---------------------------------------------------------------------- */

/* ---- statistics taken mid-way count only up to then (issue 23, item 5) ------------------ */

/* One step of 1000 cycles that starts a host DMA of 1004 bytes. */
static uint32_t long_step(void *fwp, myri_lanai *l, myri_lanai_ctx ctx)
{
    fw *f = fwp;
    if (ctx == MYRI_LANAI_SYSTEM || f->state) return 0;
    myri_lanai_write(l, MYRI_LANAI_EAR, 0x100);
    myri_lanai_write(l, MYRI_LANAI_LAR, 0x2000);
    myri_lanai_write(l, MYRI_LANAI_DMA_DIR, MYRI_LANAI_DIR_E2L);
    myri_lanai_write(l, MYRI_LANAI_DMA_CTR, 1004);
    f->state = 1;
    return 1000;
}
static const myri_lanai_cpu_ops long_ops = {long_step};

static void test_stats_up_to_now(void **state)
{
    (void)state;
    rig *r = rig_new(&long_ops);
    assert_int_equal(myri_lanai_start(r->l), MYRI_OK);
    /* at 1.5 us: the step (1000 cycles, about 30 us) is charged at its start, the first
     * burst (booked at the 0.5 us setup's end for 256 B at 120 MB/s, 2.13 us) too */
    const myri_time_ps t = 1500000;
    assert_int_equal(myri_sim_run(r->sim, t, 0), MYRI_OK);
    assert_int_equal(myri_sim_now(r->sim), t);
    myri_lanai_stats st;
    assert_int_equal(myri_lanai_get_stats(r->l, &st), MYRI_OK);
    assert_int_equal(st.elapsed_ps, t);
    assert_int_equal(st.cpu_ps[MYRI_LANAI_USER] + st.cpu_ps[MYRI_LANAI_SYSTEM], t);
    myri_bus_stats bs;
    assert_int_equal(myri_bus_get_stats(r->bus, &bs), MYRI_OK);
    assert_int_equal(bs.busy_ps[MYRI_BUS_DMA_E2L], t - 500000);
    assert_int_equal(bs.bookings[MYRI_BUS_DMA_E2L], 1);
    /* the same bookings taken at a later time, and at the end of everything */
    assert_int_equal(myri_bus_get_stats_at(r->bus, t + 100000, &bs), MYRI_OK);
    assert_int_equal(bs.busy_ps[MYRI_BUS_DMA_E2L], t + 100000 - 500000);
    assert_int_equal(myri_bus_get_stats_at(r->bus, 0, &bs), MYRI_EINVAL); /* before the booking was asked */
    assert_int_equal(myri_sim_run(r->sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    myri_time_ps end = myri_sim_now(r->sim);
    assert_int_equal(myri_lanai_get_stats(r->l, &st), MYRI_OK);
    assert_int_equal(st.cpu_ps[MYRI_LANAI_USER], 1000 * myri_lanai_cycle_ps(r->l));
    assert_true(st.cpu_ps[MYRI_LANAI_USER] <= st.elapsed_ps && st.elapsed_ps == end);
    assert_int_equal(myri_bus_get_stats(r->bus, &bs), MYRI_OK);
    assert_int_equal(bs.busy_ps[MYRI_BUS_DMA_E2L], 3 * myri_bus_dma_ps(r->bus, 256) + myri_bus_dma_ps(r->bus, 236));
    rig_free(r);
}

static void test_params(void **state)
{
    (void)state;
    myri_lanai_params p;
    memset(&p, 0, sizeof p);
    myri_pset set = {"nic", myri_lanai_param_table, myri_lanai_nparams, &p};
    myri_error err;
    assert_int_equal(myri_params_load(&set, 1, NULL, NULL, &err), MYRI_OK);
    assert_int_equal(p.sram_bytes, 1 << 20);
    assert_true(p.clock_hz == 33e6);
    assert_int_equal(p.rtc_tick_ps, 500000);
    for (size_t i = 0; i < myri_lanai_nparams; i++) {
        const char *h = myri_lanai_param_table[i].help;
        assert_true(strstr(h, "assumption") || strstr(h, "myrinet-facts") || strstr(h, "seed"));
        assert_null(strstr(myri_lanai_param_table[i].name, "type_bytes"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_dma_timing), cmocka_unit_test(test_pio_delays_dma),
        cmocka_unit_test(test_interrupts),      cmocka_unit_test(test_idle_wake),
        cmocka_unit_test(test_misuse),          cmocka_unit_test(test_params),
        cmocka_unit_test(test_stats_up_to_now),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
