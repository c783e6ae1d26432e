/* fabric_ref.c -- the REFERENCE model: byte by byte.
 *
 * Every character is an object that is sent (EV_R_SEND, one per character
 * slot), travels as a message (MSG_CHAR, myri_fab_msg: the receiver takes
 * everything from it) and arrives (EV_R_ARRIVE, D_c later) into the
 * receiver's slack buffer (a FIFO of characters), from which the switch output
 * that holds the path takes it; one sent before a cut of the cable carries an
 * old epoch and is lost.  Bytes are real:
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

static fab_rchar *ref__buf_front(fab_chan *c) { return FAB_RXC(c)->bcount ? &FAB_RXC(c)->buf[FAB_RXC(c)->bhead] : NULL; }

static void ref__check_later(myri_fabric *f, fab_chan *c)
{
    uint64_t now = fab_now(f);
    if (FAB_RX(c)->check_pending && FAB_RX(c)->check_pending_at == now) return;
    FAB_RX(c)->check_pending = true;
    FAB_RX(c)->check_pending_at = now;
    myri_fab_push(f, now, PH_CHECK, EV_R_CHECK, c->id, 0, NULL);
}

/* A character leaves the slack buffer of input c. */
static fab_rchar ref__depart(myri_fabric *f, fab_chan *c)
{
    fab_rchar ch = FAB_RXC(c)->buf[FAB_RXC(c)->bhead];
    FAB_RXC(c)->bhead = (FAB_RXC(c)->bhead + 1) % FAB_RXC(c)->bcap;
    FAB_RXC(c)->bcount--;
    FAB_RXC(c)->occ--;
    FAB_RXC(c)->departed_total++;
    ref__check_later(f, c);
    return ch;
}

/* The sender of c looks again at `at` (or when its slot ends, if later). */
static void ref__wake_at(myri_fabric *f, fab_chan *c, uint64_t at)
{
    uint64_t t = FAB_TX(c)->free_at > at ? FAB_TX(c)->free_at : at;
    if (FAB_TX(c)->send_pending && FAB_TXX(c)->send_pending_at == t) return;
    FAB_TX(c)->send_pending = true;
    FAB_TXX(c)->send_pending_at = t;
    myri_fab_push(f, t, PH_SEND, EV_R_SEND, c->id, 0, NULL);
}

static void fab_ref_wake(myri_fabric *f, fab_chan *c) { ref__wake_at(f, c, fab_now(f)); }

/* Corruption of character j (a byte) of the packet on channel c: applied to
 * the real byte, and to the route/type copy the switches decode from. */
static uint8_t ref__corrupt(fab_chan *c, uint32_t j, uint8_t byte)
{
    for (uint32_t k = 0; k < FAB_TX(c)->ncorr; k++) {
        if (FAB_TXC(c)->corr[k].pos != j) continue;
        byte ^= FAB_TXC(c)->corr[k].mask;
        fab_pkt *pkt = FAB_TX(c)->cur;
        uint32_t at = FAB_TX(c)->cur_hop + j; /* position in the first-hop bytes */
        if (pkt->hdr_lazy) myri_fab_pkt_hdr_fill(pkt);
        if (at < FAB_HDR) pkt->hdr[at] ^= FAB_TXC(c)->corr[k].mask;
    }
    return byte;
}


/* A port's receive DMA moves the next character of its packet from the
 * host input's slack buffer into the armed window. */
