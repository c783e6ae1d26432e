/* units.c -- numbers with units: time, rate, size, length; int, double, bool.
 *
 * Time and size are exact: the decimal text is read digit by digit into an
 * integer mantissa and a power of ten, then scaled by the unit with integer
 * arithmetic, so "12.5ns" is exactly 12500 ps and "0.3ps" is an error (not
 * a whole number of picoseconds) instead of a rounded value.  Rate and
 * length are doubles (strtod on the number).  A number may carry an
 * exponent ("1e3ns"); whitespace may separate it from its unit ("640 Mb/s").
 *
 * Units (case-sensitive):
 *   time    ps ns us ms s                                  -> uint64 ps
 *   rate    b/s Kb/s Mb/s Gb/s (x1000); B/s KB/s MB/s GB/s (8 bits a byte) -> bit/s
 *   size    B KB MB GB (x1000); KiB MiB GiB (x1024)        -> uint64 bytes
 *   length  mm cm m km                                     -> metres
 * A double parameter whose unit is "B/s" (bus.dma_rate, host.copy_rate) or
 * "Hz" (nic.clock) takes the byte-rate units (B/s KB/s MB/s GB/s, or bits:
 * b/s .. Gb/s, divided by 8) or Hz kHz MHz GHz; a plain number is in its
 * unit, as before, and the value is kept and echoed as that plain number.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

/* A unit: name, power of ten and power of 1024 (size) or a double factor. */
typedef struct unit_def {
    const char *name;
    int pow10;
    int pow1024;
    double factor;
} unit_def;

static const unit_def time_units[] = {
    {"ps", 0, 0, 1e0}, {"ns", 3, 0, 1e3}, {"us", 6, 0, 1e6}, {"ms", 9, 0, 1e9}, {"s", 12, 0, 1e12},
};
static const unit_def size_units[] = {
    {"B", 0, 0, 1},      {"KB", 3, 0, 1e3},   {"MB", 6, 0, 1e6},        {"GB", 9, 0, 1e9},
    {"KiB", 0, 1, 1024}, {"MiB", 0, 2, 1048576.0}, {"GiB", 0, 3, 1073741824.0},
};
static const unit_def rate_units[] = {
    {"b/s", 0, 0, 1},    {"Kb/s", 0, 0, 1e3},  {"Mb/s", 0, 0, 1e6},  {"Gb/s", 0, 0, 1e9},
    {"B/s", 0, 0, 8},    {"KB/s", 0, 0, 8e3},  {"MB/s", 0, 0, 8e6},  {"GB/s", 0, 0, 8e9},
};
/* A byte rate (a double parameter in bytes/s, unit "B/s"): the rate units
 * scaled to bytes (factor / 8: exact, a power of two). */
static const unit_def byte_rate_units[] = {
    {"b/s", 0, 0, 1.0 / 8}, {"Kb/s", 0, 0, 1e3 / 8}, {"Mb/s", 0, 0, 1e6 / 8}, {"Gb/s", 0, 0, 1e9 / 8},
    {"B/s", 0, 0, 1},       {"KB/s", 0, 0, 1e3},     {"MB/s", 0, 0, 1e6},     {"GB/s", 0, 0, 1e9},
};
static const unit_def freq_units[] = {
    {"Hz", 0, 0, 1}, {"kHz", 0, 0, 1e3}, {"KHz", 0, 0, 1e3}, {"MHz", 0, 0, 1e6}, {"GHz", 0, 0, 1e9},
};
static const unit_def length_units[] = {
    {"mm", 0, 0, 1e-3}, {"cm", 0, 0, 1e-2}, {"m", 0, 0, 1}, {"km", 0, 0, 1e3},
};

#define NUNITS(a) (sizeof(a) / sizeof((a)[0]))

static const char expect_time[] = "a time such as 12.5ns, 50ms (units ps, ns, us, ms, s)";
static const char expect_size[] =
    "a size such as 1500B, 8KB, 128KiB (units B, KB, MB, GB, KiB, MiB, GiB)";
static const char expect_rate[] = "a rate such as 640Mb/s, 1.28Gb/s, 160MB/s (units b/s, "
                                  "Kb/s, Mb/s, Gb/s, B/s, KB/s, MB/s, GB/s)";
static const char expect_byte_rate[] = "a rate such as 120MB/s, 85.891e6 (bytes/s), 960Mb/s (units B/s, KB/s, "
                                       "MB/s, GB/s, b/s, Kb/s, Mb/s, Gb/s; a plain number is in B/s)";
