/* fabric.h -- the Myrinet network model: packets, links with STOP/GO flow
 * control, cut-through crossbar switches (seed 002).  Two models of the same
 * fabric behind one API:
 *   - reference: byte by byte, one internal event per character per channel;
 *   - fast: a constant number of events per packet per hop when nothing
 *     blocks, plus events at STOP/GO crossings; no per-byte events.
 * Both give identical per-packet delivery times (to the picosecond) and drop
 * counts; docs/FABRIC.md gives the timing model and the proof sketch.
 *
 * OWNERSHIP: the fabric is a component of the simulation it is created in and
 * is freed by myri_sim_destroy.  It copies what it needs from the topology.
 * Topology and routes are in topo/topo.h, traffic sources in workload/traffic.h,
 * the `fabric` job in app/fabric_job.h (other modules).
 *
 * Time unit: picoseconds (myri_time_ps).  A channel is identified as in
 * topo.h: channel 2*l is link l's a->b direction, 2*l+1 its b->a direction.
 */
#ifndef MYRI_FABRIC_FABRIC_H
#define MYRI_FABRIC_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topo/topo.h"
#include "myri/config.h"
#include "myri/json.h"
#include "myri/sim.h"
#include "myri/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum myri_fabric_model { MYRI_FABRIC_FAST = 0, MYRI_FABRIC_REFERENCE = 1 } myri_fabric_model;
typedef enum myri_fabric_addressing {
    MYRI_FABRIC_ABSOLUTE = 0, /* route byte = 0x80 | output port */
    MYRI_FABRIC_RELATIVE = 1  /* route byte = 0x80 | (signed 6-bit out - in) (hypothesis) */
} myri_fabric_addressing;
typedef enum myri_fabric_preset {
    MYRI_FABRIC_PRESET_NONE = 0, /* use link.rate */
    MYRI_FABRIC_PRESET_1995 = 1, /* 640 Mb/s per channel (seed 002) */
    MYRI_FABRIC_PRESET_1280 = 2, /* 1.28 Gb/s per channel (myrinet-facts 3.4) */
    MYRI_FABRIC_PRESET_2000 = 3  /* 2 Gb/s per channel, Myrinet-2000 (myrinet-facts 3.4) */
} myri_fabric_preset;

/* All parameters of the network model.  Loaded from a scenario with the
 * tables below; myri_fabric_params_default() fills the documented defaults. */
typedef struct myri_fabric_params {
    /* link.* */
    int preset;                  /* link.preset: none|1995|1280|2000 (myri_fabric_preset) */
    double rate_bps;             /* link.rate: data bit rate per channel, 640 Mb/s */
    double length_m;             /* link.length: cable length used when the topology gives <= 0 */
    double prop_speed_c;         /* link.prop_speed: fraction of c, 0.6 (seed 002) */
    uint64_t slack_size_bytes;   /* link.slack.size: receiver slack buffer (no source: 80) */
    uint64_t slack_stop_bytes;   /* link.slack.stop: STOP line (no source: 56) */
    uint64_t slack_go_bytes;     /* link.slack.go: GO line (no source: 40) */
    uint64_t ctrl_delay_ps;      /* link.ctrl_delay: STOP/GO/FRES generation + decoding */
    uint64_t nonidle_period_ps;  /* link.nonidle_period: dead-link detection period */
    uint64_t timeout_ps;         /* link.timeout: long-period timeout, ~50 ms (seed 002) */
    double ber;                  /* link.ber: bit error rate per data bit, 0 = none */
    /* switch.* */
    int64_t switch_ports;        /* switch.ports: default port count of generated switches */
    uint64_t switch_latency_ps;  /* switch.latency: unloaded latency, route byte in to first byte out,
                                  * 550 ns (seed 002); route_time of it + the fall-through */
    uint64_t switch_route_ps;    /* switch.route_time: route decision + arbitration, the part that
                                  * occupies the input per header, 12.5 ns (assumption) */
    int addressing;              /* switch.addressing: absolute|relative */
    /* packet.* */
    int64_t crc_poly;            /* packet.crc_poly: CRC-8 polynomial, 0x07 (assumption) */
    int64_t type_bytes;          /* packet.type_bytes: 2 or 4 (myrinet-facts 1.3) */
    /* top level */
    int model;                   /* model: fast|reference (myri_fabric_model) */
} myri_fabric_params;

