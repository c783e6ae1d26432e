/* sim.c -- the event engine (see sim.h).
 *
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
#define _DEFAULT_SOURCE 1 /* madvise(MADV_HUGEPAGE) */
#include "myri/sim.h"
#include "engine/sim_internal.h"
#include "engine/keysort.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

static myri_panic_hook panic_hook;

/* ---- heap ------------------------------------------------------------------ */
/* Moves x up from index i. */
static void heap_sift_up(heap_ent *h, size_t i, heap_ent x)
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
static void heap_sift_down(heap_ent *h, size_t n, size_t i, heap_ent x)
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

static heap_ent heap_pop(myri_sim *s)
{
    heap_ent top = s->heap[0], last = s->heap[--s->hn];
    if (s->hn > 0) heap_sift_down(s->heap, s->hn, 0, last);
    return top;
}

/* ---- memory ------------------------------------------------------------------ */
/* Allocates n bytes aligned to 64; arrays of 2 MiB and more are aligned to
 * 2 MiB and marked for transparent huge pages (where the system gives them):
 * with a million pending events the pool is tens of MiB accessed at random. */
static void *big_alloc(size_t n)
{
    const size_t huge = 2u << 20;
    if (n < huge) return aligned_alloc(64, (n + 63) & ~(size_t)63);
    size_t len = (n + huge - 1) & ~(huge - 1);
    void *p = aligned_alloc(huge, len);
#ifdef MADV_HUGEPAGE
    if (p) (void)madvise(p, len, MADV_HUGEPAGE);
#endif
    return p;
}

/* Grows an array from old_n to new_n elements of `size` bytes (copying). */
static void *big_grow(void *old, size_t old_n, size_t new_n, size_t size)
{
    void *p = big_alloc(new_n * size);
    if (!p) return NULL;
    if (old_n) memcpy(p, old, old_n * size);
    memset((char *)p + old_n * size, 0, (new_n - old_n) * size);
    free(old);
    return p;
}

/* ---- pool ------------------------------------------------------------------- */
static void slot_free(myri_sim *s, uint32_t slot)
{
    s->q[slot] = (META_GEN(s->q[slot]) + 1) << 2 | REC_FREE;
    s->freelist[s->nfree++] = slot;
}

static bool heap_reserve(myri_sim *s, size_t need);

static bool pool_grow(myri_sim *s)
{
    size_t ncap = s->pcap ? 2 * s->pcap : 1024;
    if (ncap > MAX_SLOTS) ncap = MAX_SLOTS;
    if (ncap <= s->pcap) return false;
    /* the heap has room for an entry of every slot, so that a schedule that
     * has a slot never asks whether it has heap room (entries pending, in the
     * calendar and the heap, are never more than the slots in use) */
    if (!heap_reserve(s, ncap)) return false;
    event_rec *p = big_grow(s->pool, s->pcap, ncap, sizeof *p);
    if (!p) return false;
    s->pool = p;
    uint32_t *q = big_grow(s->q, s->pcap, ncap, sizeof *q);
    if (!q) return false;
    s->q = q;
    uint32_t *f = big_grow(s->freelist, s->nfree, ncap, sizeof *f);
    if (!f) return false;
    s->freelist = f;
    for (size_t i = ncap; i-- > s->pcap;) s->freelist[s->nfree++] = (uint32_t)i;
    s->pcap = ncap;
    return true;
}

static bool heap_reserve(myri_sim *s, size_t need)
{
    if (need <= s->hcap) return true;
    size_t ncap = s->hcap ? 2 * s->hcap : 1024;
    while (ncap < need) ncap *= 2;
    heap_ent *mem = big_alloc((ncap + 4) * sizeof *mem);
    if (!mem) return false;
    if (s->hn) memcpy(mem + 3, s->heap, s->hn * sizeof *mem);
    free(s->heap_mem);
    s->heap_mem = mem;
    s->heap = mem + 3;
    s->hcap = ncap;
    return true;
}

static bool cs_reserve(myri_sim *s, size_t need)
{
    if (need <= s->cs_cap) return true;
    size_t ncap = s->cs_cap ? 2 * s->cs_cap : 64;
    while (ncap < need) ncap *= 2;
    cal_ent *n = realloc(s->cs, ncap * sizeof *n);
    if (!n) return false;
    s->cs = n;
    cal_ent *t = realloc(s->cs_tmp, ncap * sizeof *t);
    if (!t) return false; /* (cs grown, cs_cap not: asked again next time) */
    s->cs_tmp = t;
    t = realloc(s->cs_src, ncap * sizeof *t);
    if (!t) return false;
    s->cs_src = t;
    s->cs_cap = ncap;
    return true;
}

/* ---- calendar ------------------------------------------------------------------ */

/* A free chunk (the last one freed), or NULL when out of memory. */
static cal_chunk *ch_get(myri_sim *s)
{
    if (!s->ch_free) {
        if (s->nslabs == s->slabcap) {
            size_t nc = s->slabcap ? 2 * s->slabcap : 16;
            void **ns = realloc(s->slabs, nc * sizeof *ns);
            if (!ns) return NULL;
            s->slabs = ns;
            s->slabcap = nc;
        }
        cal_chunk *slab = aligned_alloc(64, CH_SLAB * sizeof *slab);
        if (!slab) return NULL;
        s->slabs[s->nslabs++] = slab;
        for (uint32_t i = CH_SLAB; i-- > 0;) {
            slab[i].next = s->ch_free;
            s->ch_free = &slab[i];
        }
    }
    cal_chunk *c = s->ch_free;
    s->ch_free = c->next;
    return c;
}

/* Empties bucket b, its chunks onto the free stack (*gather: its entries
 * copied there first, unless NULL). */
static void ch_release(myri_sim *s, cal_bucket *b, cal_ent *gather)
{
    size_t k = 0;
    uint32_t cn = b->hn;
    for (cal_chunk *c = b->head, *next; c; c = next, cn = CH_N) {
        next = c->next;
        for (uint32_t i = 0; gather && i < cn; i++) gather[k++] = c->e[i]; /* (mostly a few: no call) */
        c->next = s->ch_free;
        s->ch_free = c;
    }
    b->head = NULL;
    b->n = 0;
    b->hn = CH_N;
}

/* A new chunk at the head of bucket b (its head is full or missing); false
 * when out of memory. */
static __attribute__((noinline)) bool cal_new_chunk(myri_sim *s, cal_bucket *b)
{
    cal_chunk *nc = ch_get(s);
    if (!nc) return false;
    nc->next = b->head;
    b->head = nc;
    b->hn = 0;
    return true;
}

/* Appends e to bucket r; false when out of memory. */
static inline bool cal_append(myri_sim *s, uint32_t r, cal_ent e)
{
    cal_bucket *b = &s->cal_b[r];
    if (__builtin_expect(b->hn == CH_N, 0) && !cal_new_chunk(s, b)) return false; /* (full, or no head) */
    b->head->e[b->hn++] = e;
    b->n++;
    s->cal_bits[r / 64] |= 1ull << (r % 64);
    return true;
}

