/* fabric_ref.c -- the REFERENCE model: byte by byte.
 *
 * Every character is an object that is sent (EV_R_SEND, one per character
 * slot), travels on the wire (a FIFO per channel) and arrives
 * (EV_R_ARRIVE) into the receiver's slack buffer (a FIFO of characters),
 * from which the switch output that holds the path takes it.  Bytes are real:
 * the first hop's bytes are built with their CRC trailer, switches strip the
 * route byte and update the trailer, bit errors flip real bits, and the
 * destination computes the CRC over what arrives.  STOP/GO are decided by
 * comparing the slack occupancy at the end of each instant (EV_R_CHECK) with
 * the STOP and GO lines.  Written to be obviously correct, not fast.
 */
#include "fabric/fabric_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fab_ref_wake(myri_fabric *f, fab_chan *c);

static void ref__ring_push(myri_fabric *f, fab_rchar **ring, uint32_t *cap, uint32_t *head,
                           uint32_t *count, const fab_rchar *ch)
{
    if (*count == *cap) {
        uint32_t nc = *cap ? 2 * *cap : 64;
        fab_rchar *nr = malloc(nc * sizeof *nr);
        if (!nr) myri_panic(f->comp, "out of memory (reference buffers)");
        for (uint32_t i = 0; i < *count; i++) nr[i] = (*ring)[(*head + i) % *cap];
        free(*ring);
        *ring = nr;
        *cap = nc;
        *head = 0;
    }
    (*ring)[(*head + (*count)++) % *cap] = *ch;
}

static fab_rchar *ref__buf_front(fab_chan *c) { return fab_cold(c)->rx.bcount ? &fab_cold(c)->rx.buf[fab_cold(c)->rx.bhead] : NULL; }

static void ref__check_later(myri_fabric *f, fab_chan *c)
{
    uint64_t now = fab_now(f);
    if (c->rx.check_pending && c->rx.check_pending_at == now) return;
    c->rx.check_pending = true;
    c->rx.check_pending_at = now;
    myri_fab_push(f, now, PH_CHECK, EV_R_CHECK, c->id, 0, NULL);
}

/* A character leaves the slack buffer of input c. */
static fab_rchar ref__depart(myri_fabric *f, fab_chan *c)
{
    fab_rchar ch = fab_cold(c)->rx.buf[fab_cold(c)->rx.bhead];
    fab_cold(c)->rx.bhead = (fab_cold(c)->rx.bhead + 1) % fab_cold(c)->rx.bcap;
    fab_cold(c)->rx.bcount--;
    fab_cold(c)->rx.occ--;
    fab_cold(c)->rx.departed_total++;
    ref__check_later(f, c);
    return ch;
}

/* The sender of c looks again at `at` (or when its slot ends, if later). */
static void ref__wake_at(myri_fabric *f, fab_chan *c, uint64_t at)
{
    uint64_t t = c->tx.free_at > at ? c->tx.free_at : at;
    if (c->tx.send_pending && c->x->tx.send_pending_at == t) return;
    c->tx.send_pending = true;
    c->x->tx.send_pending_at = t;
    myri_fab_push(f, t, PH_SEND, EV_R_SEND, c->id, 0, NULL);
}

static void fab_ref_wake(myri_fabric *f, fab_chan *c) { ref__wake_at(f, c, fab_now(f)); }

/* Corruption of character j (a byte) of the packet on channel c: applied to
 * the real byte, and to the route/type copy the switches decode from. */
static uint8_t ref__corrupt(fab_chan *c, uint32_t j, uint8_t byte)
{
    for (uint32_t k = 0; k < c->tx.ncorr; k++) {
        if (fab_cold(c)->tx.corr[k].pos != j) continue;
        byte ^= fab_cold(c)->tx.corr[k].mask;
        fab_pkt *pkt = c->tx.cur;
        uint32_t at = c->tx.cur_hop + j; /* position in the first-hop bytes */
        if (pkt->hdr_lazy) myri_fab_pkt_hdr_fill(pkt);
        if (at < FAB_HDR) pkt->hdr[at] ^= fab_cold(c)->tx.corr[k].mask;
    }
    return byte;
}


/* A port's receive DMA moves the next character of its packet from the
 * host input's slack buffer into the armed window. */
