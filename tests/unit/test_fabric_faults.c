/* test_fabric_faults.c -- the scenario's `faults:` list (fabric_faults.h)
 * against a real fabric, in both models: a cut stops a packet on the wire at
 * the given time and drops it `link_down`, a packet sent while the cable is
 * down is dropped, a packet sent after the restore arrives; a scripted
 * corruption is caught by the CRC and its fate is reported; API misuse
 * returns error codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fabric/fabric_faults.h"
#include "fabric_testlib.h"

/* Two hosts on one 4-port switch, 10 m cables. */
static const char *net = "topology: {generator: star, hosts_per_switch: 2}\nswitch: {ports: 4}\n";

typedef struct fx {
    myri_node *root;
    myri_topo_built b;
    myri_sim *sim;
    myri_fabric *f;
    myri_ffaults *ff;
    ft_log *log;
} fx;

static void fx_delivered(void *ctx, const myri_fabric_delivery *d)
{
    fx *x = ctx;
    ft_delivered(x->log, d);
    myri_ffaults_note(x->ff, d->id, -1, d->tail_ps);
}

static void fx_dropped(void *ctx, uint64_t id, myri_fabric_drop_reason r, myri_time_ps t)
{
    fx *x = ctx;
    ft_dropped(x->log, id, r, t);
    myri_ffaults_note(x->ff, id, (int)r, t);
}

/* Builds the network and applies `faults_yaml` (a `faults:` line); returns
 * the status of myri_ffaults_apply, error text in err. */
static myri_status fx_setup(fx *x, int model, const char *faults_yaml, myri_time_ps end_ps, myri_error *err)
{
    memset(x, 0, sizeof *x);
    char doc[2048];
    snprintf(doc, sizeof doc, "%s%s\n", net, faults_yaml);
    assert_int_equal(myri_doc_parse("t.yaml", doc, strlen(doc), &x->root, err), MYRI_OK);
    assert_int_equal(myri_topo_load_doc(x->root, &x->b, err), MYRI_OK);
    x->sim = myri_sim_create(1);
    x->log = calloc(1, sizeof *x->log);
    assert_non_null(x->log);
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    p.model = model;
    assert_int_equal(myri_fabric_params_check(&p, err), MYRI_OK);
    myri_fabric_callbacks cb = {fx_delivered, fx_dropped, x};
    assert_int_equal(myri_fabric_create(x->sim, x->b.topo, &p, &cb, &x->f, err), MYRI_OK);
    myri_ffaults_config c = {myri_node_get(x->root, "faults")};
    return myri_ffaults_apply(&c, x->b.topo, x->f, end_ps, &x->ff, err);
}

static void fx_free(fx *x)
{
    myri_ffaults_free(x->ff);
    myri_sim_destroy(x->sim);
    myri_topo_built_free(&x->b);
    myri_node_free(x->root);
    free(x->log);
}

/* Host `src` sends packet `id` with `payload` bytes to the other host now. */
static void fx_send(fx *x, uint32_t src, uint64_t id, uint32_t payload)
{
    const myri_route *r = myri_routes_get(&x->b.routes, src, 1 - src, &(myri_route){0});
    myri_fabric_packet pk = {.id = id, .src_host = src, .route_len = r->len, .route = r->byte, .type = 5,
                             .payload_bytes = payload};
    assert_int_equal(myri_fabric_send(x->f, &pk), MYRI_OK);
}

static const ft_rec *fx_rec(const fx *x, uint64_t id)
{
    for (size_t i = 0; i < x->log->n; i++)
        if (x->log->rec[i].id == id) return &x->log->rec[i];
    return NULL;
}

/* The JSON of ff's report. */
static char *fx_json(const myri_ffaults *ff)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    assert_non_null(mem);
    myri_json *j = myri_json_create(mem, false);
    myri_json_obj_begin(j);
    myri_ffaults_report_json(ff, j);
    myri_json_obj_end(j);
    myri_json_finish(j);
    fclose(mem);
    return buf;
}

