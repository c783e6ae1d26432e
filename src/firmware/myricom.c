/* myricom.c -- Myricom's MCP as seed 000 models it (section 3.2, figures 9
 * to 14) as tables, on the VIA host interface of common/via.h.
 *
 * Modules (machines, visited in this order by the polling loop):
 *   main         polls its Events queue and the hardware and calls a module:
 *                an event -> the module it wakes (first: a module's news,
 *                such as TX_READY, goes on at once), DMA_INT -> the host-DMA
 *                engine's owner (hostSend or hostReceive), SEND_INT ->
 *                netSend, RECV_INT/BUFF_INT -> netReceive, a send doorbell or
 *                a completion to write -> hostSend; takes receive doorbells.
 *   hostSend     HostSendIdle -> HostSendGotASend -> HostSendFull (no SRAM
 *                buffer) | HostSendDmaBusy (hostReceive holds the host DMA) |
 *                descriptor, then HostSendDma (data into the buffer) ->
 *                TX_READY; also writes send completions (HostSendComplete).
 *   netSend      NetSendIdle -> NetSendBusy (the send DMA) -> SEND_INT: frees
 *                the buffer (TX_FREE), queues the completion.
 *   hostReceive  HostReceiveIdle -> HostReceiveGotAReceive -> HostReceiveDmaBusy
 *                | descriptor, HostReceiveDma (data to host), completion.
 *   netReceive   NetReceiveDma (armed) -> NetReceiveDmaDone -> NetReceiveDma
 *                (next buffer armed) | NetReceiveFull (none free: RX_FREE).
 * Several entry points per module: a call (SET call_X = state + 1) runs the
 * module from where it stopped and returns (SET call_X = 0) at the next entry
 * point without waiting; so while the send DMA sends one buffer, hostSend
 * fills another: host DMA and send DMA overlap (seed 000's 2-A).
 *
 * Completions: the send's is queued by netSend (cq) and written by hostSend
 * (it owns the host DMA for sends); hostSend takes a new doorbell only with
 * the cq empty, so the cq holds at most 2 nsb completions (VF_CQ).
 *
 * Cycle costs: fixed parts are assumptions counted as instructions (as in
 * mcp_tables.c); per doorbell, descriptor, send-DMA programming and frame:
 * the myricom.* parameters. */
#include "common/lanai_regs.h"
#include "firmware/viafw_int.h"

#define C_ISR 3
#define C_WORD 4
#define C_CALL 6
#define C_EV 8   /* put or take an event */
#define C_VISIT 8

enum { CALL_HS = VF_V_CALL_A, CALL_NS = VF_V_CALL_B, CALL_HR = VF_V_CALL_C, CALL_NR = VF_V_CALL_D };
#define CALLED(fw, c) (myri_fw_get(VF(fw)->fi, (c)) != 0)
#define OWNER(fw) myri_fw_get(VF(fw)->fi, VF_V_HDMA_OWNER)
#define AT(fw, m, s) (myri_fw_machine_state(VF(fw)->fi, (m)) == (s))

/* ---- events ------------------------------------------------------------------------------------ */
enum { E_TRUE, E_DMA_INT, E_SEND_INT, E_RX_INT, E_EVENTS, E_SDB, E_CQ, E_RDB, E_HS_CALLED, E_NS_CALLED,
       E_HR_CALLED, E_NR_CALLED, E_HS_RET, E_NS_RET, E_HR_RET, E_NR_RET, E_N };
static bool ev_events(void *fw, myri_lanai *l) { return (void)l, VF(fw)->ev_n > 0; }
static bool ev_cq(void *fw, myri_lanai *l) { return (void)l, VF(fw)->cq_n > 0; }
static bool ev_hs_called(void *fw, myri_lanai *l) { return (void)l, CALLED(fw, CALL_HS); }
static bool ev_ns_called(void *fw, myri_lanai *l) { return (void)l, CALLED(fw, CALL_NS); }
static bool ev_hr_called(void *fw, myri_lanai *l) { return (void)l, CALLED(fw, CALL_HR); }
static bool ev_nr_called(void *fw, myri_lanai *l) { return (void)l, CALLED(fw, CALL_NR); }
static bool ev_hs_ret(void *fw, myri_lanai *l) { return (void)l, !CALLED(fw, CALL_HS); }
static bool ev_ns_ret(void *fw, myri_lanai *l) { return (void)l, !CALLED(fw, CALL_NS); }
static bool ev_hr_ret(void *fw, myri_lanai *l) { return (void)l, !CALLED(fw, CALL_HR); }
static bool ev_nr_ret(void *fw, myri_lanai *l) { return (void)l, !CALLED(fw, CALL_NR); }

static const myri_fw_event myr__events[E_N] = {
    [E_TRUE] = {"true", "true", 0, myri_viafw_ev_true, NULL},
    [E_DMA_INT] = {"dma_int", "(ISR & DMA_INT) != 0", C_ISR, myri_viafw_ev_dma_int, NULL},
    [E_SEND_INT] = {"send_int", "(ISR & SEND_INT) != 0", C_ISR, myri_viafw_ev_send_int, NULL},
    [E_RX_INT] = {"rx_int", "(ISR & (RECV_INT | BUFF_INT)) != 0", C_ISR, myri_viafw_ev_rx_int, NULL},
    [E_EVENTS] = {"event", "len(Events) > 0", C_WORD, ev_events, NULL},
    [E_SDB] = {"send_doorbell", "sdb_head != sdb_tail", C_WORD, myri_viafw_ev_sdb, NULL},
    [E_CQ] = {"completion", "len(cq) > 0", C_WORD, ev_cq, NULL},
    [E_RDB] = {"recv_doorbell", "rdb_head != rdb_tail", C_WORD, myri_viafw_ev_rdb, NULL},
    [E_HS_CALLED] = {"hostSend_called", "call_hostSend != 0", C_WORD, ev_hs_called, NULL},
    [E_NS_CALLED] = {"netSend_called", "call_netSend != 0", C_WORD, ev_ns_called, NULL},
    [E_HR_CALLED] = {"hostReceive_called", "call_hostReceive != 0", C_WORD, ev_hr_called, NULL},
    [E_NR_CALLED] = {"netReceive_called", "call_netReceive != 0", C_WORD, ev_nr_called, NULL},
    [E_HS_RET] = {"hostSend_returned", "call_hostSend == 0", C_WORD, ev_hs_ret, NULL},
    [E_NS_RET] = {"netSend_returned", "call_netSend == 0", C_WORD, ev_ns_ret, NULL},
    [E_HR_RET] = {"hostReceive_returned", "call_hostReceive == 0", C_WORD, ev_hr_ret, NULL},
    [E_NR_RET] = {"netReceive_returned", "call_netReceive == 0", C_WORD, ev_nr_ret, NULL},
};

/* ---- guards -------------------------------------------------------------------------------------- */
enum { G_TRUE, G_OWN_HS, G_OWN_HR, G_EV_TXR, G_EV_TXF, G_EV_RXR, G_EV_RXF, G_EV_HDF_HS, G_EV_HDF_HR, G_EV_STALE,
       G_HS_IDLE_CQOK, G_HS_IDLE_FREE, G_RDB_OK, G_RDB_BAD, G_CQ_GO, G_SDB_GO, G_HS_NOTHING, G_NO_SBUF,
       G_HDMA_BUSY, G_HDMA_FREE, G_DESC_OK, G_DESC_BAD, G_BAD_DONE, G_CQ_DONE_PEND, G_CQ_DONE, G_TX_READY, G_NOT_READY,
       G_MORE_READY, G_LAST_READY, G_RECV_DISCARD, G_BUFF_FIRST, G_BUFF_MORE, G_RX_SHORT, G_RX_CRC, G_RX_TYPE,
       G_RX_VI, G_RX_GOOD, G_RBUF_FREE, G_RBUF_FULL, G_RX_PENDING, G_RX_NONE, G_HR_NO_DESC, G_HR_BUSY, G_HR_GO,
       G_FITS, G_NOFIT, G_MORE_RX, G_LAST_RX, G_N };
