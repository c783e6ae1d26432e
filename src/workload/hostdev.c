/* hostdev.c -- a simple host device on each fabric port (see hostdev.h). */
#include "workload/hostdev.h"

#include <stdlib.h>
#include <string.h>

#include "common/packet.h"

const myri_param myri_hostdev_param_table[] = {
    {"device", MYRI_P_ENUM, NULL, "none", NULL, NULL,
     "what sits on each host's port: none = ideal hosts (the receiver drains at line rate, never sends STOP; "
     "the runs of earlier versions), dma = a simple host device that sends one packet at a time and receives "
     "through a DMA into windows it re-arms (src/workload/hostdev.h)",
     offsetof(myri_hostdev_params, device), MYRI_HOSTDEV_KINDS},
    {"window", MYRI_P_SIZE, "B", "64KiB", "1B", "256MiB",
     "dma: receive window armed each time (a host buffer posted to the NIC); assumption, no source gives one: "
     "64 KiB holds any packet of the scenarios whole, so a window ends with the packet's tail; smaller "
     "windows end in BUFF",
     offsetof(myri_hostdev_params, window_bytes), NULL},
    {"arm_delay", MYRI_P_TIME, "ns", "0ns", "0ns", "1s",
     "dma: time from a window's end (rx notice) to the next window armed, i.e. the host's re-arm time "
     "(interrupt, driver, buffer re-post); assumption, no source gives a host's re-arm time: 0 = at once",
     offsetof(myri_hostdev_params, arm_delay_ps), NULL},
};
const size_t myri_hostdev_nparams = sizeof myri_hostdev_param_table / sizeof myri_hostdev_param_table[0];

enum { HOSTDEV_EV_ARM = 1 };

/* A packet waiting in a device's FIFO (the route bytes copied). */
typedef struct hostdev__pkt {
    uint64_t id;
    uint32_t type, payload_bytes;
    uint32_t dst_host;       /* intended destination (dst_known), passed on to the fabric */
    bool dst_known;
    uint8_t route_len;
    uint8_t route[32];
    myri_time_ps created_ps; /* handed to the device: the latency counts from here */
} hostdev__pkt;

typedef struct hostdev__dev {
    myri_hostdevs *set;
    myri_component *comp;
    myri_port *port;
    uint32_t host;
    /* send: a ring of packets; the head is on the port while `sending` */
    hostdev__pkt *q;
    size_t cap, head, n;
    bool sending;
    uint8_t *payload;       /* the head's payload bytes, until its tx notice */
    uint32_t payload_cap;
    /* receive */
    uint8_t *win;
    uint64_t cur_id;        /* the packet being received */
    bool mismatch;          /* the packet being received has a byte not as sent */
    uint64_t mismatch_at;   /* its offset in the packet */
    myri_hostdev_stats st;
} hostdev__dev;

struct myri_hostdevs {
    myri_sim *sim;
    myri_fabric *f;
    myri_hostdev_params p;
    uint32_t type_bytes, nhosts;
    hostdev__dev *dev;
};

/* ---- send ------------------------------------------------------------------------- */

/* Gives the FIFO's head to the port, every byte ready. */
static void hostdev__start(hostdev__dev *d)
{
    if (d->sending || d->n == 0) return;
    const hostdev__pkt *k = &d->q[d->head];
    if (k->payload_bytes > d->payload_cap) {
        uint8_t *b = realloc(d->payload, k->payload_bytes);
        if (!b) myri_panic(d->comp, "out of memory for a %u-byte payload", k->payload_bytes);
        d->payload = b;
        d->payload_cap = k->payload_bytes;
    }
    for (uint32_t i = 0; i < k->payload_bytes; i++) d->payload[i] = myri_packet_payload_byte(k->id, i);
    myri_fabric_packet pkt = {.id = k->id, .src_host = d->host, .route_len = k->route_len, .route = k->route,
                              .type = k->type, .payload_bytes = k->payload_bytes,
                              .payload = k->payload_bytes ? d->payload : NULL, .created_ps = k->created_ps,
                              .dst_host = k->dst_host, .dst_known = k->dst_known};
    uint32_t all = (uint32_t)k->route_len + d->set->type_bytes + k->payload_bytes;
    myri_status st = myri_port_send(d->port, &pkt, all, true);
    if (st != MYRI_OK) myri_panic(d->comp, "the port refused packet 0x%llx (status %d)", (unsigned long long)k->id, st);
    d->sending = true;
}