/* Puts the loaded bucket's remaining entries back into its chunks (out of
 * memory for a chunk: a panic, as nowhere else can keep them). */
static void cal_unload(myri_sim *s)
{
    uint32_t r = (uint32_t)(s->cal_loaded_bk & (s->cal_nb - 1));
    for (size_t i = s->cs_head; i < s->cs_n; i++)
        if (!cal_append(s, r, s->cs[i])) myri_panic(NULL, "out of memory (engine calendar)");
    s->cs_head = s->cs_n = 0;
    s->cal_loaded = false;
}

/* Sorts n entries by key (keysort.h): full entries, and a bucket's. */
MYRI_KEYSORT_DEFINE(ent_sort, heap_ent, ent_lt)
#define CE_LT(a, b) ((a) < (b))
MYRI_KEYSORT_DEFINE(ce_sort, cal_ent, CE_LT)

#define CAL_DIGIT_MAX 12u /* the widest digit of a counting pass (a 16 KiB count array) */

/* One stable counting pass: src's n entries into dst by the digit of `bits`
 * bits (at most CAL_DIGIT_MAX) of their time's offset in the bucket at bit
 * `bit`. */
static void cal_sort_pass(cal_ent *dst, const cal_ent *src, size_t n, unsigned bit, unsigned bits)
{
    uint32_t cnt[1u << CAL_DIGIT_MAX];
    uint32_t nd = 1u << bits, mask = nd - 1;
    memset(cnt, 0, nd * sizeof cnt[0]);
    for (size_t i = 0; i < n; i++) cnt[(CE_OFF(src[i]) >> bit) & mask]++;
    uint32_t sum = 0;
    for (unsigned d = 0; d < nd; d++) {
        uint32_t c = cnt[d];
        cnt[d] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++) dst[cnt[(CE_OFF(src[i]) >> bit) & mask]++] = src[i];
}

/* Sorts a bucket's n entries src[] (every offset below 2^shift) into dst[]
 * by key, tmp[] scratch.  Buckets of up to 2^16 ps and 64
 * entries or more: a stable counting sort on the time's offset in the bucket,
 * with no data-dependent branch: one pass when the offsets have at most 8
 * bits, or at most 12 and the bucket has at least half as many entries as
 * there are offsets (the 2^11 ps buckets of the hold model at 1e6 pending
 * hold ~2 000), else two passes, of 8 bits and the rest (a comparison sort
 * of a bucket of random times mispredicts about every other comparison), then
 * an insertion pass over the whole key, which only moves entries of equal time
 * (few: it orders them by sequence, whatever order they were appended in).
 * Otherwise the comparison sort ce_sort.  fault: the insertion pass left
 * out (myri_sim__set_fault 2, for the test that must see it).  Returns whether
 * it sorted by counting. */
static bool cal_sort(cal_ent *dst, cal_ent *tmp, const cal_ent *src, size_t n, uint32_t shift, bool fault)
{
    if (n < 64 || shift > 16) {
        memcpy(dst, src, n * sizeof *dst);
        ce_sort(dst, n);
        return false;
    }
    if (shift <= 8 || (shift <= CAL_DIGIT_MAX && (1ull << shift) <= 2 * n)) {
        cal_sort_pass(dst, src, n, 0, shift ? shift : 1);
    } else {
        cal_sort_pass(tmp, src, n, 0, 8);
        cal_sort_pass(dst, tmp, n, 8, shift - 8);
    }
    for (size_t i = 1; !fault && i < n; i++) {
        cal_ent k = dst[i];
        size_t j = i;
        for (; j > 0 && k < dst[j - 1]; j--) dst[j] = dst[j - 1];
        dst[j] = k;
    }
    return true;
}

/* Sorts bucket cal_cur into cs (its array then empty); asks for the records
 * of its first events, which run next.  false when out of memory. */
static bool cal_load(myri_sim *s)
{
    if (s->cal_loaded) cal_unload(s);
    uint32_t r = (uint32_t)(s->cal_cur & (s->cal_nb - 1));
    cal_bucket *b = &s->cal_b[r];
    if (!cs_reserve(s, b->n)) return false;
    size_t n = b->n;
    if (n < 64) { /* (the common case below 1e4 pending: a few entries, inline) */
        ch_release(s, b, s->cs);
        ce_sort(s->cs, n);
    } else {
        ch_release(s, b, s->cs_src);
        s->radix_sorts += cal_sort(s->cs, s->cs_tmp, s->cs_src, n, s->cal_shift, s->fault == 2);
    }
    for (size_t i = 0; i < n && i < 8; i++) {
        __builtin_prefetch(&s->pool[CE_SLOT(s->cs[i])]);
        __builtin_prefetch(&s->q[CE_SLOT(s->cs[i])]);
    }
    s->cs_head = 0;
    s->cs_n = n;
    s->cal_loaded = true;
    s->cal_loaded_bk = s->cal_cur;
    return true;
}

/* Puts calendar entry c of bucket bk (ring index r) into the loaded,
 * sorted bucket, in key order; false when out of memory for it. */
