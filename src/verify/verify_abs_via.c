/* verify_abs_via.c -- the abstraction of the lcp and myricom firmwares
 * (src/firmware/lcp.c, myricom.c) for the model checker: each event and
 * guard of their tables as a Promela expression over the generated model's
 * names (verify_gen.c), the host and the properties of seed 000.
 *
 * What the model leaves to the data (inexact atoms, the rule may or may not
 * fire): the contents of descriptors (a send may be refused, a receive may not
 * fit), of frames (short, bad CRC, wrong type or VI), of receive doorbells.
 * What it assumes of the environment: one VI; frames fit the receive window
 * (no BUFF_INT, so the firmware never discards); the host posts `sends` send
 * doorbells and `frames` receive doorbells, the network delivers `frames`
 * frames when the receive DMA is armed. */
#include "firmware/viafw.h"
#include "firmware/viafw_int.h"
#include "verify/verify_int.h"

#define ISR_RX "(ISR & RECV_INT) != 0"

static const char via__host[] =
    "byte posts_left = NFRAME;\n"
    "active proctype host() {\nend: do\n"
    "  :: atomic { sends_left > 0 && q_sdb < Q_sdb_MAX -> printf(\"MSC: host rings a send doorbell\\n\"); "
    "q_sdb++; sends_left-- }\n"
    "  :: atomic { posts_left > 0 && q_rdb < Q_rdb_MAX -> printf(\"MSC: host posts a receive\\n\"); "
    "q_rdb++; posts_left-- }\n"
    "  od\n}\n";

static const myri_fw_def *lcp__def(void) { return &myri_lcp_def; }
static const myri_fw_def *myr__def(void) { return &myri_myricom_def; }

static void via__queues(myri_vabs_queue *q, size_t n, bool lcp)
{
    myri_viafw_params p;
    (lcp ? myri_lcp_params_default : myri_myricom_params_default)(&p);
    const myri_vabs_queue all[VF_NQUEUES] = {
        [VF_Q_SDB] = {"sdb", MYRI_VQ_HOST_IN, (uint32_t)p.sdb_n - 1},   /* a ring: one slot is never used */
        [VF_Q_RDB] = {"rdb", MYRI_VQ_HOST_IN, (uint32_t)p.rdb_n - 1},
        [VF_Q_POSTED] = {"posted", MYRI_VQ_FW, (uint32_t)p.rq},         /* per VI; the model has one */
        [VF_Q_TX] = {"tx", lcp ? MYRI_VQ_UNUSED : MYRI_VQ_FW, (uint32_t)p.nsbuf},
        [VF_Q_RX] = {"rx", lcp ? MYRI_VQ_UNUSED : MYRI_VQ_FW, (uint32_t)p.nrbuf},
        [VF_Q_EVENTS] = {"Events", lcp ? MYRI_VQ_UNUSED : MYRI_VQ_FW, VF_EVQ},
        [VF_Q_CQ] = {"cq", lcp ? MYRI_VQ_UNUSED : MYRI_VQ_FW, 2u * (uint32_t)p.nsbuf + 2u}, /* VF_CQ */
    };
    for (size_t i = 0; i < n && i < VF_NQUEUES; i++) q[i] = all[i];
}
static void lcp__queues(myri_vabs_queue *q, size_t n) { via__queues(q, n, true); }
static void myr__queues(myri_vabs_queue *q, size_t n) { via__queues(q, n, false); }

/* Events both firmwares have. */
#define VIA_EVENTS                                                                                                \
    {"true", "true", true, NULL, 0}, {"send_doorbell", "q_sdb > 0", true, NULL, 0}, {"recv_doorbell", "q_rdb > 0", true, NULL, 0},          \
        {"rx_int", "(ISR & (RECV_INT | BUFF_INT)) != 0", true, NULL, 0}, {"send_int", "(ISR & SEND_INT) != 0", true, NULL, 0},     \
        {"dma_int", "(ISR & DMA_INT) != 0", true, NULL, 0}
