/* fabric_agenda.c -- the fabric's own agenda: events keyed by (time, phase,
 * origin node, origin's sequence) in per-phase FIFOs for the current instant, a calendar for the
 * next ~17 us, a heap beyond it and a heap of long-period timers; the
 * predicted-check queue of the fast model; and the engine event that runs the
 * fabric's instants (the same-instant rule).  See docs/FABRIC.md, "Agenda".
 */
#include "fabric/fabric_int.h"
#include "engine/keysort.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- agenda ------------------------------------------------------------------------ */

#define KEY_T(k) ((uint64_t)((k) >> 64))
#define KEY_PHASE(k) ((unsigned)((uint64_t)(k) >> 61))
#define KEY_SLOT(k) ((uint32_t)((uint64_t)(k) & 0xffffffu))
#define KEY_SEQ_BITS(f) (37u - (f)->node_bits)
#define KEY_NODE(f, k) ((uint32_t)(((uint64_t)(k) >> (24 + KEY_SEQ_BITS(f))) & ((1u << (f)->node_bits) - 1)))
#define KEY_SEQ_MASK(f) (((1ull << KEY_SEQ_BITS(f)) - 1) << 24)
/* The order of an event pushed within its own instant (a phase's FIFO, after its keyed events). */
#define FAB_ORD_LAST(ph) (((uint64_t)(ph) << 61) | (((1ull << 61) - 1) & ~0xffffffull))

myri_status myri_fab_agenda_init(myri_fabric *f, myri_error *err)
{
    f->node_bits = 1;
    while (f->node_bits < 64 && (1ull << f->node_bits) < f->nnodes) f->node_bits++;
    if (f->node_bits > FAB_NODE_BITS_MAX)
        return myri_fab_perr(err, "topology", "more than 2^21 nodes (switches and hosts): the fabric's agenda key "
                                              "has 21 bits for a node (docs/FABRIC.md, Agenda)");
    f->cur_node = 0;
    return MYRI_OK;
}

uint32_t myri_fab_ev_node(const myri_fabric *f, uint32_t kind, uint32_t a)
{
    switch (kind) {
    case EV_CTRL: /* STOP/GO reach the sender */
    case EV_TIMEOUT:
    case EV_ARB:
    case EV_R_SEND:
    case EV_F_SEND: return f->ch[a].src_node;
    case EV_CUT_TX:
    case EV_RESTORE_TX: return f->ch[a].src_node;
    default: return f->ch[a].dst_node; /* decode, checks, arrivals, heads, FRES, port link */
    }
}

static void fab__schedule_tick(myri_fabric *f, uint64_t t)
{
    if (f->tick_at != MYRI_TIME_NEVER && f->tick_at <= t) return;
    /* At most one tick is pending: an earlier one replaces a later one. */
    if (f->tick_at != MYRI_TIME_NEVER) myri_sim_cancel(f->sim, f->tick_id);
    /* As the fabric, whoever calls (a device's port call from its handler):
     * a tick is partition machinery and takes no unit's numbers
     * (docs/PARTITION.md section 3). */
    myri_event ev = {.target = f->comp, .kind = FAB_ENG_TICK};
    f->tick_id = myri_sim_schedule_as(f->sim, (uint32_t)f->comp->id, t, &ev);
    if (!f->tick_id) myri_panic(f->comp, "cannot schedule fabric tick");
    f->tick_at = t;
}

static uint32_t fab__slot(myri_fabric *f)
{
    if (f->nfree) return f->pfree[--f->nfree];
    if (f->npool >= (1u << 24)) myri_panic(f->comp, "more than 2^24 pending fabric events");
    if (f->npool == f->capool) { /* grown by a quarter: the pool's size follows the peak of pending events */
        size_t nc = f->capool ? f->capool + f->capool / 4 : 1024;
        fab_ev *np = realloc(f->pool, nc * sizeof *np);
        uint32_t *nf = realloc(f->pfree, nc * sizeof *nf);
        if (!np || !nf) myri_panic(f->comp, "out of memory (agenda)");
        f->pool = np;
        f->pfree = nf;
        f->capool = nc;
    }
    return (uint32_t)f->npool++;
}

