/* fuzz_doc.h -- what the job fuzz targets ask of a document before running
 * it (to keep each run small): an integer key absent or at most a bound, a
 * list (or count) with at most so many items. */
#ifndef MYRI_FUZZ_DOC_H
#define MYRI_FUZZ_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "myri/config.h"

/* The integer at `path` is absent (use the default) or <= max. */
static inline bool fz__int_le(const myri_node *root, const char *path, int64_t max)
{
    const myri_node *n = myri_node_path(root, path);
    if (!n) return true;
    int64_t v;
    myri_error err;
    if (!n->scalar || myri_parse_int(n->scalar, &v, &err) != MYRI_OK) return false;
    return v <= max;
}

/* The list (or count) at `path` has at most max items. */
static inline bool fz__list_le(const myri_node *root, const char *path, size_t max)
{
    const myri_node *n = myri_node_path(root, path);
    if (!n) return true;
    if (n->scalar) return fz__int_le(root, path, (int64_t)max);
    return n->n <= max;
}

#endif
