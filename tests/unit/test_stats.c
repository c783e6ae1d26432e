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

#include "myri/json.h"
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
        cmocka_unit_test(test_histogram_large_values), cmocka_unit_test(test_batch_means_ci),
        cmocka_unit_test(test_student_t), cmocka_unit_test(test_json_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