static void fab__heap_push(myri_fabric *f, fab_key **hp, size_t *np, size_t *capp, fab_key k)
{
    if (*np == *capp) {
        size_t nc = *capp ? 2 * *capp : 1024;
        fab_key *nh = realloc(*hp, nc * sizeof *nh);
        if (!nh) myri_panic(f->comp, "out of memory (agenda)");
        *hp = nh;
        *capp = nc;
    }
    fab_key *h = *hp;
    size_t i = (*np)++;
    while (i > 0) {
        size_t parent = (i - 1) / 4;
        if (h[parent] <= k) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = k;
}

/* The calendar's buckets are unsorted lists (a push is O(1) and touches no
 * other event); the current bucket, cal_cur, is sorted once into the array
 * cs (full keys, so the comparisons touch no event) when the agenda first
 * needs its top, and taken from its front.  An insert into the loaded bucket
 * goes into cs in key order; an insert before it puts cs back into its list.
 * The order of events is the keys', exactly as before: results unchanged. */
static void fab__cal_list_push(myri_fabric *f, uint32_t r, uint32_t slot)
{
    f->pool[slot].next = f->cal_head[r];
    f->cal_head[r] = slot;
    f->cal_bits[r / 64] |= 1ull << (r % 64);
}

/* Puts the loaded bucket's remaining events back into its list. */
static void fab__cal_unload(myri_fabric *f)
{
    uint32_t r = (uint32_t)(f->cal_loaded_bk & (FAB_CAL_N - 1));
    for (size_t i = f->cs_head; i < f->cs_n; i++) fab__cal_list_push(f, r, KEY_SLOT(f->cs[i]));
    f->cs_head = f->cs_n = 0;
    f->cal_loaded = false;
}

static void fab__cal_cs_room(myri_fabric *f, size_t n)
{
    if (n <= f->cs_cap) return;
    size_t nc = f->cs_cap ? f->cs_cap : 64;
    while (nc < n) nc *= 2;
    fab_key *ns = realloc(f->cs, nc * sizeof *ns);
    if (!ns) myri_panic(f->comp, "out of memory (agenda)");
    f->cs = ns;
    f->cs_cap = nc;
}

/* Sorts bucket cal_cur into cs (myri_keysort_list). */
static void fab__cal_load(myri_fabric *f)
{
    if (f->cal_loaded) fab__cal_unload(f);
    uint32_t r = (uint32_t)(f->cal_cur & (FAB_CAL_N - 1));
    size_t n = 0;
    for (uint32_t s = f->cal_head[r]; s != UINT32_MAX; s = f->pool[s].next) {
        fab__cal_cs_room(f, n + 1);
        f->cs[n++] = ((fab_key)f->pool[s].time << 64) | f->pool[s].key;
    }
    myri_keysort_list(f->cs, n);
    f->cal_head[r] = UINT32_MAX;
    f->cs_head = 0;
    f->cs_n = n;
    f->cal_loaded = true;
    f->cal_loaded_bk = f->cal_cur;
}

/* Inserts slot (key k) into calendar bucket bk (absolute number, within the ring). */
static inline __attribute__((always_inline)) void fab__cal_insert(myri_fabric *f, uint64_t bk, uint32_t slot,
                                                                  fab_key k)
{
    uint32_t r = (uint32_t)(bk & (FAB_CAL_N - 1));
    if (f->cal_loaded && bk == f->cal_loaded_bk) { /* into the sorted bucket, in key order */
        fab__cal_cs_room(f, f->cs_n + 1);
        size_t i = f->cs_n++;
        while (i > f->cs_head && f->cs[i - 1] > k) {
            f->cs[i] = f->cs[i - 1];
            i--;
        }
        f->cs[i] = k;
        f->cal_bits[r / 64] |= 1ull << (r % 64);
    } else {
        fab__cal_list_push(f, r, slot);
    }
    if (f->caln++ == 0 || bk < f->cal_cur) f->cal_cur = bk;
}

/* The calendar's smallest key (caln > 0): its current bucket, sorted. */
static inline fab_key fab__cal_top(myri_fabric *f)
{
    if (!f->cal_loaded || f->cal_loaded_bk != f->cal_cur) fab__cal_load(f);
    return f->cs[f->cs_head];
}

/* Takes the first event of the calendar (fab__cal_top was called); finds the
 * next non-empty bucket if the current one is now empty. */
static uint32_t fab__cal_pop(myri_fabric *f)
{
    uint32_t r = (uint32_t)(f->cal_cur & (FAB_CAL_N - 1));
    uint32_t slot = KEY_SLOT(f->cs[f->cs_head++]);
    f->cal_base = f->cal_cur;
    --f->caln;
    if (f->cs_head < f->cs_n) return slot;
    f->cs_head = f->cs_n = 0;
    f->cal_loaded = false;
    f->cal_bits[r / 64] &= ~(1ull << (r % 64));
    if (f->caln == 0) return slot;
    /* The next set bit after r, cyclically (some bucket is not empty). */
    uint32_t w = r / 64;
    uint64_t m = r % 64 == 63 ? 0 : f->cal_bits[w] & ~((2ull << (r % 64)) - 1); /* bits above r in its word */
    while (!m) {
        w = (w + 1) & (FAB_CAL_N / 64 - 1);
        m = f->cal_bits[w];
    }
    uint32_t nr = w * 64 + (uint32_t)__builtin_ctzll(m);
    f->cal_cur += (uint64_t)((nr - r) & (FAB_CAL_N - 1));
    return slot;
}

/* Applies fn to every keyed entry of the agenda (heaps, sorted bucket,
 * calendar lists) with a pointer to its key's low half (calendar lists: the
 * copy in the pool) and its time. */
static void fab__each_key(myri_fabric *f, void (*fn)(myri_fabric *, uint64_t, uint64_t *, void *), void *ctx)
{
    fab_key *h[3] = {f->heap, f->far, f->cs};
    size_t lo[3] = {0, 0, f->cs_head}, hi[3] = {f->hn, f->fn, f->cs_n};
    for (size_t w = 0; w < 3; w++)
        for (size_t i = lo[w]; i < hi[w]; i++) {
            uint64_t low = (uint64_t)h[w][i];
            fn(f, KEY_T(h[w][i]), &low, ctx);
            h[w][i] = (h[w][i] >> 64 << 64) | low;
            if (w == 2) f->pool[KEY_SLOT(low)].key = low; /* its copy, for fab__cal_unload */
        }
    for (uint32_t r = 0; r < FAB_CAL_N; r++)
        for (uint32_t s = f->cal_head[r]; s != UINT32_MAX; s = f->pool[s].next)
            fn(f, f->pool[s].time, &f->pool[s].key, ctx);
}

typedef struct fab_renum {
    uint32_t node;
    fab_key *k;
    size_t n, cap;
    bool ok;
} fab_renum;

static void fab__renum_collect(myri_fabric *f, uint64_t t, uint64_t *low, void *ctx)
{
    fab_renum *r = ctx;
    if (KEY_NODE(f, *low) != r->node || !r->ok) return;
    if (r->n == r->cap) {
        size_t nc = r->cap ? 2 * r->cap : 256;
        fab_key *nk = realloc(r->k, nc * sizeof *nk);
        if (!nk) {
            r->ok = false;
            return;
        }
        r->k = nk;
        r->cap = nc;
    }
    r->k[r->n++] = ((fab_key)t << 64) | (*low & ~0xffffffull); /* without the slot */
}

static void fab__renum_apply(myri_fabric *f, uint64_t t, uint64_t *low, void *ctx)
{
    fab_renum *r = ctx;
    if (KEY_NODE(f, *low) != r->node) return;
    fab_key k = ((fab_key)t << 64) | (*low & ~0xffffffull);
    size_t lo = 0, hi = r->n; /* its rank among the node's pending keys */
    while (lo + 1 < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->k[mid] <= k) lo = mid;
        else hi = mid;
    }
    *low = (*low & ~KEY_SEQ_MASK(f)) | ((uint64_t)lo << 24);
}