static bool g_own_hs(void *fw, myri_lanai *l) { return (void)l, OWNER(fw) == VF_OWN_HS; }
static bool g_own_hr(void *fw, myri_lanai *l) { return (void)l, OWNER(fw) == VF_OWN_HR; }
static uint32_t ev_head(const viafw *v) { return v->ev_n ? v->evq[v->ev_head] : 0; }
static bool g_ev_txr(void *fw, myri_lanai *l)
{
    return (void)l, ev_head(VF(fw)) == VF_EV_TX_READY && AT(fw, MYRI_MYR_M_NS, MYRI_MYR_NS_IDLE);
}
static bool g_ev_txf(void *fw, myri_lanai *l)
{
    return (void)l, ev_head(VF(fw)) == VF_EV_TX_FREE && AT(fw, MYRI_MYR_M_HS, MYRI_MYR_HS_FULL);
}
static bool g_ev_rxr(void *fw, myri_lanai *l)
{
    return (void)l, ev_head(VF(fw)) == VF_EV_RX_READY && AT(fw, MYRI_MYR_M_HR, MYRI_MYR_HR_IDLE);
}
static bool g_ev_rxf(void *fw, myri_lanai *l)
{
    return (void)l, ev_head(VF(fw)) == VF_EV_RX_FREE && AT(fw, MYRI_MYR_M_NR, MYRI_MYR_NR_FULL);
}
static bool g_ev_hdf_hs(void *fw, myri_lanai *l)
{
    return (void)l, ev_head(VF(fw)) == VF_EV_HDMA_FREE && AT(fw, MYRI_MYR_M_HS, MYRI_MYR_HS_BUSY);
}
static bool g_ev_hdf_hr(void *fw, myri_lanai *l)
{
    return (void)l, ev_head(VF(fw)) == VF_EV_HDMA_FREE && !AT(fw, MYRI_MYR_M_HS, MYRI_MYR_HS_BUSY) &&
                    AT(fw, MYRI_MYR_M_HR, MYRI_MYR_HR_BUSY);
}
static bool g_ev_stale(void *fw, myri_lanai *l)
{
    return !g_ev_txr(fw, l) && !g_ev_txf(fw, l) && !g_ev_rxr(fw, l) && !g_ev_rxf(fw, l) && !g_ev_hdf_hs(fw, l) &&
           !g_ev_hdf_hr(fw, l);
}
static bool g_hs_idle_cqok(void *fw, myri_lanai *l)
{
    return (void)l, AT(fw, MYRI_MYR_M_HS, MYRI_MYR_HS_IDLE) && VF(fw)->cq_n == 0;
}
static bool g_hs_idle_free(void *fw, myri_lanai *l)
{
    return (void)l, AT(fw, MYRI_MYR_M_HS, MYRI_MYR_HS_IDLE) && OWNER(fw) == VF_OWN_NONE;
}
static bool g_cq_go(void *fw, myri_lanai *l) { return (void)l, VF(fw)->cq_n > 0 && OWNER(fw) == VF_OWN_NONE; }
static bool g_sdb_go(void *fw, myri_lanai *l)
{
    return (void)l, !g_cq_go(fw, l) && VF(fw)->cq_n == 0 && myri_viafw_sdb_pending(VF(fw));
}
static bool g_hs_nothing(void *fw, myri_lanai *l) { return !g_cq_go(fw, l) && !g_sdb_go(fw, l); }
static bool g_no_sbuf(void *fw, myri_lanai *l) { return (void)l, VF(fw)->s_used == VF(fw)->nsb; }
static bool g_hdma_busy(void *fw, myri_lanai *l) { return !g_no_sbuf(fw, l) && OWNER(fw) != VF_OWN_NONE; }
static bool g_hdma_free(void *fw, myri_lanai *l) { return !g_no_sbuf(fw, l) && OWNER(fw) == VF_OWN_NONE; }
static uint32_t hs_status(viafw *v)
{
    vf_send s = v->sb[v->s_fill];
    myri_viafw_read_desc(v, myri_viafw_sbuf(v, v->s_fill), &s);
    return myri_viafw_send_status(v, &s);
}
static bool dma_int(myri_lanai *l) { return myri_viafw_isr(l, MYRI_LANAI_DMA_INT); }
static bool g_desc_ok(void *fw, myri_lanai *l) { return dma_int(l) && hs_status(VF(fw)) == MYRI_VIA_STATUS_DONE; }
static bool g_desc_bad(void *fw, myri_lanai *l) { return dma_int(l) && hs_status(VF(fw)) != MYRI_VIA_STATUS_DONE; }
static bool g_bad_done(void *fw, myri_lanai *l) { return dma_int(l) && myri_fw_get(VF(fw)->fi, VF_V_HS_REFUSED); }
static bool g_cq_done_pend(void *fw, myri_lanai *l)
{
    return dma_int(l) && !myri_fw_get(VF(fw)->fi, VF_V_HS_REFUSED) && myri_fw_get(VF(fw)->fi, VF_V_HS_PENDING);
}
static bool g_cq_done(void *fw, myri_lanai *l) { return dma_int(l) && !myri_fw_get(VF(fw)->fi, VF_V_HS_REFUSED) && !myri_fw_get(VF(fw)->fi, VF_V_HS_PENDING); }
static bool g_tx_ready(void *fw, myri_lanai *l) { return (void)l, VF(fw)->s_ready > 0; }
static bool g_not_ready(void *fw, myri_lanai *l) { return (void)l, VF(fw)->s_ready == 0; }
static bool send_int(myri_lanai *l) { return myri_viafw_isr(l, MYRI_LANAI_SEND_INT); }
static bool g_more_ready(void *fw, myri_lanai *l) { return send_int(l) && VF(fw)->s_ready > 1; }
static bool g_last_ready(void *fw, myri_lanai *l) { return send_int(l) && VF(fw)->s_ready <= 1; }
static bool g_rx_short(void *fw, myri_lanai *l) { return myri_viafw_rx_is(fw, l, VF(fw)->r_fill, MYRI_VIA_C_DROP_SHORT, false); }
static bool g_rx_crc(void *fw, myri_lanai *l) { return myri_viafw_rx_is(fw, l, VF(fw)->r_fill, MYRI_VIA_C_DROP_CRC, false); }
static bool g_rx_type(void *fw, myri_lanai *l) { return myri_viafw_rx_is(fw, l, VF(fw)->r_fill, MYRI_VIA_C_DROP_TYPE, false); }
static bool g_rx_vi(void *fw, myri_lanai *l) { return myri_viafw_rx_is(fw, l, VF(fw)->r_fill, MYRI_VIA_C_DROP_VI, false); }
static bool g_rx_good(void *fw, myri_lanai *l) { return myri_viafw_rx_is(fw, l, VF(fw)->r_fill, MYRI_VIA_C_RX_GOOD, false); }
static bool g_rbuf_free(void *fw, myri_lanai *l) { return (void)l, VF(fw)->r_n < VF(fw)->nrb; }
static bool g_rbuf_full(void *fw, myri_lanai *l) { return (void)l, VF(fw)->r_n == VF(fw)->nrb; }
static bool g_rx_pending(void *fw, myri_lanai *l) { return (void)l, VF(fw)->r_n > 0; }
static bool g_rx_none(void *fw, myri_lanai *l) { return (void)l, VF(fw)->r_n == 0; }
static uint32_t hr_vi(viafw *v)
{
    const uint8_t *f = myri_lanai_sram(v->l, myri_viafw_rbuf(v, v->r_head) + MYRI_VIA_DESC_BYTES, 8);
    return f ? f[MYRI_VIA_FH_DST_VI] : 0;
}
static bool g_hr_no_desc(void *fw, myri_lanai *l) { return (void)l, VF(fw)->rq_n[hr_vi(VF(fw))] == 0; }
static bool g_hr_busy(void *fw, myri_lanai *l) { return !g_hr_no_desc(fw, l) && OWNER(fw) != VF_OWN_NONE; }
static bool g_hr_go(void *fw, myri_lanai *l) { return !g_hr_no_desc(fw, l) && OWNER(fw) == VF_OWN_NONE; }
static bool g_fits(void *fw, myri_lanai *l) { return dma_int(l) && myri_viafw_rx_fits(VF(fw)); }
static bool g_nofit(void *fw, myri_lanai *l) { return dma_int(l) && !myri_viafw_rx_fits(VF(fw)); }
static bool g_more_rx(void *fw, myri_lanai *l) { return dma_int(l) && VF(fw)->r_n > 1; }
static bool g_last_rx(void *fw, myri_lanai *l) { return dma_int(l) && VF(fw)->r_n <= 1; }

