/* sim_pend.h -- the engine's pending set: its layout and its hot path
 * (engine-private: included by sim.c and sim_pend.c only).
 * Tuned for: 1e3..1e6 pending events, handlers that schedule about one new
 * event each (links, switches, traffic sources, the hold model).
 *
 * An event has a slot: a 32-byte record of what it carries (target, kind,
 * arguments) and a 32-bit word of state and generation.  Its key is its
 * time and its order word (round 12 bits, the logical process that
 * scheduled it 20 bits, that process's sequence number 32 bits).  In the
 * calendar it waits as a 16-byte entry (cal_ent: the time's offset in its
 * bucket, the order word and the slot in one 128-bit number), in the heap
 * as a 20-byte one (heap_ent: time, order word, slot).  Keys compare as
 * time << 64 | order word:
 * (time, round, process, process sequence), never a global counter, so the
 * order does not depend on how the processes' calls interleave
 * (docs/ENGINE.md "Time and order").
 *
 * Pending set: a calendar queue in front of a heap.  The calendar is a ring
 * of CAL_NB buckets of 2^cal_shift ps starting at bucket cal_base (the bucket
 * of the last event taken: nothing is ever scheduled before it); each bucket
 * holds its keys unsorted in 1 KiB chunks taken from a stack of free ones,
 * the last freed first (a schedule appends to its bucket's newest chunk:
 * the chunks' tails are few enough to stay in cache, and a new chunk is one
 * the last bucket loaded just gave back), with a bit map of the non-empty
 * ones.  The first
 * non-empty bucket is sorted once into the array cs when the calendar moves
 * to it (by counting on the times' offset in the bucket, cal_sort), and
 * events are taken from its front (the records of the next ones
 * asked for ahead: their slots are known); an event scheduled into it goes in
 * in key order.  Events beyond the ring wait in a 4-ary min-heap of
 * entries.  The next event is the smaller of the two tops, so the order is
 * exactly the keys' whatever structure an event waited in (an event
 * scheduled for now with a key below the last one run, which set-up code can
 * do between runs, goes to the front of the bucket being consumed, or into
 * its own bucket, which becomes the calendar's first again).  The bucket
 * width follows the workload: every max(live, 4096) events taken, the mean
 * gap between them times max(live, 4096) / CAL_PER sets it (the ring then
 * spans about 8 x max(live, 4096) x gap); when it is off by 4x or more, every
 * pending event is put into a new calendar (O(n), amortised).  Schedule O(1); the
 * next event O(log b) amortised for b events to a bucket (max(live, 4096) / 512) while
 * the gaps change slowly; the heap takes what the ring does not reach.
 *
 * Cancellation is lazy (records are marked); the pending set is rebuilt
 * without them between events when most entries are cancelled.  A process's
 * sequence numbers have 32 bits; when one process's run out (after 2^32 - 2
 * schedules by it) every live entry is renumbered, each process's in key
 * order from 1, which keeps every order and the handles (handles carry a
 * per-slot generation, not the sequence).
 */
#ifndef MYRI_ENGINE_SIM_PEND_H
#define MYRI_ENGINE_SIM_PEND_H

#include "myri/sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define SLOT_BITS 24u
#define SLOT_MASK ((1ull << SLOT_BITS) - 1)
#define MAX_SLOTS (1ull << SLOT_BITS)

/* The order word of a key (docs/ENGINE.md "Time and order"): round 12 bits |
 * logical process 20 bits | that process's sequence number 32 bits. */
#define ROUND_BITS 12u
#define LP_BITS 20u
#define SEQ_BITS 32u
#define ROUND_MAX ((1ull << ROUND_BITS) - 1) /* rounds saturate there */
#define LP_LIMIT (1ull << LP_BITS)            /* components (logical processes) at most */
#define SEQ_LIMIT (1ull << SEQ_BITS)          /* a process's numbers are 1 .. SEQ_LIMIT - 1 */
#define ORD(round, lp, seq) ((uint64_t)(round) << (LP_BITS + SEQ_BITS) | (uint64_t)(lp) << SEQ_BITS | (uint64_t)(seq))
#define ORD_ROUND(o) ((o) >> (LP_BITS + SEQ_BITS))
#define ORD_LP(o) ((uint32_t)((o) >> SEQ_BITS) & (uint32_t)(LP_LIMIT - 1))

enum { REC_FREE = 0, REC_PENDING = 1, REC_CANCELLED = 2 };

