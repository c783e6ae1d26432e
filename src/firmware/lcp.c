/* lcp.c -- Berkeley VIA's LANai Control Program (seed 000, section 3.1,
 * figures 4 to 8) as tables, on the VIA host interface of common/via.h.
 *
 * Modules (machines, visited in this order by the polling loop):
 *   main     calls lcpRx when a frame came in (RECV_INT or BUFF_INT); takes
 *            receive doorbells itself (posting is bookkeeping, no DMA); else
 *            calls lcpTx when a send doorbell is pending.
 *   lcpTx    LcpTxIdle -> LcpTxGotASend -> (descriptor: call hostDma) ->
 *            LcpTxHostDma (data: call hostDma) -> LcpTxSendDma (the send DMA
 *            runs; a frame coming in meanwhile: LcpTxInvokeRx calls lcpRx) ->
 *            completion (call hostDma) -> back to LcpTxIdle, return.
 *   lcpRx    LcpRxReady (the receive DMA armed) -> LcpRxGotAReceive ->
 *            (descriptor: call hostDma) -> LcpRxHostDma (data: call hostDma)
 *            -> completion (call hostDma) -> re-arm, LcpRxReady, return.
 *   hostDma  HostDmaIdle -> HostDmaBusy (the request's DMA) -> DMA_INT ->
 *            HostDmaIdle, return.
 * One entry point per module: a call (SET call_X = 1) returns only when the
 * callee is back in its initial state (SET call_X = 0).  So while lcpTx waits
 * for its send DMA nothing else runs but lcpRx, and the host DMA of a send
 * never overlaps its send DMA: seed 000's formula 1-A.
 *
 * Cycle costs: fixed parts are assumptions counted as instructions (as in
 * mcp_tables.c); the per-doorbell, per-descriptor, per-send-DMA and
 * per-frame work are the lcp.* parameters. */
#include "common/lanai_regs.h"
#include "firmware/viafw_int.h"

#define C_ISR 3  /* test an ISR bit */
#define C_WORD 4 /* compare two words */
#define C_CALL 6 /* a call or return: store the argument, branch */
#define C_VISIT 8 /* the loop's visit of a module: call, state dispatch, return (assumption) */

enum { CALL_TX = VF_V_CALL_A, CALL_RX = VF_V_CALL_B, CALL_HD = VF_V_CALL_C, REQ_DIR = VF_V_CALL_D };
/* A call of hostDma passes its argument, the direction, in req_dir (the rows say which). */
#define REQ(d) SETV(REQ_DIR, MYRI_LANAI_DIR_##d)
/* ... and in req_data whether it moves a message's data (1) or a descriptor or completion (0). */
#define REQD(x) SETV(VF_V_REQ_DATA, (x))
#define CALLED(fw, c) (myri_fw_get(VF(fw)->fi, (c)) != 0)

/* ---- events ------------------------------------------------------------------------------ */
enum { E_TRUE, E_SDB, E_RDB, E_RX_INT, E_SEND_INT, E_DMA_INT, E_TX_CALLED, E_TX_RET, E_RX_CALLED, E_RX_RET,
       E_HD_CALLED, E_HD_RET, E_N };
static bool ev_tx_called(void *fw, myri_lanai *l) { return (void)l, CALLED(fw, CALL_TX); }
static bool ev_tx_ret(void *fw, myri_lanai *l) { return (void)l, !CALLED(fw, CALL_TX); }
static bool ev_rx_called(void *fw, myri_lanai *l) { return (void)l, CALLED(fw, CALL_RX); }
static bool ev_rx_ret(void *fw, myri_lanai *l) { return (void)l, !CALLED(fw, CALL_RX); }
static bool ev_hd_called(void *fw, myri_lanai *l) { return (void)l, CALLED(fw, CALL_HD); }
static bool ev_hd_ret(void *fw, myri_lanai *l) { return (void)l, !CALLED(fw, CALL_HD); }

