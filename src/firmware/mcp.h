/* mcp.h -- seed 001's MCP (Panariti 1998) as firmware tables: the HCB of
 * common/hcb.h, tx and rx pools, the host-DMA, send-DMA and receive-DMA
 * state machines, PIO sends, overlapped send and receive, interrupt or
 * polled receive, DMA receive notification.  See docs/FIRMWARE.md.
 *
 * Creating it on a LANai:
 *     myri_mcp_params p; myri_mcp_params_default(&p);   (or load mcp.* keys)
 *     myri_fw_inst *fi; myri_fw_create(&myri_mcp_def, &p, lanai, &fi);
 *     myri_lanai_start(lanai);
 * The host finds the HCB through SRAM 0xC (MYRI_LANAI_HCB_PTR_ADDR).
 */
#ifndef MYRI_FIRMWARE_MCP_H
#define MYRI_FIRMWARE_MCP_H

#include "common/hcb.h"
#include "firmware/firmware.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_mcp_params {
    int64_t nchan, send_q, recv_q, nroutes, route_max;
    uint64_t pio_bytes, mtu;
    int64_t tx_pool, rx_pool, high_water;
    int recv_mode;            /* 0 interrupt, 1 polled */
    int policy;               /* 0 new, 1 old */
    int route_send;           /* 0 sa (send DMA with SA), 1 pio (SB/SH/SW) */
    bool ovl_send, dma_notify, rearm;
    uint64_t ovl_send_thr;
    bool ovl_recv;            /* overlapped receive (polled mode only; ignored with recv_mode interrupt) */
    uint64_t ovl_recv_thr;    /* bytes, > MYRI_FRAME_HDR_BYTES */
    uint64_t hcb_addr;
    myri_time_ps follow_ps;
    int64_t packet_cycles;    /* extra LANai cycles per packet sent */
} myri_mcp_params;

extern const myri_param myri_mcp_param_table[];
extern const size_t myri_mcp_nparams;
void myri_mcp_params_default(void *params);

extern const myri_fw_def myri_mcp_def;

/* Indices in the MCP's tables (for tests and reports). */
enum { MYRI_MCP_M_INIT, MYRI_MCP_M_HS, MYRI_MCP_M_HDMA, MYRI_MCP_M_SDMA, MYRI_MCP_M_RDMA_INT,
       MYRI_MCP_M_RDMA_POLL, MYRI_MCP_NMACHINES };
enum { MYRI_MCP_Q_SENDQ, MYRI_MCP_Q_TX, MYRI_MCP_Q_RX, MYRI_MCP_Q_RCHAN, MYRI_MCP_NQUEUES };
enum { MYRI_MCP_V_STATE, MYRI_MCP_V_HS, MYRI_MCP_V_HELD, MYRI_MCP_V_OVL_TX, MYRI_MCP_V_OVL_RX, MYRI_MCP_NVARS };
#define MYRI_MCP_NPARAMS 22
/* The first variable of the mapping firmware (mcp_map.h: map_tx, the send DMA
 * is sending a mapping packet); myri_fw_get gives 0 for it in the plain MCP. */
#define MYRI_MCP_V_MAP_TX (MYRI_MCP_NVARS + 1)
/* Values of the ovl_rx variable. */
enum { MYRI_MCP_OVL_RX_NONE = 0, MYRI_MCP_OVL_RX_FOLLOW = 1, MYRI_MCP_OVL_RX_ABORT = 2 };

/* The HCB's SRAM address and geometry of a running MCP. */
uint32_t myri_mcp_hcb_addr(const myri_fw_inst *fi);
void myri_mcp_geom(const myri_fw_inst *fi, myri_hcb_geom *out);

#ifdef __cplusplus
}
#endif

#endif
