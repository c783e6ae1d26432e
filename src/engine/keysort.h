/* keysort.h -- sorting a calendar bucket, for the two calendars: the
 * engine's pending set (sim.c) and the fabric's agenda (fabric_agenda.c). */
#ifndef MYRI_ENGINE_KEYSORT_H
#define MYRI_ENGINE_KEYSORT_H

#include <stddef.h>

__extension__ typedef unsigned __int128 myri_key128; /* time << 64 | the rest of the key */

/* Sorts the n 128-bit keys of a[] taken from a bucket's list, which holds them
 * in reverse order of insertion.  Events are mostly scheduled in key order:
 * reversed, the keys are nearly sorted and an insertion sort takes about one
 * pass. */
static inline void myri_keysort_list(myri_key128 *a, size_t n)
{
    for (size_t i = 0; i < n / 2; i++) {
        myri_key128 t = a[i];
        a[i] = a[n - 1 - i];
        a[n - 1 - i] = t;
    }
    for (size_t i = 1; i < n; i++) {
        myri_key128 k = a[i];
        size_t j = i;
        for (; j > 0 && k < a[j - 1]; j--) a[j] = a[j - 1];
        a[j] = k;
    }
}

/* MYRI_KEYSORT_DEFINE(name, T, LT) defines `static void name(T *a, size_t n)`,
 * which sorts n entries in any order by the strict order LT(x, y): insertion
 * sort for short runs, else quicksort on the median of three, recursing into
 * the smaller side.  The engine sorts its 20-byte entries with it (sim.c). */
#define MYRI_KEYSORT_DEFINE(name, T, LT)                                                                  \
    static void name(T *a, size_t n)                                                                      \
    {                                                                                                     \
        while (n > 24) {                                                                                  \
            T x = a[0], y = a[n / 2], z = a[n - 1];                                                       \
            T p = LT(x, y) ? (LT(y, z) ? y : (LT(x, z) ? z : x)) : (LT(x, z) ? x : (LT(y, z) ? z : y));   \
            size_t i = 0, j = n - 1;                                                                      \
            for (;;) {                                                                                    \
                while (LT(a[i], p)) i++;                                                                  \
                while (LT(p, a[j])) j--;                                                                  \
                if (i >= j) break;                                                                        \
                T t = a[i];                                                                               \
                a[i++] = a[j];                                                                            \
                a[j--] = t;                                                                               \
            }                                                                                             \
            if (j + 1 < n - j - 1) { /* a[0..j] <= p <= a[j+1..n-1] */                                    \
                name(a, j + 1);                                                                           \
                a += j + 1;                                                                               \
                n -= j + 1;                                                                               \
            } else {                                                                                      \
                name(a + j + 1, n - j - 1);                                                               \
                n = j + 1;                                                                                \
            }                                                                                             \
        }                                                                                                 \
        for (size_t i = 1; i < n; i++) {                                                                  \
            T k = a[i];                                                                                   \
            size_t j = i;                                                                                 \
            for (; j > 0 && LT(k, a[j - 1]); j--) a[j] = a[j - 1];                                        \
            a[j] = k;                                                                                     \
        }                                                                                                 \
    }

#endif
