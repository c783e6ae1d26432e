/* test_config_params.c -- parameter tables: loading every type, defaults,
 * ranges, required values, unknown keys with positions, --set through the
 * loader, help and echo output. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "myri/config.h"
#include "myri/job.h"
#include "myri/json.h"

typedef struct common_cfg {
    int64_t seed;
    uint64_t duration_ps;
    const char *job;
} common_cfg;

typedef struct link_cfg {
    double rate_bps;
    double length_m;
    uint64_t slack_bytes;
    uint64_t delay_ps;
    double load;
    bool stop_go;
    int mode;
    int64_t ports;
    const myri_node *hosts;
} link_cfg;

static const myri_param common_params[] = {
    {"seed", MYRI_P_INT, "", "1", "0", NULL, "random seed", offsetof(common_cfg, seed), NULL},
    {"duration", MYRI_P_TIME, "", "1ms", "1ps", "10s", "simulated time",
     offsetof(common_cfg, duration_ps), NULL},
    {"job", MYRI_P_STRING, "", "hold", NULL, NULL, "what to run", offsetof(common_cfg, job),
     NULL},
};

static const myri_param link_params[] = {
    {"rate", MYRI_P_RATE, "Mb/s", "640Mb/s", "1b/s", "10Gb/s", "signalling rate",
     offsetof(link_cfg, rate_bps), NULL},
    {"length", MYRI_P_LENGTH, "m", "3m", "0", "25m", "cable length", offsetof(link_cfg, length_m),
     NULL},
    {"slack.size", MYRI_P_SIZE, "B", "80B", "16B", NULL, "slack buffer",
     offsetof(link_cfg, slack_bytes), NULL},
    {"delay", MYRI_P_TIME, "ns", "550", NULL, NULL, "path formation", offsetof(link_cfg, delay_ps),
     NULL},
    {"load", MYRI_P_DOUBLE, "", "0.2", "0", "1", "offered load", offsetof(link_cfg, load), NULL},
    {"stopgo", MYRI_P_BOOL, "", "true", NULL, NULL, "flow control", offsetof(link_cfg, stop_go),
     NULL},
    {"mode", MYRI_P_ENUM, "", "fast", NULL, NULL, "model", offsetof(link_cfg, mode),
     "fast|reference|bytes"},
    {"ports", MYRI_P_INT, "ports", NULL, "4", "32", "switch ports", offsetof(link_cfg, ports),
     NULL},
    {"hosts", MYRI_P_NODE, "", "", NULL, NULL, "host list", offsetof(link_cfg, hosts), NULL},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

typedef struct fixture {
    myri_node *root;
    common_cfg c;
    link_cfg l;
    myri_pset set[2];
    myri_error err;
} fixture;

/* Parses text, applies sets (NULL-terminated), loads both tables. */
static myri_status load(fixture *f, const char *text, const char *const *sets)
{
    memset(f, 0, sizeof *f);
    f->set[0] = (myri_pset){"", common_params, N(common_params), &f->c};
    f->set[1] = (myri_pset){"link", link_params, N(link_params), &f->l};
    myri_status st = myri_doc_parse("s.yaml", text, strlen(text), &f->root, &f->err);
    if (st) return st;
    for (size_t i = 0; sets && sets[i]; i++)
        if ((st = myri_node_set(f->root, sets[i], &f->err))) return st;
    return myri_params_load(f->set, 2, f->root, NULL, &f->err);
}

static void done(fixture *f) { myri_node_free(f->root); }

/* Loading must fail with a message starting with prefix and containing word. */
static void load_bad(const char *text, const char *const *sets, const char *prefix,
                     const char *word)
{
    fixture f;
    myri_status st = load(&f, text, sets);
    if (st != MYRI_EINPUT || strncmp(f.err.msg, prefix, strlen(prefix)) != 0 ||
        !strstr(f.err.msg, word) || !strstr(f.err.msg, "expected"))
        fail_msg("status %d, wanted %s...%s, got: %s", st, prefix, word, f.err.msg);
    done(&f);
}