static void ref__dma_send(myri_fabric *f, fab_chan *o)
{
    myri_fab_try_terminate(f, o); /* truncated and drained (the DMA stops; the next packet may be taken) */
    if (!FAB_TX(o)->cur || FAB_TX(o)->stopped) return;
    fab_chan *in = &f->ch[FAB_TX(o)->src_in];
    uint32_t j = FAB_TX(o)->cur_next;
    fab_rchar *fr = ref__buf_front(in);
    if (!fr || fr->pkt != FAB_TX(o)->cur || fr->j != j) return; /* not arrived yet */
    if (!fr->gap && myri_fab_port_room(f, o, j) == 0) { /* the window is full and a byte came: BUFF */
        myri_fab_port_rx_end(f, o, MYRI_PORT_RX_BUFF);
        return;
    }
    fab_rchar src = ref__depart(f, in);
    uint64_t now = fab_now(f);
    FAB_TX(o)->free_at = now + f->T;
    FAB_TX(o)->cur_next++;
    o->x->st.chars++;
    FAB_TX(o)->in_progress = true;
    if (!src.gap) {
        myri_fab_port_write(f, o, j + 1, &src.byte, now);
        myri_fab_try_terminate(f, o);
        if (FAB_TX(o)->cur) fab_ref_wake(f, o);
        return;
    }
    myri_fab_port_rx_end(f, o, MYRI_PORT_RX_TAIL);
    FAB_TX(o)->in_progress = false;
    FAB_TX(o)->cur = NULL;
    FAB_TX(o)->src_in = -1;
    myri_fab_front_done(f, in);
}

/* The sender of c keeps its packets whose characters are on the cable (at
 * most D_c / T characters' worth): character j of pkt arrives at `at`. */
static void ref__sent(myri_fabric *f, fab_chan *c, const fab_pkt *pkt, uint32_t j, uint64_t at)
{
    fab_tx_cold *y = FAB_TXC(c);
    if (j > 0) {
        MYRI_ASSERT(f->comp, y->scount && y->sent[(y->shead + y->scount - 1) % y->scap].pix == pkt->ix,
                    "channel %u: character %u of a packet not begun", c->id, j);
        y->sent[(y->shead + y->scount - 1) % y->scap].last_at = at;
        return;
    }
    uint64_t now = fab_now(f);
    while (y->scount && y->sent[y->shead].last_at <= now) { /* arrived whole */
        y->shead = (y->shead + 1) % y->scap;
        y->scount--;
    }
    if (y->scount == y->scap) {
        uint32_t nc = y->scap ? 2 * y->scap : 4;
        fab_rsent *nr = malloc(nc * sizeof *nr);
        if (!nr) myri_panic(f->comp, "out of memory (reference senders)");
        for (uint32_t i = 0; i < y->scount; i++) nr[i] = y->sent[(y->shead + i) % y->scap];
        free(y->sent);
        y->sent = nr;
        y->scap = nc;
        y->shead = 0;
    }
    y->sent[(y->shead + y->scount++) % y->scap] = (fab_rsent){.head_at = at, .last_at = at, .pix = pkt->ix};
}

