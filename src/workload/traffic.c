/* traffic.c -- traffic sources at the hosts (see traffic.h).
 *
 * One component per host ("traffic.hN", type "traffic-source") draws its
 * destinations, sizes and gaps from its own random stream.  A component
 * "traffic" created before them owns the stream that draws the random
 * permutation.  Packet ids are myri_packet_id(source host, sequence number)
 * (common/packet.h). */
#include "workload/traffic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/packet.h"

/* Every host index fits in a packet id. */
_Static_assert(MYRI_TOPO_MAX_HOSTS - 1u <= MYRI_PACKET_ID_HOST_MAX, "host index too wide for a packet id");

const myri_param myri_traffic_param_table[] = {
    {"pattern", MYRI_P_ENUM, NULL, "uniform", NULL, NULL, "destination pattern",
     offsetof(myri_traffic_params, pattern), MYRI_TRAFFIC_PATTERNS},
    {"load", MYRI_P_DOUBLE, NULL, "0.2", "0", "1",
     "offered load per host: fraction of the link's character rate (all packet characters)",
     offsetof(myri_traffic_params, load), NULL},
    {"size", MYRI_P_SIZE, "B", "20B", "1B", "1MiB", "payload size (fixed size or mean)",
     offsetof(myri_traffic_params, size_bytes), NULL},
    {"size_dist", MYRI_P_ENUM, NULL, "fixed", NULL, NULL,
     "payload size distribution (empirical: traffic.sizes)",
     offsetof(myri_traffic_params, size_dist), "fixed|uniform|exponential|empirical"},
    {"size_min", MYRI_P_SIZE, "B", "1B", "1B", "1MiB", "uniform sizes: smallest payload",
     offsetof(myri_traffic_params, size_min_bytes), NULL},
    {"size_max", MYRI_P_SIZE, "B", "8KiB", "1B", "1MiB",
     "uniform sizes: largest payload; exponential: cap",
     offsetof(myri_traffic_params, size_max_bytes), NULL},
    {"sizes", MYRI_P_NODE, NULL, "", NULL, NULL, "empirical sizes: [[SIZE, WEIGHT], ...]",
     offsetof(myri_traffic_params, sizes), NULL},
    {"arrivals", MYRI_P_ENUM, NULL, "poisson", NULL, NULL,
     "packet arrivals at each host (periodic: random phase, fixed gap)",
     offsetof(myri_traffic_params, arrivals), "poisson|periodic"},
    {"hotspot", MYRI_P_STRING, NULL, "", NULL, NULL, "hotspot: the hot host (default: first host)",
     offsetof(myri_traffic_params, hotspot), NULL},
    {"hotspot_fraction", MYRI_P_DOUBLE, NULL, "1", "0", "1",
     "hotspot: fraction of packets sent to the hot host (the rest uniform)",
     offsetof(myri_traffic_params, hotspot_fraction), NULL},
    {"permutation", MYRI_P_ENUM, NULL, "random", NULL, NULL,
     "permutation: random derangement, or shift (host i to i + H/2)",
     offsetof(myri_traffic_params, permutation), "random|shift"},
    {"type", MYRI_P_INT, NULL, "5", "0", "4294967295",
     "packet type (5 = MyriData, Cplant MCP.h via myrinet-facts 1.3); first byte MSB 0 (< 0x8000 with "
     "packet.type_bytes 2)",
     offsetof(myri_traffic_params, type), NULL},
    {"queue", MYRI_P_INT, NULL, "256", "1", "1048576",
     "most packets waiting in a host's send queue (ideal hosts: not begun; port.device dma: its FIFO); "
     "a packet created beyond it is refused at the source (packets.refused). Assumption, no source: a host's "
     "send ring is finite; 256 is far above the queue of any load the network carries, and keeps memory flat "
     "beyond saturation",
     offsetof(myri_traffic_params, queue), NULL},
};
const size_t myri_traffic_nparams = sizeof myri_traffic_param_table / sizeof myri_traffic_param_table[0];

enum { TRAFFIC_EV_ARRIVAL = 1, TRAFFIC_EV_REPLY = 2 };

