/* packet.h -- Myrinet packet bytes and the CRC-8 trailer (seed 002, Figure 4),
 * packet ids and packet types: what the fabric, the NIC, its firmware and the
 * host share about a packet.
 *
 * A packet on a channel is: the route bytes still ahead (MSB 1 each), the
 * packet type (type_bytes bytes, big-endian, MSB of the first byte 0), the
 * payload, one CRC-8 trailer byte, then the GAP control symbol.
 *
 * CRC: the polynomial is not given by any source we have (myrinet-facts 1.4:
 * it is in ANSI/VITA 26-1998, unread); ASSUMPTION: x^8+x^2+x+1 (0x07, the
 * ATM HEC polynomial of the [U] recollection), initial value 0, no
 * reflection, no final XOR -- the plain polynomial remainder, so that the
 * remainder of (bytes || trailer) is 0 for a good packet, which is what GM's
 * LANai sees ("the stored CRC byte is zero for a good packet").  The
 * polynomial is a parameter (packet.crc_poly).
 *
 * Incremental update at a switch (facts 1.4): when the leading byte r of an
 * n-byte packet (trailer included) is stripped, the switch XORs
 * rem(r * x^(8(n-1))) into the trailer.  By linearity the remainder of the
 * outgoing packet equals the remainder of the incoming one, so an error on
 * any hop leaves the same non-zero syndrome at the destination ("incorrect in
 * the same bit positions", seed 002).
 */
