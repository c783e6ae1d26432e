/* fabric_port.c -- ports: the host end of each link, where a device attaches
 * (port.h).  What both models share: attaching, a device's packets and their
 * bytes, the receive DMA's window and notices, link notices, and the
 * delivery of notices after each pass in a fixed order.  How the DMA moves
 * characters is the models' business (it is a switch output whose input is
 * the host's receiving channel).  See docs/FABRIC.md, "Ports".
 */
#include "fabric/fabric_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- construction ------------------------------------------------------------------ */

myri_status myri_fab_ports_init(myri_fabric *f)
{
    f->ports = calloc(f->nhosts ? f->nhosts : 1, sizeof *f->ports);
    if (!f->ports) return MYRI_ENOMEM;
    for (uint32_t h = 0; h < f->nhosts; h++) {
        myri_port *p = &f->ports[h];
        uint32_t hn = f->host_node[h];
        p->f = f;
        p->host = h;
        p->unit_lp = (uint32_t)f->comp->id; /* until myri_fabric_set_host_unit */
        p->out_ch = f->node[hn].out_ch[0];
        p->in_ch = f->node[hn].in_ch[0];
        p->dma = (uint32_t)(f->nchan + h);
        fab_chan *d = &f->ch[p->dma];
        d->id = p->dma;
        d->dma = true;
        d->src_node = d->dst_node = hn;
        FAB_TX(d)->src_in = -1;
        FAB_RX(d)->want_out = -1;
        FAB_TX(d)->stopped = true; /* unarmed */
    }
    return MYRI_OK;
}

myri_port *myri_fabric_port(myri_fabric *f, uint32_t host)
{
    return f && host < f->nhosts ? &f->ports[host] : NULL;
}

uint32_t myri_port_host(const myri_port *p) { return p ? p->host : 0; }

myri_status myri_port_attach(myri_port *p, const myri_port_ops *ops, void *dev)
{
    if (!p || !ops) return MYRI_EINVAL;
    myri_fabric *f = p->f;
    if (p->ops || f->started) return MYRI_ESTATE;
    p->ops = ops;
    p->dev = dev;
    f->any_dev = true;
    if (p->in_ch >= 0) {
        fab_chan *c = &f->ch[p->in_ch];
        c->dst_host = false; /* a switch input whose output is the DMA */
        c->dev_in = true;
    }
    return MYRI_OK;
}

myri_status myri_port_get_stats(const myri_port *p, myri_port_stats *out)
{
    if (!p || !out) return MYRI_EINVAL;
    *out = p->st;
    return MYRI_OK;
}

/* ---- packet bytes ------------------------------------------------------------------- */

uint8_t myri_fab_pkt_byte(const fab_pkt *pkt, uint32_t hop, uint32_t pos)
{
    uint8_t b = pkt->bytes[pos];
    for (uint32_t i = 0; i < pkt->nxl; i++)
        if (pkt->xl[i].pos == pos && pkt->xl[i].hop <= hop) b ^= pkt->xl[i].mask;
    return b;
}

void myri_fab_pkt_xor(myri_fabric *f, fab_pkt *pkt, uint32_t pos, uint32_t hop, uint8_t mask, uint8_t strip)
{
    if (pkt->nxl == pkt->capxl) {
        uint32_t nc = pkt->capxl ? 2 * pkt->capxl : 4;
        struct fab_xor *nx = realloc(pkt->xl, nc * sizeof *nx);
        if (!nx) myri_panic(f->comp, "out of memory (packet bytes)");
        pkt->xl = nx;
        pkt->capxl = nc;
    }
    pkt->xl[pkt->nxl++] = (struct fab_xor){pos, hop, mask, strip};
}

/* Room for `need` bytes of a device's packet (it grows as they are made ready). */
static void port__grow(myri_fabric *f, fab_pkt *pkt, uint32_t need)
{
    if (need <= pkt->bytes_cap) return;
    uint32_t cap = pkt->bytes_cap ? pkt->bytes_cap : 64;
    while (cap < need) cap = cap <= UINT32_MAX / 2 ? 2 * cap : need;
    uint8_t *b = realloc(pkt->bytes, cap);
    if (!b) myri_panic(f->comp, "out of memory (packet bytes)");
    pkt->bytes = b;
    pkt->bytes_cap = cap;
}

