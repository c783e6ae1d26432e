/* via.h -- the VIA host interface: what the firmwares `lcp` and `myricom`
 * (src/firmware/) and the VIA API (src/host/via_api.c) share.  The whole
 * contract between them, as hcb.h is for seed 001's MCP.
 *
 * Sources: seed 004 section 3 (doorbells, descriptors and data: "Doorbells
 * are processed by HDMA to produce descriptors, and descriptors in turn are
 * processed by HDMA to obtain data"); seed 000 (Berkeley VIA's LCP).  The
 * layouts below are ours (Berkeley VIA's own are not public, myrinet-facts
 * section 7); they keep what the seeds describe: the host rings a doorbell in
 * SRAM, the NIC fetches the descriptor from host memory by host DMA, then the
 * data, sends it, and writes the completion back into the descriptor.
 *
 * Byte order: every word below is big-endian (the LANai's order), in SRAM and
 * in host-memory descriptors alike; the API converts.
 *
 * ---- host memory (the board's DMA region) ---------------------------------
 * descriptors  MYRI_VIA_DESC_BYTES each, word aligned, anywhere in the region
 * data         anywhere in the region (word aligned)
 *
 * ---- SRAM: the VIA control block (VCB) ------------------------------------
 * The firmware builds it and stores its address at SRAM 0xC
 * (MYRI_LANAI_HCB_PTR_ADDR), then sets STATE to READY.  Offsets from the VCB:
 *   header      MYRI_VIA_HDR_BYTES (below)
 *   send doorbell ring      head (firmware), tail (host), 2 spare words, then
 *                           sdb_n entries of MYRI_VIA_DB_BYTES
 *   receive doorbell ring   the same with rdb_n entries
 *   routes      nroutes x (4 + round4(route_max)): length word, then the
 *               route bytes right-aligned to a word boundary (the firmware
 *               copies them before the frame header and the send DMA skips
 *               SA = round4(len) - len leading bytes); route r is the route to
 *               host index r; the length word is MYRI_VIA_ROUTE_VALID | length
 *               (0: no route; a valid route may be empty: back to back)
 *   counters    MYRI_VIA_NCOUNT words, the firmware's figures
 *   signature   MYRI_VIA_SIG_END
 * Rings are dual-pointer queues of N slots: empty when head == tail, full
 * when (tail + 1) % N == head.  The host writes an entry, then the tail.
 *
 * ---- a send -----------------------------------------------------------------
 * 1. The program writes a send descriptor (CTRL = SEND, ADDR, LEN, DEST) in
 *    host memory with STATUS 0, then rings the send doorbell: a PIO write of
 *    {descriptor bus address, VI} into the next slot of the send ring, then
 *    of the ring's tail word.
 * 2. The firmware sees the doorbell (seed 004 class 1, LANai), fetches the
 *    descriptor by host DMA into SRAM (HDMA: class 1 becomes class 2), reads
 *    it (LANai, class 2), fetches the data by host DMA into an SRAM buffer
 *    (HDMA: class 2 becomes class 3), programs the send DMA with the route,
 *    the frame header and the data (LANai, class 3; NSDMA).
 * 3. When the tail has left, the firmware writes the completion: one to-host
 *    DMA of the descriptor's last MYRI_VIA_DONE_BYTES bytes (DONE_LEN,
 *    DONE_SRC, spare, STATUS), STATUS last.
 *
 * ---- a receive ----------------------------------------------------------------
 * The program posts receive descriptors (CTRL = RECV, ADDR, LEN = buffer bytes)
 * for a VI through the receive doorbell ring.  The firmware keeps the posted
 * descriptors of each VI in order.  A frame for VI v goes into the oldest
 * descriptor posted for v: the data by to-host DMA into ADDR, then the
 * completion as for a send (DONE_LEN = bytes received, DONE_SRC = sender).
 * A frame for a VI with no posted descriptor is dropped and counted
 * (DROP_NO_DESC): VIA's unreliable service; longer than the buffer: dropped
 * (DROP_TOO_LONG) and the descriptor completed with STATUS_TRUNC and no data.
 *
 * ---- the frame on the wire ----------------------------------------------------
 * route bytes | type (2 bytes, MYRI_VIA_TYPE) | dst VI (1) | flags (1) |
 * src host (2) | src VI (1) | 0 (1) | data.  packet.type_bytes = 2; the
 * header is MYRI_VIA_FRAME_HDR_BYTES (8, type included) so the data starts
 * word aligned.
 */
