/* packet.h -- Myrinet packet bytes and the CRC-8 trailer (seed 002, Figure 4).
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

#include <stddef.h>
#include <stdint.h>

typedef struct myri_crc8 {
    uint8_t poly;
    uint8_t table[256]; /* remainder of (b * x^8) for each byte b */
} myri_crc8;

void myri_crc8_init(myri_crc8 *c, uint8_t poly);
/* Remainder of (crc * x^(8 len) + bytes) -- feed 0 to start. */
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

#endif