static const myri_fw_event lcp__events[E_N] = {
    [E_TRUE] = {"true", "true", 0, myri_viafw_ev_true, NULL},
    [E_SDB] = {"send_doorbell", "sdb_head != sdb_tail", C_WORD, myri_viafw_ev_sdb, NULL},
    [E_RDB] = {"recv_doorbell", "rdb_head != rdb_tail", C_WORD, myri_viafw_ev_rdb, NULL},
    [E_RX_INT] = {"rx_int", "(ISR & (RECV_INT | BUFF_INT)) != 0", C_ISR, myri_viafw_ev_rx_int, NULL},
    [E_SEND_INT] = {"send_int", "(ISR & SEND_INT) != 0", C_ISR, myri_viafw_ev_send_int, NULL},
    [E_DMA_INT] = {"dma_int", "(ISR & DMA_INT) != 0", C_ISR, myri_viafw_ev_dma_int, NULL},
    [E_TX_CALLED] = {"lcpTx_called", "call_lcpTx == 1", C_WORD, ev_tx_called, NULL},
    [E_TX_RET] = {"lcpTx_returned", "call_lcpTx == 0", C_WORD, ev_tx_ret, NULL},
    [E_RX_CALLED] = {"lcpRx_called", "call_lcpRx == 1", C_WORD, ev_rx_called, NULL},
    [E_RX_RET] = {"lcpRx_returned", "call_lcpRx == 0", C_WORD, ev_rx_ret, NULL},
    [E_HD_CALLED] = {"hostDma_called", "call_hostDma == 1", C_WORD, ev_hd_called, NULL},
    [E_HD_RET] = {"hostDma_returned", "call_hostDma == 0", C_WORD, ev_hd_ret, NULL},
};

/* ---- guards -------------------------------------------------------------------------------- */
enum { G_TRUE, G_RDB_OK, G_RDB_BAD, G_TX_DESC_OK, G_TX_DESC_BAD, G_REQ_E2L, G_REQ_L2E, G_REQ_E2L_DATA, G_REQ_L2E_DATA, G_RECV_DISCARD,
       G_BUFF_FIRST, G_BUFF_MORE, G_RX_SHORT, G_RX_CRC, G_RX_TYPE, G_RX_VI, G_RX_NO_DESC, G_RX_GOOD, G_RX_FITS,
       G_RX_NOFIT, G_N };
static uint32_t tx_status(viafw *v)
{
    vf_send s = v->sb[0];
    myri_viafw_read_desc(v, myri_viafw_sbuf(v, 0), &s);
    return myri_viafw_send_status(v, &s);
}
static bool g_tx_desc_ok(void *fw, myri_lanai *l) { return (void)l, tx_status(VF(fw)) == MYRI_VIA_STATUS_DONE; }
static bool g_tx_desc_bad(void *fw, myri_lanai *l) { return (void)l, tx_status(VF(fw)) != MYRI_VIA_STATUS_DONE; }
static bool req_data(void *fw) { return myri_fw_get(VF(fw)->fi, VF_V_REQ_DATA) != 0; }
static bool g_req_e2l(void *fw, myri_lanai *l) { return (void)l, VF(fw)->req_dir == MYRI_LANAI_DIR_E2L && !req_data(fw); }
static bool g_req_l2e(void *fw, myri_lanai *l) { return (void)l, VF(fw)->req_dir == MYRI_LANAI_DIR_L2E && !req_data(fw); }
static bool g_req_e2l_data(void *fw, myri_lanai *l) { return (void)l, VF(fw)->req_dir == MYRI_LANAI_DIR_E2L && req_data(fw); }
static bool g_req_l2e_data(void *fw, myri_lanai *l) { return (void)l, VF(fw)->req_dir == MYRI_LANAI_DIR_L2E && req_data(fw); }
static bool g_rx_short(void *fw, myri_lanai *l) { return myri_viafw_rx_is(fw, l, 0, MYRI_VIA_C_DROP_SHORT, true); }
static bool g_rx_crc(void *fw, myri_lanai *l) { return myri_viafw_rx_is(fw, l, 0, MYRI_VIA_C_DROP_CRC, true); }
static bool g_rx_type(void *fw, myri_lanai *l) { return myri_viafw_rx_is(fw, l, 0, MYRI_VIA_C_DROP_TYPE, true); }
static bool g_rx_vi(void *fw, myri_lanai *l) { return myri_viafw_rx_is(fw, l, 0, MYRI_VIA_C_DROP_VI, true); }
static bool g_rx_no_desc(void *fw, myri_lanai *l) { return myri_viafw_rx_is(fw, l, 0, MYRI_VIA_C_DROP_NO_DESC, true); }
static bool g_rx_good(void *fw, myri_lanai *l) { return myri_viafw_rx_is(fw, l, 0, MYRI_VIA_C_RX_GOOD, true); }
static bool g_rx_fits(void *fw, myri_lanai *l) { return (void)l, myri_viafw_rx_fits(VF(fw)); }
static bool g_rx_nofit(void *fw, myri_lanai *l) { return (void)l, !myri_viafw_rx_fits(VF(fw)); }