static const char expect_freq[] = "a frequency such as 33MHz, 33e6 (units Hz, kHz, MHz, GHz; a plain number is in Hz)";
static const char expect_length[] = "a length such as 25m, 3.5cm (units mm, cm, m, km)";

const char *myri_cfg_expect(myri_ptype t)
{
    switch (t) {
    case MYRI_P_BOOL: return "true or false (also yes/no, on/off)";
    case MYRI_P_INT: return "a whole number such as 42 or -7";
    case MYRI_P_DOUBLE: return "a number such as 0.25 or 1e-3";
    case MYRI_P_TIME: return expect_time;
    case MYRI_P_RATE: return expect_rate;
    case MYRI_P_SIZE: return expect_size;
    case MYRI_P_LENGTH: return expect_length;
    case MYRI_P_STRING: return "a text value";
    case MYRI_P_ENUM: return "one of the listed names";
    case MYRI_P_NODE: return "a list or mapping";
    case MYRI_P_UINT: return "a whole number from 0 to 18446744073709551615";
    }
    return "a value";
}

/* ---- the number ------------------------------------------------------------------ */

/* A decimal number as read: value = mant * 10^exp10 (trailing zeros moved
 * into exp10); too_many_digits when the significant digits exceed 64 bits. */
typedef struct num_text {
    bool neg;
    bool too_many_digits;
    uint64_t mant;
    long exp10;
    const char *start, *end; /* the number's text */
} num_text;

/* Reads [+-]digits[.digits][(e|E)[+-]digits] at s; returns false if no digit. */
static bool num__scan(const char *s, num_text *nt)
{
    memset(nt, 0, sizeof *nt);
    while (isspace((unsigned char)*s)) s++;
    nt->start = s;
    if (*s == '+' || *s == '-') nt->neg = *s++ == '-';
    int ndig = 0, sig = 0; /* sig: a non-zero digit was seen */
    long zeros = 0; /* significant zeros not yet added to mant */
    bool frac = false;
    for (;; s++) {
        if (*s == '.' && !frac) {
            frac = true;
            continue;
        }
        if (!isdigit((unsigned char)*s)) break;
        ndig++;
        int d = *s - '0';
        if (frac) nt->exp10--;
        if (d == 0) {
            if (sig) zeros++;
            continue;
        }
        /* flush pending zeros, then the digit */
        for (; zeros > 0; zeros--) {
            if (nt->mant > UINT64_MAX / 10) nt->too_many_digits = true;
            else nt->mant *= 10;
        }
        if (nt->mant > (UINT64_MAX - (uint64_t)d) / 10) nt->too_many_digits = true;
        else nt->mant = nt->mant * 10 + (uint64_t)d;
        sig = 1;
    }
    if (ndig == 0) return false;
    nt->exp10 += zeros; /* trailing zeros of the mantissa */
    if (*s == 'e' || *s == 'E') {
        const char *e = s + 1;
        bool eneg = false;
        if (*e == '+' || *e == '-') eneg = *e++ == '-';
        if (isdigit((unsigned char)*e)) {
            long ev = 0;
            for (; isdigit((unsigned char)*e); e++)
                if (ev < 100000) ev = ev * 10 + (*e - '0');
            nt->exp10 += eneg ? -ev : ev;
            s = e;
        }
    }
    nt->end = s;
    return true;
}

static const char *skip_space(const char *s)
{
    while (isspace((unsigned char)*s)) s++;
    return s;
}

/* Length of the unit text after a number (up to trailing space). */
static size_t unit_len(const char *u)
{
    size_t k = strlen(u);
    while (k > 0 && isspace((unsigned char)u[k - 1])) k--;
    return k;
}

static const unit_def *unit__find(const unit_def *units, size_t n, const char *u, size_t k)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(units[i].name) == k && memcmp(units[i].name, u, k) == 0) return &units[i];
    return NULL;
}

static myri_status fail(char *why, size_t n, const char *reason, const char *expect)
{
    if (why && n) {
        if (reason) snprintf(why, n, "%s; expected %s", reason, expect);
        else snprintf(why, n, "expected %s", expect);
    }
    return MYRI_EINPUT;
}

/* Splits s into number and unit; resolves a missing unit from `bare`.
 * *unit = NULL means "no unit and the value is zero". */
