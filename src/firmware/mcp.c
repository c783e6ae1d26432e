/* mcp.c -- seed 001's MCP: parameters, state, the concrete actions, events
 * and guards.  The tables that tie them together are in mcp_tables.c.
 * See docs/FIRMWARE.md ("mcp").
 *
 * SRAM layout (bytes): the HCB at mcp.hcb_addr (common/hcb.h), then the tx
 * pool (tx_pool buffers of round4(mtu): payload only, the frame header goes
 * out by PIO), then the rx pool (rx_pool buffers of 4 + round4(4 + mtu + 1):
 * a length word, then the receive window: frame header, payload, CRC byte),
 * then one scratch word (the DMA notification's source).  All below the
 * stack top (MYRI_LANAI_STACK_TOP) and inside nic.sram.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/mapwire.h"
#include "firmware/mcp_int.h"
#include "firmware/mcp_map.h"

#define OFF(f) offsetof(myri_mcp_params, f)
/* mcp.nroutes = 0 with no network to size it from (a MCP made outside a
 * system job, as the unit tests do): the table's size before issue 23. */
#define MCP_NROUTES_UNSIZED 64u

const myri_param myri_mcp_param_table[] = {
    {"nchan", MYRI_P_INT, NULL, "8", "1", "64",
     "receive channels in the HCB; assumption: seed 001 makes it a compile-time constant "
     "(MYRI_API0_NUM_CHANNELS) without giving its value",
     OFF(nchan), NULL},
    {"send_q", MYRI_P_INT, NULL, "9", "2", "256",
     "send queue slots (one is never used): 9 lets 8 sends be in flight, seed 001's \"up to 8 packets at a time "
     "(the send channel max)\"",
     OFF(send_q), NULL},
    {"recv_q", MYRI_P_INT, NULL, "16", "2", "1024",
     "receive slots per channel in host memory; assumption (seed 001 gives no number)", OFF(recv_q), NULL},
    {"nroutes", MYRI_P_INT, NULL, "0", "0", "1024",
     "route table entries (entry 0: no route, so a host reaches at most nroutes - 1 peers); 0: sized from the "
     "network, one entry per host (a MCP created outside a system, in a unit test, takes 64); at most 1024, the "
     "host library's table (src/host/api0.c)",
     OFF(nroutes), NULL},
    {"route_max", MYRI_P_INT, NULL, "16", "1", "64",
     "longest route, bytes; assumption: 16 switch hops exceed any network of the seeds", OFF(route_max), NULL},
    {"pio_bytes", MYRI_P_SIZE, "B", "256B", "0B", "64KiB",
     "PIO buffer per send queue entry: payloads up to this are written by the host into SRAM (0: PIO off); "
     "assumption: seed 001 says only \"a compile time constant\"; with the default bus.pio_* PIO is faster than "
     "host DMA at 256 B and slower at 512 B (myri bench latency --set mcp.pio_bytes=0 / =1024)",
     OFF(pio_bytes), NULL},
    {"mtu", MYRI_P_SIZE, "B", "8KiB", "4B", "1MiB",
     "largest application payload; seed 001's benchmarks go up to 8 KB packets", OFF(mtu), NULL},
    {"tx_pool", MYRI_P_INT, NULL, "4", "2", "256",
     "tx pool slots (dual-pointer queue: one fewer usable); assumption: seed 001 says it \"only needs to be large "
     "enough to keep the send-DMA engine busy\"",
     OFF(tx_pool), NULL},
    {"rx_pool", MYRI_P_INT, NULL, "16", "2", "1024",
     "rx pool buffers; the one a full queue cannot use is the always-armed receive buffer (seed 001); "
     "assumption: \"much larger than the tx pool\"",
     OFF(rx_pool), NULL},
    {"high_water", MYRI_P_INT, NULL, "8", "1", "1024",
     "policy old: rx pool packets above which receives go first (seed 001 names a high-water mark, no value; "
     "assumption: half the default pool)",
     OFF(high_water), NULL},
    {"recv_mode", MYRI_P_ENUM, NULL, "interrupt", NULL, NULL,
     "receive: interrupt (system context, seed 001's original mode) or polled (user context; needed for "
     "overlapped receive)",
     OFF(recv_mode), "interrupt|polled"},
    {"policy", MYRI_P_ENUM, NULL, "new", NULL, NULL,
     "host-DMA selection (seed 001): new = any pending receive, then sends; old = receives over high_water, "
     "then sends while the tx pool is not full, then any receive",
     OFF(policy), "new|old"},
    {"route_send", MYRI_P_ENUM, NULL, "sa", NULL, NULL,
     "route bytes: sa = send DMA with the send-align register (seed 001's later MCP), pio = SB/SH/SW "
     "(its early MCP)",
     OFF(route_send), "sa|pio"},
    {"ovl_send", MYRI_P_BOOL, NULL, "true", NULL, NULL,
     "overlap the send DMA with the from-host DMA in chunks when the tx pool is empty (seed 001)",
     OFF(ovl_send), NULL},
    {"ovl_send_thr", MYRI_P_SIZE, "B", "256B", "4B", "1MiB",
     "overlapped send: least bytes sent per chunk (the last chunk goes whatever its size); assumption: seed 001 "
     "calls it \"a variable\"",
     OFF(ovl_send_thr), NULL},
    {"ovl_recv", MYRI_P_BOOL, NULL, "false", NULL, NULL,
     "overlap the to-host DMA with the receive DMA in chunks, following the live RMP (seed 001's new MCP); "
     "polled receive only: with recv_mode interrupt it is ignored (seed 001: interrupt-driven receive does not "
     "allow the overlap); default false with the default interrupt mode, seed 001's original (old) MCP",
     OFF(ovl_recv), NULL},
    {"ovl_recv_thr", MYRI_P_SIZE, "B", "256B", "5B", "1MiB",
     "overlapped receive: least bytes per to-host chunk (the last chunk goes whatever its size); must exceed the "
     "4-byte frame header (seed 001: the channel is read from it); assumption: the same 256 B as ovl_send_thr; "
     "at or above the MTU no chunk goes before the tail",
     OFF(ovl_recv_thr), NULL},
    {"dma_notify", MYRI_P_BOOL, NULL, "true", NULL, NULL,
     "after each delivery DMA the channel's count into its poll word in host memory (seed 001)",
     OFF(dma_notify), NULL},
    {"rearm", MYRI_P_BOOL, NULL, "true", NULL, NULL,
     "re-arm the receive DMA after a packet (false: a broken firmware for tests, STOP reaches the network)",
     OFF(rearm), NULL},
    {"hcb_addr", MYRI_P_SIZE, "B", "4KiB", "256B", "256KiB",
     "SRAM address of the HCB (seed 001: anywhere; its address goes to SRAM 0xC); assumption: above crt0",
     OFF(hcb_addr), NULL},
    {"follow", MYRI_P_TIME, "ns", "200ns", "1ns", "1ms",
     "while following a live DMA pointer (overlapped send or receive) the idle loop looks again this often "
     "(the engines do not wake the CPU as pointers move); assumption: about 32 bytes of a 1.28 Gb/s link",
     OFF(follow_ps), NULL},
    {"packet_cycles", MYRI_P_INT, "cycles", "0", "0", "1000000",
     "extra LANai cycles per packet sent, charged when its tail has left, for MCPs heavier than seed 001's "
     "(seed 002: the 1994 API is \"limited by the number of instructions the interface's processor executes to "
     "handle each packet\", and a send involves \"a translation from a network address to a route, prepending the "
     "route and packet type\"; its preset calibrates this); 0: seed 001's MCP as written",
     OFF(packet_cycles), NULL},
};
const size_t myri_mcp_nparams = sizeof myri_mcp_param_table / sizeof myri_mcp_param_table[0];
_Static_assert(sizeof myri_mcp_param_table / sizeof myri_mcp_param_table[0] == MYRI_MCP_NPARAMS, "MYRI_MCP_NPARAMS");