static const myri_fw_guard myr__guards[G_N] = {
    [G_TRUE] = {"true", "true", NULL},
    [G_OWN_HS] = {"hdma_hostSend", "hdma_owner == HOST_SEND", g_own_hs},
    [G_OWN_HR] = {"hdma_hostReceive", "hdma_owner == HOST_RECEIVE", g_own_hr},
    [G_EV_TXR] = {"ev_tx_ready", "Events[0] == TX_READY && netSend == NetSendIdle", g_ev_txr},
    [G_EV_TXF] = {"ev_tx_free", "Events[0] == TX_FREE && hostSend == HostSendFull", g_ev_txf},
    [G_EV_RXR] = {"ev_rx_ready", "Events[0] == RX_READY && hostReceive == HostReceiveIdle", g_ev_rxr},
    [G_EV_RXF] = {"ev_rx_free", "Events[0] == RX_FREE && netReceive == NetReceiveFull", g_ev_rxf},
    [G_EV_HDF_HS] = {"ev_hdma_free_hs", "Events[0] == HDMA_FREE && hostSend == HostSendDmaBusy", g_ev_hdf_hs},
    [G_EV_HDF_HR] = {"ev_hdma_free_hr",
                     "Events[0] == HDMA_FREE && hostSend != HostSendDmaBusy && hostReceive == HostReceiveDmaBusy",
                     g_ev_hdf_hr},
    [G_EV_STALE] = {"ev_stale", "no module waits for Events[0]", g_ev_stale},
    [G_HS_IDLE_CQOK] = {"hostSend_idle_cq_empty", "hostSend == HostSendIdle && len(cq) == 0", g_hs_idle_cqok},
    [G_HS_IDLE_FREE] = {"hostSend_idle_hdma_free", "hostSend == HostSendIdle && hdma_owner == NONE",
                        g_hs_idle_free},
    [G_RDB_OK] = {"rdb_ok", "rdb_vi < NVI && posted[rdb_vi] < RQ", myri_viafw_g_rdb_ok},
    [G_RDB_BAD] = {"rdb_bad", "rdb_vi >= NVI || posted[rdb_vi] == RQ", myri_viafw_g_rdb_bad},
    [G_CQ_GO] = {"cq_go", "len(cq) > 0 && hdma_owner == NONE", g_cq_go},
    [G_SDB_GO] = {"sdb_go", "!cq_go && len(cq) == 0 && sdb_head != sdb_tail", g_sdb_go},
    [G_HS_NOTHING] = {"hostSend_nothing", "!cq_go && !sdb_go", g_hs_nothing},
    [G_NO_SBUF] = {"no_send_buffer", "tx_used == NSBUF", g_no_sbuf},
    [G_HDMA_BUSY] = {"hdma_busy", "tx_used < NSBUF && hdma_owner != NONE", g_hdma_busy},
    [G_HDMA_FREE] = {"hdma_free", "tx_used < NSBUF && hdma_owner == NONE", g_hdma_free},
    [G_DESC_OK] = {"desc_ok", "(ISR & DMA_INT) && tx_desc_ok", g_desc_ok},
    [G_DESC_BAD] = {"desc_bad", "(ISR & DMA_INT) && !tx_desc_ok", g_desc_bad},
    [G_BAD_DONE] = {"refused_done", "(ISR & DMA_INT) && completing_refused", g_bad_done},
    [G_CQ_DONE_PEND] = {"cq_done_pending", "(ISR & DMA_INT) && !completing_refused && doorbell_taken",
                        g_cq_done_pend},
    [G_CQ_DONE] = {"cq_done", "(ISR & DMA_INT) && !completing_refused && !doorbell_taken", g_cq_done},
    [G_TX_READY] = {"tx_ready", "len(tx) > 0", g_tx_ready},
    [G_NOT_READY] = {"tx_not_ready", "len(tx) == 0", g_not_ready},
    [G_MORE_READY] = {"sent_more", "(ISR & SEND_INT) && len(tx) > 1", g_more_ready},
    [G_LAST_READY] = {"sent_last", "(ISR & SEND_INT) && len(tx) <= 1", g_last_ready},
    [G_RECV_DISCARD] = {"recv_discarding", "(ISR & RECV_INT) && discarding", myri_viafw_g_recv_discard},
    [G_BUFF_FIRST] = {"buff_first", "(ISR & BUFF_INT) && !(ISR & RECV_INT) && !discarding", myri_viafw_g_buff_first},
    [G_BUFF_MORE] = {"buff_more", "(ISR & BUFF_INT) && !(ISR & RECV_INT) && discarding", myri_viafw_g_buff_more},
    [G_RX_SHORT] = {"rx_short", "(ISR & RECV_INT) && rx_len < 9", g_rx_short},
    [G_RX_CRC] = {"rx_crc_bad", "(ISR & RECV_INT) && rx_crc != 0", g_rx_crc},
    [G_RX_TYPE] = {"rx_type_bad", "(ISR & RECV_INT) && rx_type != 0x0005", g_rx_type},
    [G_RX_VI] = {"rx_vi_bad", "(ISR & RECV_INT) && rx_vi >= NVI", g_rx_vi},
    [G_RX_GOOD] = {"rx_good", "(ISR & RECV_INT) && rx_frame_good", g_rx_good},
    [G_RBUF_FREE] = {"rx_buffer_free", "len(rx) < NRBUF", g_rbuf_free},
    [G_RBUF_FULL] = {"rx_buffers_full", "len(rx) == NRBUF", g_rbuf_full},
    [G_RX_PENDING] = {"rx_pending", "len(rx) > 0", g_rx_pending},
    [G_RX_NONE] = {"rx_none", "len(rx) == 0", g_rx_none},
    [G_HR_NO_DESC] = {"rx_no_desc", "posted[rx_vi] == 0", g_hr_no_desc},
    [G_HR_BUSY] = {"hr_hdma_busy", "posted[rx_vi] > 0 && hdma_owner != NONE", g_hr_busy},
    [G_HR_GO] = {"hr_hdma_free", "posted[rx_vi] > 0 && hdma_owner == NONE", g_hr_go},
    [G_FITS] = {"rx_fits", "(ISR & DMA_INT) && rdesc_op == RECV && rdesc_len >= rx_data_len", g_fits},
    [G_NOFIT] = {"rx_no_fit", "(ISR & DMA_INT) && !rx_fits", g_nofit},
    [G_MORE_RX] = {"rx_more", "(ISR & DMA_INT) && len(rx) > 1", g_more_rx},
    [G_LAST_RX] = {"rx_last", "(ISR & DMA_INT) && len(rx) <= 1", g_last_rx},
};

