/* fuzz_pipeline: libFuzzer target past the readers: the input bytes choose a small platform (1 to 4
 * GPUs, links of fuzzed bandwidth, latency and sharing, NVLink, a NIC), a small workload (1 to 4
 * layers of fuzzed times and sizes, or a small transformer's block and layers, their parameters and
 * FLOPs the block's within or beyond the loader's 5%) and fuzzed values of options of the registry
 * (sim/option.c), with a transformer its layout (--tp, --pp, --schedule, --micro-batch, ...);
 * they go through the validation layer in this process (ss_cli_parse, ss_platform_load,
 * ss_transport_prepare, ss_workload_load, ss_derive_job or ss_stash_plan), and what it accepts runs
 * in the stash-sim binary of the same build, in a child with a time limit. The contract: a refusal
 * is one printable line; an accepted input simulates (exit 0, a JSON report of finite numbers, a
 * positive iteration time) or is refused by the binary with exactly one line on stderr and a
 * documented exit status (1, 2 or 3). A crash, an abort, a signal, exit 4, a time-out, a
 * multi-line error or a non-finite figure is a finding.
 * Environment: FUZZ_PIPELINE_FINDINGS=DIR records each distinct finding (by kind and first
 * stderr line, digits ignored) in DIR (the input, its files and its command) and goes on, instead of
 * aborting (scripts/fuzz.sh sets it); FUZZ_PIPELINE_TIMEOUT=S (default 10) limits each child;
 * FUZZ_PIPELINE_SHOW=1 prints each command and its outcome; FUZZ_PIPELINE_KEEP=1 keeps the
 * working folder (the last input's files). */
#define _GNU_SOURCE /* mkdtemp, setenv */
#include "cli.h"
#include "fuzz_input.h"
#include "option.h"
#include "derive.h"
#include "platform.h"
#include "stash.h"
#include "transformer.h"
#include "transport.h"
#include "workload.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef FUZZ_STASH_SIM
#error "FUZZ_STASH_SIM: the stash-sim binary to run (tests/fuzz/CMakeLists.txt)"
#endif

/* The input bytes, read front to back; past the end every byte is 0 (the nominal choice). */
typedef struct rd {
  const uint8_t* p;
  size_t n;
} rd;

static unsigned u8(rd* r)
{
  if (!r->n)
    return 0;
  r->n--;
  return *r->p++;
}

/* A growing text buffer. */
typedef struct buf {
  char* s;
  size_t len, cap;
} buf;

