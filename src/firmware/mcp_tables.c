/* mcp_tables.c -- seed 001's MCP as tables: events, guards, the six state
 * machines (init, handshake, and Appendix B's host-DMA, send-DMA and
 * receive-DMA machines, the last one twice: interrupt-driven in system
 * context, polled in user context; the parameter mcp.recv_mode enables one).
 * See docs/FIRMWARE.md ("mcp").
 *
 * Cycle costs (LANai 4 CPU cycles at nic.clock).  No source gives
 * instruction counts for this MCP, so each cost is an assumption counted as
 * the instructions the step needs on a one-instruction-per-cycle RISC with
 * no multiply (seed 001), a load taking 2 cycles (load + use):
 *   MCP_C_POLL_ISR   3   test an ISR bit: read ISR, and, branch
 *   MCP_C_POLL_WORD  4   compare two words (an SRAM load and a register)
 *   MCP_C_POLL_LIVE  8   read a live pointer register, subtract, compare twice
 *   MCP_C_ISR       12   interrupt entry and punt (save, dispatch, return)
 *   MCP_C_DMA       14   start a host DMA: 4 register stores + address arithmetic
 *   MCP_C_SDMA      10   start a send DMA: SMP, SA, SML(T) + address arithmetic
 *   MCP_C_Q          4   advance a dual-pointer queue (load, add, mask/compare, store)
 *   MCP_C_HCB        4   one HCB word store
 *   MCP_C_CHECK     14   verify a frame header (type, subtype, channel bounds, room)
 *   MCP_C_PIO        2   one SB/SH/SW store
 *   MCP_C_SERVICE   17   CALIBRATED: one visit of a service routine by the polling
 *                        loop (call, state dispatch, return) before its tests;
 *                        charged for host_dma, send_dma and, in polled mode,
 *                        recv_dma_poll (in interrupt mode that machine leaves the
 *                        loop).  Set so that polled receive adds about 5 us to
 *                        small-packet latency, seed 001 ("changing to polled DMA
 *                        adds approximately 5 us"): `myri bench latency` with
 *                        mcp.recv_mode=interrupt vs polled (ovl_recv=false)
 *                        gives +5.4, +5.7, +5.5, +5.3, +5.0 us at 1, 4, 8, 16,
 *                        32 B (16 cycles: +3.4..+4.3 us; 18: +5.6..+6.0 us).
 *                        The difference comes from the loop: the receive is
 *                        noticed only when the loop reaches recv_dma_poll (last
 *                        in the pass), and every other notice waits on a pass
 *                        longer by that machine's visit and tests.
 * What was calibrated is this one number; the other costs above stay
 * assumptions, and so does where the machines sit in the loop (table order:
 * handshake, host_dma, send_dma, recv_dma_poll: seed 001's loop calls the
 * host-DMA then the send-DMA service; the receive service is taken to follow).
 */
#include "firmware/mcp_int.h"
#define MCP_SERVICE_CYCLES 17 /* calibrated, see above */

enum { MCP_C_POLL_ISR = 3, MCP_C_POLL_WORD = 4, MCP_C_POLL_LIVE = 8, MCP_C_ISR = 12, MCP_C_DMA = 14,
       MCP_C_SDMA = 10, MCP_C_Q = 4, MCP_C_HCB = 4, MCP_C_CHECK = 14, MCP_C_PIO = 2,
       MCP_C_SERVICE = MCP_SERVICE_CYCLES };

#define M(fw) ((mcp *)(fw))
#define V(fw, v) myri_fw_get(M(fw)->fi, MYRI_MCP_V_##v)

/* ---- events ---------------------------------------------------------------------- */
enum { E_TRUE, E_READY, E_HS, E_RX_PEND, E_SENDQ, E_DMA_INT, E_SEND_INT, E_RECV_INT, E_BUFF_INT, E_TX_PEND,
       E_TX_OVL, E_OVL_READY, E_RX_OVL, E_OVL_RX_READY, E_N };

static bool ev_true(void *fw, myri_lanai *l) { return (void)fw, (void)l, true; }
static bool ev_ready(void *fw, myri_lanai *l) { return (void)l, V(fw, STATE) == MYRI_HCB_STATE_READY; }
static bool ev_hs(void *fw, myri_lanai *l)
{
    (void)l;
    return myri_mcp_hcb(M(fw), MYRI_HCB_HANDSHAKE_OFF) != myri_mcp_hcb(M(fw), MYRI_HCB_HANDSHAKE_ACK_OFF);
}
static bool ev_rx_pend(void *fw, myri_lanai *l) { return (void)l, M(fw)->rx_head != M(fw)->rx_tail; }
static bool ev_sendq(void *fw, myri_lanai *l)
{
    mcp_sentry e;
    return (void)l, myri_mcp_sq_entry(M(fw), &e);
}
static bool ev_isr(myri_lanai *l, uint32_t bit) { return (myri_lanai_read(l, MYRI_LANAI_ISR) & bit) != 0; }
static bool ev_dma_int(void *fw, myri_lanai *l) { return (void)fw, ev_isr(l, MYRI_LANAI_DMA_INT); }
static bool ev_send_int(void *fw, myri_lanai *l) { return (void)fw, ev_isr(l, MYRI_LANAI_SEND_INT); }
static bool ev_recv_int(void *fw, myri_lanai *l) { return (void)fw, ev_isr(l, MYRI_LANAI_RECV_INT); }
static bool ev_buff_int(void *fw, myri_lanai *l) { return (void)fw, ev_isr(l, MYRI_LANAI_BUFF_INT); }
/* With mapping (mcp_map.h) the send DMA may be sending a mapping packet (map_tx). */
static bool ev_tx_pend(void *fw, myri_lanai *l)
{
    return (void)l, M(fw)->tx_head != M(fw)->tx_tail && !V(fw, OVL_TX) && !V(fw, MAP_TX);
}
static uint32_t mcp__min(uint32_t a, uint32_t b) { return a < b ? a : b; }
static bool ev_tx_ovl(void *fw, myri_lanai *l)
{
    (void)l;
    mcp *m = M(fw);
    if (m->tx_head == m->tx_tail || !V(fw, OVL_TX) || V(fw, MAP_TX)) return false;
    return myri_mcp_ovl_landed(m) >= mcp__min((uint32_t)m->p.ovl_send_thr, m->txe[m->tx_head].len);
}
static bool ev_ovl_ready(void *fw, myri_lanai *l)
{
    (void)l;
    mcp *m = M(fw);
    const mcp_txe *t = &m->txe[m->tx_head];
    uint32_t landed = t->src + myri_mcp_ovl_landed(m);
    return landed == t->src + t->len || landed - m->ovl_pos >= m->p.ovl_send_thr;
}

