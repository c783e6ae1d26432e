/* status.h -- stable status codes returned by every library call.
 *
 * Library functions never abort on misuse: they return one of these codes.
 * The numbers are stable (they appear in JSON output and in tests); add new
 * codes at the end only.  myri_strerror() gives a one-line description.
 */
#ifndef MYRI_STATUS_H
#define MYRI_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum myri_status {
    MYRI_OK = 0,
    MYRI_EINVAL = 1,   /* bad argument to an API call (NULL, out of range) */
    MYRI_ENOMEM = 2,   /* allocation failed */
    MYRI_EINPUT = 3,   /* bad scenario / network input; see the myri_error text */
    MYRI_ENOTFOUND = 4,/* unknown name (component type, key, node ...) */
    MYRI_ERANGE = 5,   /* a value is outside its allowed range */
    MYRI_EIO = 6,      /* file could not be read or written */
    MYRI_ESTATE = 7,   /* call not valid in the object's current state */
    MYRI_EMODEL = 8,   /* the model cannot be solved (e.g. utilisation >= 1) */
    MYRI_EFULL = 9,    /* a fixed capacity was exhausted */
    MYRI_ETIMEDOUT = 10 /* a wait ended by its time limit (myri_proc_wait) */
} myri_status;

/* Returns a static, one-line description of `s` (never NULL). */
const char *myri_strerror(myri_status s);

#ifdef __cplusplus
}
#endif

#endif
