/* fabric_int.h -- internals shared by the fabric core and its two models
 * (fabric_core.c, fabric_ref.c, fabric_fast.c).  Not a public header.
 *
 * Time inside an instant is ordered by phase (see fab_phase): every model
 * event carries (time, phase, origin node, its sequence) and the fabric runs its own agenda,
 * handing the engine one event per distinct time.  The phases make the
 * outcome independent of the order in which same-time events were created,
 * which is what lets two very different models agree to the picosecond.
 */
#ifndef MYRI_FABRIC_INT_H
#define MYRI_FABRIC_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric/fabric.h"
#include "fabric/port.h"
#include "common/packet.h"

typedef enum fab_phase {
    PH_ARRIVE = 0,  /* characters / FRES / dead-link detection at receivers */
    PH_LINK = 1,    /* links cut and restored */
    PH_CTRL = 2,    /* STOP and GO reach senders */
    PH_TIMEOUT = 3, /* long-period timeouts fire */
    PH_DECODE = 4,  /* route bytes decoded (path formation done) */
    PH_ARB = 5,     /* round-robin arbitration of free outputs */
    PH_SEND = 6,    /* senders transmit */
    PH_CHECK = 7    /* slack buffers compared with the STOP and GO lines */
} fab_phase;

/* The kinds of the fabric component's own engine events (myri_event.kind;
 * the fabric's internal agenda has its own kinds, fab_kind below). */
enum fab_engine_kind {
    FAB_ENG_TICK = 1,     /* run the fabric's agenda up to now */
    FAB_ENG_CALLBACK = 2, /* ptr = a device callback due ahead of the engine (fab__defer) */
    FAB_ENG_CATCHUP = 3,  /* the engine's clock catching up with the fabric's */
    FAB_ENG_NOTE = 4,     /* ptr = a port notice to deliver */
    FAB_ENG_NOTES = 5     /* ptr = a pass's notices made ahead of the engine, to schedule at their instant */
};

/* A port notice's kind (fab_note.kind). */
enum fab_note_kind { FAB_NOTE_TX = 0, FAB_NOTE_RX = 1, FAB_NOTE_LINK = 2 };

enum fab_kind {
    /* shared */
    EV_CTRL = 1,    /* a = channel, b = epoch << 1 | 1 STOP / 0 GO: a MSG_CTRL (myri_fab_msg) */
    EV_TIMEOUT,     /* a = channel */
    EV_DECODE,      /* a = input channel, b = generation */
    EV_ARB,         /* a = output channel */
    EV_FRES,        /* a = channel, p = packet, b = epoch << 1 | dead-link flag */
    EV_CUT_TX,      /* a = channel: its sender's half of a cut (docs/PARTITION.md row 11) */
    EV_CUT_RX,      /* a = channel: its receiver's half of a cut */
    EV_RESTORE_TX,  /* a = channel: its sender's half of a restore */
    EV_RESTORE_RX,  /* a = channel: its receiver's half of a restore */
    EV_PORTLINK,    /* a = channel into a device's host, b = epoch: the device notices a cut */
    /* reference model */
    EV_R_ARRIVE,    /* a = channel, b = its MSG_CHAR's place in the message slab (myri_fab_msg) */
    EV_R_SEND,      /* a = channel */
    EV_R_CHECK,     /* a = channel */
    /* fast model */
    EV_F_SEND,      /* a = channel, b = generation: sender decision */
    EV_F_CHECK,     /* a = channel, b = generation: predicted crossing */
    EV_F_RXEND,     /* a = channel, p = packet: GAP arrives at a receiver */
    EV_F_HEAD,      /* a = channel, p = packet: head of a misrouted packet arrives at a host */
    EV_F_TRIMMED,   /* a = channel: message to its receiver, its runs got shorter (ff__rx_changed) */
    EV_F_MSG        /* a = channel, b = message (f->msg slot): a run told to its receiver (fab_runmsg) */
};

__extension__ typedef unsigned __int128 fab_key;

typedef struct fab_ev {
    uint64_t time;
    uint64_t key;   /* low half of the agenda key (calendar lists): phase << 61 | origin node |
                     * origin's sequence | slot (FAB_KEY_* below) */
    uint32_t kind;
    uint32_t a;
    uint64_t b;
    void *p;
    uint32_t next;  /* calendar: next slot in the bucket, in key order */
} fab_ev;

/* A message from one end of a cable to the other (docs/PARTITION.md section
 * 2): a flat record, no pointers, the same bytes whichever partition
 * receives it.  Sent through myri_fab_msg (fabric_msg.c), delivered at `t`
 * in phase `phase` with the sender's agenda key (origin = the sending node).
 * MSG_CHAR (row 13, reference model): a character, at s + D_c in PH_ARRIVE;
 * its event EV_R_ARRIVE holds the record's place in the message slab (the
 * record does not fit an event, which keeps its 48 bytes for the fast model).
 * MSG_CTRL (row 9): STOP or GO, at t + Q_c in PH_CTRL; it fits its event
 * EV_CTRL (b = epoch << 1 | stop), no slab record. */
typedef enum fab_msg_kind { MSG_CHAR = 1, MSG_CTRL = 2 } fab_msg_kind;

typedef struct fab_msg {
    uint64_t t;            /* delivery time, ps */
    uint64_t pkt_id;       /* MSG_CHAR: the packet's stable id (myri_packet_id) */
    uint32_t kind;         /* fab_msg_kind */
    uint32_t ch;           /* the channel (stable id: 2 link + direction) */
    uint32_t epoch;        /* the sending end's epoch of the cable: MSG_CHAR the sender's (x->epoch), MSG_CTRL
                            * the receiver's (x->rx_epoch); the other end takes it only if its own is the same */
    uint32_t j;            /* MSG_CHAR: the character's index on the channel */
    uint32_t hop;          /* MSG_CHAR: the packet's route position on the channel */
    uint32_t pix;          /* MSG_CHAR: the packet's record in this process (fab_pkt.ix); checked against
                            * pkt_id (a partition's own record is found by the id: PARTITION.md step 7) */
    uint8_t phase;         /* fab_phase of the delivery */
    uint8_t byte;          /* MSG_CHAR: the byte as it is on this hop (route byte, data or trailer) */
    uint8_t gap;           /* MSG_CHAR: 1 the GAP (byte 0) */
    uint8_t stop;          /* MSG_CTRL: 1 STOP, 0 GO */
    uint32_t pad;          /* 0 */
} fab_msg;
_Static_assert(sizeof(fab_msg) == 48, "fab_msg: a flat 48-byte record");

/* The records of MSG_CHARs whose event is pending, by index (the event's b);
 * an index is freed when its event runs (myri_fab_msg_take), all of them
 * when the fabric is destroyed (myri_fab_msg_fini). */
typedef struct fab_msgslab {
    fab_msg *rec;
    uint32_t *free;
    uint32_t n, nfree, cap;   /* indices made, free ones, room */
} fab_msgslab;

#define FAB_CAL_BITS 12
#define FAB_CAL_N (1u << FAB_CAL_BITS)   /* calendar buckets */

/* A callback whose time is ahead of the engine's clock is delivered by an
 * engine event at that time, so that the receiver sees the right time. */
