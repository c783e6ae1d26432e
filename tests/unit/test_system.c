/* test_system.c -- the system job end to end: programs on hosts through the
 * API, LANai NICs running seed 001's MCP, the fabric.  Every byte a program
 * sends is checked by the program that receives it (its `errors` figure).
 * Same seed, same hash; the clock-advance shortcut changes nothing; packets
 * are accounted for; the VCD timeline reads back; bad input is an error with
 * its position. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "app/system_job.h"
#include "myri/config.h"

static const char two_hosts[] = "job: system\n"
                                "preset: alpha-pci-1998\n"
                                "topology: {generator: star, hosts_per_switch: 2}\n";

/* Runs `base` + `extra` YAML with optional --set style assignments. */
static myri_status run_text(const char *extra, const char *const *sets, const myri_run_opts *ro,
                            myri_system_result *res, myri_error *err)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s", two_hosts, extra);
    myri_node *root = NULL;
    myri_status st = myri_doc_parse("test.yaml", text, strlen(text), &root, err);
    for (size_t i = 0; !st && sets && sets[i]; i++) st = myri_node_set(root, sets[i], err);
    myri_run_opts none = {0};
    if (!st) st = myri_system_run_doc(root, NULL, ro ? ro : &none, res, err);
    myri_node_free(root);
    return st;
}

static double fig(const myri_system_result *r, const char *key)
{
    double v = myri_system_figure_get(r, key);
    if (isnan(v)) fail_msg("no figure %s", key);
    return v;
}

/* Sum of a figure over every program that reported it. */
static double fig_sum(const myri_system_result *r, const char *key)
{
    double s = 0;
    for (size_t i = 0; i < r->nfig; i++)
        if (!strcmp(r->fig[i].key, key)) s += r->fig[i].value;
    return s;
}

static const char pingpong_sizes[] =
    "programs:\n"
    "  - program: pingpong\n"
    "    hosts: [h0, h1]\n"
    "    args: [\"sizes=1,4,255,256,257,1023,1024,1025,4096,8191,8192\", reps=3, warmup=1]\n";

/* One packet per protocol class -- PIO (<= mcp.pio_bytes), DMA, overlapped
 * send chunks, exactly at and around each threshold, the maximum size --
 * in each receive mode: every byte arrives as sent. */
static void test_every_class_every_byte(void **state)
{
    (void)state;
    static const char *const modes[][4] = {
        {"mcp.recv_mode=interrupt", "mcp.ovl_send=true", NULL},
        {"mcp.recv_mode=polled", "mcp.ovl_send=true", NULL},
        {"mcp.recv_mode=interrupt", "mcp.ovl_send=false", "mcp.pio_bytes=0", NULL},
        {"mcp.recv_mode=polled", "mcp.dma_notify=false", "mcp.route_send=pio", NULL},
    };
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        myri_system_result r;
        myri_error err;
        assert_int_equal(run_text(pingpong_sizes, modes[m], NULL, &r, &err), MYRI_OK);
        assert_true(r.all_done);
        assert_int_equal(r.worst_exit, 0);
        assert_true(fig_sum(&r, "pingpong.errors") == 0);
        assert_true(fig(&r, "pingpong.1.latency_us") > 0);
        assert_true(fig(&r, "pingpong.8192.latency_us") > fig(&r, "pingpong.1.latency_us"));
        myri_system_result_free(&r);
    }
}

/* Same seed, same hash; another seed with random traffic, another hash; the
 * clock-advance shortcut gives the same run. */
static void test_same_seed_same_hash(void **state)
{
    (void)state;
    static const char traffic[] = "programs:\n"
                                  "  - {program: traffic, hosts: all, args: [size=300, interval_us=20, "
                                  "duration_us=300, drain_us=300]}\n";
    static const char *const seed2[] = {"seed=2", NULL};
    myri_system_result a, b, c, d;
    myri_error err;
    myri_run_opts slow = {.no_advance = true};
    assert_int_equal(run_text(traffic, NULL, NULL, &a, &err), MYRI_OK);
    assert_int_equal(run_text(traffic, NULL, NULL, &b, &err), MYRI_OK);
    assert_int_equal(run_text(traffic, NULL, &slow, &c, &err), MYRI_OK);
    assert_int_equal(run_text(traffic, seed2, NULL, &d, &err), MYRI_OK);
    assert_true(a.hash == b.hash);
    assert_true(a.hash == c.hash);
    assert_true(a.sim_time_ps == c.sim_time_ps);
    assert_true(a.hash != d.hash);
    assert_true(fig_sum(&a, "traffic.sent") > 10);
    assert_true(fig_sum(&a, "traffic.errors") == 0);
    myri_system_result_free(&a);
    myri_system_result_free(&b);
    myri_system_result_free(&c);
    myri_system_result_free(&d);
}