static myri_status num__split(const char *s, const char *bare, const unit_def *units, size_t nu,
                              const char *expect, num_text *nt, const unit_def **unit,
                              char *why, size_t n)
{
    if (!s) return fail(why, n, "no value", expect);
    if (!num__scan(s, nt)) return fail(why, n, NULL, expect);
    const char *u = skip_space(nt->end);
    size_t k = unit_len(u);
    *unit = NULL;
    if (k == 0) {
        if (bare) *unit = unit__find(units, nu, bare, strlen(bare));
        if (!*unit && (nt->mant != 0 || nt->too_many_digits))
            return fail(why, n, "the unit is missing", expect);
        return MYRI_OK;
    }
    *unit = unit__find(units, nu, u, k);
    if (!*unit) {
        char reason[96], shown[CFG__SHOW_MAX + 4];
        myri_cfg_show(u, shown, sizeof shown);
        snprintf(reason, sizeof reason, "unknown unit '%s'", shown);
        return fail(why, n, reason, expect);
    }
    return MYRI_OK;
}

/* mant * 2^e2 * 5^e5 exactly into *out; false if not an integer or too large.
 * *inexact tells which. */
static bool exact_scale(uint64_t mant, long e2, long e5, uint64_t *out, bool *inexact)
{
    *inexact = false;
    if (mant == 0) {
        *out = 0;
        return true;
    }
    for (; e5 < 0; e5++) {
        if (mant % 5) return *inexact = true, false;
        mant /= 5;
    }
    for (; e2 < 0; e2++) {
        if (mant % 2) return *inexact = true, false;
        mant /= 2;
    }
    for (; e5 > 0; e5--) {
        if (mant > UINT64_MAX / 5) return false;
        mant *= 5;
    }
    for (; e2 > 0; e2--) {
        if (mant > UINT64_MAX / 2) return false;
        mant *= 2;
    }
    *out = mant;
    return true;
}

/* Shared body of time and size: exact unsigned integer in the base unit. */
static myri_status parse_exact(const char *s, const char *bare, const unit_def *units,
                               size_t nu, const char *expect, const char *base, uint64_t *out,
                               char *why, size_t n)
{
    num_text nt;
    const unit_def *u;
    myri_status st = num__split(s, bare, units, nu, expect, &nt, &u, why, n);
    if (st) return st;
    if (nt.neg && nt.mant != 0) return fail(why, n, "negative", expect);
    long e10 = nt.exp10 + (u ? u->pow10 : 0);
    if (nt.too_many_digits)
        return fail(why, n, e10 >= 0 ? "too large" : "more significant digits than fit in 64 bits",
                    expect);
    long e2 = e10 + (u ? 10L * u->pow1024 : 0);
    bool inexact;
    uint64_t v;
    if (!exact_scale(nt.mant, e2, e10, &v, &inexact)) {
        char reason[96];
        if (inexact) snprintf(reason, sizeof reason, "not a whole number of %s", base);
        else snprintf(reason, sizeof reason, "too large (the limit is %llu %s)",
                      (unsigned long long)UINT64_MAX, base);
        return fail(why, n, reason, expect);
    }
    *out = v;
    return MYRI_OK;
}

/* Shared body of rate and length: a finite non-negative double. */
static myri_status parse_real(const char *s, const char *bare, const unit_def *units, size_t nu,
                              const char *expect, double *out, char *why, size_t n)
{
    num_text nt;
    const unit_def *u;
    myri_status st = num__split(s, bare, units, nu, expect, &nt, &u, why, n);
    if (st) return st;
    size_t k = (size_t)(nt.end - nt.start);
    char buf[128];
    if (k >= sizeof buf) return fail(why, n, "the number is too long", expect);
    memcpy(buf, nt.start, k);
    buf[k] = '\0';
    double v = strtod(buf, NULL) * (u ? u->factor : 1.0);
    if (!isfinite(v)) return fail(why, n, "too large", expect);
    if (v < 0) return fail(why, n, "negative", expect);
    *out = v == 0 ? 0.0 : v; /* no -0 */
    return MYRI_OK;
}

myri_status myri_cfg_parse_time(const char *s, const char *bare, uint64_t *ps, char *why, size_t n)
{
    return parse_exact(s, bare, time_units, NUNITS(time_units), expect_time, "picoseconds", ps,
                       why, n);
}

