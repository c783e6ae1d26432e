/* test_host.c -- the simulated host (src/host/host.c) on the real LANai model
 * and bus (src/nic/), with a tiny test firmware written here (not the MCP):
 * it builds the HCB, answers the handshake, takes send queue entries (PIO
 * buffer, or host DMA from the DMA region), hands each frame straight to a
 * peer board's receive ring (no network: a wire of zero length and time),
 * and delivers received frames into the receive channel's slot by host DMA,
 * then the poll word with DMA notification.
 *
 * Covers: parameter defaults; PIO costs on the bus; programs sleeping in
 * simulated time; several programs sharing a board (first user loads);
 * myri_prog_recv_wait's fast-forward giving the same times as a plain poll
 * loop; the built-in programs pingpong, latency, stream and traffic end to
 * end with every byte checked; misuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/hcb.h"
#include "common/lanai_regs.h"
#include "host/host.h"
#include "myri/api0.h"
#include "myri/proc.h"
#include "myri/prog.h"

#define US 1000000ull

/* ---- the test firmware ------------------------------------------------------------- */
enum { HCB = 0x1000, STAGE = 0x40000, RING = 0x50000, RING_N = 8, RING_BUF = 8448 };

typedef struct tfw {
    myri_lanai *l;
    struct tfw *peer;
    myri_hcb_geom g;
    uint32_t flags;
    bool built;
    int op;                  /* host DMA in flight: 1 send payload, 2 slot, 3 poll word */
    uint32_t len, chan;      /* the frame being sent */
    uint32_t rx_head, rx_tail;
    uint32_t drops;
    int loads;
} tfw;

static uint32_t trd(tfw *f, uint32_t a) { return myri_be32_get(myri_lanai_sram(f->l, a, 4)); }
static void twr(tfw *f, uint32_t a, uint32_t v) { myri_be32_put(myri_lanai_sram(f->l, a, 4), v); }
static uint32_t tsq(tfw *f) { return HCB + myri_hcb_sendq_off(&f->g); }

static void tfw_build(tfw *f)
{
    myri_hcb_geom *g = &f->g;
    memset(myri_lanai_sram(f->l, HCB, myri_hcb_bytes(g)), 0, myri_hcb_bytes(g));
    twr(f, HCB + MYRI_HCB_SIG_START_OFF, MYRI_HCB_SIG_START);
    twr(f, HCB + MYRI_HCB_BYTES_OFF, myri_hcb_bytes(g));
    twr(f, HCB + MYRI_HCB_NCHAN_OFF, g->nchan);
    twr(f, HCB + MYRI_HCB_SEND_Q_OFF, g->send_q);
    twr(f, HCB + MYRI_HCB_RECV_Q_OFF, g->recv_q);
    twr(f, HCB + MYRI_HCB_NROUTES_OFF, g->nroutes);
    twr(f, HCB + MYRI_HCB_ROUTE_MAX_OFF, g->route_max);
    twr(f, HCB + MYRI_HCB_PIO_BYTES_OFF, g->pio_bytes);
    twr(f, HCB + MYRI_HCB_MTU_OFF, g->mtu);
    twr(f, HCB + MYRI_HCB_FLAGS_OFF, f->flags);
    twr(f, HCB + myri_hcb_sig_mid_off(g), MYRI_HCB_SIG_MID);
    twr(f, HCB + myri_hcb_sig_end_off(g), MYRI_HCB_SIG_END);
    twr(f, HCB + MYRI_HCB_STATE_OFF, MYRI_HCB_STATE_READY);
    twr(f, MYRI_LANAI_HCB_PTR_ADDR, HCB);
    f->built = true;
}

static void tfw_dma(tfw *f, uint32_t dir, uint32_t host, uint32_t sram, uint32_t n, int op)
{
    myri_lanai_write(f->l, MYRI_LANAI_EAR, host);
    myri_lanai_write(f->l, MYRI_LANAI_LAR, sram);
    myri_lanai_write(f->l, MYRI_LANAI_DMA_DIR, dir);
    assert_int_equal(myri_lanai_write(f->l, MYRI_LANAI_DMA_CTR, n), MYRI_OK);
    f->op = op;
}

/* The frame in STAGE (len payload bytes for channel chan) goes to the peer's ring. */
static void tfw_transmit(tfw *f, const uint8_t *payload, uint32_t len, uint32_t chan)
{
    tfw *p = f->peer;
    if (p->rx_tail - p->rx_head == RING_N) {
        p->drops++;
    } else {
        uint32_t at = RING + (p->rx_tail % RING_N) * RING_BUF;
        uint8_t *b = myri_lanai_sram(p->l, at, RING_BUF);
        myri_be32_put(b + MYRI_SLOT_LEN, len);
        b[MYRI_SLOT_HDR] = 0x03;
        b[MYRI_SLOT_HDR + 1] = 0x70;
        b[MYRI_SLOT_HDR + 2] = MYRI_FRAME_SUBTYPE_API0_DATA;
        b[MYRI_SLOT_HDR + 3] = (uint8_t)chan;
        memcpy(b + MYRI_SLOT_PAYLOAD, payload, len);
        p->rx_tail++;
        myri_lanai_wake(p->l, myri_lanai_now(p->l));
    }
    twr(f, tsq(f) + MYRI_HCB_SQ_SENT, trd(f, tsq(f) + MYRI_HCB_SQ_SENT) + 1);
}

