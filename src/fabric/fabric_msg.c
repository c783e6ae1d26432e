/* fabric_msg.c -- messages between the two ends of a cable (docs/PARTITION.md
 * section 2): the reference model's characters (MSG_CHAR, row 13) and STOP/GO
 * (MSG_CTRL, row 9) go through myri_fab_msg as flat records, delivered with
 * the sender's agenda key at a time at least the cable's lookahead ahead.
 * A MSG_CHAR's record waits in a slab (an index in its event's b) until its
 * event runs; a MSG_CTRL fits its event.
 */
#include "fabric/fabric_int.h"

#include <stdlib.h>

static uint32_t msg__alloc(myri_fabric *f)
{
    fab_msgslab *s = &f->msgs;
    if (s->nfree) return s->free[--s->nfree];
    if (s->n == s->cap) {
        if (s->cap >= (1u << 30)) myri_panic(f->comp, "more than 2^30 messages in flight");
        uint32_t nc = s->cap ? 2 * s->cap : 256;
        fab_msg *nr = realloc(s->rec, nc * sizeof *nr);
        if (nr) s->rec = nr;
        uint32_t *nf = realloc(s->free, nc * sizeof *nf);
        if (nf) s->free = nf;
        if (!nr || !nf) myri_panic(f->comp, "out of memory (fabric messages)");
        s->cap = nc;
    }
    return s->n++;
}

void myri_fab_msg(myri_fabric *f, const fab_chan *c, uint64_t t, fab_phase ph, fab_msg_kind kind, fab_msg *m)
{
    uint32_t from = kind == MSG_CHAR ? c->src_node : c->dst_node;
    MYRI_ASSERT(f->comp, !f->in_tick || f->cur_node == from,
                "message %u on channel %u sent by node %u, not by its end %u", (unsigned)kind, c->id, f->cur_node, from);
    m->t = t;
    m->phase = (uint8_t)ph;
    m->kind = kind;
    m->ch = c->id;
    /* In one process the record is delivered here; a run cut into partitions
     * (PARTITION.md step 9) sends it, with its key, to the partition owning the other end. */
    myri_fab_msg_deliver(f, m);
}

void myri_fab_msg_deliver(myri_fabric *f, const fab_msg *m)
{
    switch (m->kind) {
    case MSG_CTRL:
        myri_fab_push(f, m->t, (fab_phase)m->phase, EV_CTRL, m->ch, ((uint64_t)m->epoch << 1) | (m->stop ? 1u : 0u),
                      NULL);
        return;
    case MSG_CHAR: {
        uint32_t i = myri_fab_msg_put(f, m);
        myri_fab_push(f, m->t, (fab_phase)m->phase, EV_R_ARRIVE, m->ch, i, NULL);
        return;
    }
    default: myri_panic(f->comp, "unknown fabric message kind %u", (unsigned)m->kind);
    }
}

uint32_t myri_fab_msg_put(myri_fabric *f, const fab_msg *m)
{
    uint32_t i = msg__alloc(f);
    f->msgs.rec[i] = *m;
    return i;
}

fab_msg myri_fab_msg_take(myri_fabric *f, const fab_ev *ev)
{
    fab_msg m = {0};
    if (ev->kind == EV_CTRL) {
        m = (fab_msg){.t = ev->time, .kind = MSG_CTRL, .ch = ev->a, .epoch = (uint32_t)(ev->b >> 1),
                      .phase = PH_CTRL, .stop = (uint8_t)(ev->b & 1)};
        return m;
    }
    MYRI_ASSERT(f->comp, ev->kind == EV_R_ARRIVE && ev->b < f->msgs.n, "event kind %u holds no message", ev->kind);
    uint32_t i = (uint32_t)ev->b;
    m = f->msgs.rec[i];
    f->msgs.free[f->msgs.nfree++] = i;
    return m;
}

void myri_fab_msg_fini(myri_fabric *f)
{
    free(f->msgs.rec);
    free(f->msgs.free);
    f->msgs = (fab_msgslab){0};
}