/* `reordered` counts a packet that arrives after a later one of the same
 * (sender, receiver) pair.  Four hosts send to random peers over fixed
 * routes: no pair's packets can overtake each other, so none is reordered
 * (a sequence shared by all of a sender's destinations made every packet
 * after one to another peer look out of order). */
static void test_traffic_no_false_reordering(void **state)
{
    (void)state;
    static const char traffic[] = "programs:\n"
                                  "  - {program: traffic, hosts: all, args: [size=200, interval_us=10, "
                                  "duration_us=1000, drain_us=1000]}\n";
    static const char *const four[] = {"topology.hosts_per_switch=4", NULL};
    myri_system_result r;
    myri_error err;
    assert_int_equal(run_text(traffic, four, NULL, &r, &err), MYRI_OK);
    assert_int_equal(r.worst_exit, 0);
    double sent = fig_sum(&r, "traffic.sent");
    assert_true(sent > 200);
    assert_true(fig_sum(&r, "traffic.received") == sent);
    assert_true(fig_sum(&r, "traffic.reordered") == 0);
    myri_system_result_free(&r);
}

/* Conservation: every packet a program sent is received by a program, or
 * counted by the MCPs with a drop reason, or by the fabric. */
static void test_conservation_with_bit_errors(void **state)
{
    (void)state;
    static const char traffic[] = "link: {ber: 2e-5}\n"
                                  "programs:\n"
                                  "  - {program: traffic, hosts: all, args: [size=600, interval_us=15, "
                                  "duration_us=2000, drain_us=2000]}\n";
    myri_system_result r;
    myri_error err;
    assert_int_equal(run_text(traffic, NULL, NULL, &r, &err), MYRI_OK);
    double sent = fig_sum(&r, "traffic.sent"), received = fig_sum(&r, "traffic.received");
    double crc = fig_sum(&r, "nic.drop_crc"), other = fig_sum(&r, "nic.drops_other");
    double fabric = fig_sum(&r, "fabric.dropped_in_network"), left = fig_sum(&r, "nic.left_in_channels");
    assert_true(sent > 100);
    assert_true(crc > 0); /* the bit errors were seen and dropped by reason */
    assert_true(sent == received + crc + other + fabric + left);
    assert_true(fig_sum(&r, "traffic.errors") == 0); /* no corrupted byte reached a program */
    assert_true(fig_sum(&r, "traffic.reordered") == 0); /* a packet lost is a gap, not reordering */
    /* issue 23: traffic counts its losses (by sequence number and closing tallies) */
    assert_true(sent == received + fig_sum(&r, "traffic.lost") + fig_sum(&r, "traffic.corrupted"));
    assert_true(fig_sum(&r, "traffic.lost") == crc + other + fabric);
    assert_false(r.all_done && r.worst_exit == 0); /* a run that lost packets fails */
    myri_system_result_free(&r);
}

/* Issue 23 item 3: every program that sends reports sent, received, lost and
 * corrupted, and nic.left_in_channels is read from the channels (RC_PUT -
 * RC_FREED): the accounting balances for each, with and without bit errors. */