static void ref__dma_send(myri_fabric *f, fab_chan *o)
{
    myri_fab_try_terminate(f, o); /* truncated and drained (the DMA stops; the next packet may be taken) */
    if (!o->tx.cur || o->tx.stopped) return;
    fab_chan *in = &f->ch[o->tx.src_in];
    uint32_t j = o->tx.cur_next;
    fab_rchar *fr = ref__buf_front(in);
    if (!fr || fr->pkt != o->tx.cur || fr->j != j) return; /* not arrived yet */
    if (!fr->gap && myri_fab_port_room(f, o, j) == 0) { /* the window is full and a byte came: BUFF */
        myri_fab_port_rx_end(f, o, MYRI_PORT_RX_BUFF);
        return;
    }
    fab_rchar src = ref__depart(f, in);
    uint64_t now = fab_now(f);
    o->tx.free_at = now + f->T;
    o->tx.cur_next++;
    o->x->st.chars++;
    o->tx.in_progress = true;
    if (!src.gap) {
        myri_fab_port_write(f, o, j + 1, &src.byte, now);
        myri_fab_try_terminate(f, o);
        if (o->tx.cur) fab_ref_wake(f, o);
        return;
    }
    myri_fab_port_rx_end(f, o, MYRI_PORT_RX_TAIL);
    o->tx.in_progress = false;
    o->tx.cur = NULL;
    o->tx.src_in = -1;
    myri_fab_front_done(f, in);
}

static void ref__send(myri_fabric *f, fab_chan *c)
{
    uint64_t now = fab_now(f);
    if (c->tx.send_pending && c->x->tx.send_pending_at == now) c->tx.send_pending = false;
    if (c->tx.free_at > now || c->tx.stopped) return;
    if (!c->tx.cur) {
        if (c->src_host) myri_fab_host_drop_down(f, c);
        if (!c->src_host || !fab_cold(c)->tx.hq_head) return;
        fab_pkt *pkt = fab_cold(c)->tx.hq_head;
        fab_cold(c)->tx.hq_head = pkt->next;
        if (!fab_cold(c)->tx.hq_head) fab_cold(c)->tx.hq_tail = NULL;
        fab_cold(c)->tx.hq_len--;
        c->tx.cur = pkt;
        f->ctr.hops++;
        c->tx.cur_hop = 0;
        c->tx.cur_next = 0;
        c->tx.ncorr = myri_fab_hop_corruptions(f, pkt, c, pkt->nbytes0);
    }
    if (c->dma) {
        ref__dma_send(f, c);
        return;
    }
    fab_pkt *pkt = c->tx.cur;
    uint32_t j = c->tx.cur_next;
    if (c->src_host && j >= pkt->ready) return; /* underrun: the host waits for its bytes */
    fab_rchar ch = {.pkt = pkt, .j = j, .hop = c->tx.cur_hop};
    fab_chan *in = NULL;
    if (c->src_host) {
        ch.gap = j == fab_cur_n(c) - 1;
        ch.byte = ch.gap ? 0 : pkt->bytes[j];
    } else {
        in = &f->ch[c->tx.src_in];
        fab_rchar *fr = ref__buf_front(in);
        if (!fr || fr->pkt != pkt || fr->j != j + 1) return; /* not arrived yet */
        if (fr->at + f->fall > now) { /* arrived, still falling through the switch's pipeline */
            ref__wake_at(f, c, fr->at + f->fall);
            return;
        }
        fab_rchar src = ref__depart(f, in);
        ch.gap = src.gap;
        ch.byte = src.byte;
        MYRI_ASSERT(f->comp, ch.gap == (j == fab_cur_n(c) - 1), "GAP out of place on channel %u", c->id);
        /* The trailer: fold the stripped route byte in (packet.h). */
        if (j == fab_cur_n(c) - 2) ch.byte ^= myri_crc8_strip_delta(&f->crc, c->x->tx.strip_byte, fab_cur_n(c));
    }
    if (!ch.gap) ch.byte = ref__corrupt(c, j, ch.byte);
    ch.at = now + c->d_ps;
    ref__ring_push(f, &fab_cold(c)->wire, &fab_cold(c)->wcap, &fab_cold(c)->whead, &fab_cold(c)->wcount, &ch);
    myri_fab_push(f, ch.at, PH_ARRIVE, EV_R_ARRIVE, c->id, 0, NULL);
    c->x->st.chars++;
    c->tx.sent_total++;
    if (j == 0 && f->any_tap && f->taps[c->id].fn) {
        c->tx.tap_on = true;
        fab_cold(c)->tx.tap_len = 0;
        fab_cold(c)->tx.tap_first = now;
    }
    if (c->tx.tap_on && !ch.gap && myri_fab_tap_reserve(c, fab_cold(c)->tx.tap_len + 1)) fab_cold(c)->tx.tap_buf[fab_cold(c)->tx.tap_len++] = ch.byte;
    if (j == 0) {
        c->tx.in_progress = true;
        if (c->src_host) pkt->head_ps = now;
        else pkt->refs++; /* this channel's reference, until GAP or FRES arrives */
    }
#ifdef FAB_DEBUG
    if (FAB_DEBUG < 0 || c->id == (uint32_t)FAB_DEBUG) fprintf(stderr, "R %llu ch %u send pkt %llu j %u\n", (unsigned long long)now, c->id, (unsigned long long)pkt->id, j);
#endif
    c->tx.free_at = now + f->T;
    c->tx.cur_next++;
    if (ch.gap) {
        c->tx.in_progress = false;
        c->tx.cur = NULL;
        myri_fab_tap_done(f, c, fab_cold(c)->tx.tap_len, false);
        if (in) {
            c->tx.src_in = -1;
            myri_fab_front_done(f, in);
            myri_fab_release(f, c, c->tx.free_at);
        } else {
            myri_fab_port_tx_over(f, pkt, true, MYRI_FABRIC_DROP_NREASONS);
            fab_ref_wake(f, c);
        }
        return;
    }
    if (in) myri_fab_try_terminate(f, c);
    if (c->tx.cur) fab_ref_wake(f, c);
}