static void bprintf(buf* b, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(buf* b, const char* fmt, ...)
{
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    ss_assert(n >= 0);
    if (b->s && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    b->cap = (b->cap + (size_t)n + 1) * 2;
    b->s = realloc(b->s, b->cap);
    ss_assert(b->s);
  }
}

/* Values no sane file holds, and the edges of a double. */
static const char* const specials[] = {
    "0",     "-0",  "1e-300", "1e-310",    "4.9e-324", "1e300", "1.7976931348623157e308",
    "1e999", "-1",  "nan",    "inf",       "1e-9",     "1e9",   "1e15",
    "1e-15", "1.5", "65536",  "2147483648"};
#define NSPECIAL (sizeof(specials) / sizeof(specials[0]))

/* A real number as text: byte 0 the nominal value, 1..199 the nominal times 2^((k-100)/10) (a
 * factor of 1/1000 to 1000), 200..255 a special. */
static const char* real_k(unsigned k, double nominal, char* out, size_t size)
{
  if (k >= 200)
    return specials[(k - 200) % NSPECIAL];
  double v = k == 0 ? nominal : nominal * pow(2, ((double)k - 100) / 10);
  snprintf(out, size, "%.6g", v);
  return out;
}

static const char* real(rd* r, double nominal, char* out, size_t size)
{
  return real_k(u8(r), nominal, out, size);
}

/* A whole number as text: byte 0 nominal, 1..239 in 0..max, above: a special. */
static const char* whole(rd* r, long nominal, long max, char* out, size_t size)
{
  unsigned k = u8(r);
  if (k >= 240)
    return specials[(k - 240) % NSPECIAL];
  snprintf(out, size, "%ld", k == 0 ? nominal : (long)(k - 1) % (max + 1));
  return out;
}

static const char* const policies[] = {"SPLITDUPLEX", "SHARED", "FATPIPE"};

/* One link: fuzzed bandwidth, latency, sharing policy (mostly SPLITDUPLEX). Returns whether it is
 * SPLITDUPLEX (its routes then need a direction). */
static int add_link(rd* r, buf* x, const char* id, const char* cls, double gbytes)
{
  char b1[64], b2[64];
  unsigned pol = u8(r);
  const char* policy = pol < 200 ? policies[0] : policies[pol % 3];
  const char* bw = real(r, gbytes, b1, sizeof(b1));
  const char* lat = real(r, 5, b2, sizeof(b2));
  bprintf(x,
          "    <link id=\"%s\" bandwidth=\"%sGBps\" latency=\"%sus\" sharing_policy=\"%s\">\n"
          "      <prop id=\"class\" value=\"%s\"/>\n    </link>\n",
          id, bw, lat, policy, cls);
  return policy == policies[0];
}

static void hop(buf* x, const char* id, int duplex, const char* dir)
{
  if (duplex)
    bprintf(x, "<link_ctn id=\"%s\" direction=\"%s\"/>", id, dir);
  else
    bprintf(x, "<link_ctn id=\"%s\"/>", id);
}

/* The platform: a star of PCIe links to the CPU, NVLink between some GPU pairs, optionally a NIC.
 * Returns its GPUs. */
static int platform(rd* r, buf* x)
{
  char b[8][64];
  int ngpus = 1 + (int)(u8(r) % 4);
  unsigned flags = u8(r);
  int nic = !(flags & 1), nvlink = flags & 2, transport = (flags >> 2) & 3;
  /* Every byte is read in its own statement: the order of a call's arguments is the compiler's. */
  const char* v[6];
  v[0] = real(r, 1, b[0], 64);
  v[1] = whole(r, 8, 16, b[1], 64);
  v[2] = real(r, 64, b[2], 64);
  v[3] = real(r, 80, b[3], 64);
  bprintf(x,
          "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
          "<platform version=\"4.1\">\n  <zone id=\"fz\" routing=\"Full\">\n"
          "    <prop id=\"instance_type\" value=\"fuzz\"/>\n    <prop id=\"price_usd_per_h\" value=\"%s\"/>\n"
          "    <prop id=\"vcpus\" value=\"%s\"/>\n    <prop id=\"memory_gib\" value=\"%s\"/>\n"
          "    <prop id=\"network_gbps\" value=\"%s\"/>\n",
          v[0], v[1], v[2], v[3]);
  if (transport) {
    static const char* const tr[] = {"", "socket", "ib", "efa"};
    bprintf(x, "    <prop id=\"net_transport\" value=\"%s\"/>\n", tr[transport]);
    if (flags & 16) {
      v[0] = real(r, 0.5, b[0], 64);
      v[1] = real(r, 30, b[1], 64);
      bprintf(x, "    <prop id=\"net_line_fraction\" value=\"%s\"/>\n    <prop id=\"net_message_us\" value=\"%s\"/>\n",
              v[0], v[1]);
    }
  }
  if (flags & 32) {
    unsigned vendor = u8(r), view = u8(r);
    bprintf(x, "    <prop id=\"cpu_vendor\" value=\"%s\"/>\n    <prop id=\"pci_view\" value=\"%s\"/>\n",
            vendor & 1 ? "intel" : "amd", view & 1 ? "flat" : "physical");
  }
  /* A property of each GPU host (the platform reader refuses it in the zone). */
  const char* interference = flags & 64 ? real(r, 0.4, b[7], 64) : NULL;
  v[0] = real(r, 1, b[0], 64);
  v[1] = whole(r, 8, 16, b[1], 64);
  bprintf(x, "    <host id=\"cpu\" speed=\"%sGf\" core=\"%s\">\n      <prop id=\"role\" value=\"cpu\"/>\n", v[0], v[1]);
  if (flags & 128) {
    v[0] = real(r, 3.9, b[0], 64);
    v[1] = real(r, 2, b[1], 64);
    v[2] = real(r, 6, b[2], 64);
    bprintf(x,
            "      <prop id=\"shm_gbytes_per_s\" value=\"%s\"/>\n      <prop id=\"shm_latency_us\" value=\"%s\"/>\n"
            "      <prop id=\"memcpy_gbytes_per_s\" value=\"%s\"/>\n",
            v[0], v[1], v[2]);
  }
  v[0] = real(r, 10, b[0], 64);
  v[1] = real(r, 10, b[1], 64);
  bprintf(x, "      <disk id=\"ebs\" read_bw=\"%sGBps\" write_bw=\"%sGBps\"/>\n    </host>\n", v[0], v[1]);
  for (int g = 0; g < ngpus; g++) {
    unsigned m = u8(r);
    v[0] = real(r, 10, b[0], 64);
    bprintf(x,
            "    <host id=\"gpu%d\" speed=\"%sTf\">\n      <prop id=\"role\" value=\"gpu\"/>\n"
            "      <prop id=\"gpu_model\" value=\"%s\"/>\n%s",
            g, v[0], m & 1 ? "fz-gpu-b" : "fz-gpu-a",
            m == 255 ? "      <prop id=\"compute_on\" value=\"cpu\"/>\n" : "");
    if (interference)
      bprintf(x, "      <prop id=\"comm_interference\" value=\"%s\"/>\n", interference);
    bprintf(x, "    </host>\n");
  }
  int up[4], upcpu, nicd = 0, nvl[4][4] = {{0}};
  char id[32];
  for (int g = 0; g < ngpus; g++) {
    snprintf(id, sizeof(id), "up_gpu%d", g);
    unsigned cls = u8(r);
    up[g] = add_link(r, x, id, cls == 255 ? "socket" : "pcie", 10);
  }
  upcpu = add_link(r, x, "up_cpu", "pcie", 10);
  if (nic)
    nicd = add_link(r, x, "nic", "nic", 10);
  if (nvlink)
    for (int i = 0; i < ngpus; i++)
      for (int j = i + 1; j < ngpus; j++)
        if (u8(r) & 1) {
          snprintf(id, sizeof(id), "nvl_%d_%d", i, j);
          nvl[i][j] = 1 + add_link(r, x, id, "nvlink", 25);
        }
  /* The derived name of a SPLITDUPLEX link taken by a SHARED one (issue 15's x and x_UP). */
  if ((flags & 0x30) == 0x30)
    bprintf(x, "    <link id=\"up_cpu_UP\" bandwidth=\"1GBps\" latency=\"1us\" sharing_policy=\"SHARED\">\n"
               "      <prop id=\"class\" value=\"pcie\"/>\n    </link>\n");
  if (nic)
    bprintf(x, "    <router id=\"nic\"/>\n");
  for (int i = 0; i < ngpus; i++)
    for (int j = i + 1; j < ngpus; j++) {
      bprintf(x, "    <route src=\"gpu%d\" dst=\"gpu%d\">", i, j);
      if (nvl[i][j]) {
        snprintf(id, sizeof(id), "nvl_%d_%d", i, j);
        hop(x, id, nvl[i][j] == 2, "UP");
      } else {
        snprintf(id, sizeof(id), "up_gpu%d", i);
        hop(x, id, up[i], "UP");
        snprintf(id, sizeof(id), "up_gpu%d", j);
        hop(x, id, up[j], "DOWN");
      }
      bprintf(x, "</route>\n");
    }
  for (int g = 0; g < ngpus; g++) {
    bprintf(x, "    <route src=\"cpu\" dst=\"gpu%d\">", g);
    hop(x, (flags & 0x30) == 0x30 ? "up_cpu_UP" : "up_cpu", (flags & 0x30) == 0x30 ? 0 : upcpu, "UP");
    snprintf(id, sizeof(id), "up_gpu%d", g);
    hop(x, id, up[g], "DOWN");
    bprintf(x, "</route>\n");
  }
  if (nic)
    for (int g = 0; g < ngpus; g++) {
      bprintf(x, "    <route src=\"gpu%d\" dst=\"nic\">", g);
      snprintf(id, sizeof(id), "up_gpu%d", g);
      hop(x, id, up[g], "UP");
      hop(x, "nic", nicd, "UP");
      bprintf(x, "</route>\n");
    }
  bprintf(x, "  </zone>\n</platform>\n");
  return ngpus;
}

/* The transformer of a workload that has one: what the layout options are chosen against. */
typedef struct shape {
  int on, layers, heads, kv_heads, hidden, ffn, seq, vocab, gated, tied, per;
} shape;

/* One of n choices: byte 0 the first (the nominal one). */
static int pick(rd* r, const int* v, unsigned n)
{
  return v[u8(r) % n];
}

/* A factor the target moves a count by that the loader checks within 5% of the transformer block
 * (check_transformer in sim/workload.c): byte 0 none, 1..127 within 4.9%, 128..191 4.5% to 9.8% up
 * (128..159) or down (160..191) in steps of 0.17% (both sides of 5%), 192..255 1/16 to 15. */
static double factor(rd* r)
{
  unsigned k = u8(r);
  if (k == 0)
    return 1;
  if (k < 128)
    return 1 + ((double)k - 64) / 1300;
  if (k < 192)
    return 1 + (k < 160 ? 1 : -1) * (0.045 + 0.0017 * (double)((k - 128) % 32));
  return pow(2, ((double)k - 224) / 8);
}

/* The block: small sizes (1 to 8 layers, hidden 8 to 512), some the --tp values do not divide;
 * byte bad above 231 puts a special in one of its keys (text[k] then holds it). */
static void tf_shape(rd* r, shape* s, unsigned bad, const char* text[9])
{
  static const int layers[] = {4, 1, 2, 3, 6, 8, 5, 7}, heads[] = {4, 1, 2, 8, 3, 6}, kv[] = {1, 2, 0, 4},
                   head_dim[] = {16, 8, 32, 64}, seqs[] = {16, 64, 256, 1024, 8},
                   vocabs[] = {100, 1000, 50257, 32000, 7}, per[] = {2, 1, 3};
  s->on = 1;
  s->layers = pick(r, layers, 8);
  s->heads = pick(r, heads, 6);
  int d = pick(r, kv, 4); /* 0: one key-value head (multi-query attention) */
  s->kv_heads = d == 0 ? 1 : s->heads % d ? s->heads : s->heads / d;
  s->hidden = s->heads * pick(r, head_dim, 4);
  static const int thirds[] = {12, 6, 8, 3, 12}; /* the FFN in thirds of hidden: 4 h, 2 h, 8 h / 3 (Llama's), h */
  unsigned f = u8(r) % 5;
  s->ffn = thirds[f] * s->hidden / 3 + (f == 4); /* 4 h + 1: odd */
  s->seq = pick(r, seqs, 5);
  s->vocab = pick(r, vocabs, 5);
  unsigned flags = u8(r);
  s->gated = flags & 1, s->tied = (flags >> 1) & 1;
  s->per = pick(r, per, 3);
  for (int k = 0; k < 9; k++)
    text[k] = NULL;
  if (bad > 231)
    text[bad % 9] = bad % 9 < 7 ? specials[u8(r) % NSPECIAL] : "1";
}

/* The layers of the block s: the embedding, per entries for each transformer layer (the attention,
 * the MLP and the norms: together, in two or in three), the output layer; their params the block's
 * count (worked out here from docs/formats.md, not by sim/transformer.c) times fuzzed factors (all
 * the transformer layers, the embeddings, one transformer layer more); optionally the work keys,
 * their FLOPs the block's times a factor. Byte bad 200..231 adds or drops an entry. */
static void tf_layers(rd* r, buf* j, const shape* s, unsigned bad)
{
  char b[4][64];
  double h = s->hidden, attn = 2 * h * h + 2 * h * (h * s->kv_heads / s->heads), mlp = (s->gated ? 3 : 2) * h * s->ffn,
         vh = (double)s->vocab * h, sq = s->seq;
  double body = factor(r), ends = factor(r);
  int odd = (int)(u8(r) % (unsigned)s->layers);
  double odd_f = factor(r);
  int work = u8(r) != 0;
  double ff = work ? factor(r) : 1;
  /* Per entry of a transformer layer: params and forward FLOPs of a sequence. */
  double part[3][2] = {{attn + 2 * h, sq * (2 * attn + 4 * sq * h)}, {mlp, sq * 2 * mlp}, {0, 0}};
  if (s->per == 2)
    part[0][0] = attn + h, part[1][0] = mlp + h;
  else if (s->per == 3)
    part[0][0] = attn, part[2][0] = 2 * h;
  else
    part[0][0] += mlp, part[0][1] += part[1][1];
  const char* end_f = real(r, 0.0001, b[0], 64);
  const char* end_b = real(r, 0.0002, b[1], 64);
  const char *layer_f = NULL, *layer_b = NULL;
  int n = s->layers * s->per + (bad >= 200 && bad < 232 ? (bad & 1 ? -1 : 1) : 0);
  for (int i = -1; i <= n; i++) {
    double params, flops;
    const char *fs = end_f, *bs = end_b;
    if (i == -1 || i == n) { /* the embedding (no FLOPs), the output layer (2 V h a token) */
      params = i == -1 ? vh * ends : s->tied ? 0 : vh * ends;
      flops = i == -1 ? 0 : sq * 2 * vh * ff;
      bprintf(j, "%s{\"name\": \"%s\"", i == -1 ? "" : ", ", i == -1 ? "embed" : "head");
    } else {
      int layer = i / s->per, e = i % s->per;
      if (e == 0) { /* a transformer layer's times, the same in each of its entries */
        layer_f = real(r, 0.001, b[2], 64);
        layer_b = real(r, 0.002, b[3], 64);
      }
      fs = layer_f, bs = layer_b;
      params = part[e][0] * body * (layer == odd ? odd_f : 1);
      flops = part[e][1] * ff;
      bprintf(j, ", {\"name\": \"b%d_%d\"", layer, e);
    }
    bprintf(j, ", \"fwd_s\": %s, \"bwd_s\": %s, \"params\": %.0f", fs, bs, params);
    if (work)
      bprintf(j,
              ", \"fwd_flops\": %.0f, \"bwd_flops\": %.0f, \"fwd_bytes\": %.0f, \"bwd_bytes\": %.0f, \"act_bytes\": "
              "%.0f, \"fwd_kernels\": 4, \"bwd_kernels\": 8",
              flops, i == -1 ? 0 : 2 * flops, 16 * sq * h, 32 * sq * h, 32 * sq * h);
    bprintf(j, "}");
  }
}

/* The "transformer" block of s, a key with a special where text[k] says. */
static void tf_block(buf* j, const shape* s, const char* text[9])
{
  static const char* const keys[] = {"layers", "hidden", "heads",     "kv_heads",       "ffn",
                                     "seq",    "vocab",  "gated_ffn", "tied_embeddings"};
  const int v[] = {s->layers, s->hidden, s->heads, s->kv_heads, s->ffn, s->seq, s->vocab, s->gated, s->tied};
  bprintf(j, ", \"transformer\": {");
  for (int k = 0; k < 9; k++) {
    bprintf(j, "%s\"%s\": ", k ? ", " : "", keys[k]);
    if (text[k])
      bprintf(j, "%s", text[k]);
    else if (k < 7)
      bprintf(j, "%d", v[k]);
    else
      bprintf(j, "%s", v[k] ? "true" : "false");
  }
  bprintf(j, "}");
}

/* The workload: 1 to 4 layers, or (flags bit 3) a transformer's (tf_layers, its block in s),
 * optionally a measured device entry for the second GPU model. */
static void workload(rd* r, buf* j, shape* s)
{
  char b[8][64];
  unsigned flags = u8(r);
  int nlayers = 1 + (int)(flags % 4);
  const char* v[5];
  const char* text[9];
  unsigned bad = 0;
  v[0] = whole(r, 8, 64, b[0], 64);
  v[1] = real(r, 4, b[1], 64);
  v[2] = real(r, 1e13, b[2], 64);
  v[3] = whole(r, 8, 64, b[3], 64);
  v[4] = real(r, 0.0005, b[4], 64);
  bprintf(
      j,
      "{\"schema\": \"stash-sim-workload/1\", \"model\": \"fz\", \"precision\": \"fp32\", \"batch_per_gpu\": %s,"
      " \"grad_bytes_per_param\": %s, \"reference\": {\"gpu_model\": \"fz-gpu-a\", \"gpu_flops\": %s, \"batch\": %s},"
      " \"optimizer_s\": %s, \"layers\": [",
      v[0], v[1], v[2], v[3], v[4]);
  if (flags & 8) {
    bad = u8(r);
    tf_shape(r, s, bad, text);
    tf_layers(r, j, s, bad);
  } else
    for (int i = 0; i < nlayers; i++) {
      v[0] = real(r, 0.001, b[0], 64);
      v[1] = real(r, 0.002, b[1], 64);
      v[2] = real(r, 1e6, b[2], 64);
      bprintf(j, "%s{\"name\": \"l%d\", \"fwd_s\": %s, \"bwd_s\": %s, \"params\": %s}", i ? ", " : "", i, v[0], v[1],
              v[2]);
    }
  bprintf(j, "]");
  if (s->on)
    tf_block(j, s, text);
  v[0] = real(r, 1000, b[0], 64);
  v[1] = real(r, 1e5, b[1], 64);
  v[2] = real(r, 0.002, b[2], 64);
  v[3] = real(r, 602112, b[3], 64);
  bprintf(j,
          ", \"dataset\": {\"name\": \"d\", \"samples\": %s, \"bytes_per_sample\": %s, \"prep_cpu_s_per_sample\": %s,"
          " \"decoded_bytes_per_sample\": %s}",
          v[0], v[1], v[2], v[3]);
  if (flags & 4) {
    v[0] = real(r, 1, b[0], 64);
    v[1] = real(r, 1, b[1], 64);
    bprintf(j,
            ", \"devices\": [{\"gpu_model\": \"fz-gpu-b\", \"fwd_s\": %s, \"bwd_s\": %s, \"reference_fwd_s\": 1,"
            " \"reference_bwd_s\": 1, \"source\": \"fuzz\"}]",
            v[0], v[1]);
  }
  bprintf(j, ", \"provenance\": {}}\n");
}

/* The command line, as owned strings. */
typedef struct args {
  int n;
  char* v[64];
} args;

static void arg(args* a, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void arg(args* a, const char* fmt, ...)
{
  if (a->n >= 63)
    return;
  va_list ap;
  va_start(ap, fmt);
  ss_assert(vasprintf(&a->v[a->n], fmt, ap) >= 0);
  va_end(ap);
  a->v[++a->n] = NULL;
}

/* Options whose values drive the cost of a run: the fuzzer keeps them small. */
static const struct {
  const char* name;
  long max;
} small[] = {{"iterations", 3}, {"warmup", 2},       {"instances", 4},     {"gpus", 8},
             {"servers", 4},    {"server-hosts", 4}, {"iters", 3},         {"metric-allreduces", 4},
             {"workers", 4},    {"prefetch", 4},     {"launch-queue", 64}, {"batch", 64},
             {"seed", 100},     {"micro-batch", 8},  {"global-batch", 64}, {"virtual-stages", 4},
             {"tp", 8},         {"pp", 8},           {"grad-accum", 16}};

/* Options the target sets itself or that write files. */
static int skipped(const ss_optdef* d)
{
  static const char* const names[] = {"format", "verbose", "stash", "iterations", "warmup", "output", "trace"};
  if (d->positional || d->kind == SS_KIND_PATH)
    return 1;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    if (strcmp(d->name, names[i]) == 0)
      return 1;
  return 0;
}

/* A value of option d as text (empty for a switch outside whatif). */
static const char* value(rd* r, const ss_optdef* d, int whatif, char* out, size_t size)
{
  for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
    if (strcmp(d->name, small[i].name) == 0)
      return whole(r, d->dflt > 0 ? (long)d->dflt : 1, small[i].max, out, size);
  unsigned k;
  switch (d->kind) {
    case SS_KIND_SWITCH: return whatif ? (u8(r) & 1 ? "off" : "on") : "";
    case SS_KIND_ENUM: {
      int n = 0;
      while (d->values[n])
        n++;
      k = u8(r) % (unsigned)(n + 1);
      return (int)k < n ? d->values[k] : "bogus";
    }
    case SS_KIND_COUNT:
      return whole(r, d->dflt > 0 ? (long)d->dflt : 1, d->max < 1000 ? (long)d->max : 1000, out, size);
    default:
      k = u8(r);
      if (k == 250)
        snprintf(out, size, "%.17g", d->min);
      else if (k == 251)
        snprintf(out, size, "%.17g", d->max);
      else if (k == 252)
        snprintf(out, size, "%.17g", nextafter(d->min, d->max));
      else
        return real_k(k, d->dflt > 0 ? d->dflt : d->max > 1 ? 1 : d->max / 2, out, size);
      return out;
  }
}

/* --tp and --pp of the block s on g GPUs: by default among 1..4 those that divide the GPUs and what
 * they split (the tp of byte kt, the pp of byte kp, nominally 1 and the most stages); raw: any. */
static void split(const shape* s, int g, int raw, unsigned kt, unsigned kp, int* tp, int* pp)
{
  int c[4], n = 0;
  if (raw) {
    *tp = 1 + (int)(kt % 4), *pp = 1 + (int)(kp % 4);
    return;
  }
  for (int t = 1; t <= 4; t++)
    if (g % t == 0 && s->heads % t == 0 && s->kv_heads % t == 0 && s->hidden % t == 0 && s->ffn % t == 0)
      c[n++] = t;
  *tp = c[kt % (unsigned)n];
  n = 0;
  for (int p = 4; p >= 1; p--)
    if ((g / *tp) % p == 0 && p <= s->layers)
      c[n++] = p;
  *pp = c[kp % (unsigned)n];
}

/* --partition: the layers of each of n pieces, each 1 and the rest placed by bytes; with broken, one
 * count moved by one (a sum that is not the layers, or a piece of none). */
static void partition(rd* r, args* a, int layers, int n, int broken)
{
  int c[16];
  for (int i = 0; i < n; i++)
    c[i] = 1;
  for (int rest = layers - n; rest > 0; rest--)
    c[u8(r) % (unsigned)n]++;
  if (broken)
    c[u8(r) % (unsigned)n] += broken > 0 ? 1 : -1;
  buf t = {0};
  for (int i = 0; i < n; i++)
    bprintf(&t, "%s%d", i ? "," : "", c[i]);
  arg(a, "--partition"), arg(a, "%s", t.s);
  free(t.s);
}

/* The layout of a run of the transformer s on a platform of gpus GPUs: --tp and --pp (split), then
 * by the bits of two bytes --instances, --schedule (and with interleaved --virtual-stages),
 * --micro-batch, --global-batch (a multiple of micro-batch x data-parallel size, or one more) or
 * --grad-accum, --partition, --recompute, --sequence-parallel, --distributed-optimizer,
 * --rank-order, --tokens, --ignore-memory. Raw (a bit): values that need not fit. All of them small.
 * Without raw, one GPU gets --instances 2, and --tp 1 --pp 1 only --grad-accum, --tokens and
 * --ignore-memory. */
static void layout(rd* r, args* a, const shape* s, int gpus)
{
  char b[64];
  unsigned use = u8(r), more = u8(r);
  int raw = more & 1, inst = 1, tp, pp, v = 1;
  if (more & 2)
    inst = 1 + (int)(u8(r) % 4);
  if (!raw && gpus * inst == 1) /* a split needs GPUs */
    inst = 2;
  if (inst > 1)
    arg(a, "--instances"), arg(a, "%d", inst);
  unsigned kt = u8(r), kp = u8(r), ks = u8(r) % 4;
  split(s, gpus * inst, raw, kt, kp, &tp, &pp);
  arg(a, "--tp"), arg(a, "%d", tp), arg(a, "--pp"), arg(a, "%d", pp);
  int mp = raw || tp * pp > 1;
  if (!mp) /* data parallelism: without the options that need --tp or --pp above 1 */
    use &= 4, ks = 0;
  static const char* const sched[] = {NULL, "1f1b", "gpipe", "interleaved"};
  if (sched[ks])
    arg(a, "--schedule"), arg(a, "%s", sched[ks]);
  if (ks == 3) { /* chunks: without raw, 2..4 that the layers fit (evenly, unless byte kv's bit 0) */
    unsigned kv = u8(r);
    int c[3], n = 0;
    for (int k = 2; k <= 4; k++)
      if (pp * k <= s->layers && (s->layers % (pp * k) == 0 || (kv & 1)))
        c[n++] = k;
    v = raw ? 1 + (int)(kv % 4) : n ? c[(kv >> 1) % (unsigned)n] : 2;
    arg(a, "--virtual-stages"), arg(a, "%d", v);
  }
  int mb = 1 + (int)(u8(r) % 4), m = 1 + (int)(u8(r) % 8), d = (gpus * inst) % (tp * pp) ? 1 : gpus * inst / (tp * pp);
  if (ks == 3 && !raw) /* interleaved runs its micro-batches in groups of the stages */
    m = pp * (1 + m % 3);
  unsigned batch = (use >> 1) & 3;
  if (batch == 0 && ks == 3 && !raw)
    batch = 1;
  if (mp && (batch != 2 || (use & 1)))
    arg(a, "--micro-batch"), arg(a, "%d", mb);
  if (batch == 1 || batch == 3)
    arg(a, "--global-batch"), arg(a, "%d", mb * d * m + (batch == 3));
  else if (batch == 2)
    arg(a, "--grad-accum"), arg(a, "%d", m);
  if (use & 8)
    partition(r, a, s->layers, pp * v, more & 4 ? (more & 8 ? 1 : -1) : 0);
  if (use & 16)
    arg(a, "--recompute"), arg(a, "%s", ss_recompute_names[u8(r) % 3]);
  if ((use & 32) && (raw || tp > 1))
    arg(a, "--sequence-parallel");
  if (use & 64)
    arg(a, "--distributed-optimizer");
  if (use & 128)
    arg(a, "--rank-order"), arg(a, "%s", ss_rank_order_names[u8(r) % 6]);
  if (more & 16)
    arg(a, "--tokens"), arg(a, "%s", real(r, 1e7, b, sizeof(b)));
  if (more & 32)
    arg(a, "--ignore-memory");
}

/* The command: run (most), run --stash, bench allreduce or whatif, then up to 7 fuzzed options (of
 * a transformer's, none of the data-parallel engine's); a run or whatif of a transformer (s) then
 * its layout options (layout). */
static void command(rd* r, args* a, const char* plat, const char* work, const shape* s, int gpus)
{
  char b[64];
  unsigned c = u8(r) % 16;
  unsigned cmd = c < 11 ? SS_CMD_RUN : c < 12 ? SS_CMD_RUN : c < 14 ? SS_CMD_BENCH : SS_CMD_WHATIF;
  arg(a, "stash-sim");
  if (cmd == SS_CMD_BENCH)
    arg(a, "bench"), arg(a, "allreduce"), arg(a, "%s", plat);
  else {
    if (cmd == SS_CMD_WHATIF)
      arg(a, "whatif");
    arg(a, "%s", plat), arg(a, "%s", work);
    arg(a, "--iterations"), arg(a, "%u", 1 + u8(r) % 3);
    arg(a, "--warmup"), arg(a, "%u", u8(r) % 2);
    if (c == 11)
      arg(a, "--stash");
  }
  if (cmd == SS_CMD_BENCH)
    arg(a, "--max-bytes"), arg(a, "%s", real(r, 1 << 20, b, sizeof(b)));
  arg(a, "--format"), arg(a, "json");
  int nopt = (int)(u8(r) % 8), nrows = ss_option_count();
  for (int i = 0; i < nopt; i++) {
    const ss_optdef* d = &ss_option_table[u8(r) % (unsigned)nrows];
    /* A transformer's layout splits it (mostly): the data-parallel engine's options would only refuse it. */
    if (skipped(d) || !(d->commands & cmd) || (s->on && (d->needs & SS_NEEDS_DP)))
      continue;
    const char* v = value(r, d, 0, b, sizeof(b));
    arg(a, "--%s", d->name);
    if (d->kind != SS_KIND_SWITCH)
      arg(a, "%s", v);
  }
  if (s->on && cmd != SS_CMD_BENCH)
    layout(r, a, s, gpus);
  if (cmd == SS_CMD_WHATIF) {
    int nchange = 1 + (int)(u8(r) % 2);
    for (int i = 0; i < nchange; i++) {
      const ss_optdef* d = &ss_option_table[u8(r) % (unsigned)nrows];
      if (!d->whatif_key || d->kind == SS_KIND_PATH)
        d = ss_option_by_name("gpus");
      const char* v = value(r, d, 1, b, sizeof(b));
      arg(a, "--change"), arg(a, "%s=%s", d->whatif_key, v);
    }
  }
}

/* The working folder of this process: the platform, workload, report and stderr of each input. */
static char dir[256];
static char plat_path[300], work_path[300], out_path[300], err_path[300];

static void cleanup(void)
{
  if (getenv("FUZZ_PIPELINE_KEEP")) /* the files of the last input, to look at */
    return;
  /* Besides the four files: the sanitizers' logs of forked grandchildren (whatif, --stash). */
  DIR* d = opendir(dir);
  for (struct dirent* e; d && (e = readdir(d));) {
    char path[600];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if (e->d_name[0] != '.')
      unlink(path);
  }
  if (d)
    closedir(d);
  rmdir(dir);
}

static void setup(void)
{
  if (dir[0])
    return;
  const char* tmp = getenv("TMPDIR");
  snprintf(dir, sizeof(dir), "%s/stash-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  ss_assert(mkdtemp(dir));
  snprintf(plat_path, sizeof(plat_path), "%s/platform.xml", dir);
  snprintf(work_path, sizeof(work_path), "%s/workload.json", dir);
  snprintf(out_path, sizeof(out_path), "%s/out.json", dir);
  snprintf(err_path, sizeof(err_path), "%s/stderr.txt", dir);
  atexit(cleanup);
}

static void write_file(const char* path, const char* s, size_t n)
{
  FILE* f = fopen(path, "w");
  ss_assert(f && fwrite(s, 1, n, f) == n && fclose(f) == 0);
}

static char* read_file(const char* path, size_t* len)
{
  FILE* f = fopen(path, "r");
  buf b = {0};
  bprintf(&b, "%s", "");
  if (f) {
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
      bprintf(&b, "%.*s", (int)got, chunk);
    fclose(f);
  }
  *len = b.len;
  return b.s;
}

/* Whether every figure of the report is a finite number: a null is one that was not (an
 * option's null in the "options" echo is "not given", gpu_memory_bytes's null "not known"; a
 * non-finite figure printed as nan or inf makes the report fail to parse). */
static int finite_json(const cJSON* j)
{
  if (cJSON_IsNull(j))
    return j->string && strcmp(j->string, "gpu_memory_bytes") == 0;
  if (cJSON_IsNumber(j) && !isfinite(j->valuedouble))
    return 0;
  for (const cJSON* c = j->child; c; c = c->next)
    if (!(c->string && strcmp(c->string, "options") == 0) && !finite_json(c))
      return 0;
  return 1;
}

/* Run the command in a child with a time limit. Returns the wait status, or -1 on a time-out. */
static int run_child(args* a, double* took, pid_t* child)
{
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = fork();
  ss_assert(pid >= 0);
  *child = pid;
  if (pid == 0) {
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600),
        err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
      _exit(120);
    setpgid(0, 0);
    /* The contract is about the binary's own messages: leaks at exit (SimGrid's) are left out, and
     * the sanitizers' reports (and ASan's warning about SimGrid's context switches) go to a file of
     * their own; an error they find still ends the child with SIGABRT. */
    char asan[400];
    snprintf(asan, sizeof(asan), "detect_leaks=0:abort_on_error=1:log_path=%s/asan", dir);
    setenv("ASAN_OPTIONS", asan, 1);
    snprintf(asan, sizeof(asan), "print_stacktrace=1:log_path=%s/ubsan", dir);
    setenv("UBSAN_OPTIONS", asan, 1);
    execv(FUZZ_STASH_SIM, a->v);
    _exit(121);
  }
  const char* t = getenv("FUZZ_PIPELINE_TIMEOUT");
  double limit = t ? atof(t) : 10;
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *took = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (w == pid)
      return status;
    if (*took > limit) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    usleep(*took < 0.05 ? 200 : 2000);
  }
}

/* The sanitizers' report of the child pid (removed), as one line: its SUMMARY, else its first
 * ERROR line; empty if none. */
static void sanitizer_line(pid_t pid, char* line, size_t size)
{
  line[0] = '\0';
  static const char* const logs[] = {"asan", "ubsan"};
  for (int k = 0; k < 2; k++) {
    char path[400];
    snprintf(path, sizeof(path), "%s/%s.%d", dir, logs[k], (int)pid);
    size_t len = 0;
    char* text = read_file(path, &len);
    unlink(path);
    const char* hit = strstr(text, "SUMMARY:");
    if (!hit)
      hit = strstr(text, "ERROR:");
    if (!hit)
      hit = strstr(text, "runtime error:");
    if (hit && !line[0])
      snprintf(line, size, "%.*s", (int)strcspn(hit, "\n"), hit);
    free(text);
  }
}

/* The finding of this input: a short kind, and a signature that tells distinct findings apart. */
static void finding(const uint8_t* data, size_t size, const args* a, const char* kind, const char* detail,
                    const char* plat, size_t plen, const char* work, size_t wlen)
{
  char sig[512];
  size_t k = 0;
  k += (size_t)snprintf(sig, sizeof(sig), "%s: ", kind);
  /* The line that says what went wrong, when a warning comes first. */
  static const char* const keys[] = {"CRITICAL", "error", "Assertion", "assert"};
  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
    const char* hit = strstr(detail, keys[i]);
    if (hit) {
      while (hit > detail && hit[-1] != '\n')
        hit--;
      detail = hit;
      break;
    }
  }
  /* Digits, temporary paths, names in quotes and hex addresses do not tell findings apart. */
  for (const char* s = detail; *s && *s != '\n' && k < sizeof(sig) - 2; s++) {
    if (*s == '\'' && strchr(s + 1, '\'') && !memchr(s + 1, '\n', (size_t)(strchr(s + 1, '\'') - s - 1))) {
      s = strchr(s + 1, '\'');
      k += (size_t)snprintf(sig + k, sizeof(sig) - k, "'?'");
    } else if (strncmp(s, "link ", 5) == 0 && s[5] && s[5] != ' ') { /* SimGrid's unquoted link names */
      s += 5 + strcspn(s + 5, " ") - 1;
      k += (size_t)snprintf(sig + k, sizeof(sig) - k, "link ?");
    } else if (strncmp(s, "/tmp/", 5) == 0) { /* the binary's own temporary files */
      s += strcspn(s, ": \n") - 1;
      sig[k++] = '@';
    } else if (strncmp(s, dir, strlen(dir)) == 0) {
      s += strlen(dir) - 1;
      sig[k++] = '@';
    } else if (*s >= '0' && *s <= '9') {
      if (k == 0 || sig[k - 1] != '#')
        sig[k++] = '#';
    } else
      sig[k++] = *s;
  }
  sig[k] = '\0';
  const char* record = getenv("FUZZ_PIPELINE_FINDINGS");
  if (!record) {
    fprintf(stderr, "fuzz_pipeline: %s\ncommand:", sig);
    for (int i = 0; i < a->n; i++)
      fprintf(stderr, " '%s'", a->v[i]);
    fprintf(stderr, "\n");
    abort();
  }
  unsigned long h = 5381;
  for (const char* s = sig; *s; s++)
    h = h * 33 + (unsigned char)*s;
  char path[1024];
  snprintf(path, sizeof(path), "%s/%08lx", record, h & 0xffffffffUL);
  if (mkdir(record, 0755) != 0 && errno != EEXIST)
    return;
  if (mkdir(path, 0755) != 0) { /* already recorded: keep the shorter input */
    char in[1100];
    snprintf(in, sizeof(in), "%s/input", path);
    struct stat st;
    if (stat(in, &st) != 0 || (size_t)st.st_size <= size)
      return;
  } else {
    char idx[1100];
    snprintf(idx, sizeof(idx), "%s/index.txt", record);
    FILE* f = fopen(idx, "a");
    if (f) {
      fprintf(f, "%08lx %s\n", h & 0xffffffffUL, sig);
      fclose(f);
    }
  }
  char p[1100];
  snprintf(p, sizeof(p), "%s/input", path);
  write_file(p, (const char*)data, size);
  snprintf(p, sizeof(p), "%s/platform.xml", path);
  write_file(p, plat, plen);
  snprintf(p, sizeof(p), "%s/workload.json", path);
  write_file(p, work, wlen);
  buf c = {0};
  bprintf(&c, "# %s\n# stderr or detail: %s\n", sig, detail);
  for (int i = 0; i < a->n; i++) {
    const char* v = a->v[i];
    if (strcmp(v, plat_path) == 0)
      v = "platform.xml";
    else if (strcmp(v, work_path) == 0)
      v = "workload.json";
    else if (i == 0)
      v = "stash-sim";
    bprintf(&c, "%s'%s'", i ? " " : "", v);
  }
  bprintf(&c, "\n");
  snprintf(p, sizeof(p), "%s/command", path);
  write_file(p, c.s, c.len);
  free(c.s);
}

