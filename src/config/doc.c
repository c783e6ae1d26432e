/* doc.c -- YAML scenario documents as myri_node trees with positions.
 *
 * Reads libyaml's event stream (not its document API) so that every node
 * keeps the 1-based LINE:COL of its first character and every problem is
 * reported as "FILE:LINE:COL: what is wrong; expected what".
 *
 * Accepted: one document whose top level is a mapping (or an empty stream,
 * which gives an empty mapping); nested block or flow mappings and
 * sequences of plain or quoted scalars.  Rejected with a message: anchors,
 * aliases, explicit tags, several documents, non-scalar or empty keys,
 * duplicate keys, NUL characters in text, nesting deeper than
 * CFG_MAX_DEPTH, more than CFG_MAX_NODES nodes, files above CFG_MAX_BYTES.
 *
 * Ownership: the root owns every node below it and the file name string;
 * myri_node_free(root) releases everything.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "config/config_internal.h"
#include "myri/config.h"

enum {
    CFG_MAX_DEPTH = 64,          /* nested collections */
    CFG_MAX_NODES = 1000000,     /* nodes in one document */
    CFG_MAX_BYTES = 64 << 20     /* size of a scenario file */
};

/* The file name used for nodes created by myri_node_set. */
static const char cfg__set_file[] = "--set";

/* ---- errors ---------------------------------------------------------------- */

void myri_error_clear(myri_error *err)
{
    if (!err) return;
    err->msg[0] = err->file[0] = err->key[0] = err->node[0] = '\0';
    err->line = err->col = 0;
}

void myri_error_set_key(myri_error *err, const char *key)
{
    if (err) snprintf(err->key, sizeof err->key, "%s", key ? key : "");
}

void myri_error_set_node(myri_error *err, const char *node)
{
    if (err) snprintf(err->node, sizeof err->node, "%s", node ? node : "");
}

myri_status myri_error_key(myri_error *err, const char *key, const char *fmt, ...)
{
    if (!err) return MYRI_EINPUT;
    myri_error_clear(err);
    myri_error_set_key(err, key);
    int k = snprintf(err->msg, sizeof err->msg, "%s: ", err->key);
    size_t used = k < 0 ? 0 : (size_t)k < sizeof err->msg ? (size_t)k : sizeof err->msg - 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg + used, sizeof err->msg - used, fmt, ap);
    va_end(ap);
    return MYRI_EINPUT;
}

myri_status myri_error_at(myri_error *err, const myri_node *node, const char *fmt, ...)
{
    if (!err) return MYRI_EINPUT;
    size_t used = 0;
    err->file[0] = err->key[0] = err->node[0] = '\0';
    err->line = err->col = 0;
    if (node && node->file) {
        snprintf(err->file, sizeof err->file, "%s", node->file);
        err->line = node->line;
        err->col = node->col;
        int k = snprintf(err->msg, sizeof err->msg, "%s:%u:%u: ", node->file, node->line,
                         node->col);
        used = k < 0 ? 0 : (size_t)k < sizeof err->msg ? (size_t)k : sizeof err->msg - 1;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg + used, sizeof err->msg - used, fmt, ap);
    va_end(ap);
    return MYRI_EINPUT;
}