static const myri_fw_guard lcp__guards[G_N] = {
    [G_TRUE] = {"true", "true", NULL},
    [G_RDB_OK] = {"rdb_ok", "rdb_vi < NVI && posted[rdb_vi] < RQ", myri_viafw_g_rdb_ok},
    [G_RDB_BAD] = {"rdb_bad", "rdb_vi >= NVI || posted[rdb_vi] == RQ", myri_viafw_g_rdb_bad},
    [G_TX_DESC_OK] = {"tx_desc_ok", "desc_op == SEND && 0 < desc_len <= MTU && route[desc_dest] valid", g_tx_desc_ok},
    [G_TX_DESC_BAD] = {"tx_desc_bad", "!tx_desc_ok", g_tx_desc_bad},
    [G_REQ_E2L] = {"req_from_host", "req_dir == E2L && !req_data", g_req_e2l},
    [G_REQ_L2E] = {"req_to_host", "req_dir == L2E && !req_data", g_req_l2e},
    [G_REQ_E2L_DATA] = {"req_data_from_host", "req_dir == E2L && req_data", g_req_e2l_data},
    [G_REQ_L2E_DATA] = {"req_data_to_host", "req_dir == L2E && req_data", g_req_l2e_data},
    [G_RECV_DISCARD] = {"recv_discarding", "(ISR & RECV_INT) && discarding", myri_viafw_g_recv_discard},
    [G_BUFF_FIRST] = {"buff_first", "(ISR & BUFF_INT) && !(ISR & RECV_INT) && !discarding", myri_viafw_g_buff_first},
    [G_BUFF_MORE] = {"buff_more", "(ISR & BUFF_INT) && !(ISR & RECV_INT) && discarding", myri_viafw_g_buff_more},
    [G_RX_SHORT] = {"rx_short", "(ISR & RECV_INT) && rx_len < 9", g_rx_short},
    [G_RX_CRC] = {"rx_crc_bad", "(ISR & RECV_INT) && rx_crc != 0", g_rx_crc},
    [G_RX_TYPE] = {"rx_type_bad", "(ISR & RECV_INT) && rx_type != 0x0005", g_rx_type},
    [G_RX_VI] = {"rx_vi_bad", "(ISR & RECV_INT) && rx_vi >= NVI", g_rx_vi},
    [G_RX_NO_DESC] = {"rx_no_desc", "(ISR & RECV_INT) && posted[rx_vi] == 0", g_rx_no_desc},
    [G_RX_GOOD] = {"rx_good", "(ISR & RECV_INT) && rx_frame_good && posted[rx_vi] > 0", g_rx_good},
    [G_RX_FITS] = {"rx_fits", "rdesc_op == RECV && rdesc_len >= rx_data_len", g_rx_fits},
    [G_RX_NOFIT] = {"rx_no_fit", "!rx_fits", g_rx_nofit},
};

/* ---- actions --------------------------------------------------------------------------------- */
#define ACT(n) static void a_##n(void *fw, myri_lanai *l)
static void call(viafw *v, uint32_t c, int32_t val) { myri_fw_set(v->fi, c, val); }
static void req(viafw *v, uint32_t host, uint32_t sram, uint32_t dir, uint32_t len, bool data)
{
    v->req_host = host, v->req_sram = sram, v->req_dir = dir, v->req_len = len;
    myri_fw_set(v->fi, REQ_DIR, (int32_t)dir);
    myri_fw_set(v->fi, VF_V_REQ_DATA, data);
    call(v, CALL_HD, 1);
}
static void done(viafw *v, uint32_t area, const vf_done *d)
{
    myri_viafw_done_area(v, area, d);
    req(v, d->desc + MYRI_VIA_DONE_OFF, area, MYRI_LANAI_DIR_L2E, MYRI_VIA_DONE_BYTES, false);
}