#ifndef MYRI_COMMON_PACKET_H
#define MYRI_COMMON_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define MYRI_PACKET_STATIC_ASSERT static_assert
extern "C" {
#else
#define MYRI_PACKET_STATIC_ASSERT _Static_assert
#endif

/* ---- packet ids ---------------------------------------------------------------
 * A packet id names one packet for the whole run: the index of the host that
 * created it in the high 24 bits, its sequence number at that host (from 0,
 * in creation order) in the low 40 bits.  Ids travel beside the packet (the
 * simulator's bookkeeping, faults, reports); they are not bytes on the wire,
 * except that a payload not given by the caller is derived from the id
 * (myri_packet_payload_byte). */
#define MYRI_PACKET_ID_SEQ_BITS 40u
#define MYRI_PACKET_ID_SEQ_MAX ((UINT64_C(1) << MYRI_PACKET_ID_SEQ_BITS) - 1u) /* 2^40 - 1 */
#define MYRI_PACKET_ID_HOST_MAX ((UINT32_C(1) << (64u - MYRI_PACKET_ID_SEQ_BITS)) - 1u) /* 2^24 - 1 */
MYRI_PACKET_STATIC_ASSERT(MYRI_PACKET_ID_SEQ_BITS > 0 && MYRI_PACKET_ID_SEQ_BITS < 64,
               "a packet id holds both a host index and a sequence number");

/* The id of packet `seq` (<= MYRI_PACKET_ID_SEQ_MAX) of host `host`
 * (<= MYRI_PACKET_ID_HOST_MAX). */
static inline uint64_t myri_packet_id(uint32_t host, uint64_t seq)
{
    return (uint64_t)host << MYRI_PACKET_ID_SEQ_BITS | (seq & MYRI_PACKET_ID_SEQ_MAX);
}
/* The host index of an id. */
static inline uint32_t myri_packet_id_host(uint64_t id) { return (uint32_t)(id >> MYRI_PACKET_ID_SEQ_BITS); }
/* The sequence number of an id at its host. */
static inline uint64_t myri_packet_id_seq(uint64_t id) { return id & MYRI_PACKET_ID_SEQ_MAX; }

/* ---- packet types ---------------------------------------------------------------
 * After the route bytes come the packet type's bytes (packet.type_bytes of
 * them, big-endian): 4 in the standard typing scheme (ANSI/VITA 26-1998 3.4,
 * via Myricom's "Packet Types" page), 2 in GM ("the Myrinet packet types
 * required in the first 2 bytes of every packet").  Seed 002: the MSB of a
 * header byte tells to-switch bytes (1) from to-host bytes (0), so the first
 * type byte has MSB 0; a packet whose first type byte has MSB 1 reaches its
 * host as a route byte and is dropped as misrouted.
 *
 * Known values, all 16-bit (myrinet-facts 1.3, markers as there: [V] read in
 * the source, [S] from a seed).  How a 16-bit value sits in a 4-byte type is
 * not known; ASSUMPTION: the low bytes (0x00000005), as the fabric writes it.  No source
 * confirms the "0x0004 = IP, 0x0005 = mapping" assignment sometimes quoted:
 * treat any such reading as [U]nverified. */
#define MYRI_PACKET_TYPE_MAX_BYTES 4u
MYRI_PACKET_STATIC_ASSERT(sizeof(uint32_t) == MYRI_PACKET_TYPE_MAX_BYTES, "a packet type is held in a uint32_t");
enum {
    MYRI_PACKET_TYPE_MYRI_DATA = 0x0005,   /* [V] Cplant MCP.h MyriData, pre-GM Myricom data (that it carried
                                            * IP and Myrinet API data is [U]); default traffic.type */
    MYRI_PACKET_TYPE_MYRI_MAP = 0x0006,    /* [V] Cplant MCP.h MyriMap, the old Myricom MCP's mapping */
    MYRI_PACKET_TYPE_MYRI_PROBE = 0x0007,  /* [V] Cplant MCP.h MyriProbe */
    MYRI_PACKET_TYPE_MYRI_OPTION = 0x0008, /* [V] Cplant MCP.h MyriOption; conflicts with GM below */
    MYRI_PACKET_TYPE_GM = 0x0008,          /* [V] gm_types.h GM_PACKET_TYPE (GM-2) */
    MYRI_PACKET_TYPE_GM_ETHERNET = 0x0009, /* [V] gm_types.h GM_ETHERNET_PACKET_TYPE */
    MYRI_PACKET_TYPE_GM_MAPPING = 0x700f,  /* [V] gm_types.h GM_MAPPING_PACKET_TYPE */
    MYRI_PACKET_TYPE_DEC_CRL = 0x0370,     /* [S] S001: type assigned to DEC CRL (then subtype, channel) */
    MYRI_PACKET_TYPE_PORTALS = 0x0800      /* [V] Cplant MCP.h: Sandia's Portals traffic */
};

/* True if `type` can be sent as a `type_bytes`-byte type (1..4 bytes): it
 * fits in that many bytes and its first byte has MSB 0, i.e.
 * type < 2^(8 type_bytes - 1). */
static inline bool myri_packet_type_valid(uint32_t type, size_t type_bytes)
{
    if (type_bytes == 0 || type_bytes > MYRI_PACKET_TYPE_MAX_BYTES) return false;
    return (uint64_t)type < (UINT64_C(1) << (8u * type_bytes - 1u));
}

typedef struct myri_crc8 {
    uint8_t poly;
    uint8_t table[256]; /* remainder of (b * x^8) for each byte b */
    uint8_t slice[8][256]; /* slice[k][b]: remainder of (b * x^(8k)) (0: b itself, 1: table) */
} myri_crc8;

void myri_crc8_init(myri_crc8 *c, uint8_t poly);
/* Remainder of (crc * x^(8 len) + bytes) -- feed 0 to start.  Eight bytes
 * a step by slicing: rem(crc x^64 + b0 x^56 + ... + b7) = table[slice[7][crc]] ^
 * slice[7][b0] ^ ... ^ slice[1][b6] ^ b7, eight independent look-ups. */
uint8_t myri_crc8_update(const myri_crc8 *c, uint8_t crc, const uint8_t *bytes, size_t len);
/* Remainder of (r * x^8). */
static inline uint8_t myri_crc8_mulx8(const myri_crc8 *c, uint8_t r) { return c->table[r]; }
/* Remainder of (r * x^(8k)); O(log k). */
uint8_t myri_crc8_shift(const myri_crc8 *c, uint8_t r, uint64_t k);
/* The trailer to XOR when stripping leading byte r from n bytes (trailer
 * included): rem(r * x^(8(n-1))). */
static inline uint8_t myri_crc8_strip_delta(const myri_crc8 *c, uint8_t r, uint64_t n)
{
    return myri_crc8_shift(c, r, n - 1);
}

/* Payload byte i of a packet whose payload was not given: a deterministic
 * function of the packet id (splitmix64 of id ^ i/8, byte i%8). */
uint8_t myri_packet_payload_byte(uint64_t id, uint64_t i);

/* Writes the first-hop bytes of a packet into out (route_len + type_bytes +
 * payload_bytes + 1 bytes): route, type (big-endian), payload (given or
 * derived from id), CRC trailer.  Returns the number of bytes written. */
size_t myri_packet_build(const myri_crc8 *c, uint64_t id, const uint8_t *route, size_t route_len,
                         uint32_t type, size_t type_bytes, const uint8_t *payload,
                         size_t payload_bytes, uint8_t *out);

#ifdef __cplusplus
}
#endif

#endif