/* Bytes [filled, upto) of a device's packet are ready: copy them (the route
 * and type were copied when it was given).  The decoded copy hdr gets the
 * bit errors already suffered there.  The trailer waits for the tail
 * (myri_fab_pkt_close). */
void myri_fab_pkt_fill(myri_fabric *f, fab_pkt *pkt, uint32_t upto)
{
    uint32_t rt = pkt->route_len + f->type_bytes;
    if (!pkt->open && upto > pkt->nbytes0 - 1) upto = pkt->nbytes0 - 1;
    if (upto <= pkt->filled) return;
    port__grow(f, pkt, upto + 1); /* and the trailer's place */
    /* bytes before rt (route, type) were filled when the packet was made */
    memcpy(pkt->bytes + pkt->filled, pkt->src_payload + (pkt->filled - rt), upto - pkt->filled);
    uint32_t hdr_end = upto < FAB_HDR ? upto : FAB_HDR;
    for (uint32_t i = pkt->filled; i < hdr_end; i++) {
        uint8_t b = pkt->bytes[i];
        for (uint32_t k = 0; k < pkt->nxl; k++)
            if (pkt->xl[k].pos == i && !pkt->xl[k].strip) b ^= pkt->xl[k].mask;
        pkt->hdr[i] = b;
    }
    pkt->filled = upto;
}

/* The tail is given with `data` bytes ready: the packet's length is known
 * now, and only now.  The trailer (CRC-8 of the bytes), the payload length;
 * in the XOR list (fast model) the bit errors drawn beyond the packet go,
 * the trailer updates of the switches passed so far are made (they need the
 * length), and the bit errors so far enter the CRC syndrome. */
void myri_fab_pkt_close(myri_fabric *f, fab_pkt *pkt, uint32_t data)
{
    myri_fab_pkt_fill(f, pkt, data);
    pkt->open = false;
    pkt->nbytes0 = data + 1;
    pkt->payload_bytes = data - pkt->route_len - f->type_bytes;
    pkt->bytes[data] = myri_crc8_mulx8(&f->crc, myri_crc8_update(&f->crc, 0, pkt->bytes, data));
    pkt->filled = pkt->nbytes0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < pkt->nxl; i++) {
        struct fab_xor x = pkt->xl[i];
        if (x.strip == 2) {
            x = (struct fab_xor){data, x.hop, myri_crc8_strip_delta(&f->crc, x.mask, fab_pkt_n(pkt, x.hop)), 1};
        } else if (x.strip == 0) {
            if (x.pos > data) continue; /* beyond the trailer: never sent */
            pkt->syndrome ^= myri_crc8_shift(&f->crc, x.mask, data - x.pos);
        }
        pkt->xl[k++] = x;
    }
    pkt->nxl = k;
}

/* Characters the host may send of a device's packet with `bytes_ready`
 * bytes ready: those bytes; all, trailer and GAP included, once the tail is
 * given (as on the LANai, the CRC and the GAP follow the tail write, SMLT or
 * ST, not the last byte: a packet whose every byte is ready without its tail
 * stalls before its trailer). */
static uint32_t port__ready_chars(const fab_pkt *pkt, uint32_t bytes_ready, bool tail)
{
    return tail ? pkt->nbytes0 + 1 : bytes_ready;
}

/* ---- sending ------------------------------------------------------------------------ */

static fab_pkt *port__packet(myri_fabric *f, myri_port *p, const myri_fabric_packet *pk)
{
    myri_fabric_packet head = *pk;
    head.payload_bytes = 0; /* the length is not known before the tail */
    fab_pkt *pkt = myri_fab_pkt_new(f, &head, true);
    if (!pkt) return NULL;
    pkt->bytes_cap = pkt->nbytes0;
    pkt->nbytes0 = FAB_OPEN_BYTES;
    pkt->open = true;
    uint32_t n = 0;
    for (; n < pk->route_len; n++) pkt->bytes[n] = pk->route[n];
    for (uint32_t k = 0; k < f->type_bytes; k++)
        pkt->bytes[n++] = (uint8_t)(pk->type >> (8 * (f->type_bytes - 1 - k)));
    for (uint32_t i = 0; i < n && i < FAB_HDR; i++) pkt->hdr[i] = pkt->bytes[i];
    pkt->filled = n;
    pkt->src_payload = pk->payload;
    pkt->port = (int32_t)p->host;
    return pkt;
}