static __attribute__((noinline)) bool cal_insert_loaded(myri_sim *s, uint32_t r, cal_ent c)
{
    if (!cs_reserve(s, s->cs_n + 1)) return false;
    size_t lo = s->cs_head, hi = s->cs_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->cs[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    memmove(&s->cs[lo + 1], &s->cs[lo], (s->cs_n - lo) * sizeof *s->cs);
    s->cs[lo] = c;
    s->cs_n++;
    s->cal_bits[r / 64] |= 1ull << (r % 64);
    return true;
}

/* Puts entry e into the heap (room reserved by the caller). */
static __attribute__((noinline)) void heap_insert(myri_sim *s, heap_ent e) { heap_sift_up(s->heap, s->hn++, e); }

/* Puts entry e into the calendar or the heap. */
static inline void pend_insert(myri_sim *s, heap_ent e)
{
    uint64_t bk = ENT_T(e) >> s->cal_shift;
    if (__builtin_expect(bk - s->cal_base >= s->cal_nb || bk < s->cal_base, 0)) {
        heap_insert(s, e);
        return;
    }
    uint32_t r = (uint32_t)(bk & (s->cal_nb - 1));
    cal_ent c = CE_MK(ENT_T(e) & ((1ull << s->cal_shift) - 1), e.ord, e.slot);
    if (s->cal_loaded && bk == s->cal_loaded_bk) {
        if (!cal_insert_loaded(s, r, c) && !cal_append(s, r, c)) {
            heap_insert(s, e); /* out of memory: the heap has room */
            return;
        }
    } else if (!cal_append(s, r, c)) {
        heap_insert(s, e); /* out of memory: the heap has room */
        return;
    }
    if (s->caln++ == 0 || bk < s->cal_cur) s->cal_cur = bk;
}

/* The calendar's smallest entry (caln > 0); false when out of memory. */
static inline bool cal_top(myri_sim *s, heap_ent *top)
{
    if ((!s->cal_loaded || s->cal_loaded_bk != s->cal_cur) && !cal_load(s)) return false;
    *top = ce_ent(s->cs[s->cs_head], s->cal_loaded_bk << s->cal_shift);
    return true;
}

/* The loaded bucket is used up: its bit cleared unless filled since, and
 * the next non-empty bucket found and loaded (cal_take's rare half: once a
 * bucket, out of line so that the take keeps its registers). */
static __attribute__((noinline)) void cal_bucket_done(myri_sim *s)
{
    uint32_t r = (uint32_t)(s->cal_cur & (s->cal_nb - 1));
    s->cs_head = s->cs_n = 0;
    s->cal_loaded = false;
    if (s->cal_b[r].n) return; /* (filled since it was loaded: when cs had no room) */
    s->cal_bits[r / 64] &= ~(1ull << (r % 64));
    if (s->caln == 0) return;
    uint32_t words = s->cal_nb / 64, w = r / 64; /* the next set bit after r, cyclically */
    uint64_t m = r % 64 == 63 ? 0 : s->cal_bits[w] & ~((2ull << (r % 64)) - 1);
    while (!m) {
        w = (w + 1) & (words - 1);
        m = s->cal_bits[w];
    }
    uint32_t nr = w * 64 + (uint32_t)__builtin_ctzll(m);
    s->cal_cur += (uint64_t)((nr - r) & (s->cal_nb - 1));
    if (!cal_load(s)) s->full = true; /* (loaded now, its records asked for: it runs next) */
}

/* Takes the calendar's first entry (cal_top was called). */
static inline uint32_t cal_take(myri_sim *s)
{
    uint32_t slot = CE_SLOT(s->cs[s->cs_head++]);
    s->cal_base = s->cal_cur;
    --s->caln;
    if (s->cs_head + 7 < s->cs_n) { /* (cal_load asked for the first 8) */
        __builtin_prefetch(&s->pool[CE_SLOT(s->cs[s->cs_head + 7])]);
        __builtin_prefetch(&s->q[CE_SLOT(s->cs[s->cs_head + 7])]);
    }
    if (__builtin_expect(s->cs_head == s->cs_n, 0)) cal_bucket_done(s);
    return slot;
}

/* The smallest pending entry (cancelled ones included) in *top; false if none. */
static bool pend_top(myri_sim *s, heap_ent *top, bool *from_cal)
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
static uint32_t pend_take(myri_sim *s, heap_ent top, bool from_cal)
{
    if (from_cal) return cal_take(s);
    heap_pop(s);
    uint64_t bk = ENT_T(top) >> s->cal_shift;
    if (bk > s->cal_base) s->cal_base = bk; /* nothing is scheduled before it any more */
    return ENT_SLOT(top);
}

static size_t pend_count(const myri_sim *s) { return s->caln + s->hn; }

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



/* Every pending entry (from the calendar and the heap), leaving both empty;
 * cancelled ones are freed, not returned.  Returns the count, or SIZE_MAX
 * when out of memory (nothing changed then). */
static size_t pend_drain(myri_sim *s, heap_ent **out)
{
    size_t n = pend_count(s), k = 0;
    heap_ent *a = malloc((n ? n : 1) * sizeof *a);
    if (!a) return SIZE_MAX;
    for (size_t i = s->cs_head; s->cal_loaded && i < s->cs_n; i++)
        a[k++] = ce_ent(s->cs[i], s->cal_loaded_bk << s->cal_shift);
    for (uint32_t r = 0; r < s->cal_nb; r++) { /* bucket r holds absolute bucket cal_base + (r - cal_base) mod nb */
        uint64_t base_ps = (s->cal_base + ((r - s->cal_base) & (s->cal_nb - 1))) << s->cal_shift;
        if (s->fault == 5) base_ps = ((s->cal_base & ~(uint64_t)(s->cal_nb - 1)) + r) << s->cal_shift; /* (tests) */
        uint32_t cn = s->cal_b[r].hn;
        for (const cal_chunk *c = s->cal_b[r].head; c; c = c->next, cn = CH_N)
            for (uint32_t i = 0; i < cn; i++) a[k++] = ce_ent(c->e[i], base_ps);
        ch_release(s, &s->cal_b[r], NULL);
    }
    memset(s->cal_bits, 0, s->cal_nb / 8);
    for (size_t i = 0; i < s->hn; i++) a[k++] = s->heap[i];
    s->hn = 0;
    s->caln = 0;
    s->cs_head = s->cs_n = 0;
    s->cal_loaded = false;
    size_t j = 0;
    for (size_t i = 0; i < k; i++) {
        uint32_t slot = ENT_SLOT(a[i]);
        if (META_STATE(s->q[slot]) == REC_CANCELLED) slot_free(s, slot);
        else a[j++] = a[i];
    }
    s->ncancelled = 0;
    *out = a;
    return j;
}

/* The calendar, empty, with buckets of 2^shift ps from the bucket of now. */
static void cal_reset(myri_sim *s, uint32_t shift)
{
    for (uint32_t r = 0; r < s->cal_nb; r++) ch_release(s, &s->cal_b[r], NULL);
    memset(s->cal_bits, 0, (size_t)s->cal_nb / 8);
    s->cal_shift = shift;
    s->cal_base = s->now >> shift;
    if (shift > s->max_shift) s->max_shift = shift;
}

/* Renumbers the n live entries a[] (any order): each logical process's
 * entries get the numbers 1, 2, ... in key order and its counter the next
 * one, so that every order between entries, pending or scheduled later, is
 * what it would have been with numbers of unbounded width. */
static void pend_renumber(myri_sim *s, heap_ent *a, size_t n)
{
    ent_sort(a, n);
    for (size_t c = 0; c < s->ncomp; c++) s->lp[c].seq = 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t lp = ORD_LP(a[i].ord);
        if (!s->comp[lp]) continue; /* a reserved process's keys were given by its owner: kept */
        a[i].ord = ORD(ORD_ROUND(a[i].ord), lp, s->lp[lp].seq++);
    }
    s->renumbers++;
}

/* Puts every pending event into a new calendar (buckets of 2^shift ps),
 * dropping the cancelled ones; renumber: see pend_renumber. */