static void test_all_types_and_defaults(void **state)
{
    (void)state;
    fixture f;
    myri_status st = load(&f,
                          "seed: 9\n"
                          "duration: 12.5ns\n"
                          "job: fabric\n"
                          "link:\n"
                          "  rate: 1.28Gb/s\n"
                          "  length: 250cm\n"
                          "  slack: {size: 1KiB}\n"
                          "  delay: 300\n"
                          "  load: 0.5\n"
                          "  stopgo: off\n"
                          "  mode: reference\n"
                          "  ports: 8\n"
                          "  hosts: [h0, h1, h2]\n",
                          NULL);
    if (st) fail_msg("%s", f.err.msg);
    assert_int_equal(f.c.seed, 9);
    assert_int_equal(f.c.duration_ps, 12500);
    assert_string_equal(f.c.job, "fabric");
    assert_true(f.l.rate_bps == 1.28e9);
    assert_true(fabs(f.l.length_m - 2.5) < 1e-12);
    assert_int_equal(f.l.slack_bytes, 1024);
    assert_int_equal(f.l.delay_ps, 300000); /* bare number in the unit "ns" */
    assert_true(f.l.load == 0.5);
    assert_false(f.l.stop_go);
    assert_int_equal(f.l.mode, 1);
    assert_int_equal(f.l.ports, 8);
    assert_non_null(f.l.hosts);
    assert_int_equal(f.l.hosts->kind, MYRI_NODE_SEQ);
    assert_int_equal(f.l.hosts->n, 3);
    done(&f);

    /* defaults: only the required value given */
    st = load(&f, "link: {ports: 16}\n", NULL);
    if (st) fail_msg("%s", f.err.msg);
    assert_int_equal(f.c.seed, 1);
    assert_int_equal(f.c.duration_ps, 1000000000);
    assert_string_equal(f.c.job, "hold");
    assert_true(f.l.rate_bps == 640e6);
    assert_true(f.l.length_m == 3);
    assert_int_equal(f.l.slack_bytes, 80);
    assert_int_equal(f.l.delay_ps, 550000);
    assert_true(f.l.stop_go);
    assert_int_equal(f.l.mode, 0);
    assert_null(f.l.hosts);
    done(&f);
}

static void test_null_root_and_load_map(void **state)
{
    (void)state;
    common_cfg c;
    myri_error err;
    myri_pset one = {"", common_params, N(common_params), &c};
    assert_int_equal(myri_params_load(&one, 1, NULL, NULL, &err), MYRI_OK);
    assert_int_equal(c.seed, 1);
    /* required value with no document: message without a position */
    link_cfg l;
    myri_pset two = {"link", link_params, N(link_params), &l};
    assert_int_equal(myri_params_load(&two, 1, NULL, NULL, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "missing required key 'link.ports'"));

    /* load_map on a list element */
    myri_node *r = NULL;
    const char *text = "links:\n  - {ports: 4, rate: 2Gb/s}\n  - {ports: 5, rte: 1Gb/s}\n";
    assert_int_equal(myri_doc_parse("s.yaml", text, strlen(text), &r, &err), MYRI_OK);
    const myri_node *links = myri_node_get(r, "links");
    assert_int_equal(myri_params_load_map(link_params, N(link_params), links->item[0], &l, &err),
                     MYRI_OK);
    assert_int_equal(l.ports, 4);
    assert_true(l.rate_bps == 2e9);
    assert_int_equal(myri_params_load_map(link_params, N(link_params), links->item[1], &l, &err),
                     MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "s.yaml:3:16: unknown key 'rte' (did you mean 'rate'?)"));
    assert_int_equal(myri_params_load_map(link_params, N(link_params), links, &l, &err),
                     MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "s.yaml:2:3: found a list; expected a mapping with keys"));
    myri_node_free(r);
}

