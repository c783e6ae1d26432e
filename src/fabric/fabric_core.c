/* fabric_core.c -- the fabric component: packets and their accounting,
 * deferred callbacks, bit errors, construction, the API, taps and the
 * report.  Parameters are in fabric_params.c, the agenda in fabric_agenda.c,
 * switch and link logic in fabric_switch.c; how characters move is the
 * models' business (fabric_ref.c, fabric_fast.c).  See docs/FABRIC.md.
 */
#include "fabric/fabric_int.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- packets ----------------------------------------------------------------------- */

fab_pkt *myri_fab_pkt_alloc(myri_fabric *f)
{
    if (!f->free_pkts) {
        size_t n = FAB_PKT_BLOCK;
        if (f->nblocks >= FAB_PKT_NONE >> FAB_PKT_BLOCK_BITS) return NULL; /* indices are 32-bit */
        fab_pkt *blk = aligned_alloc(64, n * sizeof *blk); /* fab_pkt's first line */
        if (blk) memset(blk, 0, n * sizeof *blk);
        fab_pkt **nb = realloc(f->blocks, (f->nblocks + 1) * sizeof *nb);
        if (!blk || !nb) {
            free(blk);
            if (nb) f->blocks = nb;
            return NULL;
        }
        f->blocks = nb;
        f->blocks[f->nblocks++] = blk;
        for (size_t i = 0; i < n; i++) {
            blk[i].ix = (uint32_t)((f->nblocks - 1) * n + i);
            blk[i].next = f->free_pkts;
            f->free_pkts = &blk[i];
        }
    }
    fab_pkt *p = f->free_pkts;
    f->free_pkts = p->next;
    uint32_t ix = p->ix;
    memset(p, 0, sizeof *p);
    p->ix = ix;
    p->port = -1;
    f->live_pkts++;
    return p;
}

void myri_fab_pkt_hdr_fill(fab_pkt *pkt)
{
    uint32_t n = pkt->hdr_lazy;
    for (uint32_t i = 0; i < pkt->payload_bytes && n < FAB_HDR; i++)
        pkt->hdr[n++] = myri_packet_payload_byte(pkt->id, i);
    pkt->hdr_lazy = 0;
}

static void fab__claim_log(myri_fabric *f, const myri_fabric_claim *c);
static void fab__claim_unpend(myri_fabric *f, fab_pkt *pkt);

/* ---- a cut run's packet copies by id (docs/PARTITION.md step 7) ----
 * Open addressing with linear probing, deletion by backward shift; used only
 * when packets cross a cut cable. */
static uint32_t fab__xm_slot(uint64_t id, uint32_t cap)
{
    return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

fab_pkt *myri_fab_xmap_get(const myri_fabric *f, uint64_t id)
{
    if (!f->xm_n) return NULL;
    for (uint32_t i = fab__xm_slot(id, f->xm_cap);; i = (i + 1) & (f->xm_cap - 1)) {
        if (f->xm_ix[i] == FAB_PKT_NONE) return NULL;
        if (f->xm_id[i] == id) return fab_pkt_at(f, f->xm_ix[i]);
    }
}

static void fab__xm_grow(myri_fabric *f)
{
    uint32_t oc = f->xm_cap, nc = oc ? 2 * oc : 1024;
    uint64_t *oid = f->xm_id;
    uint32_t *oix = f->xm_ix;
    f->xm_id = malloc((size_t)nc * sizeof *f->xm_id);
    f->xm_ix = malloc((size_t)nc * sizeof *f->xm_ix);
    if (!f->xm_id || !f->xm_ix) myri_panic(f->comp, "out of memory (a cut run's packet map)");
    memset(f->xm_ix, 0xff, (size_t)nc * sizeof *f->xm_ix);
    f->xm_cap = nc;
    for (uint32_t j = 0; j < oc; j++) {
        if (oix[j] == FAB_PKT_NONE) continue;
        uint32_t i = fab__xm_slot(oid[j], nc);
        while (f->xm_ix[i] != FAB_PKT_NONE) i = (i + 1) & (nc - 1);
        f->xm_id[i] = oid[j];
        f->xm_ix[i] = oix[j];
    }
    free(oid);
    free(oix);
}

void myri_fab_xmap_put(myri_fabric *f, fab_pkt *pkt)
{
    if (pkt->xcopy) return;
    if (pkt->xclaim) { /* dropped before it crossed: now another partition may drop it too */
        fab__claim_log(f, &f->pend[pkt->xclaim - 1]);
        fab__claim_unpend(f, pkt);
    }
    if (2 * (f->xm_n + 1) > f->xm_cap) fab__xm_grow(f);
    uint32_t i = fab__xm_slot(pkt->id, f->xm_cap);
    while (f->xm_ix[i] != FAB_PKT_NONE) i = (i + 1) & (f->xm_cap - 1);
    f->xm_id[i] = pkt->id;
    f->xm_ix[i] = pkt->ix;
    f->xm_n++;
    pkt->xcopy = true;
}

void myri_fab_xmap_del(myri_fabric *f, uint64_t id)
{
    uint32_t m = f->xm_cap - 1, i = fab__xm_slot(id, f->xm_cap);
    while (f->xm_id[i] != id || f->xm_ix[i] == FAB_PKT_NONE) {
        if (f->xm_ix[i] == FAB_PKT_NONE) return;
        i = (i + 1) & m;
    }
    f->xm_n--;
    for (uint32_t j = (i + 1) & m; f->xm_ix[j] != FAB_PKT_NONE; j = (j + 1) & m) {
        uint32_t h = fab__xm_slot(f->xm_id[j], f->xm_cap);
        /* j's entry may move to the hole at i unless its home lies cyclically in (i, j] */
        if (((j - h) & m) >= ((j - i) & m)) {
            f->xm_id[i] = f->xm_id[j];
            f->xm_ix[i] = f->xm_ix[j];
            i = j;
        }
    }
    f->xm_ix[i] = FAB_PKT_NONE;
}

void myri_fab_pkt_unref(myri_fabric *f, fab_pkt *pkt)
{
    MYRI_ASSERT(f->comp, pkt->refs > 0, "packet %llu released too often", (unsigned long long)pkt->id);
    if (--pkt->refs) return;
    if (__builtin_expect(pkt->xcopy, 0)) { /* a cut run's copy: its fate may be another partition's */
        myri_fab_xmap_del(f, pkt->id);
        pkt->xcopy = false;
    } else if (!pkt->delivered && !pkt->dropped) {
        myri_panic(f->comp, "packet %llu vanished without being delivered or dropped",
                   (unsigned long long)pkt->id);
    }
    if (__builtin_expect(pkt->xclaim, 0)) fab__claim_unpend(f, pkt); /* never crossed: its drop is this partition's */
    free(pkt->bytes);
    free(pkt->xl);
    pkt->bytes = NULL;
    pkt->xl = NULL;
    pkt->next = f->free_pkts;
    f->free_pkts = pkt;
    f->live_pkts--;
}

/* The first packet of host channel c's queue, taken off it (NULL: empty). */
static fab_pkt *fab__hq_pop(fab_chan *c)
{
    fab_pkt *pkt = FAB_TXC(c)->hq_head;
    if (!pkt) return NULL;
    FAB_TXC(c)->hq_head = pkt->next;
    if (!FAB_TXC(c)->hq_head) FAB_TXC(c)->hq_tail = NULL;
    FAB_TXC(c)->hq_len--;
    return pkt;
}

void myri_fab_host_drop_down(myri_fabric *f, fab_chan *c)
{
    while (c->down && FAB_TXC(c)->hq_head) {
        fab_pkt *pkt = fab__hq_pop(c);
        myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_LINK_DOWN);
        myri_fab_port_tx_over(f, pkt, false, MYRI_FABRIC_DROP_LINK_DOWN);
        myri_fab_pkt_unref(f, pkt);
    }
}