static void ref__host_arrive(myri_fabric *f, fab_chan *c, const fab_rchar *ch)
{
    if (ch->j == 0) {
        fab_cold(c)->rx.hpkt = ch->pkt;
        fab_cold(c)->rx.hcrc = 0;
        c->rx.hbad = false;
        if (ch->byte & 0x80u) { /* a to-switch byte reached a host: misrouted */
            myri_fab_drop(f, ch->pkt, MYRI_FABRIC_DROP_MISROUTED);
            c->rx.hbad = true;
        }
    }
    if (fab_cold(c)->rx.hpkt != ch->pkt) return;
    if (!ch->gap) {
        fab_cold(c)->rx.hcrc = myri_crc8_update(&f->crc, fab_cold(c)->rx.hcrc, &ch->byte, 1);
        return;
    }
    if (!c->rx.hbad) {
        if (fab_cold(c)->rx.hcrc == 0) myri_fab_deliver(f, ch->pkt, c->dst_node);
        else myri_fab_drop(f, ch->pkt, MYRI_FABRIC_DROP_CRC);
    }
    fab_cold(c)->rx.hpkt = NULL;
    myri_fab_pkt_unref(f, ch->pkt); /* the channel's reference */
}

static void ref__arrive(myri_fabric *f, fab_chan *c)
{
    fab_rchar ch = fab_cold(c)->wire[fab_cold(c)->whead];
    fab_cold(c)->whead = (fab_cold(c)->whead + 1) % fab_cold(c)->wcap;
    fab_cold(c)->wcount--;
    MYRI_ASSERT(f->comp, ch.at == fab_now(f), "wire order broken on channel %u", c->id);
    if (ch.lost) return;
    if (c->dst_host) {
        ref__host_arrive(f, c, &ch);
        return;
    }
    fab_rxent *e;
    if (ch.j == 0) {
        e = myri_fab_rx_push(f, c);
        e->pix = ch.pkt->ix;
        e->hop = ch.hop;
        /* the channel's reference is now the packet's presence here */
    } else {
        e = &c->rx.rxq[(c->rx.rxhead + c->rx.rxcount - 1) % c->rx.rxcap];
    }
    MYRI_ASSERT(f->comp, e->pix == ch.pkt->ix, "characters of two packets interleaved on channel %u", c->id);
    e->got++;
    fab_cold(c)->rx.arrived_total++;
    bool front = e == myri_fab_rx_front(c);
    if (front && c->rx.front == FR_SINK) {
        fab_cold(c)->rx.departed_total++;
        if (ch.gap) myri_fab_front_done(f, c);
        return;
    }
    ref__ring_push(f, &fab_cold(c)->rx.buf, &fab_cold(c)->rx.bcap, &fab_cold(c)->rx.bhead, &fab_cold(c)->rx.bcount, &ch);
    fab_cold(c)->rx.occ++;
    ref__check_later(f, c);
    if (front && ch.j == 0) myri_fab_front_begin(f, c);
    else if (front && c->rx.front == FR_GRANT) { /* its output may send it once it has fallen through */
        fab_chan *o = &f->ch[c->rx.want_out];
        ref__wake_at(f, o, fab_now(f) + fab_fall_ps(f, o));
    }
}

