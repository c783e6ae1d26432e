/* test_live_record.c -- what live mode reads from outside (src/live/record.c):
 * the record log written and read back record by record; a log cut anywhere,
 * a length past the end, an unknown kind, a run record with bytes: refused,
 * never read past the buffer; the command ring's entry check (kind, unit,
 * length, offset inside SRAM, no overflow of offset + length). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "live/live.h"
#include "live/shm.h"

/* A log of a run, a PIO write, a fetch, an attach, into a malloc'd buffer. */
static uint8_t *make_log(size_t *n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    const uint8_t bytes[5] = {1, 2, 3, 4, 5};
    assert_int_equal(myri_live_rec_header(f), 0);
    myri_live_rec r[4] = {{.kind = MYRI_LIVE_REC_RUN, .time_ps = 1000},
                          {.kind = MYRI_LIVE_REC_PIO, .host = 1, .addr = 0x1044, .len = 4, .time_ps = 1000, .data = bytes},
                          {.kind = MYRI_LIVE_REC_FETCH, .host = 0, .addr = 8192, .len = 5, .time_ps = 2000,
                           .data = bytes},
                          {.kind = MYRI_LIVE_REC_ATTACH, .host = 1, .addr = 4242, .time_ps = 3000}};
    for (int i = 0; i < 4; i++) assert_int_equal(myri_live_rec_write(f, &r[i]), 0);
    fclose(f);
    *n = len;
    return (uint8_t *)buf;
}

static void test_roundtrip(void **state)
{
    (void)state;
    size_t n;
    uint8_t *log = make_log(&n);
    long start = myri_live_rec_start(log, n);
    assert_int_equal(start, 8);
    size_t pos = (size_t)start;
    myri_live_rec r;
    assert_int_equal(myri_live_rec_next(log, n, &pos, &r), 1);
    assert_int_equal(r.kind, MYRI_LIVE_REC_RUN);
    assert_int_equal(r.time_ps, 1000);
    assert_int_equal(myri_live_rec_next(log, n, &pos, &r), 1);
    assert_int_equal(r.kind, MYRI_LIVE_REC_PIO);
    assert_int_equal(r.host, 1);
    assert_int_equal(r.addr, 0x1044);
    assert_int_equal(r.len, 4);
    assert_memory_equal(r.data, "\1\2\3\4", 4);
    assert_int_equal(myri_live_rec_next(log, n, &pos, &r), 1);
    assert_int_equal(r.kind, MYRI_LIVE_REC_FETCH);
    assert_int_equal(r.len, 5);
    assert_int_equal(r.time_ps, 2000);
    assert_int_equal(myri_live_rec_next(log, n, &pos, &r), 1);
    assert_int_equal(r.kind, MYRI_LIVE_REC_ATTACH);
    assert_int_equal(r.addr, 4242);
    assert_int_equal(myri_live_rec_next(log, n, &pos, &r), 0); /* the end */
    free(log);
}

/* Cut at every length: the records before the cut read, the cut one refused, nothing read past the end. */
static void test_cut_anywhere(void **state)
{
    (void)state;
    size_t n;
    uint8_t *log = make_log(&n);
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1); /* exactly cut bytes: ASan sees any read past them */
        memcpy(copy, log, cut);
        long start = myri_live_rec_start(copy, cut);
        if (cut < 8) {
            assert_int_equal(start, -1);
        } else {
            size_t pos = (size_t)start;
            myri_live_rec r;
            int k, got = 0;
            while ((k = myri_live_rec_next(copy, cut, &pos, &r)) == 1) got++;
            assert_true(got <= 4);
            assert_true(k == 0 || k == -1);
            assert_true(pos <= cut);
        }
        free(copy);
    }
    free(log);
}

static void test_bad_records(void **state)
{
    (void)state;
    size_t n;
    uint8_t *log = make_log(&n);
    myri_live_rec r;
    size_t pos;
    log[8] = 9; /* unknown kind */
    pos = 8;
    assert_int_equal(myri_live_rec_next(log, n, &pos, &r), -1);
    assert_int_equal(pos, 8);
    log[8] = MYRI_LIVE_REC_RUN;
    log[8 + 12] = 1; /* a run record with a byte */
    pos = 8;
    assert_int_equal(myri_live_rec_next(log, n, &pos, &r), -1);
    log[8 + 12] = 0;
    pos = 8;
    assert_int_equal(myri_live_rec_next(log, n, &pos, &r), 1);
    log[pos + 12] = 0xff; /* the PIO record's length past the end */
    log[pos + 15] = 0x7f;
    assert_int_equal(myri_live_rec_next(log, n, &pos, &r), -1);
    assert_int_equal(myri_live_rec_start((const uint8_t *)"MYRILOG2", 8), -1);
    assert_int_equal(myri_live_rec_start(NULL, 0), -1);
    free(log);
}

static void test_cmd_check(void **state)
{
    (void)state;
    myri_live_cmd c = {.kind = MYRI_LIVE_CMD_PIO_WRITE, .unit = 0, .sram_off = 0x1000, .len = 4};
    assert_int_equal(myri_live_cmd_check(&c, 1u << 20), 0);
    c.sram_off = (1u << 20) - 4;
    assert_int_equal(myri_live_cmd_check(&c, 1u << 20), 0); /* the last word */
    c.sram_off = (1u << 20) - 3;
    assert_int_equal(myri_live_cmd_check(&c, 1u << 20), -1); /* one byte past SRAM */
    c.sram_off = 0xfffffffeu;
    assert_int_equal(myri_live_cmd_check(&c, 1u << 20), -1); /* offset + length would wrap */
    c.sram_off = 0;
    c.len = 0;
    assert_int_equal(myri_live_cmd_check(&c, 1u << 20), -1);
    c.len = MYRI_LIVE_CMD_DATA + 1;
    assert_int_equal(myri_live_cmd_check(&c, 1u << 20), -1);
    c.len = MYRI_LIVE_CMD_DATA;
    assert_int_equal(myri_live_cmd_check(&c, 1u << 20), 0);
    c.unit = 1;
    assert_int_equal(myri_live_cmd_check(&c, 1u << 20), -1);
    c.unit = 0;
    c.kind = 7;
    assert_int_equal(myri_live_cmd_check(&c, 1u << 20), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_cut_anywhere),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_cmd_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