myri_status myri_port_send(myri_port *p, const myri_fabric_packet *pk, uint32_t bytes_ready, bool tail)
{
    if (!p || !pk || pk->route_len > 32 || (pk->route_len && !pk->route) ||
        (pk->payload_bytes && !pk->payload) || pk->src_host != p->host)
        return MYRI_EINVAL;
    myri_fabric *f = p->f;
    FAB_ENTRY(f, f->host_node[p->host]);
    if (!p->ops || p->tx) return MYRI_ESTATE;
    if (p->out_ch < 0) return MYRI_EINVAL;
    if (pk->payload_bytes > FAB_OPEN_BYTES - 64) return MYRI_EINVAL;
    uint32_t head = pk->route_len + f->type_bytes, room = head + pk->payload_bytes;
    if (bytes_ready > room || (tail && bytes_ready < head)) return MYRI_EINVAL;
    fab_pkt *pkt = port__packet(f, p, pk);
    if (!pkt) return MYRI_ENOMEM;
    p->tx_room = room;
    myri_fab_pkt_fill(f, pkt, bytes_ready);
    if (tail) myri_fab_pkt_close(f, pkt, bytes_ready);
    pkt->ready = port__ready_chars(pkt, bytes_ready, tail);
    p->tx = pkt;
    myri_fab_host_queue(f, &f->ch[p->out_ch], pkt);
    return MYRI_OK;
}

myri_status myri_port_send_more(myri_port *p, uint32_t bytes_ready, bool tail)
{
    if (!p) return MYRI_EINVAL;
    if (!p->tx) return MYRI_ESTATE;
    myri_fabric *f = p->f;
    FAB_ENTRY(f, f->host_node[p->host]);
    fab_pkt *pkt = p->tx;
    if (!pkt->open) { /* after its tail: nothing changes */
        uint32_t data = pkt->nbytes0 - 1;
        return bytes_ready > data || (tail && bytes_ready != data) ? MYRI_EINVAL : MYRI_OK;
    }
    if (bytes_ready > p->tx_room || (tail && bytes_ready < pkt->filled)) return MYRI_EINVAL;
    if (!tail && bytes_ready <= pkt->ready) return MYRI_OK;
    myri_fab_pkt_fill(f, pkt, bytes_ready);
    if (tail) myri_fab_pkt_close(f, pkt, bytes_ready);
    pkt->ready = port__ready_chars(pkt, bytes_ready, tail);
    fab_chan *c = &f->ch[p->out_ch];
    if (FAB_TX(c)->cur != pkt && FAB_TXC(c)->hq_head != pkt) return MYRI_OK; /* already over (dropped) */
    if (!FAB_TX(c)->run_on) f->m->wake(f, c); /* (else the fast model's run end continues it) */
    return MYRI_OK;
}

/* ---- notices ------------------------------------------------------------------------ */

static fab_note *note__new(myri_fabric *f, uint32_t host, uint32_t kind)
{
    if (f->nnotes == f->capnotes) {
        size_t nc = f->capnotes ? 2 * f->capnotes : 16;
        fab_note *nn = realloc(f->notes, nc * sizeof *nn);
        if (!nn) myri_panic(f->comp, "out of memory (port notices)");
        f->notes = nn;
        f->capnotes = nc;
    }
    fab_note *n = &f->notes[f->nnotes];
    memset(n, 0, sizeof *n);
    n->host = host;
    n->kind = kind;
    n->seq = (uint32_t)f->nnotes++;
    return n;
}

