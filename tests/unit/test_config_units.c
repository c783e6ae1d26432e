/* test_config_units.c -- values with units: every unit, exactness, overflow,
 * bare numbers, malformed text, and the canonical formatting. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "myri/config.h"

static uint64_t time_ok(const char *s, const char *bare)
{
    uint64_t ps = 12345;
    myri_error err;
    myri_status st = myri_parse_time(s, bare, &ps, &err);
    if (st != MYRI_OK) fail_msg("'%s' rejected: %s", s, err.msg);
    return ps;
}

/* Parses s expecting failure; the message must contain `word`. */
static void time_bad(const char *s, const char *bare, const char *word)
{
    uint64_t ps = 777;
    myri_error err;
    assert_int_equal(myri_parse_time(s, bare, &ps, &err), MYRI_EINPUT);
    assert_int_equal(ps, 777); /* untouched on error */
    if (!strstr(err.msg, word)) fail_msg("message for '%s' lacks '%s': %s", s, word, err.msg);
    assert_non_null(strstr(err.msg, "expected"));
}

static void test_time_units(void **state)
{
    (void)state;
    assert_int_equal(time_ok("7ps", NULL), 7);
    assert_int_equal(time_ok("3ns", NULL), 3000);
    assert_int_equal(time_ok("2us", NULL), 2000000);
    assert_int_equal(time_ok("50ms", NULL), 50000000000ULL);
    assert_int_equal(time_ok("1s", NULL), 1000000000000ULL);
    assert_int_equal(time_ok("12.5ns", NULL), 12500);
    assert_int_equal(time_ok(".5us", NULL), 500000);
    assert_int_equal(time_ok("1.000ps", NULL), 1);
    assert_int_equal(time_ok("0.001ns", NULL), 1);
    assert_int_equal(time_ok("1e3ns", NULL), 1000000);
    assert_int_equal(time_ok("15e-1ns", NULL), 1500);
    assert_int_equal(time_ok("  40 ns  ", NULL), 40000);
    assert_int_equal(time_ok("0", NULL), 0);
    assert_int_equal(time_ok("0.0", NULL), 0);
    assert_int_equal(time_ok("+5ns", NULL), 5000);
    /* largest representable: 2^64-1 ps */
    assert_true(time_ok("18446744073709551615ps", NULL) == UINT64_MAX);
    assert_true(time_ok("18446744.073709551615s", NULL) == UINT64_MAX);
}

static void test_time_bare_unit(void **state)
{
    (void)state;
    assert_int_equal(time_ok("550", "ns"), 550000);
    assert_int_equal(time_ok("2.5", "us"), 2500000);
    assert_int_equal(time_ok("3ps", "ns"), 3); /* an explicit unit wins */
    time_bad("550", NULL, "unit is missing");
    time_bad("550", "events", "unit is missing"); /* not a time unit */
    time_bad("550", "", "unit is missing");
}

static void test_time_errors(void **state)
{
    (void)state;
    time_bad("0.3ps", NULL, "not a whole number of picoseconds");
    time_bad("1.0005ns", NULL, "not a whole number");
    time_bad("18446744073709551616ps", NULL, "too large");
    time_bad("18446745s", NULL, "too large");
    time_bad("1e30s", NULL, "too large");
    time_bad("12345678901234567890123ps", NULL, "too large");
    time_bad("0.12345678901234567890123ns", NULL, "significant digits than fit");
    time_bad("-5ns", NULL, "negative");
    time_bad("fast", NULL, "a time such as 12.5ns");
    time_bad("5 lightyears", NULL, "unknown unit 'lightyears'");
    time_bad("5NS", NULL, "unknown unit");
    time_bad("5nss", NULL, "unknown unit");
    time_bad("", NULL, "expected a time");
    time_bad(".", NULL, "expected a time");
    time_bad("ns", NULL, "expected a time");
    time_bad("1.2.3ns", NULL, "unknown unit");
    time_bad("0x10ns", NULL, "unknown unit");
    uint64_t ps;
    myri_error err;
    assert_int_equal(myri_parse_time(NULL, NULL, &ps, &err), MYRI_EINPUT);
}

