/* verify_abs_mcp.c -- the abstraction of seed 001's MCP (src/firmware/mcp.c,
 * mcp_tables.c) for the model checker: each event and guard of its tables as
 * a Promela expression over the generated model's names (verify_gen.c), the
 * parameters as constants (the defaults), the host and the properties.
 *
 * Left to the data (inexact): packet headers (short, CRC, type, subtype,
 * channel), send-queue entries (bad, PIO or DMA), routes, the bytes an
 * overlapped transfer has landed.  Environment: the host has shaken hands
 * already (no handshake in the model), posts `sends` send-queue entries and
 * takes what the MCP puts in its receive channel; one channel; frames fit
 * (no BUFF_INT).  The mapping machines (mcp_map) are a different firmware
 * (firmware: mcp with mapping: on) and are not modelled. */
#include "firmware/mcp.h"
#include "verify/verify_int.h"

static const myri_fw_def *mcp__def(void) { return &myri_mcp_def; }

static void mcp__queues(myri_vabs_queue *q, size_t n)
{
    myri_mcp_params p;
    myri_mcp_params_default(&p);
    const myri_vabs_queue all[MYRI_MCP_NQUEUES] = {
        [MYRI_MCP_Q_SENDQ] = {"send_q", MYRI_VQ_HOST_IN, (uint32_t)p.send_q - 1}, /* one slot is never used */
        [MYRI_MCP_Q_TX] = {"tx_pool", MYRI_VQ_FW, (uint32_t)p.tx_pool - 1}, /* a ring: one entry is never used */
        [MYRI_MCP_Q_RX] = {"rx_pool", MYRI_VQ_FW, (uint32_t)p.rx_pool - 1}, /* the armed buffer is the unusable slot */
        [MYRI_MCP_Q_RCHAN] = {"recv_chan", MYRI_VQ_HOST_OUT, (uint32_t)p.recv_q},
    };
    for (size_t i = 0; i < n && i < MYRI_MCP_NQUEUES; i++) q[i] = all[i];
}

static void mcp__consts(FILE *o)
{
    myri_mcp_params p;
    myri_mcp_params_default(&p);
    fprintf(o,
            "/* mcp.* parameters (defaults) */\n#define READY %u\n#define RECV_MODE %d\n#define POLICY_OLD %d\n"
            "#define ROUTE_SEND %d\n#define OVL_SEND %d\n#define DMA_NOTIFY %d\n#define REARM %d\n"
            "#define OVL_RX_ON %d\n#define HIGH_WATER %d\n",
            MYRI_HCB_STATE_READY, p.recv_mode, p.policy, p.route_send, p.ovl_send, p.dma_notify, p.rearm,
            p.ovl_recv && p.recv_mode == 1, (int)p.high_water);
}

static const char mcp__host[] =
    "active proctype host() {\nend: do\n"
    "  :: atomic { sends_left > 0 && q_send_q < Q_send_q_MAX -> printf(\"MSC: host posts a send\\n\"); "
    "q_send_q++; sends_left-- }\n"
    "  :: atomic { q_recv_chan > 0 -> printf(\"MSC: host takes a receive\\n\"); q_recv_chan-- }\n"
    "  od\n}\n";

static const myri_vabs_atom mcp__events[] = {
    {"true", "true", true, NULL, 0},
    {"ready", "v_mcp_state == READY", true, NULL, 0},
    {"handshake", "false", true, NULL, 0}, /* the host shook hands before the model starts */
    {"rx_pending", "q_rx_pool > 0", true, NULL, 0},
    {"sendq", "q_send_q > 0", true, NULL, 0},
    {"dma_int", "(ISR & DMA_INT) != 0", true, NULL, 0},
    {"send_int", "(ISR & SEND_INT) != 0", true, NULL, 0},
    {"recv_int", "(ISR & RECV_INT) != 0", true, NULL, 0},
    {"buff_int", "(ISR & BUFF_INT) != 0", true, NULL, 0},
    {"tx_pending", "q_tx_pool > 0 && !v_ovl_tx", true, NULL, 0},
    {"tx_ovl_ready", "q_tx_pool > 0 && v_ovl_tx", false, NULL, 0},
    {"ovl_chunk_ready", "true", false, NULL, 0},
    {"rx_ovl_ready", "OVL_RX_ON && st_recv_dma_poll == recv_dma_poll_BODY && q_rx_pool == 0 && !v_ovl_rx", false, NULL, 0},
    {"ovl_rx_chunk_ready", "true", false, NULL, 0},
};

