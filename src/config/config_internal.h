/* config_internal.h -- helpers shared by the files of src/config (not public).
 *
 * The value parsers of units.c come in two layers: myri_cfg_parse_* write the
 * reason of a failure ("too large; expected a time such as ...") into a
 * plain buffer without any position or value, so that the public
 * myri_parse_* and the parameter loader (params.c) can each wrap it in their
 * own "bad value 'X' ..." sentence.
 */
#ifndef MYRI_CONFIG_INTERNAL_H
#define MYRI_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "myri/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest piece of user text quoted in a message (longer text is cut with "..."). */
enum { CFG__SHOW_MAX = 48 };

/* Copies `s` into buf for quoting in a message: at most CFG__SHOW_MAX
 * characters, non-printable bytes as '?', "..." appended when cut. */
void myri_cfg_show(const char *s, char *buf, size_t len);

/* Each returns MYRI_OK, or MYRI_EINPUT with `why` = "REASON; expected WHAT"
 * or "expected WHAT".  `bare` is the unit of a number written without one
 * (ignored unless it is one of the type's units). */
myri_status myri_cfg_parse_time(const char *s, const char *bare, uint64_t *ps, char *why, size_t n);
myri_status myri_cfg_parse_size(const char *s, const char *bare, uint64_t *bytes, char *why,
                            size_t n);
myri_status myri_cfg_parse_rate(const char *s, const char *bare, double *bps, char *why, size_t n);
myri_status myri_cfg_parse_length(const char *s, const char *bare, double *m, char *why, size_t n);
myri_status myri_cfg_parse_double(const char *s, double *v, char *why, size_t n);
/* A double in `unit`: "B/s" and "Hz" take units (units.c); anything else a plain number. */
myri_status myri_cfg_parse_double_unit(const char *s, const char *unit, double *v, char *why, size_t n);
myri_status myri_cfg_parse_int(const char *s, int64_t *v, char *why, size_t n);
myri_status myri_cfg_parse_uint(const char *s, uint64_t *v, char *why, size_t n);
myri_status myri_cfg_parse_bool(const char *s, bool *v, char *why, size_t n);

/* Formats a value of the unit types canonically (exact for time and size). */
void myri_cfg_format_rate(double bps, char *buf, size_t len);
void myri_cfg_format_size(uint64_t bytes, char *buf, size_t len);
void myri_cfg_format_length(double m, char *buf, size_t len);

/* What a value of type t looks like ("a time such as 12.5ns ..."); for
 * MYRI_P_ENUM and MYRI_P_NODE a generic text (the caller knows better). */
const char *myri_cfg_expect(myri_ptype t);

#ifdef __cplusplus
}
#endif

#endif