static void test_conservation_every_program(void **state)
{
    (void)state;
    static const char *const progs[] = {
        "{program: pingpong, hosts: [h0, h1], args: [\"sizes=64,1024,4096\", reps=20, timeout_us=2000]}",
        "{program: stream, hosts: [h0, h1], args: [count=100, size=4096, timeout_us=2000]}",
        "{program: traffic, hosts: [h1, h3], args: [size=600, interval_us=40, duration_us=2000, drain_us=2000]}",
    };
    const char *tags[] = {"pingpong", "stream", "traffic"};
    for (int k = 0; k < 3; k++)
        for (int ber = 0; ber < 2; ber++) {
            char text[512], key[64];
            snprintf(text, sizeof text, "link: {ber: %s}\nprograms:\n  - %s\n",
                     ber ? "1e-5" : "0", progs[k]);
            myri_system_result r;
            myri_error err;
            const char *four[] = {"topology.hosts_per_switch=4", NULL};
            assert_int_equal(run_text(text, four, NULL, &r, &err), MYRI_OK);
            double v[4];
            const char *what[4] = {"sent", "received", "lost", "corrupted"};
            for (int w = 0; w < 4; w++) {
                snprintf(key, sizeof key, "%s.%s", tags[k], what[w]);
                v[w] = fig_sum(&r, key);
            }
            double left = fig_sum(&r, "nic.left_in_channels"), rx = fig_sum(&r, "nic.rx_good");
            double gone = fig_sum(&r, "nic.drop_crc") + fig_sum(&r, "nic.drops_other") +
                          fig_sum(&r, "fabric.dropped_in_network");
            assert_true(v[0] > 10);
            assert_true(rx == v[1] + v[3] + left); /* what the NICs delivered: taken, or still in a channel */
            assert_true(v[0] == rx + gone);        /* every packet sent: delivered, or dropped by reason */
            if (!ber) {
                assert_true(left == 0 && v[2] == 0 && v[0] == v[1]);
                assert_true(r.all_done && r.worst_exit == 0);
            } else {
                assert_true(gone > 0 && v[2] > 0); /* lost, named and counted, and the run fails */
                assert_false(r.all_done && r.worst_exit == 0);
            }
            myri_system_result_free(&r);
        }
}

/* A firmware that never re-arms its receive DMA: the receiver's slack fills,
 * STOP holds the switch's output, and the long-period timeout (link.timeout)
 * breaks the blocked path with FRES: the packets are counted as dropped by
 * timeout, nothing hangs. */
static void test_never_rearm_timeout(void **state)
{
    (void)state;
    static const char one_way[] = "duration: 6ms\n"
                                  "link: {timeout: 1ms}\n"
                                  "mcp: {rearm: false}\n"
                                  "programs:\n"
                                  "  - {program: stream, hosts: [h0, h1], args: [count=20, size=2000, window=4, "
                                  "timeout_us=4000]}\n";
    myri_system_result r;
    myri_error err;
    assert_int_equal(run_text(one_way, NULL, NULL, &r, &err), MYRI_OK);
    assert_false(r.all_done && r.worst_exit == 0); /* the stream cannot complete */
    assert_true(fig(&r, "fabric.drop.timeout") >= 1);
    assert_true(fig(&r, "nic.rx_good") <= 2); /* at most what the never re-armed buffer took */
    myri_system_result_free(&r);
}

/* The DMA registers are lanes of the VCD, and the receive DMA is busy while
 * the bytes arrive.  A run whose first packet is 4 KiB: the VCD has EAR,
 * LAR, DMA_CTR, SMP, SML, SMLT, RMP and RML (32 bits) on both NICs, each
 * taking values; DMA_CTR counts down burst by burst (live); RMP moves; and
 * h1's first receive interval lasts at least the wire time of its 4 KiB
 * (before, it began at the last chunk: 130 ns). */
#define VCD_MAXV 64
typedef struct vcd_lane {
    char id[16], scope[16], name[32];
    unsigned width, changes, distinct_ctr;
    unsigned long long last, rise, first_busy_ps;
} vcd_lane;

static vcd_lane *vcd_find(vcd_lane *v, int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i].id, id)) return &v[i];
    return NULL;
}

static void vcd_change(vcd_lane *l, unsigned long long val, unsigned long long t, bool dumpvars)
{
    if (dumpvars || !l) return;
    l->changes++;
    if (!strcmp(l->name, "dma_ctr") && val && val < l->last) l->distinct_ctr++;
    if (!strcmp(l->name, "recv_dma")) {
        if (val) l->rise = t;
        else if (!l->first_busy_ps && l->rise) l->first_busy_ps = t - l->rise;
    }
    l->last = val;
}

