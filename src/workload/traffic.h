/* traffic.h -- traffic sources at the hosts.
 *
 * A host's traffic source hands its packets to a send function: by default
 * myri_fabric_send (the ideal host of the port queues them whole on the
 * host's link); myri_traffic_set_send gives another, such as the host device
 * of the port (workload/hostdev.h).  The sources know nothing of what is on
 * the ports.  Each host has its own source
 * component ("traffic.hN") with its own random stream (myri_component.rng), so
 * a run is a deterministic function of the seed.
 *
 * Offered load is the fraction of the host link's character rate taken by
 * the packets a host injects, counting every character the packet occupies
 * on that link: route bytes, type, payload, CRC-8 trailer and the GAP.  The
 * mean gap between packets is therefore
 *     (mean route bytes + type bytes + mean payload + 2) * char_time / load,
 * with the mean route length taken over the host's destination distribution.
 */
#ifndef MYRI_WORKLOAD_TRAFFIC_H
#define MYRI_WORKLOAD_TRAFFIC_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "topo/topo.h"
#include "myri/config.h"
#include "myri/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum myri_traffic_pattern {
    MYRI_TRAFFIC_UNIFORM = 0,     /* every packet to a uniformly chosen other host */
    MYRI_TRAFFIC_PERMUTATION = 1, /* each host to one fixed partner (traffic.permutation) */
    MYRI_TRAFFIC_HOTSPOT = 2,     /* to traffic.hotspot with traffic.hotspot_fraction, else uniform */
    MYRI_TRAFFIC_PINGPONG = 3,    /* pairs (h0,h1), (h2,h3)...: one packet in flight per pair */
    MYRI_TRAFFIC_NONE = 4         /* no traffic */
} myri_traffic_pattern;
#define MYRI_TRAFFIC_PATTERNS "uniform|permutation|hotspot|ping-pong|none"

typedef enum myri_traffic_sizes {
    MYRI_SIZE_FIXED = 0,       /* traffic.size */
    MYRI_SIZE_UNIFORM = 1,     /* integers uniform in [size_min, size_max] */
    MYRI_SIZE_EXPONENTIAL = 2, /* 1 + floor(Exp(size - 1)), capped at size_max */
    MYRI_SIZE_EMPIRICAL = 3    /* traffic.sizes: [[SIZE, WEIGHT], ...] */
} myri_traffic_sizes;

typedef struct myri_traffic_params {
    int pattern;             /* myri_traffic_pattern */
    double load;             /* offered load per host, fraction of the link rate */
    uint64_t size_bytes;     /* payload (fixed, or the mean) */
    int size_dist;           /* myri_traffic_sizes */
    uint64_t size_min_bytes, size_max_bytes;
    const myri_node *sizes;  /* empirical distribution */
    int arrivals;            /* 0 poisson, 1 periodic */
    const char *hotspot;     /* host name; "" = the first host */
    double hotspot_fraction;
    int permutation;         /* 0 random derangement, 1 shift by half */
    int64_t type;            /* packet type carried by every packet */
    int64_t queue;           /* bound of a host's send queue (packets); beyond it: refused */
} myri_traffic_params;
extern const myri_param myri_traffic_param_table[];
extern const size_t myri_traffic_nparams;

typedef struct myri_traffic myri_traffic;

/* Component types (listed in src/app/registry.c): one traffic source
 * per host ("traffic-source") and the pattern's controller ("traffic"). */
extern const myri_component_ops myri_traffic_source_ops;
extern const myri_component_ops myri_traffic_ops;

/* Creates one source component per host in `sim`, injecting into `f` with
 * the routes of `b`.  Sources start at time 0.  `sizes_at` positions errors
 * about traffic.* values (may be NULL).  Returns MYRI_OK, MYRI_EINPUT (err),
 * MYRI_ENOMEM.  The sources are freed with the simulation; the returned
 * object with myri_traffic_destroy (after myri_sim_destroy). */
myri_status myri_traffic_create(myri_sim *sim, myri_fabric *f, const myri_topo_built *b,
                                const myri_fabric_params *fp, const myri_traffic_params *tp,
                                const myri_node *at, myri_traffic **out, myri_error *err);
/* The same for partition `me` of a cut run (docs/PARTITION.md section 1):
 * only the sources of hosts with host_owner[h] == me are created, the others'
 * engine ids reserved (myri_sim_reserve), so that every id is the
 * single-process one; host_owner NULL: every host (myri_traffic_create). */
myri_status myri_traffic_create_part(myri_sim *sim, myri_fabric *f, const myri_topo_built *b,
                                     const myri_fabric_params *fp, const myri_traffic_params *tp,
                                     const myri_node *at, const uint32_t *host_owner, uint32_t me,
                                     myri_traffic **out, myri_error *err);
void myri_traffic_destroy(myri_traffic *t);
/* Where the sources send: a function that takes one packet of host
 * pkt->src_host at the current time (the packet is valid during the call
 * only; payload NULL: bytes derived from the id).  A status other than MYRI_OK
 * is a broken invariant (myri_panic). */
typedef myri_status (*myri_traffic_send_fn)(void *ctx, const myri_fabric_packet *pkt);
/* Sets the send function (default: myri_fabric_send on the fabric given to
 * myri_traffic_create).  Call before the run. */
void myri_traffic_set_send(myri_traffic *t, myri_traffic_send_fn send, void *ctx);
/* How many packets host `host` has waiting (to compare with traffic.queue):
 * by default myri_fabric_host_queued; with host devices myri_hostdev_queued.
 * NULL restores the default. */
typedef size_t (*myri_traffic_queued_fn)(void *ctx, uint32_t host);
void myri_traffic_set_queued(myri_traffic *t, myri_traffic_queued_fn queued, void *ctx);
/* Packets created by the sources (run total), refused at the source because
 * the host's queue held traffic.queue packets (run total and in the window).
 * created = refused + handed to the host (fabric injected, or a device's FIFO). */
void myri_traffic_refused(const myri_traffic *t, uint64_t *created, uint64_t *refused, uint64_t *win_refused);
/* Tells the sources a packet was delivered (ping-pong answers it). */
void myri_traffic_delivered(myri_traffic *t, const myri_fabric_delivery *d);
/* Starts the measurement window: counts injections from now on. */
void myri_traffic_window_start(myri_traffic *t);
/* Packets and wire characters injected since the window started. */
void myri_traffic_window(const myri_traffic *t, uint64_t *packets, uint64_t *wire_chars,
                         uint64_t *payload_bytes);
/* The mean offered load the sources aim at (fraction of the link rate,
 * averaged over sending hosts); 0 for ping-pong and none. */
double myri_traffic_target_load(const myri_traffic *t);

#ifdef __cplusplus
}
#endif

#endif