bool myri_fab_take_next(myri_fabric *f, fab_chan *c)
{
    if (c->src_host) myri_fab_host_drop_down(f, c);
    if (!c->src_host || !FAB_TXC(c)->hq_head) return false;
    fab_pkt *pkt = fab__hq_pop(c);
    FAB_TX(c)->cur = pkt;
    f->ctr.hops++;
    FAB_TX(c)->cur_hop = 0;
    FAB_TX(c)->cur_next = 0;
    FAB_TX(c)->ncorr = myri_fab_hop_corruptions(f, pkt, c, pkt->nbytes0);
    return true;
}

uint64_t myri_fab_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

#ifdef FAB_CHECK_OWNER
/* The owner check (FAB_TX/FAB_RX, fabric_int.h): inside the pass, the half of
 * c being touched must belong to f->cur_node.  MYRI_FAB_OWNER=log prints each
 * failing place once and goes on (to list them all); otherwise it aborts. */
void myri_fab__own(const fab_chan *c, int rx, const char *file, int line)
{
    const myri_fabric *f = c->x->f;
    if (!f || (!f->in_tick && !f->own_out)) return;
    uint32_t owner = rx ? c->dst_node : c->src_node, who = f->in_tick ? f->cur_node : f->own_out - 1;
    if (who == owner) return;
    for (uint32_t i = 0; i < f->own_n && i < 16; i++)
        if (f->own_as[i] == owner) return;
    static struct { const char *file; int line, rx; } seen[256];
    static unsigned nseen;
    const char *mode = getenv("MYRI_FAB_OWNER");
    bool log = mode && strcmp(mode, "log") == 0;
    for (unsigned i = 0; log && i < nseen; i++)
        if (seen[i].line == line && seen[i].rx == rx && strcmp(seen[i].file, file) == 0) return;
    fprintf(stderr, "%s:%d: fabric owner check: %s half of channel %u (nodes %u -> %u) touched by node %u at %" PRIu64 " ps\n",
            file, line, rx ? "receiver" : "sender", c->id, c->src_node, c->dst_node, who, f->now);
    if (!log) abort();
    if (nseen < 256) seen[nseen++] = (__typeof__(seen[0])){file, line, rx};
}

/* FAB_CROSS_DO: node owns too until myri_fab__as_end(f, the depth returned). */
uint32_t myri_fab__as(const myri_fabric *cf, uint32_t node)
{
    myri_fabric *f = (myri_fabric *)cf; /* debug bookkeeping only */
    uint32_t d = f->own_n++;
    if (d < 16) f->own_as[d] = node;
    return d;
}

void myri_fab__as_end(const myri_fabric *cf, uint32_t depth)
{
    ((myri_fabric *)cf)->own_n = depth;
}

/* FAB_ENTRY: a call from outside the pass made by (for) `node`. */
fab_entry myri_fab__entry(const myri_fabric *cf, uint32_t node)
{
    myri_fabric *f = (myri_fabric *)cf;
    fab_entry e = {cf, f->own_out};
    f->own_out = node + 1;
    return e;
}

void myri_fab__entry_end(const fab_entry *e) { ((myri_fabric *)e->f)->own_out = e->old; }
#endif

/* The channel arrays, zeroed: the records' hot parts, each on its own 64-byte
 * lines (fab_chan's layout), and their other parts (fab_chanx), linked. */
static bool fab__chan_alloc(myri_fabric *f, size_t n)
{
    size_t bytes = n * sizeof(fab_chan);
    f->ch = aligned_alloc(64, bytes);
    f->chx = calloc(n, sizeof *f->chx);
    if (!f->ch || !f->chx) return false;
    memset(f->ch, 0, bytes);
    for (size_t i = 0; i < n; i++) {
        f->ch[i].x = &f->chx[i];
#ifdef FAB_CHECK_OWNER
        f->chx[i].f = f;
#endif
    }
    return true;
}

static fab_cbrec *fab__cbrec(myri_fabric *f)
{
    fab_cbrec *r = f->cb_free;
    if (r) {
        f->cb_free = r->next;
        return r;
    }
    r = malloc(sizeof *r);
    fab_cbrec **na = f->ncb_all == f->capcb_all
                         ? realloc(f->cb_all, (f->capcb_all ? 2 * f->capcb_all : 64) * sizeof *na)
                         : f->cb_all;
    if (!r || !na) myri_panic(f->comp, "out of memory (callbacks)");
    if (na != f->cb_all || f->ncb_all == f->capcb_all) {
        f->cb_all = na;
        f->capcb_all = f->capcb_all ? 2 * f->capcb_all : 64;
    }
    f->cb_all[f->ncb_all++] = r;
    return r;
}

/* Hands a callback due at time t (ahead of the engine) to an engine event at
 * t, scheduled and run as the fabric (which is unhashed, like its ticks), the
 * callback itself then run as host `host`'s unit (myri_fab_callback), as a
 * callback made at once is: so a host's keys and hash do not depend on whether
 * the fabric's pass reached t ahead of the engine, i.e. on where a run's
 * horizon falls (docs/PARTITION.md step 8).  The event takes no number of the
 * unit, and what the callback schedules at t has round 1, as from a tick at t
 * (scheduled from an earlier pass: round 0).  The deliberate fault
 * (cb_fault 1, tests) restores the old deferral: the event scheduled and run
 * as the unit (its number taken, counted in its hash). */
