/* test_stats.c -- statistics against values computed by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/stats_internal.h"
#include "myri/json.h"
#include "myri/rng.h"
#include "myri/stats.h"

#define CLOSE(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

/* A queue of length 0 on [0,10), 2 on [10,15), 1 on [15,40): mean over
 * [0,40] = (0*10 + 2*5 + 1*25) / 40 = 35/40 = 0.875. */
static void test_time_weighted_mean(void **state)
{
    (void)state;
    myri_tw tw;
    myri_tw_init(&tw, 0, 0);
    myri_tw_set(&tw, 10, 2);
    myri_tw_add(&tw, 15, -1);
    CLOSE(myri_tw_mean(&tw, 40), 0.875, 1e-12);
    /* warm-up reset at 20: from then on the value is 1 -> mean 1 */
    myri_tw_reset(&tw, 20);
    CLOSE(myri_tw_mean(&tw, 40), 1.0, 1e-12);
    myri_tw_set(&tw, 30, 3); /* 1 on [20,30), 3 on [30,40) -> 2 */
    CLOSE(myri_tw_mean(&tw, 40), 2.0, 1e-12);
    CLOSE(myri_tw_mean(&tw, 20), 3.0, 1e-12); /* empty window: current value */
    /* utilisation: busy 1 on [5,7) and [8,9) of [0,10] -> 0.3 */
    myri_tw_init(&tw, 0, 0);
    myri_tw_set(&tw, 5, 1);
    myri_tw_set(&tw, 7, 0);
    myri_tw_set(&tw, 8, 1);
    myri_tw_set(&tw, 9, 0);
    CLOSE(myri_tw_mean(&tw, 10), 0.3, 1e-12);
}

/* Percentiles by nearest rank: samples 1..100 -> p50 = 50, p99 = 99,
 * p100 = 100, p1 = 1; with precision 7 all values < 256 are exact. */
static void test_histogram_percentiles(void **state)
{
    (void)state;
    myri_hist *h = myri_hist_create(7);
    assert_non_null(h);
    for (uint64_t v = 100; v >= 1; v--) myri_hist_add(h, v);
    assert_int_equal(myri_hist_count(h), 100);
    assert_int_equal(myri_hist_percentile(h, 0.50), 50);
    assert_int_equal(myri_hist_percentile(h, 0.99), 99);
    assert_int_equal(myri_hist_percentile(h, 1.0), 100);
    assert_int_equal(myri_hist_percentile(h, 0.01), 1);
    assert_int_equal(myri_hist_min(h), 1);
    assert_int_equal(myri_hist_max(h), 100);
    CLOSE(myri_hist_mean(h), 50.5, 1e-12);
    /* {10, 20, 30, 40}: p25 = 10, p50 = 20, p75 = 30, p76 = 40 */
    myri_hist_reset(h);
    myri_hist_add(h, 30);
    myri_hist_add(h, 10);
    myri_hist_add(h, 40);
    myri_hist_add(h, 20);
    assert_int_equal(myri_hist_percentile(h, 0.25), 10);
    assert_int_equal(myri_hist_percentile(h, 0.5), 20);
    assert_int_equal(myri_hist_percentile(h, 0.75), 30);
    assert_int_equal(myri_hist_percentile(h, 0.76), 40);
    myri_hist_destroy(h);
}

/* Large values: relative error below 2^-7; min/max/mean exact. */
static void test_histogram_large_values(void **state)
{
    (void)state;
    myri_hist *h = myri_hist_create(7);
    const uint64_t vals[] = {1000000, 2000000, 3000000, 123456789012ull, UINT64_MAX};
    for (size_t i = 0; i < 5; i++) myri_hist_add(h, vals[i]);
    uint64_t p40 = myri_hist_percentile(h, 0.4); /* rank 2 -> 2000000 */
    assert_true(p40 >= 2000000 && (double)p40 <= 2000000 * (1 + 1.0 / 128));
    assert_int_equal(myri_hist_percentile(h, 1.0), UINT64_MAX);
    assert_int_equal(myri_hist_max(h), UINT64_MAX);
    assert_int_equal(myri_hist_min(h), 1000000);
    myri_hist_destroy(h);
    assert_null(myri_hist_create(0));
    assert_null(myri_hist_create(17));
}

