/* fuzz_scenario.c -- libFuzzer target for the scenario reader.
 *
 * The input bytes are parsed as a YAML document (myri_doc_parse); if that
 * succeeds, the first line of the input is also tried as a `--set`
 * assignment, and the document is loaded against a representative set of
 * tables holding every parameter type (nested prefixes, a required value,
 * ranges, an enum, a node), then echoed and formatted.  The same bytes are
 * also given to each value parser directly.  Any crash, leak or sanitizer
 * report is a bug; error returns are expected.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "myri/config.h"
#include "myri/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz_cfg {
    bool flag;
    int64_t count;
    double ratio;
    uint64_t time_ps;
    double rate_bps;
    uint64_t size_bytes;
    double length_m;
    const char *name;
    int mode;
    const myri_node *list;
    uint64_t delay_ps;
    int64_t needed;
} fz_cfg;

static const myri_param fz_top[] = {
    {"flag", MYRI_P_BOOL, "", "false", NULL, NULL, "a flag", offsetof(fz_cfg, flag), NULL},
    {"count", MYRI_P_INT, "events", "10", "1", "1000000", "a count", offsetof(fz_cfg, count), NULL},
    {"ratio", MYRI_P_DOUBLE, "", "0.5", "0", "1", "a ratio", offsetof(fz_cfg, ratio), NULL},
    {"duration", MYRI_P_TIME, "", "1ms", "1ps", NULL, "a time", offsetof(fz_cfg, time_ps), NULL},
    {"name", MYRI_P_STRING, "", "x", NULL, NULL, "a name", offsetof(fz_cfg, name), NULL},
    {"mode", MYRI_P_ENUM, "", "fast", NULL, NULL, "a mode", offsetof(fz_cfg, mode), "fast|reference"},
    {"hosts", MYRI_P_NODE, "", "", NULL, NULL, "a list", offsetof(fz_cfg, list), NULL},
};
static const myri_param fz_link[] = {
    {"rate", MYRI_P_RATE, "Mb/s", "640Mb/s", "1b/s", "100Gb/s", "a rate", offsetof(fz_cfg, rate_bps), NULL},
    {"slack.size", MYRI_P_SIZE, "B", "80B", NULL, "1GiB", "a size", offsetof(fz_cfg, size_bytes), NULL},
    {"length", MYRI_P_LENGTH, "m", "3m", "0", "25m", "a length", offsetof(fz_cfg, length_m), NULL},
    {"delay", MYRI_P_TIME, "ns", "550", NULL, "1s", "a bare-unit time", offsetof(fz_cfg, delay_ps), NULL},
    {"needed", MYRI_P_INT, "", NULL, NULL, NULL, "a required value", offsetof(fz_cfg, needed), NULL},
};

/* Every value parser on the same text. */
static void fz_values(const char *s)
{
    myri_error err;
    uint64_t u;
    double d;
    int64_t i;
    bool b;
    char buf[64];
    if (myri_parse_time(s, "ns", &u, &err) == MYRI_OK) myri_format_time(u, buf, sizeof buf);
    myri_parse_time(s, NULL, &u, &err);
    myri_parse_rate(s, NULL, &d, &err);
    myri_parse_size(s, "KiB", &u, &err);
    myri_parse_length(s, NULL, &d, &err);
    myri_parse_double(s, &d, &err);
    myri_parse_int(s, &i, &err);
    myri_parse_bool(s, &b, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (size < 256) fz_values(text);

    myri_error err;
    myri_node *root = NULL;
    if (myri_doc_parse("fuzz.yaml", text, size, &root, &err) == MYRI_OK) {
        char line[256];
        size_t k = 0;
        while (k < size && k + 1 < sizeof line && text[k] != '\n') {
            line[k] = text[k];
            k++;
        }
        line[k] = '\0';
        myri_node_set(root, line, &err);
        fz_cfg c;
        memset(&c, 0, sizeof c);
        myri_pset set[] = {{"", fz_top, sizeof fz_top / sizeof fz_top[0], &c},
                           {"link", fz_link, sizeof fz_link / sizeof fz_link[0], &c}};
        const char *const ignore[] = {"extra", NULL};
        if (myri_params_load(set, 2, root, ignore, &err) == MYRI_OK) {
            FILE *devnull = fopen("/dev/null", "w");
            if (devnull) {
                myri_params_echo_text(set, 2, devnull);
                myri_params_help(set, 2, devnull);
                myri_json *j = myri_json_create(devnull, false);
                myri_json_obj_begin(j);
                myri_params_echo_json(set, 2, j);
                myri_json_obj_end(j);
                myri_json_finish(j);
                fclose(devnull);
            }
        }
        const myri_node *hosts = myri_node_get(root, "hosts");
        if (hosts && hosts->kind == MYRI_NODE_SEQ)
            for (size_t j = 0; j < hosts->n && j < 8; j++)
                myri_params_load_map(fz_link, sizeof fz_link / sizeof fz_link[0], hosts->item[j],
                                     &c, &err);
        myri_node_free(root);
    }
    free(text);
    return 0;
}
