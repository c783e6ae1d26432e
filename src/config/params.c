/* params.c -- parameter tables: loading with validation, help, echo.
 *
 * A parameter's full key is PREFIX.NAME (just NAME for the prefix "").  In
 * the document, keys are nested mappings: "link: {rate: 640Mb/s}" sets
 * link.rate; a flat dotted key "link.rate: ..." is NOT accepted (reported as
 * unknown, with a hint).  A MYRI_P_NODE parameter accepts any subtree,
 * which its owner parses.
 *
 * Loading (myri_params_load) runs in two passes: first every key of the
 * document is checked against the tables (unknown keys, a value where a
 * mapping is expected), then every parameter is read from the document or
 * from its default and checked against its range.  The first problem stops
 * the load with "FILE:LINE:COL: what; expected what".
 *
 * Mistakes in a table (a default, min or max that does not parse) are
 * reported as MYRI_EINVAL "parameter table error: ..." rather than as bad
 * input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"
#include "myri/config.h"
#include "myri/json.h"

enum { KEY_MAX = 256, LIST_MAX = 400 };

typedef union pvalue {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
    const char *s;
    int e;
    const myri_node *node;
} pvalue;

static const char *type_name(myri_ptype t)
{
    static const char *const names[] = {"bool", "int",    "double", "time", "rate",
                                        "size", "length", "string", "enum", "node", "uint"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

static void full_name(const char *prefix, const myri_param *p, char *buf, size_t len)
{
    if (prefix && *prefix) snprintf(buf, len, "%s.%s", prefix, p->name);
    else snprintf(buf, len, "%s", p->name);
}

/* Choices of an enum "a|b|c" as "a, b, c". */
static void enum_list(const char *choices, char *buf, size_t len)
{
    size_t k = 0;
    for (const char *c = choices ? choices : ""; *c && k + 3 < len; c++) {
        if (*c == '|') {
            buf[k++] = ',';
            buf[k++] = ' ';
        } else {
            buf[k++] = *c;
        }
    }
    buf[k] = '\0';
}

static myri_status enum_parse(const char *choices, const char *s, int *idx, char *why, size_t n)
{
    size_t slen = strlen(s);
    int i = 0;
    for (const char *c = choices ? choices : ""; *c; i++) {
        const char *bar = strchr(c, '|');
        size_t k = bar ? (size_t)(bar - c) : strlen(c);
        if (k == slen && memcmp(c, s, k) == 0) return *idx = i, MYRI_OK;
        if (!bar) break;
        c = bar + 1;
    }
    char list[256];
    enum_list(choices, list, sizeof list);
    snprintf(why, n, "expected one of: %.230s", list);
    return MYRI_EINPUT;
}

/* Parses text as a value of p (not NODE) into *v. */
static myri_status value_parse(const myri_param *p, const char *s, pvalue *v, char *why,
                               size_t n)
{
    switch (p->type) {
    case MYRI_P_BOOL: return myri_cfg_parse_bool(s, &v->b, why, n);
    case MYRI_P_INT: return myri_cfg_parse_int(s, &v->i, why, n);
    case MYRI_P_UINT: return myri_cfg_parse_uint(s, &v->u, why, n);
    case MYRI_P_DOUBLE: return myri_cfg_parse_double_unit(s, p->unit, &v->d, why, n);
    case MYRI_P_TIME: return myri_cfg_parse_time(s, p->unit, &v->u, why, n);
    case MYRI_P_RATE: return myri_cfg_parse_rate(s, p->unit, &v->d, why, n);
    case MYRI_P_SIZE: return myri_cfg_parse_size(s, p->unit, &v->u, why, n);
    case MYRI_P_LENGTH: return myri_cfg_parse_length(s, p->unit, &v->d, why, n);
    case MYRI_P_STRING: v->s = s; return MYRI_OK;
    case MYRI_P_ENUM: return enum_parse(p->choices, s, &v->e, why, n);
    case MYRI_P_NODE: break;
    }
    snprintf(why, n, "parameter type %d cannot be parsed from text", (int)p->type);
    return MYRI_EINVAL;
}