void myri_mcp_params_default(void *params)
{
    myri_pset set = {"mcp", myri_mcp_param_table, myri_mcp_nparams, params};
    myri_error err;
    (void)myri_params_load(&set, 1, NULL, NULL, &err);
}

/* ---- memory helpers -------------------------------------------------------------- */

uint32_t myri_mcp_rd(mcp *m, uint32_t addr)
{
    const uint8_t *p = myri_lanai_sram(m->l, addr, 4);
    return p ? myri_be32_get(p) : 0;
}

void myri_mcp_wr(mcp *m, uint32_t addr, uint32_t v)
{
    uint8_t *p = myri_lanai_sram(m->l, addr, 4);
    if (p) myri_be32_put(p, v);
}

uint32_t myri_mcp_hcb(mcp *m, uint32_t off) { return myri_mcp_rd(m, m->hcb + off); }
void myri_mcp_hcb_wr(mcp *m, uint32_t off, uint32_t v) { myri_mcp_wr(m, m->hcb + off, v); }

static void mcp__count(mcp *m, uint32_t k)
{
    myri_fw_count(m->fi, k);
    myri_mcp_hcb_wr(m, myri_hcb_count_off(&m->g, k), (uint32_t)myri_fw_counter(m->fi, k));
    if (k == MYRI_HCB_C_TX_SENT || k == MYRI_HCB_C_TX_DROPPED)
        myri_mcp_hcb_wr(m, myri_hcb_sendq_off(&m->g) + MYRI_HCB_SQ_SENT,
                    (uint32_t)(myri_fw_counter(m->fi, MYRI_HCB_C_TX_SENT) +
                               myri_fw_counter(m->fi, MYRI_HCB_C_TX_DROPPED)));
}

static void mcp__reg(mcp *m, uint32_t reg, uint32_t v) { (void)myri_lanai_write(m->l, reg, v); }

static void mcp__hdma(mcp *m, uint32_t host, uint32_t sram, uint32_t dir, uint32_t bytes)
{
    mcp__reg(m, MYRI_LANAI_EAR, host);
    mcp__reg(m, MYRI_LANAI_LAR, sram);
    mcp__reg(m, MYRI_LANAI_DMA_DIR, dir);
    mcp__reg(m, MYRI_LANAI_DMA_CTR, myri_hcb_round4(bytes));
}

uint32_t myri_mcp_rxbuf(const mcp *m, uint32_t i) { return m->rx_base + i * m->rx_buf_bytes; }
uint32_t myri_mcp_txbuf(const mcp *m, uint32_t i) { return m->tx_base + i * m->tx_buf_bytes; }

/* Arms the receive window of the rx pool's tail buffer: the whole window, or
 * with overlapped receive only its head (rx_hw bytes: the frame header and
 * the first chunk), whose BUFF_INT tells the idle CPU that a packet is
 * coming in (the live RMP does not wake it); the rest is armed then. */
static void mcp__arm(mcp *m)
{
    uint32_t b = myri_mcp_rxbuf(m, m->rx_tail) + 4;
    mcp__reg(m, MYRI_LANAI_RMP, b);
    mcp__reg(m, MYRI_LANAI_RML, b + (m->ovl_rx_on ? m->rx_hw : m->rx_win));
}

static void mcp__arm_rest(mcp *m)
{
    uint32_t b = myri_mcp_rxbuf(m, m->rx_tail) + 4;
    mcp__reg(m, MYRI_LANAI_RMP, b + m->rx_hw);
    mcp__reg(m, MYRI_LANAI_RML, b + m->rx_win);
}

