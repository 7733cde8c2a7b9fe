/* kernelfit: the kernels' efficiency by GPU generation (kernelfit.h), from the fits that
 * calibration/fit_kernels.py writes to kernelfit.inc. */
#include "kernelfit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernelfit.inc"

static double waves(double m, double n, int sms, double tm, double tn)
{
  double tiles = ceil(m / tm) * ceil(n / tn);
  return tiles / (ceil(tiles / sms) * sms);
}

double ss_gemm_efficiency(const ss_gemm_fit* f, double m, double n, double k, int sms)
{
  const double shape[4][2] = {{1, 1}, {1, 0.5}, {0.5, 0.5}, {0.5, 0.25}};
  double u = 0, rate = 1;
  for (int i = 0; i < 4; i++, rate *= f->small)
    u = fmax(u, waves(m, n, sms, f->tile_m * shape[i][0], f->tile_n * shape[i][1]) * rate);
  return f->e_max * u * k / (k + f->k0);
}

double ss_attention_efficiency(const ss_attention_fit* f, double s, int bwd)
{
  return (bwd ? f->bwd_e_max : f->e_max) * s / (s + f->s0);
}

const ss_gemm_fit* ss_gemm_fit_of(const char* generation, const char* precision)
{
  for (const ss_gemm_fit* f = ss_gemm_fits; f->generation; f++)
    if (strcmp(f->generation, generation) == 0 && strcmp(f->precision, precision) == 0)
      return f;
  return NULL;
}

const char* ss_attention_default(const char* generation)
{
  for (int i = 0; ss_attention_defaults[i]; i += 2)
    if (strcmp(ss_attention_defaults[i], generation) == 0)
      return ss_attention_defaults[i + 1];
  return NULL;
}

const ss_attention_fit* ss_attention_fit_of(const char* generation, const char* precision, int head_dim, int causal,
                                            const char* kernel)
{
  const char* k = kernel ? kernel : ss_attention_default(generation);
  const ss_attention_fit* best = NULL;
  for (const ss_attention_fit* f = ss_attention_fits; k && f->generation; f++)
    if (strcmp(f->generation, generation) == 0 && strcmp(f->kernel, k) == 0 && strcmp(f->precision, precision) == 0 &&
        f->causal == causal && (!best || abs(f->head_dim - head_dim) < abs(best->head_dim - head_dim)))
      best = f;
  return best;
}