static bool live_ovl_tx(void *fw, myri_lanai *l) { return (void)l, V(fw, OVL_TX) != 0; }

/* Overlapped receive (polled mode): the receive machine's state BODY means
 * the head window filled and the rest of the packet is coming in. */
enum { D_OFF, D_ARMED, D_DISCARD, D_STOPPED, D_BODY, D_UNUSED };
static bool rx_in_body(mcp *m)
{
    return m->ovl_rx_on && myri_fw_machine_state(m->fi, MYRI_MCP_M_RDMA_POLL) == D_BODY && m->rx_head == m->rx_tail &&
           myri_fw_get(m->fi, MYRI_MCP_V_OVL_RX) == MYRI_MCP_OVL_RX_NONE;
}
static bool ev_rx_ovl(void *fw, myri_lanai *l)
{
    (void)l;
    mcp *m = M(fw);
    if (!rx_in_body(m)) return false;
    uint32_t b = myri_mcp_rxbuf(m, m->rx_tail) + 4;
    return myri_mcp_ovl_rx_end(m, b) - b >= m->p.ovl_recv_thr;
}
static bool live_rx_ovl(void *fw, myri_lanai *l) { return (void)l, rx_in_body(M(fw)); }
static bool ovl_rx_more(mcp *m) { return myri_mcp_ovl_rx_end(m, m->rx_fbuf) - m->rx_pos >= m->p.ovl_recv_thr; }
static bool ev_ovl_rx_ready(void *fw, myri_lanai *l)
{
    (void)l;
    mcp *m = M(fw);
    return V(fw, OVL_RX) == MYRI_MCP_OVL_RX_ABORT || m->rx_head != m->rx_tail || ovl_rx_more(m);
}
static bool live_ovl_rx(void *fw, myri_lanai *l) { return (void)l, V(fw, OVL_RX) == MYRI_MCP_OVL_RX_FOLLOW; }

_Static_assert(E_N == MYRI_MCP_NEVENTS, "MYRI_MCP_NEVENTS");
static const myri_fw_event mcp__events[E_N] = {
    [E_TRUE] = {"true", "true", 0, ev_true, NULL},
    [E_READY] = {"ready", "mcp_state == READY", MCP_C_POLL_WORD, ev_ready, NULL},
    [E_HS] = {"handshake", "hcb_handshake != hcb_handshake_ack", 2 * MCP_C_POLL_WORD, ev_hs, NULL},
    [E_RX_PEND] = {"rx_pending", "rx_head != rx_tail", MCP_C_POLL_WORD, ev_rx_pend, NULL},
    [E_SENDQ] = {"sendq", "sq_head != hcb_sq_tail", MCP_C_POLL_WORD, ev_sendq, NULL},
    [E_DMA_INT] = {"dma_int", "(ISR & DMA_INT) != 0", MCP_C_POLL_ISR, ev_dma_int, NULL},
    [E_SEND_INT] = {"send_int", "(ISR & SEND_INT) != 0", MCP_C_POLL_ISR, ev_send_int, NULL},
    [E_RECV_INT] = {"recv_int", "(ISR & RECV_INT) != 0", MCP_C_POLL_ISR, ev_recv_int, NULL},
    [E_BUFF_INT] = {"buff_int", "(ISR & BUFF_INT) != 0", MCP_C_POLL_ISR, ev_buff_int, NULL},
    [E_TX_PEND] = {"tx_pending", "tx_head != tx_tail && !ovl_tx && !map_tx", MCP_C_POLL_WORD, ev_tx_pend, NULL},
    [E_TX_OVL] = {"tx_ovl_ready", "tx_head != tx_tail && ovl_tx && !map_tx && landed >= min(ovl_send_thr, len)",
                  MCP_C_POLL_LIVE, ev_tx_ovl, live_ovl_tx},
    [E_OVL_READY] = {"ovl_chunk_ready", "landed == len || landed - ovl_pos >= ovl_send_thr", MCP_C_POLL_LIVE,
                     ev_ovl_ready, live_ovl_tx},
    [E_RX_OVL] = {"rx_ovl_ready", "OVL_RX_ON && rdma_state == BODY && rx_head == rx_tail && !ovl_rx && "
                                  "rx_landed >= OVL_RECV_THR", MCP_C_POLL_WORD, ev_rx_ovl, live_rx_ovl},
    [E_OVL_RX_READY] = {"ovl_rx_chunk_ready", "ovl_rx == ABORT || rx_head != rx_tail || rx_landed - rx_pos >= "
                                              "OVL_RECV_THR", MCP_C_POLL_LIVE, ev_ovl_rx_ready, live_ovl_rx},
};

/* ---- guards ------------------------------------------------------------------------- */
enum { G_TRUE, G_INTR, G_POLLED, G_HEAD_SHORT, G_HEAD_CRC, G_HEAD_TYPE, G_HEAD_SUBTYPE, G_HEAD_CHAN, G_HOLD,
       G_RX_HW, G_SQ_BAD, G_SQ_PIO, G_SQ_OVL, G_SQ_DMA, G_RX_OK, G_NOT_OVL_TX, G_OVL_TX, G_NOTIFY, G_NO_NOTIFY,
       G_TX_BAD_ROUTE, G_TX_ROUTE_SA, G_TX_ROUTE_PIO, G_TX_EMPTY, G_OVL_SA, G_OVL_PIO, G_OVL_ALL, G_OVL_MORE, G_OVL_TAILED,
       G_NOREARM, G_CRC_BAD, G_POOL_FULL, G_RX_OVL_OK, G_OVL_RX_ABORT, G_OVL_RX_DONE_OK, G_OVL_RX_DONE, G_OVL_RX_MORE,
       G_OVL_RX_MODE, G_FOLLOWED, G_CRC_BAD_FOLLOWED, G_N };