/* Parameter tables: prefix "link", "switch", "packet" and "" (key `model`). */
extern const myri_param myri_fabric_link_params[];
extern const size_t myri_fabric_link_nparams;
extern const myri_param myri_fabric_switch_params[];
extern const size_t myri_fabric_switch_nparams;
extern const myri_param myri_fabric_packet_params[];
extern const size_t myri_fabric_packet_nparams;
extern const myri_param myri_fabric_top_params[];
extern const size_t myri_fabric_top_nparams;

/* Fills out[0..3] with the four tables writing into *p; returns 4.  Use with
 * myri_params_load together with your own tables, then call
 * myri_fabric_params_check. */
size_t myri_fabric_psets(myri_fabric_params *p, myri_pset out[4]);
/* All defaults (the 1995 preset). */
void myri_fabric_params_default(myri_fabric_params *p);
/* Applies the preset and checks consistency (GO < STOP <= size, etc.).
 * Returns MYRI_OK or MYRI_EINPUT with a message in err (no position). */
myri_status myri_fabric_params_check(myri_fabric_params *p, myri_error *err);
/* link.preset's slack buffers: the 80/52/40 B defaults scaled so that what
 * arrives after STOP fits at the preset's rate (an assumption, see
 * fabric_params.c).  Call when the scenario gives no link.slack; no-op
 * without a preset. */
void myri_fabric_preset_slack(myri_fabric_params *p);
/* Character time in ps for the parameters (8 bits / rate, rounded). */
uint64_t myri_fabric_char_ps(const myri_fabric_params *p);

/* ---- packets in and out --------------------------------------------------- */

typedef enum myri_fabric_drop_reason {
    MYRI_FABRIC_DROP_CRC = 0,          /* "crc": CRC check failed at the destination */
    MYRI_FABRIC_DROP_TO_HOST_BYTE,     /* "to_host_byte_at_switch": MSB-0 byte reached a switch */
    MYRI_FABRIC_DROP_UNCONNECTED_PORT, /* "unconnected_port": route to a port with no link */
    MYRI_FABRIC_DROP_MISROUTED,        /* "misrouted": MSB-1 route byte reached a host */
    MYRI_FABRIC_DROP_TIMEOUT,          /* "timeout": long-period timeout, FRES sent */
    MYRI_FABRIC_DROP_LINK_DOWN,        /* "link_down": truncated by a cut link */
    MYRI_FABRIC_DROP_NREASONS
} myri_fabric_drop_reason;
/* JSON key of a reason ("crc", ...); "?" if out of range. */
const char *myri_fabric_drop_name(myri_fabric_drop_reason r);

/* A packet handed to the fabric by a host.  Everything is copied. */
typedef struct myri_fabric_packet {
    uint64_t id;              /* caller's identifier, echoed in callbacks */
    uint32_t src_host;        /* host index (topo host_index) */
    uint8_t route_len;        /* number of route bytes, <= 32 */
    const uint8_t *route;     /* route bytes (MSB 1 each for a valid route) */
    uint32_t type;            /* packet type, packet.type_bytes bytes, big-endian on the wire */
    uint32_t payload_bytes;   /* payload length */
    const uint8_t *payload;   /* payload bytes, or NULL: bytes derived from id (docs) */
    myri_time_ps created_ps;  /* when the packet was made, if before it reaches the fabric (a device's
                               * send queue): the delivery's queued_ps, so latency counts from it; 0 = now */
    uint32_t dst_host;        /* the host the packet is meant for, if dst_known (not on the wire: like the
                               * id, the destination knows it); a packet whose route bytes were corrupted
                               * without the CRC-8 noticing can reach another host: it is then counted
                               * misdelivered, not delivered, and no delivery callback is made */
    bool dst_known;           /* false (zero): no check */
} myri_fabric_packet;

typedef struct myri_fabric_delivery {
    uint64_t id;
    uint32_t src_host, dst_host;
    uint32_t payload_bytes;
    uint32_t type;
    myri_time_ps queued_ps;      /* myri_fabric_send was called */
    myri_time_ps head_sent_ps;   /* first character left the source host */
    myri_time_ps tail_ps;        /* last character (GAP) received at dst */
    bool crc_ok;                 /* always true in the delivery callback */
} myri_fabric_delivery;