ACT(boot) { (void)l, myri_viafw_boot(VF(fw)); }
ACT(none) { (void)fw, (void)l; }
ACT(call_rx) { (void)l, call(VF(fw), CALL_RX, 1); }
ACT(call_tx) { (void)l, call(VF(fw), CALL_TX, 1); }
ACT(post_ok) { (void)l, myri_viafw_post_rdb(VF(fw), true); }
ACT(post_bad) { (void)l, myri_viafw_post_rdb(VF(fw), false); }

ACT(tx_take) { (void)l, myri_viafw_take_sdb(VF(fw), &VF(fw)->sb[0]); }
ACT(tx_desc)
{
    viafw *v = VF(fw);
    (void)l;
    req(v, v->sb[0].desc, myri_viafw_sbuf(v, 0), MYRI_LANAI_DIR_E2L, MYRI_VIA_DESC_BYTES, false);
}
ACT(tx_data)
{
    viafw *v = VF(fw);
    (void)l;
    uint32_t b = myri_viafw_sbuf(v, 0);
    myri_viafw_read_desc(v, b, &v->sb[0]);
    req(v, v->sb[0].addr, b + MYRI_VIA_DESC_BYTES + v->ra + MYRI_VIA_FRAME_HDR_BYTES, MYRI_LANAI_DIR_E2L,
        v->sb[0].len, true);
}
ACT(tx_bad)
{
    viafw *v = VF(fw);
    (void)l;
    uint32_t b = myri_viafw_sbuf(v, 0);
    myri_viafw_read_desc(v, b, &v->sb[0]);
    vf_done d = {v->sb[0].desc, 0, 0, myri_viafw_send_status(v, &v->sb[0])};
    myri_viafw_count(v, MYRI_VIA_C_TX_DROPPED);
    done(v, b + MYRI_VIA_DONE_OFF, &d);
}
ACT(tx_send) { (void)l, myri_viafw_start_send(VF(fw), myri_viafw_sbuf(VF(fw), 0), &VF(fw)->sb[0]); }
ACT(tx_sent)
{
    viafw *v = VF(fw);
    (void)l;
    myri_viafw_reg(v, MYRI_LANAI_ISR, MYRI_LANAI_SEND_INT);
    vf_done d = {v->sb[0].desc, v->sb[0].len, 0, MYRI_VIA_STATUS_DONE};
    myri_viafw_count(v, MYRI_VIA_C_TX_SENT);
    done(v, myri_viafw_sbuf(v, 0) + MYRI_VIA_DONE_OFF, &d);
}
ACT(tx_invoke_rx) { (void)l, call(VF(fw), CALL_RX, 1); }
ACT(tx_return) { (void)l, call(VF(fw), CALL_TX, 0); }

static void rx_rearm(viafw *v, uint32_t bit, uint32_t k)
{
    myri_viafw_reg(v, MYRI_LANAI_ISR, bit);
    if (k != MYRI_VIA_NCOUNT) myri_viafw_count(v, k);
    myri_viafw_arm(v, 0);
    call(v, CALL_RX, 0);
}
ACT(rx_discard_end) { (void)l, VF(fw)->discarding = false, rx_rearm(VF(fw), MYRI_LANAI_RECV_INT, MYRI_VIA_NCOUNT); }
ACT(rx_too_long) { (void)l, VF(fw)->discarding = true, rx_rearm(VF(fw), MYRI_LANAI_BUFF_INT, MYRI_VIA_C_DROP_TOO_LONG); }
ACT(rx_discard_more) { (void)l, rx_rearm(VF(fw), MYRI_LANAI_BUFF_INT, MYRI_VIA_NCOUNT); }
ACT(rx_short) { (void)l, rx_rearm(VF(fw), MYRI_LANAI_RECV_INT, MYRI_VIA_C_DROP_SHORT); }
ACT(rx_crc) { (void)l, rx_rearm(VF(fw), MYRI_LANAI_RECV_INT, MYRI_VIA_C_DROP_CRC); }
ACT(rx_type) { (void)l, rx_rearm(VF(fw), MYRI_LANAI_RECV_INT, MYRI_VIA_C_DROP_TYPE); }
ACT(rx_vi) { (void)l, rx_rearm(VF(fw), MYRI_LANAI_RECV_INT, MYRI_VIA_C_DROP_VI); }
ACT(rx_no_desc) { (void)l, rx_rearm(VF(fw), MYRI_LANAI_RECV_INT, MYRI_VIA_C_DROP_NO_DESC); }
ACT(rx_got)
{
    viafw *v = VF(fw);
    (void)l;
    v->rlen[0] = myri_viafw_received(v);
    myri_viafw_reg(v, MYRI_LANAI_ISR, MYRI_LANAI_RECV_INT);
}
ACT(rx_desc)
{
    viafw *v = VF(fw);
    (void)l;
    uint32_t desc = myri_viafw_rx_take_desc(v, 0);
    req(v, desc, myri_viafw_rbuf(v, 0), MYRI_LANAI_DIR_E2L, MYRI_VIA_DESC_BYTES, false);
}
ACT(rx_data)
{
    viafw *v = VF(fw);
    (void)l;
    uint32_t addr, len;
    myri_viafw_rx_read_desc(v, 0, &addr, &len);
    req(v, addr, myri_viafw_rbuf(v, 0) + MYRI_VIA_DESC_BYTES + MYRI_VIA_FRAME_HDR_BYTES, MYRI_LANAI_DIR_L2E,
        v->rx_dlen, true);
}
ACT(rx_trunc)
{
    viafw *v = VF(fw);
    (void)l;
    v->rx.status = MYRI_VIA_STATUS_TRUNC;
    v->rx.len = 0;
    myri_viafw_count(v, MYRI_VIA_C_DROP_TOO_LONG);
    done(v, myri_viafw_rbuf(v, 0) + MYRI_VIA_DONE_OFF, &v->rx);
}
ACT(rx_deliver)
{
    viafw *v = VF(fw);
    (void)l;
    myri_viafw_count(v, MYRI_VIA_C_RX_GOOD);
    done(v, myri_viafw_rbuf(v, 0) + MYRI_VIA_DONE_OFF, &v->rx);
}
ACT(rx_return)
{
    (void)l;
    myri_viafw_arm(VF(fw), 0);
    call(VF(fw), CALL_RX, 0);
}