typedef struct fab_cbrec {
    struct fab_cbrec *next;
    bool delivered;
    bool misdelivered;     /* with delivered: cb.misdelivered */
    myri_fabric_delivery d;
    uint64_t id;
    myri_fabric_drop_reason reason;
    uint64_t at;           /* a drop: its time (the claim's, myri_fab_drop_at) */
    uint32_t lp;           /* the host's unit it runs as (fab__defer) */
} fab_cbrec;

typedef struct fab_corr {
    uint32_t pos;   /* character index on the channel */
    uint8_t mask;
} fab_corr;

#define FAB_MAX_CORR 8
#define FAB_HDR 64

/* The fields every hop reads (references, flags, the route bytes) are on the
 * first 64-byte line (blocks of packets are aligned to 64), hdr[0..28] with
 * them: on a large fabric a packet is rarely in cache when it moves on. */
typedef struct fab_pkt {
    /* ---- line 0 ---- */
    uint64_t id;
    uint32_t refs;
    uint32_t nbytes0;      /* bytes on hop 0: route + type + payload + trailer */
    /* First-hop bytes as the sender gave them (reference model; fast model
     * with taps or devices): bytes[0..filled) are final, the rest will be
     * when the sender makes them ready (myri_port_send_more).  The sender
     * sends character j only while j < ready (nbytes0 + 1 with the trailer and GAP once
     * the sender gave the tail, myri_port_send_more). */
    uint8_t *bytes;
    uint32_t ix;           /* its index in the pool (fab_pkt_at): set when its block is made */
    uint8_t route_len;
    uint8_t hdr_lazy;      /* payload bytes of hdr not filled yet (derived from the id): fab_pkt_hdr */
    uint8_t syndrome;      /* fast model: CRC remainder of the packet */
    bool dropped;          /* counted as dropped already */
    bool delivered;
    bool host_quiet;       /* fast model: no head event at the destination host (not misrouted) */
    bool dst_known;
    uint8_t hdr[FAB_HDR];  /* first-hop bytes 0..FAB_HDR-1 (route, type, payload start)
                            * with the bit errors suffered so far: what switches decode */
    /* ---- then ---- */
    uint32_t src_host;
    uint32_t dst_host;     /* intended destination host (dst_known): a delivery elsewhere is misdelivered */
    uint32_t type;
    uint32_t payload_bytes;
    myri_time_ps queued_ps, head_ps;
    uint32_t filled, ready;
    uint32_t bytes_cap;    /* a device's packet: bytes allocated (it grows as they are made ready) */
    bool open;             /* a device's packet whose tail is not given yet: its length is unknown and
                            * nbytes0 is FAB_OPEN_BYTES (the per-hop counts derived from it are then
                            * larger than any character the sender can have sent) */
    bool xcopy;            /* a cut run: this partition's copy of a packet that crossed a cut cable (in
                            * f->xm; its fate may be another partition's: no "vanished" check) */
    /* Fast model, bytes carried: what the hops did to them, as a list of
     * XORs (bit errors and trailer updates, each tagged with the hop that
     * made it): the byte at position i on hop h is bytes[i] XOR the masks
     * at i of hops <= h (myri_fab_pkt_byte). */
    /* strip: 0 a bit error, 1 a trailer update (route byte stripped), 2 one
     * pending while the packet is open (pos UINT32_MAX, mask the stripped byte:
     * myri_fab_pkt_close makes it a 1). */
    struct fab_xor { uint32_t pos, hop; uint8_t mask, strip; } *xl;
    uint32_t nxl, capxl;
    const uint8_t *src_payload; /* a device's payload, read as it is made ready */
    int32_t port;          /* the sending host's port if a device sends it, else -1 */
    uint32_t xclaim;       /* a cut run: 1 + its drop's slot in f->pend while it has not crossed, else 0 */
    struct fab_pkt *next;  /* host queue / free list */
} __attribute__((aligned(64))) fab_pkt;
_Static_assert(sizeof(fab_pkt) == 192, "fab_pkt: three cache lines");

/* Packets live in blocks of FAB_PKT_BLOCK; a packet's index (fab_pkt.ix)
 * is block * FAB_PKT_BLOCK + its place in the block, FAB_PKT_NONE meaning
 * none, so that the hot rings (runs, receive entries) hold 32-bit indices. */
#define FAB_PKT_NONE UINT32_MAX
#define FAB_PKT_BLOCK_BITS 10
#define FAB_PKT_BLOCK (1u << FAB_PKT_BLOCK_BITS)

/* A packet present at a switch input (head arrived, GAP not yet gone).
 * 32 bytes, four a cache line (it was 56 with a pointer, then 40 with the
 * hop in 32 bits: a route has at most 255 bytes, fab_pkt.route_len). */
typedef struct fab_rxent {
    uint64_t g0;           /* global index of its first character on the channel */
    uint64_t arrive_at;    /* fast model: when its head arrives (entered in advance) */
    uint32_t pix;          /* the packet (fab_pkt_at) */
    uint32_t got;          /* characters received so far */
    uint32_t will;         /* with dead: characters that will ever arrive (fab_e_will) */
    uint8_t hop;           /* switch index along the route: route byte number (< route_len <= 255) */
    bool fres;             /* FRES received: truncated after `got` characters */
    bool dead;             /* cut: the dead-link detection will terminate it */
} fab_rxent;
_Static_assert(sizeof(fab_rxent) == 32, "fab_rxent: four a cache line");

typedef enum fab_front_state { FR_NONE = 0, FR_DECODE, FR_WAIT, FR_GRANT, FR_SINK } fab_front_state;

/* A run of characters sent back to back: char global index n0 + k at time
 * s + k*T, for k < cnt (the planned count while it is going).  Fast model.
 * 32 bytes: two runs a cache line (a run is at most one packet). */
typedef struct fab_run {
    uint64_t s;
    uint64_t n0;
    uint32_t pix;      /* the packet whose characters these are (fab_pkt.ix; runs never span packets) */
    uint32_t cnt;
    uint32_t j0;       /* index within the packet (on this channel) of the first character */
} fab_run;

/* Fast model: what the sender half of a channel tells its receiver half
 * about its runs (docs/PARTITION.md section 2, rows 1-3), taken at the
 * sender's now + the cable's delay D (EV_F_MSG, PH_ARRIVE, the sender's key).
 * A message sent before a cut or restore of the cable (epoch) is stale when
 * it arrives: its characters are lost. */
typedef enum fab_runmsg_kind {
    FAB_MSG_RUN = 0,   /* a run planned: run (n0: the receiver's), hop, head, gap */
    FAB_MSG_LIM = 1,   /* the latest run's plan changed to lim characters, gap */
    FAB_MSG_TRIM = 2   /* the latest run is over after lim characters (unsend: a head not sent) */
} fab_runmsg_kind;

typedef struct fab_runmsg {
    fab_run run;
    uint32_t epoch;    /* the sender's epoch when sent */
    uint32_t lim;
    uint32_t next;     /* free list */
    uint8_t kind;      /* fab_runmsg_kind */
    uint8_t hop;       /* RUN: the packet's route position on the channel */
    bool head, gap, unsend;
} fab_runmsg;

typedef struct fab_rchar {   /* reference model: one character in a receiver's slack buffer */
    fab_pkt *pkt;
    uint32_t j;              /* index on this channel */
    uint8_t byte;
    uint8_t gap;
    uint32_t hop;            /* route position of the packet on this channel */
    uint64_t at;             /* arrival time */
} fab_rchar;

