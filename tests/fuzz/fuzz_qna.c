/* fuzz_qna.c -- libFuzzer target for QNA network files.
 *
 * The input bytes are parsed as a YAML document; if the first line looks
 * like "key=value" it is also applied as a --set override.  A document that
 * loads as a network (myri_qna_net_from_doc) is solved with the default options,
 * with 3 fixed sweeps, with equation (12) as printed and with Whitt's
 * aggregate splitting, and the result is written as JSON (to a memory
 * stream).  Any crash, leak or sanitizer report is a bug; error returns are
 * expected.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "myri/config.h"
#include "myri/json.h"
#include "analysis/qna/qna.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_solve(const myri_qna_net *net)
{
    myri_qna_options opt[4];
    for (int k = 0; k < 4; k++) myri_qna_options_default(&opt[k]);
    opt[0].max_sweeps = 2000;
    opt[1].sweeps = 3;
    opt[2].wq = QNA_WQ_PAPER;
    opt[2].max_sweeps = 2000;
    opt[3].split = QNA_SPLIT_AGGREGATE;
    opt[3].max_sweeps = 2000;
    for (int k = 0; k < 4; k++) {
        myri_qna_result r;
        myri_error err;
        if (myri_qna_solve(net, &opt[k], &r, &err) != MYRI_OK) continue;
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        if (!mem) continue;
        myri_json *j = myri_json_create(mem, false);
        if (j) {
            myri_json_obj_begin(j);
            myri_qna_result_json(&r, j);
            myri_json_obj_end(j);
            myri_json_finish(j);
        }
        myri_qna_result_print(&r, mem);
        fclose(mem);
        free(buf);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    myri_node *root = NULL;
    myri_error err;
    if (myri_doc_parse("fuzz.yaml", (const char *)data, size, &root, &err) != MYRI_OK) return 0;
    const char *nl = memchr(data, '\n', size);
    size_t line = nl ? (size_t)(nl - (const char *)data) : size;
    if (line > 0 && line < 200 && memchr(data, '=', line) && data[0] != '#') {
        char set[201];
        memcpy(set, data, line);
        set[line] = 0;
        (void)myri_node_set(root, set, &err);
    }
    myri_qna_net *net = NULL;
    if (myri_qna_net_from_doc(root, &net, &err) == MYRI_OK) {
        fz_solve(net);
        myri_qna_net *copy = myri_qna_net_clone(net);
        myri_qna_net_destroy(copy);
        myri_qna_net_destroy(net);
    }
    myri_node_free(root);
    return 0;
}