static void test_size(void **state)
{
    (void)state;
    myri_error err;
    uint64_t b = 0;
    struct {
        const char *s;
        uint64_t v;
    } ok[] = {
        {"1500B", 1500},         {"8KB", 8000},           {"2MB", 2000000},
        {"1GB", 1000000000},     {"128KiB", 131072},      {"1MiB", 1048576},
        {"1GiB", 1073741824ULL}, {"0.5KiB", 512},         {"1.5KB", 1500},
        {"0.25MiB", 262144},     {"3 GiB", 3221225472ULL}, {"0", 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (myri_parse_size(ok[i].s, NULL, &b, &err)) fail_msg("%s: %s", ok[i].s, err.msg);
        assert_true(b == ok[i].v);
    }
    assert_int_equal(myri_parse_size("64", "KiB", &b, &err), MYRI_OK);
    assert_int_equal(b, 65536);
    assert_int_equal(myri_parse_size("0.1B", NULL, &b, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "not a whole number of bytes"));
    assert_int_equal(myri_parse_size("0.001KiB", NULL, &b, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "not a whole number of bytes"));
    assert_int_equal(myri_parse_size("17179869184GiB", NULL, &b, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "too large"));
    assert_int_equal(myri_parse_size("16EB", NULL, &b, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "unknown unit 'EB'"));
    assert_int_equal(myri_parse_size("4096", NULL, &b, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "unit is missing"));
    assert_int_equal(myri_parse_size("-1KB", NULL, &b, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "negative"));
    assert_non_null(strstr(err.msg, "expected a size such as"));
}

static void test_rate(void **state)
{
    (void)state;
    myri_error err;
    double r = 0;
    struct {
        const char *s;
        double v;
    } ok[] = {
        {"640Mb/s", 640e6}, {"1.28Gb/s", 1.28e9}, {"2 Gb/s", 2e9}, {"56Kb/s", 56e3},
        {"9600b/s", 9600},  {"1B/s", 8},          {"1KB/s", 8e3},  {"160MB/s", 1.28e9},
        {"1GB/s", 8e9},     {"0", 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (myri_parse_rate(ok[i].s, NULL, &r, &err)) fail_msg("%s: %s", ok[i].s, err.msg);
        assert_true(fabs(r - ok[i].v) <= 1e-9 * ok[i].v);
    }
    assert_int_equal(myri_parse_rate("640", "Mb/s", &r, &err), MYRI_OK);
    assert_true(r == 640e6);
    assert_int_equal(myri_parse_rate("640", NULL, &r, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "unit is missing"));
    assert_int_equal(myri_parse_rate("640Mbps", NULL, &r, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "unknown unit 'Mbps'"));
    assert_int_equal(myri_parse_rate("-1Mb/s", NULL, &r, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "negative"));
    assert_int_equal(myri_parse_rate("1e400Gb/s", NULL, &r, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "too large"));
    assert_int_equal(myri_parse_rate("infGb/s", NULL, &r, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "expected a rate such as 640Mb/s"));
}

static void test_length(void **state)
{
    (void)state;
    myri_error err;
    double m = 0;
    assert_int_equal(myri_parse_length("25m", NULL, &m, &err), MYRI_OK);
    assert_true(m == 25);
    assert_int_equal(myri_parse_length("3.5cm", NULL, &m, &err), MYRI_OK);
    assert_true(fabs(m - 0.035) < 1e-15);
    assert_int_equal(myri_parse_length("10mm", NULL, &m, &err), MYRI_OK);
    assert_true(fabs(m - 0.01) < 1e-15);
    assert_int_equal(myri_parse_length("1.2km", NULL, &m, &err), MYRI_OK);
    assert_true(fabs(m - 1200) < 1e-9);
    assert_int_equal(myri_parse_length("7", "m", &m, &err), MYRI_OK);
    assert_true(m == 7);
    assert_int_equal(myri_parse_length("7", NULL, &m, &err), MYRI_EINPUT);
    assert_int_equal(myri_parse_length("7ft", NULL, &m, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "unknown unit 'ft'"));
    assert_non_null(strstr(err.msg, "expected a length such as 25m"));
}

static void test_int_double_bool(void **state)
{
    (void)state;
    myri_error err;
    int64_t i = 0;
    assert_int_equal(myri_parse_int("42", &i, &err), MYRI_OK);
    assert_int_equal(i, 42);
    assert_int_equal(myri_parse_int("-7", &i, &err), MYRI_OK);
    assert_int_equal(i, -7);
    assert_int_equal(myri_parse_int("9223372036854775807", &i, &err), MYRI_OK);
    assert_true(i == INT64_MAX);
    assert_int_equal(myri_parse_int("-9223372036854775808", &i, &err), MYRI_OK);
    assert_true(i == INT64_MIN);
    assert_int_equal(myri_parse_int("9223372036854775808", &i, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "too large"));
    const char *bad_int[] = {"", "1.5", "1e3", "0x10", "12abc", "--1", "+"};
    for (size_t k = 0; k < sizeof bad_int / sizeof bad_int[0]; k++) {
        assert_int_equal(myri_parse_int(bad_int[k], &i, &err), MYRI_EINPUT);
        assert_non_null(strstr(err.msg, "expected a whole number"));
    }

    double d = 0;
    assert_int_equal(myri_parse_double("0.25", &d, &err), MYRI_OK);
    assert_true(d == 0.25);
    assert_int_equal(myri_parse_double("-1e-3", &d, &err), MYRI_OK);
    assert_true(d == -1e-3);
    assert_int_equal(myri_parse_double("1e999", &d, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "not finite"));
    assert_int_equal(myri_parse_double("nan", &d, &err), MYRI_EINPUT);
    assert_int_equal(myri_parse_double("1.5x", &d, &err), MYRI_EINPUT);
    assert_int_equal(myri_parse_double("", &d, &err), MYRI_EINPUT);

    bool b = false;
    const char *yes[] = {"true", "yes", "on", "True", "YES"}, *no[] = {"false", "no", "off", "Off"};
    for (size_t k = 0; k < 5; k++) {
        b = false;
        assert_int_equal(myri_parse_bool(yes[k], &b, &err), MYRI_OK);
        assert_true(b);
    }
    for (size_t k = 0; k < 4; k++) {
        b = true;
        assert_int_equal(myri_parse_bool(no[k], &b, &err), MYRI_OK);
        assert_false(b);
    }
    assert_int_equal(myri_parse_bool("1", &b, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "bad value '1': expected true or false"));
    assert_int_equal(myri_parse_bool("truth", &b, &err), MYRI_EINPUT);
}

static void test_format_time(void **state)
{
    (void)state;
    char buf[64];
    struct {
        uint64_t ps;
        const char *s;
    } cases[] = {
        {0, "0"},           {7, "7ps"},           {12500, "12.5ns"},          {1000, "1ns"},
        {50000000000ULL, "50ms"}, {1500000, "1.5us"}, {1000000000001ULL, "1.000000000001s"},
        {999, "999ps"},     {2000000000000ULL, "2s"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        myri_format_time(cases[i].ps, buf, sizeof buf);
        assert_string_equal(buf, cases[i].s);
        /* the text parses back to the same value */
        uint64_t back;
        assert_int_equal(myri_parse_time(buf, NULL, &back, NULL), MYRI_OK);
        assert_true(back == cases[i].ps);
    }
    myri_format_time(UINT64_MAX, buf, sizeof buf);
    uint64_t back;
    assert_int_equal(myri_parse_time(buf, NULL, &back, NULL), MYRI_OK);
    assert_true(back == UINT64_MAX);
    myri_format_time(12500, buf, 4); /* truncated, still terminated */
    assert_int_equal(strlen(buf), 3);
}

/* Round trip on a deterministic pseudo-random sample of picosecond counts. */
static void test_time_roundtrip_random(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    char buf[64];
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t ps = x >> (x % 64);
        myri_format_time(ps, buf, sizeof buf);
        uint64_t back = 0;
        if (myri_parse_time(buf, NULL, &back, NULL) != MYRI_OK || back != ps)
            fail_msg("%llu -> '%s' -> %llu", (unsigned long long)ps, buf,
                     (unsigned long long)back);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_units),     cmocka_unit_test(test_time_bare_unit),
        cmocka_unit_test(test_time_errors),    cmocka_unit_test(test_size),
        cmocka_unit_test(test_rate),           cmocka_unit_test(test_length),
        cmocka_unit_test(test_int_double_bool), cmocka_unit_test(test_format_time),
        cmocka_unit_test(test_time_roundtrip_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
