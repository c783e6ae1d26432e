/* viafw_int.h -- what the lcp and myricom firmwares share (viafw.c): their
 * state, the VCB, SRAM buffers, doorbells, descriptors, frames and
 * completions.  Internal to src/firmware/. */
#ifndef MYRI_FIRMWARE_VIAFW_INT_H
#define MYRI_FIRMWARE_VIAFW_INT_H

#include "firmware/viafw.h"

/* Queues, variables and counters: the same indices in both firmwares. */
enum { VF_Q_SDB, VF_Q_RDB, VF_Q_POSTED, VF_Q_TX, VF_Q_RX, VF_Q_EVENTS, VF_Q_CQ, VF_NQUEUES };
/* HS_PENDING, HS_REFUSED: myricom's hostSend holds a taken doorbell not yet started; completes a refused
 * descriptor (named variables, so that the guards that read them are exact in the model checker's model). */
enum { VF_V_STATE, VF_V_CALL_A, VF_V_CALL_B, VF_V_CALL_C, VF_V_CALL_D, VF_V_HDMA_OWNER, VF_V_HS_PENDING,
       VF_V_HS_REFUSED, VF_V_REQ_DATA, VF_NVARS };
enum { VF_C_DOORBELL_BAD = MYRI_VIA_NCOUNT, VF_NCOUNTERS };
/* Owners of the host-DMA engine (myricom). */
enum { VF_OWN_NONE = 0, VF_OWN_HS = 1, VF_OWN_HR = 2 };
/* Events of the myricom's Events queue. */
enum { VF_EV_TX_READY = 1, VF_EV_TX_FREE, VF_EV_RX_READY, VF_EV_RX_FREE, VF_EV_HDMA_FREE, VF_EV_N };
#define VF_EVQ 256

typedef struct vf_send {
    uint32_t desc, vi;               /* from the doorbell */
    uint32_t ctrl, addr, len, dest;  /* from the descriptor */
} vf_send;

typedef struct vf_done {
    uint32_t desc, len, src, status;
} vf_done;

typedef struct viafw {
    myri_viafw_params p;
    myri_lanai *l;
    myri_fw_inst *fi;
    myri_via_geom g;
    uint32_t vcb;
    uint32_t sbase, sbytes, nsb, ra;   /* send buffers: desc copy, route area (ra bytes), header, data */
    uint32_t rbase, rbytes, rwin, nrb; /* receive buffers: desc copy, frame window */
    uint32_t cqbase;                   /* completion areas of the cq (16 bytes each) */
    uint32_t sdb_head, rdb_head;
    vf_send *sb;                       /* per send buffer */
    uint32_t s_fill, s_head, s_ready, s_used;
    vf_done *cq;                       /* completions to write (myricom), nsb */
    uint32_t cq_head, cq_n;
    uint32_t *rq, *rq_head, *rq_n;     /* posted receive descriptors per VI (rq each) */
    uint32_t *rlen;                    /* bytes received per receive buffer */
    uint32_t r_fill, r_head, r_n;      /* r_fill: the armed buffer; r_head: next to drain; r_n: filled */
    bool discarding;                   /* after BUFF_INT: the rest of a too-long frame */
    vf_send hs_cur;                    /* myricom: that doorbell (its buffer may still be sending) */
    vf_done rx;                        /* the receive going to the host */
    uint32_t rx_dlen, rx_vi;
    uint32_t req_host, req_sram, req_dir, req_len; /* lcp: the hostDma module's request */
    uint32_t evq[VF_EVQ], ev_head, ev_n;           /* myricom: the Events queue */
} viafw;

#define VF(fw) ((viafw *)(fw))
/* Completions waiting to be written (myricom): at most 2 nsb (docs/FIRMWARE.md, myricom). */
#define VF_CQ(v) (2u * (v)->nsb + 2u)

extern const myri_fw_name myri_viafw_counters[VF_NCOUNTERS]; /* lcp.c: both firmwares' counters */

/* life */
myri_status myri_viafw_create(const void *params, myri_lanai *l, myri_fw_inst *fi, void **out);
void myri_viafw_destroy(void *fw);
uint32_t myri_viafw_x_boot(void *fw, myri_lanai *l);
uint32_t myri_viafw_x_db(void *fw, myri_lanai *l);
uint32_t myri_viafw_x_desc(void *fw, myri_lanai *l);
uint32_t myri_viafw_x_sdma(void *fw, myri_lanai *l);
uint32_t myri_viafw_x_rx(void *fw, myri_lanai *l);

