/* test_api0.c -- the API of seed 001 (src/host/api0.c) against a fake host
 * interface (plain memory for SRAM and the DMA region, a clock advanced by
 * CPU time and PIO) and a tiny fake MCP written here that builds the HCB,
 * answers the handshake, takes send queue entries and fills receive slots
 * as common/hcb.h says.  Covers: first-user / later-user init, force_init,
 * init failures, every function's misuse, PIO vs DMA sends, the busy-list
 * rule, the shadowed head re-read only when the queue looks full (PIO reads
 * counted), num_pending never under-reporting, receive channels with and
 * without DMA notification, routes, the lock. */
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
#include "host/hostif.h"
#include "myri/api0.h"

/* ---- the fake host ----------------------------------------------------------- */
enum { SRAM_BYTES = 256 * 1024, HCB_AT = 0x1000, MAX_IDS = 8, PIO_PS = 1000 };
#define DMA_BUS 0x100000u

typedef struct sent_pkt {
    uint32_t len, route, chan, flags;
    uint8_t data[2048];
} sent_pkt;

typedef struct fake {
    uint8_t sram[SRAM_BYTES];
    uint8_t *dma;
    uint64_t dma_bytes;
    myri_time_ps now;
    int cur;                     /* running program id */
    /* segment of unit 0 */
    void *seg;
    size_t seg_bytes;
    int users[MAX_IDS];
    int nusers;
    void (*on_leave)(void *, int);
    /* counters */
    uint64_t pio_reads, pio_writes, reads_at[SRAM_BYTES / 4];
    int loads;
    /* fake MCP */
    myri_hcb_geom g;
    uint32_t flags;
    bool booted, ack, bad_sig;
    myri_time_ps boot_at;        /* the MCP sets the HCB pointer at this time (after a load) */
    bool complete_after_sent_read; /* the MCP finishes one packet right after the API reads SQ_SENT */
    uint32_t consumed;           /* entries taken */
    sent_pkt pkt[64];
    int npkt;
} fake;

static fake *F;

static uint32_t sq(void) { return HCB_AT + myri_hcb_sendq_off(&F->g); }
static uint32_t rd(uint32_t a) { return myri_be32_get(F->sram + a); }
static void wr(uint32_t a, uint32_t v) { myri_be32_put(F->sram + a, v); }

static void mcp_build(void)
{
    myri_hcb_geom *g = &F->g;
    uint32_t b = HCB_AT;
    memset(F->sram + b, 0, myri_hcb_bytes(g));
    wr(b + MYRI_HCB_SIG_START_OFF, MYRI_HCB_SIG_START);
    wr(b + MYRI_HCB_BYTES_OFF, myri_hcb_bytes(g));
    wr(b + MYRI_HCB_NCHAN_OFF, g->nchan);
    wr(b + MYRI_HCB_SEND_Q_OFF, g->send_q);
    wr(b + MYRI_HCB_RECV_Q_OFF, g->recv_q);
    wr(b + MYRI_HCB_NROUTES_OFF, g->nroutes);
    wr(b + MYRI_HCB_ROUTE_MAX_OFF, g->route_max);
    wr(b + MYRI_HCB_PIO_BYTES_OFF, g->pio_bytes);
    wr(b + MYRI_HCB_MTU_OFF, g->mtu);
    wr(b + MYRI_HCB_FLAGS_OFF, F->flags);
    wr(b + myri_hcb_sig_mid_off(g), F->bad_sig ? 0xdeadu : MYRI_HCB_SIG_MID);
    wr(b + myri_hcb_sig_end_off(g), MYRI_HCB_SIG_END);
    wr(b + MYRI_HCB_STATE_OFF, MYRI_HCB_STATE_READY);
    wr(MYRI_LANAI_HCB_PTR_ADDR, HCB_AT);
    F->booted = true;
}

/* What the MCP does whenever the host touches the board or time passes. */
static void mcp_tick(void)
{
    if (!F->booted && F->boot_at && F->now >= F->boot_at) mcp_build();
    if (F->booted && F->ack) wr(HCB_AT + MYRI_HCB_HANDSHAKE_ACK_OFF, rd(HCB_AT + MYRI_HCB_HANDSHAKE_OFF));
}

/* The MCP takes n entries from the send queue (copies their payloads). */
static int mcp_take(int n)
{
    int k = 0;
    for (; k < n; k++) {
        uint32_t head = rd(sq() + MYRI_HCB_SQ_HEAD), tail = rd(sq() + MYRI_HCB_SQ_TAIL);
        if (head == tail) break;
        uint32_t e = HCB_AT + myri_hcb_sentry_off(&F->g, head);
        sent_pkt *p = &F->pkt[F->npkt++ % 64];
        p->len = rd(e + MYRI_HCB_SE_LEN);
        p->route = rd(e + MYRI_HCB_SE_ROUTE);
        p->chan = rd(e + MYRI_HCB_SE_CHAN) & 0xffff;
        p->flags = rd(e + MYRI_HCB_SE_CHAN) >> 16;
        if (p->flags & MYRI_HCB_SE_F_PIO)
            memcpy(p->data, F->sram + HCB_AT + myri_hcb_pio_off(&F->g, head), p->len);
        else
            memcpy(p->data, F->dma + (rd(e + MYRI_HCB_SE_ADDR) - DMA_BUS), p->len);
        wr(sq() + MYRI_HCB_SQ_HEAD, (head + 1) % F->g.send_q);
        F->consumed++;
    }
    return k;
}
static void mcp_sent(uint32_t n) { wr(sq() + MYRI_HCB_SQ_SENT, rd(sq() + MYRI_HCB_SQ_SENT) + n); }

