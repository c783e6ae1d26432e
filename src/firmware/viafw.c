/* viafw.c -- what the lcp and myricom firmwares share: parameters, the VCB
 * of common/via.h in SRAM, the SRAM buffers, doorbells, descriptors, VIA
 * frames and completions.  The control flow is in the tables (lcp.c,
 * myricom.c); these are the straight-line pieces their actions are made of.
 *
 * SRAM layout (from viafw.vcb_addr): the VCB; nsbuf send buffers of
 * [descriptor copy 32 B][route area round4(route_max)][frame header 8 B]
 * [data mtu] (the route is copied right-aligned before the header so one
 * send DMA with SA sends route, header and data); nrbuf receive buffers of
 * [descriptor copy 32 B][frame window round4(8 + mtu + 1)]; nsbuf completion
 * areas of 16 bytes. */
#include <stdlib.h>
#include <string.h>

#include "common/hcb.h"
#include "common/lanai_regs.h"
#include "firmware/viafw_int.h"

#define OFF(f) offsetof(myri_viafw_params, f)
/* The rows both firmwares have; NSB and NRB: their buffer defaults differ. */
#define VIAFW_PARAMS(NSB, NRB, MAXB, NSB_HELP, NRB_HELP)                                                                \
    {"nvi", MYRI_P_INT, NULL, "8", "1", "256", "virtual interfaces per NIC; assumption (VIA leaves it open)",     \
     OFF(nvi), NULL},                                                                                             \
    {"sdb_n", MYRI_P_INT, NULL, "64", "2", "4096",                                                                \
     "send doorbell ring slots (one is never used); assumption: seed 004 keeps \"sufficient doorbells\"",        \
     OFF(sdb_n), NULL},                                                                                           \
    {"rdb_n", MYRI_P_INT, NULL, "64", "2", "4096", "receive doorbell ring slots (one is never used); assumption",  \
     OFF(rdb_n), NULL},                                                                                           \
    {"rq", MYRI_P_INT, NULL, "64", "1", "4096", "receive descriptors a VI may have posted; assumption", OFF(rq),   \
     NULL},                                                                                                       \
    {"nroutes", MYRI_P_INT, NULL, "256", "1", "65536", "route table entries, one per host index; assumption",     \
     OFF(nroutes), NULL},                                                                                         \
    {"route_max", MYRI_P_INT, NULL, "16", "1", "64", "largest route, bytes; assumption", OFF(route_max), NULL},  \
    {"mtu", MYRI_P_SIZE, "B", "32KiB", "4B", "256KiB",                                                             \
     "largest message, bytes (one frame per message); assumption: large messages as seed 000 section 4 needs",  \
     OFF(mtu), NULL},                                                                                             \
    {"nsbuf", MYRI_P_INT, NULL, NSB, "1", MAXB, NSB_HELP, OFF(nsbuf), NULL},                                       \
    {"nrbuf", MYRI_P_INT, NULL, NRB, "1", MAXB, NRB_HELP, OFF(nrbuf), NULL},                                       \
    {"vcb_addr", MYRI_P_SIZE, "B", "4KiB", "256B", "256KiB",                                                       \
     "SRAM address of the VIA control block (its address goes to SRAM 0xC); assumption: above crt0",              \
     OFF(vcb_addr), NULL},                                                                                        \
    {"db_cycles", MYRI_P_INT, "cycles", "60", "0", "10000000",                                                    \
     "LANai cycles to take a doorbell (read the ring, check, bookkeeping); assumption: ~15 instructions of "      \
     "4 cycles; the seed004 preset sets seed 004 Table 2's 22 us",                                                 \
     OFF(db_cycles), NULL},                                                                                       \
    {"desc_cycles", MYRI_P_INT, "cycles", "40", "0", "10000000",                                                  \
     "LANai cycles to read and check a descriptor; assumption; the seed004 preset sets Table 2's 0.12 us",       \
     OFF(desc_cycles), NULL},                                                                                     \
    {"sdma_cycles", MYRI_P_INT, "cycles", "40", "0", "10000000",                                                  \
     "LANai cycles to program the send DMA (route copy, header, SMP/SA/SMLT); assumption; the seed004 preset "    \
     "sets Table 2's 10 us",                                                                                       \
     OFF(sdma_cycles), NULL},                                                                                     \
    {"rx_cycles", MYRI_P_INT, "cycles", "40", "0", "10000000",                                                    \
     "LANai cycles to check a received frame and find its VI's descriptor; assumption", OFF(rx_cycles), NULL}

