/* crc.c -- CRC-8 (polynomial 0x07, as Myrinet's packet trailer) and CRC-32
 * (IEEE 802.3, reflected), bitwise and table-driven. */
#include "io.h"

static unsigned char crc8_bitwise(const unsigned char *p, int n)
{
    unsigned char c = 0;
    for (int i = 0; i < n; i++) {
        c ^= p[i];
        for (int b = 0; b < 8; b++) c = (unsigned char)(c & 0x80 ? (c << 1) ^ 0x07 : c << 1);
    }
    return c;
}

static unsigned crc32_table[256];

static void crc32_init(void)
{
    for (unsigned i = 0; i < 256; i++) {
        unsigned c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc32_table[i] = c;
    }
}

static unsigned crc32(const unsigned char *p, int n)
{
    unsigned c = 0xffffffffu;
    for (int i = 0; i < n; i++) c = crc32_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static unsigned char buf[1024];

int test_main(void)
{
    static const char check[] = "123456789";
    crc32_init();
    for (int i = 0; i < 1024; i++) buf[i] = (unsigned char)(i * 7 + (i >> 3));
    arg_t a[] = {crc8_bitwise((const unsigned char *)check, 9), crc32((const unsigned char *)check, 9),
                 crc8_bitwise(buf, 1024), crc32(buf, 1024), crc32(buf + 1, 1000)};
    out_fmt("crc8(check) %x crc32(check) %x crc8(buf) %x crc32(buf) %x crc32(buf+1) %x\n", a);
    return (int)(crc32(buf, 512) >> 1);
}