void myri_cfg_show(const char *s, char *buf, size_t len)
{
    if (!buf || len == 0) return;
    if (!s) s = "";
    size_t i = 0;
    for (; s[i] && i < CFG__SHOW_MAX && i + 1 < len; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    buf[i] = '\0';
    if (s[i] && len > 4) {
        size_t at = i + 4 < len ? i : len - 4;
        memcpy(buf + at, "...", 4);
    }
}

/* ---- node construction ------------------------------------------------------- */

static myri_node *node__new(myri_node_kind kind, const char *file, unsigned line, unsigned col)
{
    myri_node *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    n->kind = kind;
    n->file = file;
    n->line = line;
    n->col = col;
    return n;
}

static void node__free_tree(myri_node *n)
{
    if (!n) return;
    for (size_t i = 0; i < n->n; i++) {
        node__free_tree(n->item[i]);
        if (n->key) free(n->key[i]);
        if (n->keynode) node__free_tree(n->keynode[i]);
    }
    free(n->item);
    free(n->key);
    free(n->keynode);
    free(n->scalar);
    free(n);
}

void myri_node_free(myri_node *root)
{
    if (!root) return;
    char *file = (char *)(root->file == cfg__set_file ? NULL : root->file);
    node__free_tree(root);
    free(file);
}

/* Arrays of a collection grow to 4, 8, 16 ... items: capacity is implied
 * by n, so nodes made by the parser and by myri_node_set agree on it. */
static bool node__needs_grow(size_t n) { return n == 0 || (n >= 4 && (n & (n - 1)) == 0); }

static bool node__grow(void **arr, size_t n, size_t elem)
{
    if (!node__needs_grow(n)) return true;
    size_t cap = n == 0 ? 4 : 2 * n;
    void *p = realloc(*arr, cap * elem);
    if (!p) return false;
    *arr = p;
    return true;
}

/* Appends an item (and for a mapping its key text and key node).  On
 * failure nothing is taken over: the caller still owns the arguments. */
static bool node__append(myri_node *c, myri_node *item, char *key, myri_node *keynode)
{
    if (!node__grow((void **)&c->item, c->n, sizeof *c->item)) return false;
    if (c->kind == MYRI_NODE_MAP) {
        if (!node__grow((void **)&c->key, c->n, sizeof *c->key)) return false;
        if (!node__grow((void **)&c->keynode, c->n, sizeof *c->keynode)) return false;
        c->key[c->n] = key;
        c->keynode[c->n] = keynode;
    }
    c->item[c->n++] = item;
    return true;
}

/* ---- parsing ---------------------------------------------------------------------- */

typedef struct cfg_parse {
    yaml_parser_t yp;
    const char *file; /* owned by the root once parsing succeeds */
    const char *text;
    size_t len;
    size_t nodes;
    myri_error *err;
} cfg_parse;

/* Position of byte `off` of the text (for reader errors, which have no mark). */
static void parse__pos_of(const cfg_parse *ps, size_t off, unsigned *line, unsigned *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && i < ps->len; i++) {
        if (ps->text[i] == '\n') {
            ++*line;
            *col = 1;
        } else if (((unsigned char)ps->text[i] & 0xc0) != 0x80) {
            ++*col;
        }
    }
}

static myri_status parse__yaml_error(cfg_parse *ps)
{
    const yaml_parser_t *p = &ps->yp;
    const char *problem = p->problem ? p->problem : "unreadable input";
    unsigned line, col;
    if (p->error == YAML_MEMORY_ERROR) {
        snprintf(ps->err->msg, sizeof ps->err->msg, "%s: out of memory while reading YAML",
                 ps->file);
        return MYRI_ENOMEM;
    }
    if (p->error == YAML_READER_ERROR) {
        parse__pos_of(ps, p->problem_offset, &line, &col);
        return myri_error_at(ps->err, &(myri_node){.file = ps->file, .line = line, .col = col},
                             "invalid text: %s; expected UTF-8 text without control "
                             "characters",
                             problem);
    }
    line = (unsigned)p->problem_mark.line + 1;
    col = (unsigned)p->problem_mark.column + 1;
    myri_node at = {.file = ps->file, .line = line, .col = col};
    if (p->context)
        return myri_error_at(ps->err, &at,
                             "YAML syntax error: %s (%s at line %u column %u); expected "
                             "'key: value' lines with consistent indentation",
                             problem, p->context, (unsigned)p->context_mark.line + 1,
                             (unsigned)p->context_mark.column + 1);
    return myri_error_at(ps->err, &at,
                         "YAML syntax error: %s; expected 'key: value' lines with "
                         "consistent indentation",
                         problem);
}

static myri_status parse__next(cfg_parse *ps, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&ps->yp, ev)) return parse__yaml_error(ps);
    return MYRI_OK;
}

static myri_status parse__at(cfg_parse *ps, const yaml_event_t *ev, const char *what)
{
    myri_node at = {.file = ps->file,
                    .line = (unsigned)ev->start_mark.line + 1,
                    .col = (unsigned)ev->start_mark.column + 1};
    return myri_error_at(ps->err, &at, "%s", what);
}