/* h0's cable cut at 10 us, restored at 40 us.  Packet 1 (4 KiB, about 51 us
 * on the wire at 640 Mb/s) is being sent at the cut: dropped link_down and
 * truncated on h0's channel.  Packet 2 is sent at 20 us into the dead cable:
 * dropped at once.  Packet 3 is sent at 50 us: delivered. */
static void test_cut_restore(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        fx x;
        myri_error err;
        myri_status st = fx_setup(&x, model,
                                  "faults:\n  - {at: 10us, action: cut, link: h0}\n"
                                  "  - {at: 40us, action: restore, link: s0.0}",
                                  MYRI_PS_PER_MS, &err);
        if (st) fprintf(stderr, "%s\n", err.msg);
        assert_int_equal(st, MYRI_OK);
        assert_int_equal(myri_ffaults_count(x.ff), 2);
        fx_send(&x, 0, 1, 4096);
        myri_sim_run(x.sim, 20 * MYRI_PS_PER_US, 0);
        fx_send(&x, 0, 2, 64);
        myri_sim_run(x.sim, 50 * MYRI_PS_PER_US, 0);
        fx_send(&x, 0, 3, 64);
        myri_sim_run(x.sim, MYRI_PS_PER_MS, 0);
        const ft_rec *r1 = fx_rec(&x, 1), *r2 = fx_rec(&x, 2), *r3 = fx_rec(&x, 3);
        assert_non_null(r1);
        assert_non_null(r2);
        assert_non_null(r3);
        assert_int_equal(r1->reason, MYRI_FABRIC_DROP_LINK_DOWN);
        assert_int_equal(r1->t, 10 * MYRI_PS_PER_US); /* exactly at the cut */
        assert_int_equal(r2->reason, MYRI_FABRIC_DROP_LINK_DOWN);
        assert_int_equal(r3->reason, -1);
        myri_fabric_channel_stats cs;
        int64_t l = x.b.topo->node[x.b.topo->host_node[0]].port[0].link;
        size_t ch = 2 * (size_t)l + (x.b.topo->link[l].a_node == x.b.topo->host_node[0] ? 0 : 1);
        assert_int_equal(myri_fabric_get_channel_stats(x.f, ch, &cs), MYRI_OK);
        assert_int_equal(cs.truncated, 1);
        myri_fabric_counters c;
        myri_fabric_get_counters(x.f, &c);
        assert_int_equal(c.dropped[MYRI_FABRIC_DROP_LINK_DOWN], 2);
        assert_int_equal(c.delivered, 1);
        fx_free(&x);
    }
}

/* Packet h1#0 corrupted in its payload on h1's own channel: dropped crc, and
 * the report says so; h1#1 is untouched and delivered. */
static void test_corrupt_fate(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        fx x;
        myri_error err;
        assert_int_equal(fx_setup(&x, model,
                                  "faults:\n  - {action: corrupt, link: h1, from: h1, source: h1, seq: 0, "
                                  "byte: 10, mask: 128}",
                                  MYRI_PS_PER_MS, &err),
                         MYRI_OK);
        uint64_t id0 = 1ull << 40, id1 = (1ull << 40) | 1;
        fx_send(&x, 1, id0, 64);
        fx_send(&x, 1, id1, 64);
        myri_sim_run(x.sim, MYRI_PS_PER_MS, 0);
        assert_int_equal(fx_rec(&x, id0)->reason, MYRI_FABRIC_DROP_CRC);
        assert_int_equal(fx_rec(&x, id1)->reason, -1);
        char *buf = fx_json(x.ff);
        assert_non_null(strstr(buf, "\"fate\":\"crc\""));
        assert_non_null(strstr(buf, "\"packet_name\":\"h1#0\""));
        free(buf);
        fx_free(&x);
    }
}

/* A cut run's partition that saw a fate sends it packed (across MPI ranks:
 * untrusted words) and rank 0 merges it into its own, which saw none; a
 * short or out-of-range record is refused and leaves the fates unchanged. */