/* ---- queue state as the guards see it ------------------------------------------------- */

uint32_t myri_mcp_q_n(uint32_t head, uint32_t tail, uint32_t n) { return (tail + n - head) % n; }
bool myri_mcp_tx_full(const mcp *m) { return (m->tx_tail + 1) % m->ntx == m->tx_head; }
bool myri_mcp_rx_full(const mcp *m) { return (m->rx_tail + 1) % m->nrx == m->rx_head; }

/* The send queue entry at the head, if the queue is not empty. */
bool myri_mcp_sq_entry(mcp *m, mcp_sentry *e)
{
    uint32_t tail = myri_mcp_hcb(m, myri_hcb_sendq_off(&m->g) + MYRI_HCB_SQ_TAIL);
    if (tail >= m->g.send_q || tail == m->sq_head) return false;
    uint32_t a = m->hcb + myri_hcb_sentry_off(&m->g, m->sq_head);
    e->addr = myri_mcp_rd(m, a + MYRI_HCB_SE_ADDR);
    e->len = myri_mcp_rd(m, a + MYRI_HCB_SE_LEN);
    e->route = myri_mcp_rd(m, a + MYRI_HCB_SE_ROUTE);
    uint32_t cf = myri_mcp_rd(m, a + MYRI_HCB_SE_CHAN);
    e->chan = cf & 0xffffu;
    e->pio = ((cf >> 16) & MYRI_HCB_SE_F_PIO) != 0;
    return true;
}

/* The head rx packet's frame (NULL if the pool is empty) and its bytes. */
const uint8_t *myri_mcp_rx_head(mcp *m, uint32_t *n)
{
    if (m->rx_head == m->rx_tail) return NULL;
    *n = m->rx_bytes[m->rx_head];
    return myri_lanai_sram(m->l, myri_mcp_rxbuf(m, m->rx_head) + 4, m->rx_win);
}

/* Room for one more packet in channel c. */
bool myri_mcp_chan_room(mcp *m, uint32_t c)
{
    uint32_t base = myri_hcb_rchan_off(&m->g, c);
    uint32_t freed = myri_mcp_hcb(m, base + MYRI_HCB_RC_FREED);
    return m->rc_put[c] - freed < m->g.recv_q - 1;
}

/* The head frame's fault (MYRI_HCB_C_RX_GOOD: none). */
uint32_t myri_mcp_rx_verdict(mcp *m, const uint8_t *f, uint32_t n)
{
    if (n < MYRI_FRAME_HDR_BYTES + 1) return MYRI_HCB_C_DROP_SHORT;
    if (f[n - 1] != 0) return MYRI_HCB_C_DROP_CRC;
    if (m->map_on && ((uint32_t)f[0] << 8 | f[1]) == MYRI_MAPW_TYPE) return MYRI_MCP_VERDICT_MAP;
    if (((uint32_t)f[0] << 8 | f[1]) != MYRI_FRAME_TYPE_CRL) return MYRI_HCB_C_DROP_TYPE;
    if (f[2] != MYRI_FRAME_SUBTYPE_API0_DATA) return MYRI_HCB_C_DROP_SUBTYPE;
    uint32_t c = f[3];
    if (c >= m->g.nchan) return MYRI_HCB_C_DROP_CHAN;
    uint32_t base = myri_hcb_rchan_off(&m->g, c);
    uint32_t slot = myri_mcp_hcb(m, base + MYRI_HCB_RC_SLOT_BYTES);
    if (!myri_mcp_hcb(m, base + MYRI_HCB_RC_ENABLED) || n - 5 + MYRI_SLOT_OVERHEAD > slot) return MYRI_HCB_C_DROP_CHAN;
    return MYRI_HCB_C_RX_GOOD;
}

/* Overlapped receive may start on the packet coming into the armed buffer:
 * its header is good (type, subtype, channel enabled), the channel has room,
 * and the slot holds whatever the window can take (length word + window), so
 * no chunk can spill out of it. */
bool myri_mcp_ovl_rx_ok(mcp *m)
{
    const uint8_t *f = myri_lanai_sram(m->l, myri_mcp_rxbuf(m, m->rx_tail) + 4, MYRI_FRAME_HDR_BYTES);
    if (!f || ((uint32_t)f[0] << 8 | f[1]) != MYRI_FRAME_TYPE_CRL || f[2] != MYRI_FRAME_SUBTYPE_API0_DATA) return false;
    uint32_t c = f[3];
    if (c >= m->g.nchan) return false;
    uint32_t base = myri_hcb_rchan_off(&m->g, c);
    if (!myri_mcp_hcb(m, base + MYRI_HCB_RC_ENABLED)) return false;
    if (myri_mcp_hcb(m, base + MYRI_HCB_RC_SLOT_BYTES) < 4 + m->rx_win) return false;
    return myri_mcp_chan_room(m, c);
}

/* Overlapped receive: the end (SRAM address) of the bytes of the frame at
 * fbuf that may go to the host now: whole words, never the last byte
 * received (it may be the trailer byte, rewritten with the CRC remainder at
 * the tail). */
uint32_t myri_mcp_ovl_rx_end(mcp *m, uint32_t fbuf)
{
    uint32_t rmp = myri_lanai_read(m->l, MYRI_LANAI_RMP);
    return rmp > fbuf ? fbuf + ((rmp - 1 - fbuf) & ~3u) : fbuf;
}

/* ---- actions: init and handshake ------------------------------------------------------ */