/* ---- actions ------------------------------------------------------------------------------------------ */
#define ACT(n) static void a_##n(void *fw, myri_lanai *l)
static void put_ev(viafw *v, uint32_t e)
{
    v->evq[(v->ev_head + v->ev_n) % VF_EVQ] = e;
    if (v->ev_n < VF_EVQ) v->ev_n++;
    else v->ev_head = (v->ev_head + 1) % VF_EVQ; /* full: the oldest is lost (every event is re-derivable) */
    myri_fw_q_put_v(v->fi, VF_Q_EVENTS, (int32_t)e);
}
static void take_ev(viafw *v)
{
    v->ev_head = (v->ev_head + 1) % VF_EVQ;
    v->ev_n--;
    myri_fw_q_get(v->fi, VF_Q_EVENTS);
}
static void call(viafw *v, uint32_t c, uint8_t m) { myri_fw_set(v->fi, c, myri_fw_machine_state(v->fi, m) + 1); }
static void ret(viafw *v, uint32_t c) { myri_fw_set(v->fi, c, 0); }
static void own(viafw *v, int32_t o) { myri_fw_set(v->fi, VF_V_HDMA_OWNER, o); }
static void clr(viafw *v, uint32_t bit) { myri_viafw_reg(v, MYRI_LANAI_ISR, bit); }

ACT(boot) { (void)l, myri_viafw_boot(VF(fw)); }
ACT(none) { (void)fw, (void)l; }
ACT(call_hs) { (void)l, call(VF(fw), CALL_HS, MYRI_MYR_M_HS); }
ACT(call_ns) { (void)l, call(VF(fw), CALL_NS, MYRI_MYR_M_NS); }
ACT(call_hr) { (void)l, call(VF(fw), CALL_HR, MYRI_MYR_M_HR); }
ACT(call_nr) { (void)l, call(VF(fw), CALL_NR, MYRI_MYR_M_NR); }
ACT(ev_hs) { (void)l, take_ev(VF(fw)), call(VF(fw), CALL_HS, MYRI_MYR_M_HS); }
ACT(ev_ns) { (void)l, take_ev(VF(fw)), call(VF(fw), CALL_NS, MYRI_MYR_M_NS); }
ACT(ev_hr) { (void)l, take_ev(VF(fw)), call(VF(fw), CALL_HR, MYRI_MYR_M_HR); }
ACT(ev_nr) { (void)l, take_ev(VF(fw)), call(VF(fw), CALL_NR, MYRI_MYR_M_NR); }
ACT(ev_stale) { (void)l, take_ev(VF(fw)); }
ACT(post_ok) { (void)l, myri_viafw_post_rdb(VF(fw), true); }
ACT(post_bad) { (void)l, myri_viafw_post_rdb(VF(fw), false); }

/* hostSend */
ACT(hs_cq)
{
    viafw *v = VF(fw);
    (void)l;
    uint32_t area = v->cqbase + 16u * v->cq_head;
    own(v, VF_OWN_HS);
    myri_fw_set(v->fi, VF_V_HS_REFUSED, 0); /* completing a queued completion */
    myri_viafw_done_area(v, area, &v->cq[v->cq_head]);
    myri_viafw_hdma(v, v->cq[v->cq_head].desc + MYRI_VIA_DONE_OFF, area, MYRI_LANAI_DIR_L2E, MYRI_VIA_DONE_BYTES);
    ret(v, CALL_HS);
}
ACT(hs_take) { (void)l, myri_fw_set(VF(fw)->fi, VF_V_HS_PENDING, 1), myri_viafw_take_sdb(VF(fw), &VF(fw)->hs_cur); }
ACT(hs_ret) { (void)l, ret(VF(fw), CALL_HS); }
ACT(hs_desc)
{
    viafw *v = VF(fw);
    (void)l;
    own(v, VF_OWN_HS);
    myri_fw_set(v->fi, VF_V_HS_PENDING, 0);
    v->sb[v->s_fill] = v->hs_cur; /* the buffer is free now: the doorbell goes into it */
    v->s_used++;
    myri_viafw_hdma(v, v->sb[v->s_fill].desc, myri_viafw_sbuf(v, v->s_fill), MYRI_LANAI_DIR_E2L, MYRI_VIA_DESC_BYTES);
    ret(v, CALL_HS);
}
ACT(hs_data)
{
    viafw *v = VF(fw);
    (void)l;
    clr(v, MYRI_LANAI_DMA_INT);
    uint32_t b = myri_viafw_sbuf(v, v->s_fill);
    myri_viafw_read_desc(v, b, &v->sb[v->s_fill]);
    myri_viafw_hdma(v, v->sb[v->s_fill].addr, b + MYRI_VIA_DESC_BYTES + v->ra + MYRI_VIA_FRAME_HDR_BYTES,
                    MYRI_LANAI_DIR_E2L, v->sb[v->s_fill].len);
    ret(v, CALL_HS);
}
ACT(hs_bad)
{
    viafw *v = VF(fw);
    (void)l;
    clr(v, MYRI_LANAI_DMA_INT);
    uint32_t b = myri_viafw_sbuf(v, v->s_fill);
    myri_viafw_read_desc(v, b, &v->sb[v->s_fill]);
    vf_done d = {v->sb[v->s_fill].desc, 0, 0, myri_viafw_send_status(v, &v->sb[v->s_fill])};
    myri_fw_set(v->fi, VF_V_HS_REFUSED, 1); /* completing a refused descriptor: its buffer is freed after */
    myri_viafw_count(v, MYRI_VIA_C_TX_DROPPED);
    myri_viafw_done_area(v, b + MYRI_VIA_DONE_OFF, &d);
    myri_viafw_hdma(v, d.desc + MYRI_VIA_DONE_OFF, b + MYRI_VIA_DONE_OFF, MYRI_LANAI_DIR_L2E, MYRI_VIA_DONE_BYTES);
    ret(v, CALL_HS);
}
ACT(hs_filled)
{
    viafw *v = VF(fw);
    (void)l;
    clr(v, MYRI_LANAI_DMA_INT);
    v->s_fill = (v->s_fill + 1) % v->nsb;
    v->s_ready++;
    myri_fw_q_put(v->fi, VF_Q_TX);
    own(v, VF_OWN_NONE);
    put_ev(v, VF_EV_TX_READY);
    put_ev(v, VF_EV_HDMA_FREE);
    ret(v, CALL_HS);
}
ACT(hs_bad_done)
{
    viafw *v = VF(fw);
    (void)l;
    clr(v, MYRI_LANAI_DMA_INT);
    v->s_used--;
    own(v, VF_OWN_NONE);
    put_ev(v, VF_EV_TX_FREE);
    put_ev(v, VF_EV_HDMA_FREE);
    ret(v, CALL_HS);
}
static void hs_cq_done(viafw *v)
{
    clr(v, MYRI_LANAI_DMA_INT);
    v->cq_head = (v->cq_head + 1) % VF_CQ(v);
    v->cq_n--;
    myri_fw_q_get(v->fi, VF_Q_CQ);
    own(v, VF_OWN_NONE);
    put_ev(v, VF_EV_HDMA_FREE);
}
ACT(hs_cq_done) { (void)l, hs_cq_done(VF(fw)), ret(VF(fw), CALL_HS); }
ACT(hs_cq_done_go_on) { (void)l, hs_cq_done(VF(fw)); } /* a taken doorbell waits: on to HostSendGotASend */