static myri_status hostdev__push(hostdev__dev *d, const myri_fabric_packet *pkt)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 16;
        hostdev__pkt *q = malloc(cap * sizeof *q);
        if (!q) return MYRI_ENOMEM;
        for (size_t i = 0; i < d->n; i++) q[i] = d->q[(d->head + i) % d->cap];
        free(d->q);
        d->q = q;
        d->cap = cap;
        d->head = 0;
    }
    hostdev__pkt *k = &d->q[(d->head + d->n) % d->cap];
    *k = (hostdev__pkt){.id = pkt->id, .type = pkt->type, .payload_bytes = pkt->payload_bytes,
                        .route_len = pkt->route_len, .created_ps = myri_sim_now(d->comp->sim),
                        .dst_host = pkt->dst_host, .dst_known = pkt->dst_known};
    if (pkt->route_len) memcpy(k->route, pkt->route, pkt->route_len);
    d->n++;
    d->st.queued = d->n;
    if (d->n > d->st.max_queue) d->st.max_queue = d->n;
    return MYRI_OK;
}

myri_status myri_hostdev_send(void *ctx, const myri_fabric_packet *pkt)
{
    myri_hostdevs *s = ctx;
    if (!s || !pkt || pkt->src_host >= s->nhosts || pkt->route_len > 32 || (pkt->route_len && !pkt->route) ||
        pkt->payload)
        return MYRI_EINVAL;
    hostdev__dev *d = &s->dev[pkt->src_host];
    myri_status st = hostdev__push(d, pkt);
    if (st) return st;
    hostdev__start(d);
    return MYRI_OK;
}

size_t myri_hostdev_queued(void *ctx, uint32_t host)
{
    const myri_hostdevs *s = ctx;
    return s && host < s->nhosts ? s->dev[host].n : 0;
}

static void hostdev__tx(void *dv, myri_port *p, const myri_port_tx *t)
{
    hostdev__dev *d = dv;
    (void)p;
    MYRI_ASSERT(d->comp, d->sending && d->n > 0 && d->q[d->head].id == t->id,
                "tx notice for packet 0x%llx, which this device is not sending", (unsigned long long)t->id);
    if (t->sent) d->st.tx_packets++;
    else d->st.tx_dropped++;
    d->sending = false;
    d->head = (d->head + 1) % d->cap;
    d->n--;
    d->st.queued = d->n;
    hostdev__start(d);
}

/* ---- receive ---------------------------------------------------------------------- */

static void hostdev__arm(hostdev__dev *d)
{
    myri_status st = myri_port_rx_arm(d->port, d->win, (uint32_t)d->set->p.window_bytes);
    if (st != MYRI_OK) myri_panic(d->comp, "the port refused a window (status %d)", st);
}

/* Compares the window's bytes with what the sender made: bytes at packet
 * offsets [off, off + n), of which the type comes first; `last` = the window
 * ends with the packet's trailer (not compared). */
static void hostdev__check(hostdev__dev *d, uint64_t off, uint32_t n, bool last)
{
    uint32_t tb = d->set->type_bytes;
    uint32_t end = last && n > 0 ? n - 1 : n;
    for (uint32_t i = 0; i < end && !d->mismatch; i++) {
        uint64_t k = off + i;
        if (k < tb) continue;
        if (d->win[i] != myri_packet_payload_byte(d->cur_id, k - tb)) {
            d->mismatch = true;
            d->mismatch_at = k;
        }
    }
}

static void hostdev__rx(void *dv, myri_port *p, const myri_port_rx *r)
{
    hostdev__dev *d = dv;
    (void)p;
    d->st.rx_bytes += r->bytes;
    d->cur_id = r->id;
    if (!r->misrouted) hostdev__check(d, (uint64_t)r->pkt_bytes - r->bytes, r->bytes, r->end == MYRI_PORT_RX_TAIL);
    if (r->end == MYRI_PORT_RX_BUFF) {
        d->st.rx_buff++;
    } else {
        if (r->end == MYRI_PORT_RX_TRUNC) d->st.rx_trunc++;
        else if (r->misrouted) d->st.rx_misrouted++;
        else if (!r->crc_ok) d->st.rx_bad_crc++;
        else if (d->mismatch)
            myri_panic(d->comp, "packet 0x%llx has a good CRC but its byte %llu is not the one sent",
                       (unsigned long long)r->id, (unsigned long long)d->mismatch_at);
        else d->st.rx_packets++;
        d->mismatch = false;
    }
    if (d->set->p.arm_delay_ps == 0) {
        hostdev__arm(d);
    } else {
        myri_event ev = {.target = d->comp, .kind = HOSTDEV_EV_ARM};
        myri_sim_schedule(d->set->sim, myri_sim_now(d->set->sim) + d->set->p.arm_delay_ps, &ev);
    }
}