static void value_store(const myri_param *p, const pvalue *v, void *out)
{
    char *f = (char *)out + p->offset;
    switch (p->type) {
    case MYRI_P_BOOL: memcpy(f, &v->b, sizeof v->b); break;
    case MYRI_P_INT: memcpy(f, &v->i, sizeof v->i); break;
    case MYRI_P_DOUBLE:
    case MYRI_P_RATE:
    case MYRI_P_LENGTH: memcpy(f, &v->d, sizeof v->d); break;
    case MYRI_P_TIME:
    case MYRI_P_UINT:
    case MYRI_P_SIZE: memcpy(f, &v->u, sizeof v->u); break;
    case MYRI_P_STRING: memcpy(f, &v->s, sizeof v->s); break;
    case MYRI_P_ENUM: memcpy(f, &v->e, sizeof v->e); break;
    case MYRI_P_NODE: memcpy(f, &v->node, sizeof v->node); break;
    }
}

static pvalue value_load(const myri_param *p, const void *out)
{
    const char *f = (const char *)out + p->offset;
    pvalue v;
    memset(&v, 0, sizeof v);
    switch (p->type) {
    case MYRI_P_BOOL: memcpy(&v.b, f, sizeof v.b); break;
    case MYRI_P_INT: memcpy(&v.i, f, sizeof v.i); break;
    case MYRI_P_DOUBLE:
    case MYRI_P_RATE:
    case MYRI_P_LENGTH: memcpy(&v.d, f, sizeof v.d); break;
    case MYRI_P_TIME:
    case MYRI_P_UINT:
    case MYRI_P_SIZE: memcpy(&v.u, f, sizeof v.u); break;
    case MYRI_P_STRING: memcpy(&v.s, f, sizeof v.s); break;
    case MYRI_P_ENUM: memcpy(&v.e, f, sizeof v.e); break;
    case MYRI_P_NODE: memcpy(&v.node, f, sizeof v.node); break;
    }
    return v;
}

/* -1, 0, 1 comparing a and b as values of p's type. */
static int value_cmp(const myri_param *p, const pvalue *a, const pvalue *b)
{
    switch (p->type) {
    case MYRI_P_INT: return (a->i > b->i) - (a->i < b->i);
    case MYRI_P_TIME:
    case MYRI_P_UINT:
    case MYRI_P_SIZE: return (a->u > b->u) - (a->u < b->u);
    default: return (a->d > b->d) - (a->d < b->d);
    }
}

static bool has_range(const myri_param *p)
{
    return p->type == MYRI_P_INT || p->type == MYRI_P_UINT || p->type == MYRI_P_DOUBLE || p->type == MYRI_P_TIME ||
           p->type == MYRI_P_RATE || p->type == MYRI_P_SIZE || p->type == MYRI_P_LENGTH;
}

/* Checks v against p's min and max.  MYRI_EINPUT with why = "out of
 * range; expected ..."; MYRI_EINVAL when a bound itself does not parse. */
static myri_status range_check(const myri_param *p, const pvalue *v, char *why, size_t n)
{
    if (!has_range(p) || (!p->min && !p->max)) return MYRI_OK;
    pvalue lo, hi;
    char sub[256];
    if (p->min && value_parse(p, p->min, &lo, sub, sizeof sub)) {
        snprintf(why, n, "parameter table error: min '%s' of '%s' does not parse: %s", p->min,
                 p->name, sub);
        return MYRI_EINVAL;
    }
    if (p->max && value_parse(p, p->max, &hi, sub, sizeof sub)) {
        snprintf(why, n, "parameter table error: max '%s' of '%s' does not parse: %s", p->max,
                 p->name, sub);
        return MYRI_EINVAL;
    }
    bool low = p->min && value_cmp(p, v, &lo) < 0, high = p->max && value_cmp(p, v, &hi) > 0;
    if (!low && !high) return MYRI_OK;
    if (p->min && p->max) snprintf(why, n, "out of range; expected %s to %s", p->min, p->max);
    else if (p->min) snprintf(why, n, "out of range; expected at least %s", p->min);
    else snprintf(why, n, "out of range; expected at most %s", p->max);
    return MYRI_EINPUT;
}

