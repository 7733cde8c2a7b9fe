/* rng: xoshiro256** seeded by splitmix64, a standard normal, the log-normal compute jitter. */
#include "rng.h"

#include <math.h>

/* splitmix64 (Steele, Lea and Flood, 2014): one step of its state and the output's mix. */
static uint64_t splitmix64(uint64_t* x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

void ss_rng_seed(ss_rng* r, uint64_t seed, uint64_t stream)
{
  /* The stream through splitmix64 first: seeds and streams that differ by a little land far apart. */
  uint64_t x = stream;
  uint64_t mixed = splitmix64(&x) ^ seed;
  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix64(&mixed);
  /* All-zero is xoshiro's one bad state; splitmix64's outputs are a bijection of distinct inputs,
   * so four zeros cannot come out, but keep the invariant visible. */
  if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
    r->s[0] = 1;
}

uint64_t ss_rng_u64(ss_rng* r)
{
  uint64_t* s = r->s;
  uint64_t out = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return out;
}

double ss_rng_uniform(ss_rng* r)
{
  return ((double)(ss_rng_u64(r) >> 11) + 0.5) * 0x1.0p-53;
}

double ss_rng_normal(ss_rng* r)
{
  double u, v, q;
  do {
    u = 2 * ss_rng_uniform(r) - 1;
    v = 2 * ss_rng_uniform(r) - 1;
    q = u * u + v * v;
  } while (q >= 1 || q == 0);
  return u * sqrt(-2 * log(q) / q);
}

double ss_jitter_sigma(double cv)
{
  return sqrt(log1p(cv * cv));
}

double ss_jitter_draw(ss_rng* r, double cv)
{
  if (!(cv > 0))
    return 1;
  double sigma = ss_jitter_sigma(cv);
  return exp(sigma * ss_rng_normal(r) - sigma * sigma / 2);
}