static void fab__defer(myri_fabric *f, fab_cbrec *r, uint64_t t, uint32_t host)
{
    f->lim_stale = true;
    myri_event ev = {.target = f->comp, .kind = FAB_ENG_CALLBACK, .ptr = r};
    r->lp = host < f->nhosts ? f->ports[host].unit_lp : (uint32_t)f->comp->id;
    myri_event_id id = f->cb_fault == 1 ? myri_sim_schedule_for(f->sim, r->lp, t, &ev)
                                        : myri_sim_schedule_as(f->sim, (uint32_t)f->comp->id, t, &ev);
    if (!id) myri_panic(f->comp, "cannot schedule a callback");
}

void myri_fabric__set_fault(myri_fabric *f, int fault)
{
    if (f) f->cb_fault = fault;
}

/* A callback made at once (the fabric is at the engine's time) runs as host
 * `host`'s unit too: what it schedules takes that unit's keys.  Returns what
 * to give back to myri_sim_act_as after it. */
static uint32_t fab__act_as_host(myri_fabric *f, uint32_t host)
{
    return myri_sim_act_as(f->sim, host < f->nhosts ? f->ports[host].unit_lp : (uint32_t)f->comp->id);
}

myri_status myri_fabric_set_host_unit(myri_fabric *f, uint32_t host, uint32_t lp)
{
    if (!f || host >= f->nhosts || lp >= myri_sim_component_count(f->sim) || !myri_sim_component(f->sim, lp))
        return MYRI_EINVAL;
    f->ports[host].unit_lp = lp;
    return MYRI_OK;
}

void myri_fab_drop(myri_fabric *f, fab_pkt *pkt, myri_fabric_drop_reason r)
{
    myri_fab_drop_at(f, pkt, r, fab_now(f));
}

/* ---- a cut run's drop claims (docs/PARTITION.md row 15; myri_fabric_claims) ----
 * A packet that crossed a cut may be dropped in two partitions: its drops
 * are logged for the gathering, which counts the first.  One dropped before
 * it crossed (a worm cut short goes on until FRES ends it, and may cross
 * later) has its drop kept pending in f->pend until it crosses
 * (myri_fab_xmap_put logs it) or is freed (forgotten): so the log holds the
 * drops of packets that crossed, the pending ones only packets alive. */
static void fab__claim_log(myri_fabric *f, const myri_fabric_claim *c)
{
    if (f->nclaims == f->capclaims) {
        size_t nc = f->capclaims ? 2 * f->capclaims : 64;
        myri_fabric_claim *na = realloc(f->claims, nc * sizeof *na);
        if (!na) myri_panic(f->comp, "out of memory (a cut run's drop claims)");
        f->claims = na;
        f->capclaims = nc;
    }
    f->claims[f->nclaims++] = *c;
}

static void fab__claim_unpend(myri_fabric *f, fab_pkt *pkt)
{
    f->pend_free[f->npend_free++] = pkt->xclaim - 1;
    pkt->xclaim = 0;
}

static __attribute__((noinline, cold)) void fab__claim(myri_fabric *f, fab_pkt *pkt, myri_fabric_drop_reason r,
                                                      uint64_t at, uint64_t term)
{
    myri_fabric_claim c = {.id = pkt->id, .t_ps = fab_now(f), .order = f->in_tick ? f->cur_ord : 0, .at_ps = at,
                           .hash = term, .node = f->in_tick ? f->cur_node : UINT32_MAX, .reason = (uint32_t)r};
    if (pkt->xcopy) {
        fab__claim_log(f, &c);
        return;
    }
    if (!f->npend_free) {
        if (f->npend == f->cappend) {
            size_t nc = f->cappend ? 2 * f->cappend : 64;
            myri_fabric_claim *np = realloc(f->pend, nc * sizeof *np);
            uint32_t *nf = np ? realloc(f->pend_free, nc * sizeof *nf) : NULL;
            if (np) f->pend = np;
            if (!np || !nf) myri_panic(f->comp, "out of memory (a cut run's drop claims)");
            f->pend_free = nf;
            f->cappend = nc;
        }
        f->pend_free[f->npend_free++] = (uint32_t)f->npend++;
    }
    uint32_t i = f->pend_free[--f->npend_free];
    f->pend[i] = c;
    pkt->xclaim = i + 1;
}

const myri_fabric_claim *myri_fabric_claims(const myri_fabric *f, size_t *n)
{
    if (n) *n = f ? f->nclaims : 0;
    return f ? f->claims : NULL;
}

size_t myri_fabric_live_packets(const myri_fabric *f) { return f ? f->live_pkts : 0; }

void myri_fab_drop_at(myri_fabric *f, fab_pkt *pkt, myri_fabric_drop_reason r, uint64_t at)
{
    if (pkt->dropped || pkt->delivered) return;
    pkt->dropped = true;
    uint64_t now = fab_now(f);
    f->ctr.dropped[r]++;
    f->ctr.dropped_total++;
    /* Order-independent (sum) so that same-instant callbacks may come in any order. */
    uint64_t term = myri_fab_mix(pkt->id * 31 + 7 * (uint64_t)r + 0x51ed);
    f->ctr.result_hash += term;
    if (__builtin_expect(f->part_owner != NULL, 0)) fab__claim(f, pkt, r, at, term); /* another partition may too */
    if (!f->cb.dropped) return;
    if (now == myri_sim_now(f->sim)) {
        f->lim_stale = true;
        uint32_t was = fab__act_as_host(f, pkt->src_host);
        f->cb.dropped(f->cb.ctx, pkt->id, r, at);
        myri_sim_act_as(f->sim, was);
        return;
    }
    fab_cbrec *rec = fab__cbrec(f);
    rec->delivered = false;
    rec->id = pkt->id;
    rec->reason = r;
    rec->at = at;
    fab__defer(f, rec, now, pkt->src_host); /* the source's unit (the packet's owner) */
}