/* The sum is exact: 2^53 then 1000 ones.  A double running sum stays at 2^53
 * (each +1 rounds back to even), so its mean would be 2^53 / 1001; the exact
 * sum 2^53 + 1000 is representable, so the mean is one division away. */
static void test_histogram_exact_sum(void **state)
{
    (void)state;
    myri_hist *h = myri_hist_create(7);
    myri_hist_add(h, 1ull << 53);
    for (int i = 0; i < 1000; i++) myri_hist_add(h, 1);
    assert_true(myri_hist_mean(h) == 9007199254741992.0 / 1001.0);
    assert_true(myri_hist_mean(h) != 9007199254740992.0 / 1001.0);
    /* the largest values: 3 x (2^64 - 1) overflows 64 bits, not the sum */
    myri_hist_reset(h);
    for (int i = 0; i < 3; i++) myri_hist_add(h, UINT64_MAX);
    assert_true(myri_hist_mean(h) == 18446744073709551616.0); /* (2^64 - 1) rounded to double */
    myri_hist_destroy(h);
}

/* What a report prints of a histogram: count, min, max, the mean in full and
 * as the fabric job's JSON prints it (ns, %.10g), and percentiles from the
 * first rank to the last. */
static void hist_summary(const myri_hist *h, char *buf, size_t cap)
{
    static const double ps[] = {0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6,
                                0.7, 0.75, 0.8, 0.9, 0.95, 0.99, 0.999, 0.9999, 1};
    int k = snprintf(buf, cap, "n=%llu min=%llu max=%llu mean=%.17g mean_ns=%.10g p:",
                     (unsigned long long)myri_hist_count(h), (unsigned long long)myri_hist_min(h),
                     (unsigned long long)myri_hist_max(h), myri_hist_mean(h), myri_hist_mean(h) / 1e3);
    for (size_t i = 0; i < sizeof ps / sizeof ps[0] && k > 0 && (size_t)k < cap; i++)
        k += snprintf(buf + k, cap - (size_t)k, " %llu", (unsigned long long)myri_hist_percentile(h, ps[i]));
}

/* A sample of one of four kinds: exactly kept small values, latencies of
 * 0.1-100 us in ps, every magnitude up to 2^64 (sums far above 2^53), and
 * the extremes 0 and 2^64 - 1 among others. */
static uint64_t draw_sample(myri_rng *r, unsigned kind)
{
    switch (kind) {
    case 0: return myri_rng_below(r, 256);
    case 1: return 100000 + myri_rng_below(r, 100000000);
    case 2: return myri_rng_next(r) >> myri_rng_below(r, 64);
    default: {
        uint64_t u = myri_rng_below(r, 4);
        return u == 0 ? 0 : u == 1 ? UINT64_MAX : u == 2 ? UINT64_MAX - 1 : myri_rng_next(r);
    }
    }
}

/* The m-th permutation (0 <= m < k!) of 0..k-1, by its factorial digits. */
static void nth_permutation(unsigned k, unsigned m, unsigned *perm)
{
    unsigned left[4] = {0, 1, 2, 3}, nleft = k, fact = 1;
    for (unsigned i = 2; i < k; i++) fact *= i;
    for (unsigned i = 0; i < k; i++) {
        unsigned d = m / fact;
        m %= fact;
        perm[i] = left[d];
        for (unsigned j = d; j + 1 < nleft; j++) left[j] = left[j + 1];
        nleft--;
        if (nleft) fact /= nleft;
    }
}

enum { MERGE_CASES = 300, MERGE_MAX_SAMPLES = 600, MERGE_MAX_PARTS = 4 };

/* Random samples recorded once whole and once split at random into 1-4
 * parts; the parts merged into an empty histogram in every order.  Returns
 * how many merged summaries differ from the whole one; *orders counts them
 * all.  fault: myri_hist__set_fault on every histogram. */