typedef struct traffic__src {
    myri_traffic *tr;
    myri_component *self;
    uint32_t host;
    uint64_t seq;
    double mean_gap_ps;   /* 0 = this host does not generate traffic by itself */
    double next_ps;       /* exact time of the next arrival */
} traffic__src;

struct myri_traffic {
    myri_sim *sim;
    myri_fabric *f;
    myri_traffic_send_fn send;
    void *send_ctx;
    myri_traffic_queued_fn queued;
    void *queued_ctx;
    const myri_topo_built *b;
    myri_traffic_params tp;
    uint32_t nhosts, type_bytes;
    uint64_t char_ps;
    uint32_t *partner;    /* permutation / ping-pong partner, UINT32_MAX = none */
    myri_component **comp; /* per host: its source component (NULL: another partition's) */
    const uint32_t *host_owner; /* a cut run: each host's partition (NULL: not cut) */
    uint32_t me;                /* this partition */
    uint32_t hot;
    myri_empirical emp;
    bool has_emp, window;
    uint64_t win_packets, win_chars, win_payload;
    uint64_t created, refused, win_refused; /* refused: the host's queue was full (traffic.queue) */
    double load_sum;
    uint32_t nsenders;
};

static uint32_t traffic__size(myri_traffic *t, myri_rng *r)
{
    const myri_traffic_params *p = &t->tp;
    switch (p->size_dist) {
    case MYRI_SIZE_UNIFORM:
        return (uint32_t)(p->size_min_bytes + myri_rng_below(r, p->size_max_bytes - p->size_min_bytes + 1));
    case MYRI_SIZE_EXPONENTIAL: {
        double x = 1.0 + floor(myri_rng_exponential(r, (double)p->size_bytes - 1.0));
        return x > (double)p->size_max_bytes ? (uint32_t)p->size_max_bytes : (uint32_t)x;
    }
    case MYRI_SIZE_EMPIRICAL: return (uint32_t)myri_empirical_sample(&t->emp, r);
    default: return (uint32_t)p->size_bytes;
    }
}

static double traffic__mean_size(const myri_traffic *t)
{
    const myri_traffic_params *p = &t->tp;
    switch (p->size_dist) {
    case MYRI_SIZE_UNIFORM: return 0.5 * (double)(p->size_min_bytes + p->size_max_bytes);
    case MYRI_SIZE_EMPIRICAL: {
        double m = 0, prev = 0;
        for (size_t i = 0; i < t->emp.n; i++) {
            m += t->emp.value[i] * (t->emp.cdf[i] - prev);
            prev = t->emp.cdf[i];
        }
        return m;
    }
    default: return (double)p->size_bytes; /* exponential: approximately, before the cap */
    }
}

/* Destination of the next packet from `src`; UINT32_MAX if none. */
static uint32_t traffic__dst(myri_traffic *t, uint32_t src, myri_rng *r)
{
    uint32_t h = t->nhosts;
    switch (t->tp.pattern) {
    case MYRI_TRAFFIC_PERMUTATION: return t->partner[src];
    case MYRI_TRAFFIC_HOTSPOT:
        if (src != t->hot && myri_rng_uniform01(r) < t->tp.hotspot_fraction) return t->hot;
        break; /* else uniform */
    case MYRI_TRAFFIC_UNIFORM: break;
    default: return UINT32_MAX;
    }
    uint32_t d = (uint32_t)myri_rng_below(r, h - 1);
    return d >= src ? d + 1 : d;
}