myri_status myri_cfg_parse_size(const char *s, const char *bare, uint64_t *bytes, char *why,
                            size_t n)
{
    return parse_exact(s, bare, size_units, NUNITS(size_units), expect_size, "bytes", bytes,
                       why, n);
}

myri_status myri_cfg_parse_rate(const char *s, const char *bare, double *bps, char *why, size_t n)
{
    return parse_real(s, bare, rate_units, NUNITS(rate_units), expect_rate, bps, why, n);
}

myri_status myri_cfg_parse_length(const char *s, const char *bare, double *m, char *why, size_t n)
{
    return parse_real(s, bare, length_units, NUNITS(length_units), expect_length, m, why, n);
}

myri_status myri_cfg_parse_double(const char *s, double *v, char *why, size_t n)
{
    static const char expect[] = "a number such as 0.25 or 1e-3";
    if (!s || !*skip_space(s)) return fail(why, n, NULL, expect);
    char *end;
    double d = strtod(s, &end);
    if (end == s || *skip_space(end)) return fail(why, n, NULL, expect);
    if (!isfinite(d)) return fail(why, n, "not finite", expect);
    *v = d;
    return MYRI_OK;
}

myri_status myri_cfg_parse_double_unit(const char *s, const char *unit, double *v, char *why, size_t n)
{
    if (unit && !strcmp(unit, "B/s"))
        return parse_real(s, "B/s", byte_rate_units, NUNITS(byte_rate_units), expect_byte_rate, v, why, n);
    if (unit && !strcmp(unit, "Hz"))
        return parse_real(s, "Hz", freq_units, NUNITS(freq_units), expect_freq, v, why, n);
    return myri_cfg_parse_double(s, v, why, n);
}

myri_status myri_cfg_parse_int(const char *s, int64_t *v, char *why, size_t n)
{
    static const char expect[] = "a whole number such as 42 or -7";
    if (!s) return fail(why, n, NULL, expect);
    s = skip_space(s);
    bool neg = false;
    if (*s == '+' || *s == '-') neg = *s++ == '-';
    if (!isdigit((unsigned char)*s)) return fail(why, n, NULL, expect);
    uint64_t mag = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    bool over = false;
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (mag > (lim - d) / 10) over = true;
        else mag = mag * 10 + d;
    }
    if (*skip_space(s)) return fail(why, n, NULL, expect);
    if (over) return fail(why, n, "too large (the range is -9223372036854775808 to "
                                  "9223372036854775807)", expect);
    *v = neg ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
    return MYRI_OK;
}

myri_status myri_cfg_parse_uint(const char *s, uint64_t *v, char *why, size_t n)
{
    static const char expect[] = "a whole number from 0 to 18446744073709551615";
    if (!s) return fail(why, n, NULL, expect);
    s = skip_space(s);
    if (*s == '+') s++;
    if (!isdigit((unsigned char)*s)) return fail(why, n, NULL, expect);
    uint64_t mag = 0;
    bool over = false;
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (mag > (UINT64_MAX - d) / 10) over = true;
        else mag = mag * 10 + d;
    }
    if (*skip_space(s)) return fail(why, n, NULL, expect);
    if (over) return fail(why, n, "too large", expect);
    *v = mag;
    return MYRI_OK;
}

static bool word_eq(const char *s, size_t k, const char *w)
{
    if (strlen(w) != k) return false;
    for (size_t i = 0; i < k; i++)
        if (tolower((unsigned char)s[i]) != w[i]) return false;
    return true;
}

myri_status myri_cfg_parse_bool(const char *s, bool *v, char *why, size_t n)
{
    static const char expect[] = "true or false (also yes/no, on/off)";
    static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
    if (!s) return fail(why, n, NULL, expect);
    s = skip_space(s);
    size_t k = unit_len(s);
    for (size_t i = 0; i < 3; i++) {
        if (word_eq(s, k, yes[i])) return *v = true, MYRI_OK;
        if (word_eq(s, k, no[i])) return *v = false, MYRI_OK;
    }
    return fail(why, n, NULL, expect);
}

/* ---- public wrappers -------------------------------------------------------------- */

static myri_status wrap(myri_status st, const char *s, const char *why, myri_error *err)
{
    if (st == MYRI_OK) return MYRI_OK;
    char shown[CFG__SHOW_MAX + 4];
    myri_cfg_show(s, shown, sizeof shown);
    return myri_error_at(err, NULL, "bad value '%s': %s", shown, why);
}