static void test_fates_packed(void **state)
{
    (void)state;
    const char *fy = "faults:\n  - {action: corrupt, link: h1, from: h1, source: h1, seq: 0, byte: 10, mask: 128}";
    fx x, y;
    myri_error err;
    assert_int_equal(fx_setup(&x, 0, fy, MYRI_PS_PER_MS, &err), MYRI_OK);
    fx_send(&x, 1, 1ull << 40, 64);
    myri_sim_run(x.sim, MYRI_PS_PER_MS, 0);
    size_t nw = myri_ffaults_pack(x.ff, NULL, 0);
    assert_int_equal(nw, 2);
    uint64_t w[2], bad[2];
    assert_int_equal(myri_ffaults_pack(x.ff, w, nw), nw);
    assert_int_equal(fx_setup(&y, 0, fy, MYRI_PS_PER_MS, &err), MYRI_OK);
    char *before = fx_json(y.ff);
    assert_non_null(strstr(before, "not_finished"));
    assert_int_equal(myri_ffaults_merge_packed(y.ff, w, nw - 1), MYRI_EINVAL);
    bad[0] = (uint64_t)(int64_t)MYRI_FABRIC_DROP_NREASONS, bad[1] = w[1];
    assert_int_equal(myri_ffaults_merge_packed(y.ff, bad, 2), MYRI_EINVAL);
    bad[0] = (uint64_t)(int64_t)-4;
    assert_int_equal(myri_ffaults_merge_packed(y.ff, bad, 2), MYRI_EINVAL);
    assert_int_equal(myri_ffaults_merge_packed(NULL, w, nw), MYRI_EINVAL);
    char *same = fx_json(y.ff);
    assert_string_equal(before, same);
    assert_int_equal(myri_ffaults_merge_packed(y.ff, w, nw), MYRI_OK);
    char *after = fx_json(y.ff), *want = fx_json(x.ff);
    assert_non_null(strstr(after, "\"fate\":\"crc\""));
    assert_string_equal(after, want);
    free(before), free(same), free(after), free(want);
    fx_free(&x);
    fx_free(&y);
}

/* Input errors carry the position of the item or key; misuse gives codes. */
static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *yaml, *want;
    } cases[] = {
        {"faults:\n  - {at: 2ms, action: cut, link: h0}", "t.yaml:4:10: faults: at 2ms is after the end"},
        {"faults:\n  - {at: 1us, action: cut, link: s0.3}", "t.yaml:4:34: faults: link 's0.3' is not a link"},
        {"faults:\n  - {at: 1us, action: restore, link: h1}", "t.yaml:4:5: faults: link 'h1' is not cut"},
        {"faults: {at: 1us}", "t.yaml:3:9: faults must be a list"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx x;
        myri_error err;
        assert_int_equal(fx_setup(&x, 0, cases[i].yaml, MYRI_PS_PER_MS, &err), MYRI_EINPUT);
        if (strncmp(err.msg, cases[i].want, strlen(cases[i].want)) != 0)
            fail_msg("got '%s', want '%s...'", err.msg, cases[i].want);
        assert_null(x.ff);
        fx_free(&x);
    }
    fx x;
    myri_error err;
    assert_int_equal(fx_setup(&x, 0, "seed: 1", MYRI_PS_PER_MS, &err), MYRI_OK);
    assert_null(x.ff); /* no faults key: nothing to do */
    myri_ffaults_config c = {myri_node_get(x.root, "topology")};
    myri_ffaults *ff = NULL;
    assert_int_equal(myri_ffaults_apply(&c, x.b.topo, x.f, 0, NULL, &err), MYRI_EINVAL);
    assert_int_equal(myri_ffaults_apply(&c, NULL, x.f, 0, &ff, &err), MYRI_EINVAL);
    assert_int_equal(myri_ffaults_apply(&c, x.b.topo, NULL, 0, &ff, &err), MYRI_EINVAL);
    assert_int_equal(myri_ffaults_apply(NULL, x.b.topo, x.f, 0, &ff, &err), MYRI_OK);
    assert_null(ff);
    myri_ffaults_note(NULL, 1, -1, 0);
    assert_int_equal(myri_ffaults_count(NULL), 0);
    myri_ffaults_report_text(NULL, stdout);
    myri_ffaults_free(NULL);
    fx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cut_restore),
        cmocka_unit_test(test_corrupt_fate),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_fates_packed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
