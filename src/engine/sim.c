/* sim.c -- the event engine (see sim.h).
 *
 * Tuned for: 1e4..1e6 pending events, handlers that schedule about one new
 * event each (links, switches, traffic sources, the hold model).
 *
 * Pending set: a 4-ary min-heap of 16-byte entries {time, key} where
 * key = seq << 24 | slot.  Comparing (time, key) compares (time, seq): the
 * insertion sequence breaks ties.  `slot` indexes the pool of event records.
 * Four children are 64 bytes, one cache line.
 *
 * The top event is left in the heap while its handler runs ("dead top"):
 * the first event the handler schedules replaces it with a single sift-down
 * instead of a pop plus a push.  Cancellation is lazy (records are marked);
 * the heap is compacted between events when most entries are cancelled.
 *
 * Sequence numbers have 40 bits; when they run out (after 2^40 schedules)
 * the live entries are renumbered in order, which keeps the order and the
 * handles (handles carry a per-slot generation, not the sequence).
 */
#define _DEFAULT_SOURCE 1 /* madvise(MADV_HUGEPAGE) */
#include "myri/sim.h"
#include "engine/sim_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define SLOT_BITS 24u
#define SLOT_MASK ((1ull << SLOT_BITS) - 1)
#define SEQ_LIMIT (1ull << (64 - SLOT_BITS))
#define MAX_SLOTS (1ull << SLOT_BITS)

enum { REC_FREE = 0, REC_PENDING = 1, REC_CANCELLED = 2 };

/* A heap entry: time in the high 64 bits, key = seq << 24 | slot in the low
 * 64 bits, so that one unsigned 128-bit comparison orders by (time, seq). */
__extension__ typedef unsigned __int128 heap_ent;
#define ENT(t, key) (((heap_ent)(t) << 64) | (heap_ent)(key))
#define ENT_T(e) ((uint64_t)((e) >> 64))
#define ENT_KEY(e) ((uint64_t)(e))

/* The payload of a pending event: 32 bytes, two to a cache line.  The time
 * lives in the heap entry; the slot's state and generation live in `meta`
 * (state in the low 2 bits, generation above), a smaller array that stays
 * in cache longer. */
typedef struct event_rec {
    myri_component *target;
    void *ptr;
    uint64_t arg;
    uint32_t kind, arg32;
} event_rec;
#define META_STATE(m) ((m) & 3u)
#define META_GEN(m) ((m) >> 2)

struct myri_sim {
    heap_ent *heap_mem;/* allocation; heap = heap_mem + 3 so that the four
                        * children 4i+1..4i+4 of a node share a cache line */
    heap_ent *heap;
    size_t hn, hcap;
    event_rec *pool;
    uint32_t *meta;
    size_t pcap;
    uint32_t *freelist;
    size_t nfree;
    size_t live;       /* pending and not cancelled */
    size_t ncancelled; /* cancelled entries still in the heap */
    bool top_dead;     /* heap[0] was taken by the running handler */
    bool stop;
    bool full;         /* a schedule failed for lack of slots or memory */
    uint64_t seq;
    myri_time_ps now;
    myri_time_ps until; /* horizon of the running myri_sim_run */
    bool no_advance;    /* myri_sim_advance disabled */
    uint64_t advances;  /* clock moves by myri_sim_advance */
    uint64_t events;
    uint64_t hash;
    uint64_t seed;
    myri_component **comp;
    size_t ncomp, compcap;
    FILE *progress;
    myri_time_ps progress_end;
    struct timespec progress_last, progress_start;
};

static myri_panic_hook panic_hook;

/* ---- heap ------------------------------------------------------------------ */
static inline bool ent_less(heap_ent a, heap_ent b) { return a < b; }

