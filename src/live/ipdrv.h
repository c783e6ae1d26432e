/* ipdrv.h -- the IP driver of one host (live mode's IP interface, issue 21;
 * docs/LIVE-IP.md): IP packets read from the host's TUN device go, each as
 * ONE Myrinet packet, to the host the destination address names (address
 * plan of ipns.h) through a transport; packets the transport delivers are
 * validated and written into the TUN device.  Every packet not carried is
 * counted under its reason (never dropped silently).
 *
 * The transport is a small ops table.  Two exist: the seed 001 API
 * (ip_api0.c, for the daemon's libmyri-live clients) and an in-process wire
 * with a delay for tests (ip_wire.c).
 *
 * On the wire (seed 001's MCP): the IP packet is the whole payload of one
 * API packet, so the frame is route | 0x0370 (DEC CRL's type, seed 001) |
 * subtype FST_API0_DATA | channel MYRI_IP_CHANNEL | IP packet | CRC-8.  The
 * channel byte is what tells IP from other traffic: seed 001's MCP sends
 * only its own type and subtype and drops others (MYRI_HCB_C_DROP_SUBTYPE),
 * so an API client cannot choose another packet type (see LIVE-IP.md).
 */
#ifndef MYRI_LIVE_IPDRV_H
#define MYRI_LIVE_IPDRV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "live/ipns.h"

/* The receive channel every host's IP driver owns (the same on all hosts:
 * the sender names the receiver's channel).  Assumption: the highest
 * channel of the default mcp.nchan (8), so that programs taking
 * MYRI_API0_ANY_CHAN (the lowest free) do not collide with it. */
#define MYRI_IP_CHANNEL 7

/* Why a packet was not carried (index into myri_ipdrv_counters.drops). */
typedef enum myri_ipdrv_reason {
    MYRI_IPDRV_OK = 0,
    /* from the TUN device (outbound) */
    MYRI_IPDRV_TX_NOT_IPV4,   /* IPv6 or other: only IPv4 is carried */
    MYRI_IPDRV_TX_MALFORMED,  /* shorter than its IPv4 header, bad header length, total length != read length */
    MYRI_IPDRV_TX_TOO_LONG,   /* longer than the MTU (cannot happen with the device's MTU set) */
    MYRI_IPDRV_TX_NO_HOST,    /* destination is no host of the plan (broadcast, multicast, outside) */
    MYRI_IPDRV_TX_SELF,       /* destination is this host itself */
    MYRI_IPDRV_TX_BAD_CSUM,   /* IPv4/TCP/UDP/ICMP checksum wrong: an offload left half-done */
    MYRI_IPDRV_TX_TRANSPORT,  /* the transport refused it (no buffer, queue full, error) */
    /* from the transport (inbound) */
    MYRI_IPDRV_RX_FRAME,      /* the transport's frame was bad (type, subtype, channel, length) */
    MYRI_IPDRV_RX_SHORT,      /* shorter than 20 bytes */
    MYRI_IPDRV_RX_TOO_LONG,   /* longer than the MTU */
    MYRI_IPDRV_RX_NOT_IPV4,   /* version field is not 4 */
    MYRI_IPDRV_RX_BAD_IHL,    /* header length < 20 or past the packet */
    MYRI_IPDRV_RX_BAD_LENGTH, /* total length field != the Myrinet packet's length */
    MYRI_IPDRV_RX_BAD_CSUM,   /* IPv4 header checksum wrong */
    MYRI_IPDRV_RX_BAD_SOURCE, /* source outside the plan's prefix */
    MYRI_IPDRV_RX_NOT_FOR_US, /* destination is not this host's address */
    MYRI_IPDRV_RX_TUN_WRITE,  /* the TUN device refused the write */
    MYRI_IPDRV_NREASONS
} myri_ipdrv_reason;