/* Reference model, a sender: one of its packets with characters still on the
 * cable (its own record of what it sent in the last D_c, so that a cut drops
 * them at the cut, fab_ref_cut_sender). */
typedef struct fab_rsent {
    uint64_t head_at;        /* arrival time of the packet's head on the channel */
    uint64_t last_at;        /* arrival time of its latest character sent */
    uint32_t pix;            /* the packet (fab_pkt.ix) */
} fab_rsent;

/* A channel's record is in three parts (hot fab_chan, fab_chanx, cold
 * fab_tx_cold and fab_rx_cold), and each part is split by owner (docs/PARTITION.md section 1
 * "Channel halves"): a sender half (`tx`, owned by the node c->src_node) and a
 * receiver half (`rx`, owned by c->dst_node); the identity of the channel
 * (ids, nodes, flags fixed at set-up) and the cable's state that both ends
 * hold, each its own copy (`down`/`rx_down`, `epoch`/`rx_epoch`), stay outside
 * the halves.  A debug build
 * (-DMYRI_FAB_CHECK_OWNER=ON) checks through FAB_TX/FAB_RX (below) that the
 * node whose handler runs owns the half it touches.
 *
 * fab_chanx holds what events use rarely (statistics, the reference model,
 * taps, ...): one array of its own, reached by fab_chan.x.  fab_chan holds
 * what events use (four 64-byte lines, the array aligned to 64), so that on a
 * large fabric the lines events touch are dense: at 1024 hosts the channels'
 * hot lines take 2.6 MiB of pages instead of 7.2 MiB (TLB reach; a dependent
 * load at random costs 18 ns over 4 MiB and 165 ns over 16 MiB here:
 * bench_scale's load_ns).  The order of fields changes no result. */
typedef struct fab_tx_halfx {       /* sender half, rarely used part */
    uint64_t win_chars0;            /* fast model: characters ever sent when the window began */
    uint64_t send_pending_at;
    uint64_t timer_at;              /* pending long-period timer, 0 = none */
    uint64_t stopped_since;
} fab_tx_halfx;

typedef struct fab_rx_halfx {       /* receiver half, rarely used part */
    uint64_t rx_done_g;             /* 1 + global index of the last GAP handled */
    uint64_t ready_at;
    uint64_t sink_end;              /* FR_SINK: global index after the sunk packet's GAP */
    uint64_t cut_at;                /* the receiver's latest cut (a stale run's loss is dated then) */
} fab_rx_halfx;

typedef struct fab_chanx {
    /* st: both halves' statistics in one public struct (docs/PARTITION.md
     * section 1 names which counter is whose); st.max_slack_bytes: see
     * rx.max_slack; st.chars: fast model, see tx.win_chars0 */
    myri_fabric_channel_stats st;
    /* changes at every cut and restore, older symbols are lost: the sender's
     * copy (epoch) and the receiver's (rx_epoch), each bumped by its own
     * half's event at the same instant (EV_CUT_TX/_RX, EV_RESTORE_TX/_RX) */
    uint32_t epoch, rx_epoch;
    fab_tx_halfx tx;
    fab_rx_halfx rx;
    /* ---- less used ---- (src_port and strip_byte went to padding of the hot record; peer_input and
     * c_gen, never read, are gone: 168 -> 144 bytes) */
    struct fab_tx_cold *ty;         /* the rarest parts, each made on first use (fab_txcold, fab_rxcold): */
    struct fab_rx_cold *ry;         /* a host's sending channel needs only ty, its receiving one only ry */
#ifdef FAB_CHECK_OWNER
    const struct myri_fabric *f;    /* the owner check's way to f->cur_node */
#endif
} fab_chanx;

/* What only some channels ever use: a host's queue and receiver state, the
 * corruptions of a packet (only with bit errors or scripted ones), the
 * reference model's characters, a tap's bytes.  Made zeroed on first use (fab_txcold, fab_rxcold: each half its own), so
 * that a large fabric of the fast model without faults has none at its
 * switches' channels (the record's size was 448 bytes a channel with them). */
typedef struct fab_tx_cold {        /* sender half */
    fab_pkt *hq_head, *hq_tail;     /* host queue */
    uint32_t hq_len;                /* packets in it (myri_fabric_host_queued) */
    fab_corr corr[FAB_MAX_CORR];    /* corruptions of cur on this channel */
    /* tap: the bytes of the current packet on this channel */
    uint8_t *tap_buf; size_t tap_cap, tap_len;
    uint64_t tap_first;
    /* reference model: its packets with characters on the cable, oldest first (a ring) */
    fab_rsent *sent; uint32_t scap, shead, scount;
} fab_tx_cold;

struct fab_hh { fab_pkt *pkt; uint64_t head_at, g0; bool term; };

typedef struct fab_rx_cold {        /* receiver half */
    fab_pkt *hpkt;                  /* host receiver: packet being received */
    /* fast model, host receiver: the two latest heads sent on the channel
     * (head arrival time, global index of the head, terminated: FRES, cut or
     * head lost); at a cut, the one whose head arrived is the packet partly
     * received if its GAP has not arrived. */
    struct fab_hh hh[2];
    struct fab_hh hh_gone;          /* the one the latest head pushed out (a head planned ahead may go back) */
    /* reference model */
    uint64_t occ;                   /* reference: slack occupancy */
    uint64_t arrived_total;         /* characters ever arrived (global index) */
    uint64_t departed_total;        /* characters ever departed */
    fab_rchar *buf; uint32_t bcap, bhead, bcount;      /* reference: slack contents */
    uint8_t hcrc;                   /* host receiver (reference model) */
} fab_rx_cold;


/* The hot halves.  Fields are grouped by use: what an event touches first on
 * a channel, then the fast model's times and generations (found by
 * cachegrind on the 1024- and 4096-host fat trees). */
typedef struct fab_tx_half {        /* sender half: owned by c->src_node */
    fab_pkt *cur;                   /* packet being sent on this channel */
    uint64_t run_s;                 /* time of character run_j0 */
    uint64_t f_gen;                 /* guards the run-end event */
    uint64_t free_at;               /* end of the last character slot */
    uint64_t sent_total;            /* characters ever sent (fast model: lost ones too; the receiver numbers arrivals) */
    uint64_t arb_at;                /* time of a pending EV_ARB, or 0 */
    uint64_t granted_at;            /* switch output: when cur was granted */
    uint32_t run_j0;
    uint32_t run_lim;               /* characters planned in the run */
    uint32_t cur_hop;               /* hop index (characters on this channel: fab_cur_n) */
    uint32_t cur_next;              /* next character index to send */
    uint32_t ncorr;
    uint32_t nreq;                  /* inputs waiting for this output */
    uint32_t req_ports;             /* bit p: the input of port p waits for this output */
    int32_t src_in;                 /* switch output: input channel feeding it */
    bool stopped;                   /* STOP in effect */
    bool in_progress;               /* first character sent, GAP not yet */
    bool run_on;                    /* fast model: a run is planned or going */
    bool send_pending;              /* an EV_R_SEND / wake is queued for send_pending_at */
    bool tap_on;
    uint8_t rr;                     /* last input port granted */
    uint8_t strip_byte;             /* route byte stripped by the switch (CRC update; in padding) */
} fab_tx_half;

