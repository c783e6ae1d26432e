/* mcp.c -- seed 001's MCP written again in C for the LANai (clang
 * --target=lanai), run instruction by instruction on the simulated NIC by the
 * firmware kind `elf` (docs/LANAI.md, "The C MCP").  It keeps the contract of
 * the table MCP (src/firmware/mcp.c, mcp_tables.c) with the host API
 * (src/host/api0.c): common/hcb.h (the HCB, the send and receive channels,
 * the route table, the counters, the receive slots) and common/lanai_regs.h
 * (the registers), so the unchanged API and programs run on it.
 *
 * What it does, as the table MCP's defaults do:
 *   - boot: builds the HCB (signatures, geometry, flags), arms receive, state
 *     READY, then the HCB's address at SRAM 0xC (the API waits for it);
 *   - handshake: copies the API's token to HANDSHAKE_ACK;
 *   - receive (polled, first in every pass of the loop; or, with
 *     mcp_rx_interrupt = 1, in lanai_isr as the table MCP's default
 *     interrupt receive): a packet's tail (RECV_INT) with CRC byte 0 goes into the rx
 *     pool and the next buffer is armed; a bad CRC byte or a full pool drops
 *     it, BUFF_INT drops a packet longer than a buffer (its rest discarded);
 *   - host DMA: drops by reason (short, CRC, type, subtype, channel), holds a
 *     packet whose channel is full (counted once), takes the send queue's
 *     entries (a bad one dropped; PIO sends point the tx pool at the PIO
 *     buffer; DMA sends copy the payload from the host, overlapped with the
 *     send DMA when the tx pool is empty), gives a deliverable receive to the
 *     host (frame, then the length word, then RC_PUT and the count DMA'd to
 *     the channel's poll word: DMA notification); policy "new": a
 *     deliverable receive goes before sends;
 *   - send DMA: the route by the send DMA with the
 *     send-align register, the header word by PIO, the payload by SMLT (or,
 *     overlapped, in chunks of at least mcp_ovl_send_thr following the live
 *     LAR); SEND_INT ends a packet: the sent count and the send queue head.
 *
 * Not here (docs/LANAI.md says why): overlapped receive (the table MCP's default is off), the policy "old",
 * route bytes by PIO when a route exists; the simulator refuses those mcp.*
 * keys at load.  The geometry (mcp.nchan, send_q, recv_q, nroutes,
 * route_max, pio_bytes, mtu, tx_pool, rx_pool) and ovl_send, ovl_send_thr,
 * dma_notify, recv_mode are the words mcp_* below, filled at load.
 *
 * The polling loop reads ISR once per pass and, when nothing is to do, calls
 * no function and stores nothing, so the kind's busy-wait fast-forward
 * idles it until ISR or SRAM changes (docs/LANAI.md). */
#include "common/hcb.h"
#include "lanai_nic.h"

/* The geometry: global words the simulator fills at load from the parsed
 * mcp.* parameters (fw_elf.c, as elf.symbols; docs/LANAI.md "The C MCP"),
 * initialised to the table MCP's defaults for a load without them. */
unsigned mcp_nchan = 8, mcp_send_q = 9, mcp_recv_q = 16, mcp_nroutes = 0, mcp_route_max = 16;
unsigned mcp_pio_bytes = 256, mcp_mtu = 8192, mcp_tx_pool = 4, mcp_rx_pool = 16;
unsigned mcp_ovl_send = 1, mcp_ovl_send_thr = 256, mcp_dma_notify = 1;
/* Filled by the simulator: the first SRAM byte after the program (its
 * buffers, the HCB and the tables below are carved from there at boot). */
unsigned myri_sram_free;
#define MCP_MAX_ROUTES 1024u /* mcp.nroutes' maximum (the host library's table) */

#define R4(n) (((n) + 3u) & ~3u)
#define NO_SLOT 0xffffffffu
#define REG(r) LANAI_REG(MYRI_LANAI_##r)
#define W(a) (*(volatile unsigned *)(a))
#define B(a) (*(volatile unsigned char *)(a))

