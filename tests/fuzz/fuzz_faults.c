/* fuzz_faults.c -- fuzz target for the scenario's `faults:` list
 * (fabric_faults.c): the input is a scenario whose topology is built and
 * whose faults are validated against it and scheduled on a fabric; the
 * simulation then runs to 100 us with no traffic, so that scheduled cuts and
 * restores execute.  Any input must give MYRI_OK or a FILE:LINE:COL error,
 * never a crash or a leak.  Networks over 64 hosts are skipped (speed). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fabric/fabric_faults.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536) return 0;
    myri_node *root = NULL;
    myri_error err;
    if (myri_doc_parse("fuzz.yaml", (const char *)data, size, &root, &err) != MYRI_OK) return 0;
    myri_topo_built b;
    if (myri_topo_load_doc(root, &b, &err) != MYRI_OK) {
        myri_node_free(root);
        return 0;
    }
    myri_sim *sim = b.topo->nhosts <= 64 ? myri_sim_create(1) : NULL;
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    myri_fabric *f = NULL;
    if (sim && myri_fabric_params_check(&p, &err) == MYRI_OK &&
        myri_fabric_create(sim, b.topo, &p, NULL, &f, &err) == MYRI_OK) {
        myri_ffaults_config c = {myri_node_get(root, "faults")};
        myri_ffaults *ff = NULL;
        myri_status st = myri_ffaults_apply(&c, b.topo, f, 100 * MYRI_PS_PER_US, &ff, &err);
        if (st == MYRI_OK) {
            myri_sim_run(sim, 100 * MYRI_PS_PER_US, 0);
            myri_ffaults_note(ff, 1, -1, 0);
            myri_ffaults_note(ff, 1, 2, 0);
            FILE *null = fopen("/dev/null", "w");
            if (null) {
                myri_ffaults_report_text(ff, null);
                fclose(null);
            }
        } else if (st == MYRI_EINPUT && strncmp(err.msg, "fuzz.yaml:", 10) != 0 &&
                   strncmp(err.msg, "--set:", 6) != 0) {
            __builtin_trap(); /* every input error names the position */
        }
        myri_ffaults_free(ff);
    }
    myri_sim_destroy(sim);
    myri_topo_built_free(&b);
    myri_node_free(root);
    return 0;
}