/* The transport: one Myrinet packet per call. */
typedef struct myri_ip_ops {
    const char *name;
    /* Sends bytes[0..len) to host dst_host as one packet.  0 when queued,
     * < 0 when refused (the driver counts MYRI_IPDRV_TX_TRANSPORT). */
    int (*send)(void *ctx, uint32_t dst_host, const uint8_t *bytes, size_t len);
    /* Takes the next arrived packet without blocking, copying it into
     * buf (cap >= the MTU): its length (> 0), 0 if none, or -reason
     * (a myri_ipdrv_reason the driver counts, then calls again). */
    long (*recv)(void *ctx, uint8_t *buf, size_t cap);
    /* A descriptor that polls readable when recv may have a packet, or -1
     * (then the driver polls recv every MYRI_IPDRV_POLL_MS). */
    int (*wait_fd)(void *ctx);
} myri_ip_ops;

#define MYRI_IPDRV_POLL_MS 1 /* assumption: 1 ms, below a LAN round trip through the kernel stack */
/* Packets taken from one side before looking at the other; assumption: 64,
 * so that one direction cannot starve the other (TCP's ACKs) for longer than
 * 64 packets, while a burst still costs one poll. */
#define MYRI_IPDRV_BURST 64

typedef struct myri_ipdrv_counters {
    uint64_t tx_packets, tx_bytes; /* handed to the transport */
    uint64_t rx_packets, rx_bytes; /* written into the TUN device */
    uint64_t drops[MYRI_IPDRV_NREASONS];
} myri_ipdrv_counters;

typedef struct myri_ipdrv {
    myri_ip_plan plan;
    uint32_t self, self_addr;
    int tun_fd;
    size_t mtu_bytes;
    bool verify_csum; /* check outbound IPv4 and TCP/UDP/ICMP checksums (default on) */
    const myri_ip_ops *ops;
    void *ctx;
    uint8_t *buf; /* mtu_bytes + 1 */
    myri_ipdrv_counters c;
} myri_ipdrv;

/* The reason's name ("rx_bad_csum"; "ok" for MYRI_IPDRV_OK; never NULL). */
const char *myri_ipdrv_reason_name(int reason);

/* Validation of an inbound packet (pure, no side effect): MYRI_IPDRV_OK or
 * the reason to drop it. */
myri_ipdrv_reason myri_ipdrv_check_inbound(const myri_ip_plan *plan, uint32_t self, size_t mtu_bytes,
                                           const uint8_t *p, size_t len);
/* Validation of an outbound packet: the reason, or OK with the destination
 * host in *dst. */
myri_ipdrv_reason myri_ipdrv_check_outbound(const myri_ip_plan *plan, uint32_t self, size_t mtu_bytes,
                                            bool verify_csum, const uint8_t *p, size_t len, uint32_t *dst);
/* The Internet checksum (RFC 1071) of bytes, folded, not complemented,
 * added to sum. */
uint32_t myri_ip_csum_add(uint32_t sum, const uint8_t *p, size_t len);
/* True if the IPv4 header and, for an unfragmented TCP, UDP or ICMP packet,
 * the transport checksum are right. */
bool myri_ip_csum_ok(const uint8_t *p, size_t len);

/* Sets up the driver of host self (tun_fd non-blocking, from ipns).  0, or
 * -1 with the reason in err. */
int myri_ipdrv_init(myri_ipdrv *d, const myri_ip_plan *plan, uint32_t self, int tun_fd, size_t mtu_bytes,
                    const myri_ip_ops *ops, void *ctx, char *err, size_t errlen);
void myri_ipdrv_free(myri_ipdrv *d);

/* One packet from the TUN device to the transport: 1 taken (carried or
 * dropped and counted), 0 none waiting, -1 read error. */
int myri_ipdrv_from_tun(myri_ipdrv *d);
/* One packet from the transport into the TUN device: 1 taken, 0 none. */
int myri_ipdrv_from_transport(myri_ipdrv *d);
/* Validates bytes and writes them into the TUN device; the reason (OK
 * when written), counted. */
myri_ipdrv_reason myri_ipdrv_deliver(myri_ipdrv *d, const uint8_t *bytes, size_t len);
/* Runs both directions until *stop is set (checked at least every
 * MYRI_IPDRV_POLL_MS with no transport fd, else every 100 ms).  0, or -1
 * if poll or the TUN device failed. */
int myri_ipdrv_run(myri_ipdrv *d, atomic_bool *stop);

/* Prints the counters, every reason with a non-zero count by name. */
void myri_ipdrv_report(const myri_ipdrv *d, const char *who, FILE *out);

#endif
