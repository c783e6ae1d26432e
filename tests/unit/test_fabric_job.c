/* test_fabric_job.c -- the fabric job end to end on small networks, with both
 * fabric models: conservation of packets, offered load, hotspot throughput
 * at the link rate, unloaded ping-pong, determinism, and bad traffic keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/fabric_job.h"

static const char *models[] = {"reference", "fast"};

static myri_status run(const char *text, const char *model, const uint64_t *seed, myri_fabric_run_result *r,
               myri_error *err)
{
    char doc[4096];
    snprintf(doc, sizeof doc, "%smodel: %s\n", text, model);
    myri_node *root = NULL;
    memset(err, 0, sizeof *err);
    assert_int_equal(myri_doc_parse("t.yaml", doc, strlen(doc), &root, err), MYRI_OK);
    myri_status st = myri_fabric_run_doc(root, seed, r, err);
    myri_node_free(root);
    return st;
}

static void run_ok(const char *text, const char *model, const uint64_t *seed, myri_fabric_run_result *r)
{
    myri_error err;
    myri_status st = run(text, model, seed, r, &err);
    if (st) fprintf(stderr, "run failed (%s): %s\n", model, err.msg);
    assert_int_equal(st, MYRI_OK);
    /* nothing vanishes uncounted */
    assert_int_equal(r->injected, r->delivered + r->dropped + r->in_flight);
}

static const char *star_uniform =
    "seed: 3\nwarmup: 50us\nduration: 2ms\n"
    "topology: {generator: star, hosts_per_switch: 8}\n"
    "traffic: {pattern: uniform, load: 0.3, size: 64B}\n";

/* The sources offer the load asked for: the measured share of the link's
 * character rate taken by the packets they inject is within 5 % of it. */
static void test_offered_load(void **state)
{
    (void)state;
    for (int m = 0; m < 2; m++) {
        myri_fabric_run_result r;
        run_ok(star_uniform, models[m], NULL, &r);
        assert_true(r.offered_load > 0.3 * 0.95 && r.offered_load < 0.3 * 1.05);
        assert_int_equal(r.dropped, 0);
        assert_true(r.delivered > 1000);
    }
}

/* Same seed, same hash; another seed, another hash; both models agree on
 * the packets (their hashes differ: the event sequences differ). */
static void test_determinism(void **state)
{
    (void)state;
    myri_fabric_run_result a, b, c, ref;
    uint64_t seed = 11;
    run_ok(star_uniform, "fast", &seed, &a);
    run_ok(star_uniform, "fast", &seed, &b);
    assert_int_equal(a.hash, b.hash);
    assert_int_equal(a.events, b.events);
    seed = 12;
    run_ok(star_uniform, "fast", &seed, &c);
    assert_true(a.hash != c.hash);
    seed = 11;
    run_ok(star_uniform, "reference", &seed, &ref);
    assert_int_equal(a.delivered, ref.delivered);
    assert_true(a.latency_mean_ns == ref.latency_mean_ns);
    assert_true(a.latency_p99_ns == ref.latency_p99_ns);
    assert_int_equal(a.result_hash, ref.result_hash); /* the model-independent hash */
    assert_int_equal(a.result_hash, b.result_hash);
    assert_true(a.result_hash != c.result_hash);
}

/* Seven hosts send to one on an 8-port switch at full rate: the output
 * channel carries payload at the link rate times the payload share of the
 * packet's characters, and nothing is lost. */
