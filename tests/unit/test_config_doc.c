/* test_config_doc.c -- YAML documents: tree and positions, rejected
 * constructs with FILE:LINE:COL, lookups, and --set overrides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "myri/config.h"

static myri_node *parse_ok(const char *text)
{
    myri_node *root = NULL;
    myri_error err;
    if (myri_doc_parse("s.yaml", text, strlen(text), &root, &err) != MYRI_OK)
        fail_msg("rejected: %s", err.msg);
    assert_non_null(root);
    return root;
}

/* The text must be rejected with a message starting with `prefix`
 * ("s.yaml:L:C: ") and containing `word` and "expected". */
static void parse_bad(const char *text, size_t len, const char *prefix, const char *word)
{
    myri_node *root = (myri_node *)&root; /* must be reset to NULL */
    myri_error err;
    assert_int_equal(myri_doc_parse("s.yaml", text, len, &root, &err), MYRI_EINPUT);
    assert_null(root);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, word) ||
        !strstr(err.msg, "expected"))
        fail_msg("for %s/%s got: %s", prefix, word, err.msg);
}
#define BAD(text, prefix, word) parse_bad(text, strlen(text), prefix, word)

static void test_tree_and_positions(void **state)
{
    (void)state;
    myri_node *r = parse_ok("seed: 7\n"
                            "link:\n"
                            "  rate: 640Mb/s\n"
                            "  slack: {size: 80B}\n"
                            "hosts: [a, 'b c']\n");
    assert_int_equal(r->kind, MYRI_NODE_MAP);
    assert_int_equal(r->n, 3);
    assert_string_equal(r->file, "s.yaml");
    const myri_node *seed = myri_node_get(r, "seed");
    assert_non_null(seed);
    assert_string_equal(seed->scalar, "7");
    assert_int_equal(seed->line, 1);
    assert_int_equal(seed->col, 7);
    const myri_node *rate = myri_node_path(r, "link.rate");
    assert_non_null(rate);
    assert_string_equal(rate->scalar, "640Mb/s");
    assert_int_equal(rate->line, 3);
    assert_int_equal(rate->col, 9);
    const myri_node *size = myri_node_path(r, "link.slack.size");
    assert_non_null(size);
    assert_int_equal(size->line, 4);
    assert_int_equal(size->col, 17);
    const myri_node *hosts = myri_node_get(r, "hosts");
    assert_int_equal(hosts->kind, MYRI_NODE_SEQ);
    assert_int_equal(hosts->n, 2);
    assert_null(hosts->key);
    assert_string_equal(hosts->item[1]->scalar, "b c");
    assert_int_equal(hosts->item[1]->col, 12);
    /* key nodes carry the key's position */
    assert_int_equal(r->keynode[1]->line, 2);
    assert_int_equal(r->keynode[1]->col, 1);
    assert_null(myri_node_get(r, "nope"));
    assert_null(myri_node_path(r, "seed.x"));
    assert_null(myri_node_path(r, "link.nope"));
    assert_null(myri_node_get(seed, "x"));
    assert_null(myri_node_get(NULL, "x"));
    assert_null(myri_node_path(NULL, "x"));
    myri_node_free(r);
}

static void test_empty_documents(void **state)
{
    (void)state;
    const char *empties[] = {"", "\n\n", "# only a comment\n", "---\n", "--- \n...\n"};
    for (size_t i = 0; i < sizeof empties / sizeof empties[0]; i++) {
        myri_node *r = parse_ok(empties[i]);
        assert_int_equal(r->kind, MYRI_NODE_MAP);
        assert_int_equal(r->n, 0);
        myri_node_free(r);
    }
    myri_node_free(NULL);
}

