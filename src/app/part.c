/* part.c -- a run cut into N partitions, in one process or one partition per
 * MPI rank: the window loop and the exchange of messages (part.h,
 * docs/PARTITION.md section 4, steps 9 and 10). */
#include "app/part.h"

#include <stdlib.h>
#include <string.h>

struct myri_part {
    uint32_t n;
    const uint32_t *owner;
    uint64_t L;
    myri_part_ops ops;
    void *ctx;
    struct part__item { uint32_t q; myri_fabric_msg m; } *box; /* messages posted in the running window */
    size_t nbox, capbox;
    bool oom;
    myri_time_ps early_ps; /* test fault */
    myri_part_stats st;
    /* across ranks (else NULL): the hook, and per rank the words and byte counts of a window's exchange */
    const myri_run_ranks *rk;
    uint64_t *sw, *rw;
    size_t *scount, *rcount;
    myri_fabric_msg *out, *in;
    size_t capout, capin;
};

myri_part *myri_part_create(uint32_t n, const uint32_t *node_owner, uint64_t lookahead_ps,
                            const myri_part_ops *ops, void *ctx)
{
    if (!n || !node_owner || !ops || !ops->next_ps || !ops->run_to || !ops->take) return NULL;
    myri_part *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    *h = (myri_part){.n = n, .owner = node_owner, .L = lookahead_ps ? lookahead_ps : 1, .ops = *ops, .ctx = ctx};
    return h;
}

void myri_part_destroy(myri_part *h)
{
    if (!h) return;
    free(h->box);
    free(h->sw);
    free(h->scount);
    free(h->out);
    free(h->in);
    free(h);
}

void myri_part_post(void *harness, const myri_fabric_msg *m)
{
    myri_part *h = harness;
    if (h->nbox == h->capbox) {
        size_t nc = h->capbox ? 2 * h->capbox : 256;
        struct part__item *nb = realloc(h->box, nc * sizeof *nb);
        if (!nb) {
            h->oom = true;
            return;
        }
        h->box = nb;
        h->capbox = nc;
    }
    h->box[h->nbox++] = (struct part__item){h->owner[m->dst_node], *m};
}

