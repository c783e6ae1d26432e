/* fabric_testlib.h -- helpers shared by the fabric unit tests (header only). */
#ifndef MYRI_FABRIC_TESTLIB_H
#define MYRI_FABRIC_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "topo/topo.h"
#include "myri/sim.h"

#define FT_MAX_REC 65536

typedef struct ft_rec {
    uint64_t id;
    uint64_t t;        /* tail time, or drop time */
    int reason;        /* -1 delivered, else drop reason */
    uint32_t dst;
    uint64_t head;
} ft_rec;

typedef struct ft_log {
    size_t n;
    ft_rec rec[FT_MAX_REC];
} ft_log;

static inline void ft_delivered(void *ctx, const myri_fabric_delivery *d)
{
    ft_log *l = ctx;
    if (l->n < FT_MAX_REC) l->rec[l->n++] = (ft_rec){d->id, d->tail_ps, -1, d->dst_host, d->head_sent_ps};
}

static inline void ft_dropped(void *ctx, uint64_t id, myri_fabric_drop_reason r, myri_time_ps t)
{
    ft_log *l = ctx;
    if (l->n < FT_MAX_REC) l->rec[l->n++] = (ft_rec){id, t, (int)r, 0, 0};
}

/* A fabric of model `model` on t in sim, with the parameters *pp (defaults
 * if NULL), logging deliveries and drops into *log (cleared); NULL on failure. */
static inline myri_fabric *ft_make(myri_sim *sim, myri_topo *t, int model, const myri_fabric_params *pp,
                                   ft_log *log)
{
    myri_fabric_params p;
    if (pp) p = *pp;
    else myri_fabric_params_default(&p);
    p.model = model;
    memset(log, 0, sizeof *log);
    myri_fabric_callbacks cb = {ft_delivered, ft_dropped, log};
    myri_fabric *f = NULL;
    return myri_fabric_create(sim, t, &p, &cb, &f, NULL) == MYRI_OK ? f : NULL;
}

/* One 8-port switch s0, host hi on port i (10 m cables): channel 2i is host i
 * -> s0, 2i+1 is s0 -> host i. */
static inline myri_topo *ft_star8(void)
{
    myri_topo *t = myri_topo_create();
    uint32_t s, h;
    myri_topo_add_switch(t, "s0", 8, &s);
    char name[8];
    for (uint32_t i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "h%u", i);
        myri_topo_add_host(t, name, &h);
        myri_topo_connect(t, h, 0, s, i, 10.0, NULL);
    }
    return t;
}

static inline int ft_cmp(const void *a, const void *b)
{
    const ft_rec *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->reason - y->reason;
}

static inline void ft_sort(ft_log *l) { qsort(l->rec, l->n, sizeof l->rec[0], ft_cmp); }

/* A line: host h0 - s0 - s1 - ... - s(k-1) - host h1; switch ports: 0 towards
 * h0, 1 towards h1, hosts 2.. on further ports if extra > 0 (on s0). */
static inline myri_topo *ft_line(uint32_t k, uint32_t ports, const double *len)
{
    myri_topo *t = myri_topo_create();
    uint32_t h0, h1, prev;
    myri_topo_add_host(t, "h0", &h0);
    myri_topo_add_host(t, "h1", &h1);
    prev = h0;
    uint32_t prev_port = 0;
    char name[16];
    for (uint32_t i = 0; i < k; i++) {
        uint32_t s;
        snprintf(name, sizeof name, "s%u", i);
        myri_topo_add_switch(t, name, ports, &s);
        myri_topo_connect(t, prev, prev_port, s, 0, len[i], NULL);
        prev = s;
        prev_port = 1;
    }
    myri_topo_connect(t, prev, prev_port, h1, 0, len[k], NULL);
    return t;
}

#endif
