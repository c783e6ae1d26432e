/* hcb.h -- what seed 001's MCP and API share: the frame format, the Host
 * Communications Block (HCB) in SRAM, and the layout of the host's DMA
 * region.  The MCP (src/firmware/mcp*.c) builds the HCB; the API
 * (src/host/api0.c) reaches it only across the bus (PIO), so this header is
 * the whole contract between them.
 *
 * Byte order: every HCB word is stored big-endian (the LANai's order); the
 * API converts (seed 001: "multi-byte data items ... conditional code").
 * Every structure is word aligned (seed 001: "The PIO buffers and queue items
 * must be longword aligned").
 *
 * HCB layout (offsets from the HCB's SRAM address, which the MCP stores at
 * SRAM 0xC, MYRI_LANAI_HCB_PTR_ADDR; the API waits until it is non-zero):
 *
 *   header      MYRI_HCB_HDR_BYTES: signature, state, geometry (below)
 *   send chan   head, tail, sent, 1 spare word, then send_q entries
 *   PIO bufs    send_q x pio_bytes (the PIO buffer of entry i is buffer i)
 *   signature   MYRI_HCB_SIG_MID ("somewhere near the middle")
 *   recv chans  nchan x MYRI_HCB_RCHAN_BYTES
 *   routes      nroutes x (4 + route_max): length word, then the route bytes
 *               right-aligned to a word boundary (so the send DMA skips
 *               SA = round4(len) - len leading bytes, seed 001 figure 3)
 *   counters    MYRI_HCB_NCOUNT words: the MCP's drops by reason and totals
 *   signature   MYRI_HCB_SIG_END
 *
 * Queues are dual-pointer queues of N slots: empty when head == tail, full
 * when (tail + 1) % N == head (one slot is never used, seed 001).  The send
 * queue's head is written by the MCP only, its tail by the API only.
 */
#ifndef MYRI_COMMON_HCB_H
#define MYRI_COMMON_HCB_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- frame format (seed 001, figure 2; frame.h) ---------------------------
 * After the route: type (2 bytes, big-endian), subtype (1), channel (1),
 * payload.  So packet.type_bytes is 2 and the fabric's payload is
 * subtype, channel, application payload. */
#define MYRI_FRAME_TYPE_CRL 0x0370u      /* assigned to DEC CRL by Myricom (seed 001) */
#define MYRI_FRAME_SUBTYPE_API0_DATA 1u  /* FST_API0_DATA (seed 001) */
#define MYRI_FRAME_HDR_BYTES 4u          /* type 2 + subtype 1 + channel 1 */

/* ---- HCB header words (byte offsets) ------------------------------------- */
enum {
    MYRI_HCB_SIG_START_OFF = 0,   /* MYRI_HCB_SIG_START */
    MYRI_HCB_BYTES_OFF = 4,       /* total HCB bytes */
    MYRI_HCB_STATE_OFF = 8,       /* MCP state, MYRI_HCB_STATE_* */
    MYRI_HCB_HANDSHAKE_OFF = 12,  /* API writes a non-zero token */
    MYRI_HCB_HANDSHAKE_ACK_OFF = 16, /* the MCP copies the token here */
    MYRI_HCB_NCHAN_OFF = 20,      /* geometry, written by the MCP: */
    MYRI_HCB_SEND_Q_OFF = 24,
    MYRI_HCB_RECV_Q_OFF = 28,
    MYRI_HCB_NROUTES_OFF = 32,
    MYRI_HCB_ROUTE_MAX_OFF = 36,
    MYRI_HCB_PIO_BYTES_OFF = 40,  /* PIO buffer size: payloads up to this go by PIO (0: PIO off) */
    MYRI_HCB_MTU_OFF = 44,        /* largest application payload, bytes */
    MYRI_HCB_FLAGS_OFF = 48,      /* MYRI_HCB_F_* */
    MYRI_HCB_HDR_BYTES = 64
};
#define MYRI_HCB_SIG_START 0x48434231u /* "HCB1" */
#define MYRI_HCB_SIG_MID 0x4d494431u   /* "MID1" */
#define MYRI_HCB_SIG_END 0x454e4431u   /* "END1" */

/* MCP state (the handshake of seed 001 goes through it). */
#define MYRI_HCB_STATE_RESET 0u   /* not yet set up */
#define MYRI_HCB_STATE_READY 1u   /* HCB built, receive armed: the API may handshake */

/* Flags: the features the MCP runs with that the API must follow. */
#define MYRI_HCB_F_DMA_NOTIFY 0x1u /* receive counts are DMA'd to the channel's poll word in host memory */

/* ---- send channel ------------------------------------------------------------ */
enum {
    MYRI_HCB_SQ_HEAD = 0,   /* MCP: next entry it will take */
    MYRI_HCB_SQ_TAIL = 4,   /* API: next free entry */
    MYRI_HCB_SQ_SENT = 8,   /* MCP: packets done (tail sent or dropped), monotonic mod 2^32 */
    MYRI_HCB_SQ_HDR_BYTES = 16
};
/* A send queue entry (16 bytes). */
enum {
    MYRI_HCB_SE_ADDR = 0,   /* bus address of the payload in the host DMA region (unused for PIO) */
    MYRI_HCB_SE_LEN = 4,    /* application payload bytes */
    MYRI_HCB_SE_ROUTE = 8,  /* route id (0: no route, a point-to-point link) */
    MYRI_HCB_SE_CHAN = 12,  /* low 16 bits: destination channel; high 16: MYRI_HCB_SE_F_* */
    MYRI_HCB_SE_BYTES = 16
};
#define MYRI_HCB_SE_F_PIO 0x1u /* the payload is in this entry's PIO buffer */

