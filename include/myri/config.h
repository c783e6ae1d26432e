/* config.h -- scenario documents, values with units, parameter tables.
 *
 * A scenario (or network) file is YAML, read with libyaml into a tree of
 * myri_node that remembers FILE:LINE:COL of every node (1-based).  Anchors,
 * aliases and tags are rejected; duplicate keys are errors.
 *
 * Every configurable thing declares its parameters in one table of
 * myri_param (name, type, unit, default, range, help, offset into a C
 * struct).  From that table come: loading with validation
 * (myri_params_load), `--help` text (myri_params_help) and the echoed
 * effective configuration (myri_params_echo_text / _json).
 *
 * Errors are reported in `myri_error` as "FILE:LINE:COL: what is wrong, and
 * what was expected"; every function that fills one returns MYRI_EINPUT.
 * The parts of the message are also kept apart (position, dotted key, node
 * of the network at fault) so that no caller has to parse the text back.
 */
#ifndef MYRI_CONFIG_H
#define MYRI_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "myri/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_json myri_json;

/* ---- errors -------------------------------------------------------------- */
/* One error convention across the library: a function returns myri_status
 * and, for MYRI_EINPUT (and some others), fills a myri_error.  `msg` is the
 * whole message as the program prints it; the other fields are what is known
 * of the place at fault ("" / 0 when unknown). */
typedef struct myri_error {
    char msg[768];
    char file[256];     /* FILE of the scenario node at fault */
    unsigned line, col; /* its position (1-based; 0 when unknown) */
    char key[128];      /* dotted key at fault, e.g. "link.slack.stop" */
    char node[64];      /* network node at fault (host, switch, station), by name */
} myri_error;

/* Empties every field. */
void myri_error_clear(myri_error *err);
/* Record the dotted key / the network node at fault (the message is kept). */
void myri_error_set_key(myri_error *err, const char *key);
void myri_error_set_node(myri_error *err, const char *node);
/* Formats "key: message" into err (no position) and records the key.
 * Always returns MYRI_EINPUT. */
