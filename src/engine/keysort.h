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

#endif