static bool g_intr(void *fw, myri_lanai *l) { return (void)l, M(fw)->p.recv_mode == 0; }
static bool g_polled(void *fw, myri_lanai *l) { return (void)l, M(fw)->p.recv_mode == 1; }

static uint32_t head_verdict(mcp *m)
{
    uint32_t n = 0;
    const uint8_t *f = myri_mcp_rx_head(m, &n);
    return f ? myri_mcp_rx_verdict(m, f, n) : MYRI_HCB_NCOUNT;
}
static bool g_head_short(void *fw, myri_lanai *l) { return (void)l, head_verdict(M(fw)) == MYRI_HCB_C_DROP_SHORT; }
static bool g_head_crc(void *fw, myri_lanai *l) { return (void)l, head_verdict(M(fw)) == MYRI_HCB_C_DROP_CRC; }
static bool g_head_type(void *fw, myri_lanai *l) { return (void)l, head_verdict(M(fw)) == MYRI_HCB_C_DROP_TYPE; }
static bool g_head_subtype(void *fw, myri_lanai *l)
{
    return (void)l, head_verdict(M(fw)) == MYRI_HCB_C_DROP_SUBTYPE;
}
static bool g_head_chan(void *fw, myri_lanai *l) { return (void)l, head_verdict(M(fw)) == MYRI_HCB_C_DROP_CHAN; }

/* The head rx packet can go to the host now (good and its channel has room). */
static bool rx_deliverable(mcp *m)
{
    uint32_t n = 0;
    const uint8_t *f = myri_mcp_rx_head(m, &n);
    return f && myri_mcp_rx_verdict(m, f, n) == MYRI_HCB_C_RX_GOOD && myri_mcp_chan_room(m, f[3]);
}
static bool g_hold(void *fw, myri_lanai *l)
{
    (void)l;
    uint32_t n = 0;
    const uint8_t *f = myri_mcp_rx_head(M(fw), &n);
    return f && !V(fw, HELD) && myri_mcp_rx_verdict(M(fw), f, n) == MYRI_HCB_C_RX_GOOD && !myri_mcp_chan_room(M(fw), f[3]);
}
static bool g_rx_hw(void *fw, myri_lanai *l)
{
    (void)l;
    mcp *m = M(fw);
    return m->p.policy == 1 && myri_mcp_q_n(m->rx_head, m->rx_tail, m->nrx) > (uint32_t)m->p.high_water &&
           rx_deliverable(m);
}
static bool g_rx_ok(void *fw, myri_lanai *l) { return (void)l, rx_deliverable(M(fw)); }

static bool sq_head(mcp *m, mcp_sentry *e) { return myri_mcp_sq_entry(m, e); }
static bool sq_bad(mcp *m, const mcp_sentry *e)
{
    return e->len > m->g.mtu || (e->pio && e->len > m->g.pio_bytes);
}
/* Sends may go now: the new policy serves a deliverable receive first. */
static bool send_turn(mcp *m) { return !myri_mcp_tx_full(m) && (m->p.policy == 1 || !rx_deliverable(m)); }
static bool g_sq_bad(void *fw, myri_lanai *l)
{
    mcp_sentry e;
    return (void)l, sq_head(M(fw), &e) && sq_bad(M(fw), &e);
}
static bool g_sq_pio(void *fw, myri_lanai *l)
{
    mcp_sentry e;
    (void)l;
    return sq_head(M(fw), &e) && !sq_bad(M(fw), &e) && (e.pio || e.len == 0) && send_turn(M(fw));
}
static bool sq_dma(mcp *m, mcp_sentry *e) { return sq_head(m, e) && !sq_bad(m, e) && !e->pio && e->len > 0; }
static bool tx_empty(const mcp *m) { return m->tx_head == m->tx_tail; }
static bool g_sq_ovl(void *fw, myri_lanai *l)
{
    mcp_sentry e;
    (void)l;
    return sq_dma(M(fw), &e) && M(fw)->p.ovl_send && tx_empty(M(fw)) && send_turn(M(fw));
}
static bool g_sq_dma(void *fw, myri_lanai *l)
{
    mcp_sentry e;
    (void)l;
    return sq_dma(M(fw), &e) && !(M(fw)->p.ovl_send && tx_empty(M(fw))) && send_turn(M(fw));
}
static bool g_not_ovl_tx(void *fw, myri_lanai *l) { return (void)l, !V(fw, OVL_TX); }
static bool g_ovl_tx(void *fw, myri_lanai *l) { return (void)l, V(fw, OVL_TX) != 0; }
static bool g_notify(void *fw, myri_lanai *l) { return (void)l, M(fw)->p.dma_notify; }
static bool g_no_notify(void *fw, myri_lanai *l) { return (void)l, !M(fw)->p.dma_notify; }