#ifndef MYRI_COMMON_VIA_H
#define MYRI_COMMON_VIA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MyriData, the old Myricom MCP's data type (Cplant; myrinet-facts 1.3).
 * Berkeley VIA's own type value is not public: assumption that it used the
 * data type of the Myricom software it shipped beside. */
#define MYRI_VIA_TYPE 0x0005u
#define MYRI_VIA_FRAME_HDR_BYTES 8u
enum {
    MYRI_VIA_FH_TYPE = 0,     /* 2 bytes */
    MYRI_VIA_FH_DST_VI = 2,
    MYRI_VIA_FH_FLAGS = 3,
    MYRI_VIA_FH_SRC_HOST = 4, /* 2 bytes */
    MYRI_VIA_FH_SRC_VI = 6,
};

/* ---- VCB header (byte offsets) ---------------------------------------------- */
enum {
    MYRI_VIA_SIG_START_OFF = 0,  /* MYRI_VIA_SIG_START */
    MYRI_VIA_BYTES_OFF = 4,      /* total VCB bytes */
    MYRI_VIA_STATE_OFF = 8,      /* MYRI_VIA_STATE_* */
    MYRI_VIA_HOST_ID_OFF = 12,   /* host: this host's index (the API writes it at init) */
    MYRI_VIA_NVI_OFF = 16,       /* geometry, written by the firmware: VIs per NIC */
    MYRI_VIA_SDB_N_OFF = 20,     /* send ring slots */
    MYRI_VIA_RDB_N_OFF = 24,     /* receive ring slots */
    MYRI_VIA_NROUTES_OFF = 28,
    MYRI_VIA_ROUTE_MAX_OFF = 32,
    MYRI_VIA_MTU_OFF = 36,       /* largest message, bytes */
    MYRI_VIA_FW_OFF = 40,        /* which firmware: MYRI_VIA_FW_* (informational) */
    MYRI_VIA_HDR_BYTES = 64
};
#define MYRI_VIA_SIG_START 0x56494131u /* "VIA1" */
#define MYRI_VIA_ROUTE_VALID 0x80000000u /* in a route's length word */
#define MYRI_VIA_SIG_END 0x56454e44u   /* "VEND" */
#define MYRI_VIA_STATE_RESET 0u
#define MYRI_VIA_STATE_READY 1u
#define MYRI_VIA_FW_LCP 1u
#define MYRI_VIA_FW_MYRICOM 2u

/* ---- doorbell rings ------------------------------------------------------------- */
enum {
    MYRI_VIA_RING_HEAD = 0,   /* firmware: next slot it will take */
    MYRI_VIA_RING_TAIL = 4,   /* host: next free slot */
    MYRI_VIA_RING_HDR_BYTES = 16
};
enum {
    MYRI_VIA_DB_DESC = 0,     /* bus address of the descriptor in host memory */
    MYRI_VIA_DB_VI = 4,       /* the VI (send: the sender's; receive: the VI the buffer is for) */
    MYRI_VIA_DB_BYTES = 8
};