static void pend_rebuild(myri_sim *s, uint32_t shift, bool renumber)
{
    heap_ent *a;
    size_t n = pend_drain(s, &a);
    if (n == SIZE_MAX) { /* out of memory: keep going with what there is */
        s->full = true;
        return;
    }
    cal_reset(s, shift);
    if (renumber) pend_renumber(s, a, n);
    if (heap_reserve(s, n)) {
        for (size_t i = 0; i < n; i++) pend_insert(s, a[i]);
    } else {
        s->full = true; /* (cannot happen: the heap held them all before) */
    }
    s->rebuilds++;
    free(a);
}

/* Every max(live, 4096) events taken: the bucket width from the mean gap
 * between the events taken since the last tuning and the live events (about
 * max(live, 4096) / CAL_PER events to a bucket, at least 8: with fewer a
 * bucket is loaded, and the bit map scanned, every event or two; the ring
 * then spans about 8 x max(live, 4096) x gap, a few times the span of the
 * pending events when they are spread evenly); rebuilt when the width is
 * off by 4x or more.  (The width decides nothing a model can see:
 * myri_sim_next_time counts live events only, issue 24 round 5.) */
static void pend_tune(myri_sim *s)
{
    if (s->pinned) { /* (tests: myri_sim__pin_geometry) */
        s->tune_taken = 0;
        if (s->pin_every && ++s->pin_count % s->pin_every == 0) pend_rebuild(s, s->cal_shift, false);
        return;
    }
    double gap = (double)(s->now - s->tune_t0) / (double)s->tune_taken; /* ps, fractional */
    double w = gap * (double)(s->live > 4096 ? s->live : 4096) / CAL_PER; /* at least 8 events to a bucket */
    uint32_t shift = 0;
    while (shift < CAL_OFF_BITS && (double)(2ull << shift) <= w) shift++;
    s->tune_taken = 0;
    s->tune_t0 = s->now;
    int d = (int)shift - (int)s->cal_shift;
    if (d >= 2 || d <= -2) pend_rebuild(s, shift, false);
}

/* ---- public API -------------------------------------------------------------------- */
/* A component's random stream is keyed by its name, not by the order of
 * creation, so that adding a component leaves every other stream as it was:
 * the xoshiro256** state is seeded (SplitMix64) from the simulation's seed
 * and the FNV-1a hash of the name, and the k-th component of the same name
 * mixes k in.  (Streams of different names are not provably disjoint as jump
 * streams are; over a 2^256 period an overlap is not a practical concern.) */
static void sim__stream(myri_sim *s, myri_component *c)
{
    uint64_t h = myri_rng_name_hash(c->name), dup = 0;
    c->name_hash = h;
    for (size_t i = 0; i < s->ncomp; i++)
        if (s->comp[i] && s->comp[i]->name_hash == h && strcmp(s->comp[i]->name, c->name) == 0) dup++;
    myri_rng_named(&c->rng, s->seed, c->name, dup);
}

myri_sim *myri_sim_create(uint64_t seed)
{
    myri_sim *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->seed = seed;
    s->seq_start = 1;
    s->cal_nb = CAL_NB;
    s->cal_b = calloc(CAL_NB, sizeof *s->cal_b);
    s->cal_bits = calloc(CAL_NB / 64, sizeof *s->cal_bits);
    if (!s->cal_b || !s->cal_bits || !pool_grow(s) || !heap_reserve(s, 1024) || !cs_reserve(s, 64)) {
        myri_sim_destroy(s);
        return NULL;
    }
    cal_reset(s, 10); /* 1 ns buckets until the first tuning */
    s->tune_min = 4096;
    return s;
}

void myri_sim_destroy(myri_sim *s)
{
    if (!s) return;
    for (size_t i = s->ncomp; i-- > 0;) {
        myri_component *c = s->comp[i];
        if (!c) continue; /* a reserved id */
        if (c->ops->destroy) c->ops->destroy(c);
        free(c->name);
        free(c);
    }
    free(s->comp);
    free(s->lp);
    free(s->heap_mem);
    free(s->pool);
    free(s->q);
    for (size_t i = 0; i < s->nslabs; i++) free(s->slabs[i]);
    free(s->slabs);
    free(s->cal_b);
    free(s->cal_bits);
    free(s->cs);
    free(s->cs_tmp);
    free(s->cs_src);
    free(s->freelist);
    free(s);
}

/* Room for `need` components (and their process states). */
static bool sim__comp_room(myri_sim *s, size_t need)
{
    if (need <= s->compcap) return true;
    size_t ncap = s->compcap ? 2 * s->compcap : 16;
    while (ncap < need) ncap *= 2;
    myri_component **c = realloc(s->comp, ncap * sizeof *c);
    if (!c) return false;
    s->comp = c;
    lp_state *q = realloc(s->lp, ncap * sizeof *q);
    if (!q) return false;
    s->lp = q;
    s->compcap = ncap;
    return true;
}

myri_status myri_sim_reserve(myri_sim *s, size_t n)
{
    if (!s) return MYRI_EINVAL;
    if (n > LP_LIMIT - s->ncomp) return MYRI_EFULL; /* (ncomp <= LP_LIMIT always) */
    if (!sim__comp_room(s, s->ncomp + n)) return MYRI_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        s->lp[s->ncomp] = (lp_state){.seq = s->seq_start};
        s->comp[s->ncomp++] = NULL;
    }
    return MYRI_OK;
}

myri_status myri_sim_add(myri_sim *s, const myri_component_ops *ops, const char *name, const void *config,
                         myri_component **out)
{
    if (out) *out = NULL;
    if (!s || !ops || !ops->handle || !name) return MYRI_EINVAL;
    if (s->ncomp >= LP_LIMIT) return MYRI_EFULL; /* its id would not fit the key */
    if (!sim__comp_room(s, s->ncomp + 1)) return MYRI_ENOMEM;
    myri_component *c = calloc(1, sizeof *c);
    char *nm = malloc(strlen(name) + 1);
    if (!c || !nm) {
        free(c);
        free(nm);
        return MYRI_ENOMEM;
    }
    strcpy(nm, name);
    c->ops = ops;
    c->sim = s;
    c->name = nm;
    c->id = (uint32_t)s->ncomp;
    sim__stream(s, c);
    if (ops->create) {
        myri_status st = ops->create(c, config);
        if (st != MYRI_OK) {
            free(nm);
            free(c);
            return st;
        }
    }
    s->lp[s->ncomp] = (lp_state){.seq = s->seq_start};
    s->comp[s->ncomp++] = c;
    if (out) *out = c;
    return MYRI_OK;
}

size_t myri_sim_component_count(const myri_sim *s) { return s ? s->ncomp : 0; }
myri_component *myri_sim_component(const myri_sim *s, size_t i) { return s && i < s->ncomp ? s->comp[i] : NULL; }

/* Puts a copy of *ev into the pending set at (at, ord); 0 when full. */
/* The rare half of sim__enqueue: a slot, and with it heap room (pool_grow
 * keeps room for every slot's entry: an entry that cannot go into the
 * calendar for want of memory goes there); false when out of memory. */