/* The head tx entry's route: -1 invalid, 0 none, else its length. */
static int tx_route(mcp *m)
{
    const mcp_txe *t = &m->txe[m->tx_head];
    if (t->route == 0) return 0;
    if (t->route >= m->g.nroutes) return -1;
    uint32_t n = myri_mcp_hcb(m, myri_hcb_route_off(&m->g, t->route));
    return n > m->g.route_max ? -1 : (int)n;
}
static bool g_tx_bad_route(void *fw, myri_lanai *l) { return (void)l, tx_route(M(fw)) < 0; }
static bool tx_len(mcp *m) { return m->txe[m->tx_head].len > 0; }
static bool g_tx_route_sa(void *fw, myri_lanai *l)
{
    return (void)l, tx_len(M(fw)) && tx_route(M(fw)) > 0 && M(fw)->p.route_send == 0;
}
static bool g_tx_route_pio(void *fw, myri_lanai *l)
{
    int r = tx_route(M(fw));
    return (void)l, tx_len(M(fw)) && (r == 0 || (r > 0 && M(fw)->p.route_send == 1));
}
static bool g_tx_empty(void *fw, myri_lanai *l) { return (void)l, !tx_len(M(fw)) && tx_route(M(fw)) >= 0; }
static bool g_ovl_all(void *fw, myri_lanai *l)
{
    (void)l;
    return myri_mcp_ovl_landed(M(fw)) == M(fw)->txe[M(fw)->tx_head].len;
}
static bool g_ovl_more(void *fw, myri_lanai *l)
{
    (void)l;
    mcp *m = M(fw);
    return m->txe[m->tx_head].src + myri_mcp_ovl_landed(m) - m->ovl_pos >= m->p.ovl_send_thr;
}
/* The chunk just staged reached the payload's end: it was written with SMLT (the packet's tail). */
static bool g_ovl_tailed(void *fw, myri_lanai *l)
{
    (void)l;
    mcp *m = M(fw);
    return m->ovl_pos == m->txe[m->tx_head].src + m->txe[m->tx_head].len;
}
static bool g_norearm(void *fw, myri_lanai *l) { return (void)l, !M(fw)->p.rearm; }
static bool g_crc_bad(void *fw, myri_lanai *l)
{
    mcp *m = M(fw);
    uint32_t n = myri_mcp_received(m);
    const uint8_t *p = n ? myri_lanai_sram(l, myri_mcp_rxbuf(m, m->rx_tail) + 4 + n - 1, 1) : NULL;
    return !p || *p != 0;
}
static bool g_pool_full(void *fw, myri_lanai *l) { return (void)l, myri_mcp_rx_full(M(fw)); }
static bool g_rx_ovl_ok(void *fw, myri_lanai *l) { return (void)l, myri_mcp_ovl_rx_ok(M(fw)); }
static bool g_ovl_rx_abort(void *fw, myri_lanai *l) { return (void)l, V(fw, OVL_RX) == MYRI_MCP_OVL_RX_ABORT; }
static bool g_ovl_rx_done(void *fw, myri_lanai *l) { return (void)l, M(fw)->rx_head != M(fw)->rx_tail; }
static bool g_ovl_rx_done_ok(void *fw, myri_lanai *l) { return g_ovl_rx_done(fw, l) && rx_deliverable(M(fw)); }
static bool g_ovl_rx_more(void *fw, myri_lanai *l) { return (void)l, ovl_rx_more(M(fw)); }
static bool g_ovl_rx_mode(void *fw, myri_lanai *l) { return (void)l, M(fw)->ovl_rx_on; }
/* The packet in the armed buffer is the one the host-DMA machine follows. */
static bool g_followed(void *fw, myri_lanai *l)
{
    return (void)l, V(fw, OVL_RX) == MYRI_MCP_OVL_RX_FOLLOW && M(fw)->rx_head == M(fw)->rx_tail;
}
static bool g_crc_bad_followed(void *fw, myri_lanai *l) { return g_followed(fw, l) && g_crc_bad(fw, l); }

_Static_assert(G_N == MYRI_MCP_NGUARDS, "MYRI_MCP_NGUARDS");
static const myri_fw_guard mcp__guards[G_N] = {
    [G_TRUE] = {"true", "true", NULL},
    [G_INTR] = {"intr_mode", "recv_mode == INTERRUPT", g_intr},
    [G_POLLED] = {"polled_mode", "recv_mode == POLLED", g_polled},
    [G_HEAD_SHORT] = {"head_short", "rx_len[rx_head] < 5", g_head_short},
    [G_HEAD_CRC] = {"head_crc_bad", "rx_crc[rx_head] != 0", g_head_crc},
    [G_HEAD_TYPE] = {"head_type_bad", "rx_type[rx_head] != 0x0370", g_head_type},
    [G_HEAD_SUBTYPE] = {"head_subtype_bad", "rx_subtype[rx_head] != 1", g_head_subtype},
    [G_HEAD_CHAN] = {"head_chan_bad", "rx_chan[rx_head] >= NCHAN || !chan_enabled[rx_chan[rx_head]]", g_head_chan},
    [G_HOLD] = {"head_chan_full", "head_good && !chan_room[rx_chan[rx_head]] && !held", g_hold},
    [G_RX_HW] = {"rx_over_high_water", "policy == OLD && rx_count > HIGH_WATER && head_deliverable", g_rx_hw},
    [G_SQ_BAD] = {"sq_entry_bad", "sq_len > MTU || (sq_pio && sq_len > PIO_BYTES)", g_sq_bad},
    [G_SQ_PIO] = {"sq_pio", "(sq_pio || sq_len == 0) && !tx_full && (policy == OLD || !head_deliverable)",
                  g_sq_pio},
    [G_SQ_OVL] = {"sq_dma_overlap", "!sq_pio && sq_len > 0 && OVL_SEND && tx_empty && "
                                    "(policy == OLD || !head_deliverable)", g_sq_ovl},
    [G_SQ_DMA] = {"sq_dma", "!sq_pio && sq_len > 0 && !(OVL_SEND && tx_empty) && !tx_full && "
                            "(policy == OLD || !head_deliverable)", g_sq_dma},
    [G_RX_OK] = {"head_deliverable", "head_good && chan_room[rx_chan[rx_head]]", g_rx_ok},
    [G_NOT_OVL_TX] = {"not_ovl_tx", "!ovl_tx", g_not_ovl_tx},
    [G_OVL_TX] = {"ovl_tx", "ovl_tx", g_ovl_tx},
    [G_NOTIFY] = {"dma_notify", "DMA_NOTIFY", g_notify},
    [G_NO_NOTIFY] = {"no_dma_notify", "!DMA_NOTIFY", g_no_notify},
    [G_TX_BAD_ROUTE] = {"tx_route_bad", "tx_route[tx_head] >= NROUTES || route_len > ROUTE_MAX", g_tx_bad_route},
    [G_TX_ROUTE_SA] = {"tx_route_sa", "tx_len > 0 && route_len > 0 && ROUTE_SEND == SA", g_tx_route_sa},
    [G_TX_ROUTE_PIO] = {"tx_route_pio", "tx_len > 0 && (route_len == 0 || ROUTE_SEND == PIO)", g_tx_route_pio},
    [G_TX_EMPTY] = {"tx_empty_payload", "tx_len == 0 && route_ok", g_tx_empty},
    [G_OVL_SA] = {"ovl_route_sa", "route_len > 0 && ROUTE_SEND == SA", g_tx_route_sa},
    [G_OVL_PIO] = {"ovl_route_pio", "route_len == 0 || ROUTE_SEND == PIO", g_tx_route_pio},
    [G_OVL_ALL] = {"ovl_all_landed", "landed == tx_len", g_ovl_all},
    [G_OVL_MORE] = {"ovl_chunk", "landed - ovl_pos >= OVL_SEND_THR", g_ovl_more},
    [G_OVL_TAILED] = {"ovl_tailed", "ovl_pos == tx_len", g_ovl_tailed},
    [G_NOREARM] = {"no_rearm", "!REARM", g_norearm},
    [G_CRC_BAD] = {"crc_bad", "rx_crc[rx_tail] != 0", g_crc_bad},
    [G_POOL_FULL] = {"rx_pool_full", "(rx_tail + 1) % RX_POOL == rx_head", g_pool_full},
    [G_RX_OVL_OK] = {"rx_ovl_ok", "rx_tail_header_good && chan_room[rx_chan[rx_tail]] && slot_holds_window",
                     g_rx_ovl_ok},
    [G_OVL_RX_ABORT] = {"ovl_rx_aborted", "ovl_rx == ABORT", g_ovl_rx_abort},
    [G_OVL_RX_DONE_OK] = {"ovl_rx_done_ok", "rx_head != rx_tail && head_deliverable", g_ovl_rx_done_ok},
    [G_OVL_RX_DONE] = {"ovl_rx_done", "rx_head != rx_tail", g_ovl_rx_done},
    [G_OVL_RX_MORE] = {"ovl_rx_more", "rx_landed - rx_pos >= OVL_RECV_THR", g_ovl_rx_more},
    [G_OVL_RX_MODE] = {"ovl_rx_mode", "OVL_RX_ON", g_ovl_rx_mode},
    [G_FOLLOWED] = {"rx_followed", "ovl_rx == FOLLOW && rx_head == rx_tail", g_followed},
    [G_CRC_BAD_FOLLOWED] = {"crc_bad_followed", "ovl_rx == FOLLOW && rx_head == rx_tail && rx_crc[rx_tail] != 0",
                            g_crc_bad_followed},
};