unsigned myri_nhosts; /* filled by the simulator: the route table has one entry per host */

static volatile unsigned notify_word; /* the DMA notification's source */

typedef struct sentry {
    unsigned addr, len, route, chan, pio;
} sentry;
typedef struct txe { /* 8 words: an index is a shift */
    unsigned src, len, route, chan, slot; /* slot: the PIO buffer's send queue entry, held until sent */
    unsigned pad[3];
} txe;

enum { H_IDLE, H_FROM_HOST, H_TO_HOST, H_TO_HOST_LEN, H_NOTIFY };
enum { S_IDLE, S_ROUTE, S_BODY, S_OVL_ROUTE, S_OVL_WAIT, S_OVL_CHUNK };
enum { D_ARMED, D_DISCARD };
enum { V_NONE = MYRI_HCB_NCOUNT };

/* The geometry of this run (the mcp_* words) and what depends on it,
 * computed once at boot (boot_tables): the HCB's place and the addresses of
 * common/hcb.h's structures, the buffers', one word per index, so the loop
 * indexes tables and never multiplies (the LANai has no multiply: a product
 * of variables is a call to __mulsi3). */
static myri_hcb_geom G;
static unsigned nroutes, rx_win;
static unsigned hcb, sq;    /* the HCB and its send channel */
static unsigned count_base; /* the counters' address (after the route table) */
/* The tables, sized by the keys' maxima (mcp.c's parameter table): at link-time
 * addresses, so an entry is one load (23 KiB of SRAM in all). */
static unsigned rx_addr[1024], tx_addr[256], pio_addr[256], rchan_addr[64], route_addr[MCP_MAX_ROUTES]; /* by index */
static unsigned rc_put[64], rc_slot[64]; /* by channel: RC_PUT, and its slot (put mod recv_q) */
static txe txq[256];
static unsigned tx_head, tx_tail, rx_head, sq_head, sent_total;
/* Written by the receive service, which runs in lanai_isr with interrupt
 * receive, read by the loop: volatile, and rx_bytes[] written before rx_tail. */
static volatile unsigned rx_tail;
static volatile unsigned rx_bytes[1024];
/* The table MCP's mcp.recv_mode: 0 polled receive (the default here), 1 interrupt receive
 * (RECV_INT and BUFF_INT in IMR; the receive service in lanai_isr); set
 * before the program starts (mcp.recv_mode given, or elf.symbols {mcp_rx_interrupt: 1}). */
unsigned mcp_rx_interrupt;
static unsigned hstate, sstate, dstate, held, ovl_tx, ovl_pos;
static unsigned cur_chan, cur_slot, cur_tx;
static sentry cur_e;

#define INLINE static inline __attribute__((always_inline))

INLINE unsigned rxbuf(unsigned i) { return rx_addr[i]; }
INLINE unsigned txbuf(unsigned i) { return tx_addr[i]; }
INLINE unsigned rchan(unsigned c) { return rchan_addr[c]; }
INLINE unsigned next_tx(unsigned i) { return i + 1 == mcp_tx_pool ? 0 : i + 1; }
INLINE unsigned next_rx(unsigned i) { return i + 1 == mcp_rx_pool ? 0 : i + 1; }
INLINE int tx_full(void) { return next_tx(tx_tail) == tx_head; }

/* ---- counters: the HCB's words, the send channel's sent count, the kind's roles ---- */

static void count(unsigned k)
{
    W(count_base + 4u * k) += 1;
    if (k == MYRI_HCB_C_TX_SENT || k == MYRI_HCB_C_TX_DROPPED) W(sq + MYRI_HCB_SQ_SENT) = ++sent_total;
    if (k == MYRI_HCB_C_RX_GOOD) LANAI_COUNT = LANAI_COUNT_RX_GOOD;
    else if (k == MYRI_HCB_C_DROP_CRC) LANAI_COUNT = LANAI_COUNT_RX_CRC;
    else if (k == MYRI_HCB_C_TX_SENT) LANAI_COUNT = LANAI_COUNT_TX_SENT;
    else if (k != MYRI_HCB_C_TX_DROPPED && k != MYRI_HCB_C_HELD) LANAI_COUNT = LANAI_COUNT_RX_OTHER;
}