ACT(hd_start)
{
    viafw *v = VF(fw);
    (void)l;
    myri_viafw_hdma(v, v->req_host, v->req_sram, v->req_dir, v->req_len);
}
ACT(hd_done)
{
    (void)l;
    myri_viafw_reg(VF(fw), MYRI_LANAI_ISR, MYRI_LANAI_DMA_INT);
    call(VF(fw), CALL_HD, 0);
}

/* ---- machines ------------------------------------------------------------------------------------- */

enum { I_RESET, I_READY };
static const char *const lcp__init_states[] = {"RESET", "READY"};
static const myri_fw_rule lcp__init_rules[] = {
    R(I_RESET, I_READY, E_TRUE, G_TRUE, boot, 40, myri_viafw_x_boot, "boot", SETV(VF_V_STATE, MYRI_VIA_STATE_READY),
      ARM),
};

enum { MN_IDLE, MN_RX, MN_TX };
static const char *const lcp__main_states[] = {"MainIdle", "MainRx", "MainTx"};
static const myri_fw_rule lcp__main_rules[] = {
    R(MN_IDLE, MN_RX, E_RX_INT, G_TRUE, call_rx, C_CALL, NULL, "invoke_lcpRx", SETV(CALL_RX, 1)),
    /* Receive doorbells before send doorbells: posting is bookkeeping, and a send holds main for the whole of it
     * (lcpTx returns only when done), so after it a receive posted before a frame came in would find no
     * descriptor (docs/VERIFY.md, replay: 2 of 16 frames dropped by via-duplex with the sends first). */
    R(MN_IDLE, MN_IDLE, E_RDB, G_RDB_OK, post_ok, 12, myri_viafw_x_db, "post_receive", QG(VF_Q_RDB),
      CNT(MYRI_VIA_C_DOORBELLS), QP(VF_Q_POSTED)),
    R(MN_IDLE, MN_IDLE, E_RDB, G_RDB_BAD, post_bad, 12, myri_viafw_x_db, "refuse_receive", QG(VF_Q_RDB),
      CNT(MYRI_VIA_C_DOORBELLS), CNT(VF_C_DOORBELL_BAD)),
    R(MN_IDLE, MN_TX, E_SDB, G_TRUE, call_tx, C_CALL, NULL, "invoke_lcpTx", SETV(CALL_TX, 1)),
    R(MN_RX, MN_IDLE, E_RX_RET, G_TRUE, none, 2, NULL, "lcpRx_returned", EF(NOP, 0, 0)),
    R(MN_TX, MN_IDLE, E_TX_RET, G_TRUE, none, 2, NULL, "lcpTx_returned", EF(NOP, 0, 0)),
};

