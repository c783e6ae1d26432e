/* misc.c -- printf-like output, struct copies (memcpy), memset, a switch
 * table, function pointers, recursion, popcount and bit scans. */
#include "io.h"

struct point { int x, y; char name[12]; };

static int ack(int m, int n)
{
    if (m == 0) return n + 1;
    if (n == 0) return ack(m - 1, 1);
    return ack(m - 1, ack(m, n - 1));
}

static int square(int v) { return v * v; }
static int negate(int v) { return -v; }
static int (*const ops[2])(int) = {square, negate};

static const char *name(int k)
{
    switch (k) {
    case 0: return "zero";
    case 1: return "one";
    case 2: return "two";
    case 3: return "three";
    case 4: return "four";
    case 5: return "five";
    case 6: return "six";
    default: return "many";
    }
}

int test_main(void)
{
    struct point p = {3, -4, "origin"}, q;
    q = p;
    q.x += 10;
    char zeros[40];
    for (int i = 0; i < 40; i++) zeros[i] = (char)i;
    __builtin_memset(zeros, 0, sizeof zeros);
    int z = 0;
    for (int i = 0; i < 40; i++) z += zeros[i];
    arg_t a[] = {q.x, q.y, (arg_t)(unsigned long)q.name, z, ack(2, 3), ops[0](12), ops[1](12)};
    out_fmt("q=(%d,%d) %s zeros %d ack %d sq %d neg %d\n", a);
    for (int k = 0; k < 9; k++) {
        arg_t b[] = {k, (arg_t)(unsigned long)name(k)};
        out_fmt("%d:%s ", b);
    }
    unsigned v = 0xf0f01234u;
    arg_t c[] = {__builtin_popcount(v), __builtin_clz(v >> 4), __builtin_ctz(v << 3), '!'};
    out_fmt("\npopc %d clz %d ctz %d%c\n", c);
    return ack(2, 2) * 100 + (int)__builtin_popcount(v);
}