/* The MCP delivers a packet into channel ch; false when it has no room. */
static bool mcp_deliver(uint32_t ch, const uint8_t *data, uint32_t len)
{
    uint32_t rc = HCB_AT + myri_hcb_rchan_off(&F->g, ch);
    if (!rd(rc + MYRI_HCB_RC_ENABLED)) return false;
    uint32_t put = rd(rc + MYRI_HCB_RC_PUT), freed = rd(rc + MYRI_HCB_RC_FREED);
    if (F->g.recv_q - 1 - (put - freed) == 0) return false;
    uint8_t *slot = F->dma + (rd(rc + MYRI_HCB_RC_HOST_ADDR) - DMA_BUS) +
                    (size_t)(put % F->g.recv_q) * rd(rc + MYRI_HCB_RC_SLOT_BYTES);
    slot[MYRI_SLOT_HDR] = 0x03;
    slot[MYRI_SLOT_HDR + 1] = 0x70;
    slot[MYRI_SLOT_HDR + 2] = MYRI_FRAME_SUBTYPE_API0_DATA;
    slot[MYRI_SLOT_HDR + 3] = (uint8_t)ch;
    memcpy(slot + MYRI_SLOT_PAYLOAD, data, len);
    myri_be32_put(slot + MYRI_SLOT_LEN, len);
    wr(rc + MYRI_HCB_RC_PUT, put + 1);
    if (F->flags & MYRI_HCB_F_DMA_NOTIFY)
        myri_be32_put(F->dma + (rd(rc + MYRI_HCB_RC_POLL_ADDR) - DMA_BUS), put + 1);
    return true;
}

static myri_status f_pio_read(void *h, int unit, uint32_t a, void *dst, size_t n)
{
    (void)h;
    if (unit != 0) return MYRI_ENOTFOUND;
    if (a + n > SRAM_BYTES) return MYRI_ERANGE;
    mcp_tick();
    memcpy(dst, F->sram + a, n);
    F->pio_reads++;
    F->reads_at[a / 4]++;
    F->now += PIO_PS * ((n + 3) / 4);
    if (F->complete_after_sent_read && F->booted && a == sq() + MYRI_HCB_SQ_SENT) mcp_sent(1);
    return MYRI_OK;
}
static myri_status f_pio_write(void *h, int unit, uint32_t a, const void *src, size_t n)
{
    (void)h;
    if (unit != 0) return MYRI_ENOTFOUND;
    if (a + n > SRAM_BYTES) return MYRI_ERANGE;
    memcpy(F->sram + a, src, n);
    F->pio_writes++;
    F->now += PIO_PS * ((n + 3) / 4);
    mcp_tick();
    return MYRI_OK;
}
static myri_status f_dma_region(void *h, int unit, uint8_t **base, uint64_t *bus, uint64_t *bytes)
{
    (void)h;
    if (unit != 0) return MYRI_ENOTFOUND;
    *base = F->dma;
    *bus = DMA_BUS;
    *bytes = F->dma_bytes;
    return MYRI_OK;
}
static myri_status f_wait(void *h, myri_time_ps max)
{
    (void)h;
    F->now += max;
    return MYRI_ETIMEDOUT;
}
static void f_spend(void *h, myri_time_ps ps)
{
    (void)h;
    F->now += ps;
    mcp_tick();
}
static myri_time_ps f_now(void *h) { return (void)h, F->now; }
static int f_self(void *h) { return (void)h, F->cur; }
static myri_status f_seg_attach(void *h, int unit, size_t bytes, void (*on_leave)(void *, int), void **seg,
                                bool *first)
{
    (void)h;
    if (unit != 0) return MYRI_ENOTFOUND;
    for (int i = 0; i < F->nusers; i++)
        if (F->users[i] == F->cur) {
            *seg = F->seg;
            *first = false;
            return MYRI_ESTATE;
        }
    if (!F->seg) {
        F->seg = calloc(1, bytes);
        F->seg_bytes = bytes;
    }
    *first = F->nusers == 0;
    F->users[F->nusers++] = F->cur;
    F->on_leave = on_leave;
    *seg = F->seg;
    return MYRI_OK;
}
static void *f_seg_find(void *h, int unit)
{
    (void)h;
    if (unit != 0) return NULL;
    for (int i = 0; i < F->nusers; i++)
        if (F->users[i] == F->cur) return F->seg;
    return NULL;
}
static myri_status f_load(void *h, int unit, const char *name)
{
    (void)h;
    (void)unit;
    if (strcmp(name, "fake") != 0) return MYRI_ENOTFOUND;
    F->loads++;
    F->booted = false;
    memset(F->sram, 0, SRAM_BYTES);
    F->boot_at = F->now + 5000000; /* boots 5 us later */
    return MYRI_OK;
}