static const char *const lcp__tx_states[] = {"LcpTxIdle",   "LcpTxGotASend", "LcpTxDesc",    "LcpTxHostDma",
                                             "LcpTxSendDma", "LcpTxInvokeRx", "LcpTxComplete"};
static const myri_fw_rule lcp__tx_rules[] = {
    R(MYRI_LCP_TX_IDLE, MYRI_LCP_TX_GOT, E_TX_CALLED, G_TRUE, tx_take, 10, myri_viafw_x_db, "take_doorbell",
      QG(VF_Q_SDB), CNT(MYRI_VIA_C_DOORBELLS)),
    R(MYRI_LCP_TX_GOT, MYRI_LCP_TX_DESC, E_TRUE, G_TRUE, tx_desc, C_CALL, NULL, "fetch_descriptor",
      REQ(E2L), REQD(0), SETV(CALL_HD, 1)),
    R(MYRI_LCP_TX_DESC, MYRI_LCP_TX_HDMA, E_HD_RET, G_TX_DESC_OK, tx_data, C_CALL, myri_viafw_x_desc, "fetch_data",
      REQ(E2L), REQD(1), SETV(CALL_HD, 1)),
    R(MYRI_LCP_TX_DESC, MYRI_LCP_TX_COMPLETE, E_HD_RET, G_TX_DESC_BAD, tx_bad, C_CALL + 8, myri_viafw_x_desc,
      "refuse_descriptor", CNT(MYRI_VIA_C_TX_DROPPED), REQ(L2E), REQD(0), SETV(CALL_HD, 1)),
    R(MYRI_LCP_TX_HDMA, MYRI_LCP_TX_SDMA, E_HD_RET, G_TRUE, tx_send, 4, myri_viafw_x_sdma, "start_send_dma",
      EF(START_SDMA, 1, 0)),
    R(MYRI_LCP_TX_SDMA, MYRI_LCP_TX_COMPLETE, E_SEND_INT, G_TRUE, tx_sent, C_CALL + 8, NULL, "sent", CLR(SEND_INT),
      CNT(MYRI_VIA_C_TX_SENT), REQ(L2E), REQD(0), SETV(CALL_HD, 1)),
    R(MYRI_LCP_TX_SDMA, MYRI_LCP_TX_INVOKE_RX, E_RX_INT, G_TRUE, tx_invoke_rx, C_CALL, NULL, "invoke_lcpRx",
      SETV(CALL_RX, 1)),
    R(MYRI_LCP_TX_INVOKE_RX, MYRI_LCP_TX_SDMA, E_RX_RET, G_TRUE, none, 2, NULL, "lcpRx_returned", EF(NOP, 0, 0)),
    R(MYRI_LCP_TX_COMPLETE, MYRI_LCP_TX_IDLE, E_HD_RET, G_TRUE, tx_return, C_CALL, NULL, "return",
      SETV(CALL_TX, 0)),
};

#define RX_DROP(g, act, k, name)                                                                                  \
    R(MYRI_LCP_RX_READY, MYRI_LCP_RX_READY, E_RX_CALLED, g, act, 10, myri_viafw_x_rx, name, CLR(RECV_INT), CNT(k), \
      ARM, SETV(CALL_RX, 0))
static const char *const lcp__rx_states[] = {"LcpRxReady", "LcpRxGotAReceive", "LcpRxDesc", "LcpRxHostDma",
                                             "LcpRxComplete"};