/* netSend */
ACT(ns_send)
{
    viafw *v = VF(fw);
    (void)l;
    myri_viafw_start_send(v, myri_viafw_sbuf(v, v->s_head), &v->sb[v->s_head]);
    ret(v, CALL_NS);
}
ACT(ns_ret) { (void)l, ret(VF(fw), CALL_NS); }
static void ns_sent(viafw *v, bool more)
{
    clr(v, MYRI_LANAI_SEND_INT);
    const vf_send *s = &v->sb[v->s_head];
    v->cq[(v->cq_head + v->cq_n) % VF_CQ(v)] = (vf_done){s->desc, s->len, 0, MYRI_VIA_STATUS_DONE};
    v->cq_n++;
    myri_fw_q_put(v->fi, VF_Q_CQ);
    v->s_head = (v->s_head + 1) % v->nsb;
    v->s_ready--;
    v->s_used--;
    myri_fw_q_get(v->fi, VF_Q_TX);
    myri_viafw_count(v, MYRI_VIA_C_TX_SENT);
    if (more) put_ev(v, VF_EV_TX_READY); /* first: the next send starts before hostSend refills */
    put_ev(v, VF_EV_TX_FREE);
    ret(v, CALL_NS);
}
ACT(ns_sent_more) { (void)l, ns_sent(VF(fw), true); }
ACT(ns_sent_last) { (void)l, ns_sent(VF(fw), false); }

/* netReceive */
static void nr_rearm(viafw *v, uint32_t bit, uint32_t k)
{
    clr(v, bit);
    if (k != MYRI_VIA_NCOUNT) myri_viafw_count(v, k);
    myri_viafw_arm(v, v->r_fill);
    ret(v, CALL_NR);
}
ACT(nr_discard_end) { (void)l, VF(fw)->discarding = false, nr_rearm(VF(fw), MYRI_LANAI_RECV_INT, MYRI_VIA_NCOUNT); }
ACT(nr_too_long) { (void)l, VF(fw)->discarding = true, nr_rearm(VF(fw), MYRI_LANAI_BUFF_INT, MYRI_VIA_C_DROP_TOO_LONG); }
ACT(nr_discard_more) { (void)l, nr_rearm(VF(fw), MYRI_LANAI_BUFF_INT, MYRI_VIA_NCOUNT); }
ACT(nr_short) { (void)l, nr_rearm(VF(fw), MYRI_LANAI_RECV_INT, MYRI_VIA_C_DROP_SHORT); }
ACT(nr_crc) { (void)l, nr_rearm(VF(fw), MYRI_LANAI_RECV_INT, MYRI_VIA_C_DROP_CRC); }
ACT(nr_type) { (void)l, nr_rearm(VF(fw), MYRI_LANAI_RECV_INT, MYRI_VIA_C_DROP_TYPE); }
ACT(nr_vi) { (void)l, nr_rearm(VF(fw), MYRI_LANAI_RECV_INT, MYRI_VIA_C_DROP_VI); }
ACT(nr_got)
{
    viafw *v = VF(fw);
    (void)l;
    v->rlen[v->r_fill] = myri_viafw_received(v);
    clr(v, MYRI_LANAI_RECV_INT);
    v->r_fill = (v->r_fill + 1) % v->nrb;
    v->r_n++;
    myri_fw_q_put(v->fi, VF_Q_RX);
    put_ev(v, VF_EV_RX_READY);
}
ACT(nr_arm)
{
    (void)l;
    myri_viafw_arm(VF(fw), VF(fw)->r_fill);
    ret(VF(fw), CALL_NR);
}
ACT(nr_ret) { (void)l, ret(VF(fw), CALL_NR); }

/* hostReceive */
ACT(hr_ret) { (void)l, ret(VF(fw), CALL_HR); }
static void hr_free(viafw *v)
{
    v->r_head = (v->r_head + 1) % v->nrb;
    v->r_n--;
    myri_fw_q_get(v->fi, VF_Q_RX);
    put_ev(v, VF_EV_RX_FREE);
}
ACT(hr_no_desc)
{
    viafw *v = VF(fw);
    (void)l;
    myri_viafw_count(v, MYRI_VIA_C_DROP_NO_DESC);
    hr_free(v);
    ret(v, CALL_HR);
}
ACT(hr_desc)
{
    viafw *v = VF(fw);
    (void)l;
    own(v, VF_OWN_HR);
    uint32_t desc = myri_viafw_rx_take_desc(v, v->r_head);
    myri_viafw_hdma(v, desc, myri_viafw_rbuf(v, v->r_head), MYRI_LANAI_DIR_E2L, MYRI_VIA_DESC_BYTES);
    ret(v, CALL_HR);
}
ACT(hr_data)
{
    viafw *v = VF(fw);
    (void)l;
    clr(v, MYRI_LANAI_DMA_INT);
    uint32_t addr, len;
    myri_viafw_rx_read_desc(v, v->r_head, &addr, &len);
    myri_viafw_hdma(v, addr, myri_viafw_rbuf(v, v->r_head) + MYRI_VIA_DESC_BYTES + MYRI_VIA_FRAME_HDR_BYTES,
                    MYRI_LANAI_DIR_L2E, v->rx_dlen);
    ret(v, CALL_HR);
}
static void hr_complete(viafw *v)
{
    uint32_t area = myri_viafw_rbuf(v, v->r_head) + MYRI_VIA_DONE_OFF;
    myri_viafw_done_area(v, area, &v->rx);
    myri_viafw_hdma(v, v->rx.desc + MYRI_VIA_DONE_OFF, area, MYRI_LANAI_DIR_L2E, MYRI_VIA_DONE_BYTES);
    ret(v, CALL_HR);
}
ACT(hr_trunc)
{
    viafw *v = VF(fw);
    (void)l;
    clr(v, MYRI_LANAI_DMA_INT);
    v->rx.status = MYRI_VIA_STATUS_TRUNC;
    v->rx.len = 0;
    myri_viafw_count(v, MYRI_VIA_C_DROP_TOO_LONG);
    hr_complete(v);
}
ACT(hr_deliver)
{
    viafw *v = VF(fw);
    (void)l;
    clr(v, MYRI_LANAI_DMA_INT);
    myri_viafw_count(v, MYRI_VIA_C_RX_GOOD);
    hr_complete(v);
}
static void hr_done(viafw *v, bool more)
{
    clr(v, MYRI_LANAI_DMA_INT);
    hr_free(v);
    own(v, VF_OWN_NONE);
    put_ev(v, VF_EV_HDMA_FREE);
    if (more) put_ev(v, VF_EV_RX_READY);
    ret(v, CALL_HR);
}
ACT(hr_done_more) { (void)l, hr_done(VF(fw), true); }
ACT(hr_done_last) { (void)l, hr_done(VF(fw), false); }