/* What a value of p should look like, for messages. */
static const char *expect_of(const myri_param *p, char *buf, size_t len)
{
    if (p->type != MYRI_P_ENUM) return myri_cfg_expect(p->type);
    char list[256];
    enum_list(p->choices, list, sizeof list);
    snprintf(buf, len, "one of: %s", list);
    return buf;
}

static const char *kind_name(const myri_node *n)
{
    return n->kind == MYRI_NODE_SEQ ? "a list" : n->kind == MYRI_NODE_MAP ? "a mapping"
                                                                         : "a single value";
}

/* Parses node as p (named `name` in messages) into out. */
static myri_status param_node(const myri_param *p, const char *name, const myri_node *node,
                              void *out, myri_error *err)
{
    pvalue v;
    if (p->type == MYRI_P_NODE) { /* `null` or `~`, as the echo shows an absent value: absent */
        bool none = node->kind == MYRI_NODE_SCALAR && (!strcmp(node->scalar, "null") || !strcmp(node->scalar, "~"));
        v.node = none ? NULL : node;
        value_store(p, &v, out);
        return MYRI_OK;
    }
    char why[512], ebuf[300];
    if (node->kind != MYRI_NODE_SCALAR)
        return myri_error_at(err, node, "'%s' is %s; expected %s", name, kind_name(node),
                             expect_of(p, ebuf, sizeof ebuf));
    if (node->scalar[0] == '\0' && p->type != MYRI_P_STRING)
        return myri_error_at(err, node, "missing value for %s; expected %s", name,
                             expect_of(p, ebuf, sizeof ebuf));
    myri_status st = value_parse(p, node->scalar, &v, why, sizeof why);
    if (!st) st = range_check(p, &v, why, sizeof why);
    if (st == MYRI_EINVAL) return myri_error_at(err, NULL, "%s", why), MYRI_EINVAL;
    char shown[CFG__SHOW_MAX + 4];
    myri_cfg_show(node->scalar, shown, sizeof shown);
    if (st) return myri_error_at(err, node, "bad value '%s' for %s: %s", shown, name, why);
    value_store(p, &v, out);
    return MYRI_OK;
}

myri_status myri_param_parse(const myri_param *p, const myri_node *node, void *out,
                             myri_error *err)
{
    myri_error scratch;
    if (!err) err = &scratch;
    if (!p || !node || !out)
        return myri_error_at(err, NULL, "myri_param_parse: NULL argument"), MYRI_EINVAL;
    myri_status st = param_node(p, p->name, node, out, err);
    if (st == MYRI_EINPUT) myri_error_set_key(err, p->name);
    return st;
}

/* Stores p's default; `at` positions the "missing required" message. */
static myri_status param_default(const myri_param *p, const char *name, const myri_node *at,
                                 void *out, myri_error *err)
{
    pvalue v;
    memset(&v, 0, sizeof v);
    char why[512], ebuf[300];
    if (p->type == MYRI_P_NODE) {
        if (!p->def)
            return myri_error_at(err, at, "missing required key '%s'; expected %s (%s)", name,
                                 myri_cfg_expect(p->type), p->help ? p->help : "");
        value_store(p, &v, out);
        return MYRI_OK;
    }
    if (!p->def)
        return myri_error_at(err, at, "missing required key '%s'; expected %s (%s)", name,
                             expect_of(p, ebuf, sizeof ebuf), p->help ? p->help : "");
    myri_status st = value_parse(p, p->def, &v, why, sizeof why);
    if (!st) st = range_check(p, &v, why, sizeof why);
    if (st) {
        myri_error_at(err, NULL, "parameter table error: default '%s' of '%s': %s", p->def,
                      name, why);
        return MYRI_EINVAL;
    }
    value_store(p, &v, out);
    return MYRI_OK;
}

