/* mcp_int.h -- the MCP's state and functions shared by mcp.c (actions,
 * parameters) and mcp_tables.c (events, guards, rules).  Internal. */
#ifndef MYRI_FIRMWARE_MCP_INT_H
#define MYRI_FIRMWARE_MCP_INT_H

#include "firmware/mcp.h"

typedef struct mcp_sentry {
    uint32_t addr, len, route, chan;
    bool pio;
} mcp_sentry;

typedef struct mcp_txe {
    uint32_t src, len, route, chan;  /* src: SRAM address of the payload */
    uint32_t slot;                   /* PIO: the send queue slot whose buffer holds the payload (held until
                                      * the packet has left), MCP_NO_SLOT otherwise */
} mcp_txe;
#define MCP_NO_SLOT UINT32_MAX

typedef struct mcp {
    myri_mcp_params p;
    myri_lanai *l;
    myri_fw_inst *fi;
    myri_hcb_geom g;
    uint32_t hcb;                       /* SRAM address */
    uint32_t tx_base, tx_buf_bytes, ntx, tx_head, tx_tail;
    mcp_txe *txe;
    uint32_t rx_base, rx_buf_bytes, rx_win, nrx, rx_head, rx_tail;
    uint32_t *rx_bytes;                 /* frame bytes received per rx buffer */
    uint32_t *rc_put;                   /* per channel */
    uint32_t sq_head;
    uint32_t scratch;                   /* SRAM word: notification source */
    uint32_t cur_chan, cur_slot, cur_tx;
    mcp_sentry cur_e;
    uint32_t ovl_pos;                   /* overlapped send: next byte to send (SRAM) */
    bool ovl_rx_on;                     /* overlapped receive in effect (polled, ovl_recv, rearm, head < window) */
    uint32_t rx_hw;                     /* overlapped receive: bytes of the head window */
    uint32_t rx_fbuf, rx_pos;           /* overlapped receive: frame start of the followed buffer, next byte */
    bool map_on;                        /* the mapping firmware (mcp_map.c): mapping packets are not dropped */
} mcp;

uint32_t myri_mcp_rd(mcp *m, uint32_t addr);
void myri_mcp_wr(mcp *m, uint32_t addr, uint32_t v);
uint32_t myri_mcp_hcb(mcp *m, uint32_t off);
void myri_mcp_hcb_wr(mcp *m, uint32_t off, uint32_t v);
uint32_t myri_mcp_rxbuf(const mcp *m, uint32_t i);
uint32_t myri_mcp_txbuf(const mcp *m, uint32_t i);
uint32_t myri_mcp_q_n(uint32_t head, uint32_t tail, uint32_t n);
bool myri_mcp_tx_full(const mcp *m);
bool myri_mcp_rx_full(const mcp *m);
bool myri_mcp_sq_entry(mcp *m, mcp_sentry *e);
const uint8_t *myri_mcp_rx_head(mcp *m, uint32_t *n);
bool myri_mcp_chan_room(mcp *m, uint32_t c);
uint32_t myri_mcp_rx_verdict(mcp *m, const uint8_t *f, uint32_t n);
uint32_t myri_mcp_ovl_landed(mcp *m);
uint32_t myri_mcp_received(mcp *m);
bool myri_mcp_ovl_rx_ok(mcp *m);
uint32_t myri_mcp_ovl_rx_end(mcp *m, uint32_t fbuf);
void myri_mcp_destroy(void *fw);
myri_status myri_mcp_create_fw(const void *params, myri_lanai *l, myri_fw_inst *fi, void **out);
/* For the mapping firmware (mcp_map.c), whose state starts with an mcp:
 * init / fini the MCP part of a zeroed struct; the first SRAM byte after the
 * MCP's layout. */
myri_status myri_mcp_init(mcp *m, const void *params, myri_lanai *l, myri_fw_inst *fi);
void myri_mcp_fini(mcp *m);
uint32_t myri_mcp_sram_end(const mcp *m);
/* The MCP's table sizes (mcp_tables.c checks them), so that the mapping
 * firmware can number its events and guards after them. */
#define MYRI_MCP_NEVENTS 14
#define MYRI_MCP_NGUARDS 39
/* The rx verdict of a mapping packet (type MYRI_MAPW_TYPE) when mapping is on:
 * no rule of the MCP's host-DMA machine takes it; the mapping machines do. */
#define MYRI_MCP_VERDICT_MAP (MYRI_HCB_NCOUNT + 1u)

#define MCP__ACT(n) void myri_mcp_a_##n(void *fw, myri_lanai *l);
MCP__ACT(boot) MCP__ACT(enable_intr) MCP__ACT(handshake)
MCP__ACT(drop_short) MCP__ACT(drop_crc) MCP__ACT(drop_type) MCP__ACT(drop_subtype) MCP__ACT(drop_chan)
MCP__ACT(hold) MCP__ACT(to_host) MCP__ACT(to_host_len) MCP__ACT(deliver) MCP__ACT(deliver_notify)
MCP__ACT(dma_done) MCP__ACT(sq_bad) MCP__ACT(send_pio) MCP__ACT(send_dma) MCP__ACT(send_dma_ovl)
MCP__ACT(from_host_done) MCP__ACT(from_host_done_ovl)
MCP__ACT(send_route) MCP__ACT(send_pio_route) MCP__ACT(send_empty) MCP__ACT(route_sent) MCP__ACT(sent)
MCP__ACT(drop_route) MCP__ACT(ovl_route) MCP__ACT(ovl_start) MCP__ACT(ovl_route_sent) MCP__ACT(ovl_chunk)
MCP__ACT(ovl_last) MCP__ACT(ovl_chunk_sent)
MCP__ACT(rx_good) MCP__ACT(rx_stop) MCP__ACT(rx_crc_bad) MCP__ACT(rx_pool_full) MCP__ACT(rx_too_long)
MCP__ACT(discard_more) MCP__ACT(discard_end)
MCP__ACT(rx_head_in) MCP__ACT(rx_crc_bad_ovl) MCP__ACT(rx_too_long_ovl)
MCP__ACT(ovl_rx_start) MCP__ACT(ovl_rx_chunk) MCP__ACT(ovl_rx_abort) MCP__ACT(ovl_rx_drop) MCP__ACT(ovl_rx_last)
#undef MCP__ACT
uint32_t myri_mcp_x_boot(void *fw, myri_lanai *l);
uint32_t myri_mcp_x_packet(void *fw, myri_lanai *l);

#endif