/* ---- machines ---------------------------------------------------------------------------------------- */
#define CALLV(c) EF(SET, (c), MYRI_FW_ANY)
#define RETV(c) EF(SET, (c), 0)
#define OWN(o) EF(SET, VF_V_HDMA_OWNER, (o))
#define EV(e) EF(Q_PUT, VF_Q_EVENTS, VF_EV_##e) /* an event put on the Events queue, with its value */
#define HDMA(d) EF(START_HDMA, MYRI_LANAI_DIR_##d, 0)  /* a descriptor or a completion */
#define HDMAD(d) EF(START_HDMA, MYRI_LANAI_DIR_##d, 1) /* a message's data (firmware.h: b, for the model checker) */

enum { I_RESET, I_READY };
static const char *const myr__init_states[] = {"RESET", "READY"};
static const myri_fw_rule myr__init_rules[] = {
    R(I_RESET, I_READY, E_TRUE, G_TRUE, boot, 40, myri_viafw_x_boot, "boot", SETV(VF_V_STATE, MYRI_VIA_STATE_READY),
      ARM),
};

enum { MN_IDLE, MN_HS, MN_NS, MN_HR, MN_NR };
static const char *const myr__main_states[] = {"MainIdle", "MainHostSend", "MainNetSend", "MainHostReceive",
                                               "MainNetReceive"};
static const myri_fw_rule myr__main_rules[] = {
    R(MN_IDLE, MN_NS, E_EVENTS, G_EV_TXR, ev_ns, C_EV + C_CALL, NULL, "tx_ready_netSend", QG(VF_Q_EVENTS),
      CALLV(CALL_NS)),
    R(MN_IDLE, MN_HS, E_EVENTS, G_EV_TXF, ev_hs, C_EV + C_CALL, NULL, "tx_free_hostSend", QG(VF_Q_EVENTS),
      CALLV(CALL_HS)),
    R(MN_IDLE, MN_HR, E_EVENTS, G_EV_RXR, ev_hr, C_EV + C_CALL, NULL, "rx_ready_hostReceive", QG(VF_Q_EVENTS),
      CALLV(CALL_HR)),
    R(MN_IDLE, MN_NR, E_EVENTS, G_EV_RXF, ev_nr, C_EV + C_CALL, NULL, "rx_free_netReceive", QG(VF_Q_EVENTS),
      CALLV(CALL_NR)),
    R(MN_IDLE, MN_HS, E_EVENTS, G_EV_HDF_HS, ev_hs, C_EV + C_CALL, NULL, "hdma_free_hostSend", QG(VF_Q_EVENTS),
      CALLV(CALL_HS)),
    R(MN_IDLE, MN_HR, E_EVENTS, G_EV_HDF_HR, ev_hr, C_EV + C_CALL, NULL, "hdma_free_hostReceive", QG(VF_Q_EVENTS),
      CALLV(CALL_HR)),
    R(MN_IDLE, MN_IDLE, E_EVENTS, G_EV_STALE, ev_stale, C_EV, NULL, "stale_event", QG(VF_Q_EVENTS)),
    R(MN_IDLE, MN_HS, E_DMA_INT, G_OWN_HS, call_hs, C_CALL, NULL, "dma_done_hostSend", CALLV(CALL_HS)),
    R(MN_IDLE, MN_HR, E_DMA_INT, G_OWN_HR, call_hr, C_CALL, NULL, "dma_done_hostReceive", CALLV(CALL_HR)),
    R(MN_IDLE, MN_NS, E_SEND_INT, G_TRUE, call_ns, C_CALL, NULL, "send_done_netSend", CALLV(CALL_NS)),
    R(MN_IDLE, MN_NR, E_RX_INT, G_TRUE, call_nr, C_CALL, NULL, "received_netReceive", CALLV(CALL_NR)),
    R(MN_IDLE, MN_HS, E_SDB, G_HS_IDLE_CQOK, call_hs, C_CALL, NULL, "doorbell_hostSend", CALLV(CALL_HS)),
    R(MN_IDLE, MN_HS, E_CQ, G_HS_IDLE_FREE, call_hs, C_CALL, NULL, "completion_hostSend", CALLV(CALL_HS)),
    R(MN_IDLE, MN_IDLE, E_RDB, G_RDB_OK, post_ok, 12, myri_viafw_x_db, "post_receive", QG(VF_Q_RDB),
      CNT(MYRI_VIA_C_DOORBELLS), QP(VF_Q_POSTED)),
    R(MN_IDLE, MN_IDLE, E_RDB, G_RDB_BAD, post_bad, 12, myri_viafw_x_db, "refuse_receive", QG(VF_Q_RDB),
      CNT(MYRI_VIA_C_DOORBELLS), CNT(VF_C_DOORBELL_BAD)),
    R(MN_HS, MN_IDLE, E_HS_RET, G_TRUE, none, 2, NULL, "hostSend_returned", NOP),
    R(MN_NS, MN_IDLE, E_NS_RET, G_TRUE, none, 2, NULL, "netSend_returned", NOP),
    R(MN_HR, MN_IDLE, E_HR_RET, G_TRUE, none, 2, NULL, "hostReceive_returned", NOP),
    R(MN_NR, MN_IDLE, E_NR_RET, G_TRUE, none, 2, NULL, "netReceive_returned", NOP),
};

static const char *const myr__hs_states[] = {"HostSendIdle",     "HostSendGotASend", "HostSendFull",
                                             "HostSendDmaBusy",  "HostSendDesc",     "HostSendDma",
                                             "HostSendComplete"};
