/* port.h -- the host end of a link, where a device (a NIC, a traffic source)
 * meets the fabric.  See docs/FABRIC.md, "Ports".
 *
 * Each host has one port.  With no device attached a port is an ideal host
 * (myri_fabric_send queues whole packets; the receiver drains its channel at
 * line rate and never sends STOP): every scenario without devices behaves as
 * before.  A device attached to a port gets:
 *
 *   send     one packet at a time (myri_port_send), its length unknown
 *            until its tail (as on the LANai: no length is given first); the bytes may become
 *            available progressively (myri_port_send_more): the sender sends
 *            byte j only once j < bytes_ready, and an underrun stalls it
 *            as a STOP does (its character slots pass unused; the long-period
 *            timeout, a switch's, counts only time stopped by STOP).  The CRC trailer and the GAP
 *            follow the tail (myri_port_send_more with tail), as on the LANai
 *            (SMLT, ST); every byte ready without the tail is an underrun
 *            before the trailer.  The tail leaving (GAP sent; SEND_INT) or the
 *            packet being dropped at the host is a tx notice.
 *   receive  the receiving channel ends in a slack buffer (STOP/GO lines of
 *            link.slack.*) drained by a receive DMA.  The DMA moves one
 *            character per character time from the slack buffer into the
 *            window armed with myri_port_rx_arm, only while a window is
 *            armed: unarmed, the slack fills and STOP goes back into the
 *            network (nothing is lost).  A window ends with an rx notice: the
 *            packet's tail (GAP; RECV_INT), the window full and a further
 *            byte of the packet come (BUFF_INT, at that byte's slot: the DMA
 *            cannot know sooner; the next window continues the packet),
 *            or the packet cut short by FRES or a dead cable.  CRC-bad,
 *            misrouted and truncated packets are handed over like good ones,
 *            with their verdict: the device decides and counts.  (The
 *            fabric's own counters still say what happened on the wire:
 *            `crc`, `misrouted`, `timeout`, `link_down`.)
 *   link     the receiver noticing a dead cable (link.nonidle_period after a
 *            cut) and the cable carrying characters again.
 *
 * Same-instant rules.  At any time t the fabric's pass over instant t runs
 * after every other component's events at t, phases in their order
 * (docs/FABRIC.md).  A port call made at t (from an event of the device, or
 * from a notice) takes effect at t: it joins the fabric's next pass over t.
 * The notices of one pass are delivered after it, as engine events at t,
 * ordered by host index, then tx before rx before link.  So what happens is
 * the same in both fabric models whatever the order of their internal events.
 *
 * Byte counts: a packet on the receiving channel is its type, payload and CRC
 * trailer (a correctly routed packet has no route byte left); the GAP is not
 * a byte.  Time unit: picoseconds.
 */
#ifndef MYRI_FABRIC_PORT_H
#define MYRI_FABRIC_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/fabric.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_port myri_port;

typedef enum myri_port_rx_end {
    MYRI_PORT_RX_TAIL = 0,  /* the GAP: the packet is complete (RECV_INT) */
    MYRI_PORT_RX_BUFF = 1,  /* the window is full and another byte of the packet came (BUFF_INT) */
    MYRI_PORT_RX_TRUNC = 2  /* FRES or a dead cable ended the packet early */
} myri_port_rx_end;

/* An rx notice: the armed window is over (the DMA stops until the next arm). */
typedef struct myri_port_rx {
    uint64_t id;             /* the packet's id as its sender gave it */
    myri_port_rx_end end;
    uint32_t bytes;          /* bytes written into this window */
    uint32_t pkt_bytes;      /* bytes of the packet received so far, all windows */
    bool crc_ok;             /* TAIL: the CRC over every byte received is right */
    uint8_t crc_rem;         /* TAIL: that remainder (0 for a good packet) */
    bool misrouted;          /* the packet's first byte had its MSB set (a route byte) */
    myri_time_ps head_ps;    /* the packet's first byte entered the DMA */
    myri_time_ps at_ps;      /* the time of this notice */
} myri_port_rx;

/* A tx notice: the packet given to myri_port_send is over. */
typedef struct myri_port_tx {
    uint64_t id;
    bool sent;                       /* the tail (GAP) left the host (SEND_INT) */
    myri_fabric_drop_reason reason;  /* if not sent: link_down or timeout */
    myri_time_ps at_ps;
} myri_port_tx;

typedef struct myri_port_ops {
    void (*rx)(void *dev, myri_port *p, const myri_port_rx *r);   /* may be NULL */
    void (*tx)(void *dev, myri_port *p, const myri_port_tx *t);   /* may be NULL */
    void (*link)(void *dev, myri_port *p, bool up);               /* may be NULL */
} myri_port_ops;

/* The port of host `host` (topology host index), or NULL. */
myri_port *myri_fabric_port(myri_fabric *f, uint32_t host);
uint32_t myri_port_host(const myri_port *p);
/* Attaches a device.  Only before the first packet is sent on the fabric
 * (MYRI_ESTATE after), once per port (MYRI_ESTATE if already attached).
 * `ops` must stay valid for the fabric's life. */
myri_status myri_port_attach(myri_port *p, const myri_port_ops *ops, void *dev);

/* Starts sending a packet: route bytes, type, and the payload's memory:
 * pkt->payload_bytes is its ROOM, not the packet's length (pkt->payload must
 * not be NULL when it is > 0, and stays valid until the tx notice; the bytes
 * below bytes_ready are read when they are made ready and must not change
 * after).  bytes_ready counts route + type + payload bytes available now (at
 * most route + type + room); tail: this is the packet's tail, and its length
 * is bytes_ready (at least route + type).  The fabric knows the length only
 * from the tail.  MYRI_ESTATE if a packet is already being sent (one at a
 * time) or no device is attached; MYRI_EINVAL on bad arguments. */
myri_status myri_port_send(myri_port *p, const myri_fabric_packet *pkt, uint32_t bytes_ready, bool tail);
/* More bytes of the packet being sent are ready (bytes_ready never
 * decreases: a smaller count is ignored, a tail below the bytes given is
 * MYRI_EINVAL; beyond the room, MYRI_EINVAL); tail as above.  After the
 * tail, only the same count with or without tail is accepted (nothing
 * changes).  MYRI_ESTATE if no packet is being sent. */
myri_status myri_port_send_more(myri_port *p, uint32_t bytes_ready, bool tail);

/* Arms the receive DMA with a window of max_bytes (>= 1) at buf.  MYRI_ESTATE
 * if a window is armed already, or no device is attached. */
myri_status myri_port_rx_arm(myri_port *p, uint8_t *buf, uint32_t max_bytes);
/* Bytes written into the armed window so far (0 when none is armed).  At a
 * time t, the characters the DMA moves at t count once the fabric's pass
 * over t is done (in a notice at t, yes; in the device's own event at t,
 * not yet). */
uint32_t myri_port_rx_count(const myri_port *p);
bool myri_port_rx_armed(const myri_port *p);

/* Per-port counters of what the port did (not what the device decided). */
typedef struct myri_port_stats {
    uint64_t tx_packets, tx_dropped;     /* tails sent; packets dropped at the host */
    uint64_t rx_tail, rx_buff, rx_trunc; /* notices by kind */
    uint64_t rx_bytes;                   /* bytes written into windows */
} myri_port_stats;
myri_status myri_port_get_stats(const myri_port *p, myri_port_stats *out);

#ifdef __cplusplus
}
#endif

#endif