/* Moves x up from index i, not above index top. */
static void heap_sift_up(heap_ent *h, size_t i, heap_ent x, size_t top)
{
    while (i > top) {
        size_t parent = (i - 1) >> 2;
        if (!ent_less(x, h[parent])) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = x;
}

/* Bottom-up sift-down (Floyd): move the hole at i down along the smallest
 * children to a leaf (3 comparisons per level among 4 children, branch-free),
 * then sift x up from there, but not above i: heapify sifts down subtrees
 * whose ancestors are not in heap order yet, and x carried above i moved an
 * unordered ancestor into the subtree (compact() left the heap invalid and
 * events ran out of time order; found by tests/unit/test_map.c).  New events
 * usually belong near the bottom, so this saves the comparison with x at
 * every level. */
static void heap_sift_down(heap_ent *h, size_t n, size_t i, heap_ent x)
{
    size_t top = i;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c + 4 <= n) {
            size_t g = 4 * c + 1; /* the grandchildren: 4 adjacent lines */
            if (g < n) {
                __builtin_prefetch(&h[g]);
                __builtin_prefetch(&h[g + 4]);
                __builtin_prefetch(&h[g + 8]);
                __builtin_prefetch(&h[g + 12]);
            }
            size_t b01 = c + (h[c + 1] < h[c]);
            size_t b23 = c + 2 + (h[c + 3] < h[c + 2]);
            size_t best = h[b23] < h[b01] ? b23 : b01;
            h[i] = h[best];
            i = best;
        } else {
            if (c < n) {
                size_t best = c;
                for (size_t k = c + 1; k < n; k++)
                    if (h[k] < h[best]) best = k;
                h[i] = h[best];
                i = best;
            }
            break;
        }
    }
    heap_sift_up(h, i, x, top);
}

static void heap_pop(myri_sim *s)
{
    heap_ent last = s->heap[--s->hn];
    if (s->hn > 0) heap_sift_down(s->heap, s->hn, 0, last);
}

static void heapify(heap_ent *h, size_t n)
{
    if (n < 2) return;
    for (size_t i = (n - 2) / 4 + 1; i-- > 0;) heap_sift_down(h, n, i, h[i]);
}

/* ---- memory ------------------------------------------------------------------ */
/* Allocates n bytes aligned to 64; arrays of 2 MiB and more are aligned to
 * 2 MiB and marked for transparent huge pages: with a million pending events
 * the heap and the pool are tens of MiB accessed at random, and TLB misses
 * would otherwise dominate. */
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
    s->meta[slot] = (META_GEN(s->meta[slot]) + 1) << 2 | REC_FREE;
    s->freelist[s->nfree++] = slot;
}

static bool pool_grow(myri_sim *s)
{
    size_t ncap = s->pcap ? 2 * s->pcap : 1024;
    if (ncap > MAX_SLOTS) ncap = MAX_SLOTS;
    if (ncap <= s->pcap) return false;
    event_rec *p = big_grow(s->pool, s->pcap, ncap, sizeof *p);
    if (!p) return false;
    s->pool = p;
    uint32_t *m = big_grow(s->meta, s->pcap, ncap, sizeof *m);
    if (!m) return false;
    s->meta = m;
    uint32_t *f = big_grow(s->freelist, s->nfree, ncap, sizeof *f);
    if (!f) return false;
    s->freelist = f;
    for (size_t i = ncap; i-- > s->pcap;) s->freelist[s->nfree++] = (uint32_t)i;
    s->pcap = ncap;
    return true;
}

static bool heap_reserve(myri_sim *s)
{
    if (s->hn < s->hcap) return true;
    size_t ncap = s->hcap ? 2 * s->hcap : 1024;
    heap_ent *mem = big_alloc((ncap + 4) * sizeof *mem);
    if (!mem) return false;
    if (s->hn) memcpy(mem + 3, s->heap, s->hn * sizeof *mem);
    free(s->heap_mem);
    s->heap_mem = mem;
    s->heap = mem + 3;
    s->hcap = ncap;
    return true;
}

static int ent_cmp(const void *a, const void *b)
{
    const heap_ent *x = a, *y = b;
    return *x < *y ? -1 : *y < *x ? 1 : 0;
}

/* Renumbers the sequence of all heap entries 1..n in (time, seq) order. */
static void renumber(myri_sim *s)
{
    if (s->top_dead) {
        heap_pop(s);
        s->top_dead = false;
    }
    qsort(s->heap, s->hn, sizeof *s->heap, ent_cmp); /* a sorted array is a heap */
    for (size_t i = 0; i < s->hn; i++)
        s->heap[i] = ENT(ENT_T(s->heap[i]), ((uint64_t)(i + 1) << SLOT_BITS) | (ENT_KEY(s->heap[i]) & SLOT_MASK));
    s->seq = s->hn + 1;
}