typedef struct myri_fabric_callbacks {
    void (*delivered)(void *ctx, const myri_fabric_delivery *d);                 /* may be NULL */
    void (*dropped)(void *ctx, uint64_t id, myri_fabric_drop_reason reason, myri_time_ps t); /* may be NULL */
    void *ctx;
} myri_fabric_callbacks;

typedef struct myri_fabric myri_fabric;

/* The fabric's component type ("fabric", registered in src/app/registry.c);
 * myri_fabric_create adds one component of it to the simulation. */
extern const myri_component_ops myri_fabric_ops;

/* Creates the fabric as a component named "fabric" of `sim`.  Checks the
 * topology (ports 4/8/16/32 for switches, hosts one port) and parameters.
 * Returns MYRI_OK, MYRI_EINVAL (NULL arguments), MYRI_EINPUT (message in
 * err, may be NULL) or MYRI_ENOMEM. */
myri_status myri_fabric_create(myri_sim *sim, const myri_topo *topo, const myri_fabric_params *p,
                               const myri_fabric_callbacks *cb, myri_fabric **out, myri_error *err);

/* A host injects a packet at the current simulated time; the host's sender
 * sends its queued packets FIFO, back to back.  Returns MYRI_EINVAL on a bad
 * host index or route length > 32. */
myri_status myri_fabric_send(myri_fabric *f, const myri_fabric_packet *pkt);
/* Packets waiting in host `host`'s send queue (handed to the fabric, not begun:
 * the one being sent is not counted); 0 for a bad host.  A source bounds its
 * host's queue with it (traffic.queue). */
size_t myri_fabric_host_queued(const myri_fabric *f, uint32_t host);
/* Engine process `lp` (a created component's id) is host `host`'s unit: its
 * port notices are scheduled and run as lp (myri_sim_schedule_for), and the
 * callbacks of its packets (delivered: where it arrived; dropped: its
 * source), at once or deferred (an event of the fabric's), run as lp
 * (myri_sim_act_as), docs/PARTITION.md section 3.  Until set, as the
 * fabric, whose own events count in no hash.  MYRI_EINVAL on a bad host or
 * lp. */
myri_status myri_fabric_set_host_unit(myri_fabric *f, uint32_t host, uint32_t lp);
/* Called (with the callbacks' ctx) when a packet reaches another host than its
 * dst_host with a good CRC (d->dst_host: where it arrived); such a packet is
 * counted misdelivered and never passed to `delivered`.  NULL: no call. */
void myri_fabric_set_misdelivered(myri_fabric *f, void (*fn)(void *ctx, const myri_fabric_delivery *d));

/* ---- scripted events (call before the time they name) -------------------- */
/* Cuts link `link` (both channels) at `at_ps`: characters on the wire are
 * lost, packets being sent are truncated (dropped "link_down"); the receivers
 * notice after link.nonidle_period and terminate the partial packet.
 * At set-up (nothing sent, clock at 0) any at_ps >= now is taken; once
 * running, cut and restore need at_ps >= now + the link's lookahead
 * (character time + propagation), else MYRI_EINVAL (docs/FABRIC.md). */
myri_status myri_fabric_cut_link(myri_fabric *f, size_t link, myri_time_ps at_ps);
/* Restores a cut link at `at_ps` (flow control restarts from GO). */
myri_status myri_fabric_restore_link(myri_fabric *f, size_t link, myri_time_ps at_ps);
/* When packet `id` is sent on `channel`, XORs `mask` into its character
 * number `index` (0 = first character on that channel). */
myri_status myri_fabric_corrupt(myri_fabric *f, uint64_t id, size_t channel, uint32_t index,
                                uint8_t mask);

/* A tap: called after a packet has completely passed (or been truncated on)
 * `channel`, with the bytes as they were on that channel (route bytes still
 * ahead, type, payload, CRC trailer; truncated packets are shorter) and the
 * time its first character was sent.  One tap per channel; NULL removes. */
typedef void (*myri_fabric_tap_fn)(void *ctx, size_t channel, myri_time_ps first_ps,
                                   const uint8_t *bytes, size_t len, bool truncated);
