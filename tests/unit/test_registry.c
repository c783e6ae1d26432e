/* test_registry.c -- the one table of component types and jobs (src/app/):
 * types are found by name, names are unique, unknown names are error codes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "app/hold.h"
#include "app/registry.h"
#include "myri/sim.h"

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
        cmocka_unit_test(test_default_scenario_is_there),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
