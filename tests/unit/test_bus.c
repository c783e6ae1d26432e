/* test_bus.c -- the I/O bus (src/nic/bus.h): bookings in request order, the
 * DMA time of n bytes, statistics, defaults of the bus.* table, misuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "nic/bus.h"
#include "nic/lanai.h"

static myri_bus_params params(void)
{
    return (myri_bus_params){.dma_rate_Bps = 100e6, .burst_bytes = 256, .dma_setup_ps = 500000,
                             .pio_read_ps = 1000000, .pio_write_ps = 120000};
}

static void test_book_in_order(void **state)
{
    (void)state;
    myri_bus_params p = params();
    myri_bus *b = myri_bus_create(&p);
    assert_non_null(b);
    /* 256 B at 100 MB/s = 2.56 us */
    assert_int_equal(myri_bus_dma_ps(b, 256), 2560000);
    assert_int_equal(myri_bus_dma_ps(b, 0), 0);
    assert_int_equal(myri_bus_dma_ps(b, 3), 30000);
    myri_time_ps s1 = myri_bus_book(b, MYRI_BUS_DMA_E2L, 1000, 2560000, 256);
    assert_int_equal(s1, 1000);
    /* a PIO read asked for during the burst goes after it */
    myri_time_ps s2 = myri_bus_book(b, MYRI_BUS_PIO_READ, 2000, 1000000, 4);
    assert_int_equal(s2, 1000 + 2560000);
    /* the next burst after the PIO, whatever time it asks for */
    myri_time_ps s3 = myri_bus_book(b, MYRI_BUS_DMA_E2L, 1000 + 2560000, 2560000, 256);
    assert_int_equal(s3, 1000 + 2560000 + 1000000);
    assert_int_equal(myri_bus_free_at(b), s3 + 2560000);
    /* a booking after the bus is free starts at once */
    myri_time_ps s4 = myri_bus_book(b, MYRI_BUS_PIO_WRITE, 100000000, 120000, 4);
    assert_int_equal(s4, 100000000);
    myri_bus_stats st;
    assert_int_equal(myri_bus_get_stats(b, &st), MYRI_OK);
    assert_int_equal(st.bookings[MYRI_BUS_DMA_E2L], 2);
    assert_int_equal(st.bytes[MYRI_BUS_DMA_E2L], 512);
    assert_int_equal(st.busy_ps[MYRI_BUS_DMA_E2L], 2 * 2560000);
    assert_int_equal(st.wait_ps[MYRI_BUS_PIO_READ], 2560000 - 1000);
    assert_int_equal(st.wait_ps[MYRI_BUS_DMA_E2L], 1000000);
    assert_int_equal(st.bookings[MYRI_BUS_PIO_WRITE], 1);
    assert_int_equal(st.wait_ps[MYRI_BUS_PIO_WRITE], 0);
    myri_bus_destroy(b);
}

static void test_bad_params(void **state)
{
    (void)state;
    myri_bus_params p = params();
    p.dma_rate_Bps = 0;
    assert_null(myri_bus_create(&p));
    p = params();
    p.burst_bytes = 0;
    assert_null(myri_bus_create(&p));
    assert_null(myri_bus_create(NULL));
    assert_int_equal(myri_bus_get_stats(NULL, NULL), MYRI_EINVAL);
    assert_null(myri_bus_params_of(NULL));
    myri_bus_destroy(NULL);
}

/* The bus.* table loads its defaults: the alpha-pci-1998 figures, each
 * naming its source or "assumption". */
static void test_defaults(void **state)
{
    (void)state;
    myri_bus_params p;
    memset(&p, 0, sizeof p);
    myri_pset set = {"bus", myri_bus_param_table, myri_bus_nparams, &p};
    myri_error err;
    assert_int_equal(myri_params_load(&set, 1, NULL, NULL, &err), MYRI_OK);
    assert_true(p.dma_rate_Bps > 100e6 && p.dma_rate_Bps <= 132e6); /* under the PCI 32/33 ceiling */
    assert_int_equal(p.burst_bytes, 256);
    assert_int_equal(p.pio_read_ps, 1000000);
    assert_int_equal(p.pio_write_ps, 120000);
    assert_int_equal(p.pio_word_ps, 30000);
    assert_int_equal(p.pio_merge_bytes, 32);
    assert_int_equal(p.pio_posted, 6);
    for (size_t i = 0; i < myri_bus_nparams; i++) {
        const char *h = myri_bus_param_table[i].help;
        assert_true(strstr(h, "assumption") || strstr(h, "myrinet-facts") || strstr(h, "seed") ||
                    strstr(h, "Reference Manual"));
    }
    myri_bus *b = myri_bus_create(&p);
    assert_non_null(b);
    /* a merged burst: the first word at pio_write, each further one at pio_word */
    assert_int_equal(myri_bus_pio_merge(b), 32);
    assert_int_equal(myri_bus_pio_posted(b), 6);
    assert_int_equal(myri_bus_pio_write_ps(b, 4), 120000);
    assert_int_equal(myri_bus_pio_write_ps(b, 32), 120000 + 7 * 30000);
    assert_int_equal(myri_bus_pio_write_ps(b, 5), 150000); /* a partial word is a whole data phase */
    assert_int_equal(myri_bus_pio_write_ps(b, 0), 0);
    myri_bus_destroy(b);
    /* zero (a test's bare struct): no merging, no posting -- the CPU waits for each word */
    p.pio_merge_bytes = 0;
    p.pio_posted = 0;
    b = myri_bus_create(&p);
    assert_int_equal(myri_bus_pio_merge(b), 4);
    assert_int_equal(myri_bus_pio_posted(b), 0);
    myri_bus_destroy(b);
}