/* Drops cancelled entries from the heap (between events only). */
static void compact(myri_sim *s)
{
    size_t j = 0;
    for (size_t i = 0; i < s->hn; i++) {
        uint32_t slot = (uint32_t)(ENT_KEY(s->heap[i]) & SLOT_MASK);
        if (META_STATE(s->meta[slot]) == REC_CANCELLED)
            slot_free(s, slot);
        else
            s->heap[j++] = s->heap[i];
    }
    s->hn = j;
    s->ncancelled = 0;
    heapify(s->heap, s->hn);
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
        if (s->comp[i]->name_hash == h && strcmp(s->comp[i]->name, c->name) == 0) dup++;
    myri_rng_named(&c->rng, s->seed, c->name, dup);
}

myri_sim *myri_sim_create(uint64_t seed)
{
    myri_sim *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->seed = seed;
    s->seq = 1;
    if (!pool_grow(s) || !heap_reserve(s)) {
        myri_sim_destroy(s);
        return NULL;
    }
    return s;
}

void myri_sim_destroy(myri_sim *s)
{
    if (!s) return;
    for (size_t i = s->ncomp; i-- > 0;) {
        myri_component *c = s->comp[i];
        if (c->ops->destroy) c->ops->destroy(c);
        free(c->name);
        free(c);
    }
    free(s->comp);
    free(s->heap_mem);
    free(s->pool);
    free(s->meta);
    free(s->freelist);
    free(s);
}

myri_status myri_sim_add(myri_sim *s, const myri_component_ops *ops, const char *name, const void *config,
                         myri_component **out)
{
    if (out) *out = NULL;
    if (!s || !ops || !ops->handle || !name) return MYRI_EINVAL;
    if (s->ncomp == s->compcap) {
        size_t ncap = s->compcap ? 2 * s->compcap : 16;
        myri_component **c = realloc(s->comp, ncap * sizeof *c);
        if (!c) return MYRI_ENOMEM;
        s->comp = c;
        s->compcap = ncap;
    }
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
    s->comp[s->ncomp++] = c;
    if (out) *out = c;
    return MYRI_OK;
}

size_t myri_sim_component_count(const myri_sim *s) { return s ? s->ncomp : 0; }
myri_component *myri_sim_component(const myri_sim *s, size_t i) { return s && i < s->ncomp ? s->comp[i] : NULL; }

myri_event_id myri_sim_schedule(myri_sim *s, myri_time_ps at, const myri_event *ev)
{
    if (!s || !ev || !ev->target || at < s->now) return 0;
    if (s->seq >= SEQ_LIMIT) renumber(s);
    if (s->nfree == 0 && !pool_grow(s)) {
        s->full = true;
        return 0;
    }
    if (!s->top_dead && !heap_reserve(s)) {
        s->full = true;
        return 0;
    }
    uint32_t slot = s->freelist[--s->nfree];
    event_rec *r = &s->pool[slot];
    r->target = ev->target;
    r->ptr = ev->ptr;
    r->arg = ev->arg;
    r->kind = ev->kind;
    r->arg32 = ev->arg32;
    s->meta[slot] = (s->meta[slot] & ~3u) | REC_PENDING;
    heap_ent e = ENT(at, (s->seq++ << SLOT_BITS) | slot);
    if (s->top_dead) {
        s->top_dead = false;
        heap_sift_down(s->heap, s->hn, 0, e);
    } else {
        heap_sift_up(s->heap, s->hn++, e, 0);
    }
    s->live++;
    return (((uint64_t)META_GEN(s->meta[slot]) << SLOT_BITS) | slot) + 1; /* never 0 */
}

myri_event_id myri_sim_schedule_in(myri_sim *s, myri_time_ps delay, const myri_event *ev)
{
    if (!s) return 0;
    myri_time_ps at = s->now + delay;
    if (at < s->now) at = MYRI_TIME_NEVER;
    return myri_sim_schedule(s, at, ev);
}

/* Slot of a pending event's handle, or -1 if the handle is not pending. */
static int64_t lookup(myri_sim *s, myri_event_id id)
{
    if (!s || id == 0) return -1;
    id -= 1;
    uint64_t slot = id & SLOT_MASK;
    if (slot >= s->pcap) return -1;
    uint32_t m = s->meta[slot];
    if (META_STATE(m) != REC_PENDING || META_GEN(m) != (id >> SLOT_BITS)) return -1;
    return (int64_t)slot;
}

bool myri_sim_cancel(myri_sim *s, myri_event_id id)
{
    int64_t slot = lookup(s, id);
    if (slot < 0) return false;
    s->meta[slot] = (s->meta[slot] & ~3u) | REC_CANCELLED;
    s->live--;
    s->ncancelled++;
    return true;
}