static void traffic__send(traffic__src *s, uint32_t dst)
{
    myri_traffic *t = s->tr;
    if (dst >= t->nhosts || dst == s->host) return;
    myri_route rb;
    const myri_route *rt = myri_routes_get(&t->b->routes, s->host, dst, &rb);
    if (rt->len == MYRI_ROUTE_NONE) return;
    uint32_t size = traffic__size(t, &s->self->rng);
    myri_fabric_packet pkt = {
        .id = myri_packet_id(s->host, s->seq++), .src_host = s->host, .route_len = rt->len,
        .route = rt->byte, .type = (uint32_t)t->tp.type, .payload_bytes = size, .payload = NULL,
        .dst_host = dst, .dst_known = true};
    t->created++;
    if (t->window) { /* offered: refused packets included */
        t->win_packets++;
        t->win_chars += (uint64_t)rt->len + t->type_bytes + size + 2;
        t->win_payload += size;
    }
    if (t->queued(t->queued_ctx, s->host) >= (uint64_t)t->tp.queue) {
        t->refused++;
        t->win_refused += t->window;
        return;
    }
    if (t->send(t->send_ctx, &pkt) != MYRI_OK)
        myri_panic(s->self, "the host refused a packet to host %u", dst);
}

static myri_status traffic__src_create(myri_component *self, const void *config)
{
    const traffic__src *init = config;
    /* Made by traffic__sources for a myri_traffic of this simulation only. */
    if (!init || !init->tr || init->tr->sim != self->sim || init->host >= init->tr->nhosts)
        return MYRI_EINVAL;
    traffic__src *s = malloc(sizeof *s);
    if (!s) return MYRI_ENOMEM;
    *s = *(const traffic__src *)config;
    s->self = self;
    self->state = s;
    return MYRI_OK;
}

static void traffic__schedule_next(traffic__src *s)
{
    myri_traffic *t = s->tr;
    if (t->tp.arrivals == 1)
        s->next_ps += s->mean_gap_ps;
    else
        s->next_ps += myri_rng_exponential(&s->self->rng, s->mean_gap_ps);
    if (s->next_ps >= 1.8e19) return; /* beyond the end of time */
    myri_event ev = {.target = s->self, .kind = TRAFFIC_EV_ARRIVAL};
    myri_sim_schedule(t->sim, (myri_time_ps)llround(s->next_ps), &ev);
}

static void traffic__src_handle(myri_component *self, const myri_event *ev)
{
    traffic__src *s = self->state;
    if (ev->kind == TRAFFIC_EV_ARRIVAL) {
        traffic__send(s, traffic__dst(s->tr, s->host, &self->rng));
        traffic__schedule_next(s);
    } else if (ev->kind == TRAFFIC_EV_REPLY) {
        traffic__send(s, ev->arg32);
    }
}

static void traffic__src_destroy(myri_component *self) { free(self->state); }

const myri_component_ops myri_traffic_source_ops = {
    .type = "traffic-source",
    .help = "a host's traffic source (fabric job)",
    .create = traffic__src_create,
    .handle = traffic__src_handle,
    .destroy = traffic__src_destroy,
};

/* The config is the myri_traffic being created in this simulation. */
static myri_status traffic__ctl_create(myri_component *self, const void *config)
{
    const myri_traffic *t = config;
    if (!t || t->sim != self->sim) return MYRI_EINVAL;
    self->state = NULL;
    return MYRI_OK;
}
static void traffic__ctl_handle(myri_component *self, const myri_event *ev)
{
    (void)self;
    (void)ev;
}
const myri_component_ops myri_traffic_ops = {
    .type = "traffic",
    .help = "draws the traffic permutation (fabric job)",
    .create = traffic__ctl_create,
    .handle = traffic__ctl_handle,
};

/* Partners: a random derangement (Fisher-Yates, redrawn until no host maps
 * to itself), a shift by half, or ping-pong pairs. */