static const myri_hostif_ops fake_ops = {f_pio_read, f_pio_write, f_dma_region, f_wait,       f_spend,
                                         f_now,      f_self,      f_seg_attach, f_seg_find, f_load, NULL, NULL};
static const myri_hostif_costs fake_costs = {
    .call_ps = 100000, .poll_gap_ps = 1000000, .init_timeout_ps = 1000000000, .lock_spin_ps = 100000,
    .lock_timeout_ps = 50000000};
static myri_hostif fake_hi = {&fake_ops, NULL, &fake_costs};
static myri_hostif *fake_current(void) { return &fake_hi; }

/* The program `id` ends: its attachment is undone. */
static void leave(int id)
{
    for (int i = 0; i < F->nusers; i++)
        if (F->users[i] == id) {
            F->on_leave(F->seg, id);
            F->users[i] = F->users[--F->nusers];
            break;
        }
    if (F->nusers == 0) {
        free(F->seg);
        F->seg = NULL;
    }
}

/* A fresh fake: the MCP running already (booted) unless `loaded_later`. */
static int setup_flags(void **state, uint32_t flags, uint64_t dma_bytes)
{
    F = calloc(1, sizeof *F);
    F->dma_bytes = dma_bytes;
    F->dma = calloc(1, dma_bytes);
    F->g = (myri_hcb_geom){.nchan = 4, .send_q = 8, .recv_q = 4, .nroutes = 16, .route_max = 8, .pio_bytes = 64,
                           .mtu = 1024};
    F->flags = flags;
    F->ack = true;
    F->cur = 1;
    mcp_build();
    myri_hostif_set_provider(fake_current);
    *state = F;
    return 0;
}
static int setup(void **state) { return setup_flags(state, 0, 256 * 1024); }
static int setup_notify(void **state) { return setup_flags(state, MYRI_HCB_F_DMA_NOTIFY, 256 * 1024); }
/* DMA region for 4 channels x 4 slots x 1088 B + 256 B of poll words + 3 buffers of 1024 B. */
static int setup_small(void **state) { return setup_flags(state, 0, 256 + 4 * 4 * 1088 + 3 * 1024 + 100); }
static int teardown(void **state)
{
    (void)state;
    myri_hostif_set_provider(NULL);
    free(F->seg);
    free(F->dma);
    free(F);
    return 0;
}

static void fill(uint8_t *p, int n, int seed)
{
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(seed * 31 + i * 7);
}

/* ---- tests -------------------------------------------------------------------------- */

static void test_strerror(void **state)
{
    (void)state;
    for (int rc = 0; rc > -MYRI_API0_NCODES; rc--) {
        assert_non_null(myri_api0_strerror(rc));
        for (int o = rc + 1; o <= 0; o++) assert_string_not_equal(myri_api0_strerror(rc), myri_api0_strerror(o));
    }
    assert_string_equal(myri_api0_strerror(-MYRI_API0_NCODES), "unknown API return code");
    assert_string_equal(myri_api0_strerror(5), "unknown API return code");
}

static void test_no_host(void **state)
{
    (void)state;
    myri_hostif_set_provider(NULL);
    void *b;
    int len;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_init_recv_chan(0, 0), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_get_send_buffer_l(0, &b), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_free_send_l(0, NULL), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_send_route_l(0, 0, NULL, 0, 0), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_recv(0, 0, &b, &len), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_recv_poll(0, 0), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_free_recv(0, 0, NULL), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_add_route(0, 1, NULL, 0), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_num_pending(0), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_lock(0), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_unlock(0), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_handshake(0), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_buffer_busy_p(0, NULL), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_reap_sent_l(0), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_get_chan(0, 0), MYRI_API0_ENOHOST);
    assert_int_equal(myri_api0_rele_chan(0, 0), MYRI_API0_ENOHOST);
}

static void test_not_init(void **state)
{
    (void)state;
    void *b;
    int len;
    char x[4];
    assert_int_equal(myri_api0_init(-1, 0, 0, NULL), MYRI_API0_EBADUNIT);
    assert_int_equal(myri_api0_init(MYRI_API0_MAX_UNITS, 0, 0, NULL), MYRI_API0_EBADUNIT);
    assert_int_equal(myri_api0_init(1, 0, 0, NULL), MYRI_API0_EBADUNIT); /* no board 1 on this host */
    assert_int_equal(myri_api0_init_recv_chan(0, 0), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_get_send_buffer_l(0, &b), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_get_send_buffer(0, &b), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_free_send_l(0, x), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_send_route_l(0, 0, x, 1, 0), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_recv(0, 0, &b, &len), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_recv_poll(0, 0), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_free_recv(0, 0, x), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_add_route(0, 1, x, 0), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_num_pending(0), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_lock(0), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_unlock(0), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_handshake(0), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_buffer_busy_p(0, x), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_reap_sent_l(0), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_get_chan(0, 0), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_rele_chan(0, 0), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_num_pending(3), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_num_pending(99), MYRI_API0_EBADUNIT);
}