static uint32_t tfw_dma_done(tfw *f)
{
    if (!(myri_lanai_read(f->l, MYRI_LANAI_ISR) & MYRI_LANAI_DMA_INT)) return 0;
    myri_lanai_write(f->l, MYRI_LANAI_ISR, MYRI_LANAI_DMA_INT);
    int op = f->op;
    f->op = 0;
    if (op == 1) {
        tfw_transmit(f, myri_lanai_sram(f->l, STAGE, f->len), f->len, f->chan);
    } else if (op == 2) {
        uint32_t rc = HCB + myri_hcb_rchan_off(&f->g, f->chan);
        uint32_t put = trd(f, rc + MYRI_HCB_RC_PUT) + 1;
        twr(f, rc + MYRI_HCB_RC_PUT, put);
        f->rx_head++;
        if (f->flags & MYRI_HCB_F_DMA_NOTIFY) {
            twr(f, STAGE - 16, put);
            tfw_dma(f, MYRI_LANAI_DIR_L2E, trd(f, rc + MYRI_HCB_RC_POLL_ADDR), STAGE - 16, 4, 3);
        }
    }
    return 20;
}

/* Delivers the ring's oldest frame into its channel if there is room. */
static uint32_t tfw_rx(tfw *f)
{
    uint32_t at = RING + (f->rx_head % RING_N) * RING_BUF;
    uint8_t *b = myri_lanai_sram(f->l, at, RING_BUF);
    uint32_t chan = b[MYRI_SLOT_HDR + 3], len = myri_be32_get(b + MYRI_SLOT_LEN);
    uint32_t rc = HCB + myri_hcb_rchan_off(&f->g, chan);
    if (chan >= f->g.nchan || !trd(f, rc + MYRI_HCB_RC_ENABLED)) {
        f->rx_head++; /* dropped */
        f->drops++;
        return 10;
    }
    uint32_t put = trd(f, rc + MYRI_HCB_RC_PUT), freed = trd(f, rc + MYRI_HCB_RC_FREED);
    if (put - freed >= f->g.recv_q - 1) return 0; /* held until the host frees a slot */
    uint32_t slot = trd(f, rc + MYRI_HCB_RC_HOST_ADDR) + (put % f->g.recv_q) * trd(f, rc + MYRI_HCB_RC_SLOT_BYTES);
    f->chan = chan;
    tfw_dma(f, MYRI_LANAI_DIR_L2E, slot, at, MYRI_SLOT_PAYLOAD + len, 2);
    return 30;
}

static uint32_t tfw_tx(tfw *f)
{
    uint32_t head = trd(f, tsq(f) + MYRI_HCB_SQ_HEAD), e = HCB + myri_hcb_sentry_off(&f->g, head);
    f->len = trd(f, e + MYRI_HCB_SE_LEN);
    f->chan = trd(f, e + MYRI_HCB_SE_CHAN) & 0xffff;
    uint32_t flags = trd(f, e + MYRI_HCB_SE_CHAN) >> 16;
    twr(f, tsq(f) + MYRI_HCB_SQ_HEAD, (head + 1) % f->g.send_q);
    if (flags & MYRI_HCB_SE_F_PIO) {
        tfw_transmit(f, myri_lanai_sram(f->l, HCB + myri_hcb_pio_off(&f->g, head), f->len), f->len, f->chan);
        return 40;
    }
    tfw_dma(f, MYRI_LANAI_DIR_E2L, trd(f, e + MYRI_HCB_SE_ADDR), STAGE, f->len ? f->len : 4, 1);
    return 40;
}

static uint32_t tfw_step(void *fwp, myri_lanai *l, myri_lanai_ctx ctx)
{
    tfw *f = fwp;
    (void)l;
    if (ctx == MYRI_LANAI_SYSTEM) return 0;
    if (!f->built) {
        tfw_build(f);
        return 200;
    }
    if (trd(f, HCB + MYRI_HCB_HANDSHAKE_OFF) != trd(f, HCB + MYRI_HCB_HANDSHAKE_ACK_OFF)) {
        twr(f, HCB + MYRI_HCB_HANDSHAKE_ACK_OFF, trd(f, HCB + MYRI_HCB_HANDSHAKE_OFF));
        return 10;
    }
    if (f->op) return tfw_dma_done(f);
    uint32_t c;
    if (f->rx_head != f->rx_tail && (c = tfw_rx(f)) > 0) return c;
    if (trd(f, tsq(f) + MYRI_HCB_SQ_HEAD) != trd(f, tsq(f) + MYRI_HCB_SQ_TAIL)) return tfw_tx(f);
    return 0;
}
static const myri_lanai_cpu_ops tfw_ops = {tfw_step};

