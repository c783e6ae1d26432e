/* rng.c -- xoshiro256** 1.0 with SplitMix64 seeding and 2^128 jumps.
 *
 * Algorithms as published by Blackman and Vigna ("Scrambled linear
 * pseudorandom number generators", ACM TOMS 47(4), 2021); the jump
 * polynomial constants are the ones given in that paper for xoshiro256.
 * SplitMix64 is Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014.  Written from the published descriptions.
 */
#include "myri/rng.h"
#include "myri/status.h"

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <threads.h>

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t myri_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void myri_rng_seed(myri_rng *r, uint64_t seed)
{
    uint64_t sm = seed;
    for (int i = 0; i < 4; i++) r->s[i] = myri_splitmix64(&sm);
}

uint64_t myri_rng_next(myri_rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

void myri_rng_jump(myri_rng *r)
{
    static const uint64_t jump[4] = {0x180ec6d33cfd0abaull, 0xd5a61266f0c9392cull,
                                     0xa9582618e03fc9aaull, 0x39abdc4529b1661cull};
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 64; b++) {
            if (jump[i] & (1ull << b)) {
                s0 ^= r->s[0];
                s1 ^= r->s[1];
                s2 ^= r->s[2];
                s3 ^= r->s[3];
            }
            (void)myri_rng_next(r);
        }
    r->s[0] = s0;
    r->s[1] = s1;
    r->s[2] = s2;
    r->s[3] = s3;
}

void myri_rng_stream(myri_rng *r, uint64_t seed, uint64_t k)
{
    myri_rng_seed(r, seed);
    for (uint64_t i = 0; i < k; i++) myri_rng_jump(r);
}

double myri_rng_uniform01(myri_rng *r) { return (double)(myri_rng_next(r) >> 11) * 0x1.0p-53; }

double myri_rng_uniform(myri_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * myri_rng_uniform01(r);
}

uint64_t myri_rng_below(myri_rng *r, uint64_t n)
{
    if (n == 0) return 0;
    /* Lemire's multiply-shift with rejection of the biased low range. */
    uint64_t x = myri_rng_next(r);
    __uint128_t m = (__uint128_t)x * n;
    uint64_t l = (uint64_t)m;
    if (l < n) {
        uint64_t t = -n % n;
        while (l < t) {
            x = myri_rng_next(r);
            m = (__uint128_t)x * n;
            l = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* Exponential variates by the ziggurat method of Marsaglia and Tsang ("The
 * ziggurat method for generating random variables", J. Stat. Software 5(8),
 * 2000): 256 layers of equal area; the layer constants r = 7.69711747013104972
 * and v = 3.949659822581572e-3 are the paper's.  Unlike the paper's 32-bit
 * version, the layer index (low 8 bits) and the abscissa (high 53 bits) come
 * from disjoint bits of one 64-bit output, so they are independent. */
#define ZIG_R 7.69711747013104972
#define ZIG_V 3.949659822581572e-3
static struct {
    double k[256]; /* fast-accept thresholds, scaled by 2^53 */
    double w[256]; /* abscissa scale per layer */
    double f[256]; /* density at the layer's edge */
} zig;
static once_flag zig_once = ONCE_FLAG_INIT;
static atomic_bool zig_ready; /* set (release) once the tables are built: a draw skips call_once */

static void zig_init(void)
{
    const double m = 9007199254740992.0; /* 2^53 */
    double de = ZIG_R, te = ZIG_R;
    double q = ZIG_V / exp(-de);
    zig.k[0] = (de / q) * m;
    zig.k[1] = 0;
    zig.w[0] = q / m;
    zig.w[255] = de / m;
    zig.f[0] = 1.0;
    zig.f[255] = exp(-de);
    for (int i = 254; i >= 1; i--) {
        de = -log(ZIG_V / de + exp(-de));
        zig.k[i + 1] = (de / te) * m;
        te = de;
        zig.f[i] = exp(-de);
        zig.w[i] = de / m;
    }
    atomic_store_explicit(&zig_ready, true, memory_order_release);
}

/* A standard (mean 1) exponential variate. */
static double exp1(myri_rng *r)
{
    for (;;) {
        uint64_t u = myri_rng_next(r);
        unsigned i = (unsigned)(u & 255);
        double j = (double)(u >> 11);
        if (j < zig.k[i]) return j * zig.w[i];
        if (i == 0) return ZIG_R - log1p(-myri_rng_uniform01(r)); /* the tail beyond r */
        double x = j * zig.w[i];
        if (zig.f[i] + myri_rng_uniform01(r) * (zig.f[i - 1] - zig.f[i]) < exp(-x)) return x;
    }
}

double myri_rng_exponential(myri_rng *r, double mean)
{
    if (!atomic_load_explicit(&zig_ready, memory_order_acquire)) call_once(&zig_once, zig_init);
    return mean * exp1(r);
}

int myri_empirical_init(myri_empirical *e, size_t n, const double *values, const double *weights)
{
    if (!e || n == 0 || !values || !weights) return MYRI_EINVAL;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(weights[i] >= 0) || !isfinite(weights[i])) return MYRI_EINVAL;
        sum += weights[i];
    }
    if (!(sum > 0)) return MYRI_EINVAL;
    e->value = malloc(n * sizeof *e->value);
    e->cdf = malloc(n * sizeof *e->cdf);
    if (!e->value || !e->cdf) {
        free(e->value);
        free(e->cdf);
        e->value = e->cdf = NULL;
        return MYRI_ENOMEM;
    }
    double acc = 0;
    for (size_t i = 0; i < n; i++) {
        e->value[i] = values[i];
        acc += weights[i];
        e->cdf[i] = acc / sum;
    }
    e->cdf[n - 1] = 1.0;
    e->n = n;
    return MYRI_OK;
}

void myri_empirical_free(myri_empirical *e)
{
    if (!e) return;
    free(e->value);
    free(e->cdf);
    e->value = e->cdf = NULL;
    e->n = 0;
}

double myri_empirical_sample(const myri_empirical *e, myri_rng *r)
{
    double u = myri_rng_uniform01(r);
    size_t lo = 0, hi = e->n - 1;
    while (lo < hi) { /* first index with cdf > u */
        size_t mid = lo + (hi - lo) / 2;
        if (e->cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return e->value[lo];
}

uint64_t myri_rng_name_hash(const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = name; *p; p++) h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    return h;
}

void myri_rng_named(myri_rng *r, uint64_t seed, const char *name, uint64_t k)
{
    uint64_t x = seed ^ (myri_rng_name_hash(name) * 0x9e3779b97f4a7c15ull) ^ (k * 0xd1b54a32d192ed03ull);
    myri_rng_seed(r, myri_splitmix64(&x));
}