myri_event_id myri_sim_reschedule(myri_sim *s, myri_event_id id, myri_time_ps at)
{
    int64_t slot = lookup(s, id);
    if (slot < 0 || at < s->now) return 0;
    const event_rec *r = &s->pool[slot];
    myri_event ev = {.target = r->target, .kind = r->kind, .arg32 = r->arg32, .arg = r->arg, .ptr = r->ptr};
    myri_sim_cancel(s, id);
    return myri_sim_schedule(s, at, &ev);
}

myri_time_ps myri_sim_now(const myri_sim *s) { return s ? s->now : 0; }

myri_time_ps myri_sim_next_time(const myri_sim *s)
{
    if (!s || s->hn == 0) return MYRI_TIME_NEVER;
    if (!s->top_dead) return ENT_T(s->heap[0]);
    /* The running handler's own entry is still at the top: the next event is
     * the least of its children (cancelled entries count: a lower bound). */
    myri_time_ps t = MYRI_TIME_NEVER;
    for (size_t i = 1; i <= 4 && i < s->hn; i++)
        if (ENT_T(s->heap[i]) < t) t = ENT_T(s->heap[i]);
    return t;
}

bool myri_sim_advance(myri_sim *s, myri_time_ps t)
{
    if (!s || !s->top_dead || s->no_advance || s->stop || t < s->now || t > s->until) return false;
    if (t >= myri_sim_next_time(s)) return false;
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
uint64_t myri_sim_hash(const myri_sim *s) { return s ? s->hash : 0; }
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

/* Prefetches the record of the likely next event (the smallest child of the
 * root) so that the memory access overlaps the current handler. */
static inline void prefetch_next(const myri_sim *s)
{
    if (s->hn < 5) return;
    const heap_ent *h = s->heap;
    size_t b01 = 1 + (h[2] < h[1]), b23 = 3 + (h[4] < h[3]);
    size_t best = h[b23] < h[b01] ? b23 : b01;
    uint32_t slot = (uint32_t)(ENT_KEY(h[best]) & SLOT_MASK);
    __builtin_prefetch(&s->pool[slot]);
    __builtin_prefetch(&s->meta[slot]);
}

static inline uint64_t hash_mix(uint64_t h, uint64_t x)
{
    h ^= x;
    h *= 0x100000001b3ull * 0x9e3779b97f4a7c15ull | 1;
    return h ^ (h >> 29);
}

myri_status myri_sim_run(myri_sim *s, myri_time_ps until, uint64_t max_events)
{
    if (!s) return MYRI_EINVAL;
    s->stop = false;
    s->until = max_events ? s->now : until; /* with an event limit: no look-ahead */
    uint64_t limit = max_events ? s->events + max_events : UINT64_MAX;
    while (!s->stop && s->events < limit) {
        if (s->ncancelled > 4096 && s->ncancelled > s->live) compact(s);
        if (s->hn == 0) {
            if (until != MYRI_TIME_NEVER && until > s->now) s->now = until;
            break;
        }
        heap_ent top = s->heap[0];
        myri_time_ps top_t = ENT_T(top);
        if (top_t > until) {
            if (until > s->now) s->now = until;
            break;
        }
        uint32_t slot = (uint32_t)(ENT_KEY(top) & SLOT_MASK);
        if (META_STATE(s->meta[slot]) == REC_CANCELLED) {
            heap_pop(s);
            slot_free(s, slot);
            s->ncancelled--;
            continue;
        }
        s->now = top_t;
        const event_rec *r = &s->pool[slot];
        myri_event ev = {.target = r->target, .kind = r->kind, .arg32 = r->arg32, .arg = r->arg, .ptr = r->ptr,
                         .time_ps = top_t};
        slot_free(s, slot);
        prefetch_next(s);
        s->live--;
        s->top_dead = true;
        s->events++;
        s->hash = hash_mix(hash_mix(s->hash, top_t), ((uint64_t)ev.target->id << 32) | ev.kind);
        ev.target->ops->handle(ev.target, &ev);
        if (s->top_dead) {
            s->top_dead = false;
            heap_pop(s);
        }
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
        if (s->comp[i]->ops->finish) s->comp[i]->ops->finish(s->comp[i]);
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
    if (s && seq > 0 && seq <= SEQ_LIMIT) s->seq = seq;
}

size_t myri_sim__heap_size(const myri_sim *s) { return s ? s->hn : 0; }