static int note__cmp(const void *a, const void *b)
{
    const fab_note *x = a, *y = b;
    if (x->host != y->host) return x->host < y->host ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static fab_note *note__record(myri_fabric *f)
{
    if (f->nnote_pool) return f->note_pool[--f->nnote_pool];
    fab_note *r = malloc(sizeof *r);
    if (!r) myri_panic(f->comp, "out of memory (port notices)");
    if (f->nnote_all == f->capnote_all) {
        size_t nc = f->capnote_all ? 2 * f->capnote_all : 16;
        fab_note **na = realloc(f->note_all, nc * sizeof *na);
        fab_note **np = realloc(f->note_pool, nc * sizeof *np);
        if (na) f->note_all = na;
        if (np) f->note_pool = np;
        if (!na || !np) myri_panic(f->comp, "out of memory (port notices)");
        f->capnote_all = f->capnote_pool = nc;
    }
    f->note_all[f->nnote_all++] = r;
    return r;
}

/* The pass over instant f->now is over: its notices go to the devices as
 * engine events at that time, by host, then tx, rx, link, then in order,
 * each scheduled and run as its host's unit (docs/PARTITION.md section 3):
 * its key, and the keys of what the device schedules in it, are the unit's,
 * so that they count no other host's events; it is in the unit's hash.
 * A notice's round must not depend on where a run's horizon falls (step 8):
 * from a pass at the engine's time (a tick at t, round r: r = 0 unless
 * another event was pending at t, in which case no pass runs ahead to t
 * either) it is r + 1; from a pass that ran ahead of the engine (fab_now > the
 * engine's now) the notices are handed to one event at their instant,
 * scheduled and run as the fabric (unhashed, round 0, after the callbacks
 * deferred in the same pass, as those made at once come before the flush),
 * which schedules them there: round 1, as from a tick at t.  The deliberate
 * fault (cb_fault 2, tests) schedules them ahead directly: round 0. */
void myri_fab_notes_flush(myri_fabric *f)
{
    qsort(f->notes, f->nnotes, sizeof *f->notes, note__cmp);
    fab_note *head = NULL, **tail = &head;
    for (size_t i = 0; i < f->nnotes; i++) {
        fab_note *r = note__record(f);
        *r = f->notes[i];
        r->next = NULL;
        *tail = r;
        tail = &r->next;
    }
    f->nnotes = 0;
    f->lim_stale = true;
    uint64_t t = fab_now(f);
    if (t == myri_sim_now(f->sim) || f->cb_fault == 2) {
        myri_fab_notes_schedule(f, head);
        return;
    }
    myri_event ev = {.target = f->comp, .kind = FAB_ENG_NOTES, .ptr = head};
    if (!myri_sim_schedule_as(f->sim, (uint32_t)f->comp->id, t, &ev))
        myri_panic(f->comp, "cannot schedule port notices");
}

void myri_fab_notes_schedule(myri_fabric *f, fab_note *n)
{
    for (fab_note *next; n; n = next) {
        next = n->next;
        myri_event ev = {.target = f->comp, .kind = FAB_ENG_NOTE, .ptr = n};
        if (!myri_sim_schedule_for(f->sim, f->ports[n->host].unit_lp, fab_now(f), &ev))
            myri_panic(f->comp, "cannot schedule a port notice");
    }
}

void myri_fab_note_deliver(myri_fabric *f, fab_note *n)
{
    myri_port *p = &f->ports[n->host];
    f->note_pool[f->nnote_pool++] = n;
    if (n->kind == FAB_NOTE_TX && p->ops->tx) p->ops->tx(p->dev, p, &n->tx);
    else if (n->kind == FAB_NOTE_RX && p->ops->rx) p->ops->rx(p->dev, p, &n->rx);
    else if (n->kind == FAB_NOTE_LINK && p->ops->link) p->ops->link(p->dev, p, n->up);
}

void myri_fab_notes_free(myri_fabric *f)
{
    for (size_t i = 0; i < f->nnote_all; i++) free(f->note_all[i]);
    free(f->note_all);
    free(f->note_pool);
    free(f->notes);
    free(f->ports);
}

/* The host sender c is done with pkt: its tail left, or it was dropped. */
void myri_fab_port_tx_over(myri_fabric *f, fab_pkt *pkt, bool sent, myri_fabric_drop_reason reason)
{
    if (pkt->port < 0) return;
    myri_port *p = &f->ports[pkt->port];
    if (p->tx != pkt) return;
    p->tx = NULL;
    if (sent) p->st.tx_packets++;
    else p->st.tx_dropped++;
    fab_note *n = note__new(f, p->host, FAB_NOTE_TX);
    n->tx = (myri_port_tx){pkt->id, sent, reason, fab_now(f)};
}

/* A link notice for the device at the receiving end of channel c. */
void myri_fab_port_link(myri_fabric *f, fab_chan *c, bool up)
{
    if (!c->dev_in) return;
    myri_port *p = &f->ports[f->node[c->dst_node].host_index];
    if (!up) {
        /* noticed link.nonidle_period after the cut, if still cut then */
        p->link_epoch = c->x->rx_epoch;
        myri_fab_push(f, fab_now(f) + f->p.nonidle_period_ps, PH_LINK, EV_PORTLINK, c->id, c->x->rx_epoch, NULL);
        return;
    }
    if (!p->told_down) return;
    p->told_down = false;
    note__new(f, p->host, FAB_NOTE_LINK)->up = true;
}

void myri_fab_port_link_due(myri_fabric *f, fab_chan *c, uint64_t epoch)
{
    myri_port *p = &f->ports[f->node[c->dst_node].host_index];
    if (!c->rx_down || c->x->rx_epoch != epoch || p->told_down) return;
    p->told_down = true;
    note__new(f, p->host, FAB_NOTE_LINK)->up = false;
}

/* ---- the receive DMA ---------------------------------------------------------------- */

myri_port *myri_fab_dma_port(myri_fabric *f, const fab_chan *dma)
{
    return &f->ports[dma->id - f->nchan];
}

/* The packet at the front of host input `in` is taken by the DMA (in the
 * decode phase, at the later of its head's arrival and the previous
 * packet's end: no path formation).  It runs when a window is armed. */
void myri_fab_port_grant(myri_fabric *f, fab_chan *in)
{
    fab_rxent *e = myri_fab_rx_front(in);
    fab_chan *o = &f->ch[f->nchan + (uint32_t)f->node[in->dst_node].host_index];
    myri_port *p = myri_fab_dma_port(f, o);
    fab_set_front(f, in, FR_GRANT);
    FAB_RX(in)->want_out = (int32_t)o->id;
    FAB_TX(o)->cur = fab_rx_pkt(f, e);
    FAB_TX(o)->cur_hop = e->hop;
    FAB_TX(o)->cur_next = 0;
    FAB_TX(o)->src_in = (int32_t)in->id;
    FAB_TX(o)->ncorr = 0;
    p->wr_j = 0;
    p->pkt_bytes = 0;
    p->crc = 0;
    p->head_ps = MYRI_TIME_NEVER;
    p->misrouted = fab_e_n(f, e) > 1 && (e->hop < FAB_HDR ? fab_hdr_byte(fab_rx_pkt(f, e), e->hop) : 0) & 0x80u;
    if (p->misrouted) myri_fab_drop(f, fab_rx_pkt(f, e), MYRI_FABRIC_DROP_MISROUTED);
    f->m->wake(f, o);
}

/* Characters [wr_j, upto) of the packet at the DMA went into the window at
 * time t each (fast model: computed from the packet's bytes and the hops'
 * XORs, as one run: copied, the XORs applied, the CRC updated over the run;
 * reference: `byte` is the one character given, upto = wr_j + 1). */
void myri_fab_port_write(myri_fabric *f, fab_chan *o, uint32_t upto, const uint8_t *byte, uint64_t first_ps)
{
    myri_port *p = myri_fab_dma_port(f, o);
    fab_pkt *pkt = FAB_TX(o)->cur;
    uint32_t data = fab_cur_n(o) - 1; /* (open: larger than any character arrived) */
    if (upto > data) upto = data;
    if (p->wr_j >= upto) return;
    if (p->head_ps == MYRI_TIME_NEVER) p->head_ps = first_ps;
    uint32_t n = upto - p->wr_j;
    MYRI_ASSERT(f->comp, p->armed && n <= p->max - p->count, "port %u: DMA writes outside its window", p->host);
    uint8_t *dst = p->buf + p->count;
    if (byte) {
        MYRI_ASSERT(f->comp, n == 1, "port %u: one character at a time", p->host);
        dst[0] = *byte;
    } else {
        uint32_t from = FAB_TX(o)->cur_hop + p->wr_j, to = FAB_TX(o)->cur_hop + upto; /* positions in the packet */
        memcpy(dst, pkt->bytes + from, n);
        for (uint32_t i = 0; i < pkt->nxl; i++) /* the bit errors of the hops so far (myri_fab_pkt_byte) */
            if (pkt->xl[i].hop <= FAB_TX(o)->cur_hop && pkt->xl[i].pos >= from && pkt->xl[i].pos < to)
                dst[pkt->xl[i].pos - from] ^= pkt->xl[i].mask;
    }
    p->crc = myri_crc8_update(&f->crc, p->crc, dst, n);
    p->count += n;
    p->wr_j = upto;
    p->pkt_bytes += n;
    p->st.rx_bytes += n;
}

/* Characters the window can still take from character j on (every one of
 * them arrived: the models never ask beyond what has): the room left, and
 * the GAP if character j or one within the room is the GAP (it needs no
 * room).  0: the window is full and character j is a byte: BUFF, decided by
 * that byte's arrival, as the DMA can know no sooner whether the packet goes
 * on (a packet that fills the window to its last byte ends with its GAP,
 * RECV_INT, not BUFF_INT).  A packet still open cannot have its GAP here. */
uint32_t myri_fab_port_room(myri_fabric *f, const fab_chan *o, uint32_t j)
{
    const myri_port *p = &f->ports[o->id - f->nchan];
    uint32_t room = p->max - p->count, data_left = fab_cur_n(o) - 1 - j;
    return data_left <= room ? fab_cur_n(o) - j : room;
}

/* The window is over: notice, and the DMA stops until the next arm.  TAIL
 * and TRUNC end the packet at the DMA (the caller frees the input). */
void myri_fab_port_rx_end(myri_fabric *f, fab_chan *o, myri_port_rx_end end)
{
    myri_port *p = myri_fab_dma_port(f, o);
    fab_pkt *pkt = FAB_TX(o)->cur;
    fab_note *n = note__new(f, p->host, FAB_NOTE_RX);
    n->rx = (myri_port_rx){.id = pkt->id, .end = end, .bytes = p->count, .pkt_bytes = p->pkt_bytes,
                           .crc_ok = end == MYRI_PORT_RX_TAIL && p->crc == 0, .crc_rem = p->crc,
                           .misrouted = p->misrouted, .head_ps = p->head_ps, .at_ps = fab_now(f) + f->skew_ps};
    if (end == MYRI_PORT_RX_TAIL) {
        p->st.rx_tail++;
        if (!p->misrouted) {
            if (p->crc == 0) myri_fab_deliver(f, pkt, o->dst_node);
            else myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_CRC);
        }
    } else if (end == MYRI_PORT_RX_BUFF) {
        p->st.rx_buff++;
    } else {
        p->st.rx_trunc++;
    }
    p->armed = false;
    p->buf = NULL;
    p->max = p->count = 0;
    FAB_TX(o)->stopped = true;
}

myri_status myri_port_rx_arm(myri_port *p, uint8_t *buf, uint32_t max_bytes)
{
    if (!p || !buf || max_bytes == 0) return MYRI_EINVAL;
    if (!p->ops || p->armed) return MYRI_ESTATE;
    myri_fabric *f = p->f;
    FAB_ENTRY(f, f->host_node[p->host]);
    p->armed = true;
    p->buf = buf;
    p->max = max_bytes;
    p->count = 0;
    fab_chan *o = &f->ch[p->dma];
    FAB_TX(o)->stopped = false;
    f->m->wake(f, o);
    return MYRI_OK;
}

bool myri_port_rx_armed(const myri_port *p) { return p && p->armed; }

uint32_t myri_port_rx_count(const myri_port *p)
{
    if (!p || !p->armed) return 0;
    FAB_ENTRY(p->f, p->f->host_node[p->host]);
    if (p->f->m->dma_sync) p->f->m->dma_sync(p->f, &p->f->ch[p->dma]);
    return p->count;
}