static void hdma(unsigned host, unsigned sram, unsigned dir, unsigned bytes)
{
    REG(EAR) = host;
    REG(LAR) = sram;
    REG(DMA_DIR) = dir;
    REG(DMA_CTR) = R4(bytes);
}

/* Arms the receive window of the rx pool's tail buffer (the always-armed one when the pool is full). */
static void arm(void)
{
    unsigned b = rxbuf(rx_tail) + 4;
    REG(RMP) = b;
    REG(RML) = b + rx_win;
}

/* ---- boot and handshake -------------------------------------------------------------- */

static unsigned heap; /* the next free SRAM byte (boot only) */

static unsigned alloc(unsigned bytes)
{
    unsigned a = heap;
    heap += R4(bytes);
    return a;
}

/* t[0..n) = n addresses `step` bytes apart from `first` (by adds). */
static void table(unsigned *t, unsigned n, unsigned first, unsigned step)
{
    for (unsigned i = 0; i < n; i++, first += step) t[i] = first;
}

/* Places the HCB, the pools and the tables (the simulator checked at load
 * that they fit in SRAM below the stack). */
static void boot_tables(void)
{
    unsigned n = mcp_nroutes ? mcp_nroutes : myri_nhosts > 1 ? myri_nhosts : 2; /* entry 0: "no route" */
    myri_hcb_geom g = {mcp_nchan, mcp_send_q, mcp_recv_q, 0, mcp_route_max, mcp_pio_bytes, mcp_mtu};
    g.nroutes = nroutes = n < MCP_MAX_ROUTES ? n : MCP_MAX_ROUTES;
    G = g;
    heap = R4(myri_sram_free);
    hcb = alloc(myri_hcb_bytes(&g));
    sq = hcb + MYRI_HCB_HDR_BYTES;
    count_base = hcb + myri_hcb_count_off(&g, 0);
    rx_win = R4(MYRI_FRAME_HDR_BYTES + mcp_mtu + 1u);
    unsigned txb = R4(mcp_mtu), rxb = 4u + rx_win;
    table(tx_addr, mcp_tx_pool, alloc(mcp_tx_pool * txb), txb);
    table(rx_addr, mcp_rx_pool, alloc(mcp_rx_pool * rxb), rxb);
    table(pio_addr, mcp_send_q, hcb + myri_hcb_pio_off(&g, 0), R4(mcp_pio_bytes));
    table(rchan_addr, mcp_nchan, hcb + myri_hcb_rchan_off(&g, 0), MYRI_HCB_RCHAN_BYTES);
    table(route_addr, nroutes, hcb + myri_hcb_route_off(&g, 0), 4u + R4(mcp_route_max));
}

static void boot(void)
{
    boot_tables();
    const myri_hcb_geom *g = &G;
    W(hcb + MYRI_HCB_SIG_START_OFF) = MYRI_HCB_SIG_START;
    W(hcb + MYRI_HCB_BYTES_OFF) = myri_hcb_bytes(g);
    W(hcb + MYRI_HCB_NCHAN_OFF) = g->nchan;
    W(hcb + MYRI_HCB_SEND_Q_OFF) = g->send_q;
    W(hcb + MYRI_HCB_RECV_Q_OFF) = g->recv_q;
    W(hcb + MYRI_HCB_NROUTES_OFF) = g->nroutes;
    W(hcb + MYRI_HCB_ROUTE_MAX_OFF) = g->route_max;
    W(hcb + MYRI_HCB_PIO_BYTES_OFF) = g->pio_bytes;
    W(hcb + MYRI_HCB_MTU_OFF) = g->mtu;
    W(hcb + MYRI_HCB_FLAGS_OFF) = mcp_dma_notify ? MYRI_HCB_F_DMA_NOTIFY : 0;
    W(hcb + myri_hcb_sig_mid_off(g)) = MYRI_HCB_SIG_MID;
    W(hcb + myri_hcb_sig_end_off(g)) = MYRI_HCB_SIG_END;
    arm();
    if (mcp_rx_interrupt) LANAI_IMR = MYRI_LANAI_RECV_INT | MYRI_LANAI_BUFF_INT;
    W(hcb + MYRI_HCB_STATE_OFF) = MYRI_HCB_STATE_READY;
    W(MYRI_LANAI_HCB_PTR_ADDR) = hcb; /* last: the API waits for it */
}