void myri_fab_deliver(myri_fabric *f, fab_pkt *pkt, uint32_t dst_node)
{
    if (pkt->dropped || pkt->delivered) return;
    pkt->delivered = true;
    uint64_t now = fab_now(f) + f->skew_ps;
    /* a corrupted route byte the CRC-8 missed: not for this host */
    bool mis = pkt->dst_known && (uint32_t)f->node[dst_node].host_index != pkt->dst_host;
    if (mis) {
        f->ctr.misdelivered++;
        f->ctr.result_hash += myri_fab_mix(pkt->id ^ myri_fab_mix(now + 0x3c6e));
    } else {
        f->ctr.delivered++;
        f->ctr.delivered_payload_bytes += pkt->payload_bytes;
        f->ctr.result_hash += myri_fab_mix(pkt->id ^ myri_fab_mix(now + 0x9e37));
    }
    void (*fn)(void *, const myri_fabric_delivery *) = mis ? f->cb_mis : f->cb.delivered;
    if (!fn) return;
    myri_fabric_delivery d = {
        .id = pkt->id, .src_host = pkt->src_host,
        .dst_host = (uint32_t)f->node[dst_node].host_index, .payload_bytes = pkt->payload_bytes,
        .type = pkt->type, .queued_ps = pkt->queued_ps, .head_sent_ps = pkt->head_ps,
        .tail_ps = now, .crc_ok = true};
    if (fab_now(f) == myri_sim_now(f->sim)) {
        f->lim_stale = true;
        uint32_t was = fab__act_as_host(f, d.dst_host);
        fn(f->cb.ctx, &d);
        myri_sim_act_as(f->sim, was);
    } else {
        fab_cbrec *rec = fab__cbrec(f);
        rec->delivered = true;
        rec->misdelivered = mis;
        rec->d = d;
        fab__defer(f, rec, fab_now(f), d.dst_host); /* where it arrived */
    }
}

/* A deferred callback's event (run as the fabric): the callback as the host's unit (fab__defer). */
void myri_fab_callback(myri_fabric *f, fab_cbrec *r)
{
    uint32_t was = myri_sim_act_as(f->sim, r->lp);
    if (r->delivered) (r->misdelivered ? f->cb_mis : f->cb.delivered)(f->cb.ctx, &r->d);
    else f->cb.dropped(f->cb.ctx, r->id, r->reason, r->at);
    myri_sim_act_as(f->sim, was);
    r->next = f->cb_free;
    f->cb_free = r;
}

/* Bit errors: the error positions of packet `pkt` on channel c come from a
 * random stream keyed by (seed, packet id, channel), so that both models (and
 * any event order) see the same errors.  Bits are skipped geometrically from
 * the first, so the positions do not depend on the length: nbytes only cuts
 * the list.  A device's packet whose tail is not given yet has the length
 * FAB_OPEN_BYTES here (the first FAB_MAX_CORR positions are drawn; those
 * beyond its real end are never sent, and myri_fab_pkt_close drops them from
 * the fast model's XOR list), which gives the same errors as its length. */
uint32_t myri_fab_corruptions(myri_fabric *f, const fab_pkt *pkt, uint32_t c, uint32_t nbytes,
                         fab_corr *out)
{
    uint32_t n = 0;
    for (size_t i = 0; i < f->nscripts && n < FAB_MAX_CORR; i++) {
        const fab_script *s = &f->scripts[i];
        if (s->id == pkt->id && s->channel == c && s->index < nbytes)
            out[n++] = (fab_corr){s->index, s->mask};
    }
    if (f->p.ber > 0 && n < FAB_MAX_CORR) {
        uint64_t st = f->ber_seed ^ myri_fab_mix(pkt->id * 0x100000001b3ull + c);
        double lq = log1p(-f->p.ber);
        uint64_t bit = 0, nbits = (uint64_t)nbytes * 8;
        for (;;) {
            double u = (double)(myri_splitmix64(&st) >> 11) * 0x1.0p-53;
            double skip = floor(log1p(-u) / lq);
            if (skip >= (double)(nbits - bit)) break;
            bit += (uint64_t)skip;
            out[n++] = (fab_corr){(uint32_t)(bit / 8), (uint8_t)(0x80u >> (bit % 8))};
            if (n == FAB_MAX_CORR) break; /* the first ones only: none after them is applied */
            bit++;
            if (bit >= nbits) break;
        }
    }
    return n;
}

uint32_t myri_fab_hop_corruptions(myri_fabric *f, const fab_pkt *pkt, fab_chan *c, uint32_t nbytes)
{
    if (f->nscripts == 0 && !(f->p.ber > 0)) return 0;
    fab_corr tmp[FAB_MAX_CORR];
    uint32_t n = myri_fab_corruptions(f, pkt, c->id, nbytes, tmp);
    if (n) memcpy(FAB_TXC(c)->corr, tmp, n * sizeof *tmp);
    return n;
}

static void *fab__cold_alloc(const fab_chan *c, size_t bytes)
{
    void *p = calloc(1, bytes);
    if (!p) {
        fprintf(stderr, "myri: out of memory (channel %u)\n", c->id);
        abort();
    }
    return p;
}

fab_tx_cold *myri_fab_txcold_make(fab_chan *c) { return c->x->ty = fab__cold_alloc(c, sizeof *c->x->ty); }
fab_rx_cold *myri_fab_rxcold_make(fab_chan *c) { return c->x->ry = fab__cold_alloc(c, sizeof *c->x->ry); }

/* ---- construction ------------------------------------------------------------------ */

static void fab__destroy(myri_component *self)
{
    myri_fabric *f = self->state;
    if (!f) return;
        for (size_t i = 0; i < f->nchan + f->nhosts; i++) { /* links, then the ports' DMAs */
        fab_chan *c = &f->ch[i]; /* rxq and runs: in the ring arena (myri_fab_ring_fini) */
        if (c->x->ty) {
            free(FAB_TXY(c)->sent);
            free(FAB_TXY(c)->tap_buf);
            free(c->x->ty);
        }
        if (c->x->ry) {
            free(FAB_RXY(c)->buf);
            free(c->x->ry);
        }
    }
    myri_fab_ring_fini(f);
    for (size_t b = 0; b < f->nblocks; b++) {
        for (size_t i = 0; i < 1024; i++) {
            free(f->blocks[b][i].bytes);
            free(f->blocks[b][i].xl);
        }
        free(f->blocks[b]);
    }
    for (size_t i = 0; i < f->nnodes; i++) {
        free(f->node[i].in_ch);
        free(f->node[i].out_ch);
        free(f->node_name[i]);
    }
    free(f->node_name);
    free(f->blocks);
    free(f->node);
    free(f->ch);
    free(f->chx);
    free(f->host_node);
    free(f->heap);
    free(f->far);
    free(f->cal_head);
    free(f->cs);
    free(f->cq);
    free(f->msg);
    free(f->xm_id);
    free(f->xm_ix);
    free(f->xlast);
    free(f->xlast_n);
    free(f->claims);
    free(f->pend);
    free(f->pend_free);
    free(f->cq_pos);
    free(f->pool);
    myri_fab_msg_fini(f);
    free(f->pfree);
    for (int q = 0; q < 8; q++) free(f->fifo[q].slot);
    free(f->dirty);
    for (size_t i = 0; i < f->ncb_all; i++) free(f->cb_all[i]);
    free(f->cb_all);
    free(f->scripts);
    free(f->taps);
    myri_fab_notes_free(f);
    free(f);
    self->state = NULL;
}