static void test_init_first_and_later(void **state)
{
    (void)state;
    F->booted = false;
    memset(F->sram, 0, SRAM_BYTES);
    /* the first user loads the MCP and waits for its HCB pointer */
    assert_int_equal(myri_api0_init(0, 0, 0, "fake"), 0);
    assert_int_equal(F->loads, 1);
    assert_true(F->now >= 5000000);
    uint32_t token = rd(HCB_AT + MYRI_HCB_HANDSHAKE_OFF);
    assert_int_not_equal(token, 0);
    assert_int_equal(rd(HCB_AT + MYRI_HCB_HANDSHAKE_ACK_OFF), token);
    assert_int_equal(rd(HCB_AT + myri_hcb_route_off(&F->g, 0)), 0); /* zero route */
    /* a later user attaches: no load, no handshake */
    F->cur = 2;
    uint64_t w = F->pio_writes;
    assert_int_equal(myri_api0_init(0, 0, 0, "fake"), 0);
    assert_int_equal(F->loads, 1);
    assert_int_equal(F->pio_writes, w);
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), MYRI_API0_EALREADY);
    /* force_init re-initialises (handshakes again) */
    assert_int_equal(myri_api0_init(0, 0, 1, NULL), 0);
    assert_int_not_equal(rd(HCB_AT + MYRI_HCB_HANDSHAKE_OFF), token);
    assert_int_equal(myri_api0_handshake(0), 0);
    /* everybody leaves: the next user is first again and loads */
    leave(1);
    leave(2);
    F->cur = 3;
    assert_int_equal(myri_api0_init(0, 0, 0, "fake"), 0);
    assert_int_equal(F->loads, 2);
}

static void test_init_failures(void **state)
{
    (void)state;
    assert_int_equal(myri_api0_init(0, 0, 0, "no-such-mcp"), MYRI_API0_ENOMCP);
    /* the MCP never sets its HCB pointer */
    F->booted = false;
    memset(F->sram, 0, SRAM_BYTES);
    myri_time_ps t0 = F->now;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), MYRI_API0_ETIMEOUT);
    assert_true(F->now - t0 >= fake_costs.init_timeout_ps);
    assert_true(F->now - t0 < 2 * fake_costs.init_timeout_ps);
    /* it boots but does not answer the handshake */
    mcp_build();
    F->ack = false;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), MYRI_API0_ETIMEOUT);
    /* wrong signature in the middle */
    F->ack = true;
    F->bad_sig = true;
    mcp_build();
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), MYRI_API0_EBADHCB);
    /* a geometry the HCB size does not match */
    F->bad_sig = false;
    mcp_build();
    wr(HCB_AT + MYRI_HCB_BYTES_OFF, 12);
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), MYRI_API0_EBADHCB);
    mcp_build();
    assert_int_equal(myri_api0_num_pending(0), MYRI_API0_ENOTINIT);
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), 0); /* the failed init may be retried */
    assert_int_equal(myri_api0_num_pending(0), 0);
}

static void test_init_dma_too_small(void **state)
{
    (void)state;
    free(F->dma);
    F->dma_bytes = 1000;
    F->dma = calloc(1, F->dma_bytes);
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), MYRI_API0_ENOMEM);
}

static void test_send_pio_and_dma(void **state)
{
    (void)state;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), 0);
    char route[3] = {(char)0x81, (char)0x82, (char)0x83};
    int r = myri_api0_add_route(0, MYRI_API0_NEXT_ROUTE, route, 3);
    assert_int_equal(r, 1);
    void *small, *big;
    assert_int_equal(myri_api0_get_send_buffer_l(0, &small), 0);
    assert_int_equal(myri_api0_get_send_buffer(0, &big), 0);
    assert_ptr_not_equal(small, big);
    fill(small, 64, 1);
    fill(big, 1024, 2);
    uint64_t w = F->pio_writes;
    assert_int_equal(myri_api0_send_route_l(0, 2, small, 64, r), 0);
    assert_int_equal(F->pio_writes - w, 3); /* PIO payload, entry, tail */
    w = F->pio_writes;
    assert_int_equal(myri_api0_send_route(0, 3, big, 1024, 0), 0);
    assert_int_equal(F->pio_writes - w, 2); /* entry, tail */
    assert_int_equal(mcp_take(8), 2);
    assert_int_equal(F->pkt[0].flags, MYRI_HCB_SE_F_PIO);
    assert_int_equal(F->pkt[0].len, 64);
    assert_int_equal(F->pkt[0].chan, 2);
    assert_int_equal(F->pkt[0].route, 1);
    assert_memory_equal(F->pkt[0].data, small, 64);
    assert_int_equal(F->pkt[1].flags, 0);
    assert_int_equal(F->pkt[1].len, 1024);
    assert_int_equal(F->pkt[1].chan, 3);
    assert_int_equal(F->pkt[1].route, 0);
    assert_memory_equal(F->pkt[1].data, big, 1024);
    /* a zero-length payload goes by PIO with no payload write */
    assert_int_equal(myri_api0_send_route(0, 0, small, 0, 0), 0);
    assert_int_equal(mcp_take(8), 1);
    assert_int_equal(F->pkt[2].len, 0);
}