/* state as the events and guards see it */
bool myri_viafw_isr(myri_lanai *l, uint32_t bit);
bool myri_viafw_sdb_pending(viafw *v);
bool myri_viafw_rdb_pending(viafw *v);
bool myri_viafw_rdb_ok(viafw *v);
uint32_t myri_viafw_send_status(viafw *v, const vf_send *s);  /* MYRI_VIA_STATUS_DONE if it can go */
/* MYRI_VIA_C_RX_GOOD or a drop counter; check_desc: a VI without a posted descriptor is a drop */
uint32_t myri_viafw_rx_verdict(viafw *v, uint32_t buf, uint32_t n, bool check_desc);
bool myri_viafw_rx_fits(viafw *v);                            /* the fetched receive descriptor takes the frame */
uint32_t myri_viafw_sbuf(const viafw *v, uint32_t i);
uint32_t myri_viafw_rbuf(const viafw *v, uint32_t i);
uint32_t myri_viafw_received(viafw *v);                       /* bytes in the armed window */

/* work the actions share */
void myri_viafw_reg(viafw *v, uint32_t reg, uint32_t val);
void myri_viafw_hdma(viafw *v, uint32_t host, uint32_t sram, uint32_t dir, uint32_t bytes);
void myri_viafw_count(viafw *v, uint32_t k);
void myri_viafw_boot(viafw *v);
void myri_viafw_arm(viafw *v, uint32_t buf);
void myri_viafw_take_sdb(viafw *v, vf_send *s);
void myri_viafw_post_rdb(viafw *v, bool ok);
void myri_viafw_read_desc(viafw *v, uint32_t sram, vf_send *s);
void myri_viafw_start_send(viafw *v, uint32_t buf, const vf_send *s);
void myri_viafw_done_area(viafw *v, uint32_t area, const vf_done *d);
uint32_t myri_viafw_rx_take_desc(viafw *v, uint32_t buf);    /* pops the VI's oldest posted descriptor */
void myri_viafw_rx_read_desc(viafw *v, uint32_t buf, uint32_t *addr, uint32_t *len);

/* Events and guards both firmwares test (viafw.c). */
bool myri_viafw_ev_true(void *fw, myri_lanai *l);
bool myri_viafw_ev_sdb(void *fw, myri_lanai *l);
bool myri_viafw_ev_rdb(void *fw, myri_lanai *l);
bool myri_viafw_ev_rx_int(void *fw, myri_lanai *l);     /* RECV_INT or BUFF_INT */
bool myri_viafw_ev_send_int(void *fw, myri_lanai *l);
bool myri_viafw_ev_dma_int(void *fw, myri_lanai *l);
bool myri_viafw_g_rdb_ok(void *fw, myri_lanai *l);
bool myri_viafw_g_rdb_bad(void *fw, myri_lanai *l);
bool myri_viafw_g_recv_discard(void *fw, myri_lanai *l); /* RECV_INT ending a discarded frame */
bool myri_viafw_g_buff_first(void *fw, myri_lanai *l);   /* BUFF_INT: a frame too long for the window */
bool myri_viafw_g_buff_more(void *fw, myri_lanai *l);    /* BUFF_INT again while discarding it */
/* RECV_INT with the frame in receive buffer buf judged k (myri_viafw_rx_verdict). */
bool myri_viafw_rx_is(void *fw, myri_lanai *l, uint32_t buf, uint32_t k, bool check_desc);

/* The tables' notation (lcp.c, myricom.c). */
#define EF(op, a, b) {MYRI_FW_##op, (a), (b)}
#define CLR(bit) EF(CLEAR_ISR, MYRI_LANAI_##bit, 0)
#define SETV(v, x) EF(SET, (v), (x))
#define CNT(k) EF(COUNT, (k), 0)
#define QG(q) EF(Q_GET, (q), 0)
#define QP(q) EF(Q_PUT, (q), 0)
#define ARM EF(ARM_RDMA, 0, 0)
#define NOP EF(NOP, 0, 0)
#define R(from, to, ev, g, act, cyc, x, name, ...) {from, to, ev, g, {__VA_ARGS__}, a_##act, cyc, x, name}
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MACH(name, ctx, st, ru, v) {name, ctx, st, (uint8_t)NELEM(st), ru, (uint16_t)NELEM(ru), v}

#endif