const myri_param myri_lcp_param_table[] = {
    VIAFW_PARAMS("1", "1", "1", "SRAM send buffers; seed 000: the LCP sends one message at a time",
                 "SRAM receive buffers; seed 000: LcpRxReady re-arms the one receive DMA after the host DMA"),
};
const myri_param myri_myricom_param_table[] = {
    VIAFW_PARAMS("2", "2", "64",
                 "SRAM send buffers; seed 000: hostSend fills one while netSend sends another (HostSendFull "
                 "when none is free); assumption: two, double buffering",
                 "SRAM receive buffers (NetReceiveFull when none is free); assumption: two"),
};
_Static_assert(sizeof myri_lcp_param_table / sizeof myri_lcp_param_table[0] == MYRI_VIAFW_NPARAMS, "NPARAMS");
_Static_assert(sizeof myri_myricom_param_table / sizeof myri_myricom_param_table[0] == MYRI_VIAFW_NPARAMS, "NP");

static void viafw__defaults(const char *prefix, const myri_param *table, void *params)
{
    myri_pset set = {prefix, table, MYRI_VIAFW_NPARAMS, params};
    myri_error err;
    (void)myri_params_load(&set, 1, NULL, NULL, &err);
}
void myri_lcp_params_default(void *params) { viafw__defaults("lcp", myri_lcp_param_table, params); }
void myri_myricom_params_default(void *params) { viafw__defaults("myricom", myri_myricom_param_table, params); }

/* ---- memory -------------------------------------------------------------------------- */

static uint32_t vf__rd(viafw *v, uint32_t addr)
{
    const uint8_t *p = myri_lanai_sram(v->l, addr, 4);
    return p ? myri_be32_get(p) : 0;
}
static void vf__wr(viafw *v, uint32_t addr, uint32_t val)
{
    uint8_t *p = myri_lanai_sram(v->l, addr, 4);
    if (p) myri_be32_put(p, val);
}

void myri_viafw_reg(viafw *v, uint32_t reg, uint32_t val) { (void)myri_lanai_write(v->l, reg, val); }

void myri_viafw_hdma(viafw *v, uint32_t host, uint32_t sram, uint32_t dir, uint32_t bytes)
{
    myri_viafw_reg(v, MYRI_LANAI_EAR, host);
    myri_viafw_reg(v, MYRI_LANAI_LAR, sram);
    myri_viafw_reg(v, MYRI_LANAI_DMA_DIR, dir);
    myri_viafw_reg(v, MYRI_LANAI_DMA_CTR, myri_via_round4(bytes));
}

void myri_viafw_count(viafw *v, uint32_t k)
{
    myri_fw_count(v->fi, k);
    if (k < MYRI_VIA_NCOUNT) vf__wr(v, v->vcb + myri_via_count_off(&v->g, k), (uint32_t)myri_fw_counter(v->fi, k));
}

uint32_t myri_viafw_sbuf(const viafw *v, uint32_t i) { return v->sbase + i * v->sbytes; }
uint32_t myri_viafw_rbuf(const viafw *v, uint32_t i) { return v->rbase + i * v->rbytes; }

bool myri_viafw_isr(myri_lanai *l, uint32_t bit) { return (myri_lanai_read(l, MYRI_LANAI_ISR) & bit) != 0; }

/* ---- doorbells ------------------------------------------------------------------------------ */