static void ref__send(myri_fabric *f, fab_chan *c)
{
    uint64_t now = fab_now(f);
    if (FAB_TX(c)->send_pending && FAB_TXX(c)->send_pending_at == now) FAB_TX(c)->send_pending = false;
    if (FAB_TX(c)->free_at > now || FAB_TX(c)->stopped) return;
    if (!FAB_TX(c)->cur) {
        if (!myri_fab_take_next(f, c)) return;
    }
    if (c->dma) {
        ref__dma_send(f, c);
        return;
    }
    fab_pkt *pkt = FAB_TX(c)->cur;
    uint32_t j = FAB_TX(c)->cur_next;
    if (c->src_host && j >= pkt->ready) return; /* underrun: the host waits for its bytes */
    fab_rchar ch = {.pkt = pkt, .j = j, .hop = FAB_TX(c)->cur_hop};
    fab_chan *in = NULL;
    if (c->src_host) {
        ch.gap = j == fab_cur_n(c) - 1;
        ch.byte = ch.gap ? 0 : pkt->bytes[j];
    } else {
        in = &f->ch[FAB_TX(c)->src_in];
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
        if (j == fab_cur_n(c) - 2) ch.byte ^= myri_crc8_strip_delta(&f->crc, FAB_TX(c)->strip_byte, fab_cur_n(c));
    }
    if (!ch.gap) ch.byte = ref__corrupt(c, j, ch.byte);
    ref__sent(f, c, pkt, j, now + c->d_ps);
    if (j == 0 && c->src_host) pkt->head_ps = now; /* before the head's message: it carries the record */
    fab_msg m = {.pkt_id = pkt->id, .pix = pkt->ix, .j = j, .hop = ch.hop, .byte = ch.byte, .gap = ch.gap,
                 .epoch = c->x->epoch};
    myri_fab_msg(f, c, now + c->d_ps, PH_ARRIVE, MSG_CHAR, &m);
    c->x->st.chars++;
    FAB_TX(c)->sent_total++;
    if (j == 0 && f->any_tap && f->taps[c->id].fn) {
        FAB_TX(c)->tap_on = true;
        FAB_TXC(c)->tap_len = 0;
        FAB_TXC(c)->tap_first = now;
    }
    if (FAB_TX(c)->tap_on && !ch.gap && myri_fab_tap_reserve(c, FAB_TXC(c)->tap_len + 1))
        FAB_TXC(c)->tap_buf[FAB_TXC(c)->tap_len++] = ch.byte;
    if (j == 0) {
        FAB_TX(c)->in_progress = true;
        if (!c->src_host) pkt->refs++; /* this channel's reference, until GAP or FRES arrives */
    }
#ifdef FAB_DEBUG
    if (FAB_DEBUG < 0 || c->id == (uint32_t)FAB_DEBUG) fprintf(stderr, "R %llu ch %u send pkt %llu j %u\n", (unsigned long long)now, c->id, (unsigned long long)pkt->id, j);
#endif
    FAB_TX(c)->free_at = now + f->T;
    FAB_TX(c)->cur_next++;
    if (ch.gap) {
        FAB_TX(c)->in_progress = false;
        FAB_TX(c)->cur = NULL;
        myri_fab_tap_done(f, c, FAB_TXC(c)->tap_len, false);
        if (in) {
            FAB_TX(c)->src_in = -1;
            myri_fab_front_done(f, in);
            myri_fab_release(f, c, FAB_TX(c)->free_at);
        } else {
            myri_fab_port_tx_over(f, pkt, true, MYRI_FABRIC_DROP_NREASONS);
            fab_ref_wake(f, c);
        }
        return;
    }
    if (in) myri_fab_try_terminate(f, c);
    if (FAB_TX(c)->cur) fab_ref_wake(f, c);
}

static void ref__host_arrive(myri_fabric *f, fab_chan *c, const fab_rchar *ch)
{
    if (ch->j == 0) {
        FAB_RXC(c)->hpkt = ch->pkt;
        FAB_RXC(c)->hcrc = 0;
        FAB_RX(c)->hbad = false;
        if (ch->byte & 0x80u) { /* a to-switch byte reached a host: misrouted */
            myri_fab_drop(f, ch->pkt, MYRI_FABRIC_DROP_MISROUTED);
            FAB_RX(c)->hbad = true;
        }
    }
    if (FAB_RXC(c)->hpkt != ch->pkt) return;
    if (!ch->gap) {
        FAB_RXC(c)->hcrc = myri_crc8_update(&f->crc, FAB_RXC(c)->hcrc, &ch->byte, 1);
        return;
    }
    if (!FAB_RX(c)->hbad) {
        if (FAB_RXC(c)->hcrc == 0) myri_fab_deliver(f, ch->pkt, c->dst_node);
        else myri_fab_drop(f, ch->pkt, MYRI_FABRIC_DROP_CRC);
    }
    FAB_RXC(c)->hpkt = NULL;
    myri_fab_pkt_unref(f, ch->pkt); /* the channel's reference */
}