/* ---- the unknown-key check ---------------------------------------------------------- */

typedef struct walk {
    const myri_pset *set;
    size_t nset;
    const char *const *ignore;
    myri_error *err;
} walk;

/* How the key path `full` relates to the tables. */
typedef enum key_class { KEY_UNKNOWN, KEY_PARAM, KEY_NODE, KEY_PREFIX } key_class;

static key_class classify(const walk *w, const char *full)
{
    size_t flen = strlen(full);
    key_class c = KEY_UNKNOWN;
    char name[KEY_MAX];
    for (size_t s = 0; s < w->nset; s++)
        for (size_t i = 0; i < w->set[s].n; i++) {
            const myri_param *p = &w->set[s].params[i];
            full_name(w->set[s].prefix, p, name, sizeof name);
            if (strcmp(name, full) == 0) return p->type == MYRI_P_NODE ? KEY_NODE : KEY_PARAM;
            if (strncmp(name, full, flen) == 0 && name[flen] == '.') c = KEY_PREFIX;
        }
    return c;
}

/* Appends `word` to the comma list in buf unless already there. */
static void list_add(char *buf, size_t len, const char *word, size_t wlen)
{
    for (const char *p = buf; *p;) {
        const char *comma = strstr(p, ", ");
        size_t k = comma ? (size_t)(comma - p) : strlen(p);
        if (k == wlen && strncmp(p, word, wlen) == 0) return;
        p = comma ? comma + 2 : p + k;
    }
    size_t k = strlen(buf);
    if (k + 1 < len) snprintf(buf + k, len - k, "%s%.*s", k ? ", " : "", (int)wlen, word);
}

/* The keys valid below `path` ("" = top level): relative dotted names of the
 * parameters, or only their next components when that list is too long. */
static void valid_keys(const walk *w, const char *path, bool next_only, char *buf, size_t len)
{
    size_t plen = strlen(path);
    char name[KEY_MAX];
    buf[0] = '\0';
    for (size_t s = 0; s < w->nset; s++)
        for (size_t i = 0; i < w->set[s].n; i++) {
            full_name(w->set[s].prefix, &w->set[s].params[i], name, sizeof name);
            const char *rel = name;
            if (plen) {
                if (strncmp(name, path, plen) != 0 || name[plen] != '.') continue;
                rel = name + plen + 1;
            }
            const char *dot = next_only ? strchr(rel, '.') : NULL;
            list_add(buf, len, rel, dot ? (size_t)(dot - rel) : strlen(rel));
        }
    if (!plen && w->ignore)
        for (size_t i = 0; w->ignore[i]; i++) list_add(buf, len, w->ignore[i], strlen(w->ignore[i]));
}

/* Edit distance with adjacent transpositions (optimal string alignment),
 * for "did you mean"; 99 for long words. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return 99;
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++) d[i][0] = i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* The closest name of the comma list `keys` to `key`, if close enough. */
static bool suggest(const char *keys, const char *key, char *out, size_t len)
{
    size_t best = 3, klen = strlen(key);
    if (klen < 3) return false;
    char word[KEY_MAX];
    for (const char *p = keys; *p;) {
        const char *comma = strchr(p, ',');
        size_t k = comma ? (size_t)(comma - p) : strlen(p);
        if (k < sizeof word) {
            memcpy(word, p, k);
            word[k] = '\0';
            size_t d = edit_distance(word, key);
            if (d < best && d * 3 <= klen) {
                best = d;
                snprintf(out, len, "%s", word);
            }
        }
        p = comma ? comma + 2 : p + k;
    }
    return best < 3;
}