static uint32_t vf__ring_tail(viafw *v, uint32_t ring, uint32_t n)
{
    uint32_t t = vf__rd(v, v->vcb + ring + MYRI_VIA_RING_TAIL);
    return t < n ? t : UINT32_MAX; /* a tail out of range is never taken */
}
bool myri_viafw_sdb_pending(viafw *v)
{
    uint32_t t = vf__ring_tail(v, myri_via_sring_off(&v->g), v->g.sdb_n);
    return t != UINT32_MAX && t != v->sdb_head;
}
bool myri_viafw_rdb_pending(viafw *v)
{
    uint32_t t = vf__ring_tail(v, myri_via_rring_off(&v->g), v->g.rdb_n);
    return t != UINT32_MAX && t != v->rdb_head;
}

void myri_viafw_take_sdb(viafw *v, vf_send *s)
{
    uint32_t e = v->vcb + myri_via_db_off(myri_via_sring_off(&v->g), v->sdb_head);
    memset(s, 0, sizeof *s);
    s->desc = vf__rd(v, e + MYRI_VIA_DB_DESC);
    s->vi = vf__rd(v, e + MYRI_VIA_DB_VI);
    v->sdb_head = (v->sdb_head + 1) % v->g.sdb_n;
    vf__wr(v, v->vcb + myri_via_sring_off(&v->g) + MYRI_VIA_RING_HEAD, v->sdb_head);
    myri_fw_q_get(v->fi, VF_Q_SDB);
    myri_viafw_count(v, MYRI_VIA_C_DOORBELLS);
}

bool myri_viafw_rdb_ok(viafw *v)
{
    uint32_t e = v->vcb + myri_via_db_off(myri_via_rring_off(&v->g), v->rdb_head);
    uint32_t vi = vf__rd(v, e + MYRI_VIA_DB_VI);
    return vi < v->g.nvi && v->rq_n[vi] < (uint32_t)v->p.rq;
}

/* Takes a receive doorbell: its descriptor joins the VI's posted ones (ok),
 * or is refused and counted (VI out of range, or rq posted already). */
void myri_viafw_post_rdb(viafw *v, bool ok)
{
    uint32_t e = v->vcb + myri_via_db_off(myri_via_rring_off(&v->g), v->rdb_head);
    uint32_t desc = vf__rd(v, e + MYRI_VIA_DB_DESC), vi = vf__rd(v, e + MYRI_VIA_DB_VI);
    v->rdb_head = (v->rdb_head + 1) % v->g.rdb_n;
    vf__wr(v, v->vcb + myri_via_rring_off(&v->g) + MYRI_VIA_RING_HEAD, v->rdb_head);
    myri_fw_q_get(v->fi, VF_Q_RDB);
    myri_viafw_count(v, MYRI_VIA_C_DOORBELLS);
    if (!ok) {
        myri_viafw_count(v, VF_C_DOORBELL_BAD);
        return;
    }
    uint32_t q = (uint32_t)v->p.rq;
    v->rq[vi * q + (v->rq_head[vi] + v->rq_n[vi]) % q] = desc;
    v->rq_n[vi]++;
    myri_fw_q_put(v->fi, VF_Q_POSTED);
}

/* ---- sends ------------------------------------------------------------------------------------ */

void myri_viafw_read_desc(viafw *v, uint32_t sram, vf_send *s)
{
    s->ctrl = vf__rd(v, sram + MYRI_VIA_D_CTRL);
    s->addr = vf__rd(v, sram + MYRI_VIA_D_ADDR);
    s->len = vf__rd(v, sram + MYRI_VIA_D_LEN);
    s->dest = vf__rd(v, sram + MYRI_VIA_D_DEST);
}

/* The route word of host h (0 if h has none). */
static uint32_t vf__route(viafw *v, uint32_t h)
{
    if (h >= v->g.nroutes) return 0;
    uint32_t w = vf__rd(v, v->vcb + myri_via_route_off(&v->g, h));
    return (w & MYRI_VIA_ROUTE_VALID) && (w & ~MYRI_VIA_ROUTE_VALID) <= v->g.route_max ? w : 0;
}