static void mcp__build_hcb(mcp *m)
{
    uint8_t *h = myri_lanai_sram(m->l, m->hcb, myri_hcb_bytes(&m->g));
    if (!h) return;
    memset(h, 0, myri_hcb_bytes(&m->g));
    const myri_hcb_geom *g = &m->g;
    myri_mcp_hcb_wr(m, MYRI_HCB_SIG_START_OFF, MYRI_HCB_SIG_START);
    myri_mcp_hcb_wr(m, MYRI_HCB_BYTES_OFF, myri_hcb_bytes(g));
    myri_mcp_hcb_wr(m, MYRI_HCB_NCHAN_OFF, g->nchan);
    myri_mcp_hcb_wr(m, MYRI_HCB_SEND_Q_OFF, g->send_q);
    myri_mcp_hcb_wr(m, MYRI_HCB_RECV_Q_OFF, g->recv_q);
    myri_mcp_hcb_wr(m, MYRI_HCB_NROUTES_OFF, g->nroutes);
    myri_mcp_hcb_wr(m, MYRI_HCB_ROUTE_MAX_OFF, g->route_max);
    myri_mcp_hcb_wr(m, MYRI_HCB_PIO_BYTES_OFF, g->pio_bytes);
    myri_mcp_hcb_wr(m, MYRI_HCB_MTU_OFF, g->mtu);
    myri_mcp_hcb_wr(m, MYRI_HCB_FLAGS_OFF, m->p.dma_notify ? MYRI_HCB_F_DMA_NOTIFY : 0);
    myri_mcp_hcb_wr(m, myri_hcb_sig_mid_off(g), MYRI_HCB_SIG_MID);
    myri_mcp_hcb_wr(m, myri_hcb_sig_end_off(g), MYRI_HCB_SIG_END);
}

void myri_mcp_a_boot(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__build_hcb(m);
    mcp__arm(m);
    myri_fw_set(m->fi, MYRI_MCP_V_STATE, MYRI_HCB_STATE_READY);
    myri_mcp_hcb_wr(m, MYRI_HCB_STATE_OFF, MYRI_HCB_STATE_READY);
    myri_mcp_wr(m, MYRI_LANAI_HCB_PTR_ADDR, m->hcb); /* last: the API waits for it */
}

uint32_t myri_mcp_x_packet(void *fw, myri_lanai *l)
{
    (void)l;
    return (uint32_t)((mcp *)fw)->p.packet_cycles;
}

uint32_t myri_mcp_x_boot(void *fw, myri_lanai *l)
{
    (void)l;
    return myri_hcb_bytes(&((mcp *)fw)->g) / 4; /* one store per HCB word */
}

void myri_mcp_a_enable_intr(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__reg(m, MYRI_LANAI_IMR, MYRI_LANAI_RECV_INT | MYRI_LANAI_BUFF_INT);
}

void myri_mcp_a_handshake(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    uint32_t tok = myri_mcp_hcb(m, MYRI_HCB_HANDSHAKE_OFF);
    myri_mcp_hcb_wr(m, MYRI_HCB_HANDSHAKE_ACK_OFF, tok);
    myri_fw_set(m->fi, MYRI_MCP_V_HS, (int32_t)tok);
}

/* ---- actions: host DMA machine ------------------------------------------------------------ */

static void mcp__rx_drop(mcp *m, uint32_t k)
{
    m->rx_head = (m->rx_head + 1) % m->nrx;
    myri_fw_q_get(m->fi, MYRI_MCP_Q_RX);
    mcp__count(m, k);
}

void myri_mcp_a_drop_short(void *fw, myri_lanai *l) { (void)l, mcp__rx_drop(fw, MYRI_HCB_C_DROP_SHORT); }
void myri_mcp_a_drop_crc(void *fw, myri_lanai *l) { (void)l, mcp__rx_drop(fw, MYRI_HCB_C_DROP_CRC); }
void myri_mcp_a_drop_type(void *fw, myri_lanai *l) { (void)l, mcp__rx_drop(fw, MYRI_HCB_C_DROP_TYPE); }
void myri_mcp_a_drop_subtype(void *fw, myri_lanai *l) { (void)l, mcp__rx_drop(fw, MYRI_HCB_C_DROP_SUBTYPE); }
void myri_mcp_a_drop_chan(void *fw, myri_lanai *l) { (void)l, mcp__rx_drop(fw, MYRI_HCB_C_DROP_CHAN); }

void myri_mcp_a_hold(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    myri_fw_set(m->fi, MYRI_MCP_V_HELD, 1);
    mcp__count(m, MYRI_HCB_C_HELD);
}

/* Where the head packet goes: its channel and slot's bus address. */
static uint32_t mcp__slot(mcp *m, uint32_t c)
{
    uint32_t base = myri_hcb_rchan_off(&m->g, c);
    uint32_t addr = myri_mcp_hcb(m, base + MYRI_HCB_RC_HOST_ADDR);
    uint32_t sb = myri_mcp_hcb(m, base + MYRI_HCB_RC_SLOT_BYTES);
    return addr + (m->rc_put[c] % m->g.recv_q) * sb;
}

/* To-host DMA of the head frame (header, payload, CRC byte) into its slot after the length word. */
void myri_mcp_a_to_host(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    uint32_t n = 0;
    const uint8_t *f = myri_mcp_rx_head(m, &n);
    uint32_t c = f ? f[3] : 0;
    m->cur_chan = c;
    m->cur_slot = mcp__slot(m, c);
    uint32_t buf = myri_mcp_rxbuf(m, m->rx_head);
    myri_mcp_wr(m, buf, n - MYRI_FRAME_HDR_BYTES - 1); /* the length word, DMA'd last */
    myri_fw_set(m->fi, MYRI_MCP_V_HELD, 0);
    mcp__hdma(m, m->cur_slot + MYRI_SLOT_HDR, buf + 4, MYRI_LANAI_DIR_L2E, n);
}