/* Node `node` has given its last sequence number: its pending events are
 * numbered again from 0 in key order and its counter continues after them.
 * Every comparison between pending events is unchanged (another node's
 * differ in node or earlier fields), so the heaps, the sorted bucket and the
 * order of everything pushed later are what unbounded numbers would give. */
static void fab__renumber(myri_fabric *f, uint32_t node)
{
    fab_renum r = {.node = node, .ok = true};
    fab__each_key(f, fab__renum_collect, &r);
    if (!r.ok) myri_panic(f->comp, "out of memory (agenda renumbering)");
    if (r.n >= (1ull << KEY_SEQ_BITS(f)))
        myri_panic(f->comp, "node %u has %zu pending fabric events, more than its key's %u sequence bits hold", node,
                   r.n, KEY_SEQ_BITS(f));
    myri_keysort_list(r.k, r.n);
    fab__each_key(f, fab__renum_apply, &r);
    free(r.k);
    f->node[node].seq = r.n;
    f->nrenumber++;
}

void myri_fab_agenda_test_seq_left(myri_fabric *f, uint64_t left)
{
    uint64_t lim = 1ull << KEY_SEQ_BITS(f);
    for (size_t i = 0; i < f->nnodes; i++) f->node[i].seq = left < lim ? lim - left : 0;
}

/* The next key's low half for an event pushed by node `node`. */
static inline __attribute__((always_inline)) uint64_t fab__order(myri_fabric *f, fab_phase ph, uint32_t node)
{
    fab_node *n = &f->node[node];
    if (n->seq >> KEY_SEQ_BITS(f)) fab__renumber(f, node);
    return ((uint64_t)ph << 61) | ((uint64_t)node << (24 + KEY_SEQ_BITS(f))) | (n->seq++ << 24);
}

static void fab__push(myri_fabric *f, uint64_t t, fab_phase ph, uint32_t kind, uint32_t a, uint64_t b, void *p,
                      uint32_t origin);
static inline __attribute__((always_inline)) void fab__insert(myri_fabric *f, uint64_t t, uint64_t ord,
                                                              uint32_t kind, uint32_t a, uint64_t b, void *p);
static __attribute__((noinline, cold)) void fab__push_away(myri_fabric *f, uint64_t t, fab_phase ph, uint32_t kind, uint32_t a, uint64_t b, void *p,
                           uint32_t origin, uint32_t dst);

void myri_fab_push(myri_fabric *f, uint64_t t, fab_phase ph, uint32_t kind, uint32_t a, uint64_t b,
              void *p)
{
    /* the origin: the node whose handler runs, or outside a pass the target's */
    fab__push(f, t, ph, kind, a, b, p, f->in_tick ? f->cur_node : myri_fab_ev_node(f, kind, a));
}

void myri_fab_push_from(myri_fabric *f, uint32_t origin, uint64_t t, fab_phase ph, uint32_t kind, uint32_t a)
{
    fab__push(f, t, ph, kind, a, 0, NULL, origin);
}

