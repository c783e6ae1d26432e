/* hostif.c -- finding the running program's host interface (hostif.h). */
#include "host/hostif.h"

#include <stddef.h>

static myri_hostif *(*hostif__provider)(void);

myri_hostif *myri_hostif_current(void) { return hostif__provider ? hostif__provider() : NULL; }

void myri_hostif_set_provider(myri_hostif *(*fn)(void)) { hostif__provider = fn; }