/* Key order: partition, time, the sender's order word (unique: origin node and its sequence). */
static int part__cmp(const void *pa, const void *pb)
{
    const struct part__item *ia = pa, *ib = pb;
    const myri_fabric_msg *a = &ia->m, *b = &ib->m;
    if (ia->q != ib->q) return ia->q < ib->q ? -1 : 1;
    if (a->time_ps != b->time_ps) return a->time_ps < b->time_ps ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static myri_status part__early(const myri_fabric_msg *m, myri_time_ps W, myri_error *err)
{
    myri_error_key(err, "--partitions",
                   "a message (kind %u, channel %u) for t=%llu ps reached the end of its window at %llu ps: "
                   "its delay was shorter than the lookahead L",
                   m->kind, m->a, (unsigned long long)m->time_ps, (unsigned long long)W);
    return MYRI_ESTATE;
}

/* Gives partition q its message (the test fault: early_ps before its time). */
static myri_status part__take(myri_part *h, uint32_t q, myri_fabric_msg *m, myri_error *err)
{
    m->time_ps -= h->early_ps;
    if (!h->ops.take(h->ctx, q, m)) return MYRI_OK;
    myri_error_key(err, "--partitions", "partition %u refused a message (kind %u, channel %u) for t=%llu ps",
                   h->owner[m->dst_node], m->kind, m->a, (unsigned long long)m->time_ps);
    return MYRI_ESTATE;
}

/* A window's messages in the statistics. */
static void part__count(myri_part *h, uint64_t nmsg)
{
    h->st.messages += nmsg;
    if (nmsg > h->st.max_window_messages) h->st.max_window_messages = nmsg;
    h->st.busy_windows += nmsg > 0;
}

/* Delivers the window's messages, each at >= W. */
static myri_status part__exchange(myri_part *h, myri_time_ps W, myri_error *err)
{
    if (h->oom) return MYRI_ENOMEM;
    if (h->nbox > 1) qsort(h->box, h->nbox, sizeof *h->box, part__cmp);
    for (size_t i = 0; i < h->nbox; i++) {
        myri_fabric_msg m = h->box[i].m;
        if (m.time_ps < W) return part__early(&m, W, err);
        myri_status st = part__take(h, h->box[i].q, &m, err);
        if (st) return st;
    }
    part__count(h, h->nbox);
    h->nbox = 0;
    return MYRI_OK;
}

static myri_status part__run_ranks(myri_part *h, myri_time_ps end_ps, myri_error *err);

myri_status myri_part_run(myri_part *h, myri_time_ps end_ps, myri_error *err)
{
    if (!h) return MYRI_EINVAL;
    if (h->rk) return part__run_ranks(h, end_ps, err);
    for (;;) {
        myri_time_ps g = MYRI_TIME_NEVER;
        for (uint32_t q = 0; q < h->n; q++) {
            myri_time_ps t = h->ops.next_ps(h->ctx, q);
            if (t < g) g = t;
        }
        if (g == MYRI_TIME_NEVER || g > end_ps) break;
        /* W = min(g + L, end + 1), saturating */
        myri_time_ps W = end_ps + 1;
        if (h->L < W && g < W - h->L) W = g + h->L;
        for (uint32_t q = 0; q < h->n; q++) {
            myri_status st = h->ops.run_to(h->ctx, q, W - 1);
            if (st) return st;
        }
        h->st.windows++;
        myri_status st = part__exchange(h, W, err);
        if (st) return st;
        if (h->ops.done && h->ops.done(h->ctx)) {
            h->nbox = 0;
            return MYRI_OK;
        }
    }
    for (uint32_t q = 0; q < h->n; q++) {
        myri_status st = h->ops.run_to(h->ctx, q, end_ps);
        if (st) return st;
    }
    h->nbox = 0; /* messages for after the end: the run is over */
    return h->oom ? MYRI_ENOMEM : MYRI_OK;
}

void myri_part_get_stats(const myri_part *h, myri_part_stats *out)
{
    if (h && out) *out = h->st;
}

static void part__json_arr(myri_json *j, const char *key, const uint32_t *v, uint32_t n)
{
    myri_json_key(j, key);
    myri_json_arr_begin(j);
    for (uint32_t q = 0; q < n; q++) myri_json_uint(j, v[q]);
    myri_json_arr_end(j);
}

void myri_part_json_members(myri_json *j, uint32_t n, const char *mode, const uint32_t *hosts,
                            const uint32_t *nodes, uint64_t cut_links, uint64_t lookahead_ps,
                            const myri_part_stats *st)
{
    myri_json_kuint(j, "n", n);
    myri_json_kstr(j, "mode", mode);
    part__json_arr(j, "hosts", hosts, n);
    if (nodes) part__json_arr(j, "nodes", nodes, n);
    myri_json_kuint(j, "cut_links", cut_links);
    myri_json_key(j, "lookahead_ps");
    if (cut_links) myri_json_uint(j, lookahead_ps);
    else myri_json_null(j);
    myri_json_kuint(j, "windows", st->windows);
    myri_json_kuint(j, "messages", st->messages);
    myri_json_kuint(j, "max_window_messages", st->max_window_messages);
}

void myri_part__test_fault(myri_part *h, myri_time_ps early_ps)
{
    if (h) h->early_ps = early_ps;
}

/* ---- across MPI ranks (step 10): one partition per rank ----------------------------- */

/* The words each rank sends every other in a window's first exchange: how
 * many messages for it, this rank's next time (its earliest event or
 * message), how many messages it sent in all, its status. */
enum { PART__W_COUNT, PART__W_NEXT, PART__W_TOTAL, PART__W_STATUS, PART__NW };

myri_status myri_part_set_ranks(myri_part *h, const myri_run_ranks *rk)
{
    if (!h || !rk || !rk->alltoall || !rk->alltoallv || !rk->bcast || rk->size < 1 || (uint32_t)rk->size != h->n ||
        rk->rank < 0 || rk->rank >= rk->size || h->ops.done) /* done: one process only (part.h) */
        return MYRI_EINVAL;
    h->sw = calloc(2 * (size_t)h->n * PART__NW, sizeof *h->sw);
    h->scount = calloc(2 * (size_t)h->n, sizeof *h->scount);
    if (!h->sw || !h->scount) return MYRI_ENOMEM;
    h->rw = h->sw + (size_t)h->n * PART__NW;
    h->rcount = h->scount + h->n;
    h->rk = rk;
    return MYRI_OK;
}

/* Rank `from`'s status and error, given to every rank. */
static myri_status part__fail_from(const myri_run_ranks *rk, int from, myri_status st, myri_error *err)
{
    struct { int32_t st; myri_error e; } b;
    memset(&b, 0, sizeof b);
    if (rk->rank == from) {
        b.st = (int32_t)st;
        if (err) b.e = *err;
    }
    if (rk->bcast(rk, &b, sizeof b, from)) return MYRI_ESTATE;
    if (err) *err = b.e;
    return b.st ? (myri_status)b.st : MYRI_ESTATE;
}

myri_status myri_part_agree(const myri_run_ranks *rk, myri_status st, myri_error *err)
{
    if (!rk || rk->size < 2) return st;
    uint64_t *w = calloc(2 * (size_t)rk->size, sizeof *w);
    if (!w) return MYRI_ENOMEM; /* the others then wait for ever: never seen for a few words */
    for (int r = 0; r < rk->size; r++) w[r] = (uint64_t)st;
    int fail = -1;
    if (rk->alltoall(rk, w, w + rk->size, 1)) fail = rk->rank;
    for (int r = 0; r < rk->size && fail < 0; r++)
        if (w[rk->size + r]) fail = r;
    free(w);
    return fail < 0 ? MYRI_OK : part__fail_from(rk, fail, st, err);
}

static int part__cmp_msg(const void *pa, const void *pb)
{
    const myri_fabric_msg *a = pa, *b = pb;
    if (a->time_ps != b->time_ps) return a->time_ps < b->time_ps ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static bool part__grow(myri_fabric_msg **p, size_t *cap, size_t n)
{
    if (n <= *cap) return true;
    size_t nc = *cap ? *cap : 256;
    while (nc < n) nc *= 2;
    myri_fabric_msg *np = realloc(*p, nc * sizeof *np);
    if (!np) return false;
    *p = np;
    *cap = nc;
    return true;
}

/* This rank's words for every rank: its window's messages sorted by
 * (partition, time, key) into h->out, each checked at >= W (ran: a window
 * was run), counted per rank; its next time; its status. */
static myri_status part__words(myri_part *h, bool ran, myri_time_ps W, myri_status local, myri_error *err)
{
    uint32_t n = h->n;
    myri_time_ps nx = local ? MYRI_TIME_NEVER : h->ops.next_ps(h->ctx, (uint32_t)h->rk->rank);
    if (!local && h->oom) local = MYRI_ENOMEM;
    if (!local && !part__grow(&h->out, &h->capout, h->nbox)) local = MYRI_ENOMEM;
    if (local) h->nbox = 0;
    if (h->nbox > 1) qsort(h->box, h->nbox, sizeof *h->box, part__cmp);
    memset(h->scount, 0, n * sizeof *h->scount);
    for (size_t i = 0; i < h->nbox && !local; i++) {
        const myri_fabric_msg *m = &h->box[i].m;
        if (ran && m->time_ps < W) local = part__early(m, W, err);
        if (m->time_ps < nx) nx = m->time_ps;
        h->out[i] = *m;
        h->scount[h->box[i].q] += sizeof *m;
    }
    if (local) {
        h->nbox = 0;
        memset(h->scount, 0, n * sizeof *h->scount);
    }
    for (uint32_t r = 0; r < n; r++) {
        uint64_t *w = h->sw + (size_t)r * PART__NW;
        w[PART__W_COUNT] = h->scount[r] / sizeof(myri_fabric_msg);
        w[PART__W_NEXT] = nx;
        w[PART__W_TOTAL] = h->nbox;
        w[PART__W_STATUS] = (uint64_t)local;
    }
    return local;
}

/* Receives the messages the other ranks sent this one (nin of them, their
 * counts in h->rw) and gives them to its partition in (time, key) order. */
static myri_status part__receive(myri_part *h, size_t nin, myri_error *err)
{
    const myri_run_ranks *rk = h->rk;
    if (!part__grow(&h->in, &h->capin, nin ? nin : 1)) return MYRI_ENOMEM; /* then the others wait: abort */
    for (uint32_t r = 0; r < h->n; r++) h->rcount[r] = h->rw[(size_t)r * PART__NW + PART__W_COUNT] * sizeof *h->in;
    if (rk->alltoallv(rk, h->out, h->scount, h->in, h->rcount)) return MYRI_ESTATE;
    if (nin > 1) qsort(h->in, nin, sizeof *h->in, part__cmp_msg);
    for (size_t i = 0; i < nin; i++) {
        myri_status st = part__take(h, (uint32_t)rk->rank, &h->in[i], err);
        if (st) return st;
    }
    return MYRI_OK;
}

/* The loop of myri_part_run across ranks.  The first exchange of a window
 * carries each rank's next time taken as the earliest of its own events and
 * of the messages it sends, so that g, the minimum over ranks, is the
 * one-process loop's (the earliest event of any partition once the messages
 * are in); every rank computes the same g, W, statistics and decisions. */
static myri_status part__run_ranks(myri_part *h, myri_time_ps end_ps, myri_error *err)
{
    const myri_run_ranks *rk = h->rk;
    uint32_t me = (uint32_t)rk->rank;
    myri_status local = MYRI_OK;
    myri_time_ps W = 0;
    bool ran = false;
    uint64_t acc = 0;
    for (;;) {
        local = part__words(h, ran, W, local, err);
        if (rk->alltoall(rk, h->sw, h->rw, PART__NW)) return MYRI_ESTATE;
        myri_time_ps g = MYRI_TIME_NEVER;
        uint64_t total = 0, nin = 0;
        int fail = -1;
        for (uint32_t r = 0; r < h->n; r++) {
            const uint64_t *w = h->rw + (size_t)r * PART__NW;
            if (w[PART__W_NEXT] < g) g = w[PART__W_NEXT];
            total += w[PART__W_TOTAL];
            nin += w[PART__W_COUNT];
            if (fail < 0 && w[PART__W_STATUS]) fail = (int)r;
        }
        if (fail >= 0) return part__fail_from(rk, fail, local, err);
        local = part__receive(h, (size_t)nin, err);
        h->nbox = 0;
        acc += total; /* messages sent before the first window count in it, as in one process */
        if (ran) {
            part__count(h, acc);
            acc = 0;
        }
        if (local) continue; /* told to every rank in the next exchange */
        if (g == MYRI_TIME_NEVER || g > end_ps) break;
        W = end_ps + 1;
        if (h->L < W && g < W - h->L) W = g + h->L;
        local = h->ops.run_to(h->ctx, me, W - 1);
        if (local) myri_error_key(err, "--partitions", "rank %u: its partition's run failed", me);
        h->st.windows++;
        ran = true;
    }
    local = h->ops.run_to(h->ctx, me, end_ps);
    h->nbox = 0; /* messages for after the end: the run is over */
    if (!local && h->oom) local = MYRI_ENOMEM;
    return myri_part_agree(rk, local, err);
}