/* ---- the rig: n hosts (1 or 2), each with one board ------------------------------------ */
typedef struct rig {
    myri_sim *sim;
    myri_bus *bus[2];
    myri_lanai *l[2];
    tfw f[2];
    myri_host *h[2];
    int n;
    int exits;            /* env.exit calls */
    myri_time_ps exit_ps; /* the last program's end time as the hook saw it */
} rig;

static void on_exit_hook(void *ctx, const myri_program *p)
{
    rig *r = ctx;
    r->exits++;
    assert_true(myri_program_done(p));
    r->exit_ps = myri_program_end_ps(p);
}

static int route0(void *ctx, uint32_t from, uint32_t to, uint8_t *bytes, int max)
{
    (void)ctx;
    (void)from;
    (void)to;
    (void)bytes;
    (void)max;
    return 0; /* back to back: no route bytes */
}

static myri_status loader(void *ctx, int unit, const char *name)
{
    tfw *f = ctx;
    if (unit != 0 || strcmp(name, "tfw") != 0) return MYRI_ENOTFOUND;
    f->loads++;
    f->built = false;
    f->op = 0;
    memset(myri_lanai_sram(f->l, 0, 16), 0, 16);
    return myri_lanai_start(f->l);
}

static rig *rig_new(int n, uint32_t flags, bool started)
{
    rig *r = calloc(1, sizeof *r);
    r->n = n;
    r->sim = myri_sim_create(7);
    myri_host_params hp;
    myri_host_params_default(&hp);
    hp.dma_bytes = 1 << 20;
    myri_host_env env = {.nhosts = (uint32_t)n, .route = route0, .ctx = r, .exit = on_exit_hook};
    for (int i = 0; i < n; i++) {
        myri_bus_params bp = {.dma_rate_Bps = 120e6, .burst_bytes = 256, .dma_setup_ps = 500000,
                              .pio_read_ps = 1000000, .pio_write_ps = 120000};
        r->bus[i] = myri_bus_create(&bp);
        myri_lanai_params np = {.sram_bytes = 1 << 20, .clock_hz = 33e6, .rtc_tick_ps = 500000, .type_bytes = 4};
        char name[16];
        snprintf(name, sizeof name, "nic%d", i);
        assert_int_equal(myri_lanai_create(r->sim, name, &np, r->bus[i], NULL, &r->l[i]), MYRI_OK);
        r->f[i] = (tfw){.l = r->l[i], .flags = flags,
                        .g = {.nchan = 4, .send_q = 8, .recv_q = 8, .nroutes = 8, .route_max = 8, .pio_bytes = 64,
                              .mtu = 8192}};
        assert_int_equal(myri_lanai_set_cpu(r->l[i], &tfw_ops, &r->f[i]), MYRI_OK);
        if (started) assert_int_equal(myri_lanai_start(r->l[i]), MYRI_OK);
        snprintf(name, sizeof name, "host%d", i);
        assert_int_equal(myri_host_create(r->sim, name, (uint32_t)i, &hp, &env, &r->h[i]), MYRI_OK);
        assert_int_equal(myri_host_add_board(r->h[i], 0, r->l[i], r->bus[i]), MYRI_OK);
        assert_int_equal(myri_host_set_mcp_loader(r->h[i], loader, &r->f[i]), MYRI_OK);
    }
    for (int i = 0; i < n; i++) r->f[i].peer = &r->f[n == 2 ? 1 - i : i];
    return r;
}

/* The LANai goes before the simulation (lanai.h); the host never touches its
 * LANai when the simulation frees it. */
static void rig_free(rig *r)
{
    for (int i = 0; i < r->n; i++) myri_lanai_destroy(r->l[i]);
    myri_sim_destroy(r->sim);
    for (int i = 0; i < r->n; i++) myri_bus_destroy(r->bus[i]);
    free(r);
}

static double rep(myri_program *p, const char *key)
{
    double v = -1;
    assert_int_equal(myri_program_report_get(p, key, &v), MYRI_OK);
    return v;
}

/* ---- tests ---------------------------------------------------------------------------- */

static void test_defaults(void **state)
{
    (void)state;
    myri_host_params p;
    myri_host_params_default(&p);
    assert_int_equal(p.api_call_ps, 300000);
    assert_int_equal(p.dma_bytes, 4u << 20);
    assert_true(p.copy_Bps > 0);
    for (size_t i = 0; i < myri_host_nparams; i++) {
        const char *h = myri_host_param_table[i].help;
        assert_true(strstr(h, "assumption") || strstr(h, "seed") || strstr(h, "myrinet-facts"));
    }
}