static void test_unknown_keys(void **state)
{
    (void)state;
    load_bad("durration: 1ms\nlink: {ports: 8}\n", NULL, "s.yaml:1:1: ",
             "unknown key 'durration' (did you mean 'duration'?); expected one of: seed, "
             "duration, job, link.rate");
    load_bad("link:\n  ports: 8\n  rat: 5Mb/s\n", NULL, "s.yaml:3:3: ",
             "unknown key 'rat' in 'link' (did you mean 'rate'?); expected one of: rate, "
             "length, slack.size, delay, load, stopgo, mode, ports, hosts");
    load_bad("link:\n  ports: 8\n  slack:\n    sise: 5B\n", NULL, "s.yaml:4:5: ",
             "unknown key 'sise' in 'link.slack'");
    load_bad("link:\n  ports: 8\n  slack: 80B\n", NULL, "s.yaml:3:10: ",
             "'link.slack' is a single value; expected a mapping with keys: size");
    load_bad("link: 5\n", NULL, "s.yaml:1:7: ", "'link' is a single value; expected a mapping");
    load_bad("link.ports: 8\n", NULL, "s.yaml:1:1: ",
             "unknown key 'link.ports' (dotted keys must be written as nested mappings)");
    load_bad("seed: 1\nzzzzzz: 2\n", NULL, "s.yaml:2:1: ", "unknown key 'zzzzzz'; expected");
    /* the subtree of a NODE parameter is not checked */
    fixture f;
    assert_int_equal(load(&f, "link:\n  ports: 8\n  hosts: {any: {thing: [1]}}\n", NULL), MYRI_OK);
    done(&f);
    /* keys in `ignore` are skipped at the top level only */
    const char *text = "other: {x: 1}\nlink: {ports: 8}\n";
    myri_node *r = NULL;
    myri_error err;
    assert_int_equal(myri_doc_parse("s.yaml", text, strlen(text), &r, &err), MYRI_OK);
    common_cfg c;
    link_cfg l;
    myri_pset set[] = {{"", common_params, N(common_params), &c},
                       {"link", link_params, N(link_params), &l}};
    const char *const ignore[] = {"other", NULL};
    assert_int_equal(myri_params_load(set, 2, r, ignore, &err), MYRI_OK);
    assert_int_equal(myri_params_load(set, 2, r, NULL, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "s.yaml:1:1: unknown key 'other'"));
    myri_node_free(r);
}

static void test_values_and_ranges(void **state)
{
    (void)state;
    const char *base = "link:\n  ports: ";
    char doc[256];
    snprintf(doc, sizeof doc, "%s3\n", base);
    load_bad(doc, NULL, "s.yaml:2:10: ", "bad value '3' for link.ports: out of range; expected 4 to 32");
    snprintf(doc, sizeof doc, "%s33\n", base);
    load_bad(doc, NULL, "s.yaml:2:10: ", "out of range; expected 4 to 32");
    fixture f;
    assert_int_equal(load(&f, "link: {ports: 4}\n", NULL), MYRI_OK);
    done(&f);
    assert_int_equal(load(&f, "link: {ports: 32}\nduration: 10s\n", NULL), MYRI_OK);
    done(&f);
    load_bad("duration: 10.000000000001s\nlink: {ports: 8}\n", NULL, "s.yaml:1:11: ",
             "out of range; expected 1ps to 10s");
    load_bad("duration: 0\nlink: {ports: 8}\n", NULL, "s.yaml:1:11: ", "expected 1ps to 10s");
    load_bad("seed: -1\nlink: {ports: 8}\n", NULL, "s.yaml:1:7: ", "expected at least 0");
    load_bad("link: {ports: 8, load: 1.5}\n", NULL, "s.yaml:1:24: ", "expected 0 to 1");
    load_bad("link: {ports: 8, rate: 20Gb/s}\n", NULL, "s.yaml:1:24: ", "expected 1b/s to 10Gb/s");
    load_bad("link: {ports: 8, length: 26m}\n", NULL, "s.yaml:1:26: ", "expected 0 to 25m");
    load_bad("link: {ports: 8, slack: {size: 8B}}\n", NULL, "s.yaml:1:32: ", "expected at least 16B");
    load_bad("duration: fast\n", NULL, "s.yaml:1:11: ",
             "bad value 'fast' for duration: expected a time such as 12.5ns, 50ms (units ps, ns, "
             "us, ms, s)");
    load_bad("link: {ports: 8, mode: slow}\n", NULL, "s.yaml:1:24: ",
             "bad value 'slow' for link.mode: expected one of: fast, reference, bytes");
    load_bad("link: {ports: 8, stopgo: maybe}\n", NULL, "s.yaml:1:26: ", "expected true or false");
    load_bad("link: {ports: [8]}\n", NULL, "s.yaml:1:15: ",
             "'link.ports' is a list; expected a whole number");
    load_bad("seed: {a: 1}\nlink: {ports: 8}\n", NULL, "s.yaml:1:7: ", "'seed' is a mapping");
}