/* The config is the fabric being created by myri_fabric_create in this
 * simulation; anything else (NULL, a fabric of another simulation, one
 * already registered: it would be freed twice) is MYRI_EINVAL. */
static myri_status fab__create_cb(myri_component *self, const void *config)
{
    myri_fabric *f = (myri_fabric *)config;
    if (!f || f->comp || f->sim != self->sim) return MYRI_EINVAL;
    self->state = f;
    f->comp = self;
    return MYRI_OK;
}

static void fab__report_cb(myri_component *self, myri_json *out) { myri_fabric_report(self->state, out); }

const myri_component_ops myri_fabric_ops = {
    .type = "fabric",
    .help = "Myrinet links, switches and packets (seed 002)",
    .create = fab__create_cb,
    .handle = myri_fab_handle,
    .report = fab__report_cb,
    .destroy = fab__destroy,
};

static myri_status fab__topo_err(myri_error *err, const char *fmt, const char *name)
{
    if (err) {
        snprintf(err->msg, sizeof err->msg, fmt, name);
        myri_error_set_node(err, name);
    }
    return MYRI_EINPUT;
}

/* Seed 002: the part of the slack buffer above the STOP line prevents
 * overrun.  After the buffer reaches STOP, the sender goes on until STOP
 * reaches it: the receiver's control delay plus the propagation back, while
 * the characters already on the cable (one propagation delay) keep arriving,
 * plus the character in progress and one being decoded.  A configuration
 * whose headroom is smaller than that for some cable would overflow, which
 * is an input error here rather than a broken invariant during the run. */
static myri_status fab__check_headroom(const myri_fabric *f, uint64_t prop_ps, double len_m, myri_error *err)
{
    uint64_t in_flight_ps = f->p.ctrl_delay_ps + 2 * prop_ps;
    uint64_t need = (in_flight_ps + f->T - 1) / f->T + 2;
    uint64_t have = f->p.slack_size_bytes - f->p.slack_stop_bytes;
    if (have >= need) return MYRI_OK;
    if (err)
        myri_error_key(err, "link.slack.stop",
                       "%llu characters above the STOP line cannot absorb the %llu that arrive "
                       "after STOP on a %.3g m cable; expected link.slack.size - link.slack.stop >= %llu",
                       (unsigned long long)have, (unsigned long long)need, len_m, (unsigned long long)need);
    return MYRI_EINPUT;
}

static myri_status fab__build(myri_fabric *f, const myri_topo *t, myri_error *err)
{
    f->nnodes = t->nnodes;
    f->nchan = 2 * t->nlinks;
    f->nhosts = t->nhosts;
    /* Narrower calendar buckets for larger networks: the channels' character
     * grids have unrelated phases, so a bucket holds about nchan / 2 events
     * per half character time and an insert walks them (sorted buckets).
     * Halving the width per doubling of the channels above 2048 keeps the
     * buckets short (measured with bench_scale: 4096 hosts 1.5x faster); the
     * order of events is the key's, whatever the buckets: results unchanged. */
    for (size_t n = f->nchan / 2048; n > 1 && f->cal_shift > 0; n /= 2) f->cal_shift--;
    f->node = calloc(t->nnodes ? t->nnodes : 1, sizeof *f->node);
    f->node_name = calloc(t->nnodes ? t->nnodes : 1, sizeof *f->node_name);
    bool chans = fab__chan_alloc(f, f->nchan + f->nhosts + 1); /* links, then one DMA per host */
    f->host_node = calloc(t->nhosts ? t->nhosts : 1, sizeof *f->host_node);
    /* f->taps: made by the first myri_fabric_set_tap (16 bytes a channel that a run without taps never reads) */
    if (!f->node || !chans || !f->host_node || !f->node_name) return MYRI_ENOMEM;
    for (size_t i = 0; i < t->nnodes; i++) {
        const myri_topo_node *tn = &t->node[i];
        fab_node *n = &f->node[i];
        n->host = tn->kind == MYRI_TOPO_HOST;
        n->nports = tn->nports;
        n->host_index = tn->host_index;
        f->node_name[i] = strdup(tn->name ? tn->name : "?");
        if (!f->node_name[i]) return MYRI_ENOMEM;
        if (n->host ? tn->nports != 1
                    : (tn->nports != 4 && tn->nports != 8 && tn->nports != 16 && tn->nports != 32))
            return fab__topo_err(err, "node '%s': hosts have 1 port, switches 4, 8, 16 or 32",
                                 f->node_name[i]);
        n->in_ch = malloc(tn->nports * sizeof *n->in_ch);
        n->out_ch = malloc(tn->nports * sizeof *n->out_ch);
        if (!n->in_ch || !n->out_ch) return MYRI_ENOMEM;
        for (uint32_t p = 0; p < tn->nports; p++) n->in_ch[p] = n->out_ch[p] = -1;
    }
    for (size_t h = 0; h < t->nhosts; h++) f->host_node[h] = t->host_node[h];
    for (size_t l = 0; l < t->nlinks; l++) {
        const myri_topo_link *lk = &t->link[l];
        if (lk->a_node >= t->nnodes || lk->b_node >= t->nnodes ||
            lk->a_port >= f->node[lk->a_node].nports || lk->b_port >= f->node[lk->b_node].nports)
            return fab__topo_err(err, "link %s: end point out of range", "?");
        double len = lk->length_m > 0 ? lk->length_m : f->p.length_m;
        /* Propagation: length / (prop_speed * c), c = 299 792 458 m/s. */
        uint64_t prop = (uint64_t)floor(len / (f->p.prop_speed_c * 299792458.0) * 1e12 + 0.5);
        for (int dir = 0; dir < 2; dir++) {
            fab_chan *c = &f->ch[2 * l + (size_t)dir];
            c->id = (uint32_t)(2 * l + (size_t)dir);
            c->src_node = dir ? lk->b_node : lk->a_node;
            c->src_port = dir ? lk->b_port : lk->a_port;
            c->dst_node = dir ? lk->a_node : lk->b_node;
            c->dst_port = dir ? lk->a_port : lk->b_port;
            c->src_host = f->node[c->src_node].host;
            c->dst_host = f->node[c->dst_node].host;
            c->d_ps = f->T + prop;
            FAB_TX(c)->src_in = -1;
            FAB_RX(c)->want_out = -1;
            f->node[c->src_node].out_ch[c->src_port] = (int32_t)c->id;
            f->node[c->dst_node].in_ch[c->dst_port] = (int32_t)c->id;
        }
        myri_status st = fab__check_headroom(f, prop, len, err);
        if (st) return st;
    }
    return MYRI_OK;
}