myri_status myri_parse_time(const char *s, const char *bare_unit, uint64_t *ps, myri_error *err)
{
    char why[256];
    uint64_t v = 0;
    myri_status st = wrap(myri_cfg_parse_time(s, bare_unit, &v, why, sizeof why), s, why, err);
    if (!st && ps) *ps = v;
    return st;
}

myri_status myri_parse_rate(const char *s, const char *bare_unit, double *bps, myri_error *err)
{
    char why[256];
    double v = 0;
    myri_status st = wrap(myri_cfg_parse_rate(s, bare_unit, &v, why, sizeof why), s, why, err);
    if (!st && bps) *bps = v;
    return st;
}

myri_status myri_parse_size(const char *s, const char *bare_unit, uint64_t *bytes, myri_error *err)
{
    char why[256];
    uint64_t v = 0;
    myri_status st = wrap(myri_cfg_parse_size(s, bare_unit, &v, why, sizeof why), s, why, err);
    if (!st && bytes) *bytes = v;
    return st;
}

myri_status myri_parse_length(const char *s, const char *bare_unit, double *m, myri_error *err)
{
    char why[256];
    double v = 0;
    myri_status st = wrap(myri_cfg_parse_length(s, bare_unit, &v, why, sizeof why), s, why, err);
    if (!st && m) *m = v;
    return st;
}

myri_status myri_parse_double(const char *s, double *v, myri_error *err)
{
    char why[256];
    double d = 0;
    myri_status st = wrap(myri_cfg_parse_double(s, &d, why, sizeof why), s, why, err);
    if (!st && v) *v = d;
    return st;
}

myri_status myri_parse_int(const char *s, int64_t *v, myri_error *err)
{
    char why[256];
    int64_t i = 0;
    myri_status st = wrap(myri_cfg_parse_int(s, &i, why, sizeof why), s, why, err);
    if (!st && v) *v = i;
    return st;
}

myri_status myri_parse_bool(const char *s, bool *v, myri_error *err)
{
    char why[256];
    bool b = false;
    myri_status st = wrap(myri_cfg_parse_bool(s, &b, why, sizeof why), s, why, err);
    if (!st && v) *v = b;
    return st;
}

/* ---- formatting ----------------------------------------------------------------------- */

void myri_format_time(uint64_t ps, char *buf, size_t len)
{
    if (!buf || len == 0) return;
    if (ps == 0) {
        snprintf(buf, len, "0");
        return;
    }
    size_t i = NUNITS(time_units) - 1;
    uint64_t scale = 1000000000000ULL;
    while (i > 0 && ps < scale) {
        i--;
        scale /= 1000;
    }
    uint64_t whole = ps / scale, frac = ps % scale;
    if (frac == 0) {
        snprintf(buf, len, "%llu%s", (unsigned long long)whole, time_units[i].name);
        return;
    }
    int digits = time_units[i].pow10;
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    snprintf(buf, len, "%llu.%0*llu%s", (unsigned long long)whole, digits,
             (unsigned long long)frac, time_units[i].name);
}

void myri_cfg_format_size(uint64_t bytes, char *buf, size_t len)
{
    static const int order[] = {6, 3, 5, 2, 4, 1}; /* GiB GB MiB MB KiB KB */
    if (!buf || len == 0) return;
    for (size_t i = 0; i < NUNITS(order) && bytes; i++) {
        const unit_def *u = &size_units[order[i]];
        uint64_t f = (uint64_t)u->factor;
        if (bytes % f == 0) {
            snprintf(buf, len, "%llu%s", (unsigned long long)(bytes / f), u->name);
            return;
        }
    }
    snprintf(buf, len, "%lluB", (unsigned long long)bytes);
}

/* The largest unit in which |v| >= 1 (the smallest when v is tiny). */
static void format_real(double v, const unit_def *units, size_t nu, char *buf, size_t len)
{
    if (!buf || len == 0) return;
    size_t i = nu - 1;
    while (i > 0 && fabs(v) < units[i].factor) i--;
    if (v == 0) snprintf(buf, len, "0");
    else snprintf(buf, len, "%.10g%s", v / units[i].factor, units[i].name);
}

void myri_cfg_format_rate(double bps, char *buf, size_t len)
{
    format_real(bps, rate_units, 4, buf, len); /* bit units only */
}

void myri_cfg_format_length(double m, char *buf, size_t len)
{
    format_real(m, length_units, NUNITS(length_units), buf, len);
}
