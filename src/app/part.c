/* part.c -- a run cut into N partitions in one process: the window loop and
 * the exchange of messages (part.h, docs/PARTITION.md section 4). */
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

/* Delivers the window's messages, each at >= W. */
static myri_status part__exchange(myri_part *h, myri_time_ps W, myri_error *err)
{
    if (h->oom) return MYRI_ENOMEM;
    if (h->nbox > 1) qsort(h->box, h->nbox, sizeof *h->box, part__cmp);
    for (size_t i = 0; i < h->nbox; i++) {
        myri_fabric_msg m = h->box[i].m;
        if (m.time_ps < W) {
            myri_error_key(err, "--partitions",
                           "a message (kind %u, channel %u) for t=%llu ps reached the end of its window at %llu ps: "
                           "its delay was shorter than the lookahead L",
                           m.kind, m.a, (unsigned long long)m.time_ps, (unsigned long long)W);
            return MYRI_ESTATE;
        }
        m.time_ps -= h->early_ps;
        myri_status st = h->ops.take(h->ctx, h->box[i].q, &m);
        if (st) {
            myri_error_key(err, "--partitions", "partition %u refused a message (kind %u, channel %u) for t=%llu ps",
                           h->owner[m.dst_node], m.kind, m.a, (unsigned long long)m.time_ps);
            return MYRI_ESTATE;
        }
    }
    h->st.messages += h->nbox;
    if (h->nbox > h->st.max_window_messages) h->st.max_window_messages = h->nbox;
    h->st.busy_windows += h->nbox > 0;
    h->nbox = 0;
    return MYRI_OK;
}

myri_status myri_part_run(myri_part *h, myri_time_ps end_ps, myri_error *err)
{
    if (!h) return MYRI_EINVAL;
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

void myri_part__test_fault(myri_part *h, myri_time_ps early_ps)
{
    if (h) h->early_ps = early_ps;
}