static const myri_port_ops hostdev__port_ops = {.rx = hostdev__rx, .tx = hostdev__tx, .link = NULL};

/* ---- component ---------------------------------------------------------------------- */

/* The config is one device of a myri_hostdevs of this simulation, not yet
 * registered (hostdev__one); anything else is MYRI_EINVAL. */
static myri_status hostdev__comp_create(myri_component *self, const void *config)
{
    const hostdev__dev *d = config;
    if (!d || !d->set || d->set->sim != self->sim || d->comp) return MYRI_EINVAL;
    self->state = (void *)config; /* owned by the myri_hostdevs */
    return MYRI_OK;
}

static void hostdev__comp_handle(myri_component *self, const myri_event *ev)
{
    if (ev->kind == HOSTDEV_EV_ARM) hostdev__arm(self->state);
}

const myri_component_ops myri_hostdev_ops = {
    .type = "hostdev",
    .help = "a simple host device on a fabric port: FIFO send, DMA receive into re-armed windows (port.device)",
    .create = hostdev__comp_create,
    .handle = hostdev__comp_handle,
};

static myri_status hostdev__one(myri_hostdevs *s, const myri_topo *topo, uint32_t h)
{
    hostdev__dev *d = &s->dev[h];
    d->set = s;
    d->host = h;
    d->port = myri_fabric_port(s->f, h);
    d->win = malloc(s->p.window_bytes);
    if (!d->port) return MYRI_EINVAL;
    if (!d->win) return MYRI_ENOMEM;
    char name[80];
    snprintf(name, sizeof name, "port.%s", topo->node[topo->host_node[h]].name);
    myri_status st = myri_sim_add(s->sim, &myri_hostdev_ops, name, d, &d->comp);
    if (st) return st == MYRI_EINPUT ? MYRI_EINVAL : st;
    st = myri_port_attach(d->port, &hostdev__port_ops, d);
    if (st) return st;
    hostdev__arm(d);
    return MYRI_OK;
}

myri_status myri_hostdev_create(myri_sim *sim, myri_fabric *f, const myri_topo *topo,
                                const myri_hostdev_params *p, uint32_t type_bytes, myri_hostdevs **out)
{
    if (!sim || !f || !topo || !p || !out || p->window_bytes < 1 || p->window_bytes > UINT32_MAX)
        return MYRI_EINVAL;
    *out = NULL;
    myri_hostdevs *s = calloc(1, sizeof *s);
    if (!s) return MYRI_ENOMEM;
    *s = (myri_hostdevs){.sim = sim, .f = f, .p = *p, .type_bytes = type_bytes, .nhosts = (uint32_t)topo->nhosts};
    s->dev = calloc(s->nhosts ? s->nhosts : 1, sizeof *s->dev);
    myri_status st = s->dev ? MYRI_OK : MYRI_ENOMEM;
    for (uint32_t h = 0; h < s->nhosts && !st; h++) st = hostdev__one(s, topo, h);
    if (st) {
        myri_hostdev_destroy(s);
        return st;
    }
    *out = s;
    return MYRI_OK;
}

void myri_hostdev_destroy(myri_hostdevs *s)
{
    if (!s) return;
    for (uint32_t h = 0; s->dev && h < s->nhosts; h++) {
        free(s->dev[h].q);
        free(s->dev[h].payload);
        free(s->dev[h].win);
    }
    free(s->dev);
    free(s);
}

myri_status myri_hostdev_get_stats(const myri_hostdevs *s, uint32_t host, myri_hostdev_stats *out)
{
    if (!s || !out) return MYRI_EINVAL;
    if (host != UINT32_MAX) {
        if (host >= s->nhosts) return MYRI_EINVAL;
        *out = s->dev[host].st;
        return MYRI_OK;
    }
    myri_hostdev_stats a = {0};
    for (uint32_t h = 0; h < s->nhosts; h++) {
        const myri_hostdev_stats *x = &s->dev[h].st;
        a.rx_packets += x->rx_packets;
        a.rx_bad_crc += x->rx_bad_crc;
        a.rx_misrouted += x->rx_misrouted;
        a.rx_trunc += x->rx_trunc;
        a.rx_buff += x->rx_buff;
        a.rx_bytes += x->rx_bytes;
        a.tx_packets += x->tx_packets;
        a.tx_dropped += x->tx_dropped;
        a.queued += x->queued;
        if (x->max_queue > a.max_queue) a.max_queue = x->max_queue;
    }
    *out = a;
    return MYRI_OK;
}