/* ---- machines ------------------------------------------------------------------------------- */
#define EF(op, a, b) {MYRI_FW_##op, (a), (b)}
#define CLR(bit) EF(CLEAR_ISR, MYRI_LANAI_##bit, 0)
#define QP(q) EF(Q_PUT, MYRI_MCP_Q_##q, 0)
#define QG(q) EF(Q_GET, MYRI_MCP_Q_##q, 0)
#define SETV(v, x) EF(SET, MYRI_MCP_V_##v, (x))
#define CNT(k) EF(COUNT, MYRI_HCB_C_##k, 0)
#define HDMA(d) EF(START_HDMA, MYRI_LANAI_DIR_##d, 0)  /* a length, a notification: a few bytes */
#define HDMAD(d) EF(START_HDMA, MYRI_LANAI_DIR_##d, 1) /* a packet's data (firmware.h: b, for the model checker) */
#define SDMA(t) EF(START_SDMA, (t), 0)
#define PIO(t) EF(PIO_SEND, (t), 0)
#define ARM EF(ARM_RDMA, 0, 0)
#define R(from, to, ev, g, act, cyc, x, name, ...) {from, to, ev, g, {__VA_ARGS__}, myri_mcp_a_##act, cyc, x, name}

enum { I_RESET, I_READY };
static const char *const mcp__init_states[] = {"RESET", "READY"};
static const myri_fw_rule mcp__init_rules[] = {
    R(I_RESET, I_READY, E_TRUE, G_TRUE, boot, 40 + MCP_C_HCB, myri_mcp_x_boot, "boot", ARM,
      SETV(STATE, MYRI_HCB_STATE_READY)),
};

static const char *const mcp__hs_states[] = {"RUN"};
static const myri_fw_rule mcp__hs_rules[] = {
    R(0, 0, E_HS, G_TRUE, handshake, 2 * MCP_C_HCB, NULL, "ack", SETV(HS, MYRI_FW_ANY)),
};

enum { H_IDLE, H_FROM_HOST, H_TO_HOST, H_TO_HOST_LEN, H_NOTIFY, H_OVL_RX, H_OVL_RX_WAIT };
static const char *const mcp__hdma_states[] = {"IDLE", "FROM_HOST", "TO_HOST", "TO_HOST_LEN", "NOTIFY", "OVL_RX",
                                               "OVL_RX_WAIT"};