static void handshake(void) { W(hcb + MYRI_HCB_HANDSHAKE_ACK_OFF) = W(hcb + MYRI_HCB_HANDSHAKE_OFF); }

/* ---- receive DMA ----------------------------------------------------------------------- */

static void rdma_step(unsigned isr)
{
    if (dstate == D_DISCARD) { /* the rest of a packet too long for a buffer */
        unsigned bit = isr & MYRI_LANAI_BUFF_INT ? MYRI_LANAI_BUFF_INT : MYRI_LANAI_RECV_INT;
        LANAI_ISR = bit;
        arm();
        if (bit == MYRI_LANAI_RECV_INT) dstate = D_ARMED;
        return;
    }
    if (isr & MYRI_LANAI_RECV_INT) {
        LANAI_ISR = MYRI_LANAI_RECV_INT;
        unsigned start = rxbuf(rx_tail) + 4, rmp = REG(RMP);
        unsigned n = rmp > start ? rmp - start : 0;
        if (n == 0 || B(start + n - 1) != 0) {
            count(MYRI_HCB_C_DROP_CRC);
        } else if (next_rx(rx_tail) == rx_head) {
            count(MYRI_HCB_C_DROP_POOL_FULL);
        } else {
            rx_bytes[rx_tail] = n;
            rx_tail = next_rx(rx_tail);
        }
        arm();
        return;
    }
    LANAI_ISR = MYRI_LANAI_BUFF_INT; /* longer than a buffer: dropped, the rest discarded */
    count(MYRI_HCB_C_DROP_TOO_LONG);
    arm();
    dstate = D_DISCARD;
}

/* ---- host DMA ------------------------------------------------------------------------------ */

/* The head rx packet's fault (MYRI_HCB_C_RX_GOOD: none). */
static unsigned verdict(unsigned f, unsigned n)
{
    if (n < MYRI_FRAME_HDR_BYTES + 1) return MYRI_HCB_C_DROP_SHORT;
    if (B(f + n - 1) != 0) return MYRI_HCB_C_DROP_CRC;
    if ((B(f) << 8 | B(f + 1)) != MYRI_FRAME_TYPE_CRL) return MYRI_HCB_C_DROP_TYPE;
    if (B(f + 2) != MYRI_FRAME_SUBTYPE_API0_DATA) return MYRI_HCB_C_DROP_SUBTYPE;
    unsigned c = B(f + 3);
    if (c >= mcp_nchan) return MYRI_HCB_C_DROP_CHAN;
    unsigned rc = rchan(c);
    if (!W(rc + MYRI_HCB_RC_ENABLED) || n - 5 + MYRI_SLOT_OVERHEAD > W(rc + MYRI_HCB_RC_SLOT_BYTES))
        return MYRI_HCB_C_DROP_CHAN;
    return MYRI_HCB_C_RX_GOOD;
}

INLINE int chan_room(unsigned c) { return rc_put[c] - W(rchan(c) + MYRI_HCB_RC_FREED) < mcp_recv_q - 1; }