/* Rejects anchors and explicit tags on a scalar or collection start. */
static myri_status parse__plain(cfg_parse *ps, const yaml_event_t *ev)
{
    const yaml_char_t *anchor = NULL, *tag = NULL;
    if (ev->type == YAML_SCALAR_EVENT) {
        anchor = ev->data.scalar.anchor;
        tag = ev->data.scalar.tag;
    } else if (ev->type == YAML_SEQUENCE_START_EVENT) {
        anchor = ev->data.sequence_start.anchor;
        tag = ev->data.sequence_start.tag;
    } else if (ev->type == YAML_MAPPING_START_EVENT) {
        anchor = ev->data.mapping_start.anchor;
        tag = ev->data.mapping_start.tag;
    }
    if (anchor)
        return parse__at(ps, ev, "anchors ('&name') are not supported; expected every value "
                                 "written out in full");
    if (tag)
        return parse__at(ps, ev, "tags ('!tag') are not supported; expected a plain value, "
                                 "list or mapping");
    return MYRI_OK;
}

static myri_status parse__node(cfg_parse *ps, yaml_event_t *ev, unsigned depth, myri_node **out);

static myri_status parse__count(cfg_parse *ps, const yaml_event_t *ev)
{
    if (++ps->nodes > CFG_MAX_NODES)
        return parse__at(ps, ev, "document too large; expected at most 1000000 values");
    return MYRI_OK;
}

static myri_status parse__scalar(cfg_parse *ps, const yaml_event_t *ev, myri_node **out)
{
    size_t len = ev->data.scalar.length;
    if (memchr(ev->data.scalar.value, '\0', len))
        return parse__at(ps, ev, "a NUL character in a value; expected text");
    myri_node *n = node__new(MYRI_NODE_SCALAR, ps->file, (unsigned)ev->start_mark.line + 1,
                             (unsigned)ev->start_mark.column + 1);
    char *s = malloc(len + 1);
    if (!n || !s) {
        free(n);
        free(s);
        return myri_error_at(ps->err, NULL, "%s: out of memory", ps->file), MYRI_ENOMEM;
    }
    memcpy(s, ev->data.scalar.value, len);
    s[len] = '\0';
    n->scalar = s;
    *out = n;
    return MYRI_OK;
}

/* Index sort of a mapping's keys to find duplicates in O(n log n). */
typedef struct key_ref {
    const char *key;
    size_t idx;
} key_ref;

static int key_ref_cmp(const void *a, const void *b)
{
    const key_ref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c) return c;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Reports the first (in document order) key that repeats an earlier one. */
static myri_status parse__dups(cfg_parse *ps, const myri_node *map)
{
    if (map->n < 2) return MYRI_OK;
    key_ref *r = malloc(map->n * sizeof *r);
    if (!r) return myri_error_at(ps->err, NULL, "%s: out of memory", ps->file), MYRI_ENOMEM;
    for (size_t i = 0; i < map->n; i++) r[i] = (key_ref){map->key[i], i};
    qsort(r, map->n, sizeof *r, key_ref_cmp);
    size_t best = map->n, first = 0;
    for (size_t i = 1; i < map->n; i++) {
        /* r[i] is the second of a group of equal keys: the earliest repeat */
        bool second = strcmp(r[i].key, r[i - 1].key) == 0 &&
                      (i < 2 || strcmp(r[i].key, r[i - 2].key) != 0);
        if (second && r[i].idx < best) {
            best = r[i].idx;
            first = r[i - 1].idx;
        }
    }
    free(r);
    if (best == map->n) return MYRI_OK;
    char shown[CFG__SHOW_MAX + 4];
    myri_cfg_show(map->key[best], shown, sizeof shown);
    const myri_node *k0 = map->keynode[first];
    return myri_error_at(ps->err, map->keynode[best],
                         "duplicate key '%s' (first at line %u column %u); expected each key "
                         "once in a mapping",
                         shown, k0->line, k0->col);
}

static myri_status parse__key(cfg_parse *ps, yaml_event_t *ev, myri_node **keynode)
{
    if (ev->type != YAML_SCALAR_EVENT)
        return parse__at(ps, ev,
                         ev->type == YAML_ALIAS_EVENT
                             ? "aliases ('*name') are not supported; expected a plain key"
                             : "a list or mapping used as a key; expected a plain key");
    myri_status st = parse__plain(ps, ev);
    if (st) return st;
    if (ev->data.scalar.length == 0)
        return parse__at(ps, ev, "empty key; expected a key name before ':'");
    if ((st = parse__count(ps, ev))) return st;
    return parse__scalar(ps, ev, keynode);
}