static __attribute__((noinline, cold)) bool sim__room(myri_sim *s)
{
    if (!pool_grow(s)) {
        s->full = true;
        return false;
    }
    return true;
}

static inline __attribute__((always_inline)) myri_event_id sim__enqueue(myri_sim *s, myri_time_ps at, uint64_t ord,
                                                                        const myri_event *ev)
{
    if (__builtin_expect(s->nfree == 0, 0) && !sim__room(s)) return 0;
    /* The record is read into a local and written last: written first, its
     * 32- and 64-bit stores could alias the simulation's fields, which the
     * compiler would then load again for the insertion. */
    event_rec rec;
    memcpy(&rec, ev, sizeof rec); /* (ev's first 32 bytes: target, kind, arg32, arg, ptr) */
    uint32_t slot = s->freelist[--s->nfree];
    pend_insert(s, (heap_ent){.t = at, .ord = ord, .slot = slot});
    s->live++;
    uint32_t m = (s->q[slot] & ~3u) | REC_PENDING;
    s->q[slot] = m;
    s->pool[slot] = rec;
    return (((uint64_t)META_GEN(m) << SLOT_BITS) | slot) + 1; /* never 0 */
}

/* The round of an event for `at` scheduled now: one more than the running
 * event's when scheduled for the same instant, else 0 (docs/ENGINE.md "Time
 * and order"). */
static inline uint64_t sim__round(const myri_sim *s, myri_time_ps at)
{
    return s->in_handler && at == s->now ? s->cur_round + (s->cur_round < ROUND_MAX) : 0;
}

/* Makes sure process lp has a number to give (renumbering every pending
 * event when its numbers ran out); false when the memory for it is missing. */
static __attribute__((noinline, cold)) bool sim__seq_renumber(myri_sim *s, uint32_t lp)
{
    pend_rebuild(s, s->cal_shift, true);
    if (s->lp[lp].seq < SEQ_LIMIT - 1) return true;
    s->full = true; /* (out of memory for the rebuild) */
    return false;
}

static inline bool sim__seq_ok(myri_sim *s, uint32_t lp)
{
    if (__builtin_expect(s->lp[lp].seq < SEQ_LIMIT - 1, 1)) return true;
    return sim__seq_renumber(s, lp);
}

/* Schedules *ev at `at` with the key of process lp (a created component):
 * the general way, every case. */
static __attribute__((noinline)) myri_event_id sim__schedule_lp_all(myri_sim *s, uint32_t lp, myri_time_ps at,
                                                                   const myri_event *ev)
{
    if (!sim__seq_ok(s, lp)) return 0;
    uint32_t seq = s->lp[lp].seq; /* (read once: the insertion's stores may alias it) */
    myri_event_id id = sim__enqueue(s, at, ORD(sim__round(s, at), lp, seq), ev);
    if (id) s->lp[lp].seq = seq + 1;
    return id;
}

/* The same, its common case inline: the process has numbers left, a slot is
 * free, and the entry goes into the ring's bucket, not the one being taken
 * from, whose newest chunk has room.  Then it does what sim__schedule_lp_all
 * does in that case, with no call in its way (so it saves no registers:
 * issue 24 round 7); otherwise it hands over to it. */
static inline myri_event_id sim__schedule_lp(myri_sim *s, uint32_t lp, myri_time_ps at, const myri_event *ev)
{
    uint32_t seq = s->lp[lp].seq;
    uint64_t bk = at >> s->cal_shift;
    if (__builtin_expect(seq >= SEQ_LIMIT - 1 || s->nfree == 0 || bk - s->cal_base >= s->cal_nb ||
                             bk < s->cal_base || (s->cal_loaded && bk == s->cal_loaded_bk),
                         0))
        return sim__schedule_lp_all(s, lp, at, ev);
    uint32_t r = (uint32_t)(bk & (s->cal_nb - 1));
    cal_bucket *b = &s->cal_b[r];
    if (__builtin_expect(b->hn == CH_N, 0)) { /* a new chunk, the last one freed (cal_new_chunk) */
        cal_chunk *nc = s->ch_free;
        if (!nc) return sim__schedule_lp_all(s, lp, at, ev); /* (none: a slab to allocate) */
        s->ch_free = nc->next;
        nc->next = b->head;
        b->head = nc;
        b->hn = 0;
    }
    event_rec rec;
    memcpy(&rec, ev, sizeof rec); /* (ev's first 32 bytes; read before the stores, which may alias it) */
    uint64_t ord = ORD(sim__round(s, at), lp, seq);
    uint32_t slot = s->freelist[--s->nfree];
    b->head->e[b->hn++] = CE_MK(at & ((1ull << s->cal_shift) - 1), ord, slot);
    b->n++;
    s->cal_bits[r / 64] |= 1ull << (r % 64);
    if (s->caln++ == 0 || bk < s->cal_cur) s->cal_cur = bk;
    s->live++;
    uint32_t m = (s->q[slot] & ~3u) | REC_PENDING;
    s->q[slot] = m;
    s->pool[slot] = rec;
    s->lp[lp].seq = seq + 1;
    return (((uint64_t)META_GEN(m) << SLOT_BITS) | slot) + 1; /* never 0 */
}

myri_event_id myri_sim_schedule(myri_sim *s, myri_time_ps at, const myri_event *ev)
{
    if (!s || !ev || !ev->target || ev->target->sim != s || at < s->now || (ev->kind & KIND_RUN_AS)) return 0;
    /* The key: the scheduling logical process (the running handler's
     * component; outside any handler the target), its next number, and the
     * round (sim__round). */
    return sim__schedule_lp(s, s->in_handler ? s->cur_lp : ev->target->id, at, ev);
}

static myri_event_id sim__schedule_as(myri_sim *s, uint32_t lp, myri_time_ps at, const myri_event *ev)
{
    if (!s || !ev->target || ev->target->sim != s || at < s->now) return 0;
    if (lp >= s->ncomp || !s->comp[lp]) return 0; /* not a process of this simulation (or reserved) */
    if (s->fault == 4) lp = s->in_handler ? s->cur_lp : ev->target->id; /* deliberate fault (tests): lp ignored */
    return sim__schedule_lp(s, lp, at, ev);
}

/* A kind with the top bit (KIND_RUN_AS) is refused: the bit is the engine's mark of schedule_for. */
myri_event_id myri_sim_schedule_as(myri_sim *s, uint32_t lp, myri_time_ps at, const myri_event *ev)
{
    return !ev || (ev->kind & KIND_RUN_AS) ? 0 : sim__schedule_as(s, lp, at, ev);
}

myri_event_id myri_sim_schedule_for(myri_sim *s, uint32_t lp, myri_time_ps at, const myri_event *ev)
{
    if (!ev || (ev->kind & KIND_RUN_AS)) return 0;
    myri_event e = *ev;
    e.kind |= KIND_RUN_AS;
    return sim__schedule_as(s, lp, at, &e);
}

