/* test_rng.c -- known-answer vectors of SplitMix64 and xoshiro256**,
 * independence of streams, and the distributions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "myri/rng.h"

/* SplitMix64 from state 0: the first outputs published with the algorithm
 * (Steele, Lea, Flood 2014; also Vigna's reference splitmix64.c). */
static void test_splitmix64_known_answers(void **state)
{
    (void)state;
    uint64_t s = 0;
    assert_int_equal(myri_splitmix64(&s), 0xe220a8397b1dcdafull);
    assert_int_equal(myri_splitmix64(&s), 0x6e789e6aa1b965f4ull);
    assert_int_equal(myri_splitmix64(&s), 0x06c45d188009454full);
}

/* xoshiro256** from state {1, 2, 3, 4}: 11520, 0, 1509978240,
 * 1215971899390074240, ... (values of the reference implementation,
 * recomputed independently from the published algorithm). */
static void test_xoshiro_known_answers(void **state)
{
    (void)state;
    myri_rng r = {{1, 2, 3, 4}};
    const uint64_t want[] = {11520ull, 0ull, 1509978240ull, 1215971899390074240ull, 0x10e0b61ce1009d80ull,
                             0x0870021ce143ad00ull};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) assert_int_equal(myri_rng_next(&r), want[i]);
}

/* Streams are non-overlapping: stream 1 starts 2^128 steps after stream 0.
 * Check that no output of stream 0's first 2^16 appears among stream 1's
 * first 2^16 (for 64-bit outputs a collision by chance has probability
 * ~2^-32), and that the two streams are uncorrelated. */
static void test_streams_independent(void **state)
{
    (void)state;
    enum { N = 1 << 16 };
    static uint64_t a[N];
    myri_rng r0, r1;
    myri_rng_stream(&r0, 7, 0);
    myri_rng_stream(&r1, 7, 1);
    for (int i = 0; i < N; i++) a[i] = myri_rng_next(&r0);
    myri_rng c0, c1;
    myri_rng_stream(&c0, 7, 0);
    myri_rng_stream(&c1, 7, 1);
    double sx = 0, sy = 0, sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < N; i++) {
        uint64_t b = myri_rng_next(&r1);
        assert_int_not_equal(b, a[i]);
        double x = myri_rng_uniform01(&c0), y = myri_rng_uniform01(&c1);
        sx += x, sy += y, sxy += x * y, sxx += x * x, syy += y * y;
    }
    double cov = sxy / N - (sx / N) * (sy / N);
    double corr = cov / sqrt((sxx / N - (sx / N) * (sx / N)) * (syy / N - (sy / N) * (sy / N)));
    assert_true(fabs(corr) < 0.02); /* 5 sigma is 0.0195 for N = 65536 */
    /* the jump really moves the state: stream k = k jumps of the seed */
    myri_rng j;
    myri_rng_seed(&j, 7);
    myri_rng_jump(&j);
    myri_rng s1;
    myri_rng_stream(&s1, 7, 1);
    assert_memory_equal(&j, &s1, sizeof j);
}

static void test_distributions(void **state)
{
    (void)state;
    myri_rng r;
    myri_rng_seed(&r, 3);
    enum { N = 200000 };
    double sum = 0, sum2 = 0;
    for (int i = 0; i < N; i++) {
        double x = myri_rng_exponential(&r, 2.5);
        assert_true(x >= 0);
        sum += x;
        sum2 += x * x;
    }
    double mean = sum / N, var = sum2 / N - mean * mean;
    assert_true(fabs(mean - 2.5) < 5 * 2.5 / sqrt(N));
    assert_true(fabs(var - 6.25) < 0.25); /* exponential: variance = mean^2 */
    int hist[10] = {0};
    for (int i = 0; i < N; i++) {
        double u = myri_rng_uniform01(&r);
        assert_true(u >= 0 && u < 1);
        hist[(int)(u * 10)]++;
        uint64_t b = myri_rng_below(&r, 7);
        assert_true(b < 7);
    }
    for (int k = 0; k < 10; k++) assert_true(abs(hist[k] - N / 10) < 5 * 134); /* sd = sqrt(N p q) ~ 134 */
    assert_int_equal(myri_rng_below(&r, 0), 0);
    double u = myri_rng_uniform(&r, 5, 6);
    assert_true(u >= 5 && u < 6);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Kolmogorov-Smirnov: the exponential sampler against 1 - exp(-x).  The
 * critical value at the 0.1 % level is 1.95 / sqrt(n). */
static void test_exponential_ks(void **state)
{
    (void)state;
    enum { N = 200000 };
    double *x = malloc(N * sizeof *x);
    myri_rng r;
    myri_rng_seed(&r, 12345);
    for (int i = 0; i < N; i++) x[i] = myri_rng_exponential(&r, 1.0);
    qsort(x, N, sizeof *x, cmp_double);
    double d = 0;
    for (int i = 0; i < N; i++) {
        double F = 1 - exp(-x[i]);
        double lo = F - (double)i / N, hi = (double)(i + 1) / N - F;
        if (lo > d) d = lo;
        if (hi > d) d = hi;
    }
    assert_true(d < 1.95 / sqrt(N));
    assert_true(x[N - 1] > 7.7); /* the tail beyond the ziggurat's base is reached */
    free(x);
}

static void test_empirical(void **state)
{
    (void)state;
    myri_empirical e;
    const double v[] = {64, 1500, 9000}, w[] = {0.5, 0.3, 0.2};
    assert_int_equal(myri_empirical_init(&e, 3, v, w), 0);
    myri_rng r;
    myri_rng_seed(&r, 11);
    int count[3] = {0};
    enum { N = 100000 };
    for (int i = 0; i < N; i++) {
        double x = myri_empirical_sample(&e, &r);
        count[x == 64 ? 0 : x == 1500 ? 1 : 2]++;
        assert_true(x == 64 || x == 1500 || x == 9000);
    }
    for (int k = 0; k < 3; k++) assert_true(fabs(count[k] / (double)N - w[k]) < 0.01);
    myri_empirical_free(&e);
    const double bad[] = {-1, 1, 1};
    assert_int_not_equal(myri_empirical_init(&e, 3, v, bad), 0);
    const double zero[] = {0, 0, 0};
    assert_int_not_equal(myri_empirical_init(&e, 3, v, zero), 0);
    assert_int_not_equal(myri_empirical_init(&e, 0, v, w), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splitmix64_known_answers), cmocka_unit_test(test_xoshiro_known_answers),
        cmocka_unit_test(test_streams_independent),      cmocka_unit_test(test_distributions),
        cmocka_unit_test(test_empirical), cmocka_unit_test(test_exponential_ks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