static void test_vcd_dma_registers_first_4k(void **state)
{
    (void)state;
    char path[] = "/tmp/myri_test_vcd4k_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    myri_run_opts ro = {.vcd_path = path};
    myri_system_result r;
    myri_error err;
    static const char pp[] = "programs:\n  - {program: pingpong, hosts: [h0, h1], args: [sizes=4096, reps=1, warmup=0]}\n";
    assert_int_equal(run_text(pp, NULL, &ro, &r, &err), MYRI_OK);
    assert_int_equal(r.worst_exit, 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    vcd_lane v[VCD_MAXV];
    int n = 0;
    char line[512], scope[16] = "";
    unsigned long long t = 0;
    bool dumpvars = false;
    while (fgets(line, sizeof line, f)) {
        char a[64], b[64];
        unsigned w;
        if (sscanf(line, "$scope module %15s", scope) == 1) continue;
        if (n < VCD_MAXV && sscanf(line, "$var wire %u %15s %31s", &w, a, b) == 3) {
            v[n] = (vcd_lane){.width = w};
            snprintf(v[n].id, sizeof v[n].id, "%.15s", a);
            snprintf(v[n].scope, sizeof v[n].scope, "%s", scope);
            snprintf(v[n].name, sizeof v[n].name, "%.31s", b);
            n++;
        } else if (!strncmp(line, "$dumpvars", 9)) dumpvars = true;
        else if (!strncmp(line, "$end", 4)) dumpvars = false;
        else if (line[0] == '#') t = strtoull(line + 1, NULL, 10);
        else if (line[0] == 'b' && sscanf(line, "b%63s %15s", a, b) == 2)
            vcd_change(vcd_find(v, n, b), strtoull(a, NULL, 2), t, dumpvars);
        else if ((line[0] == '0' || line[0] == '1') && sscanf(line + 1, "%15s", b) == 1)
            vcd_change(vcd_find(v, n, b), (unsigned long long)(line[0] - '0'), t, dumpvars);
    }
    fclose(f);
    remove(path);
    static const char *const regs[] = {"ear", "lar", "dma_ctr", "smp", "sml", "smlt", "rmp", "rml"};
    static const char *const nics[] = {"h0", "h1"};
    for (size_t h = 0; h < 2; h++) {
        for (size_t k = 0; k < sizeof regs / sizeof regs[0]; k++) {
            const vcd_lane *l = NULL;
            for (int i = 0; i < n; i++)
                if (!strcmp(v[i].scope, nics[h]) && !strcmp(v[i].name, regs[k])) l = &v[i];
            if (!l) fail_msg("%s has no %s lane", nics[h], regs[k]);
            assert_int_equal(l->width, 32);
            if (l->changes == 0) fail_msg("%s %s never changes", nics[h], regs[k]);
            if (!strcmp(regs[k], "dma_ctr")) assert_true(l->distinct_ctr >= 8); /* 4 KiB in 512-byte bursts */
            if (!strcmp(regs[k], "rmp")) assert_true(l->changes >= 2);      /* armed, then moved by the bytes */
        }
    }
    const vcd_lane *rx = NULL;
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i].scope, "h1") && !strcmp(v[i].name, "recv_dma")) rx = &v[i];
    assert_non_null(rx);
    /* 4096 bytes of payload (and the frame around them) at the link's 6.25 ns a byte (1.28 Gb/s) */
    unsigned long long wire_ps = 4096ull * 6250ull;
    if (rx->first_busy_ps < wire_ps)
        fail_msg("h1's first receive interval %llu ps < the wire time %llu ps", rx->first_busy_ps, wire_ps);
    myri_system_result_free(&r);
}

