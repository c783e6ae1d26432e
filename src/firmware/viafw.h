/* viafw.h -- the two firmwares of seed 000 on the VIA host interface of
 * common/via.h, as tables in the framework of firmware.h:
 *
 *   lcp      Berkeley VIA's LANai Control Program: modules main, lcpTx, lcpRx
 *            and hostDma with ONE entry point each (a call returns only when
 *            the callee is back in its initial state), so the host DMA and
 *            the send DMA of a send run one after the other (seed 000, figures
 *            4 to 8).
 *   myricom  Myricom's MCP as seed 000 models it: modules main (with its
 *            Events queue), hostSend, netSend, hostReceive and netReceive with
 *            SEVERAL entry points each (a call returns at the next entry point
 *            and the next call resumes there), the host-DMA engine shared by
 *            hostSend and hostReceive (the Busy states), two or more SRAM send
 *            and receive buffers, so host DMA and send DMA overlap (figures 9
 *            to 14).
 *
 * Both speak the same host contract (doorbells, descriptors in host memory,
 * completions written back: via.h), so they differ only in the structure seed
 * 000 compares.  Calls between modules follow the convention of
 * docs/FIRMWARE.md: a variable call_<module> is 0 while the module is not
 * called and non-zero while it is.
 *
 * Time unit: LANai cycles (nic.clock) for the *_cycles parameters. */
#ifndef MYRI_FIRMWARE_VIAFW_H
#define MYRI_FIRMWARE_VIAFW_H

#include "common/via.h"
#include "firmware/firmware.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_viafw_params {
    int64_t nvi, sdb_n, rdb_n, rq, nroutes, route_max, nsbuf, nrbuf;
    uint64_t mtu, vcb_addr;
    int64_t db_cycles;    /* LANai work per doorbell taken (seed 004 Table 2, class 1) */
    int64_t desc_cycles;  /* per descriptor read (class 2) */
    int64_t sdma_cycles;  /* per programming of the send DMA (class 3) */
    int64_t rx_cycles;    /* per frame received (header check, descriptor lookup) */
} myri_viafw_params;

extern const myri_param myri_lcp_param_table[];
extern const myri_param myri_myricom_param_table[];
#define MYRI_VIAFW_NPARAMS 14
void myri_lcp_params_default(void *params);
void myri_myricom_params_default(void *params);

extern const myri_fw_def myri_lcp_def;
extern const myri_fw_def myri_myricom_def;

/* Machines of the lcp (table order = the order the polling loop visits them). */
enum { MYRI_LCP_M_INIT, MYRI_LCP_M_MAIN, MYRI_LCP_M_TX, MYRI_LCP_M_RX, MYRI_LCP_M_HDMA, MYRI_LCP_NMACHINES };
/* States of the lcp's modules (seed 000 figures 4 to 6; the Desc and
 * Complete states are the descriptor fetch and completion write the VIA
 * contract adds, each a call of hostDma). */
enum { MYRI_LCP_TX_IDLE, MYRI_LCP_TX_GOT, MYRI_LCP_TX_DESC, MYRI_LCP_TX_HDMA, MYRI_LCP_TX_SDMA, MYRI_LCP_TX_INVOKE_RX,
       MYRI_LCP_TX_COMPLETE };
enum { MYRI_LCP_RX_READY, MYRI_LCP_RX_GOT, MYRI_LCP_RX_DESC, MYRI_LCP_RX_HDMA, MYRI_LCP_RX_COMPLETE };
enum { MYRI_LCP_HD_IDLE, MYRI_LCP_HD_BUSY };

/* Machines of the myricom firmware. */
enum { MYRI_MYR_M_INIT, MYRI_MYR_M_MAIN, MYRI_MYR_M_HS, MYRI_MYR_M_NS, MYRI_MYR_M_HR, MYRI_MYR_M_NR,
       MYRI_MYR_NMACHINES };
enum { MYRI_MYR_HS_IDLE, MYRI_MYR_HS_GOT, MYRI_MYR_HS_FULL, MYRI_MYR_HS_BUSY, MYRI_MYR_HS_DESC, MYRI_MYR_HS_DMA,
       MYRI_MYR_HS_COMPLETE };
enum { MYRI_MYR_NS_IDLE, MYRI_MYR_NS_BUSY };
enum { MYRI_MYR_HR_IDLE, MYRI_MYR_HR_GOT, MYRI_MYR_HR_BUSY, MYRI_MYR_HR_DESC, MYRI_MYR_HR_DMA, MYRI_MYR_HR_COMPLETE };
enum { MYRI_MYR_NR_DMA, MYRI_MYR_NR_DONE, MYRI_MYR_NR_FULL };

/* The VCB's SRAM address and geometry of a running lcp or myricom. */
uint32_t myri_viafw_vcb_addr(const myri_fw_inst *fi);
void myri_viafw_geom(const myri_fw_inst *fi, myri_via_geom *out);

#ifdef __cplusplus
}
#endif

#endif
