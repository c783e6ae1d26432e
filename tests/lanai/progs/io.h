/* io.h -- output for the test programs run on the LANai (`myri lanai run
 * --entry test_main`) and natively (cc, with native_main.c): one character
 * sink, and a printf-like formatter without varargs (arguments in an array:
 * %d signed, %u unsigned, %x hex, %s string, %c character, %% percent). */
#ifndef LANAI_TEST_IO_H
#define LANAI_TEST_IO_H

#ifdef __lanai__
#include "lanai.h"
#define out_char(c) lanai_putchar(c)
#else
#include <stdio.h>
#define out_char(c) putchar(c)
#endif

typedef long long arg_t;

static inline void out_str(const char *s)
{
    while (*s) out_char(*s++);
}

static inline void out_u(unsigned long long v, unsigned base)
{
    char buf[24];
    int n = 0;
    do {
        unsigned d = (unsigned)(v % base);
        buf[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        v /= base;
    } while (v);
    while (n) out_char(buf[--n]);
}

static inline void out_fmt(const char *f, const arg_t *a)
{
    for (; *f; f++) {
        if (*f != '%') {
            out_char(*f);
            continue;
        }
        f++;
        if (*f == 'd') {
            arg_t v = *a++;
            if (v < 0) {
                out_char('-');
                out_u(0ull - (unsigned long long)v, 10);
            } else {
                out_u((unsigned long long)v, 10);
            }
        } else if (*f == 'u') {
            out_u((unsigned long long)*a++, 10);
        } else if (*f == 'x') {
            out_u((unsigned long long)*a++, 16);
        } else if (*f == 's') {
            out_str((const char *)(unsigned long)*a++);
        } else if (*f == 'c') {
            out_char((int)*a++);
        } else {
            out_char(*f);
            if (!*f) return;
        }
    }
}

int test_main(void);

#endif