static myri_status unknown_key(const walk *w, const myri_node *map, size_t i, const char *path,
                               const char *full)
{
    char keys[LIST_MAX + 100], next[LIST_MAX + 100], shown[CFG__SHOW_MAX + 4];
    char hint[KEY_MAX + 40] = "", close[KEY_MAX];
    valid_keys(w, path, false, keys, sizeof keys);
    valid_keys(w, path, true, next, sizeof next);
    if (strlen(keys) > LIST_MAX) memcpy(keys, next, sizeof keys);
    myri_cfg_show(map->key[i], shown, sizeof shown);
    if (strchr(map->key[i], '.') && classify(w, full) != KEY_UNKNOWN)
        snprintf(hint, sizeof hint, " (dotted keys must be written as nested mappings)");
    else if (suggest(next, map->key[i], close, sizeof close))
        snprintf(hint, sizeof hint, " (did you mean '%s'?)", close);
    const myri_node *at = map->keynode ? map->keynode[i] : map;
    if (!keys[0])
        return myri_error_at(w->err, at, "unknown key '%s'%s%s%s; expected no keys here", shown,
                             *path ? " in '" : "", path, *path ? "'" : "");
    return myri_error_at(w->err, at, "unknown key '%s'%s%s%s%s; expected one of: %s", shown,
                         *path ? " in '" : "", path, *path ? "'" : "", hint, keys);
}

static bool ignored(const walk *w, const char *key)
{
    for (size_t i = 0; w->ignore && w->ignore[i]; i++)
        if (strcmp(w->ignore[i], key) == 0) return true;
    return false;
}

static myri_status walk_map(const walk *w, const myri_node *map, const char *path)
{
    char full[KEY_MAX];
    for (size_t i = 0; i < map->n; i++) {
        const char *key = map->key[i];
        if (!*path && ignored(w, key)) continue;
        int k = *path ? snprintf(full, sizeof full, "%s.%s", path, key)
                      : snprintf(full, sizeof full, "%s", key);
        /* a dotted key is never a path: only nested mappings are */
        key_class c = k < 0 || (size_t)k >= sizeof full || strchr(key, '.')
                          ? KEY_UNKNOWN
                          : classify(w, full);
        if (c == KEY_UNKNOWN) {
            unknown_key(w, map, i, path, full);
            myri_error_set_key(w->err, full);
            return MYRI_EINPUT;
        }
        if (c != KEY_PREFIX) continue; /* values are checked when loaded */
        const myri_node *v = map->item[i];
        if (v->kind != MYRI_NODE_MAP) {
            char keys[LIST_MAX + 100];
            valid_keys(w, full, true, keys, sizeof keys);
            myri_error_at(w->err, v, "'%s' is %s; expected a mapping with keys: %s", full,
                          kind_name(v), keys);
            myri_error_set_key(w->err, full);
            return MYRI_EINPUT;
        }
        myri_status st = walk_map(w, v, full);
        if (st) return st;
    }
    return MYRI_OK;
}

/* The deepest existing mapping on the way to `full` (for missing keys). */
static const myri_node *deepest_map(const myri_node *root, const char *full)
{
    char part[KEY_MAX];
    snprintf(part, sizeof part, "%s", full);
    const myri_node *best = root;
    for (char *dot = strchr(part, '.'); dot; dot = strchr(dot + 1, '.')) {
        *dot = '\0';
        const myri_node *m = myri_node_path(root, part);
        *dot = '.';
        if (!m || m->kind != MYRI_NODE_MAP) break;
        best = m;
    }
    return best;
}

myri_status myri_params_load(const myri_pset *set, size_t nset, const myri_node *root,
                             const char *const *ignore, myri_error *err)
{
    myri_error scratch;
    if (!err) err = &scratch;
    if (nset && !set) return myri_error_at(err, NULL, "myri_params_load: set is NULL"), MYRI_EINVAL;
    walk w = {set, nset, ignore, err};
    if (root) {
        if (root->kind != MYRI_NODE_MAP) {
            char keys[LIST_MAX + 100];
            valid_keys(&w, "", true, keys, sizeof keys);
            return myri_error_at(err, root, "found %s; expected a mapping with keys: %s",
                                 kind_name(root), keys);
        }
        myri_status st = walk_map(&w, root, "");
        if (st) return st;
    }
    char name[KEY_MAX];
    for (size_t s = 0; s < nset; s++) {
        if (set[s].n && (!set[s].params || !set[s].out))
            return myri_error_at(err, NULL, "myri_params_load: table %zu has no params or out",
                                 s), MYRI_EINVAL;
        for (size_t i = 0; i < set[s].n; i++) {
            const myri_param *p = &set[s].params[i];
            full_name(set[s].prefix, p, name, sizeof name);
            const myri_node *node = root ? myri_node_path(root, name) : NULL;
            myri_status st = node ? param_node(p, name, node, set[s].out, err)
                                  : param_default(p, name, root ? deepest_map(root, name) : NULL,
                                                  set[s].out, err);
            if (st == MYRI_EINPUT) myri_error_set_key(err, name);
            if (st) return st;
        }
    }
    return MYRI_OK;
}