static void fab__push(myri_fabric *f, uint64_t t, fab_phase ph, uint32_t kind, uint32_t a, uint64_t b, void *p,
                      uint32_t origin)
{
    uint64_t now = fab_now(f);
    MYRI_ASSERT(f->comp, t >= now, "event in the past (%llu < %llu)", (unsigned long long)t,
                (unsigned long long)now);
    MYRI_ASSERT(f->comp, !(f->in_tick && t == now && (uint64_t)ph < f->now_phase),
                "event for an earlier phase of the current instant (kind %u)", kind);
    if (__builtin_expect(f->part_owner != NULL, 0)) {
        uint32_t dst = myri_fab_ev_node(f, kind, a);
        if (f->part_owner[dst] != f->part_me) {
            fab__push_away(f, t, ph, kind, a, b, p, origin, dst);
            return;
        }
    }
    if (f->in_tick && t == f->now) { /* this instant: FIFO of its phase */
        uint32_t slot = fab__slot(f);
        f->pool[slot] = (fab_ev){t, 0, kind, a, b, p, UINT32_MAX};
        __typeof__(f->fifo[0]) *q = &f->fifo[ph];
        if (q->head + q->n == q->cap) {
            if (q->head) {
                memmove(q->slot, q->slot + q->head, q->n * sizeof *q->slot);
                q->head = 0;
            } else {
                size_t nc = q->cap ? 2 * q->cap : 64;
                uint32_t *ns = realloc(q->slot, nc * sizeof *ns);
                if (!ns) myri_panic(f->comp, "out of memory (agenda)");
                q->slot = ns;
                q->cap = nc;
            }
        }
        q->slot[q->head + q->n++] = slot;
        f->fifo_mask |= 1u << ph;
        return;
    }
    fab__insert(f, t, fab__order(f, ph, origin), kind, a, b, p);
}

/* Puts an event with the low half of its key (without the slot) into the
 * calendar or a heap; outside a pass, asks for a tick at its time. */
static inline __attribute__((always_inline)) void fab__insert(myri_fabric *f, uint64_t t, uint64_t ord,
                                                              uint32_t kind, uint32_t a, uint64_t b, void *p)
{
    uint32_t slot = fab__slot(f);
    f->pool[slot] = (fab_ev){t, 0, kind, a, b, p, UINT32_MAX};
    fab_key k = ((fab_key)t << 64) | ord | slot;
    uint64_t bk = t >> f->cal_shift;
    if (kind == EV_TIMEOUT) {
        fab__heap_push(f, &f->far, &f->fn, &f->fcap, k);
    } else if (bk >= f->cal_base && bk - f->cal_base < FAB_CAL_N) {
        f->pool[slot].key = (uint64_t)k;
        fab__cal_insert(f, bk, slot, k);
    } else {
        fab__heap_push(f, &f->heap, &f->hn, &f->hcap, k);
    }
    if (!f->in_tick) fab__schedule_tick(f, t); /* else: at the end of the handler */
}

/* Where the smallest key of the agenda is (*top): 0 the heap, 1 the far
 * heap, 2 the calendar; -1 if the agenda is empty. */
static inline int fab__which(myri_fabric *f, fab_key *top)
{
    int w = -1;
    fab_key best = 0;
    if (f->caln) {
        best = fab__cal_top(f);
        w = 2;
    }
    if (f->hn && (w < 0 || f->heap[0] < best)) {
        best = f->heap[0];
        w = 0;
    }
    if (f->fn && (w < 0 || f->far[0] < best)) {
        best = f->far[0];
        w = 1;
    }
    *top = best;
    return w;
}

/* Removes the smallest key of heap h (n > 0 keys). */
static fab_key fab__heap_pop(fab_key *h, size_t *np)
{
    fab_key top = h[0];
    fab_key last = h[--*np];
    size_t i = 0, n = *np;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n) break;
        size_t best = c;
        fab_key bv = h[c];
        size_t end = c + 4 < n ? c + 4 : n;
        for (size_t j = c + 1; j < end; j++)
            if (h[j] < bv) {
                bv = h[j];
                best = j;
            }
        if (bv >= last) break;
        h[i] = bv;
        i = best;
    }
    if (n) h[i] = last;
    return top;
}

/* Removes the smallest key, which is in source w (fab__which). */
static fab_ev fab__pop(myri_fabric *f, int w)
{
    uint32_t slot;
    if (w == 2) {
        slot = fab__cal_pop(f);
    } else {
        fab_key top = w == 1 ? fab__heap_pop(f->far, &f->fn) : fab__heap_pop(f->heap, &f->hn);
        slot = KEY_SLOT(top);
        uint64_t bk = KEY_T(top) >> f->cal_shift;
        if (bk > f->cal_base) f->cal_base = bk; /* nothing is scheduled before it any more */
    }
    f->pfree[f->nfree++] = slot;
    return f->pool[slot];
}

bool myri_fab_agenda_test_take(myri_fabric *f, fab_ev *out)
{
    fab_key top;
    int w = fab__which(f, &top);
    if (w < 0) return false;
    *out = fab__pop(f, w);
    return true;
}

/* ---- the predicted-check queue (indexed binary heap of inputs) ---- */

static bool cq__less(const myri_fabric *f, uint32_t a, uint32_t b)
{
    uint64_t ta = FAB_CROSS_RX(&f->ch[a], part)->pred_at, tb = FAB_CROSS_RX(&f->ch[b], part)->pred_at;
    return ta < tb || (ta == tb && a < b);
}

static void cq__place(myri_fabric *f, size_t i, uint32_t c)
{
    f->cq[i] = c;
    f->cq_pos[c] = (int32_t)i;
}