myri_status myri_error_key(myri_error *err, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- document tree --------------------------------------------------------- */
typedef enum myri_node_kind { MYRI_NODE_SCALAR, MYRI_NODE_SEQ, MYRI_NODE_MAP } myri_node_kind;

typedef struct myri_node myri_node;
struct myri_node {
    myri_node_kind kind;
    const char *file;  /* shared, owned by the document root */
    unsigned line, col;/* 1-based position of the node's first character */
    char *scalar;      /* SCALAR: the text; else NULL */
    size_t n;          /* SEQ/MAP: number of items */
    myri_node **item;  /* SEQ: items; MAP: values */
    char **key;        /* MAP: keys (NULL for SEQ) */
    myri_node **keynode;/* MAP: key nodes, for positions of bad keys */
};

/* Parses YAML text; `file` is the name used in messages.  The document must
 * be empty (gives an empty mapping) or a single mapping.  On error returns
 * MYRI_EINPUT and *root = NULL. */
myri_status myri_doc_parse(const char *file, const char *text, size_t len, myri_node **root,
                           myri_error *err);
/* Reads and parses a file (MYRI_EIO with a message if unreadable). */
myri_status myri_doc_load(const char *path, myri_node **root, myri_error *err);
void myri_node_free(myri_node *root);

/* Map lookup by key; NULL if absent or `map` is not a mapping. */
const myri_node *myri_node_get(const myri_node *map, const char *key);
/* Dotted-path lookup through nested mappings and lists ("link.slack.size",
 * "network.arrivals.0.rate": a decimal part indexes a list). */
const myri_node *myri_node_path(const myri_node *root, const char *dotted);
/* Applies a command-line override "dotted.key=value": creates intermediate
 * mappings as needed and replaces any existing node; a decimal part selects
 * an existing item of a list ("network.arrivals.0.rate=0.005").  The new scalar's
 * position is "--set:1:COL" where COL points into `assignment`.  Errors
 * (no '=', empty key, a path through a scalar) return MYRI_EINPUT. */
myri_status myri_node_set(myri_node *root, const char *assignment, myri_error *err);

/* Formats "FILE:LINE:COL: message" into err (node may be NULL: no position),
 * records the position and empties key and node.  Always returns MYRI_EINPUT. */
myri_status myri_error_at(myri_error *err, const myri_node *node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- values with units ---------------------------------------------------------
 * All return MYRI_OK or MYRI_EINPUT with a message naming what was expected
 * (without position; myri_params_load adds it).  `bare_unit` is the unit of
 * a number written without one (NULL: a unit is required unless the value is 0).
 *
 *  time:   ps ns us ms s              -> uint64 picoseconds
 *  rate:   b/s Kb/s Mb/s Gb/s (x1000), B/s KB/s MB/s GB/s (x8 bits)  -> double bit/s
 *  size:   B KB MB GB (x1000), KiB MiB GiB (x1024)   -> uint64 bytes
 *  length: mm cm m km                 -> double metres
 */
myri_status myri_parse_time(const char *s, const char *bare_unit, uint64_t *ps, myri_error *err);
myri_status myri_parse_rate(const char *s, const char *bare_unit, double *bps, myri_error *err);
myri_status myri_parse_size(const char *s, const char *bare_unit, uint64_t *bytes, myri_error *err);
myri_status myri_parse_length(const char *s, const char *bare_unit, double *m, myri_error *err);
myri_status myri_parse_double(const char *s, double *v, myri_error *err);
myri_status myri_parse_int(const char *s, int64_t *v, myri_error *err);
myri_status myri_parse_bool(const char *s, bool *v, myri_error *err);
/* Formats a time as the largest unit that keeps it exact ("12.5ns", "50ms"). */
void myri_format_time(uint64_t ps, char *buf, size_t len);

/* ---- parameter tables ---------------------------------------------------------- */
typedef enum myri_ptype {
    MYRI_P_BOOL,   /* bool */
    MYRI_P_INT,    /* int64_t */
    MYRI_P_DOUBLE, /* double */
    MYRI_P_TIME,   /* uint64_t ps */
    MYRI_P_RATE,   /* double bit/s */
    MYRI_P_SIZE,   /* uint64_t bytes */
    MYRI_P_LENGTH, /* double metres */
    MYRI_P_STRING, /* const char * (points into the document or the default) */
    MYRI_P_ENUM,   /* int: index into `choices` ("a|b|c") */
    MYRI_P_NODE,   /* const myri_node * (a list or mapping the owner parses) */
    MYRI_P_UINT    /* uint64_t: 0 .. 18446744073709551615 (seeds) */
} myri_ptype;

typedef struct myri_param {
    const char *name;   /* dotted key relative to the table's prefix */
    myri_ptype type;
    const char *unit;   /* shown in help; also the unit of a bare number */
    const char *def;    /* default as text; NULL = required */
    const char *min;    /* lower bound as text in the same syntax; NULL = none */
    const char *max;    /* upper bound; NULL = none */
    const char *help;   /* one line */
    size_t offset;      /* offsetof(struct, field) */
    const char *choices;/* MYRI_P_ENUM: "fast|reference" */
} myri_param;

/* A table applied under a key prefix ("" for the top level, "link" for the
 * link.* keys) writing into `out`. */
typedef struct myri_pset {
    const char *prefix;
    const myri_param *params;
    size_t n;
    void *out;
} myri_pset;

/* Loads every table of the set from the document (root may be NULL: all
 * defaults), checking types, units and ranges, and rejecting any key in the
 * document not declared in one of the tables ("unknown key 'x'; expected one
 * of ...").  Keys listed in `ignore` (NULL-terminated, top-level names) are
 * skipped by the unknown-key check (used when a document holds several
 * sections read by different code).  On error returns MYRI_EINPUT with
 * FILE:LINE:COL in err. */
myri_status myri_params_load(const myri_pset *set, size_t nset, const myri_node *root,
                             const char *const *ignore, myri_error *err);
/* Validates one mapping (a list element, for example) against a table,
 * writing into out; unknown keys are errors. */
myri_status myri_params_load_map(const myri_param *params, size_t n, const myri_node *map,
                                 void *out, myri_error *err);
/* Parses one scalar node as parameter p into out (with FILE:LINE:COL). */
myri_status myri_param_parse(const myri_param *p, const myri_node *node, void *out,
                             myri_error *err);
/* Prints the tables as help: name, type, unit, default, range, help line. */
void myri_params_help(const myri_pset *set, size_t nset, FILE *out);
/* Prints "key = value" for every parameter (effective configuration). */
void myri_params_echo_text(const myri_pset *set, size_t nset, FILE *out);
/* Writes the effective configuration as members of the current JSON object
 * (dotted keys as names). */
void myri_params_echo_json(const myri_pset *set, size_t nset, myri_json *j);
/* Formats parameter p's value from out into buf. */
void myri_param_format(const myri_param *p, const void *out, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