/* A character reaches the receiver of c: all it knows of it is the message. */
static void ref__arrive(myri_fabric *f, fab_chan *c, const fab_msg *m)
{
    /* Sent before the cable was cut (or restored) since: lost on the wire,
     * its packet dropped at the cut by the sender (fab_ref_cut_sender).  In a
     * cut run whose sender is in another partition, by the receiver: a head
     * that never arrives drops this partition's copy, dated at the cut (the
     * first claim counts, row 15), and gives back the channel's reference
     * the copy took with it (myri_fabric_take_msg). */
    if (m->epoch != c->x->rx_epoch) {
        if (m->j == 0 && c->part_cut) {
            fab_pkt *pkt = fab_pkt_at(f, m->pix);
            myri_fab_drop_at(f, pkt, MYRI_FABRIC_DROP_LINK_DOWN, FAB_RXX(c)->cut_at);
            myri_fab_pkt_unref(f, pkt);
        }
        return;
    }
    fab_rchar ch = {.pkt = fab_pkt_at(f, m->pix), .j = m->j, .byte = m->byte, .gap = m->gap, .hop = m->hop,
                    .at = fab_now(f)};
    MYRI_ASSERT(f->comp, ch.pkt->id == m->pkt_id, "channel %u: a character of packet %llu names packet %llu",
                c->id, (unsigned long long)m->pkt_id, (unsigned long long)ch.pkt->id);
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
        e = &FAB_RX(c)->rxq[(FAB_RX(c)->rxhead + FAB_RX(c)->rxcount - 1) % FAB_RX(c)->rxcap];
    }
    MYRI_ASSERT(f->comp, e->pix == ch.pkt->ix, "characters of two packets interleaved on channel %u", c->id);
    e->got++;
    FAB_RXC(c)->arrived_total++;
    bool front = e == myri_fab_rx_front(c);
    if (front && FAB_RX(c)->front == FR_SINK) {
        FAB_RXC(c)->departed_total++;
        if (ch.gap) myri_fab_front_done(f, c);
        return;
    }
    ref__ring_push(f, &FAB_RXC(c)->buf, &FAB_RXC(c)->bcap, &FAB_RXC(c)->bhead, &FAB_RXC(c)->bcount, &ch);
    FAB_RXC(c)->occ++;
    ref__check_later(f, c);
    if (front && ch.j == 0) myri_fab_front_begin(f, c);
    else if (front && FAB_RX(c)->front == FR_GRANT) { /* its output may send it once it has fallen through */
        fab_chan *o = &f->ch[FAB_RX(c)->want_out];
        ref__wake_at(f, o, fab_now(f) + fab_fall_ps(f, o));
    }
}

static void ref__check(myri_fabric *f, fab_chan *c)
{
    FAB_RX(c)->check_pending = false;
    MYRI_ASSERT(f->comp, FAB_RXC(c)->occ <= f->p.slack_size_bytes,
                "slack buffer of channel %u overflows: %llu > %llu characters", c->id,
                (unsigned long long)FAB_RXC(c)->occ, (unsigned long long)f->p.slack_size_bytes);
    if (FAB_RXC(c)->occ > FAB_RX(c)->max_slack) FAB_RX(c)->max_slack = FAB_RXC(c)->occ;
#ifdef FAB_DEBUG
    if (FAB_DEBUG < 0 || c->id == (uint32_t)FAB_DEBUG)
        fprintf(stderr, "R %llu check A %llu D %llu O %lld front %d\n", (unsigned long long)fab_now(f),
                (unsigned long long)FAB_RXC(c)->arrived_total, (unsigned long long)FAB_RXC(c)->departed_total,
                (long long)FAB_RXC(c)->occ, (int)FAB_RX(c)->front);
#endif
    if (!FAB_RX(c)->stop_sent && FAB_RXC(c)->occ >= f->p.slack_stop_bytes) myri_fab_emit_ctrl(f, c, true);
    else if (FAB_RX(c)->stop_sent && FAB_RXC(c)->occ <= f->p.slack_go_bytes) myri_fab_emit_ctrl(f, c, false);
}

static void fab_ref_handle(myri_fabric *f, const fab_ev *ev)
{
    fab_chan *c = &f->ch[ev->a];
    switch (ev->kind) {
    case EV_R_ARRIVE: {
        fab_msg m = myri_fab_msg_take(f, ev);
        ref__arrive(f, c, &m);
        break;
    }
    case EV_R_SEND: ref__send(f, c); break;
    case EV_R_CHECK: ref__check(f, c); break;
    default: myri_panic(f->comp, "reference model: unknown event kind %u", ev->kind);
    }
}

