/* test_partition.c -- the partitioner of a cut run (src/app/partition.c,
 * docs/PARTITION.md section 4): leaf keeps every host with its leaf switch
 * and balances hosts, random is reproducible by its seed, L is the smallest
 * lookahead of a cut cable, one partition cuts nothing, bad modes are
 * refused; and the cable's lookahead as the fabric computes it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "app/partition.h"
#include "fabric/fabric.h"

static myri_topo *fat_tree(void)
{
    myri_topo_gen_params gp = {.gen = MYRI_GEN_FAT_TREE, .k = 4, .n = 3, .length_m = 10};
    myri_topo *t = NULL;
    myri_error err;
    assert_int_equal(myri_topo_generate(&gp, &t, &err), MYRI_OK);
    return t;
}

/* The lookahead of every link, as the fabric computes it (default parameters). */
static uint64_t *lookaheads(const myri_topo *t)
{
    myri_sim *sim = myri_sim_create(1);
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    myri_fabric *f = NULL;
    myri_fabric_callbacks cb = {0};
    myri_error err;
    assert_int_equal(myri_fabric_create(sim, t, &p, &cb, &f, &err), MYRI_OK);
    uint64_t *la = calloc(t->nlinks, sizeof *la);
    for (size_t l = 0; l < t->nlinks; l++) la[l] = myri_fabric_link_lookahead_ps(f, l);
    myri_sim_destroy(sim);
    return la;
}

static void test_mode_parse(void **state)
{
    (void)state;
    myri_part_mode m;
    myri_error err;
    char buf[32];
    assert_int_equal(myri_part_mode_parse("leaf", &m, &err), MYRI_OK);
    assert_int_equal(m.kind, MYRI_PART_LEAF);
    assert_int_equal(myri_part_mode_parse("block", &m, &err), MYRI_OK);
    assert_int_equal(m.kind, MYRI_PART_BLOCK);
    assert_int_equal(myri_part_mode_parse("random:17", &m, &err), MYRI_OK);
    assert_int_equal(m.kind, MYRI_PART_RANDOM);
    assert_int_equal(m.seed, 17);
    myri_part_mode_name(&m, buf, sizeof buf);
    assert_string_equal(buf, "random:17");
    const char *bad[] = {"", "leaves", "random", "random:", "random:x", "random:7x", "random:-1", "Leaf"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        myri_error_clear(&err);
        assert_int_equal(myri_part_mode_parse(bad[i], &m, &err), MYRI_EINPUT);
        assert_non_null(strstr(err.msg, "--partition"));
        assert_non_null(strstr(err.msg, "random:SEED"));
    }
}

/* The switch host node h's cable reaches. */
static uint32_t leaf_of(const myri_topo *t, uint32_t node) { return (uint32_t)t->node[node].port[0].peer_node; }

static void test_leaf_keeps_hosts_with_their_switch(void **state)
{
    (void)state;
    myri_topo *t = fat_tree(); /* 64 hosts, 4 per leaf switch */
    uint64_t *la = lookaheads(t);
    myri_part_mode m = {.kind = MYRI_PART_LEAF};
    for (uint32_t n = 1; n <= 4; n++) {
        myri_partition p;
        myri_error err;
        assert_int_equal(myri_partition_make(t, n, &m, la, &p, &err), MYRI_OK);
        uint32_t lo = UINT32_MAX, hi = 0, sum = 0;
        for (uint32_t q = 0; q < n; q++) {
            lo = p.hosts[q] < lo ? p.hosts[q] : lo;
            hi = p.hosts[q] > hi ? p.hosts[q] : hi;
            sum += p.hosts[q];
        }
        assert_int_equal(sum, 64);
        assert_true(hi - lo <= 4); /* blocks of whole leaf switches (4 hosts each) */
        for (size_t h = 0; h < t->nhosts; h++) {
            uint32_t node = t->host_node[h];
            assert_int_equal(p.owner[node], p.owner[leaf_of(t, node)]);
            assert_int_equal(p.host_owner[h], p.owner[node]);
        }
        for (size_t i = 0; i < p.ncut; i++) { /* only switch-switch cables */
            const myri_topo_link *lk = &t->link[p.cut[i]];
            assert_int_equal(t->node[lk->a_node].kind, MYRI_TOPO_SWITCH);
            assert_int_equal(t->node[lk->b_node].kind, MYRI_TOPO_SWITCH);
        }
        if (n == 1) {
            assert_int_equal(p.ncut, 0);
            assert_true(p.lookahead_ps == UINT64_MAX);
        } else {
            assert_true(p.ncut > 0);
            assert_int_equal(p.lookahead_ps, 12500 + 55594); /* every cable 10 m: T + P at 640 Mb/s */
        }
        myri_partition_free(&p);
    }
    free(la);
    myri_topo_destroy(t);
}