static myri_status traffic__partners(myri_traffic *t, myri_rng *r)
{
    uint32_t h = t->nhosts;
    t->partner = malloc(h * sizeof(uint32_t));
    if (!t->partner) return MYRI_ENOMEM;
    for (uint32_t i = 0; i < h; i++) t->partner[i] = UINT32_MAX;
    if (t->tp.pattern == MYRI_TRAFFIC_PINGPONG) {
        for (uint32_t i = 0; i + 1 < h; i += 2) {
            t->partner[i] = i + 1;
            t->partner[i + 1] = i;
        }
    } else if (t->tp.pattern == MYRI_TRAFFIC_PERMUTATION && t->tp.permutation == 1) {
        for (uint32_t i = 0; i < h; i++) t->partner[i] = (i + (h + 1) / 2) % h;
    } else if (t->tp.pattern == MYRI_TRAFFIC_PERMUTATION && h >= 2) {
        for (bool fixed = true; fixed;) {
            for (uint32_t i = 0; i < h; i++) t->partner[i] = i;
            for (uint32_t i = h - 1; i > 0; i--) {
                uint32_t j = (uint32_t)myri_rng_below(r, (uint64_t)i + 1), x = t->partner[i];
                t->partner[i] = t->partner[j];
                t->partner[j] = x;
            }
            fixed = false;
            for (uint32_t i = 0; i < h; i++) fixed = fixed || t->partner[i] == i;
        }
    }
    return MYRI_OK;
}

/* Mean route bytes of the packets host s sends under the pattern. */
static double traffic__mean_route(const myri_traffic *t, uint32_t s)
{
    const myri_routes *r = &t->b->routes;
    uint32_t h = t->nhosts;
    if (t->tp.pattern == MYRI_TRAFFIC_PERMUTATION) return myri_routes_len(r, s, t->partner[s]);
    double sum = (double)myri_routes_len_sum(r, s); /* closed form on regular networks */
    double uni = h > 1 ? sum / (h - 1) : 0;
    if (t->tp.pattern == MYRI_TRAFFIC_HOTSPOT && s != t->hot) {
        double f = t->tp.hotspot_fraction;
        return f * myri_routes_len(r, s, t->hot) + (1 - f) * uni;
    }
    return uni;
}

static myri_status traffic__sizes(myri_traffic *t, const myri_node *at, myri_error *err)
{
    const myri_traffic_params *p = &t->tp;
    if (p->size_dist == MYRI_SIZE_UNIFORM && p->size_min_bytes > p->size_max_bytes)
        return myri_error_at(err, at, "traffic.size_min is larger than traffic.size_max");
    if (p->size_dist != MYRI_SIZE_EMPIRICAL) return MYRI_OK;
    const myri_node *s = p->sizes;
    if (!s || s->kind != MYRI_NODE_SEQ || s->n == 0)
        return myri_error_at(err, s ? s : at, "traffic.sizes must be a list of [SIZE, WEIGHT] pairs");
    double *v = calloc(s->n, sizeof(double)), *w = calloc(s->n, sizeof(double));
    myri_status st = v && w ? MYRI_OK : MYRI_ENOMEM;
    myri_param ps = {"size", MYRI_P_SIZE, "B", NULL, "1B", "1MiB", "", 0, NULL};
    myri_param pw = {"weight", MYRI_P_DOUBLE, NULL, NULL, "0", NULL, "", 0, NULL};
    for (size_t i = 0; i < s->n && !st; i++) {
        const myri_node *it = s->item[i];
        uint64_t sz = 0;
        if (it->kind != MYRI_NODE_SEQ || it->n != 2)
            st = myri_error_at(err, it, "expected a pair [SIZE, WEIGHT]");
        else if (myri_param_parse(&ps, it->item[0], &sz, err) ||
                 myri_param_parse(&pw, it->item[1], &w[i], err))
            st = MYRI_EINPUT;
        v[i] = (double)sz;
    }
    if (!st && myri_empirical_init(&t->emp, s->n, v, w) != 0)
        st = myri_error_at(err, s, "traffic.sizes: the weights must have a positive sum");
    t->has_emp = !st;
    free(v);
    free(w);
    return st;
}

/* The packet type must be sendable with packet.type_bytes (seed 002: the
 * first type byte has MSB 0), else every packet would be dropped misrouted. */