static void fab_ref_granted(myri_fabric *f, fab_chan *in, fab_chan *out)
{
    fab_rchar *fr = ref__buf_front(in);
    MYRI_ASSERT(f->comp, fr && fr->pkt == FAB_TX(out)->cur && fr->j == 0, "granted head not at the front");
    MYRI_ASSERT(f->comp, FAB_TX(out)->cur_hop > FAB_HDR || fr->byte == FAB_TX(out)->strip_byte,
                "decoded route byte differs from the real one");
    ref__depart(f, in);
    myri_fab_try_terminate(f, out);
    if (FAB_TX(out)->cur) fab_ref_wake(f, out);
}

static void fab_ref_sink(myri_fabric *f, fab_chan *in)
{
    fab_rxent *e = myri_fab_rx_front(in);
    bool gap = false;
    while (FAB_RXC(in)->bcount && fab_pkt_ix(ref__buf_front(in)->pkt) == e->pix) gap = ref__depart(f, in).gap;
    if (gap || e->fres) myri_fab_front_done(f, in);
}

/* The cable of c is cut now, the sender's half: every packet with characters
 * still on the cable is dropped (in the order sent; the one being sent first,
 * as the sender's giving up, fab__abandon, did before these drops when the
 * receiver half made them), and one whose head will never arrive gives back
 * the channel's reference.  The characters' messages are void by epoch.
 * A cable to another partition (a cut run): those packets are the
 * receiver's business, in its partition (the partly received one dropped by
 * its cut, a head that never arrives by ref__arrive, which also gives back
 * that copy's reference); the sender's copy of the last one whose head
 * crossed keeps the references taken for the absent receiver until the next
 * head (fab__absent_ref, fabric_agenda.c), and the earlier ones may be gone
 * already: the record is only forgotten. */
static void fab_ref_cut_sender(myri_fabric *f, fab_chan *c)
{
    uint64_t now = fab_now(f);
    if (FAB_TX(c)->cur) myri_fab_drop(f, FAB_TX(c)->cur, MYRI_FABRIC_DROP_LINK_DOWN);
    if (!c->x->ty) return;
    fab_tx_cold *y = FAB_TXY(c);
    for (uint32_t i = 0; i < y->scount && !c->part_cut; i++) {
        const fab_rsent *r = &y->sent[(y->shead + i) % y->scap];
        if (r->last_at <= now) continue; /* arrived whole */
        fab_pkt *pkt = fab_pkt_at(f, r->pix);
        myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_LINK_DOWN);
        if (r->head_at > now) myri_fab_pkt_unref(f, pkt); /* its head never arrives: the channel's reference */
    }
    y->shead = y->scount = 0;
}

/* The cable of c is cut now, the receiver's half: the packet partly received. */
static fab_pkt *fab_ref_cut_wire(myri_fabric *f, fab_chan *c)
{
    if (c->dst_host) {
        fab_pkt *p = FAB_RXC(c)->hpkt;
        FAB_RXC(c)->hpkt = NULL;
        return p;
    }
    if (!FAB_RX(c)->rxcount) return NULL;
    fab_rxent *e = &FAB_RX(c)->rxq[(FAB_RX(c)->rxhead + FAB_RX(c)->rxcount - 1) % FAB_RX(c)->rxcap];
    if (e->got >= fab_e_n(f, e) || e->fres || e->dead) return NULL;
    e->dead = true;
    return fab_rx_pkt(f, e);
}

static void ref__reset_window(myri_fabric *f)
{
    for (size_t i = 0; i < f->nchan; i++) FAB_RX(&f->ch[i])->max_slack = FAB_RXC(&f->ch[i])->occ;
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
    .cut_sender = fab_ref_cut_sender,
    .reset_window = ref__reset_window,
};
