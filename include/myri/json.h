/* json.h -- a small streaming JSON writer for results.
 *
 * Commas and nesting are handled by the writer; keys are only valid inside
 * objects.  Doubles are printed with %.10g; NaN and infinities as null.
 * Misuse (value without key in an object, unbalanced end) is recorded and
 * reported by myri_json_finish(), never a crash.
 */
#ifndef MYRI_JSON_H
#define MYRI_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "myri/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_json myri_json;

/* Writes to `out`; pretty = indent with two spaces.  NULL on ENOMEM. */
myri_json *myri_json_create(FILE *out, bool pretty);
/* Ends the document (newline) and frees the writer.  Returns MYRI_ESTATE if
 * the document was unbalanced or misused, else MYRI_OK.  NULL is allowed. */
myri_status myri_json_finish(myri_json *j);

void myri_json_obj_begin(myri_json *j);
void myri_json_obj_end(myri_json *j);
void myri_json_arr_begin(myri_json *j);
void myri_json_arr_end(myri_json *j);
void myri_json_key(myri_json *j, const char *key);
void myri_json_str(myri_json *j, const char *s);
void myri_json_num(myri_json *j, double v);
void myri_json_int(myri_json *j, int64_t v);
void myri_json_uint(myri_json *j, uint64_t v);
void myri_json_bool(myri_json *j, bool v);
void myri_json_null(myri_json *j);
/* Hash values are written as 16-digit hex strings ("0x..."). */
void myri_json_hash(myri_json *j, uint64_t v);

/* Shorthands: key + value. */
void myri_json_kstr(myri_json *j, const char *key, const char *s);
void myri_json_knum(myri_json *j, const char *key, double v);
void myri_json_kint(myri_json *j, const char *key, int64_t v);
void myri_json_kuint(myri_json *j, const char *key, uint64_t v);
void myri_json_kbool(myri_json *j, const char *key, bool v);

#ifdef __cplusplus
}
#endif

#endif