static void test_rejected_constructs(void **state)
{
    (void)state;
    BAD("a: &x 1\nb: *x\n", "s.yaml:1:4: ", "anchors");
    BAD("a: 1\nb: *x\n", "s.yaml:2:4: ", "alias");
    BAD("a: !!int 5\n", "s.yaml:1:4: ", "tags");
    BAD("a: !custom {b: 1}\n", "s.yaml:1:4: ", "tags");
    BAD("a: 1\n---\nb: 2\n", "s.yaml:2:1: ", "second document");
    BAD("- 1\n- 2\n", "s.yaml:1:1: ", "is a list");
    BAD("just text\n", "s.yaml:1:1: ", "single value");
    BAD("a: 1\nb: 2\na: 3\n", "s.yaml:3:1: ", "duplicate key 'a' (first at line 1 column 1)");
    BAD("x:\n  y: 1\n  z: 2\n  y: 3\n", "s.yaml:4:3: ", "duplicate key 'y'");
    BAD("\"\": 1\n", "s.yaml:1:1: ", "empty key");
    BAD("? [a, b]\n: 1\n", "s.yaml:1:3: ", "used as a key");
    BAD("a: \"x\\0y\"\n", "s.yaml:1:4: ", "NUL");
}

static void test_syntax_errors(void **state)
{
    (void)state;
    BAD("a: [1, 2\nb: 3\n", "s.yaml:2:2: ", "YAML syntax error");
    BAD("a:\n  b: 1\n c: 2\n", "s.yaml:3:2: ", "YAML syntax error");
    BAD("a: 'unterminated\n", "s.yaml:2:1: ", "YAML syntax error");
    BAD("a: b: c\n", "s.yaml:1:5: ", "mapping values are not allowed");
    BAD("\ta: 1\n", "s.yaml:1:1: ", "YAML syntax error");
    /* reader errors: control characters and broken UTF-8, positioned by offset */
    parse_bad("a: 1\nb: \x01\n", 10, "s.yaml:2:4: ", "control characters");
    parse_bad("a: \xff\xfe\n", 6, "s.yaml:1:4: ", "invalid text");
    parse_bad("a: 1\0b: 2", 9, "s.yaml:1:5: ", "control characters");
}

static void test_depth_limit(void **state)
{
    (void)state;
    char buf[512];
    size_t k = 0;
    for (int i = 0; i < 64; i++) buf[k++] = '[';
    for (int i = 0; i < 64; i++) buf[k++] = ']';
    buf[k] = '\0';
    char doc[600];
    snprintf(doc, sizeof doc, "a: %s\n", buf); /* 1 map + 64 lists = 65 levels */
    BAD(doc, "s.yaml:1:", "nesting too deep");
    k = 0;
    for (int i = 0; i < 62; i++) buf[k++] = '[';
    for (int i = 0; i < 62; i++) buf[k++] = ']';
    buf[k] = '\0';
    snprintf(doc, sizeof doc, "a: %s\n", buf);
    myri_node *r = parse_ok(doc);
    myri_node_free(r);
}

static void test_large_mapping(void **state)
{
    (void)state;
    /* 5000 keys: growth of the arrays and the O(n log n) duplicate check */
    size_t cap = 5000 * 16 + 32, k = 0;
    char *doc = malloc(cap);
    assert_non_null(doc);
    for (int i = 0; i < 5000; i++) k += (size_t)snprintf(doc + k, cap - k, "k%d: %d\n", i, i);
    myri_node *r = parse_ok(doc);
    assert_int_equal(r->n, 5000);
    assert_string_equal(myri_node_get(r, "k4999")->scalar, "4999");
    myri_node_free(r);
    k += (size_t)snprintf(doc + k, cap - k, "k17: again\n");
    parse_bad(doc, k, "s.yaml:5001:1: ", "duplicate key 'k17' (first at line 18 column 1)");
    free(doc);
}

static void test_load_file(void **state)
{
    (void)state;
    char path[] = "/tmp/myri_test_doc_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("job: hold\nhold:\n  pending: x\n", f);
    fclose(f);
    myri_node *r = NULL;
    myri_error err;
    assert_int_equal(myri_doc_load(path, &r, &err), MYRI_OK);
    const myri_node *p = myri_node_path(r, "hold.pending");
    assert_string_equal(p->file, path);
    assert_int_equal(p->line, 3);
    assert_int_equal(p->col, 12);
    myri_node_free(r);
    remove(path);
    assert_int_equal(myri_doc_load(path, &r, &err), MYRI_EIO);
    assert_null(r);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "cannot open"));
}