myri_status myri_params_load_map(const myri_param *params, size_t n, const myri_node *map,
                                 void *out, myri_error *err)
{
    myri_pset one = {"", params, n, out};
    return myri_params_load(&one, 1, map, NULL, err);
}

/* ---- formatting, help and echo ------------------------------------------------------- */

void myri_param_format(const myri_param *p, const void *out, char *buf, size_t len)
{
    if (!buf || len == 0) return;
    if (!p || !out) {
        snprintf(buf, len, "?");
        return;
    }
    pvalue v = value_load(p, out);
    switch (p->type) {
    case MYRI_P_BOOL: snprintf(buf, len, "%s", v.b ? "true" : "false"); break;
    case MYRI_P_INT: snprintf(buf, len, "%lld", (long long)v.i); break;
    case MYRI_P_UINT: snprintf(buf, len, "%llu", (unsigned long long)v.u); break;
    case MYRI_P_DOUBLE: /* the shortest text that reads back as the same double */
        for (int prec = 10; prec <= 17; prec++) {
            snprintf(buf, len, "%.*g", prec, v.d);
            if (strtod(buf, NULL) == v.d) break;
        }
        break;
    case MYRI_P_TIME: myri_format_time(v.u, buf, len); break;
    case MYRI_P_RATE: myri_cfg_format_rate(v.d, buf, len); break;
    case MYRI_P_SIZE: myri_cfg_format_size(v.u, buf, len); break;
    case MYRI_P_LENGTH: myri_cfg_format_length(v.d, buf, len); break;
    case MYRI_P_STRING: snprintf(buf, len, "%s", v.s ? v.s : ""); break;
    case MYRI_P_ENUM: {
        const char *c = p->choices ? p->choices : "";
        for (int i = 0; i < v.e && c; i++) {
            c = strchr(c, '|');
            if (c) c++;
        }
        const char *bar = c ? strchr(c, '|') : NULL;
        if (!c || v.e < 0) snprintf(buf, len, "?");
        else snprintf(buf, len, "%.*s", bar ? (int)(bar - c) : (int)strlen(c), c);
        break;
    }
    case MYRI_P_NODE:
        if (!v.node) snprintf(buf, len, "null"); /* given back, null means absent */
        else if (v.node->kind == MYRI_NODE_SCALAR) snprintf(buf, len, "%s", v.node->scalar);
        else snprintf(buf, len, "(%s of %zu)", v.node->kind == MYRI_NODE_SEQ ? "list" : "mapping",
                      v.node->n);
        break;
    }
}

/* The value as echoed: formatted as the key accepts it back (the unit of a
 * plain number is in the help, not in the value). */
static void echo_value(const myri_param *p, const void *out, char *buf, size_t len)
{
    myri_param_format(p, out, buf, len);
}

static void range_text(const myri_param *p, char *buf, size_t len)
{
    if (p->type == MYRI_P_ENUM) enum_list(p->choices, buf, len);
    else if (!has_range(p) || (!p->min && !p->max)) snprintf(buf, len, "-");
    else if (p->min && p->max) snprintf(buf, len, "%s..%s", p->min, p->max);
    else if (p->min) snprintf(buf, len, ">= %s", p->min);
    else snprintf(buf, len, "<= %s", p->max);
}