static void test_send_misuse(void **state)
{
    (void)state;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), 0);
    void *b;
    assert_int_equal(myri_api0_get_send_buffer_l(0, NULL), MYRI_API0_EINVAL);
    assert_int_equal(myri_api0_get_send_buffer_l(0, &b), 0);
    char stack[16];
    assert_int_equal(myri_api0_send_route_l(0, 0, NULL, 4, 0), MYRI_API0_EINVAL);
    assert_int_equal(myri_api0_send_route_l(0, 0, b, -1, 0), MYRI_API0_EINVAL);
    assert_int_equal(myri_api0_send_route_l(0, 0, stack, 4, 0), MYRI_API0_EBADBUF);
    assert_int_equal(myri_api0_send_route_l(0, 0, (char *)b + 4, 4, 0), MYRI_API0_EBADBUF);
    assert_int_equal(myri_api0_send_route_l(0, 0, F->dma, 4, 0), MYRI_API0_EBADBUF); /* a poll word, not a buffer */
    assert_int_equal(myri_api0_send_route_l(0, 0, b, 1025, 0), MYRI_API0_ETOOLONG);
    assert_int_equal(myri_api0_send_route_l(0, 4, b, 4, 0), MYRI_API0_EBADCHAN);
    assert_int_equal(myri_api0_send_route_l(0, -1, b, 4, 0), MYRI_API0_EBADCHAN);
    assert_int_equal(myri_api0_send_route_l(0, 0, b, 4, 1), MYRI_API0_EBADROUTE); /* not added */
    assert_int_equal(myri_api0_send_route_l(0, 0, b, 4, 16), MYRI_API0_EBADROUTE);
    assert_int_equal(myri_api0_send_route_l(0, 0, b, 4, -3), MYRI_API0_EBADROUTE);
    /* nothing queued by the failures */
    assert_int_equal(rd(sq() + MYRI_HCB_SQ_TAIL), 0);
    /* free twice, free a foreign pointer, send a freed buffer */
    assert_int_equal(myri_api0_free_send_l(0, NULL), MYRI_API0_EINVAL);
    assert_int_equal(myri_api0_free_send_l(0, stack), MYRI_API0_EBADBUF);
    assert_int_equal(myri_api0_free_send_l(0, b), 0);
    assert_int_equal(myri_api0_free_send_l(0, b), MYRI_API0_ENOTOWNED);
    assert_int_equal(myri_api0_free_send(0, b), MYRI_API0_ENOTOWNED);
    assert_int_equal(myri_api0_send_route_l(0, 0, b, 4, 0), MYRI_API0_ENOTOWNED);
    assert_int_equal(myri_api0_buffer_busy_p(0, stack), MYRI_API0_EBADBUF);
    assert_int_equal(myri_api0_buffer_busy_p(0, NULL), MYRI_API0_EINVAL);
    assert_int_equal(myri_api0_get_send_buffer_l(1, &b), MYRI_API0_ENOTINIT);
}

/* A freed buffer is not given out again before the MCP has sent it. */
static void test_busy_list(void **state)
{
    (void)state;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), 0);
    void *a, *b, *c, *x;
    assert_int_equal(myri_api0_get_send_buffer_l(0, &a), 0);
    assert_int_equal(myri_api0_get_send_buffer_l(0, &b), 0);
    assert_int_equal(myri_api0_get_send_buffer_l(0, &c), 0);
    assert_int_equal(myri_api0_get_send_buffer_l(0, &x), MYRI_API0_NO_BUFFERS); /* 3 buffers in all */
    assert_int_equal(myri_api0_send_route_l(0, 0, a, 100, 0), 0);
    assert_int_equal(myri_api0_send_route_l(0, 0, b, 100, 0), 0);
    assert_int_equal(myri_api0_buffer_busy_p(0, a), 1);
    assert_int_equal(myri_api0_buffer_busy_p(0, c), 0);
    assert_int_equal(myri_api0_free_send_l(0, a), 0); /* busy: onto the busy list */
    assert_int_equal(myri_api0_free_send_l(0, c), 0); /* not busy: free at once */
    assert_int_equal(myri_api0_get_send_buffer_l(0, &x), 0);
    assert_ptr_equal(x, c);
    assert_int_equal(myri_api0_get_send_buffer_l(0, &x), MYRI_API0_NO_BUFFERS); /* a is still busy */
    /* the MCP takes both entries but has sent neither: still busy */
    assert_int_equal(mcp_take(8), 2);
    assert_int_equal(myri_api0_reap_sent_l(0), 0);
    assert_int_equal(myri_api0_get_send_buffer_l(0, &x), MYRI_API0_NO_BUFFERS);
    mcp_sent(1); /* a's tail left (FIFO order) */
    assert_int_equal(myri_api0_buffer_busy_p(0, b), 1);
    assert_int_equal(myri_api0_get_send_buffer_l(0, &x), 0);
    assert_ptr_equal(x, a);
    assert_int_equal(myri_api0_free_send_l(0, b), 0); /* b busy until sent */
    assert_int_equal(myri_api0_get_send_buffer(0, &x), MYRI_API0_NO_BUFFERS);
    mcp_sent(1);
    assert_int_equal(myri_api0_reap_sent(0), 0);
    assert_int_equal(myri_api0_buffer_busy_p(0, b), 0);
    assert_int_equal(myri_api0_get_send_buffer(0, &x), 0);
    assert_ptr_equal(x, b);
    /* a buffer sent twice stays busy until both are sent */
    assert_int_equal(myri_api0_send_route(0, 0, b, 8, 0), 0);
    assert_int_equal(myri_api0_send_route(0, 0, b, 8, 0), 0);
    assert_int_equal(mcp_take(8), 2);
    mcp_sent(1);
    assert_int_equal(myri_api0_buffer_busy_p(0, b), 1);
    mcp_sent(1);
    assert_int_equal(myri_api0_buffer_busy_p(0, b), 0);
}