static void test_error_at(void **state)
{
    (void)state;
    myri_error err;
    myri_node at = {.file = "x.yaml", .line = 3, .col = 11};
    assert_int_equal(myri_error_at(&err, &at, "bad %s", "thing"), MYRI_EINPUT);
    assert_string_equal(err.msg, "x.yaml:3:11: bad thing");
    assert_int_equal(myri_error_at(&err, NULL, "plain %d", 5), MYRI_EINPUT);
    assert_string_equal(err.msg, "plain 5");
    assert_int_equal(myri_error_at(NULL, NULL, "x"), MYRI_EINPUT);
}

static void test_set_creates_and_replaces(void **state)
{
    (void)state;
    myri_node *r = parse_ok("seed: 1\nlink:\n  rate: 640Mb/s\n");
    myri_error err;
    assert_int_equal(myri_node_set(r, "seed=42", &err), MYRI_OK);
    const myri_node *seed = myri_node_get(r, "seed");
    assert_string_equal(seed->scalar, "42");
    assert_string_equal(seed->file, "--set");
    assert_int_equal(seed->line, 1);
    assert_int_equal(seed->col, 6);
    assert_int_equal(r->n, 2); /* replaced, not added */

    assert_int_equal(myri_node_set(r, "link.rate=1.28Gb/s", &err), MYRI_OK);
    assert_string_equal(myri_node_path(r, "link.rate")->scalar, "1.28Gb/s");
    assert_int_equal(myri_node_path(r, "link.rate")->col, 11);

    assert_int_equal(myri_node_set(r, "link.slack.size=80B", &err), MYRI_OK);
    const myri_node *slack = myri_node_path(r, "link.slack");
    assert_int_equal(slack->kind, MYRI_NODE_MAP);
    assert_int_equal(slack->col, 6);
    assert_string_equal(myri_node_path(r, "link.slack.size")->scalar, "80B");
    const myri_node *link = myri_node_get(r, "link");
    assert_int_equal(link->keynode[1]->col, 6); /* the new key "slack" */

    assert_int_equal(myri_node_set(r, "new.deep.key=", &err), MYRI_OK);
    assert_string_equal(myri_node_path(r, "new.deep.key")->scalar, "");
    assert_int_equal(myri_node_set(r, "x=a=b", &err), MYRI_OK);
    assert_string_equal(myri_node_get(r, "x")->scalar, "a=b");
    /* replacing a mapping by a value is allowed */
    assert_int_equal(myri_node_set(r, "new=5", &err), MYRI_OK);
    assert_string_equal(myri_node_get(r, "new")->scalar, "5");
    /* many keys: growth of a mapping made by --set */
    char a[32];
    for (int i = 0; i < 40; i++) {
        snprintf(a, sizeof a, "m.k%d=%d", i, i);
        assert_int_equal(myri_node_set(r, a, &err), MYRI_OK);
    }
    assert_int_equal(myri_node_get(r, "m")->n, 40);
    assert_string_equal(myri_node_path(r, "m.k39")->scalar, "39");
    myri_node_free(r);

    /* on an empty document */
    r = parse_ok("");
    assert_int_equal(myri_node_set(r, "a.b=1", &err), MYRI_OK);
    assert_string_equal(myri_node_path(r, "a.b")->scalar, "1");
    myri_node_free(r);
}

static void set_bad(myri_node *r, const char *a, const char *prefix, const char *word)
{
    myri_error err;
    assert_int_equal(myri_node_set(r, a, &err), MYRI_EINPUT);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, word) ||
        !strstr(err.msg, "expected"))
        fail_msg("--set '%s': got %s", a, err.msg);
}

