/* sim_pend.c -- the engine's pending set, its out-of-line half: memory,
 * the calendar's chunks and sorts, rebuilds and tuning, and the read-only
 * search for the least live key (the layout and the hot path: sim_pend.h).
 */
#define _DEFAULT_SOURCE 1 /* madvise(MADV_HUGEPAGE) */
#include "engine/sim_pend.h"
#include "engine/keysort.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

bool myri_sim__pool_grow(myri_sim *s)
{
    size_t ncap = s->pcap ? 2 * s->pcap : 1024;
    if (ncap > MAX_SLOTS) ncap = MAX_SLOTS;
    if (ncap <= s->pcap) return false;
    /* the heap has room for an entry of every slot, so that a schedule that
     * has a slot never asks whether it has heap room (entries pending, in the
     * calendar and the heap, are never more than the slots in use) */
    if (!myri_sim__heap_reserve(s, ncap)) return false;
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

bool myri_sim__heap_reserve(myri_sim *s, size_t need)
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

bool myri_sim__cs_reserve(myri_sim *s, size_t need)
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
__attribute__((noinline)) bool myri_sim__cal_new_chunk(myri_sim *s, cal_bucket *b)
{
    cal_chunk *nc = ch_get(s);
    if (!nc) return false;
    nc->next = b->head;
    b->head = nc;
    b->hn = 0;
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
bool myri_sim__cal_load(myri_sim *s)
{
    if (s->cal_loaded) cal_unload(s);
    uint32_t r = (uint32_t)(s->cal_cur & (s->cal_nb - 1));
    cal_bucket *b = &s->cal_b[r];
    if (!myri_sim__cs_reserve(s, b->n)) return false;
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
__attribute__((noinline)) bool myri_sim__cal_insert_loaded(myri_sim *s, uint32_t r, cal_ent c)
{
    if (!myri_sim__cs_reserve(s, s->cs_n + 1)) return false;
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
__attribute__((noinline)) void myri_sim__heap_insert(myri_sim *s, heap_ent e) { heap_sift_up(s->heap, s->hn++, e); }

/* The loaded bucket is used up: its bit cleared unless filled since, and
 * the next non-empty bucket found and loaded (cal_take's rare half: once a
 * bucket, out of line so that the take keeps its registers). */
__attribute__((noinline)) void myri_sim__cal_bucket_done(myri_sim *s)
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
    if (!myri_sim__cal_load(s)) s->full = true; /* (loaded now, its records asked for: it runs next) */
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
void myri_sim__cal_reset(myri_sim *s, uint32_t shift)
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
void myri_sim__pend_rebuild(myri_sim *s, uint32_t shift, bool renumber)
{
    heap_ent *a;
    size_t n = pend_drain(s, &a);
    if (n == SIZE_MAX) { /* out of memory: keep going with what there is */
        s->full = true;
        return;
    }
    myri_sim__cal_reset(s, shift);
    if (renumber) pend_renumber(s, a, n);
    if (myri_sim__heap_reserve(s, n)) {
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
void myri_sim__pend_tune(myri_sim *s)
{
    if (s->pinned) { /* (tests: myri_sim__pin_geometry) */
        s->tune_taken = 0;
        if (s->pin_every && ++s->pin_count % s->pin_every == 0) myri_sim__pend_rebuild(s, s->cal_shift, false);
        return;
    }
    double gap = (double)(s->now - s->tune_t0) / (double)s->tune_taken; /* ps, fractional */
    double w = gap * (double)(s->live > 4096 ? s->live : 4096) / CAL_PER; /* at least 8 events to a bucket */
    uint32_t shift = 0;
    while (shift < CAL_OFF_BITS && (double)(2ull << shift) <= w) shift++;
    s->tune_taken = 0;
    s->tune_t0 = s->now;
    int d = (int)shift - (int)s->cal_shift;
    if (d >= 2 || d <= -2) myri_sim__pend_rebuild(s, shift, false);
}

/* Drops the cancelled entries at the front of the pending set, so that its
 * top is live (or it is empty); false when empty.  Only cancelled entries are
 * taken, so no order changes; what it saves myri_sim_run does not redo. */
bool myri_sim__pend_live_top(myri_sim *s, heap_ent *top)
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

ent_u128 myri_sim__peek_least(const myri_sim *s)
{
    ent_u128 best = peek_cal(s);
    peek_heap(s, 0, &best);
    return best;
}