static const myri_fw_rule mcp__hdma_rules[] = {
    R(H_IDLE, H_IDLE, E_RX_PEND, G_HEAD_SHORT, drop_short, MCP_C_CHECK + MCP_C_Q, NULL, "drop_short", QG(RX),
      CNT(DROP_SHORT)),
    R(H_IDLE, H_IDLE, E_RX_PEND, G_HEAD_CRC, drop_crc, MCP_C_CHECK + MCP_C_Q, NULL, "drop_crc", QG(RX),
      CNT(DROP_CRC)),
    R(H_IDLE, H_IDLE, E_RX_PEND, G_HEAD_TYPE, drop_type, MCP_C_CHECK + MCP_C_Q, NULL, "drop_type", QG(RX),
      CNT(DROP_TYPE)),
    R(H_IDLE, H_IDLE, E_RX_PEND, G_HEAD_SUBTYPE, drop_subtype, MCP_C_CHECK + MCP_C_Q, NULL, "drop_subtype",
      QG(RX), CNT(DROP_SUBTYPE)),
    R(H_IDLE, H_IDLE, E_RX_PEND, G_HEAD_CHAN, drop_chan, MCP_C_CHECK + MCP_C_Q, NULL, "drop_chan", QG(RX),
      CNT(DROP_CHAN)),
    R(H_IDLE, H_IDLE, E_RX_PEND, G_HOLD, hold, MCP_C_CHECK, NULL, "hold", SETV(HELD, 1), CNT(HELD)),
    R(H_IDLE, H_TO_HOST, E_RX_PEND, G_RX_HW, to_host, MCP_C_CHECK + MCP_C_DMA, NULL, "to_host_high_water",
      SETV(HELD, 0), HDMAD(L2E)),
    R(H_IDLE, H_OVL_RX, E_RX_OVL, G_RX_OVL_OK, ovl_rx_start, MCP_C_CHECK + MCP_C_DMA + 4, NULL, "ovl_rx_start",
      SETV(OVL_RX, MYRI_MCP_OVL_RX_FOLLOW), HDMAD(L2E)),
    R(H_IDLE, H_IDLE, E_SENDQ, G_SQ_BAD, sq_bad, MCP_C_CHECK + MCP_C_Q, NULL, "send_bad", QG(SENDQ),
      CNT(TX_DROPPED)),
    R(H_IDLE, H_IDLE, E_SENDQ, G_SQ_PIO, send_pio, 2 * MCP_C_Q + 6, NULL, "send_pio", QG(SENDQ), QP(TX)),
    R(H_IDLE, H_FROM_HOST, E_SENDQ, G_SQ_OVL, send_dma_ovl, 2 * MCP_C_Q + MCP_C_DMA + 4, NULL, "send_dma_overlap",
      QG(SENDQ), QP(TX), SETV(OVL_TX, 1), HDMAD(E2L)),
    R(H_IDLE, H_FROM_HOST, E_SENDQ, G_SQ_DMA, send_dma, MCP_C_Q + MCP_C_DMA + 4, NULL, "send_dma", QG(SENDQ),
      HDMAD(E2L)),
    R(H_IDLE, H_TO_HOST, E_RX_PEND, G_RX_OK, to_host, MCP_C_CHECK + MCP_C_DMA, NULL, "to_host", SETV(HELD, 0),
      HDMAD(L2E)),
    R(H_FROM_HOST, H_IDLE, E_DMA_INT, G_NOT_OVL_TX, from_host_done, MCP_C_Q + 2, NULL, "from_host_done", CLR(DMA_INT),
      QP(TX)),
    R(H_FROM_HOST, H_IDLE, E_DMA_INT, G_OVL_TX, from_host_done_ovl, 4, NULL, "from_host_done_overlap",
      CLR(DMA_INT), SETV(OVL_TX, 0)),
    R(H_TO_HOST, H_TO_HOST_LEN, E_DMA_INT, G_TRUE, to_host_len, MCP_C_DMA + 2, NULL, "to_host_length",
      CLR(DMA_INT), HDMA(L2E)),
    R(H_TO_HOST_LEN, H_NOTIFY, E_DMA_INT, G_NOTIFY, deliver_notify, 2 * MCP_C_Q + MCP_C_HCB + MCP_C_DMA, NULL,
      "deliver_notify", CLR(DMA_INT), QG(RX), QP(RCHAN), CNT(RX_GOOD), HDMA(L2E)),
    R(H_TO_HOST_LEN, H_IDLE, E_DMA_INT, G_NO_NOTIFY, deliver, 2 * MCP_C_Q + MCP_C_HCB, NULL, "deliver",
      CLR(DMA_INT), QG(RX), QP(RCHAN), CNT(RX_GOOD)),
    R(H_NOTIFY, H_IDLE, E_DMA_INT, G_TRUE, dma_done, 2, NULL, "notified", CLR(DMA_INT)),
    R(H_OVL_RX, H_IDLE, E_DMA_INT, G_OVL_RX_ABORT, ovl_rx_abort, 4, NULL, "ovl_rx_aborted", CLR(DMA_INT),
      SETV(OVL_RX, MYRI_MCP_OVL_RX_NONE)),
    R(H_OVL_RX, H_OVL_RX_WAIT, E_DMA_INT, G_TRUE, dma_done, 2, NULL, "ovl_rx_chunk_done", CLR(DMA_INT)),
    R(H_OVL_RX_WAIT, H_IDLE, E_OVL_RX_READY, G_OVL_RX_ABORT, ovl_rx_drop, 2, NULL, "ovl_rx_dropped",
      SETV(OVL_RX, MYRI_MCP_OVL_RX_NONE)),
    R(H_OVL_RX_WAIT, H_TO_HOST, E_OVL_RX_READY, G_OVL_RX_DONE_OK, ovl_rx_last, MCP_C_DMA + MCP_C_HCB + 4, NULL,
      "ovl_rx_last_chunk", SETV(OVL_RX, MYRI_MCP_OVL_RX_NONE), HDMAD(L2E)),
    R(H_OVL_RX_WAIT, H_IDLE, E_OVL_RX_READY, G_OVL_RX_DONE, ovl_rx_drop, 2, NULL, "ovl_rx_undeliverable",
      SETV(OVL_RX, MYRI_MCP_OVL_RX_NONE)),
    R(H_OVL_RX_WAIT, H_OVL_RX, E_OVL_RX_READY, G_OVL_RX_MORE, ovl_rx_chunk, MCP_C_DMA + 4, NULL, "ovl_rx_chunk",
      HDMAD(L2E)),
};