myri_status myri_fabric_create(myri_sim *sim, const myri_topo *topo, const myri_fabric_params *p,
                               const myri_fabric_callbacks *cb, myri_fabric **out, myri_error *err)
{
    if (!sim || !topo || !p || !out) return MYRI_EINVAL;
    *out = NULL;
    myri_fabric *f = calloc(1, sizeof *f);
    if (!f) return MYRI_ENOMEM;
    f->p = *p;
    myri_status st = myri_fabric_params_check(&f->p, err);
    if (st) {
        free(f);
        return st;
    }
    f->sim = sim;
    if (cb) f->cb = *cb;
    myri_crc8_init(&f->crc, (uint8_t)f->p.crc_poly);
    f->T = myri_fabric_char_ps(&f->p);
    f->T_inv = UINT64_MAX / f->T;
    /* Calendar buckets of about half a character time (< T). */
    while ((2ull << f->cal_shift) <= f->T && f->cal_shift < 40) f->cal_shift++;
    if (f->cal_shift) f->cal_shift--;
    f->R = f->p.switch_route_ps;
    f->fall = f->p.switch_latency_ps > f->T ? f->p.switch_latency_ps - f->T : 0;
    f->type_bytes = (uint32_t)f->p.type_bytes;
    f->m = f->p.model == MYRI_FABRIC_FAST ? &myri_fab_model_fast : &myri_fab_model_ref;
    f->tick_at = MYRI_TIME_NEVER;
    f->last_instant = MYRI_TIME_NEVER;
    uint64_t s = myri_sim_seed(sim) ^ 0xfab1c5eedull;
    f->ber_seed = myri_splitmix64(&s);
    /* Register first so that the component owns f (freed by myri_sim_destroy). */
    st = myri_sim_add(sim, &myri_fabric_ops, "fabric", f, NULL);
    if (st) {
        free(f);
        return st;
    }
    /* Its own events (ticks, catch-ups) are partition machinery, in no unit's
     * hash; notices and callbacks run as the hosts' units (fab__defer). */
    myri_sim_set_unhashed(sim, (uint32_t)f->comp->id);
    st = fab__build(f, topo, err);
    if (st) return st; /* f is freed with the simulation */
    st = myri_fab_ports_init(f);
    if (st) return st;
    f->cal_head = malloc(FAB_CAL_N * sizeof *f->cal_head);
    if (!f->cal_head) return MYRI_ENOMEM;
    memset(f->cal_head, 0xff, FAB_CAL_N * sizeof *f->cal_head);
    st = myri_fab_agenda_init(f, err);
    if (st) return st;
    f->dirty = calloc(f->nchan ? f->nchan : 1, sizeof *f->dirty);
    f->cq = calloc(f->nchan ? f->nchan : 1, sizeof *f->cq);
    f->cq_pos = malloc((f->nchan ? f->nchan : 1) * sizeof *f->cq_pos);
    f->cq_top_at = UINT64_MAX;
    if (!f->dirty || !f->cq || !f->cq_pos) return MYRI_ENOMEM;
    for (size_t i = 0; i < f->nchan; i++) {
        FAB_RX(&f->ch[i])->pred_at = MYRI_TIME_NEVER;
        f->cq_pos[i] = -1;
    }
    *out = f;
    return MYRI_OK;
}

/* ---- API ------------------------------------------------------------------------------ */

/* A new packet of host pk->src_host at the current time, with its first-hop
 * bytes if `with_bytes` (given later by fill for a device's packet when
 * `partial`): one reference, the host channel's, until GAP or FRES reaches
 * its receiver.  NULL when out of memory. */
fab_pkt *myri_fab_pkt_new(myri_fabric *f, const myri_fabric_packet *pk, bool with_bytes)
{
    fab_pkt *pkt = myri_fab_pkt_alloc(f);
    if (!pkt) return NULL;
    pkt->id = pk->id;
    pkt->src_host = pk->src_host;
    pkt->dst_host = pk->dst_host;
    pkt->dst_known = pk->dst_known;
    pkt->type = pk->type;
    pkt->payload_bytes = pk->payload_bytes;
    pkt->route_len = pk->route_len;
    pkt->nbytes0 = pk->route_len + f->type_bytes + pk->payload_bytes + 1;
    pkt->queued_ps = pk->created_ps && pk->created_ps < fab_now(f) ? pk->created_ps : fab_now(f);
    pkt->refs = 1;
    if (with_bytes && !(pkt->bytes = malloc(pkt->nbytes0))) {
        pkt->dropped = true; /* never injected */
        myri_fab_pkt_unref(f, pkt);
        return NULL;
    }
    return pkt;
}

/* The packet joins its host's queue (channel c) and the host may send. */
void myri_fab_host_queue(myri_fabric *f, fab_chan *c, fab_pkt *pkt)
{
    if (FAB_TXC(c)->hq_tail) FAB_TXC(c)->hq_tail->next = pkt;
    else FAB_TXC(c)->hq_head = pkt;
    FAB_TXC(c)->hq_tail = pkt;
    FAB_TXC(c)->hq_len++;
    f->ctr.injected++;
    f->started = true;
    if (!FAB_TX(c)->cur) f->m->wake(f, c); /* else taken after the packet being sent */
}

