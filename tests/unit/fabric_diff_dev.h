/* fabric_diff_dev.h -- random devices on the ports of a differential case
 * (included by fabric_diff.h).  A device sends its host's packets one at a
 * time through myri_port_send with their bytes made ready in random steps
 * (underruns), and receives through windows armed after random delays with
 * random lengths (small ones end in BUFF; sometimes it never arms again, so
 * its slack fills, STOP goes back and the long-period timeout acts); it
 * probes myri_port_rx_count at random times.  Everything a device sees
 * (notices, window bytes, probe counts) goes into an order-sensitive hash, so
 * both models must give the same notices in the same order at the same times
 * with the same bytes. */
#ifndef MYRI_FABRIC_DIFF_DEV_H
#define MYRI_FABRIC_DIFF_DEV_H

#include "fabric/port.h"

typedef struct fd_dev {
    myri_port *port;
    myri_component *comp;
    myri_rng rng;
    uint64_t *hash;       /* the run's device hash (fd_out) */
    uint64_t *notices;
    bool never;           /* stopped arming for good */
    uint8_t win[1024];    /* the window */
    uint32_t max;
    /* sending */
    size_t *queue, nq, qhead;   /* indices of the case's packets this host sends, in order */
    const void *c;              /* the fd_case */
    uint8_t payload[700];
    uint32_t data, ready;       /* bytes of the packet being sent (0: none), and ready so far */
    bool late, tailed;          /* its tail comes in a step after its last byte; the tail was given */
} fd_dev;

enum { FD_EV_ARM = 1, FD_EV_MORE = 2, FD_EV_PROBE = 3 };

static inline void fd_dev_mix(fd_dev *d, uint64_t x)
{
    *d->hash = (*d->hash ^ x) * 0x100000001b3ull;
    *d->hash ^= *d->hash >> 29;
}

static inline void fd_dev_later(fd_dev *d, uint32_t kind, uint64_t delay_ps)
{
    myri_event e = {.target = d->comp, .kind = kind};
    myri_sim_schedule_in(d->comp->sim, delay_ps, &e);
}

/* Arm now, later, or (rarely) never again. */
static inline void fd_dev_plan_arm(fd_dev *d)
{
    uint64_t r = myri_rng_below(&d->rng, 20);
    if (r == 0) {
        d->never = true;
        return;
    }
    d->max = myri_rng_below(&d->rng, 3) == 0 ? 1 + (uint32_t)myri_rng_below(&d->rng, 16)
                                              : 1 + (uint32_t)myri_rng_below(&d->rng, 700);
    if (r < 6) {
        if (myri_port_rx_arm(d->port, d->win, d->max) != MYRI_OK) abort();
        fd_dev_later(d, FD_EV_PROBE, myri_rng_below(&d->rng, 3000000));
    } else {
        fd_dev_later(d, FD_EV_ARM, myri_rng_below(&d->rng, 4000000));
    }
}

static inline void fd_dev_rx(void *dev, myri_port *p, const myri_port_rx *r)
{
    fd_dev *d = dev;
    (void)p;
    (*d->notices)++;
    fd_dev_mix(d, r->id * 3 + (uint64_t)r->end);
    fd_dev_mix(d, (uint64_t)r->bytes << 32 | r->pkt_bytes);
    fd_dev_mix(d, (uint64_t)r->crc_ok << 16 | (uint64_t)r->crc_rem << 8 | r->misrouted);
    fd_dev_mix(d, r->head_ps ^ (r->at_ps << 1) ^ myri_sim_now(d->comp->sim));
    for (uint32_t i = 0; i < r->bytes; i++) fd_dev_mix(d, d->win[i]);
    fd_dev_plan_arm(d);
}

static inline void fd_dev_link(void *dev, myri_port *p, bool up)
{
    fd_dev *d = dev;
    (void)p;
    (*d->notices)++;
    fd_dev_mix(d, 0x11u + up + (myri_sim_now(d->comp->sim) << 2));
}

static void fd_dev_send_next(fd_dev *d);

static inline void fd_dev_tx(void *dev, myri_port *p, const myri_port_tx *t)
{
    fd_dev *d = dev;
    (void)p;
    (*d->notices)++;
    fd_dev_mix(d, t->id ^ ((uint64_t)t->sent << 40) ^ ((uint64_t)t->reason << 41) ^ (t->at_ps << 3));
    d->data = 0; /* the next one may go */
    fd_dev_send_next(d);
}

static const myri_port_ops fd_dev_ops = {fd_dev_rx, fd_dev_tx, fd_dev_link};

static inline void fd_dev_more(fd_dev *d)
{
    if (!d->data || d->tailed) return;
    if (d->ready < d->data) {
        d->ready += 1 + (uint32_t)myri_rng_below(&d->rng, d->data / 2 + 1);
        if (d->ready > d->data) d->ready = d->data;
        d->tailed = d->ready == d->data && !d->late;
    } else {
        d->tailed = true; /* every byte was ready: now the tail (an underrun before the trailer until then) */
    }
    if (myri_port_send_more(d->port, d->ready, d->tailed) == MYRI_OK && !d->tailed)
        fd_dev_later(d, FD_EV_MORE, myri_rng_below(&d->rng, 2000000));
}

static inline void fd_dev_handle(myri_component *self, const myri_event *ev)
{
    fd_dev *d = self->state;
    if (ev->kind == FD_EV_ARM) {
        if (myri_port_rx_arm(d->port, d->win, d->max) != MYRI_OK) abort();
        fd_dev_later(d, FD_EV_PROBE, myri_rng_below(&d->rng, 3000000));
    } else if (ev->kind == FD_EV_MORE) {
        fd_dev_more(d);
    } else if (ev->kind == FD_EV_PROBE) {
        uint32_t n = myri_port_rx_count(d->port);
        fd_dev_mix(d, 0x77u + ((uint64_t)n << 8));
        for (uint32_t i = 0; i < n; i++) fd_dev_mix(d, d->win[i]);
    } else {
        fd_dev_send_next(d); /* a packet of this host is due */
    }
}

static inline myri_status fd_dev_create(myri_component *self, const void *cfg)
{
    self->state = (void *)cfg;
    return MYRI_OK;
}

static const myri_component_ops fd_dev_comp_ops = {.type = "diffdev", .help = "", .create = fd_dev_create,
                                                   .handle = fd_dev_handle};

#endif