static const myri_fw_rule lcp__rx_rules[] = {
    R(MYRI_LCP_RX_READY, MYRI_LCP_RX_READY, E_RX_CALLED, G_RECV_DISCARD, rx_discard_end, 8, NULL, "discard_end",
      CLR(RECV_INT), ARM, SETV(CALL_RX, 0)),
    R(MYRI_LCP_RX_READY, MYRI_LCP_RX_READY, E_RX_CALLED, G_BUFF_FIRST, rx_too_long, 10, NULL, "too_long",
      CLR(BUFF_INT), CNT(MYRI_VIA_C_DROP_TOO_LONG), ARM, SETV(CALL_RX, 0)),
    R(MYRI_LCP_RX_READY, MYRI_LCP_RX_READY, E_RX_CALLED, G_BUFF_MORE, rx_discard_more, 8, NULL, "discard_more",
      CLR(BUFF_INT), ARM, SETV(CALL_RX, 0)),
    RX_DROP(G_RX_SHORT, rx_short, MYRI_VIA_C_DROP_SHORT, "drop_short"),
    RX_DROP(G_RX_CRC, rx_crc, MYRI_VIA_C_DROP_CRC, "drop_crc"),
    RX_DROP(G_RX_TYPE, rx_type, MYRI_VIA_C_DROP_TYPE, "drop_type"),
    RX_DROP(G_RX_VI, rx_vi, MYRI_VIA_C_DROP_VI, "drop_vi"),
    RX_DROP(G_RX_NO_DESC, rx_no_desc, MYRI_VIA_C_DROP_NO_DESC, "drop_no_descriptor"),
    R(MYRI_LCP_RX_READY, MYRI_LCP_RX_GOT, E_RX_CALLED, G_RX_GOOD, rx_got, 10, myri_viafw_x_rx, "got_a_receive",
      CLR(RECV_INT)),
    R(MYRI_LCP_RX_GOT, MYRI_LCP_RX_DESC, E_TRUE, G_TRUE, rx_desc, C_CALL + 6, NULL, "fetch_descriptor",
      QG(VF_Q_POSTED), REQ(E2L), REQD(0), SETV(CALL_HD, 1)),
    R(MYRI_LCP_RX_DESC, MYRI_LCP_RX_HDMA, E_HD_RET, G_RX_FITS, rx_data, C_CALL, myri_viafw_x_desc, "data_to_host",
      REQ(L2E), REQD(1), SETV(CALL_HD, 1)),
    R(MYRI_LCP_RX_DESC, MYRI_LCP_RX_COMPLETE, E_HD_RET, G_RX_NOFIT, rx_trunc, C_CALL + 8, myri_viafw_x_desc,
      "truncated", CNT(MYRI_VIA_C_DROP_TOO_LONG), REQ(L2E), REQD(0), SETV(CALL_HD, 1)),
    R(MYRI_LCP_RX_HDMA, MYRI_LCP_RX_COMPLETE, E_HD_RET, G_TRUE, rx_deliver, C_CALL + 8, NULL, "complete",
      CNT(MYRI_VIA_C_RX_GOOD), REQ(L2E), REQD(0), SETV(CALL_HD, 1)),
    R(MYRI_LCP_RX_COMPLETE, MYRI_LCP_RX_READY, E_HD_RET, G_TRUE, rx_return, C_CALL + 4, NULL, "rearm_return", ARM,
      SETV(CALL_RX, 0)),
};

static const char *const lcp__hd_states[] = {"HostDmaIdle", "HostDmaBusy"};
static const myri_fw_rule lcp__hd_rules[] = {
    R(MYRI_LCP_HD_IDLE, MYRI_LCP_HD_BUSY, E_HD_CALLED, G_REQ_E2L, hd_start, 14, NULL, "start_from_host",
      EF(START_HDMA, MYRI_LANAI_DIR_E2L, 0)),
    R(MYRI_LCP_HD_IDLE, MYRI_LCP_HD_BUSY, E_HD_CALLED, G_REQ_L2E, hd_start, 14, NULL, "start_to_host",
      EF(START_HDMA, MYRI_LANAI_DIR_L2E, 0)),
    R(MYRI_LCP_HD_IDLE, MYRI_LCP_HD_BUSY, E_HD_CALLED, G_REQ_E2L_DATA, hd_start, 14, NULL, "start_data_from_host",
      EF(START_HDMA, MYRI_LANAI_DIR_E2L, 1)),
    R(MYRI_LCP_HD_IDLE, MYRI_LCP_HD_BUSY, E_HD_CALLED, G_REQ_L2E_DATA, hd_start, 14, NULL, "start_data_to_host",
      EF(START_HDMA, MYRI_LANAI_DIR_L2E, 1)),
    R(MYRI_LCP_HD_BUSY, MYRI_LCP_HD_IDLE, E_DMA_INT, G_TRUE, hd_done, C_CALL, NULL, "done_return", CLR(DMA_INT),
      SETV(CALL_HD, 0)),
};