myri_status myri_fabric_send(myri_fabric *f, const myri_fabric_packet *pk)
{
    if (!f || !pk || pk->src_host >= f->nhosts || pk->route_len > 32 || (pk->route_len && !pk->route))
        return MYRI_EINVAL;
    uint32_t hn = f->host_node[pk->src_host];
    if (f->node[hn].out_ch[0] < 0) return MYRI_EINVAL;
    if (f->ports[pk->src_host].ops) return MYRI_ESTATE; /* the device owns the port: myri_port_send */
    FAB_ENTRY(f, hn);
    fab_pkt *pkt = myri_fab_pkt_new(f, pk, f->m->carries_bytes || f->any_tap || f->any_dev);
    if (!pkt) return MYRI_ENOMEM;
    size_t n = 0;
    for (; n < pk->route_len && n < FAB_HDR; n++) pkt->hdr[n] = pk->route[n];
    for (uint32_t k = 0; k < f->type_bytes && n < FAB_HDR; k++)
        pkt->hdr[n++] = (uint8_t)(pk->type >> (8 * (f->type_bytes - 1 - k)));
    if (pk->payload)
        for (uint32_t i = 0; i < pk->payload_bytes && n < FAB_HDR; i++) pkt->hdr[n++] = pk->payload[i];
    else if (pk->payload_bytes && n < FAB_HDR)
        pkt->hdr_lazy = (uint8_t)n; /* > 0: type_bytes >= 2 */
    pkt->filled = pkt->nbytes0; /* an ideal host has the whole packet */
    pkt->ready = pkt->nbytes0 + 1;
    if (pkt->bytes)
        myri_packet_build(&f->crc, pk->id, pk->route, pk->route_len, pk->type, f->type_bytes,
                          pk->payload, pk->payload_bytes, pkt->bytes);
    myri_fab_host_queue(f, &f->ch[f->node[hn].out_ch[0]], pkt);
    return MYRI_OK;
}

void myri_fabric_set_misdelivered(myri_fabric *f, void (*fn)(void *ctx, const myri_fabric_delivery *d))
{
    if (f) f->cb_mis = fn;
}

size_t myri_fabric_host_queued(const myri_fabric *f, uint32_t host)
{
    if (!f || host >= f->nhosts) return 0;
    int32_t ch = f->node[f->host_node[host]].out_ch[0];
    return ch < 0 || !f->ch[ch].x->ty ? 0 : FAB_TXY(&f->ch[ch])->hq_len;
}

/* A cut or restore of `link` at at_ps may be asked: at set-up (nothing sent
 * yet, the clock not moved) at any time from now; while running only at
 * now + the link's lookahead or later (T + its propagation, the smaller of its
 * two channels' d_ps), so that each end of the cable could be told in time by
 * a message (docs/PARTITION.md row 11). */
static bool fab__link_time_ok(const myri_fabric *f, size_t link, myri_time_ps at_ps)
{
    if (at_ps == MYRI_TIME_NEVER) return false;
    uint64_t now = fab_now(f);
    if (!f->started && !f->in_tick && now == 0) return at_ps >= now;
    uint64_t la = f->ch[2 * link].d_ps < f->ch[2 * link + 1].d_ps ? f->ch[2 * link].d_ps : f->ch[2 * link + 1].d_ps;
    return at_ps >= now && at_ps - now >= la;
}

myri_status myri_fabric_cut_link(myri_fabric *f, size_t link, myri_time_ps at_ps)
{
    if (!f || 2 * link >= f->nchan || !fab__link_time_ok(f, link, at_ps)) return MYRI_EINVAL;
    /* One event per half, run by its owner, keyed by the link (its first
     * channel's sender as origin): per channel the sender's half first. */
    uint32_t origin = f->ch[2 * link].src_node;
    for (uint32_t d = 0; d < 2; d++) {
        myri_fab_push_from(f, origin, at_ps, PH_LINK, EV_CUT_TX, (uint32_t)(2 * link + d));
        myri_fab_push_from(f, origin, at_ps, PH_LINK, EV_CUT_RX, (uint32_t)(2 * link + d));
    }
    return MYRI_OK;
}

myri_status myri_fabric_restore_link(myri_fabric *f, size_t link, myri_time_ps at_ps)
{
    if (!f || 2 * link >= f->nchan || !fab__link_time_ok(f, link, at_ps)) return MYRI_EINVAL;
    /* as a cut, but per channel the receiver's half first (GO before the wake) */
    uint32_t origin = f->ch[2 * link].src_node;
    for (uint32_t d = 0; d < 2; d++) {
        myri_fab_push_from(f, origin, at_ps, PH_LINK, EV_RESTORE_RX, (uint32_t)(2 * link + d));
        myri_fab_push_from(f, origin, at_ps, PH_LINK, EV_RESTORE_TX, (uint32_t)(2 * link + d));
    }
    return MYRI_OK;
}

myri_status myri_fabric_corrupt(myri_fabric *f, uint64_t id, size_t channel, uint32_t index,
                                uint8_t mask)
{
    if (!f || channel >= f->nchan || mask == 0) return MYRI_EINVAL;
    if (f->nscripts == f->capscripts) {
        size_t nc = f->capscripts ? 2 * f->capscripts : 8;
        fab_script *ns = realloc(f->scripts, nc * sizeof *ns);
        if (!ns) return MYRI_ENOMEM;
        f->scripts = ns;
        f->capscripts = nc;
    }
    f->scripts[f->nscripts++] = (fab_script){id, (uint32_t)channel, index, mask};
    return MYRI_OK;
}

myri_status myri_fabric_set_tap(myri_fabric *f, size_t channel, myri_fabric_tap_fn fn, void *ctx)
{
    if (!f || channel >= f->nchan) return MYRI_EINVAL;
    if (!f->taps && !(f->taps = calloc(f->nchan + f->nhosts + 1, sizeof *f->taps))) return MYRI_ENOMEM;
    f->taps[channel] = (fab_tap){fn, ctx};
    if (fn) f->any_tap = true;
    return MYRI_OK;
}

bool myri_fab_tap_reserve(fab_chan *c, size_t n)
{
    if (n <= FAB_TXC(c)->tap_cap) return true;
    size_t nc = FAB_TXC(c)->tap_cap ? FAB_TXC(c)->tap_cap : 256;
    while (nc < n) nc *= 2;
    uint8_t *nb = realloc(FAB_TXC(c)->tap_buf, nc);
    if (!nb) return false;
    FAB_TXC(c)->tap_buf = nb;
    FAB_TXC(c)->tap_cap = nc;
    return true;
}

