/* presets.h -- named sets of parameter values for a whole system (host, bus,
 * NIC, link), each value with its source.  A scenario names one with
 * `preset: NAME`; its values replace the tables' defaults for every key the
 * document does not set (the document and --set win). */
#ifndef MYRI_APP_PRESETS_H
#define MYRI_APP_PRESETS_H

#include <stddef.h>
#include <stdio.h>

#include "myri/config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_preset_value {
    const char *key;     /* dotted key, e.g. "bus.dma_rate" */
    const char *value;   /* in the key's own syntax */
    const char *source;  /* seed / myrinet-facts section, or "assumption: why" */
    const char *unless;  /* not applied when the document sets this key either (NULL: none) */
} myri_preset_value;

typedef struct myri_preset {
    const char *name;
    const char *summary;
    const myri_preset_value *values;
    size_t n;
} myri_preset;

/* NULL if unknown. */
const myri_preset *myri_preset_find(const char *name);
/* The i-th preset of the table, NULL past the last. */
const myri_preset *myri_preset_at(size_t i);
/* Their names, "alpha-pci-1998|sparc2-sbus-1994" (from the table). */
const char *myri_preset_names(void);
/* Applies p to the tables of `set` for every key `root` does not set.
 * MYRI_EINPUT (err names the preset and key) if a value is rejected or a key
 * belongs to no table (a bug in the preset, caught by the tests). */
myri_status myri_preset_apply(const myri_preset *p, const myri_pset *set, size_t nset, const myri_node *root,
                              myri_error *err);
/* Prints the preset's values with their sources. */
void myri_preset_print(const myri_preset *p, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