static void test_bare_number_units(void **state)
{
    (void)state;
    fixture f;
    /* rate has unit "Mb/s": a bare number is in Mb/s */
    assert_int_equal(load(&f, "link: {ports: 8, rate: 160}\n", NULL), MYRI_OK);
    assert_true(f.l.rate_bps == 160e6);
    done(&f);
    /* duration has no unit: a bare non-zero number is an error */
    load_bad("duration: 5\nlink: {ports: 8}\n", NULL, "s.yaml:1:11: ", "the unit is missing");
}

static void test_required_missing(void **state)
{
    (void)state;
    load_bad("seed: 3\n", NULL, "s.yaml:1:1: ",
             "missing required key 'link.ports'; expected a whole number such as 42 or -7 "
             "(switch ports)");
    load_bad("seed: 3\nlink:\n  rate: 1Gb/s\n", NULL, "s.yaml:3:3: ",
             "missing required key 'link.ports'");
    /* a key with no value is not a default: "duration:" is an error */
    load_bad("duration:\nlink: {ports: 8}\n", NULL, "s.yaml:1:10: ",
             "missing value for duration; expected a time such as 12.5ns");
    load_bad("link: {ports: 8, mode: ''}\n", NULL, "s.yaml:1:24: ",
             "missing value for link.mode; expected one of: fast, reference, bytes");
    /* ... except for a string, where empty text is a value */
    fixture f;
    assert_int_equal(load(&f, "job: ''\nlink: {ports: 8}\n", NULL), MYRI_OK);
    assert_string_equal(f.c.job, "");
    done(&f);
}

static void test_set_through_loader(void **state)
{
    (void)state;
    fixture f;
    const char *sets[] = {"link.ports=12", "duration=2us", "link.slack.size=2KB", NULL};
    myri_status st = load(&f, "link: {ports: 8}\n", sets);
    if (st) fail_msg("%s", f.err.msg);
    assert_int_equal(f.l.ports, 12);
    assert_int_equal(f.c.duration_ps, 2000000);
    assert_int_equal(f.l.slack_bytes, 2000);
    done(&f);
    const char *s1[] = {"nosuchkey=1", NULL};
    load_bad("link: {ports: 8}\n", s1, "--set:1:1: ", "unknown key 'nosuchkey'");
    const char *s2[] = {"link.prots=1", NULL};
    load_bad("link: {ports: 8}\n", s2, "--set:1:6: ",
             "unknown key 'prots' in 'link' (did you mean 'ports'?)");
    const char *s3[] = {"link.ports=many", NULL};
    load_bad("link: {ports: 8}\n", s3, "--set:1:12: ", "bad value 'many' for link.ports");
    const char *s4[] = {"duration=99", NULL};
    load_bad("link: {ports: 8}\n", s4, "--set:1:10: ", "the unit is missing");
}

