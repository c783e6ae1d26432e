/* sim_internal.h -- engine hooks for tests only (not installed). */
#ifndef MYRI_ENGINE_SIM_INTERNAL_H
#define MYRI_ENGINE_SIM_INTERNAL_H

#include "myri/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the next sequence number of every logical process, those added later
 * included (tests of the 2^32 wrap: below 2^32 - 1). */
void myri_sim__set_seq(myri_sim *sim, uint64_t seq);
/* Times the pending events were renumbered because a process's numbers ran out. */
uint64_t myri_sim__renumbers(const myri_sim *sim);
/* Entries in the pending set (calendar and heap), cancelled ones included. */
size_t myri_sim__heap_size(const myri_sim *sim);
/* Times every pending event was put into a new calendar (tuning, compaction, renumbering). */
uint64_t myri_sim__rebuilds(const myri_sim *sim);
/* Buckets sorted by the counting sort (the rest by comparison). */
uint64_t myri_sim__radix_sorts(const myri_sim *s);
/* The widest calendar buckets used so far: 2^this ps (at most 40: a
 * calendar entry keeps its time's offset in its bucket in 40 bits). */
uint32_t myri_sim__max_shift(const myri_sim *s);
/* A deliberate fault for the tests that must catch it: 1 = the calendar's top
 * is taken without comparing it with the heap's; 2 = a bucket's counting sort
 * without its insertion pass (equal times left in the order they were
 * appended); 3 = myri_sim_insert_keyed ignores the given process and
 * number and takes the target's next one (as a local schedule would); 4 =
 * myri_sim_schedule_as ignores its process (schedules as myri_sim_schedule);
 * 5 = a rebuild reads the calendar's entries back with their buckets' times
 * taken as if the ring never wrapped (each entry's time is its offset in
 * its bucket plus the bucket's first time: a wrong bucket, a wrong time);
 * 6 = myri_sim_next_time counts a cancelled entry at the front (the answer
 * before issue 24 round 5: it depended on when rebuilds dropped them);
 * 0 = none. */
void myri_sim__set_fault(myri_sim *sim, int fault);
/* Pins the calendar's geometry (tests of what must not depend on it): buckets
 * of 2^shift ps from now on (rebuilt at once; shift <= 40), the tuning off,
 * and, when every > 0, the calendar rebuilt (its cancelled entries dropped)
 * every `every` events taken. */
void myri_sim__pin_geometry(myri_sim *sim, uint32_t shift, uint64_t every);

#ifdef __cplusplus
}
#endif

#endif