/* A logical process's own state, 16 bytes: the hash of the events it ran
 * (as target, or as the process an event runs as: myri_sim_schedule_for),
 * its next sequence number (unused for a reserved id, whose events this
 * simulation only receives with their keys) and whether its hash counts
 * (myri_sim_set_unhashed). */
typedef struct lp_state {
    uint64_t hash;
    uint32_t seq;
    uint32_t unhashed;
} lp_state;

/* In a record's kind only: the event runs as its key's process
 * (myri_sim_schedule_for), not as its target. */
#define KIND_RUN_AS 0x80000000u

/* A pending entry, 20 bytes: its time, its order word and its slot.  Keys
 * compare as the 128-bit number time << 64 | ord, i.e. by (time, round, LP,
 * LP sequence); the slot is not part of the key (the order word is unique
 * among pending entries: one LP never gives a number twice). */
typedef struct __attribute__((packed, aligned(4))) heap_ent {
    uint64_t t;
    uint64_t ord;
    uint32_t slot;
} heap_ent;
#define ENT_T(e) ((e).t)
#define ENT_SLOT(e) ((e).slot)

__extension__ typedef unsigned __int128 ent_u128;
static inline bool ent_lt(heap_ent a, heap_ent b)
{
    return ((ent_u128)a.t << 64 | a.ord) < ((ent_u128)b.t << 64 | b.ord);
}

/* What an event carries: 32 bytes, two to a cache line.  Its state is in a
 * second array (q) of one 32-bit word a slot: state in the low 2 bits,
 * generation above. */
typedef struct event_rec {
    myri_component *target;
    uint32_t kind, arg32;
    uint64_t arg;
    void *ptr;
} event_rec;
/* laid out as the first 32 bytes of a myri_event, so that both copies (the
 * schedule's and the run's) are one 32-byte move (issue 24 round 7) */
_Static_assert(sizeof(event_rec) == 32 && offsetof(myri_event, time_ps) == 32, "event_rec is myri_event's prefix");
_Static_assert(offsetof(event_rec, kind) == offsetof(myri_event, kind) &&
                   offsetof(event_rec, arg32) == offsetof(myri_event, arg32) &&
                   offsetof(event_rec, arg) == offsetof(myri_event, arg) &&
                   offsetof(event_rec, ptr) == offsetof(myri_event, ptr),
               "event_rec is myri_event's prefix");

#define META_STATE(m) ((m) & 3u)
#define META_GEN(m) ((m) >> 2)

#define CAL_NB 4096u      /* buckets in the ring */
#define CAL_PER 512u      /* the ring spans about 8 x live x gap: max(live, 4096) / 512 events to a bucket */

/* A calendar entry, 16 bytes: one 128-bit number, the offset of its time in
 * its bucket (below 2^cal_shift <= 2^CAL_OFF_BITS) << 88 | order word << 24
 * | slot.  The bucket gives the rest of the time, so within one bucket the
 * numbers compare as the keys (time, round, LP, LP sequence): the order
 * word is unique among pending entries, the slot never decides.  Four to a
 * cache line, aligned (the 20-byte heap_ent straddled lines). */
typedef ent_u128 cal_ent;
#define CAL_OFF_BITS 40u /* buckets of at most 2^40 ps (1.1 s; a wider ring leaves the rest to the heap) */
/* (built from its two 64-bit halves: the same number as (cal_ent)off << 88 |
 * (cal_ent)ord << SLOT_BITS | slot, in fewer instructions) */
#define CE_MK(off, ord, slot)                                                                                      \
    ((cal_ent)((uint64_t)(off) << (88 - 64) | (uint64_t)(ord) >> (64 - SLOT_BITS)) << 64 |                         \
     (cal_ent)((uint64_t)(ord) << SLOT_BITS | (uint64_t)(slot)))
#define CE_OFF(c) ((uint64_t)((c) >> 88))
#define CE_ORD(c) ((uint64_t)((c) >> SLOT_BITS))
#define CE_SLOT(c) ((uint32_t)(c) & (uint32_t)SLOT_MASK)

/* The full entry of calendar entry c of the bucket whose first time is base_ps. */
static inline heap_ent ce_ent(cal_ent c, uint64_t base_ps)
{
    return (heap_ent){.t = base_ps | CE_OFF(c), .ord = CE_ORD(c), .slot = CE_SLOT(c)};
}

/* A bucket's entries are kept in chunks of 1 KiB, 63 entries, chained newest
 * first; chunks freed when a bucket is loaded go on a stack and the next
 * chunk a bucket needs is the last one freed (issue 24 round 5): the lines a
 * schedule writes are then lines just read by the sort, in cache, not the
 * cold tails of arrays sized for the fullest bucket each bucket has held. */