typedef struct fab_rx_half {        /* receiver half: owned by c->dst_node */
    fab_front_state front;
    int32_t want_out;               /* FR_WAIT/FR_GRANT: output channel */
    uint32_t rxcap, rxhead, rxcount;   /* the receive FIFO rxq's size (a power of 2), head, count */
    uint32_t rcap, rhead, rcount;      /* the run ring runs' size (a power of 2), head, count */
    fab_run *runs;                  /* ring of recent runs (fast model) */
    fab_rxent *rxq;                 /* packets present, FIFO */
    uint64_t dec_gen;
    uint64_t last_check;            /* max-slack accounted up to here */
    uint64_t dep_base;              /* departures counted before the current departure run */
    uint64_t arr_base;              /* characters of runs purged from the ring */
    uint64_t pred_at;               /* time of the pending predicted check, or NEVER */
    uint64_t max_slack;             /* the largest slack occupancy so far (st.max_slack_bytes when reported) */
    uint64_t check_pending_at;
    bool stop_sent;
    bool check_pending;
    bool hbad;                      /* misrouted / truncated packet being received */
    uint8_t in_route_byte;          /* the front packet's decoded route byte */
} fab_rx_half;

typedef struct fab_chan {
    /* identity and what both ends hold */
    uint32_t id;
    uint32_t src_node, dst_node;
    bool src_host, dst_host;
    bool down;                      /* cable cut: the sender's copy (rx_down: the receiver's) */
    bool dma;                       /* a port's receive DMA: the output of a host input with a device */
    bool dev_in;                    /* a host input with a device: behaves as a switch input */
    uint8_t dst_port;               /* < 32: req_ports is a bit mask of ports */
    bool rx_down;                   /* cable cut: the receiver's copy, set by its own half's event */
    bool part_cut;                  /* a cut run: its two ends are in different partitions */
    uint32_t src_port;              /* the sender's port (set-up only; in padding) */
    uint64_t d_ps;                  /* T + prop */
    struct fab_chanx *x;            /* the rest of the record (fab_chanx) */
    fab_tx_half tx;
    fab_rx_half rx;
} __attribute__((aligned(64))) fab_chan;

/* The hot record stays four cache lines (it was 256 bytes before the halves). */
_Static_assert(sizeof(fab_chan) == 256, "fab_chan: four 64-byte lines");
#ifndef FAB_CHECK_OWNER
_Static_assert(sizeof(fab_chanx) == 152, "fab_chanx: 152 bytes (statistics 64, rare halves 32 + 32, cold parts 8 + 8)");
#endif

/* Access to a channel's halves.  FAB_TX(c) is c's sender half (hot part),
 * FAB_TXX(c) its rarely used part, FAB_TXC(c) its cold part (made on first
 * use, fab_txcold), FAB_TXY(c) the cold part known to exist; FAB_RX* the same
 * for the receiver half.  In a build with FAB_CHECK_OWNER (CMake option
 * MYRI_FAB_CHECK_OWNER, `make check-owner`) each one checks, inside the
 * fabric's pass (f->in_tick), that the node whose handler runs (f->cur_node)
 * owns the half: c->src_node for tx, c->dst_node for rx (myri_fab__own);
 * outside the pass, in a call that names its node with FAB_ENTRY(f, node)
 * (a host's port and send calls: the target's node, docs/PARTITION.md
 * section 3), that node; elsewhere (set-up, reports) nothing is checked.
 * Crossings: what a node does today to state of the other end of a cable
 * (docs/PARTITION.md section 2's table; its messages remove them) is marked,
 * not changed, with the row that removes it (`grep -n FAB_CROSS src/fabric`):
 * FAB_CROSS_DO(f, node, row, stmt) runs stmt with `node` owning too (a call
 * made for the other end: the whole call is the crossing, and what it does
 * is checked against both); FAB_CROSS_GET the same for an expression's value;
 * FAB_CROSS_TX/RX...(c, row) is one access, unchecked.  Row "part": state of
 * the partition, not of a unit (the predicted-check queue f->cq, section 2). */
/* The guard of a cut run (docs/PARTITION.md step 9): a crossing that joins
 * two partitions cannot be made, since the other end's state is not this
 * partition's; it stops the run (myri_panic) naming the row whose message
 * will replace it.  FAB__PART_CHK: the crossing touches node `node` (stops
 * when f is a partition that does not own it); FAB__CUT_CHK: it touches
 * channel c's other end (stops when c is cut).  Row "part" (state of the
 * partition) is never a crossing: its check is compiled out.  Outside a cut
 * run each costs one load and a branch not taken. */