#define ROOM "q_recv_chan < Q_recv_chan_MAX"
static const myri_vabs_atom mcp__guards[] = {
    {"true", "true", true, NULL, 0},
    {"intr_mode", "RECV_MODE == 0", true, NULL, 0},
    {"polled_mode", "RECV_MODE == 1", true, NULL, 0},
    {"head_short", "true", false, NULL, 0},
    {"head_crc_bad", "true", false, NULL, 0},
    {"head_type_bad", "true", false, NULL, 0},
    {"head_subtype_bad", "true", false, NULL, 0},
    {"head_chan_bad", "true", false, NULL, 0},
    {"head_chan_full", "!v_held && !(" ROOM ")", false, NULL, 0},
    {"rx_over_high_water", "POLICY_OLD && q_rx_pool > HIGH_WATER && " ROOM, false, NULL, 0},
    {"sq_entry_bad", "true", false, NULL, 0},
    {"sq_pio", "q_tx_pool < Q_tx_pool_MAX", false, NULL, 0},
    {"sq_dma_overlap", "OVL_SEND && q_tx_pool == 0", false, NULL, 0},
    {"sq_dma", "q_tx_pool < Q_tx_pool_MAX", false, NULL, 0},
    {"head_deliverable", ROOM, false, NULL, 0},
    {"not_ovl_tx", "!v_ovl_tx", true, NULL, 0},
    {"ovl_tx", "v_ovl_tx", true, NULL, 0},
    {"dma_notify", "DMA_NOTIFY", true, NULL, 0},
    {"no_dma_notify", "!DMA_NOTIFY", true, NULL, 0},
    {"tx_route_bad", "true", false, NULL, 0},
    {"tx_route_sa", "ROUTE_SEND == 0", false, NULL, 0},
    {"tx_route_pio", "true", false, NULL, 0},
    {"tx_empty_payload", "true", false, NULL, 0},
    {"ovl_route_sa", "ROUTE_SEND == 0", false, NULL, 0},
    {"ovl_route_pio", "true", false, NULL, 0},
    {"ovl_all_landed", "true", false, NULL, 0},
    {"ovl_chunk", "true", false, NULL, 2}, /* a message of at most 3 chunks (the loop is bounded by its bytes) */
    {"ovl_tailed", "true", false, NULL, 0}, /* the chunk reached the end (written with SMLT) or not */
    {"no_rearm", "!REARM", true, NULL, 0},
    {"crc_bad", "true", false, NULL, 0},
    {"rx_pool_full", "q_rx_pool == Q_rx_pool_MAX", true, NULL, 0},
    {"rx_ovl_ok", "true", false, NULL, 0},
    {"ovl_rx_aborted", "v_ovl_rx == 2", true, NULL, 0},
    {"ovl_rx_done_ok", "q_rx_pool > 0", false, NULL, 0},
    {"ovl_rx_done", "q_rx_pool > 0", true, NULL, 0},
    {"ovl_rx_more", "true", false, NULL, 2},
    {"ovl_rx_mode", "OVL_RX_ON", true, NULL, 0},
    {"rx_followed", "v_ovl_rx == 1 && q_rx_pool == 0", true, NULL, 0},
    {"crc_bad_followed", "v_ovl_rx == 1 && q_rx_pool == 0", false, NULL, 0},
};

static const myri_verify_prop mcp__props[] = {
    {"2A-engine", "[] !(sdma_busy && hdma_busy && hdma_dir == E2L && hdma_data)", "",
     "can the send DMA run while the host DMA moves a packet's data from host to SRAM? (engines)", MYRI_VERIFY_REACH,
     ""},
    {"2B-engine", "[] !(rdma_armed && hdma_busy && hdma_dir == L2E && hdma_data)", "",
     "can the receive DMA be armed while the host DMA moves a packet's data from SRAM to host? (engines)",
     MYRI_VERIFY_REACH, ""},
    {"mutex", "[] !(hdma_clash || sdma_clash)", "",
     "no host DMA is started while one runs, nor a send DMA while one runs", MYRI_VERIFY_SAFETY, ""},
    MYRI_VABS_COMMON_PROPS("the host posts and takes"),
};

const myri_vabs myri_vabs_mcp = {
    .firmware = "mcp",
    .def = mcp__def,
    .events = mcp__events,
    .guards = mcp__guards,
    .nevents = sizeof mcp__events / sizeof mcp__events[0],
    .nguards = sizeof mcp__guards / sizeof mcp__guards[0],
    .queues = mcp__queues,
    .machines_left_out = NULL,
    .decls = "",
    .consts = mcp__consts,
    .env = mcp__host,
    .props = mcp__props,
    .nprops = sizeof mcp__props / sizeof mcp__props[0],
};