#define CH_N 63u
typedef struct cal_chunk {
    struct cal_chunk *next; /* the bucket's older chunk (full); on the free stack the next free one */
    uint64_t pad_;
    cal_ent e[CH_N];
} cal_chunk;
#define CH_SLAB 64u /* chunks allocated at once (64 KiB) */

/* A calendar bucket: its entries, unsorted, in its chunks (head: the newest,
 * the only one not full: the counts are here, so that a schedule touches
 * this descriptor and the line it writes, not a chunk's header). */
typedef struct cal_bucket {
    cal_chunk *head;
    uint32_t n;  /* entries in all its chunks */
    uint32_t hn; /* entries in the head chunk; CH_N when there is none (so
                  * that an append tests one thing: is the head full) */
} cal_bucket;

struct myri_sim {
    event_rec *pool;
    uint32_t *q;          /* each slot's state and generation (META_*) */
    size_t pcap;
    uint32_t *freelist;
    size_t nfree;
    /* the heap of events beyond the ring */
    heap_ent *heap_mem;/* allocation; heap = heap_mem + 3 so that the four
                        * children 4i+1..4i+4 of a node share a cache line */
    heap_ent *heap;
    size_t hn, hcap;
    /* the calendar */
    cal_bucket *cal_b;    /* the buckets (the loaded one's entries are in cs) */
    cal_chunk *ch_free;   /* free chunks, the last freed on top */
    void **slabs;         /* every chunk allocation, freed with the simulation */
    size_t nslabs, slabcap;
    cal_ent *cs_src;      /* scratch of cs_cap entries: a bucket's entries gathered from its chunks */
    uint64_t *cal_bits;   /* bit r: bucket r is not empty */
    uint32_t cal_nb;      /* buckets (a power of 2) */
    uint32_t cal_shift;   /* a bucket is 2^cal_shift ps */
    uint64_t cal_base;    /* absolute bucket of the last event taken */
    uint64_t cal_cur;     /* the first non-empty bucket (caln > 0) */
    size_t caln;          /* events in the calendar, cs included */
    cal_ent *cs;          /* the current bucket's entries, sorted, taken from cs_head */
    cal_ent *cs_tmp;      /* scratch of cs_cap entries for sorting a bucket */
    size_t cs_head, cs_n, cs_cap;
    bool cal_loaded;      /* cs holds bucket cal_loaded_bk */
    uint64_t cal_loaded_bk;
    uint64_t tune_taken;  /* events taken since the last tuning */
    uint64_t tune_min;    /* ... at least this many before the next (4096; 0 when pinned) */
    uint64_t tune_t0;     /* the time then */
    uint64_t rebuilds;    /* the calendar rebuilt (tests) */
    uint64_t radix_sorts; /* buckets sorted by counting (tests) */
    uint32_t max_shift;   /* the widest buckets used (tests) */
    int fault;            /* myri_sim__set_fault (tests) */
    bool pinned;          /* myri_sim__pin_geometry: no tuning (tests) */
    uint64_t pin_every, pin_count; /* ... and a rebuild every pin_every events taken */
    size_t live;       /* pending and not cancelled */
    size_t ncancelled; /* cancelled entries still in the pending set */
    bool in_handler;   /* a handler is running (myri_sim_advance) */
    bool stop;
    bool full;         /* a schedule failed for lack of slots or memory */
    lp_state *lp;       /* each logical process's counter and hash, by component id (reserved ids too) */
    uint32_t seq_start; /* the first number of every process (1; tests set it near the limit) */
    uint32_t cur_lp;    /* the running handler's component (the LP scheduling) */
    uint64_t cur_round; /* the running event's round (0 after an advance) */
    uint64_t renumbers; /* times the sequence numbers were renumbered (tests) */
    myri_time_ps last_t; /* the key of the last event run (ran: one has run): a given key */
    uint64_t last_ord;   /* must be above it (myri_sim_insert_keyed) */
    bool ran;
    myri_time_ps now;
    myri_time_ps until; /* horizon of the running myri_sim_run */
    bool no_advance;    /* myri_sim_advance disabled */
    uint64_t advances;  /* clock moves by myri_sim_advance */
    uint64_t events;
    uint64_t seed;
    myri_component **comp;
    size_t ncomp, compcap;
    FILE *progress;
    myri_time_ps progress_end;
    struct timespec progress_last, progress_start;
};