static unsigned merge_mismatches(uint64_t seed, int fault, unsigned *orders)
{
    static const unsigned precisions[] = {1, 3, 7};
    myri_rng r;
    myri_rng_seed(&r, seed);
    unsigned bad = 0;
    *orders = 0;
    for (unsigned c = 0; c < MERGE_CASES; c++) {
        unsigned p = precisions[myri_rng_below(&r, 3)], k = 1 + (unsigned)myri_rng_below(&r, MERGE_MAX_PARTS);
        unsigned kind = (unsigned)myri_rng_below(&r, 4), n = (unsigned)myri_rng_below(&r, MERGE_MAX_SAMPLES + 1);
        myri_hist *whole = myri_hist_create(p), *part[MERGE_MAX_PARTS];
        assert_non_null(whole);
        myri_hist__set_fault(whole, fault);
        for (unsigned i = 0; i < k; i++) {
            part[i] = myri_hist_create(p);
            assert_non_null(part[i]);
            myri_hist__set_fault(part[i], fault);
        }
        for (unsigned i = 0; i < n; i++) {
            uint64_t v = draw_sample(&r, kind);
            myri_hist_add(whole, v);
            myri_hist_add(part[myri_rng_below(&r, k)], v);
        }
        char want[512], got[512];
        hist_summary(whole, want, sizeof want);
        unsigned nperm = k == 1 ? 1 : k == 2 ? 2 : k == 3 ? 6 : 24, perm[MERGE_MAX_PARTS];
        for (unsigned m = 0; m < nperm; m++, (*orders)++) {
            nth_permutation(k, m, perm);
            myri_hist *dst = myri_hist_create(p);
            assert_non_null(dst);
            myri_hist__set_fault(dst, fault);
            for (unsigned i = 0; i < k; i++) assert_int_equal(myri_hist_merge(dst, part[perm[i]]), MYRI_OK);
            hist_summary(dst, got, sizeof got);
            if (strcmp(want, got) != 0 && bad++ == 0 && !fault)
                print_message("case %u (p %u, %u parts, kind %u, %u samples):\n  whole  %s\n  merged %s\n", c, p, k,
                              kind, n, want, got);
            myri_hist_destroy(dst);
        }
        for (unsigned i = 0; i < k; i++) myri_hist_destroy(part[i]);
        myri_hist_destroy(whole);
    }
    return bad;
}

/* Merged in any order, the parts print byte for byte what the whole prints. */
static void test_histogram_merge_any_split(void **state)
{
    (void)state;
    unsigned orders = 0;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        assert_int_equal(merge_mismatches(seed, 0, &orders), 0);
        assert_true(orders >= MERGE_CASES); /* at least one order per case */
    }
}

/* The check can fail: with the sum kept as a double (the deliberate fault),
 * some split and order prints another mean. */
static void test_histogram_merge_fault_caught(void **state)
{
    (void)state;
    unsigned orders = 0, bad = merge_mismatches(1, 1, &orders);
    print_message("double-sum fault: %u of %u merged summaries differ\n", bad, orders);
    assert_true(bad > 0);
}

/* A histogram sent as packed words (what MPI ranks send to rank 0) comes
 * back bit for bit: unpacked parts merged print the whole's summary; a
 * packing of another precision or size is refused. */
