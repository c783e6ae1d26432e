/* libcalls.c -- the helpers clang's Lanai backend calls (found by compiling
 * every operator at -O0..-Os: __mulsi3, __divsi3, __udivsi3, __modsi3,
 * __umodsi3, __muldi3, __divdi3, __udivdi3, __moddi3, __umoddi3, __ashrdi3,
 * memcpy, memset; __ashldi3, __lshrdi3 and memmove for completeness).
 * Written with 32-bit operations only (shift-and-add, restoring division) so
 * that no helper calls another it would recurse into.  Compiled with
 * -fno-builtin. */
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;
typedef __SIZE_TYPE__ size_t;

int __mulsi3(int a, int b);
int __divsi3(int a, int b);
unsigned __udivsi3(unsigned a, unsigned b);
int __modsi3(int a, int b);
unsigned __umodsi3(unsigned a, unsigned b);
i64 __muldi3(i64 a, i64 b);
i64 __divdi3(i64 a, i64 b);
u64 __udivdi3(u64 a, u64 b);
i64 __moddi3(i64 a, i64 b);
u64 __umoddi3(u64 a, u64 b);
i64 __ashrdi3(i64 a, int s);
i64 __ashldi3(i64 a, int s);
u64 __lshrdi3(u64 a, int s);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);

static u32 mul32(u32 a, u32 b)
{
    u32 r = 0;
    while (b) {
        if (b & 1u) r += a;
        a <<= 1;
        b >>= 1;
    }
    return r;
}

/* Unsigned 32-bit division: quotient, remainder in *rem (b != 0). */
static u32 udivmod32(u32 a, u32 b, u32 *rem)
{
    u32 q = 0, r = 0;
    if (b == 0) {
        *rem = a;
        return 0xffffffffu;
    }
    for (int i = 31; i >= 0; i--) {
        r = (r << 1) | ((a >> i) & 1u);
        if (r >= b) {
            r -= b;
            q |= 1u << i;
        }
    }
    *rem = r;
    return q;
}

int __mulsi3(int a, int b) { return (int)mul32((u32)a, (u32)b); }

unsigned __udivsi3(unsigned a, unsigned b)
{
    u32 r;
    return udivmod32(a, b, &r);
}

unsigned __umodsi3(unsigned a, unsigned b)
{
    u32 r;
    udivmod32(a, b, &r);
    return r;
}

int __divsi3(int a, int b)
{
    u32 r, ua = a < 0 ? 0u - (u32)a : (u32)a, ub = b < 0 ? 0u - (u32)b : (u32)b;
    u32 q = udivmod32(ua, ub, &r);
    return (int)((a < 0) != (b < 0) ? 0u - q : q);
}

int __modsi3(int a, int b)
{
    u32 r, ua = a < 0 ? 0u - (u32)a : (u32)a, ub = b < 0 ? 0u - (u32)b : (u32)b;
    udivmod32(ua, ub, &r);
    return (int)(a < 0 ? 0u - r : r);
}

/* 64-bit values as two 32-bit halves. */
typedef struct { u32 hi, lo; } w64;

static w64 split(u64 v)
{
    w64 w;
    w.hi = (u32)(v >> 32);
    w.lo = (u32)v;
    return w;
}

static u64 join(w64 w) { return ((u64)w.hi << 32) | w.lo; }

static w64 shl1(w64 w)
{
    w.hi = (w.hi << 1) | (w.lo >> 31);
    w.lo <<= 1;
    return w;
}

static int ge64(w64 a, w64 b) { return a.hi > b.hi || (a.hi == b.hi && a.lo >= b.lo); }

static w64 sub64(w64 a, w64 b)
{
    w64 r;
    r.lo = a.lo - b.lo;
    r.hi = a.hi - b.hi - (a.lo < b.lo);
    return r;
}

static w64 add64(w64 a, w64 b)
{
    w64 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo);
    return r;
}

i64 __muldi3(i64 a, i64 b)
{
    w64 x = split((u64)a), y = split((u64)b), r = {0, 0};
    while (y.hi | y.lo) {
        if (y.lo & 1u) r = add64(r, x);
        x = shl1(x);
        y.lo = (y.lo >> 1) | (y.hi << 31);
        y.hi >>= 1;
    }
    return (i64)join(r);
}

static u64 udivmod64(u64 a, u64 b, u64 *rem)
{
    w64 n = split(a), d = split(b), q = {0, 0}, r = {0, 0};
    if (!(d.hi | d.lo)) {
        *rem = a;
        return ~(u64)0;
    }
    for (int i = 63; i >= 0; i--) {
        u32 bit = i >= 32 ? (n.hi >> (i - 32)) & 1u : (n.lo >> i) & 1u;
        r = shl1(r);
        r.lo |= bit;
        q = shl1(q);
        if (ge64(r, d)) {
            r = sub64(r, d);
            q.lo |= 1u;
        }
    }
    *rem = join(r);
    return join(q);
}

u64 __udivdi3(u64 a, u64 b)
{
    u64 r;
    return udivmod64(a, b, &r);
}

u64 __umoddi3(u64 a, u64 b)
{
    u64 r;
    udivmod64(a, b, &r);
    return r;
}

i64 __divdi3(i64 a, i64 b)
{
    u64 r, ua = a < 0 ? 0ull - (u64)a : (u64)a, ub = b < 0 ? 0ull - (u64)b : (u64)b;
    u64 q = udivmod64(ua, ub, &r);
    return (i64)((a < 0) != (b < 0) ? 0ull - q : q);
}

i64 __moddi3(i64 a, i64 b)
{
    u64 r, ua = a < 0 ? 0ull - (u64)a : (u64)a, ub = b < 0 ? 0ull - (u64)b : (u64)b;
    udivmod64(ua, ub, &r);
    return (i64)(a < 0 ? 0ull - r : r);
}

i64 __ashldi3(i64 a, int s)
{
    w64 w = split((u64)a);
    s &= 63;
    if (s >= 32) {
        w.hi = w.lo << (s - 32);
        w.lo = 0;
    } else if (s) {
        w.hi = (w.hi << s) | (w.lo >> (32 - s));
        w.lo <<= s;
    }
    return (i64)join(w);
}

u64 __lshrdi3(u64 a, int s)
{
    w64 w = split(a);
    s &= 63;
    if (s >= 32) {
        w.lo = w.hi >> (s - 32);
        w.hi = 0;
    } else if (s) {
        w.lo = (w.lo >> s) | (w.hi << (32 - s));
        w.hi >>= s;
    }
    return join(w);
}

i64 __ashrdi3(i64 a, int s)
{
    w64 w = split((u64)a);
    u32 sign = (w.hi & 0x80000000u) ? 0xffffffffu : 0;
    s &= 63;
    if (s >= 32) {
        w.lo = s == 32 ? w.hi : (u32)((int)w.hi >> (s - 32));
        w.hi = sign;
    } else if (s) {
        w.lo = (w.lo >> s) | (w.hi << (32 - s));
        w.hi = (u32)((int)w.hi >> s);
    }
    return (i64)join(w);
}

void *memcpy(void *d, const void *s, size_t n)
{
    unsigned char *p = d;
    const unsigned char *q = s;
    while (n--) *p++ = *q++;
    return d;
}

void *memmove(void *d, const void *s, size_t n)
{
    unsigned char *p = d;
    const unsigned char *q = s;
    if (p < q) {
        while (n--) *p++ = *q++;
    } else {
        while (n--) p[n] = q[n];
    }
    return d;
}

void *memset(void *d, int c, size_t n)
{
    unsigned char *p = d;
    while (n--) *p++ = (unsigned char)c;
    return d;
}