/* A key as one 128-bit number; NO_KEY is above every key (an order word
 * is never all ones: the sequence number stays below 2^32 - 1). */
#define NO_KEY (~(ent_u128)0)
static inline ent_u128 key_of(uint64_t t, uint64_t ord) { return (ent_u128)t << 64 | ord; }

/* ---- the pending set's out-of-line half (sim_pend.c) ---- */
/* Room for slots (and heap room for each: an entry that finds no memory in
 * the calendar goes there), for heap entries, for a loaded bucket; false
 * when out of memory. */
bool myri_sim__pool_grow(myri_sim *s);
bool myri_sim__heap_reserve(myri_sim *s, size_t need);
bool myri_sim__cs_reserve(myri_sim *s, size_t need);
/* A new chunk at the head of bucket b (its head is full or missing); false when out of memory. */
bool myri_sim__cal_new_chunk(myri_sim *s, cal_bucket *b);
/* Sorts bucket cal_cur into cs (it becomes the loaded bucket); false when out of memory. */
bool myri_sim__cal_load(myri_sim *s);
/* Puts calendar entry c (ring index r) into the loaded bucket, in key order; false when out of memory. */
bool myri_sim__cal_insert_loaded(myri_sim *s, uint32_t r, cal_ent c);
/* Puts entry e into the heap (room reserved: myri_sim__pool_grow). */
void myri_sim__heap_insert(myri_sim *s, heap_ent e);
/* The loaded bucket is used up: the next non-empty one found and loaded. */
void myri_sim__cal_bucket_done(myri_sim *s);
/* The calendar, empty, with buckets of 2^shift ps from the bucket of now. */
void myri_sim__cal_reset(myri_sim *s, uint32_t shift);
/* Every pending event put into a new calendar of buckets of 2^shift ps, the
 * cancelled ones dropped; renumber: each process's entries numbered again
 * from 1 in key order. */
void myri_sim__pend_rebuild(myri_sim *s, uint32_t shift, bool renumber);
/* Every max(live, 4096) events taken: the bucket width from the gaps seen. */
void myri_sim__pend_tune(myri_sim *s);
/* Drops the cancelled entries at the front; the live top in *top, false when none is pending. */
bool myri_sim__pend_live_top(myri_sim *s, heap_ent *top);
/* The least live key pending (NO_KEY if none), read only: the calendar
 * past its cancelled entries, then the heap (myri_sim_next_time's search). */
ent_u128 myri_sim__peek_least(const myri_sim *s);

/* ---- the hot path (inline where used) ---- */
/* Moves x up from index i. */
static __attribute__((unused)) void heap_sift_up(heap_ent *h, size_t i, heap_ent x)
{
    while (i > 0) {
        size_t parent = (i - 1) >> 2;
        if (!ent_lt(x, h[parent])) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = x;
}

/* Moves x down from index i (a hole there). */
static __attribute__((unused)) void heap_sift_down(heap_ent *h, size_t n, size_t i, heap_ent x)
{
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n) break;
        size_t best = c, end = c + 4 < n ? c + 4 : n;
        for (size_t k = c + 1; k < end; k++)
            if (ent_lt(h[k], h[best])) best = k;
        if (!ent_lt(h[best], x)) break;
        h[i] = h[best];
        i = best;
    }
    h[i] = x;
}

static __attribute__((unused)) heap_ent heap_pop(myri_sim *s)
{
    heap_ent top = s->heap[0], last = s->heap[--s->hn];
    if (s->hn > 0) heap_sift_down(s->heap, s->hn, 0, last);
    return top;
}

static __attribute__((unused)) void slot_free(myri_sim *s, uint32_t slot)
{
    s->q[slot] = (META_GEN(s->q[slot]) + 1) << 2 | REC_FREE;
    s->freelist[s->nfree++] = slot;
}

/* Appends e to bucket r; false when out of memory. */
static inline bool cal_append(myri_sim *s, uint32_t r, cal_ent e)
{
    cal_bucket *b = &s->cal_b[r];
    if (__builtin_expect(b->hn == CH_N, 0) && !myri_sim__cal_new_chunk(s, b)) return false; /* (full, or no head) */
    b->head->e[b->hn++] = e;
    b->n++;
    s->cal_bits[r / 64] |= 1ull << (r % 64);
    return true;
}