/* Reads the items of a collection whose start event has been consumed. */
static myri_status parse__items(cfg_parse *ps, myri_node *c, unsigned depth)
{
    yaml_event_t ev;
    yaml_event_type_t end =
        c->kind == MYRI_NODE_MAP ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
    for (;;) {
        myri_status st = parse__next(ps, &ev);
        if (st) return st;
        if (ev.type == end) {
            yaml_event_delete(&ev);
            return c->kind == MYRI_NODE_MAP ? parse__dups(ps, c) : MYRI_OK;
        }
        myri_node *keynode = NULL, *item = NULL;
        if (c->kind == MYRI_NODE_MAP) {
            st = parse__key(ps, &ev, &keynode);
            yaml_event_delete(&ev);
            if (!st) st = parse__next(ps, &ev);
            if (st) {
                node__free_tree(keynode);
                return st;
            }
        }
        st = parse__node(ps, &ev, depth + 1, &item);
        yaml_event_delete(&ev);
        char *key = keynode ? strdup(keynode->scalar) : NULL;
        if (!st && ((keynode && !key) || !node__append(c, item, key, keynode))) {
            myri_error_at(ps->err, NULL, "%s: out of memory", ps->file);
            st = MYRI_ENOMEM;
        }
        if (st) {
            free(key);
            node__free_tree(keynode);
            node__free_tree(item);
            return st;
        }
    }
}

/* Builds the node that starts with event `ev` (which the caller deletes). */
static myri_status parse__node(cfg_parse *ps, yaml_event_t *ev, unsigned depth, myri_node **out)
{
    *out = NULL;
    if (ev->type == YAML_ALIAS_EVENT)
        return parse__at(ps, ev, "aliases ('*name') are not supported; expected every value "
                                 "written out in full");
    myri_status st = parse__plain(ps, ev);
    if (!st) st = parse__count(ps, ev);
    if (st) return st;
    if (ev->type == YAML_SCALAR_EVENT) return parse__scalar(ps, ev, out);
    if (ev->type != YAML_SEQUENCE_START_EVENT && ev->type != YAML_MAPPING_START_EVENT)
        return parse__at(ps, ev, "unexpected YAML structure; expected a value");
    if (depth >= CFG_MAX_DEPTH)
        return parse__at(ps, ev, "nesting too deep; expected at most 64 levels of lists and "
                                 "mappings");
    myri_node *c = node__new(ev->type == YAML_MAPPING_START_EVENT ? MYRI_NODE_MAP
                                                                  : MYRI_NODE_SEQ,
                             ps->file, (unsigned)ev->start_mark.line + 1,
                             (unsigned)ev->start_mark.column + 1);
    if (!c) return myri_error_at(ps->err, NULL, "%s: out of memory", ps->file), MYRI_ENOMEM;
    st = parse__items(ps, c, depth);
    if (st) {
        node__free_tree(c);
        return st;
    }
    *out = c;
    return MYRI_OK;
}

/* Reads STREAM-START [DOCUMENT-START node DOCUMENT-END] STREAM-END. */
static myri_status parse__stream(cfg_parse *ps, myri_node **root)
{
    yaml_event_t ev;
    myri_status st = parse__next(ps, &ev); /* stream start */
    if (st) return st;
    yaml_event_delete(&ev);
    if ((st = parse__next(ps, &ev))) return st;
    if (ev.type == YAML_STREAM_END_EVENT) {
        yaml_event_delete(&ev);
        *root = node__new(MYRI_NODE_MAP, ps->file, 1, 1);
        return *root ? MYRI_OK : MYRI_ENOMEM;
    }
    yaml_event_delete(&ev); /* document start */
    if ((st = parse__next(ps, &ev))) return st;
    st = parse__node(ps, &ev, 0, root);
    yaml_event_delete(&ev);
    if (st) return st;
    myri_node *r = *root;
    if (r->kind == MYRI_NODE_SCALAR && r->scalar[0] == '\0') {
        r->kind = MYRI_NODE_MAP; /* "---" alone: an empty document */
        free(r->scalar);
        r->scalar = NULL;
    } else if (r->kind != MYRI_NODE_MAP) {
        return myri_error_at(ps->err, r, "the document is a %s; expected a mapping of "
                                         "'key: value' lines at the top level",
                             r->kind == MYRI_NODE_SEQ ? "list" : "single value");
    }
    if ((st = parse__next(ps, &ev))) return st; /* document end */
    yaml_event_delete(&ev);
    if ((st = parse__next(ps, &ev))) return st;
    if (ev.type != YAML_STREAM_END_EVENT)
        st = parse__at(ps, &ev, "a second document; expected one document per file (remove "
                                "the '---')");
    yaml_event_delete(&ev);
    return st;
}