static myri_status traffic__type(const myri_traffic *t, const myri_node *at, myri_error *err)
{
    if (myri_packet_type_valid((uint32_t)t->tp.type, t->type_bytes)) return MYRI_OK;
    const myri_node *tn = myri_node_get(at, "type");
    unsigned tb = t->type_bytes; /* 2 or 4 (checked with the fabric's parameters) */
    unsigned long long limit = tb >= 1 && tb <= MYRI_PACKET_TYPE_MAX_BYTES ? 1ull << (8u * tb - 1u) : 0;
    return myri_error_at(err, tn ? tn : at, "traffic.type: %lld (0x%llx) is not a packet type of packet.type_bytes "
                                            "= %u: the first type byte must have MSB 0 (seed 002: MSB 1 marks a "
                                            "route byte; every packet would be dropped as misrouted); expected 0 "
                                            "to %llu (below 0x%llx)",
                         (long long)t->tp.type, (unsigned long long)t->tp.type, tb, limit ? limit - 1 : 0, limit);
}

static myri_status traffic__hot(myri_traffic *t, const myri_node *at, myri_error *err)
{
    t->hot = 0;
    if (!t->tp.hotspot || !*t->tp.hotspot) return MYRI_OK;
    int32_t n = myri_topo_find(t->b->topo, t->tp.hotspot);
    if (n < 0 || t->b->topo->node[n].kind != MYRI_TOPO_HOST) {
        const myri_node *hn = myri_node_get(at, "hotspot");
        return myri_error_at(err, hn ? hn : at, "traffic.hotspot: '%s' is not a host", t->tp.hotspot);
    }
    t->hot = (uint32_t)t->b->topo->node[n].host_index;
    return MYRI_OK;
}

/* Adds the per-host source components and their first events. */
static myri_status traffic__sources(myri_traffic *t)
{
    double wire_fixed = (double)t->type_bytes + traffic__mean_size(t) + 2.0;
    char name[48];
    for (uint32_t h = 0; h < t->nhosts; h++) {
        traffic__src init = {.tr = t, .host = h};
        int pat = t->tp.pattern;
        bool sends = pat == MYRI_TRAFFIC_UNIFORM || (pat == MYRI_TRAFFIC_PERMUTATION) ||
                     (pat == MYRI_TRAFFIC_HOTSPOT && h != t->hot);
        if (t->nhosts < 2 || t->tp.load <= 0) sends = false;
        if (sends) {
            init.mean_gap_ps = (traffic__mean_route(t, h) + wire_fixed) * (double)t->char_ps / t->tp.load;
            t->load_sum += t->tp.load;
            t->nsenders++;
        }
        if (t->host_owner && t->host_owner[h] != t->me) { /* another partition's: its id kept free */
            myri_status st = myri_sim_reserve(t->sim, 1);
            if (st) return st;
            continue;
        }
        snprintf(name, sizeof name, "traffic.%s", t->b->topo->node[t->b->topo->host_node[h]].name);
        myri_component *c = NULL;
        myri_status st = myri_sim_add(t->sim, &myri_traffic_source_ops, name, &init, &c);
        if (st) return st;
        traffic__src *s = c->state;
        t->comp[h] = c;
        /* host h's unit: its notices and callbacks run as its source (docs/PARTITION.md section 3) */
        if (t->f && (st = myri_fabric_set_host_unit(t->f, h, (uint32_t)c->id)) != MYRI_OK) return st;
        if (sends) {
            if (t->tp.arrivals == 1) /* periodic: random phase in [0, gap) */
                s->next_ps = myri_rng_uniform(&c->rng, 0, s->mean_gap_ps) - s->mean_gap_ps;
            traffic__schedule_next(s);
        } else if (pat == MYRI_TRAFFIC_PINGPONG && t->partner[h] != UINT32_MAX && h % 2 == 0) {
            myri_event ev = {.target = c, .kind = TRAFFIC_EV_REPLY, .arg32 = t->partner[h]};
            myri_sim_schedule(t->sim, 0, &ev);
        }
    }
    return MYRI_OK;
}

static myri_status traffic__fabric_send(void *ctx, const myri_fabric_packet *pkt)
{
    return myri_fabric_send(ctx, pkt);
}

static size_t traffic__fabric_queued(void *ctx, uint32_t host) { return myri_fabric_host_queued(ctx, host); }

void myri_traffic_set_queued(myri_traffic *t, myri_traffic_queued_fn queued, void *ctx)
{
    if (!t) return;
    t->queued = queued ? queued : traffic__fabric_queued;
    t->queued_ctx = queued ? ctx : t->f;
}