uint32_t myri_viafw_send_status(viafw *v, const vf_send *s)
{
    if (s->ctrl != MYRI_VIA_OP_SEND || s->len == 0 || s->len > v->g.mtu || (s->addr & 3u) || s->vi >= v->g.nvi ||
        (s->dest & 0xffu) >= v->g.nvi)
        return MYRI_VIA_STATUS_BAD;
    return vf__route(v, s->dest >> 8) ? MYRI_VIA_STATUS_DONE : MYRI_VIA_STATUS_NOROUTE;
}

/* Sends the frame of send buffer buf: the route copied right-aligned before
 * the header, the header, then one send DMA from the route's first word
 * (SA skips the bytes before the route) to the data's end, with the tail. */
void myri_viafw_start_send(viafw *v, uint32_t buf, const vf_send *s)
{
    uint32_t hdr = buf + MYRI_VIA_DESC_BYTES + v->ra;
    uint32_t rw = vf__route(v, s->dest >> 8), rl = rw & ~MYRI_VIA_ROUTE_VALID;
    const uint8_t *r = myri_lanai_sram(v->l, v->vcb + myri_via_route_off(&v->g, s->dest >> 8) + 4 +
                                                 myri_via_round4(rl) - rl, rl ? rl : 1);
    uint8_t *dst = myri_lanai_sram(v->l, hdr - rl, rl ? rl : 1);
    if (r && dst && rl) memmove(dst, r, rl);
    uint8_t *h = myri_lanai_sram(v->l, hdr, MYRI_VIA_FRAME_HDR_BYTES);
    uint32_t me = vf__rd(v, v->vcb + MYRI_VIA_HOST_ID_OFF);
    if (h) {
        h[MYRI_VIA_FH_TYPE] = (uint8_t)(MYRI_VIA_TYPE >> 8);
        h[MYRI_VIA_FH_TYPE + 1] = (uint8_t)MYRI_VIA_TYPE;
        h[MYRI_VIA_FH_DST_VI] = (uint8_t)s->dest;
        h[MYRI_VIA_FH_FLAGS] = 0;
        h[MYRI_VIA_FH_SRC_HOST] = (uint8_t)(me >> 8);
        h[MYRI_VIA_FH_SRC_HOST + 1] = (uint8_t)me;
        h[MYRI_VIA_FH_SRC_VI] = (uint8_t)s->vi;
        h[MYRI_VIA_FH_SRC_VI + 1] = 0;
    }
    myri_viafw_reg(v, MYRI_LANAI_SMP, hdr - myri_via_round4(rl));
    myri_viafw_reg(v, MYRI_LANAI_SA, myri_via_round4(rl) - rl);
    myri_viafw_reg(v, MYRI_LANAI_SMLT, hdr + MYRI_VIA_FRAME_HDR_BYTES + s->len);
}

/* Writes a completion into its SRAM area, to be DMA'd to the descriptor's
 * last 16 bytes (STATUS last in the area, so last in host memory). */
void myri_viafw_done_area(viafw *v, uint32_t area, const vf_done *d)
{
    vf__wr(v, area, d->len);
    vf__wr(v, area + 4, d->src);
    vf__wr(v, area + 8, 0);
    vf__wr(v, area + 12, d->status);
}

/* ---- receives ------------------------------------------------------------------------------------ */

void myri_viafw_arm(viafw *v, uint32_t buf)
{
    uint32_t w = myri_viafw_rbuf(v, buf) + MYRI_VIA_DESC_BYTES;
    myri_viafw_reg(v, MYRI_LANAI_RMP, w);
    myri_viafw_reg(v, MYRI_LANAI_RML, w + v->rwin);
}

uint32_t myri_viafw_received(viafw *v)
{
    uint32_t start = myri_viafw_rbuf(v, v->r_fill) + MYRI_VIA_DESC_BYTES;
    uint32_t rmp = myri_lanai_read(v->l, MYRI_LANAI_RMP);
    return rmp > start ? rmp - start : 0;
}

/* The verdict on the frame in receive buffer buf (rlen[buf] bytes, the
 * trailer byte last: the CRC remainder, 0 when good). */
