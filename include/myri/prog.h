/* prog.h -- what a program running on a host may use besides <myri/api0.h>:
 * who it is, the routes to the other hosts (seed 001's "route file support":
 * the job provides them), time, sleeping and spending CPU, a fast way to wait
 * for a packet, a random stream, and reporting the figures it measured.
 *
 * A program is a plain C function `int myri_main(int argc, char **argv)` (a
 * built-in program: any function of that type) run on a host in simulated
 * time (docs/HOST.md); it includes only <myri/api0.h> and
 * <myri/prog.h>.  Called from outside any program these functions return -1
 * (or 0 for the times) and do nothing.
 */
#ifndef MYRI_PROG_H
#define MYRI_PROG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* This host's index (0 .. nhosts - 1) and the number of hosts. */
int myri_prog_host(void);
int myri_prog_nhosts(void);
/* The hosts this program's entry of the scenario runs on (its `hosts:`
 * list, in host order): their indices into hosts[0 .. max); returns their
 * number (every host when the job names none), or -1 outside a program.
 * A program talks among these hosts. */
int myri_prog_group(int *hosts, int max);

/* The route bytes from this host to host `to` into route[0 .. max): returns
 * their number (0: a point-to-point link, no route bytes), or -1 (no such
 * host, no route known, max too small).  Give them to myri_api0_add_route. */
int myri_prog_route(int to, char *route, int max);

/* Simulated time since the start of the run. */
uint64_t myri_prog_now_ps(void);
double myri_prog_now_us(void);

/* Sleeps (the CPU is free for other programs) / computes (the program keeps
 * the CPU busy) for a time.  Negative or NaN: nothing. */
void myri_prog_sleep_us(double us);
void myri_prog_compute_us(double us);
/* Charges the time the host CPU needs to copy `bytes` (host.copy_rate). */
void myri_prog_copy_cost(size_t bytes);

/* Waits until receive channel chan of board unit holds a packet, for at most
 * timeout_us: the same as calling myri_api0_recv_poll in a loop (each call
 * costs its API time), but when the poll reads only host memory (DMA
 * notification) the empty polls are not simulated one by one: the program
 * sleeps until the NIC writes host memory and resumes at the poll that would
 * have seen it.  Returns recv_poll's result (> 0 packets ready, < 0 error),
 * or 0 at the time-out. */
int myri_prog_recv_wait(int unit, int chan, double timeout_us);

/* The program's random stream (deterministic, keyed by the program's name). */
uint64_t myri_prog_random(void);
/* Uniform in [0, n) (n > 0), and exponential with the given mean. */
uint64_t myri_prog_random_below(uint64_t n);
double myri_prog_random_exp(double mean);

/* Zeroed memory owned by the program: freed with the program when the
 * simulation ends, also when the run stops before the program returns (where
 * malloc'd memory would leak).  NULL outside a program, for 0 bytes, when
 * memory runs out, or past host.alloc_limit (all the host's programs together). */
void *myri_prog_alloc(size_t bytes);
/* Records a figure the program measured under `key` (copied; at most 64
 * characters); the job collects them.  0, or -1 (not in a program, bad key,
 * too many: 256 per program). */
int myri_prog_report(const char *key, double value);

#ifdef __cplusplus
}
#endif

#endif
