/* arith.c -- arithmetic on every width, signed and unsigned, through the
 * multiply, divide, modulo and shift helpers (__mulsi3 ... __ashrdi3). */
#include "io.h"

typedef signed char s8;
typedef unsigned char u8;
typedef short s16;
typedef unsigned short u16;
typedef int s32;
typedef unsigned u32;
typedef long long s64;
typedef unsigned long long u64;

static u64 state = 0x9e3779b97f4a7c15ull;
static u64 next(void)
{
    state ^= state << 7;
    state ^= state >> 9;
    return state;
}

static u64 h = 1469598103934665603ull;
static void mix(u64 v)
{
    h = (h ^ v) * 1099511628211ull;
}

static void widths(u64 x, u64 y, int s)
{
    s8 a8 = (s8)x, b8 = (s8)(y | 1);
    u8 c8 = (u8)x, d8 = (u8)(y | 1);
    s16 a16 = (s16)x, b16 = (s16)(y | 1);
    u16 c16 = (u16)x, d16 = (u16)(y | 1);
    s32 a32 = (s32)x, b32 = (s32)(y | 1);
    u32 c32 = (u32)x, d32 = (u32)(y | 1);
    s64 a64 = (s64)x, b64 = (s64)(y | 1);
    if (b32 == -1) b32 = 3;
    if (b64 == -1) b64 = 3;
    mix((u64)(s64)(a8 * b8)); mix((u64)(a8 / b8)); mix((u64)(a8 % b8));
    mix((u64)(c8 * d8)); mix((u64)(c8 / d8)); mix((u64)(c8 % d8));
    mix((u64)(s64)(a16 * b16)); mix((u64)(a16 / b16)); mix((u64)(a16 % b16));
    mix((u64)((u32)c16 * d16)); /* u16 * u16 would overflow int */ mix((u64)(c16 / d16)); mix((u64)(c16 % d16));
    mix((u64)(u32)(c32 * d32)); mix((u64)(a32 / b32)); mix((u64)(a32 % b32));
    mix(c32 / d32); mix(c32 % d32);
    mix(x * y); mix((u64)(a64 / b64)); mix((u64)(a64 % b64));
    mix(x / (y | 1)); mix(x % (y | 1));
    mix(x << s); mix(x >> s); mix((u64)(a64 >> s));
    mix((u64)(c32 << (s & 31))); mix(c32 >> (s & 31)); mix((u64)(s64)(a32 >> (s & 31)));
    mix((u64)(a32 < b32) | (u64)(c32 < d32) << 1 | (u64)(a64 < b64) << 2 | (u64)(x < y) << 3 |
        (u64)(a16 <= b16) << 4 | (u64)(c8 >= d8) << 5);
    mix((u64)((u32)a32 + (u32)b32) ^ (u64)(c32 - d32) ^ (x + y) ^ (x - y));
}

int test_main(void)
{
    for (int i = 0; i < 300; i++) {
        u64 x = next(), y = next();
        if (i & 1) y >>= (i % 60);
        widths(x, y, i % 64);
    }
    arg_t a[] = {(arg_t)h, (arg_t)(h >> 32), (arg_t)(u32)h, -7 / 2, -7 % 2, (arg_t)(-7ll * 3ll)};
    out_fmt("hash %x hi %x lo %u -7/2 %d -7%%2 %d -7*3 %d\n", a);
    return (int)(h ^ (h >> 32));
}