/* ---- receive channels (32 bytes each) ---------------------------------------- */
enum {
    MYRI_HCB_RC_ENABLED = 0,   /* API: 1 once init_recv_chan set it up */
    MYRI_HCB_RC_HOST_ADDR = 4, /* API: bus address of slot 0 (recv_q slots of slot_bytes) */
    MYRI_HCB_RC_SLOT_BYTES = 8,/* API */
    MYRI_HCB_RC_PUT = 12,      /* MCP: packets delivered, monotonic; the next goes to slot put % recv_q */
    MYRI_HCB_RC_FREED = 16,    /* API: slots given back, monotonic; room = recv_q - 1 - (put - freed) */
    MYRI_HCB_RC_POLL_ADDR = 20,/* API: bus address of the poll word (DMA notification) */
    MYRI_HCB_RCHAN_BYTES = 32
};

/* A receive slot in host memory: the MCP DMAs [length word][frame header]
 * [payload][CRC byte] into it, the length word last (so a slot whose count
 * was announced is complete). */
enum {
    MYRI_SLOT_LEN = 0,       /* application payload bytes, big-endian */
    MYRI_SLOT_HDR = 4,       /* the frame header as received */
    MYRI_SLOT_PAYLOAD = 8,
    MYRI_SLOT_OVERHEAD = 12  /* slot bytes = payload max + this (len, header, CRC byte, padding) */
};

/* ---- MCP counters (words after the route table) ------------------------------- */
enum myri_hcb_count {
    MYRI_HCB_C_RX_GOOD = 0,        /* packets delivered into a channel */
    MYRI_HCB_C_DROP_POOL_FULL,     /* rx pool full: the packet is received into the spare buffer and dropped */
    MYRI_HCB_C_DROP_CRC,           /* stored CRC byte not zero */
    MYRI_HCB_C_DROP_TOO_LONG,      /* BUFF_INT: longer than an rx pool buffer */
    MYRI_HCB_C_DROP_TYPE,          /* type is not 0x0370 (also misrouted packets: a route byte first) */
    MYRI_HCB_C_DROP_SUBTYPE,       /* subtype is not FST_API0_DATA */
    MYRI_HCB_C_DROP_CHAN,          /* channel number out of range or channel not enabled */
    MYRI_HCB_C_DROP_SHORT,         /* shorter than a frame header */
    MYRI_HCB_C_TX_SENT,            /* packets whose tail left */
    MYRI_HCB_C_TX_DROPPED,         /* packets the port dropped at the host (link down, timeout) */
    MYRI_HCB_C_HELD,               /* times a packet waited in the rx pool for room in its channel */
    MYRI_HCB_NCOUNT
};

/* The geometry the MCP chooses and writes into the header. */
typedef struct myri_hcb_geom {
    uint32_t nchan, send_q, recv_q, nroutes, route_max, pio_bytes, mtu;
} myri_hcb_geom;

static inline uint32_t myri_hcb_round4(uint32_t n) { return (n + 3u) & ~3u; }
static inline uint32_t myri_hcb_sendq_off(const myri_hcb_geom *g) { (void)g; return MYRI_HCB_HDR_BYTES; }
static inline uint32_t myri_hcb_sentry_off(const myri_hcb_geom *g, uint32_t i)
{
    return myri_hcb_sendq_off(g) + MYRI_HCB_SQ_HDR_BYTES + i * MYRI_HCB_SE_BYTES;
}
static inline uint32_t myri_hcb_pio_off(const myri_hcb_geom *g, uint32_t i)
{
    return myri_hcb_sentry_off(g, g->send_q) + i * myri_hcb_round4(g->pio_bytes);
}
static inline uint32_t myri_hcb_sig_mid_off(const myri_hcb_geom *g) { return myri_hcb_pio_off(g, g->send_q); }
static inline uint32_t myri_hcb_rchan_off(const myri_hcb_geom *g, uint32_t c)
{
    return myri_hcb_sig_mid_off(g) + 4u + c * MYRI_HCB_RCHAN_BYTES;
}
static inline uint32_t myri_hcb_route_off(const myri_hcb_geom *g, uint32_t r)
{
    return myri_hcb_rchan_off(g, g->nchan) + r * (4u + myri_hcb_round4(g->route_max));
}
static inline uint32_t myri_hcb_count_off(const myri_hcb_geom *g, uint32_t k)
{
    return myri_hcb_route_off(g, g->nroutes) + 4u * k;
}
static inline uint32_t myri_hcb_sig_end_off(const myri_hcb_geom *g) { return myri_hcb_count_off(g, MYRI_HCB_NCOUNT); }
static inline uint32_t myri_hcb_bytes(const myri_hcb_geom *g) { return myri_hcb_sig_end_off(g) + 4u; }

/* Big-endian words in a byte buffer (SRAM or host memory). */
static inline uint32_t myri_be32_get(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void myri_be32_put(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

#ifdef __cplusplus
}
#endif

#endif