uint32_t myri_sim_act_as(myri_sim *s, uint32_t lp)
{
    if (!s || !s->in_handler || lp >= s->ncomp || !s->comp[lp]) return UINT32_MAX;
    uint32_t was = s->cur_lp;
    s->cur_lp = lp;
    return was;
}

myri_status myri_sim_take_key(myri_sim *s, myri_time_ps at, myri_event_key *key)
{
    if (!s || !key) return MYRI_EINVAL;
    if (!s->in_handler) return MYRI_ESTATE;
    if (at < s->now) return MYRI_ERANGE;
    if (!sim__seq_ok(s, s->cur_lp)) return MYRI_EFULL;
    *key = (myri_event_key){.time_ps = at, .round = (uint32_t)sim__round(s, at), .lp = s->cur_lp,
                            .seq = s->lp[s->cur_lp].seq++};
    return MYRI_OK;
}

myri_status myri_sim_insert_keyed(myri_sim *s, const myri_event_key *key, const myri_event *ev, myri_event_id *out)
{
    if (out) *out = 0;
    if (!s || !key || !ev || !ev->target || ev->target->sim != s) return MYRI_EINVAL;
    /* the key's process is owned elsewhere: its numbers can never meet this
     * simulation's own (which are all of created processes) */
    if (key->lp >= s->ncomp || s->comp[key->lp]) return MYRI_EINVAL;
    if (key->round > ROUND_MAX || key->seq == 0 || key->seq >= SEQ_LIMIT - 1) return MYRI_ERANGE;
    uint64_t ord = ORD(key->round, key->lp, key->seq);
    if (s->fault == 3) /* deliberate fault (tests): the given LP and number ignored, the target's taken */
        ord = ORD(key->round, ev->target->id, s->lp[ev->target->id].seq++);
    if (key->time_ps < s->now) return MYRI_ESTATE;
    if (s->ran && ((ent_u128)key->time_ps << 64 | ord) <= ((ent_u128)s->last_t << 64 | s->last_ord))
        return MYRI_ESTATE; /* at or below the last event run: it would run out of order */
    myri_event_id id = sim__enqueue(s, key->time_ps, ord, ev);
    if (!id) return MYRI_EFULL;
    if (out) *out = id;
    return MYRI_OK;
}

myri_event_id myri_sim_schedule_in(myri_sim *s, myri_time_ps delay, const myri_event *ev)
{
    /* myri_sim_schedule's checks but `at < now`, which cannot hold here */
    if (!s || !ev || !ev->target || ev->target->sim != s || (ev->kind & KIND_RUN_AS)) return 0;
    myri_time_ps at = s->now + delay;
    if (at < s->now) at = MYRI_TIME_NEVER;
    return sim__schedule_lp(s, s->in_handler ? s->cur_lp : ev->target->id, at, ev);
}

/* Slot of a pending event's handle, or -1 if the handle is not pending. */
static int64_t lookup(myri_sim *s, myri_event_id id)
{
    if (!s || id == 0) return -1;
    id -= 1;
    uint64_t slot = id & SLOT_MASK;
    if (slot >= s->pcap) return -1;
    uint32_t m = s->q[slot];
    if (META_STATE(m) != REC_PENDING || META_GEN(m) != (id >> SLOT_BITS)) return -1;
    return (int64_t)slot;
}

bool myri_sim_cancel(myri_sim *s, myri_event_id id)
{
    int64_t slot = lookup(s, id);
    if (slot < 0) return false;
    s->q[slot] = (s->q[slot] & ~3u) | REC_CANCELLED;
    s->live--;
    s->ncancelled++;
    return true;
}

myri_event_id myri_sim_reschedule(myri_sim *s, myri_event_id id, myri_time_ps at)
{
    int64_t slot = lookup(s, id);
    if (slot < 0 || at < s->now) return 0;
    const event_rec *r = &s->pool[slot];
    myri_event ev = {.target = r->target, .kind = r->kind & ~KIND_RUN_AS, .arg32 = r->arg32, .arg = r->arg,
                     .ptr = r->ptr};
    myri_sim_cancel(s, id);
    return myri_sim_schedule(s, at, &ev);
}

myri_time_ps myri_sim_now(const myri_sim *s) { return s ? s->now : 0; }

/* Drops the cancelled entries at the front of the pending set, so that its
 * top is live (or it is empty); false when empty.  Only cancelled entries are
 * taken, so no order changes; what it saves myri_sim_run does not redo. */
static bool pend_live_top(myri_sim *s, heap_ent *top)
{
    bool from_cal = false;
    while (pend_top(s, top, &from_cal)) {
        uint32_t slot = ENT_SLOT(*top);
        if (META_STATE(s->q[slot]) != REC_CANCELLED || s->fault == 6) return true; /* (6: tests) */
        (void)pend_take(s, *top, from_cal);
        slot_free(s, slot);
        s->ncancelled--;
    }
    return false;
}

/* ---- the next live time, read only (myri_sim_next_time) ---- */
/* A key as one 128-bit number; NO_KEY is above every key (an order word
 * is never all ones: the sequence number stays below 2^32 - 1). */
#define NO_KEY (~(ent_u128)0)
static inline ent_u128 key_of(uint64_t t, uint64_t ord) { return (ent_u128)t << 64 | ord; }

/* Whether the entry of `slot` counts for myri_sim_next_time (fault 6, for
 * the tests: a cancelled one counts too, the answer before round 5). */
static inline bool peek_live(const myri_sim *s, uint32_t slot)
{
    return META_STATE(s->q[slot]) != REC_CANCELLED || s->fault == 6;
}

/* The least live key of a bucket's chunks (unsorted; base_ps: the bucket's
 * first time) into *best when below it. */
static void peek_chunks(const myri_sim *s, const cal_bucket *b, uint64_t base_ps, ent_u128 *best)
{
    uint32_t cn = b->hn;
    for (const cal_chunk *c = b->head; c; c = c->next, cn = CH_N)
        for (uint32_t i = 0; i < cn; i++) {
            if (!peek_live(s, CE_SLOT(c->e[i]))) continue;
            heap_ent e = ce_ent(c->e[i], base_ps);
            if (key_of(e.t, e.ord) < *best) *best = key_of(e.t, e.ord);
        }
}

/* The distance from ring index r to the next bucket whose bit is set, r
 * included, cyclically (cal_nb if none): a word of the bit map at a time. */
static uint32_t cal_next_set(const myri_sim *s, uint32_t r)
{
    uint32_t words = s->cal_nb / 64, w = r / 64;
    uint64_t m = s->cal_bits[w] & (~0ull << (r % 64));
    for (uint32_t k = 0; !m && k < words; k++) { /* (after `words` steps: w again, all of it) */
        w = (w + 1) & (words - 1);
        m = s->cal_bits[w];
    }
    if (!m) return s->cal_nb;
    return (w * 64 + (uint32_t)__builtin_ctzll(m) - r) & (s->cal_nb - 1);
}