static void test_table_errors(void **state)
{
    (void)state;
    struct {
        uint64_t t;
    } out;
    myri_error err;
    const myri_param bad_def[] = {
        {"t", MYRI_P_TIME, "", "soon", NULL, NULL, "x", 0, NULL},
    };
    assert_int_equal(myri_params_load_map(bad_def, 1, NULL, &out, &err), MYRI_EINVAL);
    assert_non_null(strstr(err.msg, "parameter table error: default 'soon' of 't'"));
    const myri_param bad_min[] = {
        {"t", MYRI_P_TIME, "", "1ns", "zero", NULL, "x", 0, NULL},
    };
    assert_int_equal(myri_params_load_map(bad_min, 1, NULL, &out, &err), MYRI_EINVAL);
    assert_non_null(strstr(err.msg, "min 'zero'"));
    const myri_param def_out_of_range[] = {
        {"t", MYRI_P_TIME, "", "1ns", NULL, "1ps", "x", 0, NULL},
    };
    assert_int_equal(myri_params_load_map(def_out_of_range, 1, NULL, &out, &err), MYRI_EINVAL);
    assert_non_null(strstr(err.msg, "out of range"));
}

static char *capture(void (*fn)(const myri_pset *, size_t, FILE *), const myri_pset *set,
                     size_t n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    fn(set, n, f);
    fclose(f);
    return buf;
}

static void test_help_and_echo(void **state)
{
    (void)state;
    fixture f;
    myri_status st = load(&f, "link: {ports: 8, rate: 1.28Gb/s, slack: {size: 128KiB}}\n"
                              "duration: 12.5ns\n", NULL);
    if (st) fail_msg("%s", f.err.msg);
    char *echo = capture(myri_params_echo_text, f.set, 2);
    assert_non_null(strstr(echo, "  seed            = 1\n"));
    assert_non_null(strstr(echo, "  duration        = 12.5ns\n"));
    assert_non_null(strstr(echo, "  job             = hold\n"));
    assert_non_null(strstr(echo, "  link.rate       = 1.28Gb/s\n"));
    assert_non_null(strstr(echo, "  link.length     = 3m\n"));
    assert_non_null(strstr(echo, "  link.slack.size = 128KiB\n"));
    assert_non_null(strstr(echo, "  link.delay      = 550ns\n"));
    assert_non_null(strstr(echo, "  link.stopgo     = true\n"));
    assert_non_null(strstr(echo, "  link.mode       = fast\n"));
    assert_non_null(strstr(echo, "  link.ports      = 8\n")); /* the unit is in the help: the echo reads back */
    assert_non_null(strstr(echo, "  link.hosts      = null\n"));
    free(echo);

    char *help = capture(myri_params_help, f.set, 2);
    assert_non_null(strstr(help, "key"));
    assert_non_null(strstr(help, "description"));
    /* per parameter: an aligned line with type, unit, default, range; the help
     * under it, indented (every line within 100 columns) */
    assert_non_null(strstr(help, "  duration         time    -      1ms         1ps..10s\n      simulated time\n"));
    for (const char *l = help; *l;) {
        size_t n = strcspn(l, "\n");
        assert_true(n <= 100);
        l += n + (l[n] == '\n');
    }
    assert_non_null(strstr(help, "  link.delay       time    ns     550ns       -\n"));
    assert_non_null(strstr(help, "  link.ports       int     ports  (required)  4..32"));
    assert_non_null(strstr(help, "fast, reference, bytes"));
    assert_non_null(strstr(help, "  link.rate        rate    Mb/s"));
    free(help);

    char *js = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&js, &len);
    myri_json *j = myri_json_create(out, false);
    myri_json_obj_begin(j);
    myri_params_echo_json(f.set, 2, j);
    myri_json_obj_end(j);
    assert_int_equal(myri_json_finish(j), MYRI_OK);
    fclose(out);
    assert_non_null(strstr(js, "\"seed\":1"));
    assert_non_null(strstr(js, "\"duration\":\"12.5ns\""));
    assert_non_null(strstr(js, "\"link.rate\":\"1.28Gb/s\""));
    assert_non_null(strstr(js, "\"link.stopgo\":true"));
    assert_non_null(strstr(js, "\"link.load\":0.2"));
    assert_non_null(strstr(js, "\"link.hosts\":null"));
    free(js);
    done(&f);
}