uint32_t myri_viafw_rx_verdict(viafw *v, uint32_t buf, uint32_t n, bool check_desc)
{
    const uint8_t *f = myri_lanai_sram(v->l, myri_viafw_rbuf(v, buf) + MYRI_VIA_DESC_BYTES, v->rwin);
    if (!f || n < MYRI_VIA_FRAME_HDR_BYTES + 1) return MYRI_VIA_C_DROP_SHORT;
    if (f[n - 1] != 0) return MYRI_VIA_C_DROP_CRC;
    if (((uint32_t)f[0] << 8 | f[1]) != MYRI_VIA_TYPE) return MYRI_VIA_C_DROP_TYPE;
    if (f[MYRI_VIA_FH_DST_VI] >= v->g.nvi) return MYRI_VIA_C_DROP_VI;
    if (check_desc && v->rq_n[f[MYRI_VIA_FH_DST_VI]] == 0) return MYRI_VIA_C_DROP_NO_DESC;
    return MYRI_VIA_C_RX_GOOD;
}

/* Pops the oldest descriptor posted for the VI of the frame in buf and
 * notes the receive (rx): returns the descriptor's bus address. */
uint32_t myri_viafw_rx_take_desc(viafw *v, uint32_t buf)
{
    const uint8_t *f = myri_lanai_sram(v->l, myri_viafw_rbuf(v, buf) + MYRI_VIA_DESC_BYTES, MYRI_VIA_FRAME_HDR_BYTES);
    uint32_t vi = f ? f[MYRI_VIA_FH_DST_VI] : 0, q = (uint32_t)v->p.rq;
    uint32_t desc = v->rq[vi * q + v->rq_head[vi]];
    v->rq_head[vi] = (v->rq_head[vi] + 1) % q;
    v->rq_n[vi]--;
    myri_fw_q_get(v->fi, VF_Q_POSTED);
    v->rx_vi = vi;
    v->rx_dlen = v->rlen[buf] - MYRI_VIA_FRAME_HDR_BYTES - 1;
    v->rx = (vf_done){desc, v->rx_dlen,
                      f ? ((uint32_t)f[MYRI_VIA_FH_SRC_HOST] << 8 | f[MYRI_VIA_FH_SRC_HOST + 1]) << 8 |
                              f[MYRI_VIA_FH_SRC_VI]
                        : 0,
                      MYRI_VIA_STATUS_DONE};
    return desc;
}

void myri_viafw_rx_read_desc(viafw *v, uint32_t buf, uint32_t *addr, uint32_t *len)
{
    uint32_t d = myri_viafw_rbuf(v, buf);
    *addr = vf__rd(v, d + MYRI_VIA_D_ADDR);
    *len = vf__rd(v, d + MYRI_VIA_D_LEN);
}

/* The receive descriptor fetched into buffer r_head takes the frame's data. */
bool myri_viafw_rx_fits(viafw *v)
{
    uint32_t d = myri_viafw_rbuf(v, v->r_head);
    uint32_t addr, len;
    myri_viafw_rx_read_desc(v, v->r_head, &addr, &len);
    return vf__rd(v, d + MYRI_VIA_D_CTRL) == MYRI_VIA_OP_RECV && !(addr & 3u) && len >= v->rx_dlen;
}

/* ---- events and guards both firmwares test ---------------------------------------------------------- */