static const myri_fw_rule myr__hs_rules[] = {
    R(MYRI_MYR_HS_IDLE, MYRI_MYR_HS_COMPLETE, E_HS_CALLED, G_CQ_GO, hs_cq, 14 + 8, NULL, "write_completion",
      OWN(VF_OWN_HS), SETV(VF_V_HS_REFUSED, 0), HDMA(L2E), RETV(CALL_HS)),
    R(MYRI_MYR_HS_IDLE, MYRI_MYR_HS_GOT, E_HS_CALLED, G_SDB_GO, hs_take, 10, myri_viafw_x_db, "take_doorbell",
      SETV(VF_V_HS_PENDING, 1), QG(VF_Q_SDB), CNT(MYRI_VIA_C_DOORBELLS)),
    R(MYRI_MYR_HS_IDLE, MYRI_MYR_HS_IDLE, E_HS_CALLED, G_HS_NOTHING, hs_ret, C_CALL, NULL, "nothing_return",
      RETV(CALL_HS)),
    R(MYRI_MYR_HS_GOT, MYRI_MYR_HS_FULL, E_TRUE, G_NO_SBUF, hs_ret, C_CALL, NULL, "full_return", RETV(CALL_HS)),
    R(MYRI_MYR_HS_GOT, MYRI_MYR_HS_COMPLETE, E_TRUE, G_CQ_GO, hs_cq, 14 + 8, NULL, "completion_first", OWN(VF_OWN_HS),
      SETV(VF_V_HS_REFUSED, 0), HDMA(L2E), RETV(CALL_HS)),
    R(MYRI_MYR_HS_GOT, MYRI_MYR_HS_BUSY, E_TRUE, G_HDMA_BUSY, hs_ret, C_CALL, NULL, "dma_busy_return",
      RETV(CALL_HS)),
    R(MYRI_MYR_HS_GOT, MYRI_MYR_HS_DESC, E_TRUE, G_HDMA_FREE, hs_desc, 14 + C_CALL, NULL, "fetch_descriptor",
      OWN(VF_OWN_HS), SETV(VF_V_HS_PENDING, 0), HDMA(E2L), RETV(CALL_HS)),
    R(MYRI_MYR_HS_FULL, MYRI_MYR_HS_GOT, E_HS_CALLED, G_TRUE, none, 2, NULL, "buffer_freed", NOP),
    R(MYRI_MYR_HS_BUSY, MYRI_MYR_HS_GOT, E_HS_CALLED, G_TRUE, none, 2, NULL, "dma_freed", NOP),
    R(MYRI_MYR_HS_DESC, MYRI_MYR_HS_DMA, E_HS_CALLED, G_DESC_OK, hs_data, 14 + C_CALL, myri_viafw_x_desc,
      "fetch_data", CLR(DMA_INT), HDMAD(E2L), RETV(CALL_HS)),
    R(MYRI_MYR_HS_DESC, MYRI_MYR_HS_COMPLETE, E_HS_CALLED, G_DESC_BAD, hs_bad, 14 + C_CALL + 8, myri_viafw_x_desc,
      "refuse_descriptor", CLR(DMA_INT), SETV(VF_V_HS_REFUSED, 1), CNT(MYRI_VIA_C_TX_DROPPED), HDMA(L2E), RETV(CALL_HS)),
    R(MYRI_MYR_HS_DMA, MYRI_MYR_HS_IDLE, E_HS_CALLED, G_TRUE, hs_filled, 4 + 2 * C_EV + C_CALL, NULL, "data_in_sram",
      CLR(DMA_INT), QP(VF_Q_TX), OWN(VF_OWN_NONE), EV(TX_READY), EV(HDMA_FREE), RETV(CALL_HS)),
    R(MYRI_MYR_HS_COMPLETE, MYRI_MYR_HS_IDLE, E_HS_CALLED, G_BAD_DONE, hs_bad_done, 4 + 2 * C_EV + C_CALL, NULL,
      "refused_done", CLR(DMA_INT), OWN(VF_OWN_NONE), EV(TX_FREE), EV(HDMA_FREE), RETV(CALL_HS)),
    R(MYRI_MYR_HS_COMPLETE, MYRI_MYR_HS_GOT, E_HS_CALLED, G_CQ_DONE_PEND, hs_cq_done_go_on, 4 + C_EV, NULL,
      "completion_done_go_on", CLR(DMA_INT), QG(VF_Q_CQ), OWN(VF_OWN_NONE), EV(HDMA_FREE)),
    R(MYRI_MYR_HS_COMPLETE, MYRI_MYR_HS_IDLE, E_HS_CALLED, G_CQ_DONE, hs_cq_done, 4 + C_EV + C_CALL, NULL,
      "completion_done", CLR(DMA_INT), QG(VF_Q_CQ), OWN(VF_OWN_NONE), EV(HDMA_FREE), RETV(CALL_HS)),
};

static const char *const myr__ns_states[] = {"NetSendIdle", "NetSendBusy"};
static const myri_fw_rule myr__ns_rules[] = {
    R(MYRI_MYR_NS_IDLE, MYRI_MYR_NS_BUSY, E_NS_CALLED, G_TX_READY, ns_send, 4 + C_CALL, myri_viafw_x_sdma,
      "start_send_dma", EF(START_SDMA, 1, 0), RETV(CALL_NS)),
    R(MYRI_MYR_NS_IDLE, MYRI_MYR_NS_IDLE, E_NS_CALLED, G_NOT_READY, ns_ret, C_CALL, NULL, "nothing_return",
      RETV(CALL_NS)),
    R(MYRI_MYR_NS_BUSY, MYRI_MYR_NS_IDLE, E_NS_CALLED, G_MORE_READY, ns_sent_more, 16 + C_EV + C_CALL, NULL,
      "sent_more", CLR(SEND_INT), QP(VF_Q_CQ), QG(VF_Q_TX), CNT(MYRI_VIA_C_TX_SENT), EV(TX_READY), EV(TX_FREE), RETV(CALL_NS)),
    R(MYRI_MYR_NS_BUSY, MYRI_MYR_NS_IDLE, E_NS_CALLED, G_LAST_READY, ns_sent_last, 16 + C_EV + C_CALL, NULL,
      "sent_last", CLR(SEND_INT), QP(VF_Q_CQ), QG(VF_Q_TX), CNT(MYRI_VIA_C_TX_SENT), EV(TX_FREE), RETV(CALL_NS)),
};

#define NR_DROP(g, act, k, name)                                                                                  \
    R(MYRI_MYR_NR_DMA, MYRI_MYR_NR_DMA, E_NR_CALLED, g, act, 10, myri_viafw_x_rx, name, CLR(RECV_INT), CNT(k),   \
      ARM, RETV(CALL_NR))
static const char *const myr__nr_states[] = {"NetReceiveDma", "NetReceiveDmaDone", "NetReceiveFull"};
static const myri_fw_rule myr__nr_rules[] = {
    R(MYRI_MYR_NR_DMA, MYRI_MYR_NR_DMA, E_NR_CALLED, G_RECV_DISCARD, nr_discard_end, 8, NULL, "discard_end",
      CLR(RECV_INT), ARM, RETV(CALL_NR)),
    R(MYRI_MYR_NR_DMA, MYRI_MYR_NR_DMA, E_NR_CALLED, G_BUFF_FIRST, nr_too_long, 10, NULL, "too_long", CLR(BUFF_INT),
      CNT(MYRI_VIA_C_DROP_TOO_LONG), ARM, RETV(CALL_NR)),
    R(MYRI_MYR_NR_DMA, MYRI_MYR_NR_DMA, E_NR_CALLED, G_BUFF_MORE, nr_discard_more, 8, NULL, "discard_more",
      CLR(BUFF_INT), ARM, RETV(CALL_NR)),
    NR_DROP(G_RX_SHORT, nr_short, MYRI_VIA_C_DROP_SHORT, "drop_short"),
    NR_DROP(G_RX_CRC, nr_crc, MYRI_VIA_C_DROP_CRC, "drop_crc"),
    NR_DROP(G_RX_TYPE, nr_type, MYRI_VIA_C_DROP_TYPE, "drop_type"),
    NR_DROP(G_RX_VI, nr_vi, MYRI_VIA_C_DROP_VI, "drop_vi"),
    R(MYRI_MYR_NR_DMA, MYRI_MYR_NR_DONE, E_NR_CALLED, G_RX_GOOD, nr_got, 10 + C_EV, myri_viafw_x_rx, "received",
      CLR(RECV_INT), QP(VF_Q_RX), EV(RX_READY)),
    R(MYRI_MYR_NR_DMA, MYRI_MYR_NR_DMA, E_NR_CALLED, G_TRUE, nr_ret, C_CALL, NULL, "nothing_return", RETV(CALL_NR)),
    R(MYRI_MYR_NR_DONE, MYRI_MYR_NR_DMA, E_TRUE, G_RBUF_FREE, nr_arm, 4 + C_CALL, NULL, "arm_next", ARM,
      RETV(CALL_NR)),
    R(MYRI_MYR_NR_DONE, MYRI_MYR_NR_FULL, E_TRUE, G_RBUF_FULL, nr_ret, C_CALL, NULL, "full_return", RETV(CALL_NR)),
    R(MYRI_MYR_NR_FULL, MYRI_MYR_NR_DMA, E_NR_CALLED, G_RBUF_FREE, nr_arm, 4 + C_CALL, NULL, "arm_freed", ARM,
      RETV(CALL_NR)),
    R(MYRI_MYR_NR_FULL, MYRI_MYR_NR_FULL, E_NR_CALLED, G_RBUF_FULL, nr_ret, C_CALL, NULL, "still_full",
      RETV(CALL_NR)),
};