static void test_param_format_and_parse(void **state)
{
    (void)state;
    link_cfg l;
    memset(&l, 0, sizeof l);
    char buf[64];
    myri_node n = {.kind = MYRI_NODE_SCALAR, .file = "f", .line = 2, .col = 5, .scalar = "2KiB"};
    myri_error err;
    assert_int_equal(myri_param_parse(&link_params[2], &n, &l, &err), MYRI_OK);
    assert_int_equal(l.slack_bytes, 2048);
    myri_param_format(&link_params[2], &l, buf, sizeof buf);
    assert_string_equal(buf, "2KiB");
    n.scalar = "1500B";
    assert_int_equal(myri_param_parse(&link_params[2], &n, &l, &err), MYRI_OK);
    myri_param_format(&link_params[2], &l, buf, sizeof buf);
    assert_string_equal(buf, "1500B");
    n.scalar = "2";
    assert_int_equal(myri_param_parse(&link_params[6], &n, &l, &err), MYRI_EINPUT);
    assert_string_equal(err.msg, "f:2:5: bad value '2' for mode: expected one of: fast, reference, bytes");
    l.mode = 2;
    myri_param_format(&link_params[6], &l, buf, sizeof buf);
    assert_string_equal(buf, "bytes");
    l.mode = 7; /* out of the table: shown, not crashed on */
    myri_param_format(&link_params[6], &l, buf, sizeof buf);
    assert_string_equal(buf, "?");
    l.length_m = 0.5;
    myri_param_format(&link_params[1], &l, buf, sizeof buf);
    assert_string_equal(buf, "50cm");
    assert_int_equal(myri_param_parse(NULL, &n, &l, &err), MYRI_EINVAL);
}

/* issue 8: one seed range, 0 .. 2^64-1, as an unsigned value everywhere */
static void test_uint_seed_range(void **state)
{
    (void)state;
    uint64_t v = 0;
    char buf[32];
    myri_param p = {"seed", MYRI_P_UINT, "", "1", "0", "18446744073709551615", "seed", 0, NULL};
    myri_node n = {.kind = MYRI_NODE_SCALAR, .file = "f", .line = 1, .col = 7, .scalar = "18446744073709551615"};
    myri_error err;
    assert_int_equal(myri_param_parse(&p, &n, &v, &err), MYRI_OK);
    assert_true(v == UINT64_MAX);
    myri_param_format(&p, &v, buf, sizeof buf);
    assert_string_equal(buf, "18446744073709551615");
    n.scalar = "-1";
    assert_int_equal(myri_param_parse(&p, &n, &v, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "f:1:7: "));
    assert_non_null(strstr(err.msg, "expected a whole number from 0 to 18446744073709551615"));
    n.scalar = "18446744073709551616";
    assert_int_equal(myri_param_parse(&p, &n, &v, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "too large"));
    /* the scenario's own seed key is of this type */
    assert_int_equal(myri_scenario_params[0].type, MYRI_P_UINT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_types_and_defaults), cmocka_unit_test(test_null_root_and_load_map),
        cmocka_unit_test(test_unknown_keys),         cmocka_unit_test(test_values_and_ranges),
        cmocka_unit_test(test_bare_number_units),    cmocka_unit_test(test_required_missing),
        cmocka_unit_test(test_set_through_loader),   cmocka_unit_test(test_table_errors),
        cmocka_unit_test(test_help_and_echo),        cmocka_unit_test(test_param_format_and_parse),
        cmocka_unit_test(test_uint_seed_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