/* Guards both firmwares have: a receive doorbell's VI and the frame's header are data. */
#define VIA_GUARDS                                                                                                \
    {"true", "true", true, NULL, 0}, {"rdb_ok", "q_posted < Q_posted_MAX", false, NULL, 0}, {"rdb_bad", "true", false, NULL, 0},            \
        {"recv_discarding", "false", true, NULL, 0}, /* no frame is longer than the window */                              \
        {"buff_first", "(ISR & BUFF_INT) != 0 && (ISR & RECV_INT) == 0", true, NULL, 0}, {"buff_more", "false", true, NULL, 0},    \
        {"rx_short", ISR_RX, false, NULL, 0}, {"rx_crc_bad", ISR_RX, false, NULL, 0}, {"rx_type_bad", ISR_RX, false, NULL, 0},              \
        {"rx_vi_bad", ISR_RX, false, NULL, 0}

/* ---- lcp ------------------------------------------------------------------------------------------- */

static const myri_vabs_atom lcp__events[] = {
    VIA_EVENTS,
    {"lcpTx_called", "v_call_lcpTx == 1", true, NULL, 0},
    {"lcpTx_returned", "v_call_lcpTx == 0", true, NULL, 0},
    {"lcpRx_called", "v_call_lcpRx == 1", true, NULL, 0},
    {"lcpRx_returned", "v_call_lcpRx == 0", true, NULL, 0},
    {"hostDma_called", "v_call_hostDma == 1", true, NULL, 0},
    {"hostDma_returned", "v_call_hostDma == 0", true, NULL, 0},
};

static const myri_vabs_atom lcp__guards[] = {
    VIA_GUARDS,
    {"tx_desc_ok", "true", false, NULL, 0},
    {"tx_desc_bad", "true", false, NULL, 0},
    {"req_from_host", "v_req_dir == E2L && !v_req_data", true, NULL, 0},
    {"req_to_host", "v_req_dir == L2E && !v_req_data", true, NULL, 0},
    {"req_data_from_host", "v_req_dir == E2L && v_req_data", true, NULL, 0},
    {"req_data_to_host", "v_req_dir == L2E && v_req_data", true, NULL, 0},
    {"rx_no_desc", ISR_RX " && q_posted == 0", false, NULL, 0},
    {"rx_good", ISR_RX " && q_posted > 0", false, ISR_RX, 0}, /* short, crc, type, vi, no_desc, good: every frame */
    {"rx_fits", "true", false, NULL, 0},
    {"rx_no_fit", "true", false, NULL, 0},
};

#define LTX(s) "st_lcpTx == lcpTx_" #s
#define LRX(s) "st_lcpRx == lcpRx_" #s
#define HDB "st_hostDma == hostDma_HostDmaBusy"
#define ENGINE_A "sdma_busy && hdma_busy && hdma_dir == E2L && hdma_data"
#define ENGINE_B "rdma_armed && hdma_busy && hdma_dir == L2E && hdma_data"
#define ENGINE_A_WORDS "can the send DMA run while the host DMA moves a message's data from host to SRAM? (engines)"
#define ENGINE_B_WORDS                                                                                            \
    "can the receive DMA be armed while the host DMA moves a message's data from SRAM to host? (engines)"
static const myri_verify_prop lcp__props[] = {
    {"1A", "[] !(" LTX(LcpTxInvokeRx) " && " HDB " && !(" LTX(LcpTxHostDma) "))", "<> (LTIR && HDB && ! LTHD)",
     "lcpTx in LcpTxInvokeRx while hostDma is in HostDmaBusy (the formula as printed)", MYRI_VERIFY_REACH,
     "unreachable"},
    {"1B", "[] !(" LRX(LcpRxReady) " && " HDB " && !(" LRX(LcpRxHostDma) "))", "<> (LRR && HDB && ! LRHD)",
     "lcpRx in LcpRxReady while hostDma is in HostDmaBusy (the formula as printed)", MYRI_VERIFY_REACH,
     "unreachable"},
    {"1A-engine", "[] !(" ENGINE_A ")", "", ENGINE_A_WORDS, MYRI_VERIFY_REACH, "unreachable"},
    {"1B-engine", "[] !(" ENGINE_B ")", "", ENGINE_B_WORDS, MYRI_VERIFY_REACH, "unreachable"},
    {"mutex", "[] !((" LTX(LcpTxHostDma) " && " LRX(LcpRxHostDma) ") || hdma_clash)", "[] ! (LTHD && LRHD)",
     "lcpTx and lcpRx never both in their HostDma states, and no host DMA is started while one runs",
     MYRI_VERIFY_SAFETY, "holds"},
    MYRI_VABS_COMMON_PROPS("the host posts"),
};