static void test_histogram_pack(void **state)
{
    (void)state;
    myri_rng r;
    myri_rng_seed(&r, 7);
    for (unsigned c = 0; c < 200; c++) {
        unsigned kind = (unsigned)myri_rng_below(&r, 4), n = (unsigned)myri_rng_below(&r, 400), k = 1 + c % 3;
        myri_hist *whole = myri_hist_create(7), *part[3], *dst = myri_hist_create(7), *tmp = myri_hist_create(7);
        for (unsigned i = 0; i < k; i++) part[i] = myri_hist_create(7);
        for (unsigned i = 0; i < n; i++) {
            uint64_t v = draw_sample(&r, kind);
            myri_hist_add(whole, v);
            myri_hist_add(part[myri_rng_below(&r, k)], v);
        }
        for (unsigned i = 0; i < k; i++) {
            size_t nw = myri_hist_pack(part[i], NULL, 0);
            uint64_t *w = malloc(nw * sizeof *w);
            assert_non_null(w);
            assert_int_equal(myri_hist_pack(part[i], w, nw), nw);
            myri_hist_add(tmp, 3); /* unpack replaces what was there */
            assert_int_equal(myri_hist_unpack(tmp, w, nw), MYRI_OK);
            assert_int_equal(myri_hist_merge(dst, tmp), MYRI_OK);
            assert_int_equal(myri_hist_unpack(tmp, w, nw + 1), MYRI_EINVAL);
            free(w);
            myri_hist_destroy(part[i]);
        }
        char want[512], got[512];
        hist_summary(whole, want, sizeof want);
        hist_summary(dst, got, sizeof got);
        assert_string_equal(want, got);
        myri_hist_destroy(whole);
        myri_hist_destroy(dst);
        myri_hist_destroy(tmp);
    }
    myri_hist *a = myri_hist_create(7), *b = myri_hist_create(6);
    myri_hist_add(a, 1234567);
    uint64_t w[64];
    size_t nw = myri_hist_pack(a, w, 64);
    assert_int_equal(myri_hist_unpack(b, w, nw), MYRI_EINVAL); /* precision 7 into 6 */
    assert_int_equal(myri_hist_pack(a, w, 2), nw);             /* too small: the size, nothing written */
    myri_hist_destroy(a);
    myri_hist_destroy(b);
}

/* Bad merges are refused; empty parts and a histogram merged with itself. */
static void test_histogram_merge_args(void **state)
{
    (void)state;
    myri_hist *a = myri_hist_create(7), *b = myri_hist_create(6), *e = myri_hist_create(7);
    assert_int_equal(myri_hist_merge(a, b), MYRI_EINVAL);
    assert_int_equal(myri_hist_merge(NULL, a), MYRI_EINVAL);
    assert_int_equal(myri_hist_merge(a, NULL), MYRI_EINVAL);
    assert_int_equal(myri_hist_merge(a, e), MYRI_OK); /* empty into empty */
    assert_int_equal(myri_hist_count(a), 0);
    assert_int_equal(myri_hist_min(a), 0);
    myri_hist_add(a, 5);
    myri_hist_add(a, 1000);
    assert_int_equal(myri_hist_merge(a, e), MYRI_OK); /* empty into full */
    assert_int_equal(myri_hist_merge(e, a), MYRI_OK); /* full into empty */
    assert_int_equal(myri_hist_merge(a, a), MYRI_OK); /* itself: every sample twice */
    assert_int_equal(myri_hist_count(a), 4);
    assert_int_equal(myri_hist_count(e), 2);
    assert_int_equal(myri_hist_min(e), 5);
    assert_int_equal(myri_hist_max(e), 1000);
    CLOSE(myri_hist_mean(a), 502.5, 0);
    assert_int_equal(myri_hist_percentile(a, 0.5), 5);
    assert_int_equal(myri_hist_percentile(a, 0.51), myri_hist_percentile(e, 1.0));
    myri_hist_destroy(a);
    myri_hist_destroy(b);
    myri_hist_destroy(e);
}

/* Batches 1,2,3,4,5: mean 3, s = sqrt(2.5) = 1.58114, t(0.975,4) = 2.7764,
 * half-width = 2.7764 * 1.58114 / sqrt(5) = 1.96324. */