/* Puts entry e into the calendar or the heap. */
static inline void pend_insert(myri_sim *s, heap_ent e)
{
    uint64_t bk = ENT_T(e) >> s->cal_shift;
    if (__builtin_expect(bk - s->cal_base >= s->cal_nb || bk < s->cal_base, 0)) {
        myri_sim__heap_insert(s, e);
        return;
    }
    uint32_t r = (uint32_t)(bk & (s->cal_nb - 1));
    cal_ent c = CE_MK(ENT_T(e) & ((1ull << s->cal_shift) - 1), e.ord, e.slot);
    if (s->cal_loaded && bk == s->cal_loaded_bk) {
        if (!myri_sim__cal_insert_loaded(s, r, c) && !cal_append(s, r, c)) {
            myri_sim__heap_insert(s, e); /* out of memory: the heap has room */
            return;
        }
    } else if (!cal_append(s, r, c)) {
        myri_sim__heap_insert(s, e); /* out of memory: the heap has room */
        return;
    }
    if (s->caln++ == 0 || bk < s->cal_cur) s->cal_cur = bk;
}

/* The calendar's smallest entry (caln > 0); false when out of memory. */
static inline bool cal_top(myri_sim *s, heap_ent *top)
{
    if ((!s->cal_loaded || s->cal_loaded_bk != s->cal_cur) && !myri_sim__cal_load(s)) return false;
    *top = ce_ent(s->cs[s->cs_head], s->cal_loaded_bk << s->cal_shift);
    return true;
}

/* Takes the calendar's first entry (cal_top was called). */
static inline uint32_t cal_take(myri_sim *s)
{
    uint32_t slot = CE_SLOT(s->cs[s->cs_head++]);
    s->cal_base = s->cal_cur;
    --s->caln;
    if (s->cs_head + 7 < s->cs_n) { /* (myri_sim__cal_load asked for the first 8) */
        __builtin_prefetch(&s->pool[CE_SLOT(s->cs[s->cs_head + 7])]);
        __builtin_prefetch(&s->q[CE_SLOT(s->cs[s->cs_head + 7])]);
    }
    if (__builtin_expect(s->cs_head == s->cs_n, 0)) myri_sim__cal_bucket_done(s);
    return slot;
}

/* The smallest pending entry (cancelled ones included) in *top; false if none. */
static __attribute__((unused)) bool pend_top(myri_sim *s, heap_ent *top, bool *from_cal)
{
    bool have = false;
    if (s->caln && cal_top(s, top)) *from_cal = have = true;
    if (s->hn && (!have || (s->fault != 1 && ent_lt(s->heap[0], *top)))) {
        *top = s->heap[0];
        *from_cal = false;
        have = true;
    }
    return have;
}

/* Removes the smallest entry (pend_top said where). */
static __attribute__((unused)) uint32_t pend_take(myri_sim *s, heap_ent top, bool from_cal)
{
    if (from_cal) return cal_take(s);
    heap_pop(s);
    uint64_t bk = ENT_T(top) >> s->cal_shift;
    if (bk > s->cal_base) s->cal_base = bk; /* nothing is scheduled before it any more */
    return ENT_SLOT(top);
}

static __attribute__((unused)) size_t pend_count(const myri_sim *s) { return s->caln + s->hn; }

/* Takes the least pending entry (cancelled ones included) when its time is
 * at most `until`: returns 1 with its time, order word and slot, 0 when
 * nothing is pending, -1 when the least is beyond `until` (left pending).
 * The run loop's one call: its common case, the loaded bucket's front with
 * the heap's top not below it, reads the front once and builds no heap_ent
 * (issue 24 round 7); the rest goes the general way (pend_top). */
static inline int pend_next(myri_sim *s, myri_time_ps until, uint64_t *t, uint64_t *ord, uint32_t *slot)
{
    if (__builtin_expect(s->caln && s->cal_loaded && s->cal_loaded_bk == s->cal_cur, 1)) {
        cal_ent c = s->cs[s->cs_head];
        uint64_t ct = s->cal_loaded_bk << s->cal_shift | CE_OFF(c), co = CE_ORD(c);
        if (!s->hn || s->fault == 1 || !ent_lt(s->heap[0], (heap_ent){.t = ct, .ord = co})) {
            if (ct > until) return -1;
            *t = ct;
            *ord = co;
            *slot = cal_take(s);
            return 1;
        }
    }
    heap_ent top;
    bool from_cal = false;
    if (!pend_top(s, &top, &from_cal)) return 0;
    if (ENT_T(top) > until) return -1;
    *t = ENT_T(top);
    *ord = top.ord;
    *slot = pend_take(s, top, from_cal);
    return 1;
}

#endif