void myri_mcp_a_to_host_len(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__reg(m, MYRI_LANAI_ISR, MYRI_LANAI_DMA_INT);
    uint32_t buf = myri_mcp_rxbuf(m, m->rx_head);
    mcp__hdma(m, m->cur_slot + MYRI_SLOT_LEN, buf, MYRI_LANAI_DIR_L2E, 4);
}

static void mcp__deliver(mcp *m)
{
    mcp__reg(m, MYRI_LANAI_ISR, MYRI_LANAI_DMA_INT);
    m->rx_head = (m->rx_head + 1) % m->nrx;
    myri_fw_q_get(m->fi, MYRI_MCP_Q_RX);
    uint32_t c = m->cur_chan;
    m->rc_put[c]++;
    myri_mcp_hcb_wr(m, myri_hcb_rchan_off(&m->g, c) + MYRI_HCB_RC_PUT, m->rc_put[c]);
    myri_fw_q_put(m->fi, MYRI_MCP_Q_RCHAN);
    mcp__count(m, MYRI_HCB_C_RX_GOOD);
}

void myri_mcp_a_deliver(void *fw, myri_lanai *l)
{
    (void)l;
    mcp__deliver(fw);
}

void myri_mcp_a_deliver_notify(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__deliver(m);
    uint32_t c = m->cur_chan;
    myri_mcp_wr(m, m->scratch, m->rc_put[c]);
    uint32_t poll = myri_mcp_hcb(m, myri_hcb_rchan_off(&m->g, c) + MYRI_HCB_RC_POLL_ADDR);
    mcp__hdma(m, poll, m->scratch, MYRI_LANAI_DIR_L2E, 4);
}

void myri_mcp_a_dma_done(void *fw, myri_lanai *l)
{
    (void)l;
    mcp__reg(fw, MYRI_LANAI_ISR, MYRI_LANAI_DMA_INT);
}

/* Overlapped receive: DMA the frame bytes [rx_pos, end) to the same place in the slot. */
static void mcp__ovl_rx_dma(mcp *m, uint32_t end)
{
    mcp__hdma(m, m->cur_slot + MYRI_SLOT_HDR + (m->rx_pos - m->rx_fbuf), m->rx_pos, MYRI_LANAI_DIR_L2E,
              end - m->rx_pos);
    m->rx_pos = end;
}

void myri_mcp_a_ovl_rx_start(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    uint32_t b = myri_mcp_rxbuf(m, m->rx_tail) + 4;
    const uint8_t *f = myri_lanai_sram(m->l, b, MYRI_FRAME_HDR_BYTES);
    m->cur_chan = f ? f[3] : 0;
    m->cur_slot = mcp__slot(m, m->cur_chan);
    m->rx_fbuf = m->rx_pos = b;
    myri_fw_set(m->fi, MYRI_MCP_V_OVL_RX, MYRI_MCP_OVL_RX_FOLLOW);
    mcp__ovl_rx_dma(m, myri_mcp_ovl_rx_end(m, b));
}

void myri_mcp_a_ovl_rx_chunk(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__ovl_rx_dma(m, myri_mcp_ovl_rx_end(m, m->rx_fbuf));
}

void myri_mcp_a_ovl_rx_abort(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__reg(m, MYRI_LANAI_ISR, MYRI_LANAI_DMA_INT);
    myri_fw_set(m->fi, MYRI_MCP_V_OVL_RX, MYRI_MCP_OVL_RX_NONE);
}

void myri_mcp_a_ovl_rx_drop(void *fw, myri_lanai *l)
{
    (void)l;
    myri_fw_set(((mcp *)fw)->fi, MYRI_MCP_V_OVL_RX, MYRI_MCP_OVL_RX_NONE);
}

/* The followed packet is complete and deliverable (the rx pool's head): its
 * last chunk whatever its size, then (TO_HOST) the length word as usual. */
void myri_mcp_a_ovl_rx_last(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    uint32_t n = m->rx_bytes[m->rx_head];
    myri_fw_set(m->fi, MYRI_MCP_V_OVL_RX, MYRI_MCP_OVL_RX_NONE);
    myri_mcp_wr(m, m->rx_fbuf - 4, n - MYRI_FRAME_HDR_BYTES - 1); /* the length word, DMA'd last */
    mcp__ovl_rx_dma(m, m->rx_fbuf + n);
}

/* The send queue's head as the host sees it (HCB SQ_HEAD): the slots before
 * it are free.  A PIO send's slot holds the payload the send DMA reads, so it
 * stays taken until the packet has left: the head published is the oldest
 * such slot still in the tx pool, else the next entry to take (sq_head).
 * (It used to be freed when the entry was taken: a host that refilled the slot
 * before the packet left sent the new payload under the old header.) */
static void mcp__sq_publish(mcp *m)
{
    uint32_t head = m->sq_head;
    for (uint32_t i = m->tx_head; i != m->tx_tail; i = (i + 1) % m->ntx)
        if (m->txe[i].slot != MCP_NO_SLOT) {
            head = m->txe[i].slot;
            break;
        }
    myri_mcp_hcb_wr(m, myri_hcb_sendq_off(&m->g) + MYRI_HCB_SQ_HEAD, head);
}

/* Takes the next send queue entry (the caller publishes the head). */
static void mcp__sq_next(mcp *m, mcp_sentry *e)
{
    (void)myri_mcp_sq_entry(m, e);
    m->sq_head = (m->sq_head + 1) % m->g.send_q;
    myri_fw_q_get(m->fi, MYRI_MCP_Q_SENDQ);
}

static void mcp__sq_take(mcp *m, mcp_sentry *e)
{
    mcp__sq_next(m, e);
    mcp__sq_publish(m);
}

