/* stats_internal.h -- test hooks of the statistics module (not installed). */
#ifndef MYRI_STATS_INTERNAL_H
#define MYRI_STATS_INTERNAL_H

#include "myri/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A deliberate fault for the test that must catch it: 1 = the mean is taken
 * from a double running sum (each sample added as a double, merged sums added
 * as doubles), as the histogram did before its sum was exact; 0 = none. */
void myri_hist__set_fault(myri_hist *h, int fault);

#ifdef __cplusplus
}
#endif

#endif