MYRI_NORETURN void myri_fab__cross_stop(const myri_fabric *f, uint32_t node, const char *row);
MYRI_NORETURN void myri_fab__cross_cut(const fab_chan *c, const char *row);
#define FAB__PART_CHK(f, node, row) \
    ((void)(__builtin_expect((f)->part_owner != NULL, 0) && (f)->part_owner[(node)] != (f)->part_me \
                ? (myri_fab__cross_stop((f), (node), #row), 0) : 0))
#define FAB__CUT_CHK(c, row) \
    ((void)((#row)[0] != 'p' && __builtin_expect((c)->part_cut, 0) ? (myri_fab__cross_cut((c), #row), 0) : 0))
#ifdef FAB_CHECK_OWNER
void myri_fab__own(const fab_chan *c, int rx, const char *file, int line);
uint32_t myri_fab__as(const myri_fabric *f, uint32_t node);
void myri_fab__as_end(const myri_fabric *f, uint32_t depth);
#define FAB__OWN(c, h) myri_fab__own((c), (h), __FILE__, __LINE__)
typedef struct fab_entry { const myri_fabric *f; uint32_t old; } fab_entry;
fab_entry myri_fab__entry(const myri_fabric *f, uint32_t node);
void myri_fab__entry_end(const fab_entry *e);
#define FAB_ENTRY(f, node) \
    fab_entry fab__entry __attribute__((cleanup(myri_fab__entry_end), unused)) = myri_fab__entry((f), (node))
#define FAB_CROSS_DO(f, node, row, stmt) do { FAB__PART_CHK(f, node, row); \
        uint32_t fab__as_depth = myri_fab__as((f), (node)); stmt; myri_fab__as_end((f), fab__as_depth); } while (0)
#define FAB_CROSS_GET(f, node, row, expr) __extension__ ({ FAB__PART_CHK(f, node, row); \
        uint32_t fab__as_depth = myri_fab__as((f), (node)); __typeof__(expr) fab__as_v = (expr); \
        myri_fab__as_end((f), fab__as_depth); fab__as_v; })
#else
#define FAB__OWN(c, h) ((void)0)
#define FAB_ENTRY(f, node) ((void)0)
#define FAB_CROSS_DO(f, node, row, stmt) do { FAB__PART_CHK(f, node, row); stmt; } while (0)
#define FAB_CROSS_GET(f, node, row, expr) (FAB__PART_CHK(f, node, row), (expr))
#endif
#define FAB_TX(c) (FAB__OWN(c, 0), &(c)->tx)
#define FAB_RX(c) (FAB__OWN(c, 1), &(c)->rx)
#define FAB_TXX(c) (FAB__OWN(c, 0), &(c)->x->tx)
#define FAB_RXX(c) (FAB__OWN(c, 1), &(c)->x->rx)
#define FAB_TXC(c) (FAB__OWN(c, 0), fab_txcold(c))
#define FAB_RXC(c) (FAB__OWN(c, 1), fab_rxcold(c))
#define FAB_TXY(c) (FAB__OWN(c, 0), (c)->x->ty)
#define FAB_RXY(c) (FAB__OWN(c, 1), (c)->x->ry)
#define FAB_CROSS_TX(c, row) (FAB__CUT_CHK(c, row), &(c)->tx)
#define FAB_CROSS_RX(c, row) (FAB__CUT_CHK(c, row), &(c)->rx)
#define FAB_CROSS_TXX(c, row) (FAB__CUT_CHK(c, row), &(c)->x->tx)
#define FAB_CROSS_RXX(c, row) (FAB__CUT_CHK(c, row), &(c)->x->rx)
#define FAB_CROSS_TXC(c, row) (FAB__CUT_CHK(c, row), fab_txcold(c))
#define FAB_CROSS_RXC(c, row) (FAB__CUT_CHK(c, row), fab_rxcold(c))
#define FAB_CROSS_TXY(c, row) (FAB__CUT_CHK(c, row), (c)->x->ty)
#define FAB_CROSS_RXY(c, row) (FAB__CUT_CHK(c, row), (c)->x->ry)

typedef struct fab_node {
    bool host;
    uint32_t nports;
    int32_t *in_ch;   /* channel entering port p, -1 if unconnected */
    int32_t *out_ch;  /* channel leaving port p */
    int32_t host_index;
    uint32_t ndecoding;   /* its inputs whose front packet is being decoded (FR_DECODE, fab_set_front) */
    uint64_t seq;         /* agenda: the next sequence number of events this node originates */
} fab_node;

typedef struct fab_script {   /* scripted corruption */
    uint64_t id;
    uint32_t channel, index;
    uint8_t mask;
} fab_script;

typedef struct fab_tap {
    myri_fabric_tap_fn fn;
    void *ctx;
} fab_tap;

struct myri_fabric {
    myri_sim *sim;
    myri_component *comp;
    myri_fabric_params p;
    myri_fabric_callbacks cb;
    myri_crc8 crc;
    uint64_t T;                     /* character time, ps */
    uint64_t T_inv;                 /* floor((2^64 - 1) / T): fab_div_T */
    uint64_t R;                     /* switch route time (route decision + arbitration), ps */
    uint64_t fall;                  /* switch fall-through: max(L, T) - T, ps (docs/FABRIC.md) */
    uint32_t type_bytes;
    size_t nnodes, nchan, nhosts;
    fab_node *node;
    fab_chan *ch;
    fab_chanx *chx;                 /* ch[i].x == &chx[i] */
    uint32_t *host_node;
    char **node_name;
    /* agenda */
    /* 4-ary min-heap of (time << 64 | phase << 61 | origin node | origin's
     * sequence | slot) over a pool of event bodies: one 128-bit comparison
     * orders (time, phase, origin node, origin's sequence); the node field has
     * node_bits bits, the sequence 37 - node_bits, the slot 24 (it never
     * decides: (node, sequence) is unique among pending events). */
    fab_key *heap; size_t hn, hcap;
    /* Long-period timers (50 ms ahead, one per stopped channel) wait in a
     * heap of their own with keys of the same form, so that they do not
     * deepen the busy heap; the agenda takes the smaller of the two tops. */
    fab_key *far; size_t fn, fcap;
    /* Most events are due within a few microseconds: they wait in a calendar
     * of FAB_CAL_N buckets of 2^cal_shift ps (a ring starting at bucket
     * cal_base, the bucket of the last event taken: nothing is ever scheduled
     * before it), each an unsorted list of pool slots, with a bit map of the
     * non-empty ones; cal_cur is the first non-empty bucket, sorted into cs
     * when it is needed (fabric_agenda.c).  Events beyond the ring go to the
     * heap.  The agenda takes the smallest of the three tops, so the order is
     * exactly that of the keys. */
    uint32_t cal_shift;
    uint64_t cal_base, cal_cur;
    size_t caln;
    uint32_t *cal_head;             /* first slot of each bucket, UINT32_MAX if empty (or loaded into cs) */
    uint64_t cal_bits[FAB_CAL_N / 64];
    fab_key *cs; size_t cs_head, cs_n, cs_cap; /* the current bucket's keys, sorted, taken from cs_head */
    bool cal_loaded;                /* cs holds bucket cal_loaded_bk */
    uint64_t cal_loaded_bk;
    fab_ev *pool; uint32_t *pfree; size_t npool, nfree, capool;
    /* events for the instant being processed skip the heap: one FIFO per phase
     * (they come after the heap's events of the same phase, pushed earlier) */
    struct { uint32_t *slot; size_t head, n, cap; } fifo[8];
    unsigned fifo_mask;             /* bit q set iff fifo[q] is not empty */
    uint32_t node_bits;             /* width of the key's origin node field (fab__build) */
    uint32_t cur_node;              /* origin of pushes made in the pass: the node whose handler runs */
    /* a cut run (myri_fabric_set_partition): the owner of every node, NULL when not cut */
    const uint32_t *part_owner;
    uint32_t part_me;               /* this partition */
    bool part_live;                 /* running: events for other partitions go to the outbox */
    myri_fabric_outbox_fn part_out;
    void *part_ctx;
    /* a cut run: packet id -> this partition's copy (fab_pkt.ix), open addressing (fabric_core.c) */
    uint64_t *xm_id;
    uint32_t *xm_ix;
    uint32_t xm_cap, xm_n;
    /* a cut run, per channel: the packet whose head last crossed it to another partition and the
     * channel's references the sender took for that absent receiver (fab__absent_ref, fabric_agenda.c) */
    uint32_t *xlast, *xlast_n;
    /* a cut run: the drops of packets that crossed a cut (pkt->xcopy), for the gathering to count
     * each packet's first claim only (docs/PARTITION.md row 15; myri_fabric_claims) */
    myri_fabric_claim *claims; size_t nclaims, capclaims;
    /* ... and of packets that have not crossed yet (they may: a truncated worm goes on), each until it
     * crosses (then logged) or is freed (fab_pkt.xclaim; free slots stacked in pend_free) */
    myri_fabric_claim *pend; uint32_t *pend_free; size_t npend, npend_free, cappend;
    uint64_t cur_ord;               /* in the pass: the running event's key after its time, slot left out */
#ifdef FAB_CHECK_OWNER
    uint32_t own_as[16], own_n;     /* owner check: nodes a FAB_CROSS_DO lets touch their halves too */
    uint32_t own_out;               /* owner check outside the pass: FAB_ENTRY's node + 1, 0 = none */
#endif
    fab_msgslab msgs;               /* records of the pending MSG_CHARs (fabric_msg.c) */
    uint64_t nrenumber;             /* times a node's sequences ran out and were renumbered */
    uint64_t tick_at;               /* time of the pending engine event, or NEVER */
    myri_event_id tick_id;          /* its handle (at most one tick is pending) */
    bool in_tick;
    uint64_t now;                   /* the instant being processed (in_tick) */
    bool lim_stale;                 /* a callback ran: other components may have scheduled */
    struct fab_cbrec *cb_free;      /* pool of deferred callbacks */
    struct fab_cbrec **cb_all; size_t ncb_all, capcb_all;  /* every record, to free */
    int cb_fault;                   /* deliberate fault (tests): 1 = defer as the host, 2 = notices' round (myri_fabric__set_fault) */
    uint64_t now_phase;
    uint64_t win_start;             /* the statistics window's start (link channels: fab_win_start) */
    /* packets */
    fab_pkt *free_pkts;
    fab_pkt **blocks; size_t nblocks;
    size_t live_pkts;
    fab_script *scripts; size_t nscripts, capscripts;
    fab_tap *taps;
    bool any_tap;
    uint64_t ber_seed;
    myri_fabric_counters ctr;
    uint64_t skew_ps;
    uint64_t stats_syncs;
    void (*cb_mis)(void *ctx, const myri_fabric_delivery *d); /* myri_fabric_set_misdelivered */           /* finish_stats calls (myri_fabric__test_stats_syncs) */
    const struct fab_model *m;      /* the model, chosen at creation */
    uint32_t *dirty; size_t ndirty;  /* fast model: inputs to check at the end of the instant */
    /* fast model: predicted slack checks, at most one per input, in an
     * indexed binary heap keyed by fab_chan.pred_at (updated in place). */
    uint32_t *cq; int32_t *cq_pos; size_t cqn;
    /* the receivers' rings (input FIFOs rxq, run rings runs; fabric_switch.c, myri_fab_ring_get):
     * blocks of 2^k bytes carved from 64 KiB chunks, a free list per size, no header per block */
    void *ring_free[32];
    uint8_t *ring_cur; size_t ring_left;
    void **ring_chunks; size_t nring_chunks, capring_chunks;
    /* fast model: messages in flight (EV_F_MSG's b), a pool with a free list */
    fab_runmsg *msg; uint32_t nmsg, capmsg, msg_free;
    uint64_t cq_top_at;             /* pred_at of cq[0], UINT64_MAX if empty */
    /* ports (fabric_port.c): one per host; channels nchan.. are their DMAs */
    struct myri_port *ports;
    bool any_dev;                   /* a device is attached somewhere: packets carry bytes */
    bool started;                   /* a packet was sent: no more attaching */
    uint64_t last_instant;          /* the latest instant a pass has begun (NEVER: none) */
    struct fab_note *notes; size_t nnotes, capnotes;   /* notices of the current pass */
    struct fab_note **note_pool; size_t nnote_pool, capnote_pool;  /* free records */
    struct fab_note **note_all; size_t nnote_all, capnote_all;     /* every record, to free */
};

/* A port (port.h). */
struct myri_port {
    myri_fabric *f;
    uint32_t host;
    const myri_port_ops *ops;
    void *dev;
    int32_t out_ch, in_ch;          /* the host's sending and receiving channels (-1: no cable) */
    uint32_t dma;                   /* its receive DMA channel (f->ch index) */
    fab_pkt *tx;                    /* the packet being sent */
    uint32_t tx_room;               /* its route + type + payload room (the length is known at its tail) */
    /* the armed window */
    bool armed;
    uint8_t *buf;
    uint32_t max, count;
    /* the packet at the DMA */
    uint32_t wr_j;                  /* its characters written (fast model: lazily) */
    uint32_t pkt_bytes;
    uint8_t crc;
    bool misrouted;
    myri_time_ps head_ps;
    uint32_t unit_lp;               /* the host unit's engine process (myri_fabric_set_host_unit) */
    uint64_t link_epoch;            /* a cut's down notice is void if the link changed since */
    bool told_down;
    myri_port_stats st;
};

/* A notice waiting for the end of the pass (kind: 0 tx, 1 rx, 2 link). */
typedef struct fab_note {
    uint32_t host, kind, seq;
    struct fab_note *next; /* the notices of one FAB_ENG_NOTES event, in order */
    myri_port_rx rx;
    myri_port_tx tx;
    bool up;
} fab_note;

/* The channel's rarest parts, each made on first use (zeroed: as if it had always been there). */
fab_tx_cold *myri_fab_txcold_make(fab_chan *c);
fab_rx_cold *myri_fab_rxcold_make(fab_chan *c);
static inline fab_tx_cold *fab_txcold(fab_chan *c) { return c->x->ty ? c->x->ty : myri_fab_txcold_make(c); }
static inline fab_rx_cold *fab_rxcold(fab_chan *c) { return c->x->ry ? c->x->ry : myri_fab_rxcold_make(c); }

/* x / T without a division instruction (the fast model divides by T on
 * every event): q = floor(x T_inv / 2^64) is floor(x / T) or one less. */
static inline uint64_t fab_div_T(const myri_fabric *f, uint64_t x)
{
    uint64_t q = (uint64_t)(((fab_key)x * f->T_inv) >> 64);
    if (x - q * f->T >= f->T) q++;
    return q;
}

/* Every change of an input's front state goes through here: the switch
 * counts its inputs that are decoding (the fast model's bound for
 * arbitrating at once, fab__decode). */
static inline void fab_set_front(myri_fabric *f, fab_chan *c, fab_front_state s)
{
    if ((FAB_RX(c)->front == FR_DECODE) != (s == FR_DECODE)) {
        if (s == FR_DECODE) f->node[c->dst_node].ndecoding++;
        else f->node[c->dst_node].ndecoding--;
    }
    FAB_RX(c)->front = s;
}

/* STOP/GO of link channel c reach its sender this long after they are sent:
 * the control delay and the cable's propagation (d_ps - T); none on a port's DMA. */
static inline uint64_t fab_q_ps(const myri_fabric *f, const fab_chan *c)
{
    return c->id < f->nchan ? f->p.ctrl_delay_ps + (c->d_ps - f->T) : 0;
}
/* The statistics window began here for c (a ports' DMA channel: at 0, as before the window). */
static inline uint64_t fab_win_start(const myri_fabric *f, const fab_chan *c) { return c->id < f->nchan ? f->win_start : 0; }

/* Route decision at the input c: the switch's route time, none at a device's host. */
static inline uint64_t fab_path_latency(const myri_fabric *f, const fab_chan *c) { return c->dev_in ? 0 : f->R; }
/* Fall-through of output o: a character it forwards may leave this long after
 * it arrived at the input (a switch's pipeline; none at a port's receive DMA). */
static inline uint64_t fab_fall_ps(const myri_fabric *f, const fab_chan *o) { return o->dma ? 0 : f->fall; }

/* ---- the component (fabric_agenda.c, fabric_switch.c, fabric_core.c) ---- */
void myri_fab_handle(myri_component *self, const myri_event *ev);  /* the engine event */
void myri_fab_dispatch(myri_fabric *f, const fab_ev *ev);          /* one agenda event */
void myri_fab_callback(myri_fabric *f, fab_cbrec *r);              /* a deferred callback */
void myri_fabric__set_fault(myri_fabric *f, int fault); /* tests: 1 = callbacks deferred as the host, 2 = notices scheduled ahead (the old ways) */
myri_status myri_fab_perr(myri_error *err, const char *key, const char *msg); /* MYRI_EINPUT, "key: msg" */

/* ---- core services ---- */
void myri_fab_push(myri_fabric *f, uint64_t t, fab_phase ph, uint32_t kind, uint32_t a, uint64_t b,
              void *p);
/* The same with a given origin node for the agenda key, outside a pass at a
 * later instant (a link's cut and restore halves, keyed by the link). */
void myri_fab_push_from(myri_fabric *f, uint32_t origin, uint64_t t, fab_phase ph, uint32_t kind, uint32_t a);
/* The agenda key (docs/FABRIC.md "Agenda"): below the time, phase (3 bits) |
 * origin node (node_bits) | origin's sequence (37 - node_bits) | slot (24). */
#define FAB_NODE_BITS_MAX 21u  /* 2^21 nodes; the sequence keeps at least 16 bits */
/* The node whose handler runs event (kind, a): the sender's for the kinds of
 * a channel's sending half (and STOP/GO, which reach the sender), the
 * receiver's for its receiving half, a link's first end for cuts and
 * restorations (docs/PARTITION.md section 3). */
uint32_t myri_fab_ev_node(const myri_fabric *f, uint32_t kind, uint32_t a);
/* Agenda set-up (node_bits from the node count); MYRI_EINPUT beyond 2^21 nodes. */
myri_status myri_fab_agenda_init(myri_fabric *f, myri_error *err);
/* Test hook: every node's next sequence number is `left` short of the limit,
 * so that a short run exercises the renumbering (test_fabric_order). */
void myri_fab_agenda_test_seq_left(myri_fabric *f, uint64_t left);
/* Test hook: removes the agenda's next keyed event (heaps and calendar, not
 * the same-instant FIFOs) into *out without running it; false if none. */
bool myri_fab_agenda_test_take(myri_fabric *f, fab_ev *out);
/* The fabric's clock: inside its handler it runs ahead of the engine's (it
 * processes its own agenda up to the next event of any other component). */
static inline uint64_t fab_now(const myri_fabric *f) { return f->in_tick ? f->now : myri_sim_now(f->sim); }
fab_pkt *myri_fab_pkt_alloc(myri_fabric *f);
/* The packet of index ix (fab_pkt.ix, not FAB_PKT_NONE). */
static inline fab_pkt *fab_pkt_at(const myri_fabric *f, uint32_t ix)
{
    return &f->blocks[ix >> FAB_PKT_BLOCK_BITS][ix & (FAB_PKT_BLOCK - 1)];
}
static inline uint32_t fab_pkt_ix(const fab_pkt *pkt) { return pkt ? pkt->ix : FAB_PKT_NONE; }
static inline fab_pkt *fab_rx_pkt(const myri_fabric *f, const fab_rxent *e) { return fab_pkt_at(f, e->pix); }
/* nbytes0 of a device's packet until its tail is given (docs/FABRIC.md,
 * "Ports"): the counts below are derived from the packet, never stored, so
 * that they are right everywhere the moment the tail makes the length known. */
#define FAB_OPEN_BYTES 0x40000000u
/* Characters of pkt (data, trailer, GAP) on a channel of hop `hop` (route bytes stripped before it). */
static inline uint32_t fab_pkt_n(const fab_pkt *pkt, uint32_t hop) { return pkt->nbytes0 + 1 - hop; }
/* ... of the packet being sent on c. */
static inline uint32_t fab_cur_n(const fab_chan *c) { return fab_pkt_n(FAB_TX(c)->cur, FAB_TX(c)->cur_hop); }
/* ... of the packet of entry e at a switch input. */
static inline uint32_t fab_e_n(const myri_fabric *f, const fab_rxent *e) { return fab_pkt_n(fab_rx_pkt(f, e), e->hop); }
/* Characters of e's packet that will ever arrive: all, less after a cut. */
static inline uint32_t fab_e_will(const myri_fabric *f, const fab_rxent *e) { return e->dead ? e->will : fab_e_n(f, e); }
/* The payload part of hdr derived from the packet id is filled only when
 * something reads or corrupts it (myri_fabric_send defers it): most packets
 * are decoded on their route bytes alone. */
void myri_fab_pkt_hdr_fill(fab_pkt *pkt);
static inline uint8_t fab_hdr_byte(fab_pkt *pkt, uint32_t i)
{
    if (pkt->hdr_lazy && i >= pkt->hdr_lazy) myri_fab_pkt_hdr_fill(pkt);
    return pkt->hdr[i];
}
void myri_fab_pkt_unref(myri_fabric *f, fab_pkt *pkt);
/* A cut run's packet copies by id (docs/PARTITION.md step 7): the copy of
 * packet `id` in this partition or NULL; registers pkt (marks it xcopy);
 * forgets it (at its last unref). */
fab_pkt *myri_fab_xmap_get(const myri_fabric *f, uint64_t id);
void myri_fab_xmap_put(myri_fabric *f, fab_pkt *pkt);
void myri_fab_xmap_del(myri_fabric *f, uint64_t id);
/* A record put in this fabric's pools for a message from another partition:
 * a fast-model run message (f->msg slot) and a reference character (f->msgs
 * slot); the slot's index. */
uint32_t myri_fab_runmsg_put(myri_fabric *f, const fab_runmsg *m);
fab_runmsg myri_fab_runmsg_take(myri_fabric *f, uint32_t i);
uint32_t myri_fab_msg_put(myri_fabric *f, const fab_msg *m);
fab_pkt *myri_fab_pkt_new(myri_fabric *f, const myri_fabric_packet *pk, bool with_bytes);
void myri_fab_host_queue(myri_fabric *f, fab_chan *c, fab_pkt *pkt);
void myri_fab_drop(myri_fabric *f, fab_pkt *pkt, myri_fabric_drop_reason r);
/* The same, the loss dated `at` (<= now; a claim made later than the loss:
 * a run told after its cable was cut, docs/PARTITION.md row 15). */
void myri_fab_drop_at(myri_fabric *f, fab_pkt *pkt, myri_fabric_drop_reason r, uint64_t at);
void myri_fab_deliver(myri_fabric *f, fab_pkt *pkt, uint32_t dst_node);
/* Corruptions of `pkt` on channel c when it carries n bytes there. */
uint32_t myri_fab_corruptions(myri_fabric *f, const fab_pkt *pkt, uint32_t c, uint32_t nbytes,
                         fab_corr *out);
/* The same for the hop of `pkt` on c, kept in c's rare part (made only when there are some). */
uint32_t myri_fab_hop_corruptions(myri_fabric *f, const fab_pkt *pkt, fab_chan *c, uint32_t nbytes);
/* A block of `bytes` (a power of 2, at least 64; 64-aligned) for a receiver's
 * ring, from the fabric's ring arena; NULL on ENOMEM.  A block given back goes
 * to its size's free list; every block goes with the fabric (myri_fab_ring_fini). */
void *myri_fab_ring_get(myri_fabric *f, size_t bytes);
void myri_fab_ring_put(myri_fabric *f, void *p, size_t bytes);
void myri_fab_ring_fini(myri_fabric *f);
/* Receiver FIFO of packets at a switch input. */
fab_rxent *myri_fab_rx_front(fab_chan *c);
fab_rxent *myri_fab_rx_push(myri_fabric *f, fab_chan *c);
fab_rxent *myri_fab_rx_find(fab_chan *c, const fab_pkt *pkt);
void myri_fab_rx_pop(fab_chan *c);
/* An empty FIFO gives its block back to the ring arena (a switch input holds
 * a packet for a short time: at 4096 hosts, 20 B, 24 k entries in use at the
 * end of the run against 143 k made room for when FIFOs kept their largest
 * size); the next push takes a block again. */
void myri_fab_rx_release(myri_fabric *f, fab_chan *c);
/* A new packet reached the front of input c at `now`: start decoding. */
void myri_fab_front_begin(myri_fabric *f, fab_chan *c);
/* The front packet of input c is finished there (GAP gone): next one. */
void myri_fab_front_done(myri_fabric *f, fab_chan *c);
/* STOP/GO emission by the receiver of c (a MSG_CTRL). */
void myri_fab_emit_ctrl(myri_fabric *f, fab_chan *c, bool stop);
/* ---- messages (fabric_msg.c) ----
 * The one way a message crosses cable c: the sending end (the node whose
 * handler runs: c->src_node for MSG_CHAR, c->dst_node for MSG_CTRL) fills
 * m's payload; this sets m->t, phase, kind and ch and delivers it. */
void myri_fab_msg(myri_fabric *f, const fab_chan *c, uint64_t t, fab_phase ph, fab_msg_kind kind, fab_msg *m);
/* Delivery of a complete record in this process: its agenda event (with a
 * slab record for MSG_CHAR), keyed by the node whose handler runs. */
void myri_fab_msg_deliver(myri_fabric *f, const fab_msg *m);
/* The record of a message's event (EV_R_ARRIVE, EV_CTRL) as it was sent; an
 * EV_R_ARRIVE's slab index is freed. */
fab_msg myri_fab_msg_take(myri_fabric *f, const fab_ev *ev);
/* Slab records in use (messages whose event is pending). */
static inline uint32_t fab_msg_pending(const myri_fabric *f) { return f->msgs.n - f->msgs.nfree; }
void myri_fab_msg_fini(myri_fabric *f);
/* Tap buffer: make room for n bytes (false on ENOMEM). */
bool myri_fab_tap_reserve(fab_chan *c, size_t n);
/* The packet being tapped on c is over: report its first nbytes bytes. */
void myri_fab_tap_done(myri_fabric *f, fab_chan *c, size_t nbytes, bool truncated);
uint64_t myri_fab_mix(uint64_t x);
/* Output o is free from time t (>= now): arbitrate then if anybody waits. */
void myri_fab_release(myri_fabric *f, fab_chan *o, uint64_t t);
/* A host whose cable is cut: its queued packets are dropped "link_down". */
void myri_fab_host_drop_down(myri_fabric *f, fab_chan *c);
/* Host channel c starts its queue's next packet (first hop, its bit errors
 * drawn); the queue is first emptied if the link is down.  false: none. */
bool myri_fab_take_next(myri_fabric *f, fab_chan *c);

/* ---- ports (fabric_port.c) ---- */
myri_status myri_fab_ports_init(myri_fabric *f);
void myri_fab_notes_flush(myri_fabric *f);                 /* end of a pass: notices to engine events */
void myri_fab_notes_schedule(myri_fabric *f, fab_note *n); /* a FAB_ENG_NOTES event: its notices at now */
void myri_fab_note_deliver(myri_fabric *f, fab_note *n);
void myri_fab_notes_free(myri_fabric *f);
/* The byte at first-hop position pos as it is on hop `hop` (fast model). */
uint8_t myri_fab_pkt_byte(const fab_pkt *pkt, uint32_t hop, uint32_t pos);
void myri_fab_pkt_xor(myri_fabric *f, fab_pkt *pkt, uint32_t pos, uint32_t hop, uint8_t mask, uint8_t strip);
void myri_fab_pkt_fill(myri_fabric *f, fab_pkt *pkt, uint32_t upto);
/* The tail of a device's open packet is given with `data` bytes (route, type, payload): its length is known. */
void myri_fab_pkt_close(myri_fabric *f, fab_pkt *pkt, uint32_t data);
void myri_fab_port_tx_over(myri_fabric *f, fab_pkt *pkt, bool sent, myri_fabric_drop_reason reason);
void myri_fab_port_link(myri_fabric *f, fab_chan *c, bool up);
void myri_fab_port_link_due(myri_fabric *f, fab_chan *c, uint64_t epoch);
myri_port *myri_fab_dma_port(myri_fabric *f, const fab_chan *dma);
void myri_fab_port_grant(myri_fabric *f, fab_chan *in);
void myri_fab_port_write(myri_fabric *f, fab_chan *o, uint32_t upto, const uint8_t *byte, uint64_t first_ps);
uint32_t myri_fab_port_room(myri_fabric *f, const fab_chan *o, uint32_t j);
void myri_fab_port_rx_end(myri_fabric *f, fab_chan *o, myri_port_rx_end end);

/* ---- the two models ----
 * How characters move is the model's business: the core calls it through
 * this table, chosen once when the fabric is created (myri_fab_model_ref in
 * fabric_ref.c, myri_fab_model_fast in fabric_fast.c).  Entries marked "may be
 * NULL" are what only one model needs. */
typedef struct fab_model {
    const char *name;                                     /* "reference" or "fast" */
    uint32_t check_kind;                                  /* its slack-check event */
    bool carries_bytes;                                   /* packets always carry their bytes */
    void (*handle)(myri_fabric *f, const fab_ev *ev);     /* its own events */
    void (*wake)(myri_fabric *f, fab_chan *c);            /* sender c may send now */
    void (*sink)(myri_fabric *f, fab_chan *in);           /* the front packet of in is discarded */
    void (*granted)(myri_fabric *f, fab_chan *in, fab_chan *out);  /* arbitration gave out to in */
    fab_pkt *(*cut_wire)(myri_fabric *f, fab_chan *c);    /* cut: the packet partly received, or NULL */
    void (*reset_window)(myri_fabric *f);                 /* a new statistics window */
    void (*ctrl)(myri_fabric *f, fab_chan *c, bool stop); /* before the shared part; may be NULL */
    void (*track)(myri_fabric *f, fab_chan *in);          /* before a departure change; may be NULL */
    void (*cut_sender)(myri_fabric *f, fab_chan *c);      /* the sender's run stops now; may be NULL */
    uint32_t (*got)(myri_fabric *f, fab_chan *c, const fab_rxent *e); /* NULL: e->got is exact */
    void (*finish_stats)(myri_fabric *f);                 /* counters up to now; may be NULL */
    uint64_t (*extra_chars)(const myri_fabric *f, const fab_chan *c); /* not yet counted; may be NULL */
    void (*flush)(myri_fabric *f);                        /* end-of-instant checks; may be NULL */
    void (*check_due)(myri_fabric *f, uint32_t channel);  /* a predicted check; may be NULL */
    void (*dma_sync)(myri_fabric *f, fab_chan *o);        /* write what a DMA moved by now; may be NULL */
    /* what input u received of its front packet e has all left (FRES); may be NULL */
    void (*drained)(myri_fabric *f, fab_chan *u, const fab_rxent *e);
} fab_model;
extern const fab_model myri_fab_model_ref, myri_fab_model_fast;

/* The predicted-check queue (fast model). */
void myri_fab_cq_set(myri_fabric *f, uint32_t c, uint64_t t);
void myri_fab_cq_remove(myri_fabric *f, uint32_t c);
static inline uint64_t fab_cq_top_time(const myri_fabric *f) { return f->cq_top_at; }
void myri_fab_rx_recheck(myri_fabric *f, fab_chan *c);
/* FRES: output o frees its path once it has sent what its input received (fabric_switch.c). */
void myri_fab_try_terminate(myri_fabric *f, fab_chan *o);   /* re-evaluate the slack of input c now */

#endif