/* A program measures its own API calls: num_pending = one call + one PIO read. */
static int prog_costs(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    if (myri_api0_init(0, 0, 0, "tfw") != 0) return 3;
    uint64_t t0 = myri_prog_now_ps();
    if (myri_api0_num_pending(0) != 0) return 4;
    myri_prog_report("num_pending_ps", (double)(myri_prog_now_ps() - t0));
    t0 = myri_prog_now_ps();
    if (myri_api0_get_chan(0, 1) != 1) return 5;
    myri_prog_report("get_chan_ps", (double)(myri_prog_now_ps() - t0));
    t0 = myri_prog_now_ps();
    myri_prog_sleep_us(3);
    myri_prog_compute_us(2);
    myri_prog_copy_cost(2000); /* 10 us at 200 MB/s */
    myri_prog_report("sleep_compute_copy_ps", (double)(myri_prog_now_ps() - t0));
    myri_prog_report("host", myri_prog_host());
    myri_prog_report("nhosts", myri_prog_nhosts());
    return 0;
}

static void test_pio_costs(void **state)
{
    (void)state;
    rig *r = rig_new(1, 0, false);
    myri_program *p;
    assert_int_equal(myri_host_run(r->h[0], "costs", prog_costs, 0, NULL, 0, &p), MYRI_OK);
    myri_sim_run(r->sim, 1000 * US, 0);
    assert_true(myri_program_done(p));
    assert_int_equal(myri_program_exit_code(p), 0);
    assert_int_equal(r->f[0].loads, 1);
    assert_true(rep(p, "num_pending_ps") == 300000 + 1000000); /* call + one PIO read on an idle bus */
    assert_true(rep(p, "get_chan_ps") == 300000);
    assert_true(rep(p, "sleep_compute_copy_ps") == 15000000);
    assert_true(rep(p, "host") == 0 && rep(p, "nhosts") == 1);
    assert_int_equal(r->exits, 1);
    assert_true(r->exit_ps > 0 && r->exit_ps == myri_program_end_ps(p));
    myri_bus_stats bs;
    assert_int_equal(myri_bus_get_stats(r->bus[0], &bs), MYRI_OK);
    myri_host_stats hs;
    assert_int_equal(myri_host_get_stats(r->h[0], &hs), MYRI_OK);
    assert_int_equal(bs.bookings[MYRI_BUS_PIO_READ], hs.pio_reads);
    assert_int_equal(bs.bookings[MYRI_BUS_PIO_WRITE], hs.pio_writes);
    assert_true(hs.pio_reads > 5 && hs.pio_writes > 5);
    rig_free(r);
}

enum { PW_ADDR_LAZY = 0x80000 };
/* CPU time is slept lazily (HOST.md, "CPU time slept lazily"): ten calls
 * of 1 us of CPU time with nothing observed between them cost the engine
 * what one call of 10 us costs, and the program's clock, its PIO write's
 * booking and its end are where they were; with two programs on the host
 * each call is slept at once (they share the API's segment). */
static int cpu_then_pio(int calls, double us_each)
{
    uint64_t t0 = myri_prog_now_ps();
    for (int i = 0; i < calls; i++) myri_prog_compute_us(us_each);
    myri_prog_report("clock_ps", (double)(myri_prog_now_ps() - t0));
    myri_hostif *hi = myri_hostif_current();
    uint32_t v = 0;
    if (hi->ops->pio_write(hi->h, 0, PW_ADDR_LAZY, &v, 4) != MYRI_OK) return 3;
    myri_prog_compute_us(0.5);
    return 0;
}
static int prog_cpu_split(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cpu_then_pio(10, 1);
}
static int prog_cpu_whole(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cpu_then_pio(1, 10);
}
static int prog_ticker(int argc, char **argv) /* another agent that keeps the engine busy */
{
    (void)argc;
    (void)argv;
    for (int i = 0; i < 100; i++) myri_prog_sleep_us(0.25);
    return 0;
}

/* Runs prog on host 0 beside the ticker (on host 0 too, or on host 1): its
 * report, end, PIO-write bus time and the engine's events. */
static void lazy_run(myri_prog_main prog, bool same_host, double *clock_ps, uint64_t *end_ps, uint64_t *bus_ps,
                     uint64_t *events)
{
    rig *r = rig_new(2, 0, false);
    myri_program *p, *q;
    assert_int_equal(myri_host_run(r->h[0], "cpu", prog, 0, NULL, 0, &p), MYRI_OK);
    assert_int_equal(myri_host_run(r->h[same_host ? 0 : 1], "ticker", prog_ticker, 0, NULL, 0, &q), MYRI_OK);
    myri_sim_run(r->sim, 1000 * US, 0);
    assert_true(myri_program_done(p) && myri_program_done(q));
    assert_int_equal(myri_program_exit_code(p), 0);
    *clock_ps = rep(p, "clock_ps");
    *end_ps = myri_program_end_ps(p);
    myri_bus_stats bs;
    assert_int_equal(myri_bus_get_stats(r->bus[0], &bs), MYRI_OK);
    *bus_ps = bs.busy_ps[MYRI_BUS_PIO_WRITE];
    *events = myri_sim_events(r->sim);
    rig_free(r);
}

