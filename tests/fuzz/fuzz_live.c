/* fuzz_live.c -- libFuzzer target for what live mode reads from outside:
 * the record log (src/live/record.c) and the command ring's entries
 * (myri_live_cmd_check), then the whole replay of the input as a log on a
 * two-host live scenario (src/live/daemon.c: records applied to a running
 * simulation, fetches put back into host memory).  Bad records must be
 * counted, never crash, leak or read out of bounds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/live.h"
#include "live/shm.h"
#include "myri/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fuzz__scenario[] = "job: system\nduration: 10s\ntopology:\n  generator: star\n  hosts_per_switch: 2\n"
                                     "programs:\n  - program: live\n    hosts: [h0, h1]\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* every chunk of the input as a ring entry, checked as the daemon checks its copy */
    for (size_t off = 0; off + sizeof(myri_live_cmd) <= size; off += sizeof(myri_live_cmd)) {
        myri_live_cmd c;
        memcpy(&c, data + off, sizeof c);
        (void)myri_live_cmd_check(&c, 1u << 20);
    }
    long start = myri_live_rec_start(data, size);
    size_t pos = start < 0 ? 0 : (size_t)start;
    myri_live_rec r;
    for (int i = 0; start >= 0 && i < 100000 && myri_live_rec_next(data, size, &pos, &r) == 1; i++) {
    }
    char path[] = "/tmp/fuzz_live_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 0;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(path);
        return 0;
    }
    fwrite(data, 1, size, f);
    fclose(f);
    myri_node *root = NULL;
    myri_error err = {0};
    if (myri_doc_parse("fuzz.yaml", fuzz__scenario, sizeof fuzz__scenario - 1, &root, &err) == MYRI_OK) {
        myri_live_opts o = {.replay_path = path};
        myri_live_result res;
        (void)myri_live_run(root, &o, &res, &err);
    }
    myri_node_free(root);
    unlink(path);
    return 0;
}