bool myri_viafw_ev_true(void *fw, myri_lanai *l) { return (void)fw, (void)l, true; }
bool myri_viafw_ev_sdb(void *fw, myri_lanai *l) { return (void)l, myri_viafw_sdb_pending(VF(fw)); }
bool myri_viafw_ev_rdb(void *fw, myri_lanai *l) { return (void)l, myri_viafw_rdb_pending(VF(fw)); }
bool myri_viafw_ev_rx_int(void *fw, myri_lanai *l)
{
    return (void)fw, myri_viafw_isr(l, MYRI_LANAI_RECV_INT | MYRI_LANAI_BUFF_INT);
}
bool myri_viafw_ev_send_int(void *fw, myri_lanai *l) { return (void)fw, myri_viafw_isr(l, MYRI_LANAI_SEND_INT); }
bool myri_viafw_ev_dma_int(void *fw, myri_lanai *l) { return (void)fw, myri_viafw_isr(l, MYRI_LANAI_DMA_INT); }
bool myri_viafw_g_rdb_ok(void *fw, myri_lanai *l) { return (void)l, myri_viafw_rdb_ok(VF(fw)); }
bool myri_viafw_g_rdb_bad(void *fw, myri_lanai *l) { return (void)l, !myri_viafw_rdb_ok(VF(fw)); }
static bool vf__recv_int(myri_lanai *l) { return myri_viafw_isr(l, MYRI_LANAI_RECV_INT); }
static bool vf__buff_int(myri_lanai *l) { return !vf__recv_int(l) && myri_viafw_isr(l, MYRI_LANAI_BUFF_INT); }
bool myri_viafw_g_recv_discard(void *fw, myri_lanai *l) { return vf__recv_int(l) && VF(fw)->discarding; }
bool myri_viafw_g_buff_first(void *fw, myri_lanai *l) { return vf__buff_int(l) && !VF(fw)->discarding; }
bool myri_viafw_g_buff_more(void *fw, myri_lanai *l) { return vf__buff_int(l) && VF(fw)->discarding; }
bool myri_viafw_rx_is(void *fw, myri_lanai *l, uint32_t buf, uint32_t k, bool check_desc)
{
    viafw *v = VF(fw);
    return vf__recv_int(l) && !v->discarding && myri_viafw_rx_verdict(v, buf, myri_viafw_received(v), check_desc) == k;
}

/* ---- life ------------------------------------------------------------------------------------------ */

void myri_viafw_boot(viafw *v)
{
    uint32_t n = myri_via_bytes(&v->g);
    uint8_t *h = myri_lanai_sram(v->l, v->vcb, n);
    if (!h) return;
    memset(h, 0, n);
    vf__wr(v, v->vcb + MYRI_VIA_SIG_START_OFF, MYRI_VIA_SIG_START);
    vf__wr(v, v->vcb + MYRI_VIA_BYTES_OFF, n);
    vf__wr(v, v->vcb + MYRI_VIA_NVI_OFF, v->g.nvi);
    vf__wr(v, v->vcb + MYRI_VIA_SDB_N_OFF, v->g.sdb_n);
    vf__wr(v, v->vcb + MYRI_VIA_RDB_N_OFF, v->g.rdb_n);
    vf__wr(v, v->vcb + MYRI_VIA_NROUTES_OFF, v->g.nroutes);
    vf__wr(v, v->vcb + MYRI_VIA_ROUTE_MAX_OFF, v->g.route_max);
    vf__wr(v, v->vcb + MYRI_VIA_MTU_OFF, v->g.mtu);
    vf__wr(v, v->vcb + MYRI_VIA_FW_OFF, v->nsb > 1 || v->nrb > 1 ? MYRI_VIA_FW_MYRICOM : MYRI_VIA_FW_LCP);
    vf__wr(v, v->vcb + myri_via_sig_end_off(&v->g), MYRI_VIA_SIG_END);
    vf__wr(v, v->vcb + MYRI_VIA_STATE_OFF, MYRI_VIA_STATE_READY);
    vf__wr(v, MYRI_LANAI_HCB_PTR_ADDR, v->vcb);
    myri_fw_set(v->fi, VF_V_STATE, MYRI_VIA_STATE_READY);
    myri_viafw_arm(v, v->r_fill);
}