/* The send queue's head entry, if any. */
static int sq_entry(sentry *e)
{
    unsigned tail = W(sq + MYRI_HCB_SQ_TAIL);
    if (tail >= mcp_send_q || tail == sq_head) return 0;
    unsigned a = sq + MYRI_HCB_SQ_HDR_BYTES + MYRI_HCB_SE_BYTES * sq_head; /* a shift */
    e->addr = W(a + MYRI_HCB_SE_ADDR);
    e->len = W(a + MYRI_HCB_SE_LEN);
    e->route = W(a + MYRI_HCB_SE_ROUTE);
    unsigned cf = W(a + MYRI_HCB_SE_CHAN);
    e->chan = cf & 0xffffu;
    e->pio = (cf >> 16) & MYRI_HCB_SE_F_PIO;
    return 1;
}

/* The head the host sees: the oldest PIO slot still in the tx pool, else the next entry to take. */
static void sq_publish(void)
{
    unsigned head = sq_head;
    for (unsigned i = tx_head; i != tx_tail; i = next_tx(i))
        if (txq[i].slot != NO_SLOT) {
            head = txq[i].slot;
            break;
        }
    W(sq + MYRI_HCB_SQ_HEAD) = head;
}

static void tx_put(const sentry *e, unsigned src, unsigned slot)
{
    txe *t = &txq[tx_tail];
    t->src = src;
    t->len = e->len;
    t->route = e->route;
    t->chan = e->chan;
    t->slot = slot;
    tx_tail = next_tx(tx_tail);
}

static void to_host(unsigned f, unsigned n)
{
    unsigned c = B(f + 3), rc = rchan(c);
    cur_chan = c;
    unsigned a = W(rc + MYRI_HCB_RC_HOST_ADDR), sb = W(rc + MYRI_HCB_RC_SLOT_BYTES);
    for (unsigned k = rc_slot[c]; k; k >>= 1, sb <<= 1) /* + slot index x slot bytes, by shifts */
        if (k & 1) a += sb;
    cur_slot = a;
    W(f - 4) = n - MYRI_FRAME_HDR_BYTES - 1; /* the length word, DMA'd last */
    held = 0;
    hdma(cur_slot + MYRI_SLOT_HDR, f, MYRI_LANAI_DIR_L2E, n);
    hstate = H_TO_HOST;
}

static void take_send(sentry *e)
{
    unsigned i = sq_head;
    sq_head = sq_head + 1 == mcp_send_q ? 0 : sq_head + 1;
    if (e->len > mcp_mtu || (e->pio && e->len > mcp_pio_bytes)) { /* a bad entry: dropped */
        sq_publish();
        count(MYRI_HCB_C_TX_DROPPED);
    } else if (e->pio || e->len == 0) { /* PIO: the tx pool points at the entry's PIO buffer */
        tx_put(e, pio_addr[i], i);
        sq_publish();
    } else if (mcp_ovl_send && tx_head == tx_tail) { /* overlapped: queued at once, the send DMA follows LAR */
        unsigned src = txbuf(tx_tail);
        sq_publish();
        tx_put(e, src, NO_SLOT);
        ovl_tx = 1;
        ovl_pos = src;
        hdma(e->addr, src, MYRI_LANAI_DIR_E2L, e->len);
        hstate = H_FROM_HOST;
    } else {
        sq_publish();
        cur_tx = tx_tail;
        cur_e = *e;
        hdma(e->addr, txbuf(tx_tail), MYRI_LANAI_DIR_E2L, e->len);
        hstate = H_FROM_HOST;
    }
}

/* IDLE: drops by reason, hold, sends (policy new: after a deliverable receive), the to-host DMA. */
static void hdma_idle(void)
{
    unsigned f = 0, n = 0, v = V_NONE;
    if (rx_head != rx_tail) {
        f = rxbuf(rx_head) + 4;
        n = rx_bytes[rx_head];
        v = verdict(f, n);
        if (v != MYRI_HCB_C_RX_GOOD) {
            rx_head = next_rx(rx_head);
            count(v);
            return;
        }
    }
    int deliverable = v == MYRI_HCB_C_RX_GOOD && chan_room(B(f + 3));
    if (v == MYRI_HCB_C_RX_GOOD && !deliverable && !held) {
        held = 1;
        count(MYRI_HCB_C_HELD);
        return;
    }
    sentry e;
    if (sq_entry(&e)) {
        int bad = e.len > mcp_mtu || (e.pio && e.len > mcp_pio_bytes);
        if (bad || (!tx_full() && !deliverable)) {
            take_send(&e);
            return;
        }
    }
    if (deliverable) to_host(f, n);
}

