/* fuzz_argv.h -- the command-line fuzz targets' input as argv: the bytes from
 * `start` split at NUL and newline bytes, after argv[0]. */
#ifndef MYRI_FUZZ_ARGV_H
#define MYRI_FUZZ_ARGV_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Fills argv[0] = a copy of argv0, then one word per piece of data[start..size)
 * (an empty piece is an empty word; the end closes the last piece), at most
 * max words in all, argv[argc] = NULL; returns argc.  Free with fz_argv_free. */
static inline int fz_argv_split(const uint8_t *data, size_t size, size_t start, const char *argv0, char **argv,
                                int max)
{
    int argc = 0;
    argv[argc++] = strdup(argv0);
    for (size_t i = start; i <= size && argc < max; i++) {
        if (i < size && data[i] != '\0' && data[i] != '\n') continue;
        char *a = malloc(i - start + 1);
        if (!a) break;
        memcpy(a, data + start, i - start);
        a[i - start] = '\0';
        argv[argc++] = a;
        start = i + 1;
    }
    argv[argc] = NULL;
    return argc;
}

static inline void fz_argv_free(char **argv, int argc)
{
    for (int i = 0; i < argc; i++) free(argv[i]);
}

#endif
