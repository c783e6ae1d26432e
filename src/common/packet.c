/* packet.c -- CRC-8 and packet bytes (see packet.h for the assumptions). */
#include "common/packet.h"

#include <string.h>

#include "myri/rng.h"

void myri_crc8_init(myri_crc8 *c, uint8_t poly)
{
    c->poly = poly;
    for (unsigned b = 0; b < 256; b++) {
        uint8_t r = (uint8_t)b;
        for (int k = 0; k < 8; k++) r = (uint8_t)((r & 0x80u) ? (uint8_t)(r << 1) ^ poly : (uint8_t)(r << 1));
        c->table[b] = r;
    }
    for (unsigned b = 0; b < 256; b++) {
        c->slice[0][b] = (uint8_t)b;
        for (unsigned k = 1; k < 8; k++) c->slice[k][b] = c->table[c->slice[k - 1][b]];
    }
}

uint8_t myri_crc8_update(const myri_crc8 *c, uint8_t crc, const uint8_t *bytes, size_t len)
{
    /* rem(crc * x^8 + b) = table[crc] ^ b for the MSB-first remainder with
     * the byte appended: rem((crc*x^8 + b)) where crc has degree < 8. */
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        const uint8_t *b = bytes + i;
        crc = (uint8_t)(c->table[c->slice[7][crc]] ^ c->slice[7][b[0]] ^ c->slice[6][b[1]] ^ c->slice[5][b[2]] ^
                        c->slice[4][b[3]] ^ c->slice[3][b[4]] ^ c->slice[2][b[5]] ^ c->slice[1][b[6]] ^ b[7]);
    }
    for (; i < len; i++) crc = (uint8_t)(c->table[crc] ^ bytes[i]);
    return crc;
}

uint8_t myri_crc8_shift(const myri_crc8 *c, uint8_t r, uint64_t k)
{
    /* x^(8k) mod P by square-and-multiply on the polynomial ring, then the
     * product with r.  Small: k < 2^32 in practice. */
    uint8_t result = r;
    /* Multiply by x^8 k times via repeated squaring of the multiplier m. */
    uint8_t m = c->table[1]; /* x^8 mod P */
    while (k) {
        if (k & 1) {
            /* result = result * m mod P (carry-less multiply, reduce). */
            uint8_t acc = 0, a = result;
            for (int bit = 7; bit >= 0; bit--) {
                acc = (uint8_t)((acc & 0x80u) ? (uint8_t)(acc << 1) ^ c->poly : (uint8_t)(acc << 1));
                if ((m >> bit) & 1u) acc ^= a;
            }
            result = acc;
        }
        uint8_t acc = 0;
        for (int bit = 7; bit >= 0; bit--) {
            acc = (uint8_t)((acc & 0x80u) ? (uint8_t)(acc << 1) ^ c->poly : (uint8_t)(acc << 1));
            if ((m >> bit) & 1u) acc ^= m;
        }
        m = acc;
        k >>= 1;
    }
    return result;
}

uint8_t myri_packet_payload_byte(uint64_t id, uint64_t i)
{
    uint64_t s = id * 0x9e3779b97f4a7c15ull ^ (i >> 3);
    uint64_t v = myri_splitmix64(&s);
    return (uint8_t)(v >> (8 * (i & 7u)));
}

size_t myri_packet_build(const myri_crc8 *c, uint64_t id, const uint8_t *route, size_t route_len,
                         uint32_t type, size_t type_bytes, const uint8_t *payload,
                         size_t payload_bytes, uint8_t *out)
{
    size_t n = 0;
    if (route_len) memcpy(out, route, route_len);
    n += route_len;
    for (size_t k = 0; k < type_bytes; k++)
        out[n++] = (uint8_t)(type >> (8 * (type_bytes - 1 - k)));
    for (size_t i = 0; i < payload_bytes; i++)
        out[n++] = payload ? payload[i] : myri_packet_payload_byte(id, i);
    /* Trailer t = rem(M * x^8): then rem(M * x^8 + t) = 0. */
    out[n] = myri_crc8_mulx8(c, myri_crc8_update(c, 0, out, n));
    return n + 1;
}