void myri_fab_tap_done(myri_fabric *f, fab_chan *c, size_t nbytes, bool truncated)
{
    fab_tap none = {0}, *t = f->taps ? &f->taps[c->id] : &none; /* no taps yet: none */
    if (FAB_TX(c)->tap_on && t->fn && !f->m->carries_bytes) { /* the bytes on this hop: the sender's and the hops' XORs */
        if (!myri_fab_tap_reserve(c, nbytes)) myri_panic(f->comp, "out of memory (tap)");
        for (size_t i = 0; i < nbytes; i++)
            FAB_TXC(c)->tap_buf[i] = myri_fab_pkt_byte(FAB_TX(c)->cur, FAB_TX(c)->cur_hop, FAB_TX(c)->cur_hop + (uint32_t)i);
    }
    if (FAB_TX(c)->tap_on && t->fn) t->fn(t->ctx, c->id, FAB_TXC(c)->tap_first, FAB_TXC(c)->tap_buf, nbytes, truncated);
    FAB_TX(c)->tap_on = false;
}

void myri_fabric_get_counters(const myri_fabric *f, myri_fabric_counters *out)
{
    if (!f || !out) return;
    *out = f->ctr;
    out->in_flight = f->ctr.injected - f->ctr.delivered - f->ctr.misdelivered - f->ctr.dropped_total;
}

size_t myri_fabric_channel_count(const myri_fabric *f) { return f ? f->nchan : 0; }

/* Brings every channel's statistics up to now (linear in the channels). */
static void fab__sync_stats(myri_fabric *f)
{
    f->stats_syncs++;
    if (f->m->finish_stats) f->m->finish_stats(f);
}

uint64_t myri_fabric__test_stats_syncs(const myri_fabric *f) { return f ? f->stats_syncs : 0; }

/* The statistics of one channel, its counters already brought up to now. */
static void fab__chan_stats(const myri_fabric *f, size_t channel, myri_fabric_channel_stats *out)
{
    const fab_chan *c = &f->ch[channel];
    *out = c->x->st;
    out->max_slack_bytes = FAB_RX(c)->max_slack;
    if (f->m->extra_chars) out->chars += f->m->extra_chars(f, c);
    out->busy_ps = out->chars * f->T;
    if (FAB_TX(c)->stopped) {
        uint64_t now = fab_now(f);
        uint64_t from = FAB_TXX(c)->stopped_since > fab_win_start(f, c) ? FAB_TXX(c)->stopped_since : fab_win_start(f, c);
        if (now > from) out->stopped_ps += now - from;
    }
}

myri_status myri_fabric_get_channel_stats(const myri_fabric *f, size_t channel,
                                          myri_fabric_channel_stats *out)
{
    if (!f || !out || channel >= f->nchan) return MYRI_EINVAL;
    fab__sync_stats((myri_fabric *)f);
    fab__chan_stats(f, channel, out);
    return MYRI_OK;
}

myri_status myri_fabric_get_all_channel_stats(const myri_fabric *f, myri_fabric_channel_stats *out, size_t n)
{
    if (!f || !out || n != f->nchan) return MYRI_EINVAL;
    fab__sync_stats((myri_fabric *)f); /* once for all: linear */
    for (size_t ch = 0; ch < n; ch++) fab__chan_stats(f, ch, &out[ch]);
    return MYRI_OK;
}

void myri_fabric_reset_stats(myri_fabric *f)
{
    if (!f) return;
    fab__sync_stats(f);
    uint64_t now = fab_now(f);
    f->win_start = now;
    for (size_t i = 0; i < f->nchan; i++) {
        memset(&f->ch[i].x->st, 0, sizeof f->ch[i].x->st);
        FAB_RX(&f->ch[i])->max_slack = 0;
    }
    f->m->reset_window(f);
}

uint64_t myri_fabric_char_time_ps(const myri_fabric *f) { return f ? f->T : 0; }

void myri_fabric__test_skew(myri_fabric *f, myri_time_ps extra_ps)
{
    if (f) f->skew_ps = extra_ps;
}

static void fab__report_dir_st(myri_json *j, const char *key, const myri_fabric_channel_stats *s, uint64_t win)
{
    myri_json_key(j, key);
    myri_json_obj_begin(j);
    myri_json_knum(j, "utilisation", win ? (double)s->busy_ps / (double)win : 0.0);
    myri_json_knum(j, "stopped_fraction", win ? (double)s->stopped_ps / (double)win : 0.0);
    myri_json_kuint(j, "chars", s->chars);
    myri_json_kuint(j, "stops", s->stops);
    myri_json_kuint(j, "gos", s->gos);
    myri_json_kuint(j, "max_slack_bytes", s->max_slack_bytes);
    myri_json_kuint(j, "truncated", s->truncated);
    myri_json_kuint(j, "fres", s->fres);
    myri_json_obj_end(j);
}

/* "links" and "dropped" from given figures: a cut run's gathered ones, or
 * myri_fabric_report's. */
void myri_fabric_report_stats(const myri_fabric *f, const myri_fabric_channel_stats *st, const uint64_t *dropped,
                              myri_json *j)
{
    if (!f || !st || !dropped || !j) return;
    uint64_t now = fab_now(f);
    myri_json_key(j, "links");
    myri_json_arr_begin(j);
    for (size_t l = 0; 2 * l < f->nchan; l++) {
        const fab_chan *ab = &f->ch[2 * l];
        uint64_t win = now > fab_win_start(f, ab) ? now - fab_win_start(f, ab) : 0;
        myri_json_obj_begin(j);
        myri_json_kuint(j, "link", l);
        myri_json_kstr(j, "a", f->node_name[ab->src_node]);
        myri_json_kstr(j, "b", f->node_name[ab->dst_node]);
        fab__report_dir_st(j, "ab", &st[2 * l], win);
        fab__report_dir_st(j, "ba", &st[2 * l + 1], win);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_key(j, "dropped");
    myri_json_obj_begin(j);
    for (int r = 0; r < MYRI_FABRIC_DROP_NREASONS; r++)
        myri_json_kuint(j, myri_fabric_drop_name((myri_fabric_drop_reason)r), dropped[r]);
    myri_json_obj_end(j);
}

/* The "links" and "dropped" members, written by myri_fabric_report_stats
 * from every channel's statistics, as a cut run's
 * gathered figures are. */
void myri_fabric_report(myri_fabric *f, myri_json *j)
{
    if (!f || !j) return;
    myri_fabric_channel_stats *st = calloc(f->nchan ? f->nchan : 1, sizeof *st);
    if (!st) myri_panic(f->comp, "out of memory (fabric report)");
    myri_fabric_get_all_channel_stats(f, st, f->nchan);
    myri_fabric_report_stats(f, st, f->ctr.dropped, j);
    free(st);
}