static const char *const myr__hr_states[] = {"HostReceiveIdle",    "HostReceiveGotAReceive", "HostReceiveDmaBusy",
                                             "HostReceiveDesc",    "HostReceiveDma",         "HostReceiveComplete"};
static const myri_fw_rule myr__hr_rules[] = {
    R(MYRI_MYR_HR_IDLE, MYRI_MYR_HR_GOT, E_HR_CALLED, G_RX_PENDING, none, 4, NULL, "got_a_receive", NOP),
    R(MYRI_MYR_HR_IDLE, MYRI_MYR_HR_IDLE, E_HR_CALLED, G_RX_NONE, hr_ret, C_CALL, NULL, "nothing_return",
      RETV(CALL_HR)),
    R(MYRI_MYR_HR_GOT, MYRI_MYR_HR_IDLE, E_TRUE, G_HR_NO_DESC, hr_no_desc, 10 + C_EV, NULL, "drop_no_descriptor",
      CNT(MYRI_VIA_C_DROP_NO_DESC), QG(VF_Q_RX), EV(RX_FREE), RETV(CALL_HR)),
    R(MYRI_MYR_HR_GOT, MYRI_MYR_HR_BUSY, E_TRUE, G_HR_BUSY, hr_ret, C_CALL, NULL, "dma_busy_return", RETV(CALL_HR)),
    R(MYRI_MYR_HR_GOT, MYRI_MYR_HR_DESC, E_TRUE, G_HR_GO, hr_desc, 14 + C_CALL, NULL, "fetch_descriptor",
      OWN(VF_OWN_HR), QG(VF_Q_POSTED), HDMA(E2L), RETV(CALL_HR)),
    R(MYRI_MYR_HR_BUSY, MYRI_MYR_HR_GOT, E_HR_CALLED, G_TRUE, none, 2, NULL, "dma_freed", NOP),
    R(MYRI_MYR_HR_DESC, MYRI_MYR_HR_DMA, E_HR_CALLED, G_FITS, hr_data, 14 + C_CALL, myri_viafw_x_desc, "data_to_host",
      CLR(DMA_INT), HDMAD(L2E), RETV(CALL_HR)),
    R(MYRI_MYR_HR_DESC, MYRI_MYR_HR_COMPLETE, E_HR_CALLED, G_NOFIT, hr_trunc, 14 + C_CALL + 8, myri_viafw_x_desc,
      "truncated", CLR(DMA_INT), CNT(MYRI_VIA_C_DROP_TOO_LONG), HDMA(L2E), RETV(CALL_HR)),
    R(MYRI_MYR_HR_DMA, MYRI_MYR_HR_COMPLETE, E_HR_CALLED, G_TRUE, hr_deliver, 14 + C_CALL + 8, NULL, "complete",
      CLR(DMA_INT), CNT(MYRI_VIA_C_RX_GOOD), HDMA(L2E), RETV(CALL_HR)),
    R(MYRI_MYR_HR_COMPLETE, MYRI_MYR_HR_IDLE, E_HR_CALLED, G_MORE_RX, hr_done_more, 6 + 3 * C_EV + C_CALL, NULL,
      "done_more", CLR(DMA_INT), QG(VF_Q_RX), EV(RX_FREE), OWN(VF_OWN_NONE), EV(HDMA_FREE), EV(RX_READY), RETV(CALL_HR)),
    R(MYRI_MYR_HR_COMPLETE, MYRI_MYR_HR_IDLE, E_HR_CALLED, G_LAST_RX, hr_done_last, 6 + 2 * C_EV + C_CALL, NULL,
      "done_last", CLR(DMA_INT), QG(VF_Q_RX), EV(RX_FREE), OWN(VF_OWN_NONE), EV(HDMA_FREE), RETV(CALL_HR)),
};

static const myri_fw_machine myr__machines[MYRI_MYR_NMACHINES] = {
    [MYRI_MYR_M_INIT] = MACH("init", MYRI_LANAI_SYSTEM, myr__init_states, myr__init_rules, 0),
    [MYRI_MYR_M_MAIN] = MACH("main", MYRI_LANAI_USER, myr__main_states, myr__main_rules, C_VISIT),
    [MYRI_MYR_M_HS] = MACH("hostSend", MYRI_LANAI_USER, myr__hs_states, myr__hs_rules, C_VISIT),
    [MYRI_MYR_M_NS] = MACH("netSend", MYRI_LANAI_USER, myr__ns_states, myr__ns_rules, C_VISIT),
    [MYRI_MYR_M_HR] = MACH("hostReceive", MYRI_LANAI_USER, myr__hr_states, myr__hr_rules, C_VISIT),
    [MYRI_MYR_M_NR] = MACH("netReceive", MYRI_LANAI_USER, myr__nr_states, myr__nr_rules, C_VISIT),
};

static const myri_fw_name myr__queues[VF_NQUEUES] = {
    {"sdb", "send doorbells (host rings, hostSend takes)", 0},
    {"rdb", "receive doorbells (host rings, main takes)", 0},
    {"posted", "receive descriptors posted, per VI", 0},
    {"tx", "send buffers filled, waiting for or in the send DMA", 0},
    {"rx", "receive buffers filled, waiting for hostReceive", 0},
    {"Events", "main's Events queue (TX_READY, TX_FREE, RX_READY, RX_FREE, HDMA_FREE)", 0},
    {"cq", "send completions waiting for the host DMA", 0},
};
static const myri_fw_name myr__vars[VF_NVARS] = {
    {"state", "the VCB's state word", 0},
    {"call_hostSend", "non-zero (the resumed state + 1) while a call of hostSend runs", 0},
    {"call_netSend", "non-zero while a call of netSend runs", 0},
    {"call_hostReceive", "non-zero while a call of hostReceive runs", 0},
    {"call_netReceive", "non-zero while a call of netReceive runs", 0},
    {"hdma_owner", "who holds the host-DMA engine: NONE, HOST_SEND, HOST_RECEIVE", 0},
    {"hs_pending", "hostSend holds a taken doorbell not yet started", 0},
    {"hs_refused", "hostSend completes a refused descriptor (its buffer is freed after)", 0},
    {"req_data", "(unused by the myricom)", 0},
};

const myri_fw_def myri_myricom_def = {
    .name = "myricom",
    .summary = "Myricom's MCP as seed 000 models it: main with its Events queue, hostSend, netSend, hostReceive, "
               "netReceive with several entry points, the host DMA shared, double buffers; VIA (common/via.h)",
    .params = myri_myricom_param_table,
    .nparams = MYRI_VIAFW_NPARAMS,
    .params_size = sizeof(myri_viafw_params),
    .params_default = myri_myricom_params_default,
    .machines = myr__machines,
    .nmachines = MYRI_MYR_NMACHINES,
    .events = myr__events,
    .nevents = E_N,
    .guards = myr__guards,
    .nguards = G_N,
    .queues = myr__queues,
    .vars = myr__vars,
    .counters = myri_viafw_counters,
    .nqueues = VF_NQUEUES,
    .nvars = VF_NVARS,
    .ncounters = VF_NCOUNTERS,
    .create = myri_viafw_create,
    .destroy = myri_viafw_destroy,
};