/* ---- descriptors in host memory ---------------------------------------------------- */
enum {
    MYRI_VIA_D_CTRL = 0,      /* host: MYRI_VIA_OP_* */
    MYRI_VIA_D_ADDR = 4,      /* host: bus address of the data */
    MYRI_VIA_D_LEN = 8,       /* host: send: bytes to send; receive: buffer bytes */
    MYRI_VIA_D_DEST = 12,     /* host, send: destination host index << 8 | destination VI */
    MYRI_VIA_D_DONE_LEN = 16, /* firmware: bytes sent / received */
    MYRI_VIA_D_DONE_SRC = 20, /* firmware, receive: source host index << 8 | source VI */
    MYRI_VIA_D_SPARE = 24,
    MYRI_VIA_D_STATUS = 28,   /* host writes 0 when posting; the firmware writes MYRI_VIA_STATUS_* last */
    MYRI_VIA_DESC_BYTES = 32
};
#define MYRI_VIA_DONE_OFF MYRI_VIA_D_DONE_LEN
#define MYRI_VIA_DONE_BYTES 16u
#define MYRI_VIA_OP_SEND 1u
#define MYRI_VIA_OP_RECV 2u
#define MYRI_VIA_STATUS_POSTED 0u
#define MYRI_VIA_STATUS_DONE 1u     /* sent (tail left) / received */
#define MYRI_VIA_STATUS_TRUNC 2u    /* receive: the frame was longer than the buffer (dropped) */
#define MYRI_VIA_STATUS_BAD 3u      /* the descriptor was invalid (op, length, address, VI) */
#define MYRI_VIA_STATUS_NOROUTE 4u  /* send: no route to the destination */

/* ---- counters (words after the route table) ------------------------------------------- */
enum myri_via_count {
    MYRI_VIA_C_RX_GOOD = 0,   /* frames delivered into a receive descriptor */
    MYRI_VIA_C_DROP_CRC,      /* CRC byte not zero */
    MYRI_VIA_C_DROP_NO_DESC,  /* no receive descriptor posted for the VI */
    MYRI_VIA_C_DROP_TOO_LONG, /* longer than the posted buffer or the SRAM buffer */
    MYRI_VIA_C_DROP_TYPE,     /* type not MYRI_VIA_TYPE (also misrouted packets) */
    MYRI_VIA_C_DROP_VI,       /* VI out of range */
    MYRI_VIA_C_DROP_SHORT,    /* shorter than a frame header */
    MYRI_VIA_C_TX_SENT,       /* frames whose tail left */
    MYRI_VIA_C_TX_DROPPED,    /* sends abandoned: bad descriptor, no route */
    MYRI_VIA_C_DOORBELLS,     /* doorbells taken (send and receive) */
    MYRI_VIA_NCOUNT
};

typedef struct myri_via_geom {
    uint32_t nvi, sdb_n, rdb_n, nroutes, route_max, mtu;
} myri_via_geom;

static inline uint32_t myri_via_round4(uint32_t n) { return (n + 3u) & ~3u; }
static inline uint32_t myri_via_sring_off(const myri_via_geom *g) { (void)g; return MYRI_VIA_HDR_BYTES; }
static inline uint32_t myri_via_rring_off(const myri_via_geom *g)
{
    return myri_via_sring_off(g) + MYRI_VIA_RING_HDR_BYTES + g->sdb_n * MYRI_VIA_DB_BYTES;
}
/* Slot i of the ring at ring_off. */
static inline uint32_t myri_via_db_off(uint32_t ring_off, uint32_t i)
{
    return ring_off + MYRI_VIA_RING_HDR_BYTES + i * MYRI_VIA_DB_BYTES;
}
static inline uint32_t myri_via_route_off(const myri_via_geom *g, uint32_t r)
{
    return myri_via_rring_off(g) + MYRI_VIA_RING_HDR_BYTES + g->rdb_n * MYRI_VIA_DB_BYTES +
           r * (4u + myri_via_round4(g->route_max));
}
static inline uint32_t myri_via_count_off(const myri_via_geom *g, uint32_t k)
{
    return myri_via_route_off(g, g->nroutes) + 4u * k;
}
static inline uint32_t myri_via_sig_end_off(const myri_via_geom *g) { return myri_via_count_off(g, MYRI_VIA_NCOUNT); }
static inline uint32_t myri_via_bytes(const myri_via_geom *g) { return myri_via_sig_end_off(g) + 4u; }

#ifdef __cplusplus
}
#endif

#endif