static void deliver(void)
{
    rx_head = next_rx(rx_head);
    unsigned c = cur_chan;
    rc_put[c]++;
    rc_slot[c] = rc_slot[c] + 1 == mcp_recv_q ? 0 : rc_slot[c] + 1;
    W(rchan(c) + MYRI_HCB_RC_PUT) = rc_put[c];
    count(MYRI_HCB_C_RX_GOOD);
    if (mcp_dma_notify) {
        notify_word = rc_put[c];
        hdma(W(rchan(c) + MYRI_HCB_RC_POLL_ADDR), (unsigned)&notify_word, MYRI_LANAI_DIR_L2E, 4);
        hstate = H_NOTIFY;
    } else {
        hstate = H_IDLE;
    }
}

static void hdma_step(unsigned isr)
{
    if (hstate == H_IDLE) {
        hdma_idle();
        return;
    }
    if (!(isr & MYRI_LANAI_DMA_INT)) return;
    LANAI_ISR = MYRI_LANAI_DMA_INT;
    switch (hstate) {
    case H_FROM_HOST:
        if (!ovl_tx) tx_put(&cur_e, txbuf(cur_tx), NO_SLOT);
        ovl_tx = 0;
        hstate = H_IDLE;
        break;
    case H_TO_HOST:
        hdma(cur_slot + MYRI_SLOT_LEN, rxbuf(rx_head), MYRI_LANAI_DIR_L2E, 4);
        hstate = H_TO_HOST_LEN;
        break;
    case H_TO_HOST_LEN: deliver(); break;
    default: hstate = H_IDLE; break; /* H_NOTIFY: the count is in host memory */
    }
}

/* ---- send DMA ------------------------------------------------------------------------------- */

/* The head tx entry's route: -1 invalid, else its length (0: none); *a its word-aligned bytes. */
static int tx_route(const txe *t, unsigned *a)
{
    *a = 0;
    if (t->route == 0) return 0;
    if (t->route >= nroutes) return -1;
    unsigned e = route_addr[t->route], n = W(e);
    if (n > mcp_route_max) return -1;
    *a = e + 4;
    return (int)n;
}

static void header(const txe *t)
{
    REG(SW) = MYRI_FRAME_TYPE_CRL << 16 | MYRI_FRAME_SUBTYPE_API0_DATA << 8 | (t->chan & 0xffu);
}

static void body(unsigned from, unsigned to, int tail)
{
    REG(SMP) = from;
    REG(SA) = 0;
    if (tail) REG(SMLT) = to;
    else REG(SML) = to;
}

/* Bytes of the head packet in SRAM (overlapped send: up to the live LAR). */
static unsigned landed(const txe *t)
{
    if (!ovl_tx) return t->len;
    unsigned lar = REG(LAR), got = lar > t->src ? lar - t->src : 0;
    return got < t->len ? got : t->len;
}

static void sent(int dropped)
{
    tx_head = next_tx(tx_head);
    sq_publish(); /* a PIO slot is free now */
    count(dropped ? MYRI_HCB_C_TX_DROPPED : MYRI_HCB_C_TX_SENT);
    sstate = S_IDLE;
}