/* The head is shadowed: SRAM's head is read only when the queue looks full. */
static void test_shadow_head(void **state)
{
    (void)state;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), 0);
    uint32_t head_word = (sq() + MYRI_HCB_SQ_HEAD) / 4;
    uint64_t r0 = F->reads_at[head_word];
    void *b;
    assert_int_equal(myri_api0_get_send_buffer(0, &b), 0);
    for (int i = 0; i < 7; i++) assert_int_equal(myri_api0_send_route(0, 0, b, 200, 0), 0); /* N-1 = 7 fit */
    assert_int_equal(F->reads_at[head_word] - r0, 0);
    assert_int_equal(myri_api0_send_route(0, 0, b, 200, 0), MYRI_API0_QUEUE_FULL);
    assert_int_equal(F->reads_at[head_word] - r0, 1);
    assert_int_equal(mcp_take(3), 3);
    assert_int_equal(myri_api0_send_route(0, 0, b, 200, 0), 0); /* looks full: re-reads, finds room for 3 */
    assert_int_equal(F->reads_at[head_word] - r0, 2);
    assert_int_equal(myri_api0_send_route(0, 0, b, 200, 0), 0);
    assert_int_equal(myri_api0_send_route(0, 0, b, 200, 0), 0);
    assert_int_equal(F->reads_at[head_word] - r0, 2);
    assert_int_equal(myri_api0_send_route(0, 0, b, 200, 0), MYRI_API0_QUEUE_FULL);
    assert_int_equal(F->reads_at[head_word] - r0, 3);
    assert_int_equal(myri_api0_num_pending(0), 10);
}

/* num_pending is never below the truth, whatever the MCP does around it. */
static void test_num_pending(void **state)
{
    (void)state;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), 0);
    void *b;
    assert_int_equal(myri_api0_get_send_buffer(0, &b), 0);
    uint32_t enq = 0, sent = 0;
    uint64_t x = 12345;
    for (int step = 0; step < 400; step++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        int what = (int)(x >> 60) % 4;
        if (what <= 1 && myri_api0_send_route(0, 0, b, 16, 0) == 0) enq++;
        if (what == 2) mcp_take(1);
        if (what == 3 && sent < F->consumed) {
            mcp_sent(1);
            sent++;
        }
        F->complete_after_sent_read = (x >> 20) & 1 && sent < F->consumed;
        int p = myri_api0_num_pending(0);
        if (F->complete_after_sent_read) sent++;
        F->complete_after_sent_read = false;
        assert_true(p >= 0);
        assert_true((uint32_t)p >= enq - sent); /* never under-reports */
        assert_true((uint32_t)p <= enq - sent + 1);
    }
}