/* The default as help shows it: canonical ("550" in ns shows as 550ns). */
static const char *def_text(const myri_param *p, char *buf, size_t len)
{
    if (!p->def) return "(required)";
    if (p->type == MYRI_P_NODE) return "(none)";
    if (p->type == MYRI_P_STRING) return *p->def ? p->def : "\"\"";
    pvalue v;
    char why[256];
    if (value_parse(p, p->def, &v, why, sizeof why)) return p->def;
    myri_param q = *p;
    q.offset = 0; /* every member of the union starts at offset 0 */
    myri_param_format(&q, &v, buf, len);
    return buf;
}

enum { HELP_WIDTH = 100, HELP_INDENT = 6 };

/* Writes text as words from column `col` (already written) on, wrapping at
 * HELP_WIDTH to lines indented by HELP_INDENT; ends the line. */
static void help_wrap(FILE *out, int col, const char *text)
{
    for (const char *w = text; *w;) {
        while (*w == ' ') w++;
        size_t n = strcspn(w, " ");
        if (!n) break;
        if (col > HELP_INDENT && col + 1 + (int)n > HELP_WIDTH) {
            fprintf(out, "\n%*s", HELP_INDENT, "");
            col = HELP_INDENT;
        } else if (col > HELP_INDENT) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", (int)n, w);
        col += (int)n;
        w += n;
    }
    fputc('\n', out);
}

/* One key per entry: name, type, unit, default and range on the first line
 * (the range on the next if it would pass HELP_WIDTH columns), then the
 * description, wrapped: every line fits in HELP_WIDTH columns. */
void myri_params_help(const myri_pset *set, size_t nset, FILE *out)
{
    if (!out || (nset && !set)) return;
    char name[KEY_MAX], range[256], def[128], line[768];
    int wn = 3, wt = 4, wu = 4, wd = 7;
    for (size_t s = 0; s < nset; s++)
        for (size_t i = 0; i < set[s].n; i++) {
            const myri_param *p = &set[s].params[i];
            full_name(set[s].prefix, p, name, sizeof name);
            int a = (int)strlen(name), b = (int)strlen(type_name(p->type)),
                c = p->unit ? (int)strlen(p->unit) : 1, d = (int)strlen(def_text(p, def, sizeof def));
            wn = a > wn ? a : wn;
            wt = b > wt ? b : wt;
            wu = c > wu ? c : wu;
            wd = d > wd && d <= 16 ? d : wd;
        }
    fprintf(out, "  %-*s  %-*s  %-*s  %-*s  %s\n%*sdescription\n", wn, "key", wt, "type", wu, "unit", wd,
            "default", "range", HELP_INDENT, "");
    for (size_t s = 0; s < nset; s++)
        for (size_t i = 0; i < set[s].n; i++) {
            const myri_param *p = &set[s].params[i];
            full_name(set[s].prefix, p, name, sizeof name);
            range_text(p, range, sizeof range);
            int k = snprintf(line, sizeof line, "  %-*s  %-*s  %-*s  %-*s", wn, name, wt, type_name(p->type), wu,
                             p->unit && *p->unit ? p->unit : "-", wd, def_text(p, def, sizeof def));
            if (k + 2 + (int)strlen(range) <= HELP_WIDTH) {
                fprintf(out, "%s  %s\n", line, range);
            } else {
                fprintf(out, "%s\n%*srange:", line, HELP_INDENT, "");
                help_wrap(out, HELP_INDENT + 6, range);
            }
            fprintf(out, "%*s", HELP_INDENT, "");
            help_wrap(out, HELP_INDENT, p->help && *p->help ? p->help : "-");
        }
}

/* A scalar as YAML flow text: plain when safe, else double-quoted. */
static void flow_scalar(FILE *out, const char *s)
{
    bool plain = *s && !strchr("-?:!&*|>'\"%@`#", *s) && s[strlen(s) - 1] != ' ';
    for (const char *c = s; plain && *c; c++)
        if (strchr(",[]{}#\"'", *c) || (*c == ':' && (c[1] == ' ' || !c[1])) || (unsigned char)*c < 0x20)
            plain = false;
    if (plain) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (const char *c = s; *c; c++) {
        if (*c == '"' || *c == '\\') fprintf(out, "\\%c", *c);
        else if ((unsigned char)*c < 0x20) fprintf(out, "\\x%02x", (unsigned char)*c);
        else fputc(*c, out);
    }
    fputc('"', out);
}

