/* roofline: a layer's kernels' time on a device from their work (roofline.h has the model). */
#include "roofline.h"

#include <math.h>

/* ESTIMATES, used only for the fraction a reference measurement does not fix: dense convolutions
 * and GEMMs of cuDNN and cuBLAS reach 60-80% of a GPU's FP32 peak at training sizes, and streaming
 * elementwise kernels (BatchNorm, ReLU, additions) 70-90% of its memory bandwidth (the STREAM-like
 * copy figures of vendor bandwidth tests); the middles are taken. */
const ss_fit ss_fit_default = {0.7, 0.8, 'f'};

double ss_roofline_waves(const ss_work* w, double batch, const ss_rates* d)
{
  if (!(w->blocks > 0) || d->sms <= 0)
    return 1;
  double blocks = ceil(w->blocks * batch);
  double waves = ceil(blocks / d->sms);
  return blocks / (waves * d->sms);
}

/* The compute and memory times of w at batch b on d, at full use of the peaks. */
static void peaks(const ss_work* w, double batch, const ss_rates* d, double* compute_s, double* memory_s)
{
  *compute_s = w->flops * batch / d->flops;
  *memory_s = (w->bytes * batch + w->fixed_bytes) / d->bytes_per_s;
}

double ss_roofline_time(const ss_work* w, double batch, const ss_rates* d, const ss_fit* f)
{
  double c, m;
  peaks(w, batch, d, &c, &m);
  return w->kernels * d->kernel_s + fmax(c / f->compute, m / f->memory) / ss_roofline_waves(w, batch, d);
}

void ss_roofline_fit(const ss_work* w, double batch, const ss_rates* ref, double measured_s, ss_fit* out)
{
  *out = ss_fit_default;
  double body = (measured_s - w->kernels * ref->kernel_s) * ss_roofline_waves(w, batch, ref);
  double c, m;
  peaks(w, batch, ref, &c, &m);
  if (!(body > 0) || (c <= 0 && m <= 0))
    return;
  /* A fraction of the nominal work: the compute one may exceed 1 where cuDNN's Winograd or FFT
   * convolutions do fewer multiplications than the direct convolution the FLOPs count (ResNet-50's
   * 3x3 convolutions on the V100 run at 1.2x the FP32 peak by that count). */
  if (c / ss_fit_default.compute >= m / ss_fit_default.memory) {
    out->compute = c / body;
    out->bound = 'c';
    /* The other roof may not bind harder than the fitted one: the memory time at its fraction must
     * stay at or below the body. */
    if (m / out->memory > body)
      out->memory = m / body;
  } else {
    out->memory = m / body;
    out->bound = 'm';
    if (c / out->compute > body)
      out->compute = c / body;
  }
}
