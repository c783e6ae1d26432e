/* rng.h -- random streams.
 *
 * Generator: xoshiro256** 1.0 (Blackman and Vigna, "Scrambled linear
 * pseudorandom number generators", ACM TOMS 2021), period 2^256 - 1, state
 * seeded from a 64-bit seed with SplitMix64 as its authors recommend.
 *
 * Streams: the simulation's seed gives a base state; stream k is the base
 * state advanced by k calls of the generator's jump function (2^128 steps
 * each), so streams are non-overlapping subsequences of length 2^128.
 * Components receive streams in creation order.
 */
#ifndef MYRI_RNG_H
#define MYRI_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_rng {
    uint64_t s[4];
} myri_rng;

/* One SplitMix64 step: advances *state and returns the next output. */
uint64_t myri_splitmix64(uint64_t *state);
/* Seeds *r from `seed` via SplitMix64. */
void myri_rng_seed(myri_rng *r, uint64_t seed);
/* Next 64-bit output of xoshiro256**. */
uint64_t myri_rng_next(myri_rng *r);
/* Advances *r by 2^128 steps (the generator's jump polynomial). */
void myri_rng_jump(myri_rng *r);
/* Stream k of `seed`: seed, then k jumps.  O(k); prefer myri_rng_jump on a
 * running copy when creating many streams. */
void myri_rng_stream(myri_rng *r, uint64_t seed, uint64_t k);
/* The stream of the k-th component named `name` in a simulation of `seed`
 * (what myri_sim_add gives it): seeded by SplitMix64 from the seed and the
 * FNV-1a hash of the name, so that adding components leaves the others'
 * streams unchanged. */
void myri_rng_named(myri_rng *r, uint64_t seed, const char *name, uint64_t k);
/* FNV-1a 64-bit hash of a string. */
uint64_t myri_rng_name_hash(const char *name);

/* Uniform double in [0, 1) with 53 random bits. */
double myri_rng_uniform01(myri_rng *r);
/* Uniform double in [lo, hi). */
double myri_rng_uniform(myri_rng *r, double lo, double hi);
/* Uniform integer in [0, n) without modulo bias; n must be > 0 (0 gives 0). */
uint64_t myri_rng_below(myri_rng *r, uint64_t n);
/* Exponential with the given mean (ziggurat method; thread-safe). */
double myri_rng_exponential(myri_rng *r, double mean);

/* Empirical (discrete) distribution: values with weights, sampled by
 * inversion of the cumulative weights (binary search). */
typedef struct myri_empirical {
    size_t n;
    double *value;
    double *cdf; /* cumulative, last = 1 */
} myri_empirical;
/* Builds from n (value, weight) pairs; weights >= 0 with a positive sum.
 * Returns MYRI_EINVAL on bad input, MYRI_ENOMEM. */
int myri_empirical_init(myri_empirical *e, size_t n, const double *values, const double *weights);
void myri_empirical_free(myri_empirical *e);
double myri_empirical_sample(const myri_empirical *e, myri_rng *r);

#ifdef __cplusplus
}
#endif

#endif