/* A timeline for GTKWave: header, one scope per NIC, value changes in time order. */
static void test_vcd_reads_back(void **state)
{
    (void)state;
    char path[] = "/tmp/myri_test_vcd_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    myri_run_opts ro = {.vcd_path = path};
    myri_system_result r;
    myri_error err;
    static const char pp[] = "programs:\n  - {program: pingpong, hosts: [h0, h1], args: [sizes=1024, reps=2]}\n";
    assert_int_equal(run_text(pp, NULL, &ro, &r, &err), MYRI_OK);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    int scopes = 0, enddefs = 0, sdma_id_found = 0, changes = 0, sdma_rises = 0, rdma_wide = 0, rdma_ids = 0;
    unsigned long long t = 0, last = 0, rdma_rise[2] = {0, 0};
    char sdma_id[16] = "", rdma_id[2][16] = {"", ""};
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "$scope module h", 15)) scopes++;
        if (!strncmp(line, "$enddefinitions", 15)) enddefs++;
        char id[16];
        if (rdma_ids < 2 && sscanf(line, "$var wire 1 %15s recv_dma $end", id) == 1)
            snprintf(rdma_id[rdma_ids++], sizeof rdma_id[0], "%s", id);
        if (!sdma_id_found && sscanf(line, "$var wire 1 %15s send_dma $end", id) == 1) {
            snprintf(sdma_id, sizeof sdma_id, "%s", id);
            sdma_id_found = 1;
        }
        if (line[0] == '#') {
            t = strtoull(line + 1, NULL, 10);
            assert_true(t >= last);
            last = t;
        } else if (enddefs && (line[0] == '0' || line[0] == '1' || line[0] == 'b')) {
            changes++;
            char *nl = strchr(line, '\n');
            if (nl) *nl = '\0';
            if (line[0] == '1' && sdma_id_found && !strcmp(line + 1, sdma_id) && t > 0) sdma_rises++;
            for (int k = 0; k < 2 && k < rdma_ids; k++) { /* the receive DMA is busy from a packet's head to its tail */
                if (strncmp(line + 1, rdma_id[k], sizeof rdma_id[k]) != 0) continue;
                if (line[0] == '1') rdma_rise[k] = t;
                else if (t > rdma_rise[k] && rdma_rise[k] > 0) rdma_wide++;
            }
        }
    }
    fclose(f);
    remove(path);
    assert_int_equal(scopes, 2);
    assert_int_equal(enddefs, 1);
    assert_true(sdma_id_found);
    assert_true(sdma_rises >= 3); /* h0 sent at least the warm-up and the two repetitions */
    assert_true(rdma_wide >= 3);  /* the receive DMA's busy times have their width (written in time order) */
    assert_true(changes > 50);
    assert_true(last == r.sim_time_ps);
    myri_system_result_free(&r);
}

/* Bad input: a clear error with its position, never a run. */
static void test_bad_input(void **state)
{
    (void)state;
    static const struct {
        const char *extra, *want;
    } cases[] = {
        {"firmware: nope\n", "unknown firmware 'nope'"},
        {"packet: {type_bytes: 4}\n", "two-byte type"},
        {"programs: {program: pingpong}\n", "expected a list"},
        {"programs:\n  - {program: nope}\n", "unknown program 'nope'"},
        {"programs:\n  - {program: pingpong, hosts: [h9]}\n", "'h9' is not a host"},
        {"programs:\n  - {program: pingpong, args: {a: 1}}\n", "expected a list of key=value words"},
        {"programs:\n  - {program: user}\n", "--program"},
        {"mcp: {nchan: 0}\n", "mcp.nchan"},
        {"nic: {clock: -1}\n", "nic.clock"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        myri_system_result r;
        myri_error err;
        myri_error_clear(&err);
        assert_int_equal(run_text(cases[i].extra, NULL, NULL, &r, &err), MYRI_EINPUT);
        if (!strstr(err.msg, cases[i].want) && !strstr(err.key, cases[i].want))
            fail_msg("case %zu: '%s' not in '%s' (key %s)", i, cases[i].want, err.msg, err.key);
    }
    static const char *const bad_preset[] = {"preset=nope", NULL};
    myri_system_result r;
    myri_error err;
    assert_int_equal(run_text("", bad_preset, NULL, &r, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "unknown preset 'nope'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_class_every_byte), cmocka_unit_test(test_same_seed_same_hash),
        cmocka_unit_test(test_conservation_with_bit_errors),
        cmocka_unit_test(test_conservation_every_program), cmocka_unit_test(test_never_rearm_timeout),
        cmocka_unit_test(test_vcd_reads_back),
        cmocka_unit_test(test_vcd_dma_registers_first_4k),
        cmocka_unit_test(test_traffic_no_false_reordering),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