/* Statistics taken at a time count each booking only up to then: a booking
 * reaches into the future as soon as it is made (issue 23, item 5: "I/O bus
 * 25 600 %" with bus.dma_rate = 1). */
static void test_stats_up_to_now(void **state)
{
    (void)state;
    myri_bus_params p = params();
    p.dma_rate_Bps = 1; /* 256 B take 256 s */
    myri_bus *b = myri_bus_create(&p);
    const myri_time_ps s = 1000000000000; /* 1 s */
    assert_int_equal(myri_bus_book(b, MYRI_BUS_DMA_E2L, 0, myri_bus_dma_ps(b, 256), 256), 0);
    assert_int_equal(myri_bus_book(b, MYRI_BUS_PIO_READ, s, 1000000, 4), 256 * s); /* waits 255 s */
    myri_bus_stats st;
    assert_int_equal(myri_bus_get_stats_at(b, 10 * s, &st), MYRI_OK);
    assert_int_equal(st.busy_ps[MYRI_BUS_DMA_E2L], 10 * s);
    assert_int_equal(st.busy_ps[MYRI_BUS_PIO_READ], 0);
    assert_int_equal(st.wait_ps[MYRI_BUS_PIO_READ], 9 * s);
    assert_int_equal(st.bookings[MYRI_BUS_PIO_READ], 1);
    assert_int_equal(myri_bus_get_stats_at(b, 256 * s + 400000, &st), MYRI_OK);
    assert_int_equal(st.busy_ps[MYRI_BUS_DMA_E2L], 256 * s);
    assert_int_equal(st.busy_ps[MYRI_BUS_PIO_READ], 400000);
    assert_int_equal(st.wait_ps[MYRI_BUS_PIO_READ], 255 * s);
    assert_int_equal(myri_bus_get_stats_at(b, s - 1, &st), MYRI_EINVAL); /* before the last booking was asked */
    /* without a clock, myri_bus_get_stats counts every booking whole */
    assert_int_equal(myri_bus_get_stats(b, &st), MYRI_OK);
    assert_int_equal(st.busy_ps[MYRI_BUS_PIO_READ], 1000000);
    /* with one, up to its now */
    myri_sim *sim = myri_sim_create(1);
    myri_bus_set_clock(b, sim);
    assert_int_equal(myri_sim_run(sim, 20 * s, 0), MYRI_OK);
    assert_int_equal(myri_bus_get_stats(b, &st), MYRI_OK);
    assert_int_equal(st.busy_ps[MYRI_BUS_DMA_E2L], 20 * s);
    myri_sim_destroy(sim);
    myri_bus_destroy(b);
}

/* A PIO read booked ahead of the clock (host.c books a read when no other
 * booking can come before its time, issue 24): it holds its place in the
 * bus's order, and the statistics count it only once the clock reaches the
 * time it was asked for, as if it had been booked then. */