myri_status myri_fabric_set_tap(myri_fabric *f, size_t channel, myri_fabric_tap_fn fn, void *ctx);

/* ---- a cut run (docs/PARTITION.md sections 2-4) ------------------------------- */
/* The lookahead of `link`: the smallest delay of anything that crosses it,
 * L_c = P_c + min(T, link.ctrl_delay) (forward T + P_c, backward
 * ctrl_delay + P_c); 0 for a bad link. */
uint64_t myri_fabric_link_lookahead_ps(const myri_fabric *f, size_t link);
/* An agenda event sent to another partition, with its whole key: time, then
 * `order` (phase, origin node, origin's sequence: docs/FABRIC.md "Agenda").
 * Flat, no pointers (docs/PARTITION.md step 7): a message that names a
 * record of the sender's pools (a fast-model run, a reference character, a
 * packet) carries it by value in `rec` (`nrec` bytes; the fabric's own
 * layout), the packet by its stable id and, with its head, the packet's
 * record; the receiver makes its own copy (myri_fabric_take_msg).  Copied
 * by value: the same bytes in one process or across MPI ranks. */
#define MYRI_FABRIC_MSG_REC_BYTES 224
typedef struct myri_fabric_msg {
    myri_time_ps time_ps;
    uint64_t order;
    uint32_t dst_node;        /* the node whose handler takes it */
    uint32_t kind, a;
    uint32_t nrec;            /* bytes of rec in use */
    uint64_t b;
    unsigned char rec[MYRI_FABRIC_MSG_REC_BYTES]; /* after b: 8-byte aligned */
} myri_fabric_msg;
typedef void (*myri_fabric_outbox_fn)(void *ctx, const myri_fabric_msg *m);
/* Tells f that it is partition `me` of a cut run: owner[node] (nnodes
 * entries, kept by the caller for f's life) is each node's partition.  From
 * then on an agenda event for a node f does not own is not run here: at
 * set-up (until myri_fabric_partition_live) it is dropped, its number taken
 * (every partition makes the same set-up pushes; the owner keeps its own);
 * while running it goes to outbox(ctx, message), after a check that its delay
 * is at least the cable's lookahead.  A crossing still marked FAB_CROSS
 * (fabric_int.h) that joins two partitions stops the run
 * (myri_panic: "crossing row N of docs/PARTITION.md is not a message yet").
 * MYRI_EINVAL on NULLs or me out of range of owner's values is not checked. */
myri_status myri_fabric_set_partition(myri_fabric *f, const uint32_t *owner, uint32_t me,
                                      myri_fabric_outbox_fn outbox, void *ctx);
/* The run begins: events for other partitions' nodes go to the outbox. */
void myri_fabric_partition_live(myri_fabric *f);
/* Takes a message of another partition for one of f's nodes, with its key
 * (between two runs of the engine, at a time after now).  MYRI_EINVAL if f
 * does not own m->dst_node or m->time_ps is not after now. */
myri_status myri_fabric_take_msg(myri_fabric *f, const myri_fabric_msg *m);
/* A drop of a packet that crossed a cut cable, as one partition counted it
 * (docs/PARTITION.md row 15): a packet may be dropped in two partitions (a
 * cable cut drops it at both ends), and the whole run counts only its first
 * drop, so the gathering keeps per packet the first claim in (t_ps, order,
 * node) order, the order of the whole run's events, and takes the others
 * back (counters, `hash` from result_hash, the drop's window counts). */
typedef struct myri_fabric_claim {
    uint64_t id;              /* the packet */
    myri_time_ps t_ps;        /* the instant of the event that dropped it */
    uint64_t order;           /* that event's key after its time (phase, origin node, origin's sequence); an event
                               * pushed within its own instant: its phase's largest (after the keyed ones) */
    myri_time_ps at_ps;       /* the drop's time as counted and given to the `dropped` callback */
    uint64_t hash;            /* its term of result_hash */
    uint32_t node;            /* the node whose handler ran */
    uint32_t reason;          /* myri_fabric_drop_reason */
} myri_fabric_claim;
/* The claims logged so far (*n of them; valid until f runs again or is
 * destroyed); none outside a cut run. */
