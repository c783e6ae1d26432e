/* test_registry.c -- the one table of component types and jobs (src/app/):
 * types are found by name, names are unique, unknown names are error codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "app/hold.h"
#include "app/registry.h"
#include "fabric/fabric.h"
#include "myri/sim.h"
#include "topo/topo.h"

/* Component types are found by name; names are unique; an unknown name is
 * an error code, not a crash. */
static void test_registry_creates_by_type_name(void **state)
{
    (void)state;
    const myri_component_ops *const *types = myri_component_types();
    size_t n = 0;
    for (; types[n]; n++) {
        assert_ptr_equal(myri_component_type_find(types[n]->type), types[n]);
        for (size_t k = 0; k < n; k++) assert_string_not_equal(types[k]->type, types[n]->type);
    }
    assert_true(n >= 6); /* hold, fabric, traffic-source, traffic, nicsim-station, nicsim-source */
    assert_non_null(myri_component_type_find("fabric"));
    assert_non_null(myri_component_type_find("traffic-source"));
    assert_non_null(myri_component_type_find("nicsim-station"));
    assert_null(myri_component_type_find("no-such-type"));
    assert_null(myri_component_type_find(NULL));
    myri_sim *sim = myri_sim_create(1);
    myri_component *c = (myri_component *)1;
    assert_int_equal(myri_sim_add_type(sim, "no-such-type", "x", NULL, &c), MYRI_ENOTFOUND);
    assert_null(c);
    myri_hold_config cfg = {10, 1000};
    assert_int_equal(myri_sim_add_type(sim, "hold", "h", &cfg, &c), MYRI_OK);
    assert_string_equal(c->ops->type, "hold");
    assert_int_equal(myri_sim_pending(sim), 10);
    myri_sim_destroy(sim);
    assert_non_null(myri_job_find("fabric"));
    assert_string_equal(myri_job_default(), "fabric");
}

/* Library calls never crash on misuse: every registered type, given a NULL
 * config, refuses with an error code and adds nothing
 * (`myri_sim_add_type(sim, "fabric", "x", NULL, &c)` used to segfault). */
static void test_every_type_refuses_a_null_config(void **state)
{
    (void)state;
    const myri_component_ops *const *types = myri_component_types();
    for (size_t i = 0; types[i]; i++) {
        myri_sim *sim = myri_sim_create(1);
        myri_component *c = (myri_component *)1;
        myri_status st = myri_sim_add_type(sim, types[i]->type, "x", NULL, &c);
        if (st == MYRI_OK) fail_msg("type %s accepted a NULL config", types[i]->type);
        assert_null(c);
        assert_int_equal(myri_sim_component_count(sim), 0);
        assert_int_equal(myri_sim_pending(sim), 0);
        myri_sim_destroy(sim);
    }
    myri_component *c = NULL;
    assert_int_equal(myri_sim_add_type(NULL, "hold", "x", NULL, &c), MYRI_EINVAL);
    myri_sim *sim = myri_sim_create(1);
    myri_hold_config cfg = {1, 1000};
    assert_int_equal(myri_sim_add_type(sim, "hold", NULL, &cfg, &c), MYRI_EINVAL);
    assert_int_equal(myri_sim_add_type(sim, NULL, "x", &cfg, &c), MYRI_ENOTFOUND);
    myri_sim_destroy(sim);
}

/* A fabric is the config of exactly one "fabric" component, in its own
 * simulation: registering it again (it would be freed twice) or in another
 * simulation is MYRI_EINVAL. */
static void test_fabric_type_refuses_a_foreign_fabric(void **state)
{
    (void)state;
    myri_topo *t = myri_topo_create();
    uint32_t a, b;
    assert_int_equal(myri_topo_add_host(t, "a", &a), MYRI_OK);
    assert_int_equal(myri_topo_add_host(t, "b", &b), MYRI_OK);
    assert_int_equal(myri_topo_connect(t, a, 0, b, 0, 10.0, NULL), MYRI_OK);
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    myri_sim *sim = myri_sim_create(1), *other = myri_sim_create(2);
    myri_fabric *f = NULL;
    myri_error err;
    assert_int_equal(myri_fabric_create(sim, t, &p, NULL, &f, &err), MYRI_OK);
    size_t n = myri_sim_component_count(sim);
    myri_component *c = (myri_component *)1;
    assert_int_equal(myri_sim_add_type(sim, "fabric", "again", f, &c), MYRI_EINVAL);
    assert_null(c);
    assert_int_equal(myri_sim_component_count(sim), n);
    assert_int_equal(myri_sim_add_type(other, "fabric", "elsewhere", f, &c), MYRI_EINVAL);
    assert_null(c);
    myri_sim_destroy(other);
    myri_sim_destroy(sim); /* frees f once */
    myri_topo_destroy(t);
}

static void test_default_scenario_is_there(void **state)
{
    (void)state;
    assert_non_null(myri_default_scenario());
    assert_non_null(myri_job_find(myri_job_default()));
    assert_null(myri_job_find("no-such-job"));
    assert_null(myri_job_find(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_creates_by_type_name),
        cmocka_unit_test(test_every_type_refuses_a_null_config),
        cmocka_unit_test(test_fabric_type_refuses_a_foreign_fabric),
        cmocka_unit_test(test_default_scenario_is_there),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