static void sdma_start(const txe *t)
{
    unsigned a;
    int rl = tx_route(t, &a);
    if (rl < 0) {
        sent(1);
        return;
    }
    if (rl > 0) { /* the route by the send DMA, its leading pad skipped by SA (seed 001 figure 3) */
        REG(SMP) = a;
        REG(SA) = R4((unsigned)rl) - (unsigned)rl;
        REG(SML) = a + R4((unsigned)rl);
        ovl_pos = t->src;
        sstate = ovl_tx ? S_OVL_ROUTE : S_ROUTE;
        return;
    }
    if (t->len == 0) {
        REG(SH) = MYRI_FRAME_TYPE_CRL;
        REG(SB) = MYRI_FRAME_SUBTYPE_API0_DATA;
        REG(ST) = t->chan & 0xffu;
        sstate = S_BODY;
        return;
    }
    header(t);
    ovl_pos = t->src;
    if (ovl_tx) {
        sstate = S_OVL_WAIT;
    } else {
        body(t->src, t->src + t->len, 1);
        sstate = S_BODY;
    }
}

static void ovl_wait(const txe *t)
{
    unsigned end = t->src + landed(t);
    if (end == t->src + t->len) {
        body(ovl_pos, end, 1);
        ovl_pos = end;
        sstate = S_BODY;
    } else if (end - ovl_pos >= mcp_ovl_send_thr) {
        body(ovl_pos, end, 0);
        ovl_pos = end;
        sstate = S_OVL_CHUNK;
    }
}

static void sdma_step(unsigned isr)
{
    const txe *t = &txq[tx_head];
    switch (sstate) {
    case S_IDLE: {
        unsigned thr = mcp_ovl_send_thr < t->len ? mcp_ovl_send_thr : t->len;
        if (!ovl_tx || landed(t) >= thr) sdma_start(t);
        return;
    }
    case S_OVL_WAIT: ovl_wait(t); return;
    default: break;
    }
    if (!(isr & MYRI_LANAI_SEND_INT)) return;
    LANAI_ISR = MYRI_LANAI_SEND_INT;
    if (sstate == S_ROUTE) {
        header(t);
        body(t->src, t->src + t->len, 1);
        sstate = S_BODY;
    } else if (sstate == S_OVL_ROUTE) {
        header(t);
        sstate = S_OVL_WAIT;
    } else if (sstate == S_OVL_CHUNK) {
        sstate = S_OVL_WAIT;
    } else {
        sent(0);
    }
}

/* ---- the polling loop -------------------------------------------------------------------- */

/* Something for the host-DMA machine: in IDLE a receive not held by its full
 * channel or a send entry with room in the tx pool; else its DMA done. */
INLINE int hdma_work(unsigned isr)
{
    if (hstate != H_IDLE) return (isr & MYRI_LANAI_DMA_INT) != 0;
    if (rx_head != rx_tail && !(held && !chan_room(B(rxbuf(rx_head) + 7)))) return 1;
    unsigned tail = W(sq + MYRI_HCB_SQ_TAIL);
    return tail != sq_head && !tx_full();
}

INLINE int sdma_work(unsigned isr)
{
    if (sstate == S_IDLE) return tx_head != tx_tail;
    if (sstate == S_OVL_WAIT) return 1;
    return (isr & MYRI_LANAI_SEND_INT) != 0;
}

int main(void)
{
    boot();
    for (;;) {
        unsigned isr = LANAI_ISR;
        if (!mcp_rx_interrupt && (isr & (MYRI_LANAI_RECV_INT | MYRI_LANAI_BUFF_INT))) rdma_step(isr);
        if (W(hcb + MYRI_HCB_HANDSHAKE_OFF) != W(hcb + MYRI_HCB_HANDSHAKE_ACK_OFF)) handshake();
        if (hdma_work(isr)) hdma_step(isr);
        if (sdma_work(isr)) sdma_step(isr);
    }
}

/* The interrupt handler (interrupt receive): the simulator calls it when ISR
 * & IMR != 0 between two steps of the loop, with the loop's state saved. */
void lanai_isr(void)
{
    unsigned isr = LANAI_ISR;
    if (isr & (MYRI_LANAI_RECV_INT | MYRI_LANAI_BUFF_INT)) rdma_step(isr);
}