static void test_random_reproducible(void **state)
{
    (void)state;
    myri_topo *t = fat_tree();
    uint64_t *la = lookaheads(t);
    myri_partition a, b, c;
    myri_part_mode m1 = {.kind = MYRI_PART_RANDOM, .seed = 5}, m2 = {.kind = MYRI_PART_RANDOM, .seed = 6};
    assert_int_equal(myri_partition_make(t, 3, &m1, la, &a, NULL), MYRI_OK);
    assert_int_equal(myri_partition_make(t, 3, &m1, la, &b, NULL), MYRI_OK);
    assert_int_equal(myri_partition_make(t, 3, &m2, la, &c, NULL), MYRI_OK);
    assert_memory_equal(a.owner, b.owner, t->nnodes * sizeof *a.owner);
    assert_true(memcmp(a.owner, c.owner, t->nnodes * sizeof *a.owner) != 0);
    size_t host_cut = 0;
    for (size_t i = 0; i < a.ncut; i++)
        host_cut += t->node[t->link[a.cut[i]].a_node].kind == MYRI_TOPO_HOST ||
                    t->node[t->link[a.cut[i]].b_node].kind == MYRI_TOPO_HOST;
    assert_true(host_cut > 0); /* host cables are cut too */
    myri_partition_free(&a);
    myri_partition_free(&b);
    myri_partition_free(&c);
    free(la);
    myri_topo_destroy(t);
}

/* h0 h1 - s0 =(25 m)= s1 - h2 h3, host cables 1 m. */
static void test_lookahead_hand_made(void **state)
{
    (void)state;
    myri_topo *t = myri_topo_create();
    uint32_t h[4], s0, s1;
    const char *hn[4] = {"h0", "h1", "h2", "h3"};
    for (int i = 0; i < 4; i++) assert_int_equal(myri_topo_add_host(t, hn[i], &h[i]), MYRI_OK);
    assert_int_equal(myri_topo_add_switch(t, "s0", 4, &s0), MYRI_OK);
    assert_int_equal(myri_topo_add_switch(t, "s1", 4, &s1), MYRI_OK);
    for (uint32_t i = 0; i < 2; i++) {
        assert_int_equal(myri_topo_connect(t, h[i], 0, s0, i, 1.0, NULL), MYRI_OK);
        assert_int_equal(myri_topo_connect(t, h[2 + i], 0, s1, i, 1.0, NULL), MYRI_OK);
    }
    uint32_t mid;
    assert_int_equal(myri_topo_connect(t, s0, 3, s1, 3, 25.0, &mid), MYRI_OK);
    uint64_t *la = lookaheads(t);
    /* PARTITION.md section 2's table at 640 Mb/s (T 12.5 ns < ctrl_delay 25 ns: L_c = T + P_c) */
    assert_int_equal(la[mid], 151485);
    assert_int_equal(la[0], 18059);
    myri_part_mode leaf = {.kind = MYRI_PART_LEAF}, block = {.kind = MYRI_PART_BLOCK};
    myri_partition p;
    assert_int_equal(myri_partition_make(t, 2, &leaf, la, &p, NULL), MYRI_OK);
    assert_int_equal(p.ncut, 1);
    assert_int_equal(p.cut[0], mid);
    assert_int_equal(p.lookahead_ps, 151485); /* the 1 m host cables are not cut */
    assert_int_equal(p.hosts[0], 2);
    assert_int_equal(p.hosts[1], 2);
    assert_int_equal(p.nodes[0], 3);
    myri_partition_free(&p);
    /* block: nodes 0-2 (h0 h1 h2) and 3-5 (h3 s0 s1): host cables cut, L the 1 m one */
    assert_int_equal(myri_partition_make(t, 2, &block, la, &p, NULL), MYRI_OK);
    assert_int_equal(p.ncut, 3);
    assert_int_equal(p.lookahead_ps, 18059);
    myri_partition_free(&p);
    myri_error err;
    myri_error_clear(&err);
    assert_int_equal(myri_partition_make(t, 0, &leaf, la, &p, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "--partitions"));
    assert_int_equal(myri_partition_make(t, MYRI_PART_MAX + 1, &leaf, la, &p, &err), MYRI_EINPUT);
    free(la);
    myri_topo_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mode_parse),
        cmocka_unit_test(test_leaf_keeps_hosts_with_their_switch),
        cmocka_unit_test(test_random_reproducible),
        cmocka_unit_test(test_lookahead_hand_made),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
