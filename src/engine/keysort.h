/* keysort.h -- sorting a calendar bucket's keys, for the two calendars: the
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

/* Sorts n keys in any order: insertion sort for short runs, else quicksort
 * on the median of three, recursing into the smaller side. */
static inline void myri_keysort(myri_key128 *a, size_t n)
{
    while (n > 24) {
        size_t m = n / 2;
        myri_key128 x = a[0], y = a[m], z = a[n - 1];
        myri_key128 p = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        size_t i = 0, j = n - 1;
        for (;;) {
            while (a[i] < p) i++;
            while (p < a[j]) j--;
            if (i >= j) break;
            myri_key128 t = a[i];
            a[i] = a[j];
            a[j] = t;
            i++;
            j--;
        }
        /* a[0..j] <= p <= a[j+1..n-1] */
        if (j + 1 < n - j - 1) {
            myri_keysort(a, j + 1);
            a += j + 1;
            n -= j + 1;
        } else {
            myri_keysort(a + j + 1, n - j - 1);
            n = j + 1;
        }
    }
    for (size_t i = 1; i < n; i++) {
        myri_key128 k = a[i];
        size_t j = i;
        for (; j > 0 && k < a[j - 1]; j--) a[j] = a[j - 1];
        a[j] = k;
    }
}

#endif