/* The calendar's least live key (NO_KEY if none): the non-empty buckets
 * (bit map; the loaded one's bit is set too) from cal_cur on, in time order,
 * until one holds a live entry (the loaded one: the first live entry of its
 * sorted part, and its chunks, which hold what came when the sorted part had
 * no room). */
static ent_u128 peek_cal(const myri_sim *s)
{
    ent_u128 best = NO_KEY;
    size_t seen = 0;
    for (uint32_t off = 0; off < s->cal_nb && seen < s->caln; off++) {
        uint32_t d = cal_next_set(s, (uint32_t)((s->cal_cur + off) & (s->cal_nb - 1)));
        if (d >= s->cal_nb - off) break; /* (none left within the ring from cal_cur) */
        off += d;
        uint64_t bk = s->cal_cur + off;
        uint32_t r = (uint32_t)(bk & (s->cal_nb - 1));
        uint64_t base_ps = bk << s->cal_shift;
        if (s->cal_loaded && s->cal_loaded_bk == bk) {
            for (size_t j = s->cs_head; j < s->cs_n; j++)
                if (peek_live(s, CE_SLOT(s->cs[j]))) {
                    heap_ent e = ce_ent(s->cs[j], base_ps);
                    best = key_of(e.t, e.ord);
                    break;
                }
            seen += s->cs_n - s->cs_head;
        }
        peek_chunks(s, &s->cal_b[r], base_ps, &best);
        seen += s->cal_b[r].n;
        if (best != NO_KEY) break; /* (every later bucket holds later times) */
    }
    return best;
}

/* The least live key of the heap's subtree at i into *best when below it:
 * a live node ends its subtree (its children are not below it), a subtree
 * whose root is not below *best is skipped; so it visits the cancelled
 * entries above the least live one and their children (depth log4 of the
 * heap's size, at most 12). */
static void peek_heap(const myri_sim *s, size_t i, ent_u128 *best)
{
    if (i >= s->hn) return;
    ent_u128 k = key_of(s->heap[i].t, s->heap[i].ord);
    if (k >= *best) return;
    if (peek_live(s, ENT_SLOT(s->heap[i]))) {
        *best = k;
        return;
    }
    for (size_t c = 4 * i + 1; c <= 4 * i + 4; c++) peek_heap(s, c, best);
}

/* The running event was taken before its handler: the next one is the least
 * live pending entry.  Read only (issue 24 round 7): the pending set is
 * searched past the cancelled entries in front, which stay where they are
 * (myri_sim_run drops them when it comes to them).  Until round 7 it dropped
 * them itself, through a cast from const; round 5 made the answer the time
 * of the next event to run whatever the calendar's width, ring and rebuilds
 * left pending, and that is unchanged. */
myri_time_ps myri_sim_next_time(const myri_sim *s)
{
    if (!s) return MYRI_TIME_NEVER;
    ent_u128 best;
    if (s->ncancelled == 0 && s->caln && s->cal_loaded && s->cal_loaded_bk == s->cal_cur) {
        /* (the common case: nothing cancelled pending, the first bucket
         * loaded: its front and the heap's top, no record state read) */
        heap_ent e = ce_ent(s->cs[s->cs_head], s->cal_loaded_bk << s->cal_shift);
        best = key_of(e.t, e.ord);
        if (s->hn && key_of(s->heap[0].t, s->heap[0].ord) < best) best = key_of(s->heap[0].t, s->heap[0].ord);
        return (myri_time_ps)(best >> 64);
    }
    best = peek_cal(s);
    peek_heap(s, 0, &best);
    return best == NO_KEY ? MYRI_TIME_NEVER : (myri_time_ps)(best >> 64);
}

/* The same answer for the engine's own use (myri_sim_advance): the
 * cancelled entries in front are dropped on the way (pend_live_top), which
 * the next take would do anyway. */
static myri_time_ps sim__next_live_time(myri_sim *s)
{
    heap_ent top;
    return pend_live_top(s, &top) ? ENT_T(top) : MYRI_TIME_NEVER;
}

bool myri_sim_advance(myri_sim *s, myri_time_ps t)
{
    if (!s || !s->in_handler || s->no_advance || s->stop || t < s->now || t > s->until) return false;
    if (t >= sim__next_live_time(s)) return false;
    /* the handler goes on with the key an event at t scheduled now would have */
    s->cur_round = t > s->now ? 0 : s->cur_round + (s->cur_round < ROUND_MAX);
    s->now = t;
    s->advances++;
    return true;
}

void myri_sim_set_advance(myri_sim *s, bool on)
{
    if (s) s->no_advance = !on;
}

uint64_t myri_sim_advances(const myri_sim *s) { return s ? s->advances : 0; }

myri_time_ps myri_sim_horizon(const myri_sim *s)
{
    if (!s) return 0;
    return s->until > s->now ? s->until : s->now;
}
uint64_t myri_sim_seed(const myri_sim *s) { return s ? s->seed : 0; }
uint64_t myri_sim_events(const myri_sim *s) { return s ? s->events : 0; }
size_t myri_sim_pending(const myri_sim *s) { return s ? s->live : 0; }
void myri_sim_stop(myri_sim *s)
{
    if (s) s->stop = true;
}

void myri_sim_set_progress(myri_sim *s, FILE *tty, myri_time_ps end_ps)
{
    if (!s) return;
    s->progress = tty;
    s->progress_end = end_ps;
    clock_gettime(CLOCK_MONOTONIC, &s->progress_start);
    s->progress_last = s->progress_start;
}

static double ts_diff(struct timespec a, struct timespec b)
{
    return (double)(a.tv_sec - b.tv_sec) + 1e-9 * (double)(a.tv_nsec - b.tv_nsec);
}

static void progress_tick(myri_sim *s)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (ts_diff(now, s->progress_last) < 0.5) return;
    s->progress_last = now;
    double wall = ts_diff(now, s->progress_start);
    double pct = s->progress_end ? 100.0 * (double)s->now / (double)s->progress_end : 0;
    fprintf(s->progress, "\r  simulated %.6f s (%5.1f %%), %" PRIu64 " events, %.2f M events/s   ",
            (double)s->now * 1e-12, pct, s->events, wall > 0 ? (double)s->events / wall * 1e-6 : 0);
    fflush(s->progress);
}

static inline uint64_t hash_mix(uint64_t h, uint64_t x)
{
    h ^= x;
    h *= 0x100000001b3ull * 0x9e3779b97f4a7c15ull | 1;
    return h ^ (h >> 29);
}

uint64_t myri_sim_lp_hash(const myri_sim *s, size_t id)
{
    return s && id < s->ncomp && !s->lp[id].unhashed ? s->lp[id].hash : 0;
}