static void cq__sift(myri_fabric *f, size_t i)
{
    uint32_t c = f->cq[i];
    while (i > 0 && cq__less(f, c, f->cq[(i - 1) / 2])) {
        cq__place(f, i, f->cq[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        uint32_t bc = c;
        if (l < f->cqn && cq__less(f, f->cq[l], bc)) { best = l; bc = f->cq[l]; }
        if (l + 1 < f->cqn && cq__less(f, f->cq[l + 1], bc)) { best = l + 1; bc = f->cq[l + 1]; }
        if (best == i) break;
        cq__place(f, i, bc);
        i = best;
    }
    cq__place(f, i, c);
}

void myri_fab_cq_set(myri_fabric *f, uint32_t c, uint64_t t)
{
    FAB_RX(&f->ch[c])->pred_at = t;
    if (f->cq_pos[c] < 0) {
        cq__place(f, f->cqn++, c);
    }
    cq__sift(f, (size_t)f->cq_pos[c]);
    f->cq_top_at = FAB_CROSS_RX(&f->ch[f->cq[0]], part)->pred_at;
}

void myri_fab_cq_remove(myri_fabric *f, uint32_t c)
{
    int32_t i = f->cq_pos[c];
    if (i < 0) return;
    f->cq_pos[c] = -1;
    FAB_RX(&f->ch[c])->pred_at = MYRI_TIME_NEVER;
    uint32_t last = f->cq[--f->cqn];
    if ((size_t)i != f->cqn) {
        cq__place(f, (size_t)i, last);
        cq__sift(f, (size_t)i);
    }
    f->cq_top_at = f->cqn ? FAB_CROSS_RX(&f->ch[f->cq[0]], part)->pred_at : UINT64_MAX;
}



/* One engine event: the fabric's instants from the engine's time up to the
 * next event of any other component (or the end of the run), each instant
 * in phase order.  Kind 2 is a deferred callback, 3 the engine's clock
 * catching up, 4 a port notice, 5 a pass's notices made ahead (myri_fab_notes_flush). */
/* Takes the next event of the current instant: the agenda's top (source w,
 * phase hp) or the head of the FIFO of phase fp, whichever phase is first. */
static fab_ev fab__take(myri_fabric *f, int w, unsigned hp, unsigned fp)
{
    if (hp <= fp) return fab__pop(f, w);
    uint32_t slot = f->fifo[fp].slot[f->fifo[fp].head++];
    if (--f->fifo[fp].n == 0) {
        f->fifo[fp].head = 0;
        f->fifo_mask &= ~(1u << fp);
    }
    f->pfree[f->nfree++] = slot;
    return f->pool[slot];
}

/* The fabric's instants from `now`, each in phase order, strictly before the
 * next event of anybody else (nxt, recomputed after callbacks, which may
 * schedule events of other components) and not beyond the end of the run
 * (hz). */
static void fab__run_instants(myri_fabric *f, uint64_t now)
{
    f->in_tick = true;
    f->now = now;
    f->now_phase = 0;
    f->last_instant = now;
    uint64_t hz = myri_sim_horizon(f->sim), nxt = myri_sim_next_time(f->sim);
    f->lim_stale = false;
    for (;;) {
        fab_key top;
        int w = fab__which(f, &top);
        unsigned hp = (w >= 0 && KEY_T(top) == f->now) ? KEY_PHASE(top) : 99u;
        unsigned fm = f->fifo_mask >> f->now_phase;
        unsigned fp = fm ? (unsigned)f->now_phase + (unsigned)__builtin_ctz(fm) : 99u;
        unsigned np = hp < fp ? hp : fp;
        if ((f->ndirty || (f->cqn && fab_cq_top_time(f) == f->now)) && np > PH_CHECK) {
            /* the end of the instant: changed and predicted slack checks */
            f->now_phase = PH_CHECK;
            f->cur_ord = FAB_ORD_LAST(PH_CHECK);
            if (f->ndirty) {
                f->m->flush(f);
            } else {
                f->ctr.events++;
                f->cur_node = f->ch[f->cq[0]].dst_node; /* the receiver checks its input */
                f->m->check_due(f, f->cq[0]);
            }
            continue;
        }
        if (np == 99u) { /* the instant is over: the next one, if nobody else comes first */
            if (f->nnotes) myri_fab_notes_flush(f); /* port notices: after the pass */
            if (w < 0 && !f->cqn) break;
            uint64_t t = w >= 0 ? KEY_T(top) : UINT64_MAX;
            if (fab_cq_top_time(f) < t) t = fab_cq_top_time(f);
            if (f->lim_stale) {
                nxt = myri_sim_next_time(f->sim);
                f->lim_stale = false;
            }
            if (t > hz || t >= nxt) break;
            f->now = t;
            f->now_phase = 0;
            f->last_instant = t;
            continue;
        }
        fab_ev e = fab__take(f, w, hp, fp);
        f->cur_ord = hp <= fp ? (uint64_t)top & ~0xffffffull : FAB_ORD_LAST(np); /* (a drop's claim) */
        f->now_phase = np;
        f->ctr.events++;
        f->cur_node = myri_fab_ev_node(f, e.kind, e.a);
        myri_fab_dispatch(f, &e);
    }
    f->in_tick = false;
    f->now_phase = 0;
}

void myri_fab_handle(myri_component *self, const myri_event *ev)
{
    myri_fabric *f = self->state;
    if (ev->kind == FAB_ENG_CALLBACK) {
        myri_fab_callback(f, ev->ptr);
        return;
    }
    if (ev->kind == FAB_ENG_CATCHUP) return;
    if (ev->kind == FAB_ENG_NOTE) {
        myri_fab_note_deliver(f, ev->ptr);
        return;
    }
    if (ev->kind == FAB_ENG_NOTES) {
        myri_fab_notes_schedule(f, ev->ptr);
        return;
    }
    uint64_t now = myri_sim_now(f->sim);
    f->tick_at = MYRI_TIME_NEVER; /* this is the pending tick */
    /* The same-instant rule: at any time t the fabric's pass of instant t
     * comes after every other event at t (so what a device does at t is seen
     * by that pass whichever component's event came first): if another event
     * is pending now, run again behind it. */
    if (myri_sim_next_time(f->sim) == now) {
        fab__schedule_tick(f, now);
        return;
    }
    fab__run_instants(f, now);
    fab_key top;
    if (fab__which(f, &top) >= 0) fab__schedule_tick(f, KEY_T(top));
    if (f->cqn) fab__schedule_tick(f, fab_cq_top_time(f));
    /* Ran ahead of every other event.  The engine's clock passes the last
     * instant processed with the next event of anybody (every later event is
     * scheduled from a handler at or after that one, and a run with a finite
     * end sets the clock to it): only when nothing at all is pending, let the
     * clock reach it by an event of its own, so that results read after a
     * run without an end are consistent.  (An event per pass would also keep
     * myri_sim_advance from applying.) */
    if (f->now > now && myri_sim_pending(f->sim) == 0) {
        myri_event cu = {.target = f->comp, .kind = FAB_ENG_CATCHUP};
        if (!myri_sim_schedule(f->sim, f->now, &cu)) myri_panic(f->comp, "cannot schedule");
    }
}


/* ---- a cut run (docs/PARTITION.md sections 2-4, steps 7 and 9) ---------------------------------------------
 * An event for a node of another partition leaves as a flat message
 * (myri_fabric_msg: no pointers, the packet by its id), the same bytes in
 * one process or across MPI ranks; the receiving partition makes its own
 * copy of the packet (fab__xpkt_local). */

uint64_t myri_fabric_link_lookahead_ps(const myri_fabric *f, size_t link)
{
    if (!f || 2 * link >= f->nchan) return 0;
    const fab_chan *c = &f->ch[2 * link];
    uint64_t prop = c->d_ps - f->T; /* d_ps = T + P_c */
    return prop + (f->T < f->p.ctrl_delay_ps ? f->T : f->p.ctrl_delay_ps);
}

myri_status myri_fabric_set_partition(myri_fabric *f, const uint32_t *owner, uint32_t me,
                                      myri_fabric_outbox_fn outbox, void *ctx)
{
    if (!f || !owner || !outbox || f->started) return MYRI_EINVAL;
    f->part_owner = owner;
    f->part_me = me;
    f->part_out = outbox;
    f->part_ctx = ctx;
    f->part_live = false;
    free(f->xlast);
    free(f->xlast_n);
    f->xlast = malloc((f->nchan ? f->nchan : 1) * sizeof *f->xlast);
    f->xlast_n = calloc(f->nchan ? f->nchan : 1, sizeof *f->xlast_n);
    if (!f->xlast || !f->xlast_n) return MYRI_ENOMEM;
    memset(f->xlast, 0xff, (f->nchan ? f->nchan : 1) * sizeof *f->xlast); /* FAB_PKT_NONE */
    for (size_t i = 0; i < f->nchan; i++) f->ch[i].part_cut = owner[f->ch[i].src_node] != owner[f->ch[i].dst_node];
    return MYRI_OK;
}

void myri_fabric_partition_live(myri_fabric *f)
{
    if (f) f->part_live = true;
}

/* The crossings still marked (grep -n FAB_CROSS src/fabric): row 11; the
 * check queue's ("part") are compiled out of a cut run's guard. */
static const char *fab__row_what(const char *row)
{
    if (!strcmp(row, "11")) return "a restore meets the receiver's standing STOP";
    return "the other end's state is touched at once";
}

void myri_fab__cross_stop(const myri_fabric *f, uint32_t node, const char *row)
{
    myri_panic(f->comp,
               "crossing row %s of docs/PARTITION.md is not a message yet: %s, and node %s is in partition %u, "
               "not in this one (%u); cut the run where no traffic crosses a cut cable (--partition leaf with "
               "traffic within each leaf switch's hosts) or run it whole",
               row, fab__row_what(row), f->node_name[node], f->part_owner[node], f->part_me);
}

void myri_fab__cross_cut(const fab_chan *c, const char *row)
{
    myri_panic(NULL,
               "crossing row %s of docs/PARTITION.md is not a message yet: %s, and channel %u joins two "
               "partitions; cut the run where no traffic crosses a cut cable (--partition leaf with traffic "
               "within each leaf switch's hosts) or run it whole",
               row, fab__row_what(row), c->id);
}

/* ---- messages across a cut cable: flat records (docs/PARTITION.md step 7) ----
 * What a message names in the sender's pools travels by value: a fast-model
 * run message (f->msg slot), a reference character (f->msgs slot), the
 * packet by its stable id and, with its head, the packet's record (section 1
 * "Packets"; no bytes: a fabric job's packets have none past their sender,
 * devices and taps do not run cut).  The receiver finds its own copy of the
 * packet by id (f->xm) or makes it from the head's record, and the channel's
 * reference the sender took for the receiver is the copy's.  The sender's
 * copy is registered (xcopy) so that a packet that comes back finds it; it
 * gives back the absent receiver's reference when it is done with the
 * packet (fab__absent_ref). */
typedef struct fab_xpkt {  /* the packet's record as its head carries it */
    uint64_t queued_ps, head_ps;
    uint32_t src_host, dst_host, type, payload_bytes, nbytes0;
    int32_t port;
    uint8_t route_len, syndrome, dst_known, open;
    uint8_t hdr[FAB_HDR];
} fab_xpkt;

typedef struct fab_xrec {
    uint64_t pkt_id;
    uint8_t has_id, head;
    uint8_t hset, hb;     /* EV_R_ARRIVE: hdr[hat] is hb on the sender (its bit errors so far, ref__corrupt) */
    uint16_t hat;
    uint8_t pad[2];
    union {
        fab_runmsg run;   /* EV_F_MSG */
        fab_msg ch;       /* EV_R_ARRIVE */
    } r;
    fab_xpkt pkt;         /* with head */
} fab_xrec;
_Static_assert(sizeof(fab_xrec) <= MYRI_FABRIC_MSG_REC_BYTES, "a message's record fits myri_fabric_msg.rec");

static void fab__xpkt_out(fab_pkt *pkt, fab_xpkt *x)
{
    if (pkt->hdr_lazy) myri_fab_pkt_hdr_fill(pkt);
    *x = (fab_xpkt){.queued_ps = pkt->queued_ps, .head_ps = pkt->head_ps, .src_host = pkt->src_host,
                    .dst_host = pkt->dst_host, .type = pkt->type, .payload_bytes = pkt->payload_bytes,
                    .nbytes0 = pkt->nbytes0, .port = -1, .route_len = pkt->route_len,
                    .syndrome = pkt->syndrome, .dst_known = pkt->dst_known, .open = pkt->open};
    memcpy(x->hdr, pkt->hdr, FAB_HDR);
}

static void fab__xpkt_in(fab_pkt *pkt, const fab_xpkt *x)
{
    pkt->queued_ps = x->queued_ps;
    pkt->head_ps = x->head_ps;
    pkt->src_host = x->src_host;
    pkt->dst_host = x->dst_host;
    pkt->type = x->type;
    pkt->payload_bytes = x->payload_bytes;
    pkt->nbytes0 = x->nbytes0;
    pkt->port = x->port;
    pkt->route_len = x->route_len;
    pkt->syndrome = x->syndrome;
    pkt->dst_known = x->dst_known;
    pkt->open = x->open;
    pkt->hdr_lazy = 0;
    memcpy(pkt->hdr, x->hdr, FAB_HDR);
}

/* The channel's reference the sender took for a receiver in another
 * partition is never released here (the receiver's copy took its own in
 * fab__xpkt_local): the sender gives it back once it is done with the
 * packet, which it is when the next packet's head crosses the same cable (a
 * channel sends one packet at a time; the ports and outputs send from `cur`
 * without a reference of their own, so not earlier).  A head sent again
 * after an un-send on a switch's output took one more reference
 * (fabric_fast.c ff__start_run_at); a host's packet has one, its first, for
 * every head.  So a cut run holds at most one such packet per cut channel.
 * A cut of the cable gives none of them back: the reference model's
 * sender (fab_ref_cut_sender) leaves a cable to another partition to the
 * receiver's copy (ref__arrive), and the fast model's sender gives back no
 * reference at a cut (its receiver does, fab_fast_cut_wire, ff__msg_arrive);
 * the next head after the restore releases them here. */
static void fab__absent_ref(myri_fabric *f, uint32_t ch, fab_pkt *pkt)
{
    uint32_t prev = f->xlast[ch];
    if (prev == pkt->ix) { /* held by those references: not reused */
        if (!f->ch[ch].src_host) f->xlast_n[ch]++;
        return;
    }
    uint32_t n = f->xlast_n[ch];
    f->xlast[ch] = pkt->ix;
    f->xlast_n[ch] = 1;
    for (uint32_t i = 0; prev != FAB_PKT_NONE && i < n; i++) myri_fab_pkt_unref(f, fab_pkt_at(f, prev));
}

/* The sender's side: m's record from the slot or packet that b / p name. */
static void fab__xrec_out(myri_fabric *f, uint32_t kind, uint64_t b, fab_pkt *pkt, myri_fabric_msg *m)
{
    fab_xrec x = {0};
    bool head = false;
    if (kind == EV_F_MSG) {
        x.r.run = myri_fab_runmsg_take(f, (uint32_t)b); /* the slot is free here: the record travels */
        if (x.r.run.kind == FAB_MSG_RUN) {
            pkt = fab_pkt_at(f, x.r.run.run.pix);
            head = x.r.run.head;
        }
    } else if (kind == EV_R_ARRIVE) {
        x.r.ch = myri_fab_msg_take(f, &(fab_ev){.kind = EV_R_ARRIVE, .b = b});
        pkt = fab_pkt_at(f, x.r.ch.pix);
        head = x.r.ch.j == 0;
        uint32_t at = x.r.ch.hop + x.r.ch.j; /* its place in the first-hop bytes */
        if (!x.r.ch.gap && at < FAB_HDR) {
            x.hset = 1;
            x.hat = (uint16_t)at;
            x.hb = fab_hdr_byte(pkt, at);
        }
    } else {
        MYRI_ASSERT(f->comp, !pkt || kind == EV_FRES, "event kind %u with a packet crosses a cut cable", kind);
    }
    m->b = kind == EV_F_MSG || kind == EV_R_ARRIVE ? 0 : b;
    if (pkt && pkt->port >= 0) /* a device's packet (its sender's original: the first to cross) */
        myri_panic(f->comp,
                   "a packet with bytes (a NIC's or a device's, from host %u) crosses the cut cable of channel %u: "
                   "its bytes do not travel with the messages yet (docs/PARTITION.md step 7, open packets); cut the "
                   "run where no such traffic crosses (--partition leaf with each program's hosts on one leaf "
                   "switch) or run it whole",
                   pkt->src_host, m->a);
    if (pkt) {
        x.has_id = 1;
        x.pkt_id = pkt->id;
        if (head) {
            x.head = 1;
            fab__xpkt_out(pkt, &x.pkt);
            myri_fab_xmap_put(f, pkt);
            fab__absent_ref(f, m->a, pkt);
        }
    }
    memcpy(m->rec, &x, sizeof x);
    m->nrec = sizeof x;
}

/* An event for a node of another partition (fab__push). */
static __attribute__((noinline, cold)) void fab__push_away(myri_fabric *f, uint64_t t, fab_phase ph, uint32_t kind, uint32_t a, uint64_t b, void *p,
                           uint32_t origin, uint32_t dst)
{
    uint64_t ord = fab__order(f, ph, origin); /* the number is taken either way: the owner's keys stay the same */
    if (!f->part_live) return;                /* set-up: the owner makes the same push */
    uint64_t now = fab_now(f);
    MYRI_ASSERT(f->comp, f->in_tick, "event kind %u for node %s (partition %u) pushed outside the fabric's pass",
                kind, f->node_name[dst], f->part_owner[dst]);
    MYRI_ASSERT(f->comp, a < f->nchan && f->ch[a].part_cut,
                "event kind %u for node %s of partition %u is not on a cut cable", kind, f->node_name[dst],
                f->part_owner[dst]);
    uint64_t la = myri_fabric_link_lookahead_ps(f, a / 2);
    MYRI_ASSERT(f->comp, t - now >= la,
                "message kind %u on channel %u delayed %llu ps, less than the cable's lookahead %llu ps", kind, a,
                (unsigned long long)(t - now), (unsigned long long)la);
    myri_fabric_msg m = {.time_ps = t, .order = ord, .dst_node = dst, .kind = kind, .a = a};
    fab__xrec_out(f, kind, b, p, &m);
    f->part_out(f->part_ctx, &m);
}

/* The receiver's copy of the packet m names (NULL: none named), made from
 * the head's record if it has none; with the head it takes the channel's
 * reference. */
static bool fab__xpkt_local(myri_fabric *f, const fab_xrec *x, fab_pkt **out)
{
    *out = NULL;
    if (!x->has_id) return true;
    fab_pkt *pkt = myri_fab_xmap_get(f, x->pkt_id);
    if (x->head) {
        if (!pkt) {
            if (!(pkt = myri_fab_pkt_alloc(f))) return false;
            pkt->id = x->pkt_id;
            myri_fab_xmap_put(f, pkt);
        }
        fab__xpkt_in(pkt, &x->pkt);
        pkt->refs++; /* the channel's reference (released when its GAP or FRES arrives) */
    }
    *out = pkt;
    return pkt != NULL;
}

myri_status myri_fabric_take_msg(myri_fabric *f, const myri_fabric_msg *m)
{
    if (!f || !m || !f->part_owner || m->dst_node >= f->nnodes || f->part_owner[m->dst_node] != f->part_me ||
        f->in_tick || m->a >= f->nchan + f->nhosts || myri_fab_ev_node(f, m->kind, m->a) != m->dst_node)
        return MYRI_EINVAL;
    if (m->time_ps <= myri_sim_now(f->sim) || (m->order & 0xffffffull)) return MYRI_EINVAL;
    fab_xrec x = {0};
    if (m->nrec != sizeof x) return MYRI_EINVAL;
    memcpy(&x, m->rec, sizeof x);
    if ((m->kind == EV_F_MSG || m->kind == EV_R_ARRIVE) && !x.has_id && !(m->kind == EV_F_MSG && x.r.run.kind != FAB_MSG_RUN))
        return MYRI_EINVAL;
    fab_pkt *pkt;
    if (!fab__xpkt_local(f, &x, &pkt)) {
        /* No copy here: this partition gave it back after the cable was cut (its receiver half has run,
         * the epoch moved on), so the message is stale and its arrival ignores its packet. */
        uint32_t ep = m->kind == EV_F_MSG ? x.r.run.epoch : x.r.ch.epoch;
        if (x.head || (m->kind != EV_F_MSG && m->kind != EV_R_ARRIVE) || ep == f->ch[m->a].x->rx_epoch)
            return MYRI_EINVAL;
    }
    uint64_t b = m->b;
    if (m->kind == EV_F_MSG) {
        if (x.has_id) x.r.run.run.pix = pkt ? pkt->ix : FAB_PKT_NONE;
        b = myri_fab_runmsg_put(f, &x.r.run);
    } else if (m->kind == EV_R_ARRIVE) {
        x.r.ch.pix = pkt ? pkt->ix : FAB_PKT_NONE;
        if (pkt && x.hset && x.hat < FAB_HDR) pkt->hdr[x.hat] = x.hb;
        b = myri_fab_msg_put(f, &x.r.ch);
    }
    fab__insert(f, m->time_ps, m->order, m->kind, m->a, b, m->kind == EV_FRES ? pkt : NULL);
    return MYRI_OK;
}
