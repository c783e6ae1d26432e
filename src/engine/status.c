/* status.c -- descriptions of the stable status codes. */
#include "myri/status.h"

const char *myri_strerror(myri_status s)
{
    switch (s) {
    case MYRI_OK: return "success";
    case MYRI_EINVAL: return "invalid argument";
    case MYRI_ENOMEM: return "out of memory";
    case MYRI_EINPUT: return "bad input";
    case MYRI_ENOTFOUND: return "not found";
    case MYRI_ERANGE: return "value out of range";
    case MYRI_EIO: return "input/output error";
    case MYRI_ESTATE: return "invalid in the current state";
    case MYRI_EMODEL: return "model cannot be solved";
    case MYRI_EFULL: return "capacity exhausted";
    case MYRI_ETIMEDOUT: return "timed out";
    }
    return "unknown status";
}