/* A decimal part indexes a list: network.arrivals.0.rate=... */
static void test_set_list_items(void **state)
{
    (void)state;
    myri_node *r = parse_ok("network:\n  arrivals:\n    - {node: a, rate: 1}\n    - {node: b, rate: 2}\n"
                            "  classes: [x, y]\n");
    myri_error err;
    assert_int_equal(myri_node_set(r, "network.arrivals.1.rate=0.5", &err), MYRI_OK);
    const myri_node *n = myri_node_path(r, "network.arrivals.1.rate");
    assert_non_null(n);
    assert_string_equal(n->scalar, "0.5");
    assert_string_equal(n->file, "--set");
    assert_string_equal(myri_node_path(r, "network.arrivals.0.rate")->scalar, "1");
    assert_int_equal(myri_node_set(r, "network.classes.0=z", &err), MYRI_OK);
    assert_string_equal(myri_node_path(r, "network.classes.0")->scalar, "z");
    assert_null(myri_node_path(r, "network.classes.2"));
    assert_null(myri_node_path(r, "network.classes.x"));
    set_bad(r, "network.arrivals.2.rate=1", "--set:1:18: ", "'2' is not an index of the list; expected an index (0 to 1)");
    myri_node_free(r);
}

/* issue 8: a --set value in YAML flow form is a list or mapping (the echo's
 * form), positioned in the assignment; a byte-order mark is not text */
static void test_set_flow_and_bom(void **state)
{
    (void)state;
    myri_node *r = parse_ok("seed: 1\n");
    myri_error err;
    assert_int_equal(myri_node_set(r, "topology.hosts=[a, b]", &err), MYRI_OK);
    const myri_node *h = myri_node_path(r, "topology.hosts");
    assert_int_equal(h->kind, MYRI_NODE_SEQ);
    assert_int_equal(h->n, 2);
    assert_string_equal(h->item[1]->scalar, "b");
    assert_string_equal(h->item[1]->file, "--set");
    assert_int_equal(h->item[1]->col, 20); /* topology.hosts=[a, b]: the 'b' */
    assert_int_equal(myri_node_set(r, "topology.switches=[{name: s0, ports: 8}]", &err), MYRI_OK);
    assert_string_equal(myri_node_path(r, "topology.switches.0.ports")->scalar, "8");
    set_bad(r, "topology.hosts=[a, b", "--set:1:16: ", "bad list or mapping");
    myri_node_free(r);
    r = parse_ok("\xef\xbb\xbfseed: 1\nduration: 1us\n");
    assert_string_equal(myri_node_path(r, "duration")->scalar, "1us");
    assert_int_equal(myri_node_get(r, "seed") != NULL, 1);
    assert_int_equal(r->keynode[0]->col, 1);
    myri_node_free(r);
}

static void test_set_errors(void **state)
{
    (void)state;
    myri_node *r = parse_ok("seed: 1\nhosts: [a]\n");
    set_bad(r, "seed", "--set:1:1: ", "missing '='");
    set_bad(r, "=5", "--set:1:1: ", "empty key");
    set_bad(r, "a..b=5", "--set:1:3: ", "empty key part");
    set_bad(r, ".a=5", "--set:1:1: ", "empty key part");
    set_bad(r, "a.=5", "--set:1:3: ", "empty key part");
    set_bad(r, "seed.x=5", "--set:1:1: ", "'seed' is a value in the scenario");
    set_bad(r, "hosts.x=5", "--set:1:7: ", "'x' is not an index of the list; expected an index (0 to 0)");
    set_bad(r, "hosts.1=5", "--set:1:7: ", "'1' is not an index");
    set_bad(r, "hosts.0.x=5", "--set:1:7: ", "item '0' is a value");
    myri_error err;
    assert_int_equal(myri_node_set(r, "deep.a=1", &err), MYRI_OK);
    set_bad(r, "deep.a.b=2", "--set:1:6: ", "'a' is a value in the scenario");
    assert_int_equal(myri_node_set(NULL, "a=1", &err), MYRI_EINVAL);
    assert_int_equal(myri_node_set(r, NULL, &err), MYRI_EINVAL);
    myri_node_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_and_positions), cmocka_unit_test(test_empty_documents),
        cmocka_unit_test(test_rejected_constructs), cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_depth_limit),        cmocka_unit_test(test_large_mapping),
        cmocka_unit_test(test_load_file),          cmocka_unit_test(test_error_at),
        cmocka_unit_test(test_set_creates_and_replaces), cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_set_list_items),     cmocka_unit_test(test_set_flow_and_bom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