static void test_cpu_time_lazy(void **state)
{
    (void)state;
    double c1, c2, c3;
    uint64_t e1, e2, e3, b1, b2, b3, n1, n2, n3;
    lazy_run(prog_cpu_split, false, &c1, &e1, &b1, &n1);
    lazy_run(prog_cpu_whole, false, &c2, &e2, &b2, &n2);
    assert_true(c1 == 10 * 1e6 && c2 == c1);
    assert_int_equal(e1, e2); /* the same end: 10 us + the write + 0.5 us */
    assert_true(e1 > 10 * US + 500000);
    assert_true(b1 > 0 && b1 == b2);
    assert_int_equal(n1, n2); /* ten calls of 1 us cost the events of one of 10 us */
    lazy_run(prog_cpu_split, true, &c3, &e3, &b3, &n3);
    assert_true(c3 == c1);
    assert_int_equal(e3, e1);
    assert_int_equal(b3, b1);
    assert_true(n3 >= n1 + 9); /* two programs on the host: each call slept at once */
}

/* Posted, merged PIO writes (bus.pio_posted 6, bus.pio_merge 32 B, HOST.md):
 * 256 aligned bytes are 8 bursts of 330 ns; the CPU posts 6 and waits only
 * for the first two to end; the bytes land as each burst ends. */
enum { PW_ADDR = 0x80000 };
static int prog_posted(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    myri_hostif *hi = myri_hostif_current();
    uint8_t buf[256];
    for (int i = 0; i < 256; i++) buf[i] = (uint8_t)(i + 1);
    uint64_t t0 = myri_prog_now_ps();
    if (hi->ops->pio_write(hi->h, 0, PW_ADDR, buf, sizeof buf) != MYRI_OK) return 3;
    myri_prog_report("post_ps", (double)(myri_prog_now_ps() - t0));
    return 0;
}

static void test_posted_writes(void **state)
{
    (void)state;
    rig *r = rig_new(1, 0, false);
    myri_bus_destroy(r->bus[0]);
    myri_bus_params bp = {.dma_rate_Bps = 120e6, .burst_bytes = 256, .dma_setup_ps = 500000, .pio_read_ps = 1000000,
                          .pio_write_ps = 120000, .pio_word_ps = 30000, .pio_merge_bytes = 32, .pio_posted = 6};
    r->bus[0] = myri_bus_create(&bp);
    /* a fresh simulation, NIC and host on the posting bus */
    myri_lanai_destroy(r->l[0]);
    myri_sim_destroy(r->sim);
    r->sim = myri_sim_create(7);
    myri_lanai_params np = {.sram_bytes = 1 << 20, .clock_hz = 33e6, .rtc_tick_ps = 500000, .type_bytes = 4};
    assert_int_equal(myri_lanai_create(r->sim, "nic0", &np, r->bus[0], NULL, &r->l[0]), MYRI_OK);
    myri_host_params hp;
    myri_host_params_default(&hp);
    hp.dma_bytes = 1 << 20;
    assert_int_equal(myri_host_create(r->sim, "host0", 0, &hp, NULL, &r->h[0]), MYRI_OK);
    assert_int_equal(myri_host_add_board(r->h[0], 0, r->l[0], r->bus[0]), MYRI_OK);
    myri_program *p;
    assert_int_equal(myri_host_run(r->h[0], "posted", prog_posted, 0, NULL, 0, &p), MYRI_OK);
    const uint8_t *sram = myri_lanai_sram(r->l[0], PW_ADDR, 256);
    myri_sim_run(r->sim, 330000 - 1, 0);
    assert_int_equal(sram[0], 0); /* the first burst is still on the bus */
    myri_sim_run(r->sim, 330000, 0);
    assert_int_equal(sram[31], 32);
    assert_int_equal(sram[32], 0);
    myri_sim_run(r->sim, 8 * 330000 - 1, 0);
    assert_int_equal(sram[224], 0);
    myri_sim_run(r->sim, 8 * 330000, 0);
    assert_int_equal(sram[224], 225);
    assert_int_equal(sram[254], 255);
    assert_true(myri_program_done(p));
    assert_true(rep(p, "post_ps") == 2 * 330000); /* waited for two entries of the write buffer */
    myri_bus_stats bs;
    assert_int_equal(myri_bus_get_stats(r->bus[0], &bs), MYRI_OK);
    assert_int_equal(bs.bookings[MYRI_BUS_PIO_WRITE], 8);
    assert_int_equal(bs.busy_ps[MYRI_BUS_PIO_WRITE], 8 * 330000);
    rig_free(r);
}

/* Two programs on one host: the first loads and initialises, the second
 * attaches; they talk through the board (self loop) on two channels. */
