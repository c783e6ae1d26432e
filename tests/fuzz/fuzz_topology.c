/* fuzz_topology.c -- fuzz target for the topology section reader: any input
 * must give a topology with routes or a FILE:LINE:COL error, never a crash or
 * a leak.  Inputs larger than 64 KiB are skipped.  Generated networks are
 * legal up to MYRI_TOPO_MAX_HOSTS hosts; a 1000-host mesh takes seconds under
 * the fuzzer's instrumentation, so run libFuzzer with -timeout=60 (the corpus
 * replayed by the test suite keeps networks small). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "topo/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536) return 0;
    myri_node *root = NULL;
    myri_error err;
    if (myri_doc_parse("fuzz.yaml", (const char *)data, size, &root, &err) != MYRI_OK) return 0;
    myri_topo_built b;
    if (myri_topo_load_doc(root, &b, &err) == MYRI_OK) {
        /* every computed route must reach its destination */
        for (size_t s = 0; s < b.topo->nhosts && s < 64; s++) {
            for (size_t d = 0; d < b.topo->nhosts && d < 64; d++) {
                const myri_route *r = myri_routes_get(&b.routes, s, d, &(myri_route){0});
                if (r->len == MYRI_ROUTE_NONE) continue;
                uint32_t reached = 0;
                myri_error e;
                if (myri_route_walk(b.topo, b.encoding, (uint32_t)s, r, NULL, NULL, &reached, &e) != MYRI_OK ||
                    reached != d)
                    __builtin_trap();
            }
        }
        myri_topo_built_free(&b);
    } else if (strncmp(err.msg, "fuzz.yaml:", 10) != 0 && strstr(err.msg, "fuzz.yaml") == NULL) {
        __builtin_trap(); /* every input error names the file */
    }
    myri_node_free(root);
    return 0;
}
