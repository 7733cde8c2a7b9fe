/* rng: the simulator's only source of randomness: a seeded generator of our own (xoshiro256**,
 * seeded by splitmix64), one stream per rank, and the compute jitter drawn from it. */
#ifndef SS_RNG_H
#define SS_RNG_H

#include <stdint.h>

/* One stream: xoshiro256** (Blackman and Vigna, 2018), 256 bits of state, period 2^256 - 1. */
typedef struct ss_rng {
  uint64_t s[4];
} ss_rng;

/* Seed stream `stream` (a rank) of seed: its state is four outputs of splitmix64 started from a
 * mix of both, so that two streams of one seed, or one stream of two seeds, share nothing a test
 * can see. The same (seed, stream) always gives the same sequence, whatever else is drawn. */
void ss_rng_seed(ss_rng* r, uint64_t seed, uint64_t stream);

/* The next 64 random bits. */
uint64_t ss_rng_u64(ss_rng* r);

/* A uniform double in (0, 1): never 0, never 1 (53 random bits). */
double ss_rng_uniform(ss_rng* r);

/* A standard normal (Marsaglia's polar method: two uniforms, a rejection, a log and a square root;
 * no sine or cosine). */
double ss_rng_normal(ss_rng* r);

/* sigma of the log-normal of mean 1 and coefficient of variation cv: sqrt(ln(1 + cv^2)); its mu is
 * -sigma^2 / 2. */
double ss_jitter_sigma(double cv);

/* A compute-time factor: log-normal of mean 1 and coefficient of variation cv (exactly 1 when cv is
 * 0, drawing nothing), always > 0 (docs/model.md, "Stragglers"). */
double ss_jitter_draw(ss_rng* r, double cv);

#endif