static void test_book_ahead(void **state)
{
    (void)state;
    myri_bus_params p = params();
    myri_bus *b = myri_bus_create(&p);
    myri_sim *sim = myri_sim_create(1);
    myri_bus_set_clock(b, sim);
    const myri_time_ps us = 1000000;
    assert_int_equal(myri_bus_book(b, MYRI_BUS_DMA_E2L, 0, us, 100), 0);
    assert_int_equal(myri_bus_book(b, MYRI_BUS_PIO_READ, 2 * us, us, 4), 2 * us); /* at 0, for 2 us */
    myri_bus_stats st;
    assert_int_equal(myri_bus_get_stats(b, &st), MYRI_OK); /* now 0: not asked for yet */
    assert_int_equal(st.bookings[MYRI_BUS_PIO_READ], 0);
    assert_int_equal(st.bytes[MYRI_BUS_PIO_READ], 0);
    assert_int_equal(st.busy_ps[MYRI_BUS_PIO_READ], 0);
    assert_int_equal(st.bookings[MYRI_BUS_DMA_E2L], 1);
    assert_int_equal(myri_sim_run(sim, 2 * us + us / 2, 0), MYRI_OK);
    assert_int_equal(myri_bus_get_stats(b, &st), MYRI_OK);
    assert_int_equal(st.bookings[MYRI_BUS_PIO_READ], 1);
    assert_int_equal(st.bytes[MYRI_BUS_PIO_READ], 4);
    assert_int_equal(st.busy_ps[MYRI_BUS_PIO_READ], us / 2);
    assert_int_equal(st.busy_ps[MYRI_BUS_DMA_E2L], us);
    /* a burst asked for now waits for the read's end */
    assert_int_equal(myri_bus_book(b, MYRI_BUS_DMA_L2E, myri_sim_now(sim), us, 100), 3 * us);
    assert_int_equal(myri_sim_run(sim, 10 * us, 0), MYRI_OK);
    assert_int_equal(myri_bus_get_stats(b, &st), MYRI_OK);
    assert_int_equal(st.busy_ps[MYRI_BUS_PIO_READ], us);
    assert_int_equal(st.wait_ps[MYRI_BUS_DMA_L2E], us / 2);
    myri_sim_destroy(sim);
    myri_bus_destroy(b);
}

/* bus.dma_rate (B/s) and nic.clock (Hz) take units like every other value
 * (issue 23); a plain number is in the unit and gives the same double. */
static double load_one(const myri_param *tab, size_t n, void *out, const char *prefix, const char *text,
                       size_t off, myri_status want)
{
    myri_node *root = NULL;
    myri_error err;
    assert_int_equal(myri_doc_parse("(test)", text, strlen(text), &root, &err), MYRI_OK);
    myri_pset set = {prefix, tab, n, out};
    myri_status st = myri_params_load(&set, 1, root, NULL, &err);
    if (st != want) fail_msg("'%s': %d (%s)", text, (int)st, err.msg);
    myri_node_free(root);
    double v;
    memcpy(&v, (char *)out + off, sizeof v);
    return v;
}

static void test_rate_units(void **state)
{
    (void)state;
    myri_bus_params p;
    const size_t off = offsetof(myri_bus_params, dma_rate_Bps);
    const struct {
        const char *text;
        double Bps;
    } ok[] = {{"bus: {dma_rate: 120e6}\n", 120e6},      {"bus: {dma_rate: 120MB/s}\n", 120e6},
              {"bus: {dma_rate: 120 MB/s}\n", 120e6},   {"bus: {dma_rate: 960Mb/s}\n", 120e6},
              {"bus: {dma_rate: 85.891e6}\n", 85.891e6}, {"bus: {dma_rate: 55.5MB/s}\n", 55.5e6},
              {"bus: {dma_rate: 1}\n", 1},               {"bus: {dma_rate: 120000KB/s}\n", 120e6}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double v = load_one(myri_bus_param_table, myri_bus_nparams, &p, "bus", ok[i].text, off, MYRI_OK);
        if (v != ok[i].Bps) fail_msg("'%s' gave %.17g, not %.17g", ok[i].text, v, ok[i].Bps);
    }
    load_one(myri_bus_param_table, myri_bus_nparams, &p, "bus", "bus: {dma_rate: 120MHz}\n", off, MYRI_EINPUT);
    load_one(myri_bus_param_table, myri_bus_nparams, &p, "bus", "bus: {dma_rate: fast}\n", off, MYRI_EINPUT);
    load_one(myri_bus_param_table, myri_bus_nparams, &p, "bus", "bus: {dma_rate: 0.5B/s}\n", off, MYRI_EINPUT);
    myri_lanai_params np;
    const size_t coff = offsetof(myri_lanai_params, clock_hz);
    assert_true(load_one(myri_lanai_param_table, myri_lanai_nparams, &np, "nic", "nic: {clock: 33MHz}\n", coff,
                         MYRI_OK) == 33e6);
    assert_true(load_one(myri_lanai_param_table, myri_lanai_nparams, &np, "nic", "nic: {clock: 33e6}\n", coff,
                         MYRI_OK) == 33e6);
    assert_true(load_one(myri_lanai_param_table, myri_lanai_nparams, &np, "nic", "nic: {clock: 0.5GHz}\n", coff,
                         MYRI_OK) == 5e8);
    load_one(myri_lanai_param_table, myri_lanai_nparams, &np, "nic", "nic: {clock: 33MB/s}\n", coff, MYRI_EINPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_book_in_order),
        cmocka_unit_test(test_bad_params),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_stats_up_to_now),
        cmocka_unit_test(test_book_ahead),
        cmocka_unit_test(test_rate_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
