/* hostdev.h -- a simple host device on each fabric port (port.device: dma).
 *
 * Until the LANai NIC exists, this is the device a scenario can put on its
 * hosts' ports (src/fabric/port.h, docs/FABRIC.md "Ports") instead of the
 * ideal hosts.  One component per host, named "port.<hostname>" (type
 * "hostdev"; random streams are keyed by name, so the traffic sources'
 * streams do not change; the device draws nothing).  Each device:
 *
 *   send     keeps a FIFO of the packets its host's traffic source gives it
 *            (myri_hostdev_send, the traffic's send function) and sends them
 *            one at a time with myri_port_send, every byte ready at once; the
 *            payload bytes are made from the packet id
 *            (myri_packet_payload_byte) in a buffer the device owns until
 *            the tx notice, which starts the next packet.
 *   receive  arms a window of port.window bytes at time 0 and re-arms it
 *            port.arm_delay after every rx notice (0: at once, inside the
 *            notice).  It counts packets received whole with a good CRC, bad
 *            ones, BUFF notices, bytes, and checks the payload bytes of every
 *            packet whose CRC is good against myri_packet_payload_byte (a
 *            mismatch is a broken invariant: myri_panic).
 *
 * The packets a traffic source hands over wait in the device's FIFO, outside
 * the fabric: the fabric counts a packet as injected (and its latency from)
 * when the device gives it to the port.
 */
#ifndef MYRI_WORKLOAD_HOSTDEV_H
#define MYRI_WORKLOAD_HOSTDEV_H

#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/port.h"
#include "myri/config.h"
#include "myri/sim.h"
#include "topo/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum myri_hostdev_kind {
    MYRI_HOSTDEV_NONE = 0, /* ideal hosts: no device on any port */
    MYRI_HOSTDEV_DMA = 1   /* this device on every host's port */
} myri_hostdev_kind;
#define MYRI_HOSTDEV_KINDS "none|dma"

/* The scenario's `port` section. */
typedef struct myri_hostdev_params {
    int device;              /* myri_hostdev_kind */
    uint64_t window_bytes;   /* receive window armed each time, >= 1 */
    uint64_t arm_delay_ps;   /* re-arm this long after each rx notice */
} myri_hostdev_params;
extern const myri_param myri_hostdev_param_table[];
extern const size_t myri_hostdev_nparams;

/* The component type (listed in src/app/registry.c). */
extern const myri_component_ops myri_hostdev_ops;

/* What the devices did: per host, or summed over hosts (max_queue: the
 * largest of them). */
typedef struct myri_hostdev_stats {
    uint64_t rx_packets;    /* TAIL with a good CRC, correctly routed */
    uint64_t rx_bad_crc;    /* TAIL with a bad CRC */
    uint64_t rx_misrouted;  /* TAIL of a packet whose first byte was a route byte */
    uint64_t rx_trunc;      /* packets cut short (FRES, dead cable) */
    uint64_t rx_buff;       /* BUFF notices (a window full in mid-packet) */
    uint64_t rx_bytes;      /* bytes written into windows */
    uint64_t tx_packets;    /* tails sent */
    uint64_t tx_dropped;    /* packets dropped at the host (link_down, timeout) */
    uint64_t queued;        /* packets in the FIFO now, the one on the port included */
    uint64_t max_queue;     /* the largest FIFO length, the one on the port included */
} myri_hostdev_stats;

typedef struct myri_hostdevs myri_hostdevs;

/* Creates one device per host of `f` (topology `topo`), attaches each to its
 * host's port and arms its first window.  Call before anything is sent on
 * the fabric.  `type_bytes` is packet.type_bytes.  Returns MYRI_OK,
 * MYRI_EINVAL, MYRI_ESTATE (a port already has a device, or something was
 * sent) or MYRI_ENOMEM.  Free with myri_hostdev_destroy after
 * myri_sim_destroy. */
myri_status myri_hostdev_create(myri_sim *sim, myri_fabric *f, const myri_topo *topo,
                                const myri_hostdev_params *p, uint32_t type_bytes, myri_hostdevs **out);
void myri_hostdev_destroy(myri_hostdevs *d);

/* A traffic send function (ctx = the myri_hostdevs): queues the packet on the
 * device of host pkt->src_host and starts it if the port is idle.  The packet
 * is copied; pkt->payload must be NULL (the device makes the bytes from the
 * id).  MYRI_EINVAL on a bad host, route or payload, MYRI_ENOMEM. */
myri_status myri_hostdev_send(void *ctx, const myri_fabric_packet *pkt);
/* A traffic queue function (ctx = the myri_hostdevs): the packets in host
 * `host`'s send FIFO, the one on the port included (ports.queued); 0 for a bad
 * host.  traffic.queue bounds it. */
size_t myri_hostdev_queued(void *ctx, uint32_t host);

/* Counters of host `host`, or (host = UINT32_MAX) summed over every host. */
myri_status myri_hostdev_get_stats(const myri_hostdevs *d, uint32_t host, myri_hostdev_stats *out);

#ifdef __cplusplus
}
#endif

#endif