const myri_fabric_claim *myri_fabric_claims(const myri_fabric *f, size_t *n);
/* Packet records held now (the pool's live ones: queued, on the cables, in
 * switches, and in a cut run the copies of each partition and the sender's
 * copies kept for absent receivers, at most one per cut channel). */
size_t myri_fabric_live_packets(const myri_fabric *f);
/* ---- results --------------------------------------------------------------- */
typedef struct myri_fabric_counters {
    uint64_t injected;          /* myri_fabric_send calls accepted */
    uint64_t delivered;
    uint64_t delivered_payload_bytes;
    uint64_t dropped[MYRI_FABRIC_DROP_NREASONS];
    uint64_t dropped_total;
    uint64_t misdelivered;      /* good CRC at a host other than the packet's dst_host (not delivered) */
    uint64_t in_flight;         /* injected - delivered - misdelivered - dropped */
    uint64_t events;            /* internal events executed by the model */
    uint64_t hops;              /* packet-hops: packets begun on a link (taken by a host or granted at a
                                 * switch output), so a packet that crosses L links counts L */
    uint64_t result_hash;       /* hash of (id, tail time) / (id, reason) in order */
} myri_fabric_counters;
void myri_fabric_get_counters(const myri_fabric *f, myri_fabric_counters *out);

typedef struct myri_fabric_channel_stats {
    uint64_t chars;             /* data characters sent (incl. GAP) */
    uint64_t busy_ps;           /* time spent sending characters */
    uint64_t stopped_ps;        /* time the sender spent stopped by STOP */
    uint64_t stops, gos;        /* STOP and GO symbols sent by the receiver */
    uint64_t max_slack_bytes;   /* largest slack occupancy (switch receivers) */
    uint64_t truncated;         /* packets truncated on this channel */
    uint64_t fres;              /* FRES symbols sent on this channel (timeouts, and FRES passed on) */
} myri_fabric_channel_stats;
size_t myri_fabric_channel_count(const myri_fabric *f);
myri_status myri_fabric_get_channel_stats(const myri_fabric *f, size_t channel,
                                          myri_fabric_channel_stats *out);
/* The statistics of every channel (n = myri_fabric_channel_count) into out[0..n-1]:
 * the counters are brought up to date once, so this is linear in the channels
 * (calling myri_fabric_get_channel_stats for each channel is quadratic). */
myri_status myri_fabric_get_all_channel_stats(const myri_fabric *f, myri_fabric_channel_stats *out, size_t n);
/* Starts a new measurement window at the current time: zeroes the channel
 * statistics (busy, stopped, counts, max slack) but not the packet counters. */
void myri_fabric_reset_stats(myri_fabric *f);

/* Writes, as members of the current JSON object:
 *   "links": [ {"link":L,"a":NAME,"b":NAME, "ab":{...}, "ba":{...}} ... ]
 *     with per-direction "utilisation", "stopped_fraction", "stops", "gos",
 *     "max_slack_bytes", "chars", "truncated", "fres" over the window since the last reset;
 *   "dropped": {"crc":N, ...} (every reason, zeros included). */
void myri_fabric_report(myri_fabric *f, myri_json *j);
/* Writes "links" and "dropped" as myri_fabric_report does, from the given
 * statistics of every channel (myri_fabric_channel_count entries: in a cut
 * run each half's from its owner) and drop counts (MYRI_FABRIC_DROP_NREASONS,
 * summed over the partitions); f gives the names and the window. */
void myri_fabric_report_stats(const myri_fabric *f, const myri_fabric_channel_stats *st,
                              const uint64_t *dropped, myri_json *j);

/* The fabric's character time in ps (8 bits / link.rate). */
uint64_t myri_fabric_char_time_ps(const myri_fabric *f);

/* Test hook (tests only): adds `extra_ps` to every delivery time reported by
 * this fabric, so that the differential checker can be shown to fail. */
void myri_fabric__test_skew(myri_fabric *f, myri_time_ps extra_ps);
/* Test hook (tests only): how many times the model brought every channel's
 * statistics up to date (once per report: the report is linear). */
uint64_t myri_fabric__test_stats_syncs(const myri_fabric *f);

#ifdef __cplusplus
}
#endif

#endif