static void mcp__tx_put(mcp *m, const mcp_sentry *e, uint32_t src, uint32_t slot)
{
    m->txe[m->tx_tail] = (mcp_txe){src, e->len, e->route, e->chan, slot};
    m->tx_tail = (m->tx_tail + 1) % m->ntx;
    myri_fw_q_put(m->fi, MYRI_MCP_Q_TX);
}

void myri_mcp_a_sq_bad(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp_sentry e;
    mcp__sq_take(m, &e);
    mcp__count(m, MYRI_HCB_C_TX_DROPPED);
}

/* PIO send (or an empty payload): the tx pool entry points at the PIO buffer. */
void myri_mcp_a_send_pio(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp_sentry e;
    uint32_t i = m->sq_head;
    mcp__sq_next(m, &e);
    mcp__tx_put(m, &e, m->hcb + myri_hcb_pio_off(&m->g, i), i);
    mcp__sq_publish(m);
}

static void mcp__from_host(mcp *m, mcp_sentry *e)
{
    mcp__sq_take(m, e);
    m->cur_tx = m->tx_tail;
    mcp__hdma(m, e->addr, myri_mcp_txbuf(m, m->tx_tail), MYRI_LANAI_DIR_E2L, e->len);
}

void myri_mcp_a_send_dma(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp_sentry e;
    mcp__from_host(m, &e);
    m->cur_e = e;
}

void myri_mcp_a_send_dma_ovl(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp_sentry e;
    uint32_t src = myri_mcp_txbuf(m, m->tx_tail);
    mcp__sq_take(m, &e);
    mcp__tx_put(m, &e, src, MCP_NO_SLOT); /* queued at once: the send DMA follows the live LAR */
    myri_fw_set(m->fi, MYRI_MCP_V_OVL_TX, 1);
    m->ovl_pos = src;
    mcp__hdma(m, e.addr, src, MYRI_LANAI_DIR_E2L, e.len);
}

void myri_mcp_a_from_host_done(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__reg(m, MYRI_LANAI_ISR, MYRI_LANAI_DMA_INT);
    mcp__tx_put(m, &m->cur_e, myri_mcp_txbuf(m, m->cur_tx), MCP_NO_SLOT);
}

void myri_mcp_a_from_host_done_ovl(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__reg(m, MYRI_LANAI_ISR, MYRI_LANAI_DMA_INT);
    myri_fw_set(m->fi, MYRI_MCP_V_OVL_TX, 0);
}

/* ---- actions: send DMA machine -------------------------------------------------------------- */

/* Route bytes of tx entry t: SRAM address of the word-aligned block and length (0: none). */
static uint32_t mcp__route(mcp *m, const mcp_txe *t, uint32_t *len)
{
    *len = 0;
    if (t->route == 0 || t->route >= m->g.nroutes) return 0;
    uint32_t e = m->hcb + myri_hcb_route_off(&m->g, t->route);
    uint32_t n = myri_mcp_rd(m, e);
    if (n > m->g.route_max) return 0;
    *len = n;
    return e + 4;
}

static void mcp__route_sa(mcp *m, const mcp_txe *t)
{
    uint32_t rl, a = mcp__route(m, t, &rl);
    mcp__reg(m, MYRI_LANAI_SMP, a);
    mcp__reg(m, MYRI_LANAI_SA, myri_hcb_round4(rl) - rl);
    mcp__reg(m, MYRI_LANAI_SML, a + myri_hcb_round4(rl));
}

static void mcp__route_pio(mcp *m, const mcp_txe *t)
{
    uint32_t rl, a = mcp__route(m, t, &rl);
    const uint8_t *r = myri_lanai_sram(m->l, a + myri_hcb_round4(rl) - rl, rl);
    uint32_t i = 0;
    for (; r && i + 4 <= rl; i += 4) mcp__reg(m, MYRI_LANAI_SW, myri_be32_get(r + i));
    if (r && i + 2 <= rl) mcp__reg(m, MYRI_LANAI_SH, (uint32_t)r[i] << 8 | r[i + 1]), i += 2;
    if (r && i < rl) mcp__reg(m, MYRI_LANAI_SB, r[i]);
}

static void mcp__hdr(mcp *m, const mcp_txe *t)
{
    mcp__reg(m, MYRI_LANAI_SW, MYRI_FRAME_TYPE_CRL << 16 | MYRI_FRAME_SUBTYPE_API0_DATA << 8 | (t->chan & 0xffu));
}

static void mcp__body(mcp *m, uint32_t from, uint32_t to)
{
    mcp__reg(m, MYRI_LANAI_SMP, from);
    mcp__reg(m, MYRI_LANAI_SA, 0);
    mcp__reg(m, MYRI_LANAI_SMLT, to);
}

static const mcp_txe *mcp__txh(const mcp *m) { return &m->txe[m->tx_head]; }

void myri_mcp_a_send_route(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__route_sa(m, mcp__txh(m));
}

void myri_mcp_a_send_pio_route(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    const mcp_txe *t = mcp__txh(m);
    mcp__route_pio(m, t);
    mcp__hdr(m, t);
    mcp__body(m, t->src, t->src + t->len);
}

void myri_mcp_a_send_empty(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    const mcp_txe *t = mcp__txh(m);
    mcp__route_pio(m, t);
    mcp__reg(m, MYRI_LANAI_SH, MYRI_FRAME_TYPE_CRL);
    mcp__reg(m, MYRI_LANAI_SB, MYRI_FRAME_SUBTYPE_API0_DATA);
    mcp__reg(m, MYRI_LANAI_ST, t->chan & 0xffu);
}