/* With FUZZ_PIPELINE_SHOW, the line of a refusal by the validation layer. */
static void show_refusal(const char* line)
{
  if (getenv("FUZZ_PIPELINE_SHOW"))
    fprintf(stderr, "refused: %s\n", line);
}

/* The validation layer of stash-sim's main, in this process: 1 if it accepts the command. */
static int validate(args* a)
{
  ss_cli cli;
  char msg[1024];
  int accepted = 0;
  int rc = ss_cli_parse(a->n, a->v, &cli, msg, sizeof(msg));
  if (rc) {
    ss_assert(rc == SS_EXIT_USAGE || rc == SS_EXIT_RESOURCE);
    ss_assert(msg[0] && !strchr(msg, '\n'));
    show_refusal(msg);
    ss_cli_free(&cli);
    return 0;
  }
  /* What main does before the simulation (sim/main.c), for the run and bench commands. */
  ss_platform* p = NULL;
  ss_workload* w = NULL;
  ss_stash* stash = NULL;
  ss_job* job = NULL;
  ss_err err;
  ss_err_clear(&err);
  if (ss_platform_load(cli.opt.platform_path, &p, &err) || (ss_transport_prepare(p, &cli.opt) && ss_err_nomem(&err)))
    goto done;
  if (cli.cmd == SS_CMD_BENCH) {
    accepted = 1; /* its job has a stand-in workload: the binary plans it */
    goto done;
  }
  if (ss_workload_load(cli.opt.workload_path, &w, &err))
    goto done;
  if (cli.opt.stash ? ss_stash_plan(p, w, &cli.opt, &cli.given, cli.opt.stash_single, &stash, &err)
                    : ss_derive_job(p, w, &cli.opt, &job, &err))
    goto done;
  accepted = 1;
done:
  if (!accepted) {
    fuzz_check_error(&err);
    ss_err_format(&err, msg, sizeof(msg));
    show_refusal(msg);
  }
  ss_stash_free(stash);
  ss_job_free(job);
  ss_workload_free(w);
  ss_platform_free(p);
  ss_cli_free(&cli);
  return accepted;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  setup();
  rd r = {data, size};
  buf x = {0}, j = {0};
  args a = {0};
  shape s = {0};
  int gpus = platform(&r, &x);
  workload(&r, &j, &s);
  command(&r, &a, plat_path, work_path, &s, gpus);
  write_file(plat_path, x.s, x.len);
  write_file(work_path, j.s, j.len);
  if (getenv("FUZZ_PIPELINE_SHOW")) {
    for (int i = 0; i < a.n; i++)
      fprintf(stderr, "%s'%s'", i ? " " : "", a.v[i]);
    fprintf(stderr, "\n");
  }
  if (validate(&a)) {
    double took = 0;
    pid_t pid = 0;
    int st = run_child(&a, &took, &pid);
    char san[300];
    sanitizer_line(pid, san, sizeof(san));
    size_t elen = 0, olen = 0;
    char* errs = read_file(err_path, &elen);
    char* out = read_file(out_path, &olen);
    char kind[64], detail[600];
    kind[0] = '\0';
    int lines = 0;
    for (size_t i = 0; i < elen; i++)
      lines += errs[i] == '\n';
    snprintf(detail, sizeof(detail), "%.500s", errs);
    if (st == -1)
      snprintf(kind, sizeof(kind), "time-out");
    else if (WIFSIGNALED(st)) {
      snprintf(kind, sizeof(kind), "signal %d", WTERMSIG(st));
      if (san[0])
        snprintf(detail, sizeof(detail), "%s", san);
    } else if (WEXITSTATUS(st) == 0) {
      cJSON* rep = cJSON_Parse(out);
      const cJSON* it = cJSON_GetObjectItemCaseSensitive(rep, "iteration_s");
      if (!rep)
        snprintf(kind, sizeof(kind), "exit 0, report not JSON"), snprintf(detail, sizeof(detail), "%.200s", out);
      else if (!finite_json(rep))
        snprintf(kind, sizeof(kind), "exit 0, non-finite figure"), snprintf(detail, sizeof(detail), "%s", "");
      else if (it && !(it->valuedouble > 0))
        snprintf(kind, sizeof(kind), "exit 0, iteration_s not positive"), snprintf(detail, sizeof(detail), "%s", "");
      else if (elen)
        snprintf(kind, sizeof(kind), "exit 0 with stderr");
      cJSON_Delete(rep);
    } else if (WEXITSTATUS(st) > 3)
      snprintf(kind, sizeof(kind), "exit %d", WEXITSTATUS(st));
    else if (lines != 1 || errs[elen - 1] != '\n')
      snprintf(kind, sizeof(kind), "exit %d, %d lines on stderr", WEXITSTATUS(st), lines);
    if (getenv("FUZZ_PIPELINE_SHOW"))
      fprintf(stderr, "accepted: status %d in %.3f s%s%s\n", st, took, kind[0] ? ", finding: " : "", kind);
    if (kind[0])
      finding(data, size, &a, kind, detail, x.s, x.len, j.s, j.len);
    free(errs);
    free(out);
  }
  for (int i = 0; i < a.n; i++)
    free(a.v[i]);
  free(x.s);
  free(j.s);
  return 0;
}
