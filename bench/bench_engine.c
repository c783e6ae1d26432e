/* bench_engine.c -- the event engine under the classic hold model.
 *
 * Runs the hold model at 10 000 and 1 000 000 pending events (targets of
 * MISSION.md: >= 15 M events/s and >= 4 M events/s on the 2-core machine)
 * with fixed seeds, and prints events per second and the hash of the event
 * sequence (a speed run is also a correctness run: the hash must not change
 * when the engine is optimised).  Output: aligned text, then one JSON line
 * per case.
 */
#include <inttypes.h>
#include <stdio.h>

#include "app/hold.h"

int main(void)
{
    static const struct {
        uint64_t pending, events;
        double target;
    } cases[] = {{10000, 30000000, 15e6}, {1000000, 20000000, 4e6}};
    myri_hold_result r[2];
    printf("%-10s %12s %12s %10s %14s %10s  %s\n", "benchmark", "pending", "events", "wall_s", "events/s",
           "target", "hash");
    for (int i = 0; i < 2; i++) {
        if (myri_hold_bench(1, cases[i].pending, cases[i].events, 1000000, &r[i]) != MYRI_OK) {
            fprintf(stderr, "bench_engine: run failed\n");
            return 1;
        }
        printf("%-10s %12" PRIu64 " %12" PRIu64 " %10.3f %14.0f %10.0f  0x%016" PRIx64 "\n", "hold", r[i].pending,
               r[i].events, r[i].wall_s, r[i].events_per_sec, cases[i].target, r[i].hash);
    }
    for (int i = 0; i < 2; i++)
        printf("{\"benchmark\":\"engine-hold\",\"pending\":%" PRIu64 ",\"events\":%" PRIu64
               ",\"wall_s\":%.6f,\"events_per_sec\":%.0f,\"target_events_per_sec\":%.0f,\"hash\":\"0x%016" PRIx64
               "\"}\n",
               r[i].pending, r[i].events, r[i].wall_s, r[i].events_per_sec, cases[i].target, r[i].hash);
    return 0;
}