void myri_mcp_a_route_sent(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    const mcp_txe *t = mcp__txh(m);
    mcp__reg(m, MYRI_LANAI_ISR, MYRI_LANAI_SEND_INT);
    mcp__hdr(m, t);
    mcp__body(m, t->src, t->src + t->len);
}

void myri_mcp_a_sent(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__reg(m, MYRI_LANAI_ISR, MYRI_LANAI_SEND_INT);
    m->tx_head = (m->tx_head + 1) % m->ntx;
    myri_fw_q_get(m->fi, MYRI_MCP_Q_TX);
    mcp__sq_publish(m); /* a PIO slot is free now */
    mcp__count(m, MYRI_HCB_C_TX_SENT);
}

void myri_mcp_a_drop_route(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    m->tx_head = (m->tx_head + 1) % m->ntx;
    myri_fw_q_get(m->fi, MYRI_MCP_Q_TX);
    mcp__sq_publish(m);
    mcp__count(m, MYRI_HCB_C_TX_DROPPED);
}

/* Overlapped send: bytes of the head packet landed in SRAM so far. */
uint32_t myri_mcp_ovl_landed(mcp *m)
{
    const mcp_txe *t = mcp__txh(m);
    if (!myri_fw_get(m->fi, MYRI_MCP_V_OVL_TX)) return t->len;
    uint32_t lar = myri_lanai_read(m->l, MYRI_LANAI_LAR);
    uint32_t got = lar > t->src ? lar - t->src : 0;
    return got < t->len ? got : t->len;
}

void myri_mcp_a_ovl_route(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__route_sa(m, mcp__txh(m));
    m->ovl_pos = mcp__txh(m)->src;
}

void myri_mcp_a_ovl_start(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    const mcp_txe *t = mcp__txh(m);
    mcp__route_pio(m, t);
    mcp__hdr(m, t);
    m->ovl_pos = t->src;
}

void myri_mcp_a_ovl_route_sent(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__reg(m, MYRI_LANAI_ISR, MYRI_LANAI_SEND_INT);
    mcp__hdr(m, mcp__txh(m));
}

void myri_mcp_a_ovl_chunk(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    const mcp_txe *t = mcp__txh(m);
    uint32_t end = t->src + myri_mcp_ovl_landed(m);
    mcp__reg(m, MYRI_LANAI_SMP, m->ovl_pos);
    mcp__reg(m, MYRI_LANAI_SA, 0);
    /* The rule was chosen when fewer bytes had landed; if every byte is in
     * SRAM now, this chunk is the last: SMLT gives the packet's tail with it
     * (its SEND_INT then says the tail left: ovl_tail_sent). */
    mcp__reg(m, end == t->src + t->len ? MYRI_LANAI_SMLT : MYRI_LANAI_SML, end);
    m->ovl_pos = end;
}

void myri_mcp_a_ovl_last(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    const mcp_txe *t = mcp__txh(m);
    mcp__body(m, m->ovl_pos, t->src + t->len);
    m->ovl_pos = t->src + t->len;
}

void myri_mcp_a_ovl_chunk_sent(void *fw, myri_lanai *l)
{
    (void)l;
    mcp__reg(fw, MYRI_LANAI_ISR, MYRI_LANAI_SEND_INT);
}

/* ---- actions: receive DMA machines ---------------------------------------------------------------- */

uint32_t myri_mcp_received(mcp *m)
{
    uint32_t start = myri_mcp_rxbuf(m, m->rx_tail) + 4;
    uint32_t rmp = myri_lanai_read(m->l, MYRI_LANAI_RMP);
    return rmp > start ? rmp - start : 0;
}

void myri_mcp_a_rx_good(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__reg(m, MYRI_LANAI_ISR, MYRI_LANAI_RECV_INT);
    m->rx_bytes[m->rx_tail] = myri_mcp_received(m);
    m->rx_tail = (m->rx_tail + 1) % m->nrx;
    myri_fw_q_put(m->fi, MYRI_MCP_Q_RX);
    mcp__arm(m);
}

void myri_mcp_a_rx_stop(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__reg(m, MYRI_LANAI_ISR, MYRI_LANAI_RECV_INT); /* and never arms again: STOP */
}

static void mcp__rx_reuse(mcp *m, uint32_t bit, uint32_t k)
{
    mcp__reg(m, MYRI_LANAI_ISR, bit);
    if (k != MYRI_HCB_NCOUNT) mcp__count(m, k);
    mcp__arm(m);
}

void myri_mcp_a_rx_crc_bad(void *fw, myri_lanai *l) { (void)l, mcp__rx_reuse(fw, MYRI_LANAI_RECV_INT, MYRI_HCB_C_DROP_CRC); }
void myri_mcp_a_rx_pool_full(void *fw, myri_lanai *l)
{
    (void)l, mcp__rx_reuse(fw, MYRI_LANAI_RECV_INT, MYRI_HCB_C_DROP_POOL_FULL);
}
void myri_mcp_a_rx_too_long(void *fw, myri_lanai *l)
{
    (void)l, mcp__rx_reuse(fw, MYRI_LANAI_BUFF_INT, MYRI_HCB_C_DROP_TOO_LONG);
}
void myri_mcp_a_discard_more(void *fw, myri_lanai *l) { (void)l, mcp__rx_reuse(fw, MYRI_LANAI_BUFF_INT, MYRI_HCB_NCOUNT); }
void myri_mcp_a_discard_end(void *fw, myri_lanai *l) { (void)l, mcp__rx_reuse(fw, MYRI_LANAI_RECV_INT, MYRI_HCB_NCOUNT); }

/* Overlapped receive: the head window is full, the packet goes on into the rest. */
void myri_mcp_a_rx_head_in(void *fw, myri_lanai *l)
{
    mcp *m = fw;
    (void)l;
    mcp__reg(m, MYRI_LANAI_ISR, MYRI_LANAI_BUFF_INT);
    mcp__arm_rest(m);
}