void myri_traffic_refused(const myri_traffic *t, uint64_t *created, uint64_t *refused, uint64_t *win_refused)
{
    if (created) *created = t ? t->created : 0;
    if (refused) *refused = t ? t->refused : 0;
    if (win_refused) *win_refused = t ? t->win_refused : 0;
}

void myri_traffic_set_send(myri_traffic *t, myri_traffic_send_fn send, void *ctx)
{
    if (!t) return;
    t->send = send ? send : traffic__fabric_send;
    t->send_ctx = send ? ctx : t->f;
}

myri_status myri_traffic_create(myri_sim *sim, myri_fabric *f, const myri_topo_built *b,
                                const myri_fabric_params *fp, const myri_traffic_params *tp,
                                const myri_node *at, myri_traffic **out, myri_error *err)
{
    return myri_traffic_create_part(sim, f, b, fp, tp, at, NULL, 0, out, err);
}

myri_status myri_traffic_create_part(myri_sim *sim, myri_fabric *f, const myri_topo_built *b,
                                     const myri_fabric_params *fp, const myri_traffic_params *tp,
                                     const myri_node *at, const uint32_t *host_owner, uint32_t me,
                                     myri_traffic **out, myri_error *err)
{
    if (!sim || !f || !b || !fp || !tp || !out) return MYRI_EINVAL;
    myri_traffic *t = calloc(1, sizeof *t);
    if (!t) return MYRI_ENOMEM;
    *t = (myri_traffic){.sim = sim, .f = f, .send = traffic__fabric_send, .send_ctx = f,
                        .queued = traffic__fabric_queued, .queued_ctx = f, .b = b, .tp = *tp, .nhosts = (uint32_t)b->topo->nhosts,
                        .type_bytes = (uint32_t)fp->type_bytes, .char_ps = myri_fabric_char_time_ps(f),
                        .host_owner = host_owner, .me = me};
    if (t->tp.queue <= 0) t->tp.queue = 256; /* 0: the documented default */
    myri_component *ctl = NULL;
    t->comp = calloc(t->nhosts, sizeof(myri_component *));
    myri_status st = t->comp ? traffic__type(t, at, err) : MYRI_ENOMEM;
    if (!st) st = traffic__sizes(t, at, err);
    if (!st) st = traffic__hot(t, at, err);
    if (!st) st = myri_sim_add(sim, &myri_traffic_ops, "traffic", t, &ctl);
    if (!st) st = traffic__partners(t, &ctl->rng);
    if (!st) st = traffic__sources(t);
    if (st) {
        myri_traffic_destroy(t);
        return st;
    }
    *out = t;
    return MYRI_OK;
}

void myri_traffic_destroy(myri_traffic *t)
{
    if (!t) return;
    if (t->has_emp) myri_empirical_free(&t->emp);
    free(t->partner);
    free(t->comp);
    free(t);
}

void myri_traffic_delivered(myri_traffic *t, const myri_fabric_delivery *d)
{
    if (!t || t->tp.pattern != MYRI_TRAFFIC_PINGPONG || d->dst_host >= t->nhosts) return;
    myri_event ev = {.target = t->comp[d->dst_host], .kind = TRAFFIC_EV_REPLY, .arg32 = d->src_host};
    myri_sim_schedule(t->sim, myri_sim_now(t->sim), &ev);
}

void myri_traffic_window_start(myri_traffic *t)
{
    if (!t) return;
    t->window = true;
    t->win_packets = t->win_chars = t->win_payload = t->win_refused = 0;
}

void myri_traffic_window(const myri_traffic *t, uint64_t *packets, uint64_t *wire_chars,
                         uint64_t *payload_bytes)
{
    *packets = t ? t->win_packets : 0;
    *wire_chars = t ? t->win_chars : 0;
    *payload_bytes = t ? t->win_payload : 0;
}

double myri_traffic_target_load(const myri_traffic *t)
{
    return t && t->nsenders ? t->load_sum / t->nsenders : 0;
}
