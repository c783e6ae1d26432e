/* checksum.c -- the Internet checksum (RFC 1071) and Adler-32. */
#include "io.h"

static unsigned short inet_checksum(const unsigned char *p, int n)
{
    unsigned long sum = 0;
    for (int i = 0; i + 1 < n; i += 2) sum += (unsigned long)(p[i] << 8 | p[i + 1]);
    if (n & 1) sum += (unsigned long)p[n - 1] << 8;
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return (unsigned short)~sum;
}

static unsigned adler32(const unsigned char *p, int n)
{
    unsigned a = 1, b = 0;
    for (int i = 0; i < n; i++) {
        a = (a + p[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    return b << 16 | a;
}

static unsigned char pkt[777];

int test_main(void)
{
    unsigned x = 2463534242u;
    for (int i = 0; i < 777; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        pkt[i] = (unsigned char)x;
    }
    arg_t a[] = {inet_checksum(pkt, 777), inet_checksum(pkt, 20), adler32(pkt, 777),
                 adler32((const unsigned char *)"Wikipedia", 9)};
    out_fmt("inet %x inet20 %x adler %x adler(Wikipedia) %x\n", a);
    return inet_checksum(pkt, 100);
}