/* The followed packet is dropped: the host-DMA machine must not announce it. */
static void mcp__rx_reuse_ovl(mcp *m, uint32_t bit, uint32_t k)
{
    mcp__reg(m, MYRI_LANAI_ISR, bit);
    mcp__count(m, k);
    myri_fw_set(m->fi, MYRI_MCP_V_OVL_RX, MYRI_MCP_OVL_RX_ABORT);
    mcp__arm(m);
}

void myri_mcp_a_rx_crc_bad_ovl(void *fw, myri_lanai *l)
{
    (void)l, mcp__rx_reuse_ovl(fw, MYRI_LANAI_RECV_INT, MYRI_HCB_C_DROP_CRC);
}
void myri_mcp_a_rx_too_long_ovl(void *fw, myri_lanai *l)
{
    (void)l, mcp__rx_reuse_ovl(fw, MYRI_LANAI_BUFF_INT, MYRI_HCB_C_DROP_TOO_LONG);
}

/* ---- life -------------------------------------------------------------------------------------------- */

static myri_status mcp__layout(mcp *m)
{
    const myri_mcp_params *p = &m->p;
    uint32_t nroutes = p->nroutes ? (uint32_t)p->nroutes : MCP_NROUTES_UNSIZED;
    m->g = (myri_hcb_geom){(uint32_t)p->nchan, (uint32_t)p->send_q, (uint32_t)p->recv_q, nroutes,
                           (uint32_t)p->route_max, (uint32_t)p->pio_bytes, (uint32_t)p->mtu};
    m->hcb = (uint32_t)myri_hcb_round4((uint32_t)p->hcb_addr);
    m->ntx = (uint32_t)p->tx_pool;
    m->nrx = (uint32_t)p->rx_pool;
    m->tx_base = m->hcb + myri_hcb_round4(myri_hcb_bytes(&m->g));
    m->tx_buf_bytes = myri_hcb_round4(m->g.mtu);
    m->rx_win = myri_hcb_round4(MYRI_FRAME_HDR_BYTES + m->g.mtu + 1);
    m->rx_buf_bytes = 4 + m->rx_win;
    m->rx_base = m->tx_base + m->ntx * m->tx_buf_bytes;
    m->scratch = m->rx_base + m->nrx * m->rx_buf_bytes;
    if (p->ovl_recv_thr <= MYRI_FRAME_HDR_BYTES || p->ovl_recv_thr > UINT32_MAX / 2) return MYRI_EINVAL;
    m->rx_hw = myri_hcb_round4((uint32_t)p->ovl_recv_thr) + 4; /* a first chunk of >= thr whole words */
    m->ovl_rx_on = p->recv_mode == 1 && p->ovl_recv && p->rearm && m->rx_hw < m->rx_win;
    uint64_t end = (uint64_t)m->scratch + 4;
    uint64_t top = myri_lanai_sram_bytes(m->l);
    if (top > MYRI_LANAI_STACK_TOP) top = MYRI_LANAI_STACK_TOP;
    if (end > top) return MYRI_ERANGE;
    return MYRI_OK;
}

myri_status myri_mcp_init(mcp *m, const void *params, myri_lanai *l, myri_fw_inst *fi)
{
    m->p = *(const myri_mcp_params *)params;
    m->l = l;
    m->fi = fi;
    myri_status st = mcp__layout(m);
    if (st == MYRI_OK) {
        m->txe = calloc(m->ntx, sizeof *m->txe);
        m->rx_bytes = calloc(m->nrx, sizeof *m->rx_bytes);
        m->rc_put = calloc(m->g.nchan, sizeof *m->rc_put);
        if (!m->txe || !m->rx_bytes || !m->rc_put) st = MYRI_ENOMEM;
    }
    if (st == MYRI_OK) myri_fw_set_follow(fi, m->p.follow_ps);
    return st;
}

static myri_status mcp__create(const void *params, myri_lanai *l, myri_fw_inst *fi, void **out)
{
    mcp *m = calloc(1, sizeof *m);
    if (!m) return MYRI_ENOMEM;
    myri_status st = myri_mcp_init(m, params, l, fi);
    if (st != MYRI_OK) {
        myri_mcp_destroy(m);
        return st;
    }
    *out = m;
    return MYRI_OK;
}

uint32_t myri_mcp_sram_end(const mcp *m) { return m->scratch + 4; }

void myri_mcp_fini(mcp *m)
{
    if (!m) return;
    free(m->txe);
    free(m->rx_bytes);
    free(m->rc_put);
}

void myri_mcp_destroy(void *fw)
{
    mcp *m = fw;
    if (!m) return;
    myri_mcp_fini(m);
    free(m);
}

myri_status myri_mcp_create_fw(const void *params, myri_lanai *l, myri_fw_inst *fi, void **out)
{
    return mcp__create(params, l, fi, out);
}

/* The instance runs the MCP, with or without mapping. */
static bool mcp__is(const myri_fw_inst *fi)
{
    const myri_fw_def *d = myri_fw_def_of(fi);
    return d && (d == &myri_mcp_def || d == myri_mcp_map_def());
}

uint32_t myri_mcp_hcb_addr(const myri_fw_inst *fi)
{
    const mcp *m = myri_fw_state((myri_fw_inst *)fi);
    return m && mcp__is(fi) ? m->hcb : 0;
}

void myri_mcp_geom(const myri_fw_inst *fi, myri_hcb_geom *out)
{
    const mcp *m = myri_fw_state((myri_fw_inst *)fi);
    if (m && out && mcp__is(fi)) *out = m->g;
}