const myri_vabs myri_vabs_lcp = {
    .firmware = "lcp",
    .def = lcp__def,
    .events = lcp__events,
    .guards = lcp__guards,
    .nevents = sizeof lcp__events / sizeof lcp__events[0],
    .nguards = sizeof lcp__guards / sizeof lcp__guards[0],
    .queues = lcp__queues,
    .machines_left_out = NULL,
    .decls = "",
    .env = via__host,
    .props = lcp__props,
    .nprops = sizeof lcp__props / sizeof lcp__props[0],
};

/* ---- myricom --------------------------------------------------------------------------------------- */

static const myri_vabs_atom myr__events[] = {
    VIA_EVENTS,
    {"event", "len(q_Events) > 0", true, NULL, 0},
    {"completion", "q_cq > 0", true, NULL, 0},
    {"hostSend_called", "v_call_hostSend != 0", true, NULL, 0},
    {"netSend_called", "v_call_netSend != 0", true, NULL, 0},
    {"hostReceive_called", "v_call_hostReceive != 0", true, NULL, 0},
    {"netReceive_called", "v_call_netReceive != 0", true, NULL, 0},
    {"hostSend_returned", "v_call_hostSend == 0", true, NULL, 0},
    {"netSend_returned", "v_call_netSend == 0", true, NULL, 0},
    {"hostReceive_returned", "v_call_hostReceive == 0", true, NULL, 0},
    {"netReceive_returned", "v_call_netReceive == 0", true, NULL, 0},
};

static const char myr__decls[] =
    "#define TX_READY 1\n#define TX_FREE 2\n#define RX_READY 3\n#define RX_FREE 4\n#define HDMA_FREE 5\n"
    "#define EVH(e) (len(q_Events) > 0 && q_Events?[e])\n"
    "#define G_TXR (EVH(TX_READY) && st_netSend == netSend_NetSendIdle)\n"
    "#define G_TXF (EVH(TX_FREE) && st_hostSend == hostSend_HostSendFull)\n"
    "#define G_RXR (EVH(RX_READY) && st_hostReceive == hostReceive_HostReceiveIdle)\n"
    "#define G_RXF (EVH(RX_FREE) && st_netReceive == netReceive_NetReceiveFull)\n"
    "#define G_HDF_HS (EVH(HDMA_FREE) && st_hostSend == hostSend_HostSendDmaBusy)\n"
    "#define G_HDF_HR (EVH(HDMA_FREE) && st_hostSend != hostSend_HostSendDmaBusy && "
    "st_hostReceive == hostReceive_HostReceiveDmaBusy)\n"
    "#define CQ_GO (q_cq > 0 && v_hdma_owner == 0)\n"
    "#define SDB_GO (!CQ_GO && q_cq == 0 && q_sdb > 0)\n"
    /* send buffers in use: filled or being sent (tx), being filled, or held by a refused descriptor */
    "#define S_USED (q_tx + ((st_hostSend == hostSend_HostSendDesc || st_hostSend == hostSend_HostSendDma || "
    "(st_hostSend == hostSend_HostSendComplete && v_hs_refused)) -> 1 : 0))\n";