static const myri_fw_machine lcp__machines[MYRI_LCP_NMACHINES] = {
    [MYRI_LCP_M_INIT] = MACH("init", MYRI_LANAI_SYSTEM, lcp__init_states, lcp__init_rules, 0),
    [MYRI_LCP_M_MAIN] = MACH("main", MYRI_LANAI_USER, lcp__main_states, lcp__main_rules, C_VISIT),
    [MYRI_LCP_M_TX] = MACH("lcpTx", MYRI_LANAI_USER, lcp__tx_states, lcp__tx_rules, C_VISIT),
    [MYRI_LCP_M_RX] = MACH("lcpRx", MYRI_LANAI_USER, lcp__rx_states, lcp__rx_rules, C_VISIT),
    [MYRI_LCP_M_HDMA] = MACH("hostDma", MYRI_LANAI_USER, lcp__hd_states, lcp__hd_rules, C_VISIT),
};

static const myri_fw_name lcp__queues[VF_NQUEUES] = {
    {"sdb", "send doorbells (host rings, lcpTx takes)", 0},
    {"rdb", "receive doorbells (host rings, main takes)", 0},
    {"posted", "receive descriptors posted, per VI", 0},
    {"tx", "send buffers filled (unused: one buffer)", 0},
    {"rx", "receive buffers filled (unused: one buffer)", 0},
    {"Events", "(unused by the lcp)", 0},
    {"cq", "(unused by the lcp)", 0},
};
static const myri_fw_name lcp__vars[VF_NVARS] = {
    {"state", "the VCB's state word", 0},
    {"call_lcpTx", "1 while main's call of lcpTx runs", 0},
    {"call_lcpRx", "1 while a call of lcpRx (by main or lcpTx) runs", 0},
    {"call_hostDma", "1 while a call of hostDma runs", 0},
    {"req_dir", "hostDma's argument: the direction asked for (E2L: from host, L2E: to host)", 0},
    {"hdma_owner", "(unused by the lcp: hostDma serves one caller at a time)", 0},
    {"hs_pending", "(unused by the lcp)", 0},
    {"hs_refused", "(unused by the lcp)", 0},
    {"req_data", "hostDma's argument: 1 when the transfer moves a message's data, 0 a descriptor or completion", 0},
};
const myri_fw_name myri_viafw_counters[VF_NCOUNTERS] = {
    {"rx_good", "delivered into a receive descriptor", MYRI_FW_ROLE_RX_GOOD},
    {"drop_crc", "CRC byte not 0", MYRI_FW_ROLE_DROP_CRC},
    {"drop_no_desc", "no receive descriptor posted for the VI", MYRI_FW_ROLE_DROP_OTHER},
    {"drop_too_long", "longer than the buffer", MYRI_FW_ROLE_DROP_OTHER},
    {"drop_type", "not 0x0005 (or misrouted)", MYRI_FW_ROLE_DROP_OTHER},
    {"drop_vi", "VI out of range", MYRI_FW_ROLE_DROP_OTHER},
    {"drop_short", "shorter than a frame header", MYRI_FW_ROLE_DROP_OTHER},
    {"tx_sent", "tails sent", MYRI_FW_ROLE_TX_SENT},
    {"tx_dropped", "sends refused (bad descriptor, no route)", MYRI_FW_ROLE_TX_DROPPED},
    {"doorbells", "doorbells taken", MYRI_FW_ROLE_NONE},
    {"doorbell_bad", "receive doorbells refused (VI out of range, too many posted)", MYRI_FW_ROLE_NONE},
};

const myri_fw_def myri_lcp_def = {
    .name = "lcp",
    .summary = "Berkeley VIA's LCP (seed 000): main, lcpTx, lcpRx, hostDma with one entry point each, so host DMA "
               "and send DMA run one after the other; VIA doorbells and descriptors (common/via.h)",
    .params = myri_lcp_param_table,
    .nparams = MYRI_VIAFW_NPARAMS,
    .params_size = sizeof(myri_viafw_params),
    .params_default = myri_lcp_params_default,
    .machines = lcp__machines,
    .nmachines = MYRI_LCP_NMACHINES,
    .events = lcp__events,
    .nevents = E_N,
    .guards = lcp__guards,
    .nguards = G_N,
    .queues = lcp__queues,
    .vars = lcp__vars,
    .counters = myri_viafw_counters,
    .nqueues = VF_NQUEUES,
    .nvars = VF_NVARS,
    .ncounters = VF_NCOUNTERS,
    .create = myri_viafw_create,
    .destroy = myri_viafw_destroy,
};