/* A list or mapping as one line of YAML flow text ([a, b], {k: v}), which a
 * scenario file or --set accepts back: the echo shows what ran. */
static void flow_node(FILE *out, const myri_node *n)
{
    if (n->kind == MYRI_NODE_SCALAR) {
        flow_scalar(out, n->scalar ? n->scalar : "");
        return;
    }
    bool map = n->kind == MYRI_NODE_MAP;
    fputc(map ? '{' : '[', out);
    for (size_t i = 0; i < n->n; i++) {
        if (i) fputs(", ", out);
        if (map) {
            flow_scalar(out, n->key[i]);
            fputs(": ", out);
        }
        flow_node(out, n->item[i]);
    }
    fputc(map ? '}' : ']', out);
}

/* A list or mapping as JSON (scalars as strings, as in the file). */
static void json_node(myri_json *j, const myri_node *n)
{
    if (n->kind == MYRI_NODE_SCALAR) {
        myri_json_str(j, n->scalar ? n->scalar : "");
        return;
    }
    bool map = n->kind == MYRI_NODE_MAP;
    if (map) myri_json_obj_begin(j);
    else myri_json_arr_begin(j);
    for (size_t i = 0; i < n->n; i++) {
        if (map) myri_json_key(j, n->key[i]);
        json_node(j, n->item[i]);
    }
    if (map) myri_json_obj_end(j);
    else myri_json_arr_end(j);
}

void myri_params_echo_text(const myri_pset *set, size_t nset, FILE *out)
{
    if (!out || (nset && !set)) return;
    char name[KEY_MAX], value[512];
    int w = 0;
    for (size_t s = 0; s < nset; s++)
        for (size_t i = 0; i < set[s].n; i++) {
            full_name(set[s].prefix, &set[s].params[i], name, sizeof name);
            if ((int)strlen(name) > w) w = (int)strlen(name);
        }
    for (size_t s = 0; s < nset; s++)
        for (size_t i = 0; i < set[s].n; i++) {
            const myri_param *p = &set[s].params[i];
            if (!set[s].out) continue;
            full_name(set[s].prefix, p, name, sizeof name);
            pvalue v = value_load(p, set[s].out);
            if (p->type == MYRI_P_NODE && v.node) {
                fprintf(out, "  %-*s = ", w, name);
                flow_node(out, v.node);
                fputc('\n', out);
                continue;
            }
            echo_value(p, set[s].out, value, sizeof value);
            fprintf(out, "  %-*s = %s\n", w, name, value);
        }
}

void myri_params_echo_json(const myri_pset *set, size_t nset, myri_json *j)
{
    if (!j || (nset && !set)) return;
    char name[KEY_MAX], value[512];
    for (size_t s = 0; s < nset; s++)
        for (size_t i = 0; i < set[s].n; i++) {
            const myri_param *p = &set[s].params[i];
            if (!set[s].out) continue;
            full_name(set[s].prefix, p, name, sizeof name);
            pvalue v = value_load(p, set[s].out);
            switch (p->type) {
            case MYRI_P_BOOL: myri_json_kbool(j, name, v.b); break;
            case MYRI_P_INT: myri_json_kint(j, name, v.i); break;
            case MYRI_P_UINT: myri_json_kuint(j, name, v.u); break;
            case MYRI_P_DOUBLE: myri_json_knum(j, name, v.d); break;
            case MYRI_P_NODE:
                myri_json_key(j, name);
                if (v.node) json_node(j, v.node);
                else myri_json_null(j);
                break;
            default:
                myri_param_format(p, set[s].out, value, sizeof value);
                myri_json_kstr(j, name, value);
            }
        }
}