myri_status myri_doc_parse(const char *file, const char *text, size_t len, myri_node **root,
                           myri_error *err)
{
    myri_error scratch;
    if (!err) err = &scratch;
    if (!root) return myri_error_at(err, NULL, "myri_doc_parse: root is NULL"), MYRI_EINVAL;
    *root = NULL;
    if (!text && len) return myri_error_at(err, NULL, "myri_doc_parse: text is NULL"), MYRI_EINVAL;
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) { /* a UTF-8 byte-order mark: not part of the text */
        text += 3;
        len -= 3;
    }
    char *fname = strdup(file ? file : "<input>");
    if (!fname) return myri_error_at(err, NULL, "out of memory"), MYRI_ENOMEM;
    cfg_parse ps = {.file = fname, .text = text ? text : "", .len = len, .err = err};
    if (!yaml_parser_initialize(&ps.yp)) {
        free(fname);
        return myri_error_at(err, NULL, "out of memory"), MYRI_ENOMEM;
    }
    yaml_parser_set_input_string(&ps.yp, (const unsigned char *)ps.text, len);
    yaml_parser_set_encoding(&ps.yp, YAML_UTF8_ENCODING);
    myri_node *r = NULL;
    myri_status st = parse__stream(&ps, &r);
    yaml_parser_delete(&ps.yp);
    if (st) {
        node__free_tree(r);
        free(fname);
        return st == MYRI_ENOMEM ? MYRI_ENOMEM : MYRI_EINPUT;
    }
    *root = r;
    return MYRI_OK;
}

myri_status myri_doc_load(const char *path, myri_node **root, myri_error *err)
{
    myri_error scratch;
    if (!err) err = &scratch;
    if (!path || !root) return myri_error_at(err, NULL, "myri_doc_load: NULL argument"), MYRI_EINVAL;
    *root = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        myri_error_at(err, NULL, "%s: cannot open: %s; expected a readable YAML file", path,
                      strerror(errno));
        return MYRI_EIO;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    myri_status st = buf ? MYRI_OK : MYRI_ENOMEM;
    while (!st) {
        if (len == cap) {
            char *nb = cap >= CFG_MAX_BYTES ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                st = cap >= CFG_MAX_BYTES ? MYRI_EINPUT : MYRI_ENOMEM;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t k = fread(buf + len, 1, cap - len, f);
        len += k;
        if (k == 0) break;
    }
    bool ioerr = ferror(f);
    fclose(f);
    if (st == MYRI_EINPUT)
        myri_error_at(err, NULL, "%s: file too large; expected a scenario of at most 64 MiB",
                      path);
    else if (st == MYRI_ENOMEM)
        myri_error_at(err, NULL, "%s: out of memory", path);
    else if (ioerr) {
        myri_error_at(err, NULL, "%s: read error; expected a readable YAML file", path);
        st = MYRI_EIO;
    } else
        st = myri_doc_parse(path, buf, len, root, err);
    free(buf);
    return st;
}

/* ---- lookup and override -------------------------------------------------------------- */

const myri_node *myri_node_get(const myri_node *map, const char *key)
{
    if (!map || !key || map->kind != MYRI_NODE_MAP) return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->key[i], key) == 0) return map->item[i];
    return NULL;
}

static long set__index(const char *seg, size_t n);

const myri_node *myri_node_path(const myri_node *root, const char *dotted)
{
    if (!root || !dotted) return NULL;
    const myri_node *cur = root;
    char seg[256];
    for (const char *p = dotted;;) {
        const char *dot = strchr(p, '.');
        size_t k = dot ? (size_t)(dot - p) : strlen(p);
        if (k >= sizeof seg) return NULL;
        memcpy(seg, p, k);
        seg[k] = '\0';
        if (cur->kind == MYRI_NODE_SEQ) {
            long idx = set__index(seg, cur->n);
            cur = idx >= 0 ? cur->item[idx] : NULL;
        } else {
            cur = myri_node_get(cur, seg);
        }
        if (!cur || !dot) return cur;
        p = dot + 1;
    }
}