void myri_sim_set_unhashed(myri_sim *s, uint32_t id)
{
    if (s && id < s->ncomp) s->lp[id].unhashed = 1;
}

/* The fold of per-LP hashes in id order: its start, and one step. */
#define LP_FOLD_START 0xcbf29ce484222325ull
/* myri_sim_advance, the event it stands for hashed (sim.h). */
bool myri_sim_advance_kind(myri_sim *s, myri_time_ps t, uint32_t kind)
{
    if (!s || !s->in_handler) return false;
    uint64_t round = sim__round(s, t); /* the event's key had it been scheduled now */
    uint32_t lp = s->cur_lp;
    if (!myri_sim_advance(s, t)) return false;
    lp_state *tl = &s->lp[lp];
    tl->hash = hash_mix(hash_mix(tl->hash, t), ORD(round, lp, 0) | (kind & ~KIND_RUN_AS));
    return true;
}

static inline uint64_t lp_fold(uint64_t f, size_t id, uint64_t lp_hash) { return hash_mix(hash_mix(f, id), lp_hash); }

uint64_t myri_sim_lp_hash_fold(const uint64_t *lp_hash, size_t n)
{
    uint64_t f = LP_FOLD_START;
    for (size_t i = 0; lp_hash && i < n; i++) f = lp_fold(f, i, lp_hash[i]);
    return f;
}

/* The run's hash (docs/PARTITION.md section 3, "Hashes"): the fold of the
 * processes' hashes in id order, an unhashed process's as 0, so that it
 * depends neither on how processes interleave nor on how a run is cut. */
uint64_t myri_sim_hash(const myri_sim *s)
{
    uint64_t f = LP_FOLD_START;
    for (size_t i = 0; s && i < s->ncomp; i++) f = lp_fold(f, i, s->lp[i].unhashed ? 0 : s->lp[i].hash);
    return f;
}

uint64_t myri_sim_hash_by_lp(const myri_sim *s) { return myri_sim_hash(s); }

myri_status myri_sim_run(myri_sim *s, myri_time_ps until, uint64_t max_events)
{
    if (!s) return MYRI_EINVAL;
    s->stop = false;
    s->until = max_events ? s->now : until; /* with an event limit: no look-ahead */
    uint64_t limit = max_events ? s->events + max_events : UINT64_MAX;
    while (!s->stop && s->events < limit) {
        if (s->ncancelled > 4096 && s->ncancelled > s->live) pend_rebuild(s, s->cal_shift, false);
        uint64_t top_t, ord;
        uint32_t slot;
        int got = pend_next(s, until, &top_t, &ord, &slot);
        if (got <= 0) {
            if (until != MYRI_TIME_NEVER && until > s->now) s->now = until; /* (none left, or the next beyond) */
            break;
        }
        uint32_t m = s->q[slot];
        s->q[slot] = (META_GEN(m) + 1) << 2 | REC_FREE; /* the slot freed (slot_free), its record read below */
        s->freelist[s->nfree++] = slot;
        if (__builtin_expect(META_STATE(m) == REC_CANCELLED, 0)) {
            s->ncancelled--;
            continue;
        }
        s->now = top_t;
        /* the record, copied out as the handler's event: the handler's own
         * schedules may reuse the slot */
        myri_event ev;
        memcpy(&ev, &s->pool[slot], sizeof(event_rec)); /* (event_rec is myri_event's prefix) */
        uint32_t run_lp = ev.kind & KIND_RUN_AS ? ORD_LP(ord) : ev.target->id;
        ev.kind &= ~KIND_RUN_AS;
        ev.time_ps = top_t;
        s->live--;
        s->events++;
        lp_state *tl = &s->lp[run_lp];
        tl->hash = hash_mix(hash_mix(tl->hash, top_t), (ord & ~(SEQ_LIMIT - 1)) | ev.kind); /* round, LP, kind */
        s->last_t = top_t;
        s->last_ord = ord;
        s->ran = true;
        /* every max(live, 4096) events taken (tune_min is 0 when pinned: every event) */
        if (__builtin_expect(++s->tune_taken >= s->tune_min, 0) && (s->tune_taken >= s->live || s->pinned))
            pend_tune(s);
        s->cur_lp = run_lp;
        s->cur_round = ORD_ROUND(ord);
        s->in_handler = true;
        ev.target->ops->handle(ev.target, &ev);
        s->in_handler = false;
        if (s->progress && (s->events & 0xffff) == 0) progress_tick(s);
    }
    if (s->progress) fputs("\r\033[K", s->progress);
    s->until = s->now;
    return s->full ? MYRI_EFULL : MYRI_OK;
}

void myri_sim_finish(myri_sim *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->ncomp; i++)
        if (s->comp[i] && s->comp[i]->ops->finish) s->comp[i]->ops->finish(s->comp[i]);
}

void myri_set_panic_hook(myri_panic_hook hook) { panic_hook = hook; }

void myri_panic(const myri_component *c, const char *fmt, ...)
{
    char msg[1024];
    int n;
    if (c && c->sim)
        n = snprintf(msg, sizeof msg, "invariant broken in %s (%s) at t=%" PRIu64 " ps: ", c->name,
                     c->ops ? c->ops->type : "?", c->sim->now);
    else
        n = snprintf(msg, sizeof msg, "invariant broken: ");
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof msg) vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    if (panic_hook) panic_hook(msg);
    fprintf(stderr, "myri: %s\n", msg);
    exit(1);
}

/* ---- test hooks (sim_internal.h) ------------------------------------------------------ */
void myri_sim__set_seq(myri_sim *s, uint64_t seq)
{
    if (!s || seq == 0 || seq >= SEQ_LIMIT) return;
    s->seq_start = (uint32_t)seq;
    for (size_t c = 0; c < s->ncomp; c++) s->lp[c].seq = (uint32_t)seq;
}

uint64_t myri_sim__renumbers(const myri_sim *s) { return s ? s->renumbers : 0; }

size_t myri_sim__heap_size(const myri_sim *s) { return s ? pend_count(s) : 0; }

uint64_t myri_sim__rebuilds(const myri_sim *s) { return s ? s->rebuilds : 0; }

uint64_t myri_sim__radix_sorts(const myri_sim *s) { return s ? s->radix_sorts : 0; }

uint32_t myri_sim__max_shift(const myri_sim *s) { return s ? s->max_shift : 0; }

void myri_sim__set_fault(myri_sim *s, int fault)
{
    if (s) s->fault = fault;
}

void myri_sim__pin_geometry(myri_sim *s, uint32_t shift, uint64_t every)
{
    if (!s || shift > CAL_OFF_BITS) return;
    s->pinned = true;
    s->tune_min = 0;
    s->pin_every = every;
    s->pin_count = 0;
    pend_rebuild(s, shift, false);
}