static void ref__check(myri_fabric *f, fab_chan *c)
{
    c->rx.check_pending = false;
    MYRI_ASSERT(f->comp, fab_cold(c)->rx.occ <= f->p.slack_size_bytes,
                "slack buffer of channel %u overflows: %llu > %llu characters", c->id,
                (unsigned long long)fab_cold(c)->rx.occ, (unsigned long long)f->p.slack_size_bytes);
    if (fab_cold(c)->rx.occ > c->rx.max_slack) c->rx.max_slack = fab_cold(c)->rx.occ;
#ifdef FAB_DEBUG
    if (FAB_DEBUG < 0 || c->id == (uint32_t)FAB_DEBUG)
        fprintf(stderr, "R %llu check A %llu D %llu O %lld front %d\n", (unsigned long long)fab_now(f),
                (unsigned long long)c->arrived_total, (unsigned long long)c->departed_total, (long long)c->occ, (int)c->front);
#endif
    if (!c->rx.stop_sent && fab_cold(c)->rx.occ >= f->p.slack_stop_bytes) myri_fab_emit_ctrl(f, c, true);
    else if (c->rx.stop_sent && fab_cold(c)->rx.occ <= f->p.slack_go_bytes) myri_fab_emit_ctrl(f, c, false);
}

static void fab_ref_handle(myri_fabric *f, const fab_ev *ev)
{
    fab_chan *c = &f->ch[ev->a];
    switch (ev->kind) {
    case EV_R_ARRIVE: ref__arrive(f, c); break;
    case EV_R_SEND: ref__send(f, c); break;
    case EV_R_CHECK: ref__check(f, c); break;
    default: myri_panic(f->comp, "reference model: unknown event kind %u", ev->kind);
    }
}

static void fab_ref_granted(myri_fabric *f, fab_chan *in, fab_chan *out)
{
    fab_rchar *fr = ref__buf_front(in);
    MYRI_ASSERT(f->comp, fr && fr->pkt == out->tx.cur && fr->j == 0, "granted head not at the front");
    MYRI_ASSERT(f->comp, out->tx.cur_hop > FAB_HDR || fr->byte == out->x->tx.strip_byte,
                "decoded route byte differs from the real one");
    ref__depart(f, in);
    myri_fab_try_terminate(f, out);
    if (out->tx.cur) fab_ref_wake(f, out);
}

static void fab_ref_sink(myri_fabric *f, fab_chan *in)
{
    fab_rxent *e = myri_fab_rx_front(in);
    bool gap = false;
    while (fab_cold(in)->rx.bcount && fab_pkt_ix(ref__buf_front(in)->pkt) == e->pix) gap = ref__depart(f, in).gap;
    if (gap || e->fres) myri_fab_front_done(f, in);
}

static fab_pkt *fab_ref_cut_wire(myri_fabric *f, fab_chan *c)
{
    uint64_t now = fab_now(f);
    for (uint32_t i = 0; i < fab_cold(c)->wcount; i++) {
        fab_rchar *ch = &fab_cold(c)->wire[(fab_cold(c)->whead + i) % fab_cold(c)->wcap];
        if (ch->at <= now || ch->lost) continue;
        ch->lost = 1;
        myri_fab_drop(f, ch->pkt, MYRI_FABRIC_DROP_LINK_DOWN);
        if (ch->j == 0) myri_fab_pkt_unref(f, ch->pkt); /* its head never arrives: the channel's reference */
    }
    if (c->dst_host) {
        fab_pkt *p = fab_cold(c)->rx.hpkt;
        fab_cold(c)->rx.hpkt = NULL;
        return p;
    }
    if (!c->rx.rxcount) return NULL;
    fab_rxent *e = &c->rx.rxq[(c->rx.rxhead + c->rx.rxcount - 1) % c->rx.rxcap];
    if (e->got >= fab_e_n(f, e) || e->fres || e->dead) return NULL;
    e->dead = true;
    return fab_rx_pkt(f, e);
}

static void ref__reset_window(myri_fabric *f)
{
    for (size_t i = 0; i < f->nchan; i++) f->ch[i].rx.max_slack = fab_cold(&f->ch[i])->rx.occ;
}

const fab_model myri_fab_model_ref = {
    .name = "reference",
    .check_kind = EV_R_CHECK,
    .carries_bytes = true,
    .handle = fab_ref_handle,
    .wake = fab_ref_wake,
    .sink = fab_ref_sink,
    .granted = fab_ref_granted,
    .cut_wire = fab_ref_cut_wire,
    .reset_window = ref__reset_window,
};