static int prog_share_a(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    if (myri_api0_init(0, 0, 0, "tfw") != 0) return 3;
    if (myri_api0_get_chan(0, 1) != 1 || myri_api0_init_recv_chan(0, 1) != 0) return 4;
    myri_prog_sleep_us(200); /* b is ready by then */
    void *b;
    if (myri_api0_get_send_buffer_l(0, &b) != 0) return 5;
    memcpy(b, "hello, b", 8);
    if (myri_api0_send_route_l(0, 2, b, 8, 0) != 0) return 6;
    if (myri_api0_free_send_l(0, b) != 0) return 7;
    if (myri_prog_recv_wait(0, 1, 1000) != 1) return 8;
    int len;
    if (myri_api0_recv(0, 1, &b, &len) != 0 || len != 3000) return 9;
    for (int i = 0; i < len; i++)
        if (((uint8_t *)b)[i] != (uint8_t)i) return 10;
    return myri_api0_free_recv(0, 1, b) == 0 ? 0 : 11;
}
static int prog_share_b(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    if (myri_api0_init(0, 0, 0, "tfw") != 0) return 3; /* attaches: no second load */
    if (myri_api0_get_chan(0, 1) != MYRI_API0_CHAN_IN_USE) return 4;
    if (myri_api0_get_chan(0, 2) != 2 || myri_api0_init_recv_chan(0, 2) != 0) return 5;
    if (myri_prog_recv_wait(0, 2, 1000) != 1) return 6;
    void *b;
    int len;
    if (myri_api0_recv(0, 2, &b, &len) != 0 || len != 8 || memcmp(b, "hello, b", 8) != 0) return 7;
    myri_api0_free_recv(0, 2, b);
    if (myri_api0_get_send_buffer(0, &b) != 0) return 8;
    for (int i = 0; i < 3000; i++) ((uint8_t *)b)[i] = (uint8_t)i;
    if (myri_api0_send_route(0, 1, b, 3000, 0) != 0) return 9; /* by host DMA */
    myri_api0_free_send(0, b);
    return 0;
}

static void test_two_programs_share_board(void **state)
{
    (void)state;
    rig *r = rig_new(1, MYRI_HCB_F_DMA_NOTIFY, false);
    myri_program *a, *b, *c;
    assert_int_equal(myri_host_run(r->h[0], "a", prog_share_a, 0, NULL, 0, &a), MYRI_OK);
    assert_int_equal(myri_host_run(r->h[0], "b", prog_share_b, 0, NULL, 10 * US, &b), MYRI_OK);
    myri_sim_run(r->sim, 5000 * US, 0);
    assert_int_equal(myri_program_exit_code(a), 0);
    assert_int_equal(myri_program_exit_code(b), 0);
    assert_true(myri_program_done(a) && myri_program_done(b));
    assert_int_equal(r->f[0].loads, 1);
    /* both gone: the next user is first again and loads */
    assert_int_equal(myri_host_run(r->h[0], "c", prog_costs, 0, NULL, myri_sim_now(r->sim), &c), MYRI_OK);
    myri_sim_run(r->sim, 10000 * US, 0);
    assert_int_equal(myri_program_exit_code(c), 0);
    assert_int_equal(r->f[0].loads, 2);
    myri_host_stats hs;
    myri_host_get_stats(r->h[0], &hs);
    assert_true(hs.dma_wakes > 0);
    rig_free(r);
}

/* recv_wait's fast-forward and a plain poll loop see a packet at the same time. */
static int prog_rx_wait(int argc, char **argv)
{
    (void)argv;
    if (myri_api0_init(0, 0, 0, NULL) != 0 || myri_api0_get_chan(0, 1) != 1 || myri_api0_init_recv_chan(0, 1))
        return 3;
    int n = 0;
    if (argc > 1) {
        n = myri_prog_recv_wait(0, 1, 10000);
    } else {
        while ((n = myri_api0_recv_poll(0, 1)) == 0) {
        }
    }
    myri_prog_report("seen_ps", (double)myri_prog_now_ps());
    return n == 1 ? 0 : 4;
}
static int prog_tx_late(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    if (myri_api0_init(0, 0, 0, NULL) != 0) return 3;
    myri_prog_sleep_us(123.4567);
    void *b;
    if (myri_api0_get_send_buffer(0, &b) != 0) return 4;
    memset(b, 7, 500);
    return myri_api0_send_route(0, 1, b, 500, 0) == 0 ? 0 : 5;
}

static double rx_time(bool fast, uint32_t flags, uint64_t *fast_polls)
{
    rig *r = rig_new(2, flags, true);
    myri_program *rx, *tx;
    const char *arg[1] = {"fast"};
    assert_int_equal(myri_host_run(r->h[1], "rx", prog_rx_wait, fast ? 1 : 0, arg, 0, &rx), MYRI_OK);
    assert_int_equal(myri_host_run(r->h[0], "tx", prog_tx_late, 0, NULL, 0, &tx), MYRI_OK);
    myri_sim_run(r->sim, 2000 * US, 0);
    assert_int_equal(myri_program_exit_code(rx), 0);
    assert_int_equal(myri_program_exit_code(tx), 0);
    double t = rep(rx, "seen_ps");
    myri_host_stats hs;
    myri_host_get_stats(r->h[1], &hs);
    *fast_polls = hs.fast_polls;
    rig_free(r);
    return t;
}