static void test_recv(void **state)
{
    (void)state;
    bool notify = F->flags & MYRI_HCB_F_DMA_NOTIFY;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), 0);
    assert_int_equal(myri_api0_get_chan(0, 2), 2);
    assert_false(mcp_deliver(2, (const uint8_t *)"x", 1)); /* not enabled yet: the MCP drops */
    assert_int_equal(myri_api0_init_recv_chan(0, 2), 0);
    void *p;
    int len;
    uint64_t r = F->pio_reads;
    assert_int_equal(myri_api0_recv(0, 2, &p, &len), MYRI_API0_EMPTY);
    assert_int_equal(myri_api0_recv_poll(0, 2), 0);
    assert_int_equal(F->pio_reads - r, notify ? 0 : 2);
    uint8_t d[3][300];
    for (int i = 0; i < 3; i++) {
        fill(d[i], 300, 10 + i);
        assert_true(mcp_deliver(2, d[i], (uint32_t)(100 + i)));
    }
    assert_false(mcp_deliver(2, d[0], 1)); /* recv_q - 1 = 3 slots in use */
    r = F->pio_reads;
    assert_int_equal(myri_api0_recv_poll(0, 2), 3);
    assert_int_equal(myri_api0_recv_poll(0, 2), 3); /* known count: no new look */
    assert_int_equal(F->pio_reads - r, notify ? 0 : 1);
    void *got[3];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(myri_api0_recv(0, 2, &got[i], &len), 0);
        assert_int_equal(len, 100 + i);
        assert_memory_equal(got[i], d[i], (size_t)len);
    }
    assert_int_equal(myri_api0_recv(0, 2, &p, &len), MYRI_API0_EMPTY);
    uint32_t freed_at = HCB_AT + myri_hcb_rchan_off(&F->g, 2) + MYRI_HCB_RC_FREED;
    uint32_t f0 = rd(freed_at);
    assert_int_equal(myri_api0_free_recv(0, 2, got[1]), 0); /* out of order: not yet told */
    assert_int_equal(rd(freed_at), f0);
    assert_int_equal(myri_api0_free_recv(0, 2, got[1]), MYRI_API0_ENOTRECV);
    assert_int_equal(myri_api0_free_recv(0, 2, got[0]), 0);
    assert_int_equal(rd(freed_at), f0 + 2);
    assert_true(mcp_deliver(2, d[0], 5));
    assert_true(mcp_deliver(2, d[1], 6));
    assert_false(mcp_deliver(2, d[2], 7));
    assert_int_equal(myri_api0_free_recv(0, 2, got[2]), 0);
    assert_int_equal(rd(freed_at), f0 + 3);
    assert_int_equal(myri_api0_recv(0, 2, &p, &len), 0);
    assert_int_equal(len, 5);
    /* misuse */
    char stack[8];
    assert_int_equal(myri_api0_free_recv(0, 2, stack), MYRI_API0_EBADBUF);
    assert_int_equal(myri_api0_free_recv(0, 2, (char *)p + 1), MYRI_API0_ENOTRECV);
    assert_int_equal(myri_api0_free_recv(0, 2, NULL), MYRI_API0_EINVAL);
    assert_int_equal(myri_api0_recv(0, 2, NULL, &len), MYRI_API0_EINVAL);
    assert_int_equal(myri_api0_recv(0, 2, &p, NULL), MYRI_API0_EINVAL);
    assert_int_equal(myri_api0_get_chan(0, 1), 1);
    assert_int_equal(myri_api0_free_recv(0, 1, p), MYRI_API0_ECHANINIT);
    assert_int_equal(myri_api0_init_recv_chan(0, 1), 0);
    assert_int_equal(myri_api0_free_recv(0, 1, p), MYRI_API0_ENOTRECV); /* another channel's buffer */
}

static void test_channels(void **state)
{
    (void)state;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), 0);
    void *p;
    int len;
    assert_int_equal(myri_api0_get_chan(0, MYRI_API0_ANY_CHAN), 0);
    assert_int_equal(myri_api0_get_chan(0, 0), MYRI_API0_CHAN_IN_USE);
    assert_int_equal(myri_api0_get_chan(0, 4), MYRI_API0_EBADCHAN);
    assert_int_equal(myri_api0_get_chan(0, -7), MYRI_API0_EBADCHAN);
    assert_int_equal(myri_api0_recv(0, 0, &p, &len), MYRI_API0_ECHANINIT);
    assert_int_equal(myri_api0_recv_poll(0, 0), MYRI_API0_ECHANINIT);
    assert_int_equal(myri_api0_recv(0, 1, &p, &len), MYRI_API0_CHAN_NOT_IN_USE);
    assert_int_equal(myri_api0_recv(0, 9, &p, &len), MYRI_API0_EBADCHAN);
    assert_int_equal(myri_api0_init_recv_chan(0, 1), MYRI_API0_CHAN_NOT_IN_USE);
    assert_int_equal(myri_api0_init_recv_chan(0, 4), MYRI_API0_EBADCHAN);
    /* a second program on the same board */
    F->cur = 2;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), 0);
    assert_int_equal(myri_api0_get_chan(0, 0), MYRI_API0_CHAN_IN_USE);
    assert_int_equal(myri_api0_get_chan(0, MYRI_API0_ANY_CHAN), 1);
    assert_int_equal(myri_api0_rele_chan(0, 0), MYRI_API0_CHAN_NOT_IN_USE);
    assert_int_equal(myri_api0_init_recv_chan(0, 0), MYRI_API0_CHAN_NOT_IN_USE);
    assert_int_equal(myri_api0_get_chan(0, MYRI_API0_ANY_CHAN), 2);
    assert_int_equal(myri_api0_get_chan(0, MYRI_API0_ANY_CHAN), 3);
    assert_int_equal(myri_api0_get_chan(0, MYRI_API0_ANY_CHAN), MYRI_API0_NO_CHANS);
    assert_int_equal(myri_api0_init_recv_chan(0, 3), 0);
    assert_int_equal(rd(HCB_AT + myri_hcb_rchan_off(&F->g, 3) + MYRI_HCB_RC_ENABLED), 1);
    assert_int_equal(myri_api0_rele_chan(0, 3), 0);
    assert_int_equal(rd(HCB_AT + myri_hcb_rchan_off(&F->g, 3) + MYRI_HCB_RC_ENABLED), 0);
    assert_int_equal(myri_api0_rele_chan(0, 3), MYRI_API0_CHAN_NOT_IN_USE);
    /* program 2 ends: its channels are free again */
    leave(2);
    F->cur = 1;
    assert_int_equal(myri_api0_get_chan(0, 2), 2);
    assert_int_equal(myri_api0_get_chan(0, MYRI_API0_ANY_CHAN), 1);
}