static myri_status set__error(myri_error *err, size_t col, const char *fmt, const char *a,
                              const char *b)
{
    myri_node at = {.file = cfg__set_file, .line = 1, .col = (unsigned)col};
    return myri_error_at(err, &at, fmt, a, b);
}

/* Index `seg` (decimal digits only) of a list of n items, or -1. */
static long set__index(const char *seg, size_t n)
{
    if (!*seg || strlen(seg) > 9) return -1;
    long v = 0;
    for (const char *p = seg; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
    }
    return (size_t)v < n ? v : -1;
}

/* In a list, the item whose index is `seg`; an error names the valid range. */
static myri_status set__item(myri_node *list, const char *seg, size_t col, myri_error *err,
                             long *idx)
{
    *idx = set__index(seg, list->n);
    if (*idx >= 0) return MYRI_OK;
    char range[48];
    if (list->n)
        snprintf(range, sizeof range, "0 to %zu", list->n - 1);
    else
        snprintf(range, sizeof range, "none: the list is empty");
    return set__error(err, col, "'%s' is not an index of the list; expected an index (%s)",
                      seg, range);
}

/* Finds or creates the child mapping `seg` (at column col) of map `cur`. */
static myri_status set__descend(myri_node **cur, const char *seg, size_t col,
                                const char *assignment, myri_error *err)
{
    myri_node *m = *cur;
    if (m->kind == MYRI_NODE_SEQ) { /* network.arrivals.0.rate: an item of a list */
        long idx;
        myri_status st = set__item(m, seg, col, err, &idx);
        if (st) return st;
        if (m->item[idx]->kind == MYRI_NODE_SCALAR) {
            char shown[CFG__SHOW_MAX + 4];
            myri_cfg_show(assignment, shown, sizeof shown);
            return set__error(err, col,
                              "cannot set '%s': item '%s' is a value, not a mapping or list; "
                              "expected a path through mappings and lists only",
                              shown, seg);
        }
        *cur = m->item[idx];
        return MYRI_OK;
    }
    for (size_t i = 0; i < m->n; i++) {
        if (strcmp(m->key[i], seg) != 0) continue;
        myri_node *child = m->item[i];
        if (child->kind == MYRI_NODE_SCALAR) {
            char shown[CFG__SHOW_MAX + 4];
            myri_cfg_show(assignment, shown, sizeof shown);
            return set__error(err, col,
                              "cannot set '%s': '%s' is a value in the scenario, not a "
                              "mapping or list; expected a path through mappings and lists only",
                              shown, seg);
        }
        *cur = child;
        return MYRI_OK;
    }
    myri_node *child = node__new(MYRI_NODE_MAP, cfg__set_file, 1, (unsigned)col);
    myri_node *kn = node__new(MYRI_NODE_SCALAR, cfg__set_file, 1, (unsigned)col);
    char *k1 = strdup(seg), *k2 = strdup(seg);
    if (!child || !kn || !k1 || !k2 || (kn->scalar = k2, !node__append(m, child, k1, kn))) {
        free(child);
        free(kn);
        free(k1);
        free(k2);
        return myri_error_at(err, NULL, "--set: out of memory"), MYRI_ENOMEM;
    }
    *cur = child;
    return MYRI_OK;
}

/* Sets key `seg` of map m to a new scalar `value` (column vcol). */
/* Gives the nodes of a parsed --set value the --set position: file "--set",
 * line 1, columns counted in the assignment (the parsed text had `shift`
 * characters before the value). */
static void set__reposition(myri_node *n, long shift)
{
    if (!n) return;
    n->file = cfg__set_file;
    n->line = 1;
    n->col = (unsigned)((long)n->col + shift);
    for (size_t i = 0; i < n->n; i++) {
        set__reposition(n->item[i], shift);
        if (n->keynode) set__reposition(n->keynode[i], shift);
    }
}

/* A --set value: "[a, b]" and "{k: v}" are YAML flow lists and mappings (as
 * the effective configuration echoes them), anything else one scalar. */
