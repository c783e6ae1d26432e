/* sort.c -- quicksort and insertion sort on several widths. */
#include "io.h"

static unsigned seed = 12345;
static unsigned rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
}

static void qsort_int(int *a, int lo, int hi)
{
    while (lo < hi) {
        int p = a[(lo + hi) / 2], i = lo, j = hi;
        while (i <= j) {
            while (a[i] < p) i++;
            while (a[j] > p) j--;
            if (i <= j) {
                int t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (j - lo < hi - i) {
            qsort_int(a, lo, j);
            lo = i;
        } else {
            qsort_int(a, i, hi);
            hi = j;
        }
    }
}

static void isort_u16(unsigned short *a, int n)
{
    for (int i = 1; i < n; i++) {
        unsigned short v = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

static void isort_s8(signed char *a, int n)
{
    for (int i = 1; i < n; i++) {
        signed char v = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

static int ints[400];
static unsigned short shorts[200];
static signed char bytes[150];

int test_main(void)
{
    for (int i = 0; i < 400; i++) ints[i] = (int)rnd() - (1 << 23);
    for (int i = 0; i < 200; i++) shorts[i] = (unsigned short)rnd();
    for (int i = 0; i < 150; i++) bytes[i] = (signed char)rnd();
    qsort_int(ints, 0, 399);
    isort_u16(shorts, 200);
    isort_s8(bytes, 150);
    int sorted = 1;
    unsigned h = 0;
    for (int i = 1; i < 400; i++) sorted &= ints[i - 1] <= ints[i];
    for (int i = 1; i < 200; i++) sorted &= shorts[i - 1] <= shorts[i];
    for (int i = 1; i < 150; i++) sorted &= bytes[i - 1] <= bytes[i];
    for (int i = 0; i < 400; i++) h = h * 31u + (unsigned)ints[i];
    for (int i = 0; i < 200; i++) h = h * 31u + shorts[i];
    for (int i = 0; i < 150; i++) h = h * 31u + (unsigned)bytes[i];
    arg_t a[] = {ints[0], ints[399], shorts[0], shorts[199], bytes[0], bytes[149], sorted, h};
    out_fmt("int %d..%d u16 %u..%u s8 %d..%d sorted %d hash %x\n", a);
    return sorted ? (int)(h & 0x7fffffff) : -1;
}
