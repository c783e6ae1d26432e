/* sim.c -- the event engine (see sim.h): its public API and the run loop.
 *
 * Tuned for: 1e3..1e6 pending events, handlers that schedule about one new
 * event each (links, switches, traffic sources, the hold model).
 *
 * An event's key is its time and its order word (round 12 bits, the logical
 * process that scheduled it 20 bits, that process's sequence number 32
 * bits), compared as time << 64 | order word: (time, round, process, process
 * sequence), never a global counter, so the order does not depend on how the
 * processes' calls interleave (docs/ENGINE.md "The core after issue 24").
 * This file gives the keys (the schedules, myri_sim_take_key,
 * myri_sim_insert_keyed), runs the events in key order (myri_sim_run) and
 * keeps each process's hash.  Where the pending events wait -- a calendar
 * queue in front of a heap -- is sim_pend.h (the layout and the inline hot
 * path) and sim_pend.c (the rest).
 */
#include "engine/sim_pend.h"
#include "engine/sim_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static myri_panic_hook panic_hook;

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
    if (!s->cal_b || !s->cal_bits || !myri_sim__pool_grow(s) || !myri_sim__heap_reserve(s, 1024) || !myri_sim__cs_reserve(s, 64)) {
        myri_sim_destroy(s);
        return NULL;
    }
    myri_sim__cal_reset(s, 10); /* 1 ns buckets until the first tuning */
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
/* The rare half of sim__enqueue: a slot, and with it heap room (myri_sim__pool_grow
 * keeps room for every slot's entry: an entry that cannot go into the
 * calendar for want of memory goes there); false when out of memory. */
static __attribute__((noinline, cold)) bool sim__room(myri_sim *s)
{
    if (!myri_sim__pool_grow(s)) {
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
    myri_sim__pend_rebuild(s, s->cal_shift, true);
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
    if (__builtin_expect(b->hn == CH_N, 0)) { /* a new chunk, the last one freed (myri_sim__cal_new_chunk) */
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
    best = myri_sim__peek_least(s);
    return best == NO_KEY ? MYRI_TIME_NEVER : (myri_time_ps)(best >> 64);
}

/* The same answer for the engine's own use (myri_sim_advance): the
 * cancelled entries in front are dropped on the way (myri_sim__pend_live_top), which
 * the next take would do anyway. */
static myri_time_ps sim__next_live_time(myri_sim *s)
{
    heap_ent top;
    return myri_sim__pend_live_top(s, &top) ? ENT_T(top) : MYRI_TIME_NEVER;
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
        if (s->ncancelled > 4096 && s->ncancelled > s->live) myri_sim__pend_rebuild(s, s->cal_shift, false);
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
            myri_sim__pend_tune(s);
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
    myri_sim__pend_rebuild(s, shift, false);
}