static myri_status set__value(const char *value, size_t vcol, myri_node **out, myri_error *err)
{
    *out = NULL;
    if (value[0] != '[' && value[0] != '{') {
        myri_node *v = node__new(MYRI_NODE_SCALAR, cfg__set_file, 1, (unsigned)vcol);
        char *text = strdup(value);
        if (!v || !text) {
            free(v);
            free(text);
            return myri_error_at(err, NULL, "--set: out of memory"), MYRI_ENOMEM;
        }
        v->scalar = text;
        *out = v;
        return MYRI_OK;
    }
    size_t n = strlen(value);
    char *doc = malloc(n + 4);
    if (!doc) return myri_error_at(err, NULL, "--set: out of memory"), MYRI_ENOMEM;
    memcpy(doc, "v: ", 3);
    memcpy(doc + 3, value, n + 1);
    myri_node *root = NULL;
    myri_error e;
    myri_status st = myri_doc_parse(cfg__set_file, doc, n + 3, &root, &e);
    free(doc);
    if (st == MYRI_ENOMEM) return myri_error_at(err, NULL, "--set: out of memory"), MYRI_ENOMEM;
    if (st || !root || root->n != 1) {
        myri_node_free(root);
        char *why = strstr(e.msg, ": "), *cut = strstr(e.msg, "; expected");
        if (cut) *cut = '\0';
        return set__error(err, vcol, "bad list or mapping after '=': %s%s; expected YAML flow text such as "
                                     "[a, b] or {name: s0, ports: 8}",
                          st ? (why ? why + 2 : e.msg) : "not one value", "");
    }
    *out = root->item[0];
    root->item[0] = NULL;
    set__reposition(*out, (long)vcol - 4);
    myri_node_free(root);
    return MYRI_OK;
}

static myri_status set__leaf(myri_node *m, const char *seg, size_t kcol, const char *value,
                             size_t vcol, myri_error *err)
{
    myri_node *v = NULL;
    myri_status vst = set__value(value, vcol, &v, err);
    if (vst) return vst;
    if (m->kind == MYRI_NODE_SEQ) {
        long idx;
        myri_status st = set__item(m, seg, kcol, err, &idx);
        if (st) {
            node__free_tree(v);
            return st;
        }
        node__free_tree(m->item[idx]);
        m->item[idx] = v;
        return MYRI_OK;
    }
    for (size_t i = 0; i < m->n; i++) {
        if (strcmp(m->key[i], seg) != 0) continue;
        node__free_tree(m->item[i]);
        m->item[i] = v;
        return MYRI_OK;
    }
    myri_node *kn = node__new(MYRI_NODE_SCALAR, cfg__set_file, 1, (unsigned)kcol);
    char *k1 = strdup(seg), *k2 = strdup(seg);
    if (!kn || !k1 || !k2 || (kn->scalar = k2, !node__append(m, v, k1, kn))) {
        free(kn);
        free(k1);
        free(k2);
        goto nomem;
    }
    return MYRI_OK;
nomem:
    node__free_tree(v);
    return myri_error_at(err, NULL, "--set: out of memory"), MYRI_ENOMEM;
}

myri_status myri_node_set(myri_node *root, const char *assignment, myri_error *err)
{
    myri_error scratch;
    if (!err) err = &scratch;
    if (!root || !assignment || root->kind != MYRI_NODE_MAP)
        return myri_error_at(err, NULL, "myri_node_set: expected a document mapping and an "
                                        "assignment"), MYRI_EINVAL;
    char shown[CFG__SHOW_MAX + 4];
    myri_cfg_show(assignment, shown, sizeof shown);
    const char *eq = strchr(assignment, '=');
    if (!eq)
        return set__error(err, 1, "missing '=' in '%s'%s; expected key=value", shown, "");
    if (eq == assignment)
        return set__error(err, 1, "empty key in '%s'%s; expected key=value", shown, "");
    size_t klen = (size_t)(eq - assignment);
    char *key = malloc(klen + 1);
    if (!key) return myri_error_at(err, NULL, "--set: out of memory"), MYRI_ENOMEM;
    memcpy(key, assignment, klen);
    key[klen] = '\0';
    myri_node *cur = root;
    myri_status st = MYRI_OK;
    for (char *seg = key;;) {
        char *dot = strchr(seg, '.');
        size_t col = (size_t)(seg - key) + 1;
        if (dot) *dot = '\0';
        if (*seg == '\0') {
            st = set__error(err, col, "empty key part in '%s'%s; expected names separated by "
                                      "single dots, as in link.rate=640Mb/s",
                            shown, "");
            break;
        }
        if (!dot) {
            st = set__leaf(cur, seg, col, eq + 1, klen + 2, err);
            break;
        }
        if ((st = set__descend(&cur, seg, col, assignment, err))) break;
        seg = dot + 1;
    }
    free(key);
    return st;
}