static void test_batch_means_ci(void **state)
{
    (void)state;
    myri_bm bm;
    assert_int_equal(myri_bm_init(&bm, 2), MYRI_OK);
    /* observations in pairs whose means are 1..5 */
    const double obs[] = {0.5, 1.5, 2, 2, 1, 5, 4, 4, 6, 4};
    for (size_t i = 0; i < 10; i++) assert_int_equal(myri_bm_observe(&bm, obs[i]), MYRI_OK);
    assert_int_equal(myri_bm_batches(&bm), 5);
    CLOSE(myri_bm_mean(&bm), 3.0, 1e-12);
    CLOSE(myri_bm_halfwidth(&bm), 1.96324, 1e-4);
    assert_false(myri_bm_converged(&bm, 0.5, 2));  /* 1.96 > 0.5 * 3 */
    assert_true(myri_bm_converged(&bm, 0.7, 2));   /* 1.96 <= 2.1 */
    assert_false(myri_bm_converged(&bm, 0.7, 10)); /* too few batches */
    myri_bm_reset(&bm);
    assert_int_equal(myri_bm_batches(&bm), 0);
    assert_true(isinf(myri_bm_halfwidth(&bm)));
    myri_bm_add_batch(&bm, 2);
    myri_bm_add_batch(&bm, 2);
    assert_true(myri_bm_converged(&bm, 0.01, 2)); /* zero variance */
    myri_bm_free(&bm);
    assert_int_equal(myri_bm_init(&bm, 0), MYRI_EINVAL);
}

/* t quantiles: table values and the expansion beyond df 30 (references:
 * standard t tables; t(0.975, 40) = 2.0211, 60: 2.0003, 120: 1.9799,
 * t(0.95, 10) = 1.8125, t(0.995, 60) = 2.6603). */
static void test_student_t(void **state)
{
    (void)state;
    CLOSE(myri_student_t_quantile(0.975, 1), 12.7062, 1e-4);
    CLOSE(myri_student_t_quantile(0.975, 30), 2.0423, 1e-4);
    CLOSE(myri_student_t_quantile(0.975, 40), 2.0211, 2e-4);
    CLOSE(myri_student_t_quantile(0.975, 60), 2.0003, 2e-4);
    CLOSE(myri_student_t_quantile(0.975, 120), 1.9799, 2e-4);
    CLOSE(myri_student_t_quantile(0.975, 1000000), 1.95996, 2e-4);
    CLOSE(myri_student_t_quantile(0.95, 10), 1.8125, 2e-3);
    CLOSE(myri_student_t_quantile(0.995, 60), 2.6603, 2e-3);
}

static void test_json_writer(void **state)
{
    (void)state;
    char buf[512];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    myri_json *j = myri_json_create(f, false);
    myri_json_obj_begin(j);
    myri_json_kstr(j, "name", "a\"b\n");
    myri_json_kuint(j, "n", 3);
    myri_json_knum(j, "x", 0.5);
    myri_json_knum(j, "nan", NAN);
    myri_json_key(j, "list");
    myri_json_arr_begin(j);
    myri_json_int(j, -1);
    myri_json_bool(j, true);
    myri_json_null(j);
    myri_json_arr_end(j);
    myri_json_key(j, "h");
    myri_json_hash(j, 0xabc);
    myri_json_key(j, "empty");
    myri_json_obj_begin(j);
    myri_json_obj_end(j);
    myri_json_obj_end(j);
    assert_int_equal(myri_json_finish(j), MYRI_OK);
    fclose(f);
    assert_string_equal(buf, "{\"name\":\"a\\\"b\\n\",\"n\":3,\"x\":0.5,\"nan\":null,\"list\":[-1,true,null],"
                             "\"h\":\"0x0000000000000abc\",\"empty\":{}}\n");
    /* misuse is reported, not a crash */
    f = fmemopen(buf, sizeof buf, "w");
    j = myri_json_create(f, false);
    myri_json_obj_begin(j);
    myri_json_uint(j, 1); /* value without key */
    myri_json_arr_end(j); /* wrong closer */
    assert_int_equal(myri_json_finish(j), MYRI_ESTATE);
    fclose(f);
    assert_int_equal(myri_json_finish(NULL), MYRI_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time_weighted_mean), cmocka_unit_test(test_histogram_percentiles),
        cmocka_unit_test(test_histogram_large_values), cmocka_unit_test(test_histogram_exact_sum),
        cmocka_unit_test(test_histogram_merge_any_split), cmocka_unit_test(test_histogram_merge_fault_caught),
        cmocka_unit_test(test_histogram_merge_args), cmocka_unit_test(test_histogram_pack), cmocka_unit_test(test_batch_means_ci),
        cmocka_unit_test(test_student_t), cmocka_unit_test(test_json_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
