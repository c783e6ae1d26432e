/* test_topo_yaml.c -- the topology section reader: generators, explicit
 * topologies, explicit routes, and FILE:LINE:COL errors for bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "topo/topo.h"

static myri_error err;

static myri_status load(const char *text, myri_topo_built *b)
{
    myri_node *root = NULL;
    memset(&err, 0, sizeof err);
    myri_status st = myri_doc_parse("t.yaml", text, strlen(text), &root, &err);
    assert_int_equal(st, MYRI_OK);
    st = myri_topo_load_doc(root, b, &err);
    myri_node_free(root);
    return st;
}

/* Loads text expecting an error whose message starts with `pos` and contains
 * `what`. */
static void bad(const char *text, const char *pos, const char *what)
{
    myri_topo_built b;
    assert_int_equal(load(text, &b), MYRI_EINPUT);
    if (strncmp(err.msg, pos, strlen(pos)) != 0 || !strstr(err.msg, what))
        fprintf(stderr, "got: %s\nwanted: %s ... %s\n", err.msg, pos, what);
    assert_memory_equal(err.msg, pos, strlen(pos));
    assert_non_null(strstr(err.msg, what));
}

static void test_default_is_fat_tree(void **state)
{
    (void)state;
    myri_topo_built b;
    assert_int_equal(load("seed: 1\n", &b), MYRI_OK);
    assert_int_equal(b.topo->nhosts, 64);
    assert_int_equal(myri_topo_nswitches(b.topo), 48);
    assert_true(b.deadlock_free);
    assert_true(b.topo->link[0].length_m == 10.0);
    myri_topo_built_free(&b);
    assert_int_equal(load("link: {length: 3m}\ntopology: {generator: mesh, x: 3, y: 3}\n", &b),
                     MYRI_OK);
    assert_int_equal(b.topo->nhosts, 9);
    assert_true(b.topo->link[0].length_m == 3.0);
    assert_true(b.deadlock_free);
    myri_topo_built_free(&b);
}

static const char *ring3 =
    "topology:\n"
    "  hosts: [a, b, c]\n"
    "  switches:\n"
    "    - {name: s0, ports: 4}\n"
    "    - {name: s1, ports: 4}\n"
    "    - {name: s2, ports: 4}\n"
    "  links:\n"
    "    - {a: a, b: [s0, 2]}\n"
    "    - {a: b, b: [s1, 2]}\n"
    "    - {a: c, b: [s2, 2], length: 25m}\n"
    "    - {a: [s0, 0], b: [s1, 1]}\n"
    "    - {a: [s1, 0], b: [s2, 1]}\n"
    "    - {a: [s2, 0], b: [s0, 1]}\n";

static void test_explicit_ring(void **state)
{
    (void)state;
    myri_topo_built b;
    assert_int_equal(load(ring3, &b), MYRI_OK);
    assert_int_equal(b.topo->nhosts, 3);
    assert_int_equal(b.topo->nlinks, 6);
    assert_true(b.topo->link[2].length_m == 25.0);
    assert_true(b.deadlock_free);
    assert_int_equal(myri_topo_find(b.topo, "s1"), 4);
    myri_topo_built_free(&b);
}

static void test_explicit_routes_override(void **state)
{
    (void)state;
    /* every host sends clockwise two hops: a cyclic channel dependency */
    char doc[2048];
    snprintf(doc, sizeof doc, "%s  routes:\n"
             "    - {from: a, to: c, ports: [0, 0, 2]}\n"
             "    - {from: b, to: a, ports: [0, 0, 2]}\n"
             "    - {from: c, to: b, ports: [0, 0, 2]}\n", ring3);
    myri_topo_built b;
    assert_int_equal(load(doc, &b), MYRI_OK);
    assert_false(b.deadlock_free);
    assert_non_null(strstr(b.deadlock_msg, "cycle"));
    const myri_route *r = myri_routes_get(&b.routes, 0, 2, &(myri_route){0});
    assert_int_equal(r->len, 3);
    assert_int_equal(r->byte[0], 0x80);
    assert_int_equal(r->byte[2], 0x82);
    myri_topo_built_free(&b);
    snprintf(doc, sizeof doc, "%s  routes:\n    - {from: a, to: c, ports: [0, 2]}\n", ring3);
    bad(doc, "t.yaml:15:31:", "ends at 'b', not at 'c'");
}

static void test_errors(void **state)
{
    (void)state;
    bad("topology:\n  hosts: [a]\n  switches: [{name: s0, ports: 8}]\n"
        "  links: [{a: a, b: [s9, 0]}]\n",
        "t.yaml:4:22:", "unknown node 's9'");
    bad("topology:\n  hosts: [a]\n  switches: [{name: s0, ports: 8}]\n"
        "  links: [{a: a, b: [s0, 8]}]\n",
        "t.yaml:4:26:", "port 8 out of range for switch 's0'; expected 0..7");
    bad("topology:\n  hosts: [a, b]\n  switches: [{name: s0, ports: 8}]\n"
        "  links:\n    - {a: a, b: [s0, 1]}\n    - {a: b, b: [s0, 1]}\n",
        "t.yaml:6:17:", "port 1 of 's0' is already used");
    bad("topology:\n  hosts: [a, a]\n", "t.yaml:2:14:", "duplicate node name 'a'");
    bad("topology:\n  hosts: [a]\n  switches: [{name: s0, ports: 6}]\n",
        "t.yaml:3:32:", "expected 4, 8, 16 or 32");
    bad("topology:\n  hosts: [a, b]\n  switches: [{name: s0, ports: 8}]\n"
        "  links: [{a: a, b: [s0, 0]}]\n",
        "t.yaml:2:3:", "host 'b' is not connected");
    bad("topology:\n  hosts: [a]\n  switches: [{name: s0, ports: 8}]\n"
        "  links: [{a: a, b: s0}]\n",
        "t.yaml:4:21:", "switch 's0' needs a port");
    bad("topology:\n  generator: fat-tree\n  k: 4\n  n: 3\nswitch: {ports: 4}\n",
        "t.yaml:2:14:", "needs 8 ports per switch");
    bad("topology:\n  generator: torus\n", "t.yaml:2:14:", "one of");
    bad("topology:\n  generator: star\n  hosts: [a]\n", "t.yaml:2:14:", "cannot be combined");
    bad("topology:\n  colour: red\n", "t.yaml:2:3:", "unknown key 'colour'");
    bad("topology:\n  generator: ring\n  n: 4\n  roots: [h0]\n", "t.yaml:4:11:",
        "expected the name of a switch");
    bad("link: {length: 0m}\n", "t.yaml:1:16:", "bad value");
    bad("topology: {generator: ring, n: 3}\nswitch: {addressing: sideways}\n", "t.yaml:2:22:", "one of");
    bad("topology: {generator: ring, n: 4, routing: dimension-order}\n", "t.yaml:1:44:",
        "dimension-order needs generator: mesh");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_is_fat_tree),
        cmocka_unit_test(test_explicit_ring),
        cmocka_unit_test(test_explicit_routes_override),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