static const myri_vabs_atom myr__guards[] = {
    VIA_GUARDS,
    {"hdma_hostSend", "v_hdma_owner == 1", true, NULL, 0},
    {"hdma_hostReceive", "v_hdma_owner == 2", true, NULL, 0},
    {"ev_tx_ready", "G_TXR", true, NULL, 0},
    {"ev_tx_free", "G_TXF", true, NULL, 0},
    {"ev_rx_ready", "G_RXR", true, NULL, 0},
    {"ev_rx_free", "G_RXF", true, NULL, 0},
    {"ev_hdma_free_hs", "G_HDF_HS", true, NULL, 0},
    {"ev_hdma_free_hr", "G_HDF_HR", true, NULL, 0},
    {"ev_stale", "!G_TXR && !G_TXF && !G_RXR && !G_RXF && !G_HDF_HS && !G_HDF_HR", true, NULL, 0},
    {"hostSend_idle_cq_empty", "st_hostSend == hostSend_HostSendIdle && q_cq == 0", true, NULL, 0},
    {"hostSend_idle_hdma_free", "st_hostSend == hostSend_HostSendIdle && v_hdma_owner == 0", true, NULL, 0},
    {"cq_go", "CQ_GO", true, NULL, 0},
    {"sdb_go", "SDB_GO", true, NULL, 0},
    {"hostSend_nothing", "!CQ_GO && !SDB_GO", true, NULL, 0},
    {"no_send_buffer", "S_USED == Q_tx_MAX", true, NULL, 0},
    {"hdma_busy", "S_USED < Q_tx_MAX && v_hdma_owner != 0", true, NULL, 0},
    {"hdma_free", "S_USED < Q_tx_MAX && v_hdma_owner == 0", true, NULL, 0},
    {"desc_ok", "(ISR & DMA_INT) != 0", false, NULL, 0},
    {"desc_bad", "(ISR & DMA_INT) != 0", false, NULL, 0},
    {"refused_done", "(ISR & DMA_INT) != 0 && v_hs_refused", true, NULL, 0},
    {"cq_done_pending", "(ISR & DMA_INT) != 0 && !v_hs_refused && v_hs_pending", true, NULL, 0},
    {"cq_done", "(ISR & DMA_INT) != 0 && !v_hs_refused && !v_hs_pending", true, NULL, 0},
    {"tx_ready", "q_tx > 0", true, NULL, 0},
    {"tx_not_ready", "q_tx == 0", true, NULL, 0},
    {"sent_more", "(ISR & SEND_INT) != 0 && q_tx > 1", true, NULL, 0},
    {"sent_last", "(ISR & SEND_INT) != 0 && q_tx <= 1", true, NULL, 0},
    {"rx_good", ISR_RX, false, ISR_RX, 0}, /* short, crc, type, vi, good: every frame is one of them */
    {"rx_buffer_free", "q_rx < Q_rx_MAX", true, NULL, 0},
    {"rx_buffers_full", "q_rx == Q_rx_MAX", true, NULL, 0},
    {"rx_pending", "q_rx > 0", true, NULL, 0},
    {"rx_none", "q_rx == 0", true, NULL, 0},
    {"rx_no_desc", "q_posted == 0", false, NULL, 0},
    {"hr_hdma_busy", "q_posted > 0 && v_hdma_owner != 0", false, NULL, 0},
    {"hr_hdma_free", "q_posted > 0 && v_hdma_owner == 0", false, NULL, 0},
    {"rx_fits", "(ISR & DMA_INT) != 0", false, NULL, 0},
    {"rx_no_fit", "(ISR & DMA_INT) != 0", false, NULL, 0},
    {"rx_more", "(ISR & DMA_INT) != 0 && q_rx > 1", true, NULL, 0},
    {"rx_last", "(ISR & DMA_INT) != 0 && q_rx <= 1", true, NULL, 0},
};

#define HS(s) "st_hostSend == hostSend_" #s
#define HR(s) "st_hostReceive == hostReceive_" #s
static const myri_verify_prop myr__props[] = {
    {"2A", "[] !(" HS(HostSendDma) " && st_netSend == netSend_NetSendBusy)", "<> (HSD && NSB)",
     "hostSend in HostSendDma while netSend is in NetSendBusy (the formula as printed)", MYRI_VERIFY_REACH,
     "reachable"},
    {"2B", "[] !(" HR(HostReceiveDma) " && st_netReceive == netReceive_NetReceiveDma)", "<> (HRD && NRD)",
     "hostReceive in HostReceiveDma while netReceive is in NetReceiveDma (the formula as printed)",
     MYRI_VERIFY_REACH, "reachable"},
    {"2A-engine", "[] !(" ENGINE_A ")", "", ENGINE_A_WORDS, MYRI_VERIFY_REACH, "reachable"},
    {"2B-engine", "[] !(" ENGINE_B ")", "", ENGINE_B_WORDS, MYRI_VERIFY_REACH, "reachable"},
    {"mutex", "[] !((" HS(HostSendDma) " && " HR(HostReceiveDma) ") || hdma_clash)", "[] ! (HSD && HRD)",
     "hostSend and hostReceive never both in their Dma states, and no host DMA is started while one runs",
     MYRI_VERIFY_SAFETY, "holds"},
    MYRI_VABS_COMMON_PROPS("the host posts"),
};

const myri_vabs myri_vabs_myricom = {
    .firmware = "myricom",
    .def = myr__def,
    .events = myr__events,
    .guards = myr__guards,
    .nevents = sizeof myr__events / sizeof myr__events[0],
    .nguards = sizeof myr__guards / sizeof myr__guards[0],
    .queues = myr__queues,
    .machines_left_out = NULL,
    .decls = myr__decls,
    .env = via__host,
    .props = myr__props,
    .nprops = sizeof myr__props / sizeof myr__props[0],
};
