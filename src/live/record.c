/* record.c -- the record log of a live run (live.h): a header, then records
 * of a fixed 24-byte little-endian header and their bytes.  The reader never
 * trusts the file: every length is checked against what is left. */
#include <string.h>

#include "live/live.h"
#include "live/shm.h"

static const char rec__magic[8] = {'M', 'Y', 'R', 'I', 'L', 'O', 'G', '1'};
enum { REC__HDR = 24, REC__MAX_LEN = 1u << 20 };

static void rec__put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void rec__put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t rec__get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rec__get64(const uint8_t *p) { return (uint64_t)rec__get32(p) | (uint64_t)rec__get32(p + 4) << 32; }

int myri_live_rec_header(FILE *f) { return fwrite(rec__magic, 1, sizeof rec__magic, f) == sizeof rec__magic ? 0 : -1; }

int myri_live_rec_write(FILE *f, const myri_live_rec *r)
{
    uint8_t h[REC__HDR];
    rec__put32(h, r->kind);
    rec__put32(h + 4, r->host);
    rec__put32(h + 8, r->addr);
    rec__put32(h + 12, r->len);
    rec__put64(h + 16, r->time_ps);
    if (fwrite(h, 1, sizeof h, f) != sizeof h) return -1;
    if (r->len && fwrite(r->data, 1, r->len, f) != r->len) return -1;
    return 0;
}

long myri_live_rec_start(const uint8_t *buf, size_t n)
{
    if (!buf || n < sizeof rec__magic || memcmp(buf, rec__magic, sizeof rec__magic) != 0) return -1;
    return (long)sizeof rec__magic;
}

int myri_live_rec_next(const uint8_t *buf, size_t n, size_t *pos, myri_live_rec *r)
{
    if (*pos > n) return -1;
    if (*pos == n) return 0;
    if (n - *pos < REC__HDR) return -1;
    const uint8_t *h = buf + *pos;
    r->kind = rec__get32(h);
    r->host = rec__get32(h + 4);
    r->addr = rec__get32(h + 8);
    r->len = rec__get32(h + 12);
    r->time_ps = rec__get64(h + 16);
    if (r->kind < MYRI_LIVE_REC_RUN || r->kind > MYRI_LIVE_REC_END || r->len > REC__MAX_LEN ||
        r->len > n - *pos - REC__HDR)
        return -1;
    if ((r->kind == MYRI_LIVE_REC_RUN || r->kind >= MYRI_LIVE_REC_ATTACH) && r->len != 0) return -1;
    r->data = h + REC__HDR;
    *pos += REC__HDR + r->len;
    return 1;
}

int myri_live_cmd_check(const myri_live_cmd *c, uint64_t sram_bytes)
{
    if (c->kind != MYRI_LIVE_CMD_PIO_WRITE || c->unit != 0) return -1;
    if (c->len == 0 || c->len > MYRI_LIVE_CMD_DATA) return -1;
    if (c->sram_off > sram_bytes || c->len > sram_bytes - c->sram_off) return -1;
    return 0;
}
