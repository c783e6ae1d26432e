/* fuzz_sweep_log.c -- fuzz target for reading the sweep logs gathered from
 * MPI ranks (src/app/sweep.c, myri_sweep_take): the first byte says how many
 * ranks (1-4), the rest is cut into that many logs of equal length, and the
 * units are taken in order 0, 1, ... as the report does, until one fails.
 * Any bytes must give a result inside the logs or an error with a
 * terminated message, never a crash, a read outside the logs or a leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536) return 0;
    size_t nr = 1 + data[0] % 4, part = (size - 1) / nr;
    myri_sweep_logs all = {0};
    all.nranks = nr;
    all.all = malloc(part * nr + 1);
    all.len = calloc(nr, sizeof *all.len);
    all.at = calloc(nr, sizeof *all.at);
    if (all.all && all.len && all.at) {
        memcpy(all.all, data + 1, part * nr);
        for (size_t r = 0; r < nr; r++) all.len[r] = part;
        for (size_t unit = 0; unit < 4096; unit++) {
            myri_error err;
            const unsigned char *res = NULL;
            size_t len = 0;
            myri_status st = myri_sweep_take(&all, unit, &err, &res, &len);
            if (st != MYRI_OK) {
                if (strlen(err.msg) >= sizeof err.msg) abort();
                break;
            }
            size_t r = unit % nr;
            if (len && (res < all.all + r * part || res + len > all.all + (r + 1) * part)) abort();
        }
    }
    myri_sweep_logs_free(&all);
    return 0;
}