static void test_recv_wait_exact(void **state)
{
    (void)state;
    uint64_t fp_fast, fp_plain;
    double fast = rx_time(true, MYRI_HCB_F_DMA_NOTIFY, &fp_fast);
    double plain = rx_time(false, MYRI_HCB_F_DMA_NOTIFY, &fp_plain);
    assert_true(fast == plain);
    assert_true(fp_fast > 100); /* hundreds of empty polls not simulated one by one */
    assert_int_equal(fp_plain, 0);
    /* without notification every poll is a PIO read: no fast-forward, same time */
    fast = rx_time(true, 0, &fp_fast);
    plain = rx_time(false, 0, &fp_plain);
    assert_true(fast == plain);
    assert_int_equal(fp_fast, 0);
}

/* The built-in programs on two hosts. */
static void run_pair(const char *name, int argc, const char *const *args, uint32_t flags, myri_program **p0,
                     myri_program **p1, rig **out)
{
    rig *r = rig_new(2, flags, true);
    myri_prog_main m = myri_program_find(name);
    assert_non_null(m);
    assert_int_equal(myri_host_run(r->h[0], name, m, argc, args, 0, p0), MYRI_OK);
    assert_int_equal(myri_host_run(r->h[1], name, m, argc, args, 0, p1), MYRI_OK);
    myri_sim_run(r->sim, 1000000 * US, 0);
    assert_true(myri_program_done(*p0) && myri_program_done(*p1));
    *out = r;
}

static void test_pingpong(void **state)
{
    (void)state;
    const char *args[] = {"sizes=4,64,100,2000,8192", "reps=5"};
    for (int notify = 0; notify < 2; notify++) {
        myri_program *a, *b;
        rig *r;
        run_pair("pingpong", 2, args, notify ? MYRI_HCB_F_DMA_NOTIFY : 0, &a, &b, &r);
        assert_int_equal(myri_program_exit_code(a), 0);
        assert_int_equal(myri_program_exit_code(b), 0);
        assert_true(rep(a, "pingpong.errors") == 0 && rep(b, "pingpong.errors") == 0);
        double l4 = rep(a, "pingpong.4.latency_us"), l8k = rep(a, "pingpong.8192.latency_us");
        assert_true(l4 > 2 && l4 < 100);
        assert_true(l8k > l4 + 8192 / 120.0); /* at least the host DMA both ends (120 MB/s) on top */
        double bw = rep(a, "pingpong.8192.bandwidth_MBps");
        assert_true(bw > 10 && bw < 120);
        assert_true(r->f[0].drops == 0 && r->f[1].drops == 0);
        rig_free(r);
    }
}

static void test_latency_stream_traffic(void **state)
{
    (void)state;
    myri_program *a, *b;
    rig *r;
    const char *la[] = {"reps=3"};
    run_pair("latency", 1, la, MYRI_HCB_F_DMA_NOTIFY, &a, &b, &r);
    assert_int_equal(myri_program_exit_code(a), 0);
    assert_true(rep(a, "latency.4.latency_us") < rep(a, "latency.1024.latency_us"));
    rig_free(r);

    const char *sa[] = {"count=40", "size=8192", "window=8"};
    run_pair("stream", 3, sa, MYRI_HCB_F_DMA_NOTIFY, &a, &b, &r);
    assert_int_equal(myri_program_exit_code(a), 0);
    assert_int_equal(myri_program_exit_code(b), 0);
    double bw = rep(a, "stream.bandwidth_MBps");
    assert_true(bw > 20 && bw < 120); /* the host DMA at 120 MB/s bounds it */
    rig_free(r);

    const char *ta[] = {"size=300", "interval_us=40", "duration_us=2000", "drain_us=500"};
    run_pair("traffic", 4, ta, 0, &a, &b, &r);
    assert_int_equal(myri_program_exit_code(a), 0);
    assert_int_equal(myri_program_exit_code(b), 0);
    assert_true(rep(a, "traffic.sent") > 20);
    assert_true(rep(a, "traffic.sent") == rep(b, "traffic.received"));
    assert_true(rep(b, "traffic.sent") == rep(a, "traffic.received"));
    assert_true(rep(a, "traffic.latency_mean_us") > 0);
    assert_true(rep(a, "traffic.lost") == 0 && rep(b, "traffic.lost") == 0); /* issue 23: every sender counts */
    assert_true(rep(a, "traffic.corrupted") == 0 && rep(b, "traffic.corrupted") == 0);
    rig_free(r);
}