enum { S_IDLE, S_ROUTE, S_BODY, S_OVL_ROUTE, S_OVL_WAIT, S_OVL_CHUNK };
static const char *const mcp__sdma_states[] = {"IDLE", "ROUTE", "BODY", "OVL_ROUTE", "OVL_WAIT", "OVL_CHUNK"};
static const myri_fw_rule mcp__sdma_rules[] = {
    R(S_IDLE, S_IDLE, E_TX_PEND, G_TX_BAD_ROUTE, drop_route, MCP_C_Q + 6, NULL, "drop_route", QG(TX),
      CNT(TX_DROPPED)),
    R(S_IDLE, S_ROUTE, E_TX_PEND, G_TX_ROUTE_SA, send_route, MCP_C_SDMA + 8, NULL, "send_route", SDMA(0)),
    R(S_IDLE, S_BODY, E_TX_PEND, G_TX_ROUTE_PIO, send_pio_route, MCP_C_SDMA + 8 + 4 * MCP_C_PIO, NULL,
      "send_pio_route", PIO(0), SDMA(1)),
    R(S_IDLE, S_BODY, E_TX_PEND, G_TX_EMPTY, send_empty, 8 + 6 * MCP_C_PIO, NULL, "send_empty", PIO(0), PIO(1)),
    R(S_IDLE, S_IDLE, E_TX_OVL, G_TX_BAD_ROUTE, drop_route, MCP_C_Q + 6, NULL, "drop_route_overlap", QG(TX),
      CNT(TX_DROPPED)),
    R(S_IDLE, S_OVL_ROUTE, E_TX_OVL, G_OVL_SA, ovl_route, MCP_C_SDMA + 8, NULL, "ovl_route", SDMA(0)),
    R(S_IDLE, S_OVL_WAIT, E_TX_OVL, G_OVL_PIO, ovl_start, 8 + 4 * MCP_C_PIO, NULL, "ovl_pio_route", PIO(0)),
    R(S_ROUTE, S_BODY, E_SEND_INT, G_TRUE, route_sent, MCP_C_SDMA + MCP_C_PIO + 2, NULL, "route_sent",
      CLR(SEND_INT), PIO(0), SDMA(1)),
    R(S_BODY, S_IDLE, E_SEND_INT, G_TRUE, sent, MCP_C_Q + MCP_C_HCB + 2, myri_mcp_x_packet, "sent", CLR(SEND_INT), QG(TX),
      CNT(TX_SENT)),
    R(S_OVL_ROUTE, S_OVL_WAIT, E_SEND_INT, G_TRUE, ovl_route_sent, MCP_C_PIO + 2, NULL, "ovl_route_sent",
      CLR(SEND_INT), PIO(0)),
    R(S_OVL_WAIT, S_BODY, E_OVL_READY, G_OVL_ALL, ovl_last, MCP_C_SDMA, NULL, "ovl_last_chunk", SDMA(1)),
    R(S_OVL_WAIT, S_OVL_CHUNK, E_OVL_READY, G_OVL_MORE, ovl_chunk, MCP_C_SDMA, NULL, "ovl_chunk",
      SDMA(MYRI_FW_ANY)),
    R(S_OVL_CHUNK, S_IDLE, E_SEND_INT, G_OVL_TAILED, sent, MCP_C_Q + MCP_C_HCB + 2, myri_mcp_x_packet, "ovl_tail_sent",
      CLR(SEND_INT), QG(TX), CNT(TX_SENT)),
    R(S_OVL_CHUNK, S_OVL_WAIT, E_SEND_INT, G_TRUE, ovl_chunk_sent, 2, NULL, "ovl_chunk_sent", CLR(SEND_INT)),
};

/* The receive DMA machine: the rules after the first are the same in both
 * contexts; the first enables the machine in its mode.  With overlapped
 * receive (polled only) ARMED has only the head window armed: BUFF_INT there
 * means the head is in (BODY: the rest armed, the host-DMA machine may follow
 * the live RMP); the packets it follows are dropped with ovl_rx = ABORT. */
static const char *const mcp__rdma_states[] = {"OFF", "ARMED", "DISCARD", "STOPPED", "BODY", "UNUSED"};
#define MCP_RDMA_RECV(c, from, sfx)                                                                               \
    R(from, D_ARMED, E_RECV_INT, G_CRC_BAD, rx_crc_bad, c + 8, NULL, "rx_crc_bad" sfx, CLR(RECV_INT),            \
      CNT(DROP_CRC), ARM),                                                                                        \
    R(from, D_ARMED, E_RECV_INT, G_POOL_FULL, rx_pool_full, c + 8, NULL, "rx_pool_full" sfx, CLR(RECV_INT),      \
      CNT(DROP_POOL_FULL), ARM),                                                                                  \
    R(from, D_ARMED, E_RECV_INT, G_TRUE, rx_good, c + MCP_C_Q + 8, NULL, "rx_good" sfx, CLR(RECV_INT), QP(RX),  \
      ARM)
#define MCP_RDMA_TOO_LONG(c, from, sfx)                                                                           \
    R(from, D_DISCARD, E_BUFF_INT, G_TRUE, rx_too_long, c + 8, NULL, "rx_too_long" sfx, CLR(BUFF_INT),          \
      CNT(DROP_TOO_LONG), ARM)
#define MCP_RDMA_DISCARD(c)                                                                                       \
    R(D_DISCARD, D_DISCARD, E_BUFF_INT, G_TRUE, discard_more, c + 6, NULL, "discard_more", CLR(BUFF_INT), ARM), \
    R(D_DISCARD, D_ARMED, E_RECV_INT, G_TRUE, discard_end, c + 6, NULL, "discard_end", CLR(RECV_INT), ARM)
#define MCP_RDMA_STOP(c)                                                                                          \
    R(D_ARMED, D_STOPPED, E_RECV_INT, G_NOREARM, rx_stop, c + 2, NULL, "rx_stop", CLR(RECV_INT))

static const myri_fw_rule mcp__rdma_int_rules[] = {
    R(D_OFF, D_ARMED, E_READY, G_INTR, enable_intr, 4, NULL, "enable", EF(SET_IMR, MYRI_LANAI_RECV_INT |
      MYRI_LANAI_BUFF_INT, 0)),
    MCP_RDMA_STOP(MCP_C_ISR),
    MCP_RDMA_RECV(MCP_C_ISR, D_ARMED, ""),
    MCP_RDMA_TOO_LONG(MCP_C_ISR, D_ARMED, ""),
    MCP_RDMA_DISCARD(MCP_C_ISR),
};