static void test_hotspot_throughput(void **state)
{
    (void)state;
    /* A switch without fall-through (latency = route time = T): the output
     * is never idle.  The default switch (537.5 ns of fall-through, counted in
     * the input's slack) restarts a stopped worm with a gap: 95 % of this
     * (docs/FABRIC.md, "The switch pipeline"); checked below. */
    const char *doc = "seed: 1\nwarmup: 100us\nduration: 2ms\n"
                      "switch: {latency: 12.5ns, route_time: 12.5ns}\n"
                      "topology: {generator: star, hosts_per_switch: 8}\n"
                      "traffic: {pattern: hotspot, hotspot: h0, load: 1.0, size: 256B, arrivals: periodic}\n";
    const char *dflt = "seed: 1\nwarmup: 100us\nduration: 2ms\n"
                       "topology: {generator: star, hosts_per_switch: 8}\n"
                       "traffic: {pattern: hotspot, hotspot: h0, load: 1.0, size: 256B, arrivals: periodic}\n";
    for (int m = 0; m < 2; m++) {
        myri_fabric_run_result r;
        run_ok(dflt, models[m], NULL, &r);
        double want = 80e6 * 256.0 / (4 + 256 + 1 + 1);
        assert_true(r.throughput_bytes_per_sec > 0.93 * want);
        assert_true(r.throughput_bytes_per_sec < 0.97 * want);
        assert_int_equal(r.dropped, 0);
    }
    for (int m = 0; m < 2; m++) {
        myri_fabric_run_result r;
        run_ok(doc, models[m], NULL, &r);
        /* 80 M characters/s (seed 002); on s0->h0 a packet is type (4) +
         * payload (256) + CRC (1) + GAP (1) characters */
        double want = 80e6 * 256.0 / (4 + 256 + 1 + 1);
        assert_true(r.throughput_bytes_per_sec > 0.98 * want);
        assert_true(r.throughput_bytes_per_sec < 1.001 * want);
        assert_int_equal(r.dropped, 0);
        assert_true(r.in_flight > 0); /* the senders' queues keep growing */
    }
}

/* Ping-pong on one cable: one packet in flight, every latency the same. */
static void test_pingpong_unloaded(void **state)
{
    (void)state;
    const char *doc = "seed: 1\nduration: 100us\ntopology: {generator: back-to-back}\n"
                      "traffic: {pattern: ping-pong, size: 64B}\n";
    for (int m = 0; m < 2; m++) {
        myri_fabric_run_result r;
        run_ok(doc, models[m], NULL, &r);
        assert_true(r.delivered > 50);
        assert_true(r.in_flight <= 1);
        assert_true(r.latency_mean_ns == r.latency_p99_ns);
        /* (4 + 64 + 1 + 1) characters of 12.5 ns, plus 10 m at 0.6 c */
        assert_true(r.latency_mean_ns > 70 * 12.5 && r.latency_mean_ns < 70 * 12.5 + 60);
    }
}

/* A network with one host: no pattern has anyone to send to (and the random
 * permutation must not search forever for a derangement). */
static void test_single_host(void **state)
{
    (void)state;
    const char *pats[] = {"uniform", "permutation", "hotspot", "ping-pong", "none"};
    for (int i = 0; i < 5; i++) {
        char doc[512];
        snprintf(doc, sizeof doc,
                 "topology: {hosts: [a], switches: [{name: s, ports: 4}], links: [{a: a, b: [s, 0]}]}\n"
                 "traffic: {pattern: %s}\n", pats[i]);
        myri_fabric_run_result r;
        run_ok(doc, "fast", NULL, &r);
        assert_int_equal(r.injected, 0);
    }
}

static void test_bad_traffic(void **state)
{
    (void)state;
    myri_fabric_run_result r;
    myri_error err;
    assert_int_equal(run("topology: {generator: star}\ntraffic: {pattern: hotspot, hotspot: s0}\n", "fast", NULL,
                         &r, &err),
                     MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "t.yaml:2:38: traffic.hotspot: 's0' is not a host"));
    assert_int_equal(run("traffic: {load: 1.5}\n", "fast", NULL, &r, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "t.yaml:1:17:"));
    /* the parts of the message, kept apart */
    assert_string_equal(err.file, "t.yaml");
    assert_int_equal(err.line, 1);
    assert_int_equal(err.col, 17);
    assert_string_equal(err.key, "traffic.load");
    assert_int_equal(run("link: {slack: {size: 80B, stop: 90B}}\n", "fast", NULL, &r, &err), MYRI_EINPUT);
    assert_string_equal(err.key, "link.slack.stop");
    assert_int_equal(err.line, 1);
    assert_int_equal(run("traffic: {size_dist: empirical, sizes: [[64B, 0]]}\n", "fast", NULL, &r, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "positive sum"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offered_load),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_hotspot_throughput),
        cmocka_unit_test(test_pingpong_unloaded),
        cmocka_unit_test(test_single_host),
        cmocka_unit_test(test_bad_traffic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