/* Issue 23 items 1 and 10: what a built-in program needs, checked before the run. */
static void test_program_check(void **state)
{
    (void)state;
    char why[256];
    int bad;
    const char *ok[] = {"sizes=4,64", "reps=3", "timeout_us=500"};
    assert_int_equal(myri_program_check("pingpong", "mcp", 2, 3, ok, &bad, why, sizeof why), 0);
    assert_int_equal(myri_program_check("pingpong", "mcp", 3, 3, ok, &bad, why, sizeof why), -1);
    assert_non_null(strstr(why, "two hosts"));
    const char *peer[] = {"peer=3"};
    assert_int_equal(myri_program_check("pingpong", "mcp", 1, 1, peer, &bad, why, sizeof why), 0);
    const char *typo[] = {"reps=3", "szies=4"};
    assert_int_equal(myri_program_check("pingpong", "mcp", 2, 2, typo, &bad, why, sizeof why), -1);
    assert_int_equal(bad, 1);
    assert_non_null(strstr(why, "unknown argument 'szies'"));
    const char *abc[] = {"sizes=abc"};
    assert_int_equal(myri_program_check("latency", "mcp", 2, 1, abc, &bad, why, sizeof why), -1);
    assert_int_equal(bad, 0);
    const char *neg[] = {"count=-3"};
    assert_int_equal(myri_program_check("stream", "mcp", 2, 1, neg, &bad, why, sizeof why), -1);
    assert_int_equal(myri_program_check("pingpong", "lcp", 2, 0, NULL, &bad, why, sizeof why), -1);
    assert_non_null(strstr(why, "not on firmware lcp"));
    assert_int_equal(myri_program_check("via-stream", "mcp", 2, 0, NULL, &bad, why, sizeof why), -1);
    assert_int_equal(myri_program_check("via-stream", "myricom", 2, 0, NULL, &bad, why, sizeof why), 0);
    assert_int_equal(myri_program_check("traffic", "mcp", 1, 0, NULL, &bad, why, sizeof why), -1);
    assert_int_equal(myri_program_check("traffic", "mcp", 5, 0, NULL, &bad, why, sizeof why), 0);
    assert_int_equal(myri_program_check("nope", "mcp", 2, 0, NULL, &bad, why, sizeof why), -1);
    assert_string_equal(myri_api0_strname(MYRI_API0_ETIMEOUT), "MYRI_API0_ETIMEOUT");
    assert_string_equal(myri_api0_strname(MYRI_API0_ENOMEM), "MYRI_API0_ENOMEM");
    assert_string_equal(myri_api0_strname(5), "MYRI_API0_(unknown)");
}

/* A corrupted byte in flight is found by the receiver's check. */
static int prog_bad_args(int argc, char **argv)
{
    return myri_program_find("pingpong")(argc, argv);
}

static void test_misuse(void **state)
{
    (void)state;
    rig *r = rig_new(1, 0, true);
    myri_host *h;
    myri_host_params hp;
    myri_host_params_default(&hp);
    assert_int_equal(myri_host_create(NULL, "x", 0, &hp, NULL, &h), MYRI_EINVAL);
    assert_int_equal(myri_host_create(r->sim, NULL, 0, &hp, NULL, &h), MYRI_EINVAL);
    hp.dma_bytes = 10;
    assert_int_equal(myri_host_create(r->sim, "x", 0, &hp, NULL, &h), MYRI_EINVAL);
    assert_int_equal(myri_host_add_board(r->h[0], 0, r->l[0], r->bus[0]), MYRI_ESTATE);
    assert_int_equal(myri_host_add_board(r->h[0], 9, r->l[0], r->bus[0]), MYRI_EINVAL);
    assert_int_equal(myri_host_add_board(NULL, 1, r->l[0], r->bus[0]), MYRI_EINVAL);
    assert_int_equal(myri_host_run(r->h[0], "x", NULL, 0, NULL, 0, NULL), MYRI_EINVAL);
    assert_int_equal(myri_host_run(r->h[0], "x", prog_costs, 1, NULL, 0, NULL), MYRI_EINVAL);
    assert_null(myri_program_find("nope"));
    assert_null(myri_program_find(NULL));
    /* outside any program */
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), MYRI_API0_ENOHOST);
    assert_int_equal(myri_prog_host(), -1);
    assert_int_equal(myri_prog_report("k", 1), -1);
    assert_int_equal(myri_prog_recv_wait(0, 1, 10), MYRI_API0_ENOHOST);
    assert_int_equal(myri_prog_now_ps(), 0);
    /* a program with bad arguments exits 2; an unknown MCP fails init */
    myri_program *p, *q;
    const char *bad[] = {"sizes=4,x"};
    assert_int_equal(myri_host_run(r->h[0], "pp", prog_bad_args, 1, bad, 0, &p), MYRI_OK);
    const char *nomcp[] = {"mcp=none", "peer=0"};
    assert_int_equal(myri_host_run(r->h[0], "pp2", prog_bad_args, 2, nomcp, 0, &q), MYRI_OK);
    myri_sim_run(r->sim, 1000 * US, 0);
    assert_int_equal(myri_program_exit_code(p), 2);
    assert_int_equal(myri_program_exit_code(q), 2);
    assert_true(rep(q, "pingpong.setup_error") == MYRI_API0_ENOMCP);
    const char *k;
    double v;
    assert_int_equal(myri_program_report(q, 5, &k, &v), MYRI_EINVAL);
    assert_int_equal(myri_program_report_get(q, "nope", &v), MYRI_ENOTFOUND);
    rig_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_pio_costs),
        cmocka_unit_test(test_two_programs_share_board),
        cmocka_unit_test(test_recv_wait_exact),
        cmocka_unit_test(test_pingpong),
        cmocka_unit_test(test_latency_stream_traffic),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_program_check),
        cmocka_unit_test(test_posted_writes),
        cmocka_unit_test(test_cpu_time_lazy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
