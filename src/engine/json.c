/* json.c -- streaming JSON writer (see json.h). */
#include "myri/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#define JSON_MAX_DEPTH 64

struct myri_json {
    FILE *out;
    bool pretty;
    int depth;
    bool bad;                       /* misuse seen */
    bool is_obj[JSON_MAX_DEPTH];    /* container kind per level */
    bool first[JSON_MAX_DEPTH];     /* no member written yet at this level */
    bool after_key;                 /* a key was written; value expected */
};

myri_json *myri_json_create(FILE *out, bool pretty)
{
    if (!out) return NULL;
    myri_json *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    j->out = out;
    j->pretty = pretty;
    j->first[0] = true;
    return j;
}

myri_status myri_json_finish(myri_json *j)
{
    if (!j) return MYRI_OK;
    bool bad = j->bad || j->depth != 0 || j->after_key;
    fputc('\n', j->out);
    fflush(j->out);
    free(j);
    return bad ? MYRI_ESTATE : MYRI_OK;
}

static void json__indent(myri_json *j)
{
    if (!j->pretty) return;
    fputc('\n', j->out);
    for (int i = 0; i < j->depth; i++) fputs("  ", j->out);
}

/* Prepares for a value: comma/indent inside arrays, checks object rules. */
static bool json__value(myri_json *j)
{
    if (!j) return false;
    if (j->depth > 0 && j->is_obj[j->depth]) {
        if (!j->after_key) {
            j->bad = true;
            return false;
        }
        j->after_key = false;
        return true;
    }
    if (j->depth == 0 && !j->first[0]) {
        j->bad = true; /* a second top-level value */
        return false;
    }
    if (!j->first[j->depth]) fputc(',', j->out);
    if (j->depth > 0) json__indent(j);
    j->first[j->depth] = false;
    return true;
}

static void json__string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

static void json__open(myri_json *j, bool obj)
{
    if (!json__value(j)) return;
    if (j->depth + 1 >= JSON_MAX_DEPTH) {
        j->bad = true;
        return;
    }
    fputc(obj ? '{' : '[', j->out);
    j->depth++;
    j->is_obj[j->depth] = obj;
    j->first[j->depth] = true;
}

static void json__close(myri_json *j, bool obj)
{
    if (!j) return;
    if (j->depth == 0 || j->is_obj[j->depth] != obj || j->after_key) {
        j->bad = true;
        return;
    }
    bool empty = j->first[j->depth];
    j->depth--;
    if (!empty) json__indent(j);
    fputc(obj ? '}' : ']', j->out);
}

void myri_json_obj_begin(myri_json *j) { json__open(j, true); }
void myri_json_obj_end(myri_json *j) { json__close(j, true); }
void myri_json_arr_begin(myri_json *j) { json__open(j, false); }
void myri_json_arr_end(myri_json *j) { json__close(j, false); }

void myri_json_key(myri_json *j, const char *key)
{
    if (!j) return;
    if (j->depth == 0 || !j->is_obj[j->depth] || j->after_key) {
        j->bad = true;
        return;
    }
    if (!j->first[j->depth]) fputc(',', j->out);
    json__indent(j);
    j->first[j->depth] = false;
    json__string(j->out, key);
    fputs(j->pretty ? ": " : ":", j->out);
    j->after_key = true;
}

void myri_json_str(myri_json *j, const char *s)
{
    if (json__value(j)) json__string(j->out, s);
}

void myri_json_num(myri_json *j, double v)
{
    if (!json__value(j)) return;
    if (!isfinite(v))
        fputs("null", j->out);
    else
        fprintf(j->out, "%.10g", v);
}

void myri_json_int(myri_json *j, int64_t v)
{
    if (json__value(j)) fprintf(j->out, "%" PRId64, v);
}

void myri_json_uint(myri_json *j, uint64_t v)
{
    if (json__value(j)) fprintf(j->out, "%" PRIu64, v);
}

void myri_json_bool(myri_json *j, bool v)
{
    if (json__value(j)) fputs(v ? "true" : "false", j->out);
}

void myri_json_null(myri_json *j)
{
    if (json__value(j)) fputs("null", j->out);
}

void myri_json_hash(myri_json *j, uint64_t v)
{
    if (json__value(j)) fprintf(j->out, "\"0x%016" PRIx64 "\"", v);
}

void myri_json_kstr(myri_json *j, const char *key, const char *s)
{
    myri_json_key(j, key);
    myri_json_str(j, s);
}
void myri_json_knum(myri_json *j, const char *key, double v)
{
    myri_json_key(j, key);
    myri_json_num(j, v);
}
void myri_json_kint(myri_json *j, const char *key, int64_t v)
{
    myri_json_key(j, key);
    myri_json_int(j, v);
}
void myri_json_kuint(myri_json *j, const char *key, uint64_t v)
{
    myri_json_key(j, key);
    myri_json_uint(j, v);
}
void myri_json_kbool(myri_json *j, const char *key, bool v)
{
    myri_json_key(j, key);
    myri_json_bool(j, v);
}