static void myri_mcp_a_none(void *fw, myri_lanai *l) { (void)fw, (void)l; }
static const myri_fw_rule mcp__rdma_poll_rules[] = {
    {D_OFF, D_ARMED, E_READY, G_POLLED, {{0}}, myri_mcp_a_none, 2, NULL, "enable"},
    {D_OFF, D_UNUSED, E_READY, G_INTR, {{0}}, myri_mcp_a_none, 2, NULL, "unused"}, /* leaves the loop */
    MCP_RDMA_STOP(0),
    MCP_RDMA_RECV(0, D_ARMED, ""),
    R(D_ARMED, D_BODY, E_BUFF_INT, G_OVL_RX_MODE, rx_head_in, 8, NULL, "rx_head_in", CLR(BUFF_INT), ARM),
    MCP_RDMA_TOO_LONG(0, D_ARMED, ""),
    MCP_RDMA_DISCARD(0),
    R(D_BODY, D_ARMED, E_RECV_INT, G_CRC_BAD_FOLLOWED, rx_crc_bad_ovl, 8, NULL, "rx_crc_bad_followed",
      CLR(RECV_INT), CNT(DROP_CRC), SETV(OVL_RX, MYRI_MCP_OVL_RX_ABORT), ARM),
    MCP_RDMA_RECV(0, D_BODY, "_body"),
    R(D_BODY, D_DISCARD, E_BUFF_INT, G_FOLLOWED, rx_too_long_ovl, 8, NULL, "rx_too_long_followed", CLR(BUFF_INT),
      CNT(DROP_TOO_LONG), SETV(OVL_RX, MYRI_MCP_OVL_RX_ABORT), ARM),
    MCP_RDMA_TOO_LONG(0, D_BODY, "_body"),
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MACH(name, ctx, st, ru, v) {name, ctx, st, (uint8_t)NELEM(st), ru, (uint16_t)NELEM(ru), v}
static const myri_fw_machine mcp__machines[MYRI_MCP_NMACHINES] = {
    [MYRI_MCP_M_INIT] = MACH("init", MYRI_LANAI_SYSTEM, mcp__init_states, mcp__init_rules, 0),
    [MYRI_MCP_M_HS] = MACH("handshake", MYRI_LANAI_USER, mcp__hs_states, mcp__hs_rules, 0),
    [MYRI_MCP_M_HDMA] = MACH("host_dma", MYRI_LANAI_USER, mcp__hdma_states, mcp__hdma_rules, MCP_C_SERVICE),
    [MYRI_MCP_M_SDMA] = MACH("send_dma", MYRI_LANAI_USER, mcp__sdma_states, mcp__sdma_rules, MCP_C_SERVICE),
    [MYRI_MCP_M_RDMA_INT] = MACH("recv_dma_int", MYRI_LANAI_SYSTEM, mcp__rdma_states, mcp__rdma_int_rules, 0),
    [MYRI_MCP_M_RDMA_POLL] = MACH("recv_dma_poll", MYRI_LANAI_USER, mcp__rdma_states, mcp__rdma_poll_rules, MCP_C_SERVICE),
};

static const myri_fw_name mcp__queues[MYRI_MCP_NQUEUES] = {
    {"send_q", "the HCB's send channel (API puts, MCP gets)", 0},
    {"tx_pool", "packets in SRAM waiting for or in the send DMA", 0},
    {"rx_pool", "packets received, waiting for the to-host DMA (the armed buffer is the unusable slot)", 0},
    {"recv_chan", "the host's receive channels (MCP puts: RC_PUT)", 0},
};
static const myri_fw_name mcp__vars[MYRI_MCP_NVARS] = {
    {"mcp_state", "the HCB's state word", 0},
    {"handshake", "the last handshake token acknowledged", 0},
    {"held", "the rx pool's head packet waits for room in its channel (counted once)", 0},
    {"ovl_tx", "an overlapped send's from-host DMA is running", 0},
    {"ovl_rx", "overlapped receive: NONE, FOLLOW (the to-host DMA follows the live RMP), ABORT (the followed "
               "packet was dropped: not to be announced)", 0},
};
static const myri_fw_name mcp__counters[MYRI_HCB_NCOUNT] = {
    {"rx_good", "delivered", MYRI_FW_ROLE_RX_GOOD},
    {"drop_pool_full", "rx pool full", MYRI_FW_ROLE_DROP_OTHER},
    {"drop_crc", "CRC byte not 0", MYRI_FW_ROLE_DROP_CRC},
    {"drop_too_long", "BUFF_INT", MYRI_FW_ROLE_DROP_OTHER},
    {"drop_type", "not 0x0370", MYRI_FW_ROLE_DROP_OTHER},
    {"drop_subtype", "not API0_DATA", MYRI_FW_ROLE_DROP_OTHER},
    {"drop_chan", "bad channel", MYRI_FW_ROLE_DROP_OTHER},
    {"drop_short", "shorter than a header", MYRI_FW_ROLE_DROP_OTHER},
    {"tx_sent", "tails sent", MYRI_FW_ROLE_TX_SENT},
    {"tx_dropped", "sends dropped (bad entry or route)", MYRI_FW_ROLE_TX_DROPPED},
    {"held", "waits for channel room", MYRI_FW_ROLE_NONE},
};

const myri_fw_def myri_mcp_def = {
    .name = "mcp",
    .summary = "seed 001's MCP (Panariti 1998): HCB, tx/rx pools, host/send/receive DMA machines, PIO and "
               "overlapped sends, interrupt or polled receive, DMA receive notification",
    .params = myri_mcp_param_table,
    .nparams = MYRI_MCP_NPARAMS,
    .params_size = sizeof(myri_mcp_params),
    .params_default = myri_mcp_params_default,
    .machines = mcp__machines,
    .nmachines = MYRI_MCP_NMACHINES,
    .events = mcp__events,
    .nevents = E_N,
    .guards = mcp__guards,
    .nguards = G_N,
    .queues = mcp__queues,
    .vars = mcp__vars,
    .counters = mcp__counters,
    .nqueues = MYRI_MCP_NQUEUES,
    .nvars = MYRI_MCP_NVARS,
    .ncounters = MYRI_HCB_NCOUNT,
    .create = myri_mcp_create_fw,
    .destroy = myri_mcp_destroy,
};