static myri_status vf__layout(viafw *v)
{
    const myri_viafw_params *p = &v->p;
    v->g = (myri_via_geom){(uint32_t)p->nvi, (uint32_t)p->sdb_n, (uint32_t)p->rdb_n, (uint32_t)p->nroutes,
                           (uint32_t)p->route_max, (uint32_t)p->mtu};
    v->vcb = myri_via_round4((uint32_t)p->vcb_addr);
    v->nsb = (uint32_t)p->nsbuf;
    v->nrb = (uint32_t)p->nrbuf;
    v->ra = myri_via_round4((uint32_t)p->route_max);
    v->sbytes = MYRI_VIA_DESC_BYTES + v->ra + MYRI_VIA_FRAME_HDR_BYTES + myri_via_round4(v->g.mtu);
    v->rwin = myri_via_round4(MYRI_VIA_FRAME_HDR_BYTES + v->g.mtu + 1);
    v->rbytes = MYRI_VIA_DESC_BYTES + v->rwin;
    v->sbase = v->vcb + myri_via_round4(myri_via_bytes(&v->g));
    v->rbase = v->sbase + v->nsb * v->sbytes;
    v->cqbase = v->rbase + v->nrb * v->rbytes;
    uint64_t end = (uint64_t)v->cqbase + 16u * VF_CQ(v);
    uint64_t top = myri_lanai_sram_bytes(v->l);
    if (top > MYRI_LANAI_STACK_TOP) top = MYRI_LANAI_STACK_TOP;
    return end > top ? MYRI_ERANGE : MYRI_OK;
}

myri_status myri_viafw_create(const void *params, myri_lanai *l, myri_fw_inst *fi, void **out)
{
    viafw *v = calloc(1, sizeof *v);
    if (!v) return MYRI_ENOMEM;
    v->p = *(const myri_viafw_params *)params;
    v->l = l;
    v->fi = fi;
    myri_status st = vf__layout(v);
    if (st == MYRI_OK) {
        size_t nvi = v->g.nvi, q = (size_t)v->p.rq;
        v->sb = calloc(v->nsb, sizeof *v->sb);
        v->cq = calloc(VF_CQ(v), sizeof *v->cq);
        v->rq = calloc(nvi * q, sizeof *v->rq);
        v->rq_head = calloc(nvi, sizeof *v->rq_head);
        v->rq_n = calloc(nvi, sizeof *v->rq_n);
        v->rlen = calloc(v->nrb, sizeof *v->rlen);
        if (!v->sb || !v->cq || !v->rq || !v->rq_head || !v->rq_n || !v->rlen) st = MYRI_ENOMEM;
    }
    if (st != MYRI_OK) {
        myri_viafw_destroy(v);
        return st;
    }
    *out = v;
    return MYRI_OK;
}

void myri_viafw_destroy(void *fw)
{
    viafw *v = fw;
    if (!v) return;
    free(v->sb);
    free(v->cq);
    free(v->rq);
    free(v->rq_head);
    free(v->rq_n);
    free(v->rlen);
    free(v);
}

uint32_t myri_viafw_x_boot(void *fw, myri_lanai *l) { return (void)l, myri_via_bytes(&VF(fw)->g) / 4; }
uint32_t myri_viafw_x_db(void *fw, myri_lanai *l) { return (void)l, (uint32_t)VF(fw)->p.db_cycles; }
uint32_t myri_viafw_x_desc(void *fw, myri_lanai *l) { return (void)l, (uint32_t)VF(fw)->p.desc_cycles; }
uint32_t myri_viafw_x_sdma(void *fw, myri_lanai *l) { return (void)l, (uint32_t)VF(fw)->p.sdma_cycles; }
uint32_t myri_viafw_x_rx(void *fw, myri_lanai *l) { return (void)l, (uint32_t)VF(fw)->p.rx_cycles; }

uint32_t myri_viafw_vcb_addr(const myri_fw_inst *fi)
{
    const myri_fw_def *d = myri_fw_def_of(fi);
    const viafw *v = myri_fw_state((myri_fw_inst *)fi);
    return v && (d == &myri_lcp_def || d == &myri_myricom_def) ? v->vcb : 0;
}

void myri_viafw_geom(const myri_fw_inst *fi, myri_via_geom *out)
{
    const myri_fw_def *d = myri_fw_def_of(fi);
    const viafw *v = myri_fw_state((myri_fw_inst *)fi);
    if (v && out && (d == &myri_lcp_def || d == &myri_myricom_def)) *out = v->g;
}
