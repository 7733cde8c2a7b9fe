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

/* Default --jitter: the coefficient of variation of one GPU's compute time from one training step
 * to the next (docs/model.md, "Stragglers"). An ESTIMATE from few steps: from the repository root,
 * `stash-calibrate trace ../shared/data/traces/resnet50_v100_bs32_workers0.pt.trace.json.gz
 * -o /dev/null --samples 1` (ResNet-50, batch 32, one V100, PyTorch's profiler) prints cv 0.000494
 * over 6 steps (mean 98.678 ms, sd 0.0487 ms): a figure from 6 steps has a relative standard error
 * of about 32% (a 95% interval of roughly 0.0003 to 0.0012). */
#define SS_JITTER_CV 0.0005
#define SS_JITTER_TEXT "0.0005: measured over 6 steps of one V100, an estimate (docs/model.md)"

/* Largest --jitter: a standard deviation as large as the mean step time. No measured GPU comes
 * near (the trace above: 0.0005; a shared, throttling GPU a few percent); beyond it the log-normal's
 * median step is below 0.71 of the mean and single draws of 5x the mean are no longer rare. */
#define SS_JITTER_MAX 1.0

/* Default --seed, and the largest (the field is an int). */
#define SS_SEED 1
#define SS_SEED_MAX 2147483647

#endif