static void test_routes(void **state)
{
    (void)state;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), 0);
    char r5[5] = {(char)0x81, (char)0x82, (char)0x83, (char)0x84, (char)0x85};
    assert_int_equal(myri_api0_add_route(0, MYRI_API0_NEXT_ROUTE, r5, 5), 1);
    uint32_t off = HCB_AT + myri_hcb_route_off(&F->g, 1);
    assert_int_equal(rd(off), 5);
    /* right-aligned in 8 bytes: SA = 3 skipped bytes */
    assert_int_equal(F->sram[off + 4 + 3], 0x81);
    assert_int_equal(F->sram[off + 4 + 7], 0x85);
    assert_int_equal(myri_api0_add_route(0, 5, r5, 1), 5);
    assert_int_equal(F->sram[HCB_AT + myri_hcb_route_off(&F->g, 5) + 4 + 3], 0x81);
    assert_int_equal(myri_api0_add_route(0, MYRI_API0_NEXT_ROUTE, r5, 2), 2);
    assert_int_equal(myri_api0_add_route(0, 5, r5, 2), 5); /* overwriting is allowed (seed 001) */
    assert_int_equal(myri_api0_add_route(0, MYRI_API0_NEXT_ROUTE, NULL, 0), 3); /* point-to-point */
    /* misuse */
    char bad[2] = {(char)0x81, 0x05};
    char r9[9] = {0};
    memset(r9, 0x81, sizeof r9);
    assert_int_equal(myri_api0_add_route(0, 4, bad, 2), MYRI_API0_EROUTE);
    assert_int_equal(myri_api0_add_route(0, 4, r9, 9), MYRI_API0_EROUTE);
    assert_int_equal(myri_api0_add_route(0, 4, NULL, 3), MYRI_API0_EINVAL);
    assert_int_equal(myri_api0_add_route(0, 4, r5, -1), MYRI_API0_EINVAL);
    assert_int_equal(myri_api0_add_route(0, 0, r5, 1), MYRI_API0_EBADROUTE);
    assert_int_equal(myri_api0_add_route(0, 16, r5, 1), MYRI_API0_EBADROUTE);
    assert_int_equal(myri_api0_add_route(0, -5, r5, 1), MYRI_API0_EBADROUTE);
    for (int i = 0; i < 11; i++) assert_true(myri_api0_add_route(0, MYRI_API0_NEXT_ROUTE, r5, 1) > 0);
    assert_int_equal(myri_api0_add_route(0, MYRI_API0_NEXT_ROUTE, r5, 1), MYRI_API0_NO_ROUTES);
}

static void test_lock(void **state)
{
    (void)state;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), 0);
    assert_int_equal(myri_api0_unlock(0), MYRI_API0_ENOTLOCKED);
    assert_int_equal(myri_api0_lock(0), 0);
    assert_int_equal(myri_api0_lock(0), MYRI_API0_ELOCKED);
    void *b;
    /* the holder's _l calls do not deadlock on its own lock */
    assert_int_equal(myri_api0_get_send_buffer_l(0, &b), 0);
    assert_int_equal(myri_api0_send_route_l(0, 0, b, 4, 0), 0);
    /* another program waits for the lock, up to the time-out */
    F->cur = 2;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), 0);
    assert_int_equal(myri_api0_unlock(0), MYRI_API0_ENOTLOCKED);
    myri_time_ps t0 = F->now;
    assert_int_equal(myri_api0_lock(0), MYRI_API0_ELOCKTIMEOUT);
    assert_true(F->now - t0 >= fake_costs.lock_timeout_ps);
    assert_int_equal(myri_api0_get_send_buffer_l(0, &b), MYRI_API0_ELOCKTIMEOUT);
    assert_int_equal(myri_api0_free_send_l(0, b), MYRI_API0_ELOCKTIMEOUT);
    /* the non-locking variant does not look at the lock */
    assert_int_equal(myri_api0_get_send_buffer(0, &b), 0);
    /* the holder ends: its lock is released */
    leave(1);
    assert_int_equal(myri_api0_lock(0), 0);
    assert_int_equal(myri_api0_unlock(0), 0);
}

static void test_costs_charged(void **state)
{
    (void)state;
    assert_int_equal(myri_api0_init(0, 0, 0, NULL), 0);
    myri_time_ps t0 = F->now;
    assert_int_equal(myri_api0_get_chan(0, 0), 0);
    assert_int_equal(F->now - t0, fake_costs.call_ps); /* no SRAM access */
    t0 = F->now;
    assert_int_equal(myri_api0_num_pending(0), 0);
    assert_int_equal(F->now - t0, fake_costs.call_ps + PIO_PS); /* one PIO read */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_strerror, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_host, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_init, setup, teardown),
        cmocka_unit_test_setup_teardown(test_init_first_and_later, setup, teardown),
        cmocka_unit_test_setup_teardown(test_init_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_init_dma_too_small, setup, teardown),
        cmocka_unit_test_setup_teardown(test_send_pio_and_dma, setup, teardown),
        cmocka_unit_test_setup_teardown(test_send_misuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_busy_list, setup_small, teardown),
        cmocka_unit_test_setup_teardown(test_shadow_head, setup, teardown),
        cmocka_unit_test_setup_teardown(test_num_pending, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recv, setup_notify, teardown),
        cmocka_unit_test_setup_teardown(test_channels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_routes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_costs_charged, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
