/* cal_nccl: stash-calibrate nccl: fit latency and bandwidth to nccl-tests all_reduce_perf output,
 * and optionally rescale a platform's GPU links to the fit. */
#include "cal.h"
#include "cal_cli.h"
#include "cal_rescale.h"
#include "cal_text.h"

#include "array.h"
#include "outfile.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One measurement: an allreduce of bytes took time_s (out-of-place, or derived from a busbw). */
typedef struct point {
  double bytes;
  double time_s;
  double busbw_bytes_per_s; /* > 0 for a 'size busbw' pair, whose time needs the ranks */
} point;

typedef struct source {
  const char* path;
  int table_rows; /* rows of the all_reduce_perf table */
  int pair_rows;  /* 'size busbw_GBps' pairs */
  int ranks;      /* from its '# Rank N ...' lines, 0 when it has none */
} source;

typedef struct nccl_data {
  point* pts;
  int n;
  size_t cap;
  source* src;
  int nsrc;
  int ranks;
  const char* ranks_from; /* "--ranks" or the file whose '# Rank' lines gave them */
} nccl_data;

/* The fit: time = alpha_s + bytes / algbw_bytes_per_s. */
typedef struct nccl_fit {
  double alpha_s, algbw_bytes_per_s, busbw_bytes_per_s;
  double rms_rel, max_rel;
  int clamped; /* the unconstrained alpha was negative: refitted with alpha = 0 */
} nccl_fit;

static const char table_form[] = "size count type redop [root] time algbw busbw #wrong time algbw busbw #wrong";

static int add_point(nccl_data* d, double bytes, double time_s, double busbw_bytes_per_s)
{
  point* p = ss_array_grow(d->pts, &d->cap, (size_t)d->n + 1, sizeof(point), 64);
  if (!p)
    return SS_ENOMEM;
  d->pts = p;
  d->pts[d->n++] = (point){bytes, time_s, busbw_bytes_per_s};
  return SS_OK;
}

static int size_field(const char* path, int line, const char* s, double* bytes, ss_err* err)
{
  long long v;
  if (cal_integer(s, &v) || v < 0)
    return ss_err_set(err, path, line, "size '%s' is not a whole number of bytes", s);
  *bytes = (double)v;
  return SS_OK;
}

/* A row of all_reduce_perf's table (12 fields, or 13 with the root column of newer versions). */
static int table_row(const char* path, int line, char** f, int nf, nccl_data* d, ss_err* err)
{
  double bytes = 0, t_us, x;
  long long count, root;
  int k = nf == 13 ? 5 : 4; /* first field of the out-of-place columns */
  if (size_field(path, line, f[0], &bytes, err))
    return SS_EINPUT;
  if (cal_integer(f[1], &count) || count < 0)
    return ss_err_set(err, path, line, "count '%s' is not a whole number of elements", f[1]);
  if (!cal_number(f[2], &x) || !cal_number(f[3], &x))
    return ss_err_set(err, path, line, "fields 3 and 4 must be a data type and a reduction (float sum), got '%s %s'",
                      f[2], f[3]);
  if (strcmp(f[3], "none") == 0)
    return ss_err_set(err, path, line, "reduction 'none': not an allreduce (all_gather_perf or a similar test?)");
  if (nf == 13 && (cal_integer(f[4], &root) || root != -1))
    return ss_err_set(err, path, line, "root '%s': a rooted collective (reduce, broadcast), not an allreduce", f[4]);
  if (cal_number(f[k], &t_us) || t_us <= 0)
    return ss_err_set(err, path, line, "out-of-place time '%s' is not a positive number of microseconds", f[k]);
  for (int i = k + 1; i < k + 3; i++)
    if (cal_number(f[i], &x) || x < 0)
      return ss_err_set(err, path, line, "out-of-place %s '%s' is not a number of GB/s", i == k + 1 ? "algbw" : "busbw",
                        f[i]);
  /* Newer versions count wrong elements; older ones print the largest error (5e-07 is normal for a
   * float sum) and say whether it was out of bounds at the end of the run. */
  if (strcmp(f[k + 3], "N/A") != 0 && (cal_number(f[k + 3], &x) || x < 0))
    return ss_err_set(err, path, line, "%s '%s' is neither a number nor N/A", nf == 13 ? "#wrong" : "error", f[k + 3]);
  if (nf == 13 && strcmp(f[k + 3], "N/A") != 0 && x > 0)
    return ss_err_set(err, path, line, "the run reports %s wrong elements: its results failed the check", f[k + 3]);
  return add_point(d, bytes, t_us * 1e-6, 0) ? ss_err_nomem(err) : SS_OK;
}

static int pair_row(const char* path, int line, char** f, nccl_data* d, ss_err* err)
{
  double bytes = 0, gbps;
  if (size_field(path, line, f[0], &bytes, err))
    return SS_EINPUT;
  if (bytes <= 0)
    return ss_err_set(err, path, line, "size 0: a pair needs a positive size");
  if (cal_number(f[1], &gbps) || gbps <= 0)
    return ss_err_set(err, path, line, "busbw '%s' is not a positive number of GB/s", f[1]);
  return add_point(d, bytes, 0, gbps * 1e9) ? ss_err_nomem(err) : SS_OK;
}

/* One line of data: a table row, or one or more pairs separated by '|'. */
static int data_line(source* s, int line, char* text, nccl_data* d, ss_err* err)
{
  for (char* seg = text; seg;) {
    char* bar = strchr(seg, '|');
    if (bar)
      *bar = '\0';
    char* f[16];
    int nf = cal_fields(seg, f, 16);
    int before = d->n;
    if (nf == 12 || nf == 13) {
      if (table_row(s->path, line, f, nf, d, err))
        return SS_EINPUT;
    } else if (nf == 2) {
      if (pair_row(s->path, line, f, d, err))
        return SS_EINPUT;
    } else if (nf != 0) {
      return ss_err_set(err, s->path, line,
                        "%d field%s: expected a result row of all_reduce_perf (%s) or 'size busbw_GBps' "
                        "pairs, or a comment starting with '#'",
                        nf, nf == 1 ? "" : "s", table_form);
    }
    s->table_rows += (nf == 12 || nf == 13) && d->n > before;
    s->pair_rows += nf == 2 && d->n > before;
    seg = bar ? bar + 1 : NULL;
  }
  return SS_OK;
}

static int read_log(source* s, nccl_data* d, ss_err* err)
{
  cal_lines lines;
  if (cal_lines_read(s->path, "nccl-tests log", &lines, err))
    return SS_EINPUT;
  int rc = SS_OK;
  for (int i = 0; i < lines.n && !rc; i++) {
    char* t = lines.line[i] + strspn(lines.line[i], " \t");
    int rank = -1;
    if (*t == '#') {
      /* "#  Rank  0 Group  0 Pid 1234 on host device  0 [0x1a] ...": one line per rank */
      int bad = 0;
      if (sscanf(t, "# Rank %d", &rank) == 1 && rank >= 0 && rank + 1 > s->ranks)
        s->ranks = rank + 1;
      /* "# Out of bounds values : 0 OK" ends every run */
      else if (sscanf(t, "# Out of bounds values : %d", &bad) == 1 && bad > 0)
        rc = ss_err_set(err, s->path, i + 1, "the run reports %d out-of-bounds values: its results failed the check",
                        bad);
      continue;
    }
    if (strstr(t, "] NCCL ")) /* NCCL_DEBUG output: "host:pid:tid [0] NCCL INFO ..." */
      continue;
    rc = data_line(s, i + 1, t, d, err);
  }
  cal_lines_free(&lines);
  if (!rc && s->table_rows + s->pair_rows == 0)
    rc = ss_err_set(err, s->path, 0,
                    "no result rows: expected the table of nccl-tests all_reduce_perf (%s) or "
                    "'size busbw_GBps' pairs",
                    table_form);
  return rc;
}

/* The ranks: --ranks, or the logs' '# Rank' lines, which must agree. Returns 0, SS_EINPUT with the
 * message in err, or 2 when neither gives them (a usage error: --ranks is missing). */
static int resolve_ranks(nccl_data* d, int opt_ranks, ss_err* err)
{
  d->ranks = opt_ranks;
  d->ranks_from = opt_ranks ? "--ranks" : NULL;
  for (int i = 0; i < d->nsrc; i++) {
    const source* s = &d->src[i];
    if (!s->ranks)
      continue;
    if (!d->ranks) {
      d->ranks = s->ranks;
      d->ranks_from = s->path;
    } else if (s->ranks != d->ranks) {
      return ss_err_set(err, s->path, 0, "%d ranks in its '# Rank' lines, but %d from %s: one setup per fit", s->ranks,
                        d->ranks, d->ranks_from);
    }
  }
  if (!d->ranks)
    return 2;
  if (d->ranks < 2)
    return ss_err_set(err, d->ranks_from, 0, "1 rank: an allreduce needs 2 ranks or more");
  /* nccl-tests: busbw = algbw x 2(n-1)/n, algbw = bytes / time */
  for (int i = 0; i < d->n; i++)
    if (d->pts[i].busbw_bytes_per_s > 0)
      d->pts[i].time_s = d->pts[i].bytes / (d->pts[i].busbw_bytes_per_s * d->ranks / (2.0 * (d->ranks - 1)));
  return SS_OK;
}

/* Least squares on relative errors: minimise sum ((alpha + b x_i) / t_i - 1)^2, b = 1/algbw. The
 * sizes span decades, and plain least squares on times would leave alpha to the noise of the
 * largest transfers. Columns are scaled to unit norm before the 2x2 normal equations. */
static int fit(const nccl_data* d, nccl_fit* f, ss_err* err)
{
  double suu = 0, svv = 0, suv = 0, su = 0, sv = 0;
  int distinct = 0;
  for (int i = 0; i < d->n; i++) {
    double u = 1 / d->pts[i].time_s, v = d->pts[i].bytes / d->pts[i].time_s;
    suu += u * u, svv += v * v, suv += u * v, su += u, sv += v;
    distinct |= d->pts[i].bytes != d->pts[0].bytes;
  }
  if (!distinct)
    return ss_err_set(err, d->src[0].path, 0, "all %d rows have the same size: a fit needs two sizes or more", d->n);
  double nu = sqrt(suu), nv = sqrt(svv), c = suv / (nu * nv), det = 1 - c * c;
  double a = (su / nu - c * sv / nv) / det / nu;
  double b = (sv / nv - c * su / nu) / det / nv;
  memset(f, 0, sizeof(*f));
  if (a < 0) { /* a negative latency means nothing: the best fit through the origin instead */
    a = 0;
    b = sv / svv;
    f->clamped = 1;
  }
  if (!(b > 0))
    return ss_err_set(err, d->src[0].path, 0, "the time does not grow with the size: no bandwidth to fit");
  f->alpha_s = a;
  f->algbw_bytes_per_s = 1 / b;
  f->busbw_bytes_per_s = f->algbw_bytes_per_s * 2.0 * (d->ranks - 1) / d->ranks;
  for (int i = 0; i < d->n; i++) {
    double e = (a + b * d->pts[i].bytes) / d->pts[i].time_s - 1;
    f->rms_rel += e * e;
    f->max_rel = fmax(f->max_rel, fabs(e));
  }
  f->rms_rel = sqrt(f->rms_rel / d->n);
  return SS_OK;
}

/* A figure the rescaling changed, as the members NAME_before_UNIT and NAME_after_UNIT of o. */
static void add_change(cJSON* o, const char* name, const char* unit, double before, double after)
{
  char key[64];
  snprintf(key, sizeof(key), "%s_before_%s", name, unit);
  cJSON_AddNumberToObject(o, key, before);
  snprintf(key, sizeof(key), "%s_after_%s", name, unit);
  cJSON_AddNumberToObject(o, key, after);
}

static cJSON* platform_json(const cal_rescale* r, const char* in, const char* out)
{
  char classes[128];
  cal_rescale_classes(r->before.classes, classes, sizeof(classes));
  cJSON* j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "input", in);
  cJSON_AddStringToObject(j, "output", out);
  cJSON_AddNumberToObject(j, "gpus", r->ngpus);
  cJSON_AddNumberToObject(j, "rings", r->before.nrings);
  cJSON_AddStringToObject(j, "link_classes", classes);
  cJSON_AddNumberToObject(j, "bandwidth_factor", r->bandwidth_factor);
  cJSON_AddNumberToObject(j, "latency_factor", r->latency_factor);
  add_change(j, "busbw", "bytes_per_s", r->before.busbw_bytes_per_s, r->after.busbw_bytes_per_s);
  add_change(j, "hop_latency", "s", r->before.hop_latency_s, r->after.hop_latency_s);
  cJSON* links = cJSON_AddArrayToObject(j, "links");
  for (int i = 0; i < r->nchanges; i++) {
    const cal_link_change* c = &r->changes[i];
    cJSON* l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "name", c->name);
    cJSON_AddStringToObject(l, "class", c->cls);
    add_change(l, "bandwidth", "bytes_per_s", c->bandwidth_before_bytes_per_s, c->bandwidth_after_bytes_per_s);
    add_change(l, "latency", "s", c->latency_before_s, c->latency_after_s);
    cJSON_AddItemToArray(links, l);
  }
  return j;
}

static cJSON* params_json(const nccl_data* d, const nccl_fit* f)
{
  double lo = d->pts[0].bytes, hi = lo;
  for (int i = 1; i < d->n; i++)
    lo = fmin(lo, d->pts[i].bytes), hi = fmax(hi, d->pts[i].bytes);
  cJSON* j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "schema", "stash-calibrate-nccl/1");
  cJSON_AddStringToObject(j, "collective", "allreduce");
  cJSON_AddNumberToObject(j, "ranks", d->ranks);
  cJSON_AddStringToObject(j, "ranks_from", d->ranks_from);
  cJSON_AddNumberToObject(j, "points", d->n);
  cJSON_AddNumberToObject(j, "min_bytes", lo);
  cJSON_AddNumberToObject(j, "max_bytes", hi);
  cJSON_AddNumberToObject(j, "alpha_s", f->alpha_s);
  cJSON_AddNumberToObject(j, "algbw_bytes_per_s", f->algbw_bytes_per_s);
  cJSON_AddNumberToObject(j, "busbw_bytes_per_s", f->busbw_bytes_per_s);
  cJSON_AddNumberToObject(j, "residual_rms_rel", f->rms_rel);
  cJSON_AddNumberToObject(j, "residual_max_rel", f->max_rel);
  cJSON_AddBoolToObject(j, "alpha_clamped_to_0", f->clamped);
  cJSON_AddStringToObject(j, "fit",
                          "time_s = alpha_s + bytes / algbw_bytes_per_s, least squares on relative errors (weights "
                          "1/time^2) over all points; times are all_reduce_perf's out-of-place times, or "
                          "bytes / algbw with algbw = busbw x ranks / (2 (ranks - 1)) for 'size busbw' pairs; "
                          "busbw_bytes_per_s = algbw_bytes_per_s x 2 (ranks - 1) / ranks (nccl-tests)");
  cJSON* srcs = cJSON_AddArrayToObject(j, "sources");
  for (int i = 0; i < d->nsrc; i++) {
    cJSON* s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "file", d->src[i].path);
    cJSON_AddNumberToObject(s, "table_rows", d->src[i].table_rows);
    cJSON_AddNumberToObject(s, "pair_rows", d->src[i].pair_rows);
    cJSON_AddItemToArray(srcs, s);
  }
  cJSON* data = cJSON_AddArrayToObject(j, "data");
  for (int i = 0; i < d->n; i++) {
    const point* p = &d->pts[i];
    double t = f->alpha_s + p->bytes / f->algbw_bytes_per_s;
    cJSON* o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "bytes", p->bytes);
    cJSON_AddNumberToObject(o, "time_s", p->time_s);
    cJSON_AddNumberToObject(o, "fit_time_s", t);
    cJSON_AddNumberToObject(o, "rel_error", t / p->time_s - 1);
    cJSON_AddItemToArray(data, o);
  }
  return j;
}

static const char nccl_help[] =
    "usage: stash-calibrate nccl LOG... [-o PARAMS.json] [--ranks N] [--platform P.xml --out-platform Q.xml]\n"
    "\n"
    "Fit time = alpha + size / algbw (least squares on relative errors) to allreduce measurements and write\n"
    "the fit as JSON (alpha_s, algbw_bytes_per_s, busbw_bytes_per_s, ranks, points, residual, sources).\n"
    "\n"
    "LOG: nccl-tests all_reduce_perf output (one or more runs per file; the out-of-place time of each row\n"
    "of the table is used, '#' lines are comments and '# Rank N' lines give the ranks), or rows of\n"
    "'size_bytes busbw_GBps' pairs, several on a line separated by '|' (busbw: nccl-tests' convention).\n"
    "\n"
    "options:\n"
    "  -o, --output FILE      write the JSON there (default: stdout)\n"
    "      --ranks N          ranks of the measurements (needed when no log has '# Rank' lines)\n"
    "      --platform P.xml   a stash-sim platform whose GPU-interconnect links to rescale ...\n"
    "      --out-platform Q.xml  ... into Q.xml, so that a ring allreduce over its GPUs has the fitted busbw\n"
    "                         and a ring hop alpha / (2 (ranks - 1)) (docs/calibration.md)\n"
    "  -h, --help             this help\n";

enum { OPT_RANKS = 256, OPT_PLATFORM, OPT_OUT_PLATFORM };

static const struct option options[] = {
    {"output", required_argument, NULL, 'o'},
    {"ranks", required_argument, NULL, OPT_RANKS},
    {"platform", required_argument, NULL, OPT_PLATFORM},
    {"out-platform", required_argument, NULL, OPT_OUT_PLATFORM},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct nccl_args {
  const char* output;
  const char* platform;
  const char* out_platform;
  int ranks;
} nccl_args;

/* A cal_cli option function. */
static int nccl_option(int ch, const char* value, void* args)
{
  nccl_args* a = args;
  long long v;
  if (ch == 'o')
    a->output = value;
  else if (ch == OPT_PLATFORM)
    a->platform = value;
  else if (ch == OPT_OUT_PLATFORM)
    a->out_platform = value;
  else if (cal_integer(value, &v) || v < 2 || v > 1000000)
    return cal_usage_error("nccl", "--ranks expects a whole number of ranks from 2, got '%s'", value);
  else
    a->ranks = (int)v;
  return 0;
}

/* Rewrite the platform; fills *r. */
static int rescale(const nccl_args* a, const nccl_data* d, const nccl_fit* f, ss_outfile* out, cal_rescale* r,
                   ss_err* err)
{
  char note[1024];
  size_t n = (size_t)snprintf(note, sizeof(note), "fit of stash-calibrate nccl to");
  for (int i = 0; i < d->nsrc && n < sizeof(note); i++)
    n += (size_t)snprintf(note + n, sizeof(note) - n, " %s", d->src[i].path);
  if (n < sizeof(note))
    snprintf(note + n, sizeof(note) - n, " (%d ranks, %d points): alpha %.6g us, busbw %.6g GB/s", d->ranks, d->n,
             f->alpha_s * 1e6, f->busbw_bytes_per_s / 1e9);
  return cal_rescale_platform(a->platform, out, a->out_platform, f->busbw_bytes_per_s,
                              f->alpha_s / (2.0 * (d->ranks - 1)), note, r, err);
}

/* No output may be an input or the other output: a usage error naming both. Returns 0 or 2. */
static int check_outputs(const nccl_args* a, int nlogs, char** logs)
{
  const cal_named platform[2] = {{"--platform", a->platform}, {"-o", a->output}};
  if (cal_check_output("nccl", "-o", a->output, platform, 1) ||
      cal_check_output("nccl", "--out-platform", a->out_platform, platform, 2))
    return 2;
  for (int i = 0; i < nlogs; i++) {
    const cal_named log = {"the log", logs[i]};
    if (cal_check_output("nccl", "-o", a->output, &log, 1) ||
        cal_check_output("nccl", "--out-platform", a->out_platform, &log, 1))
      return 2;
  }
  return 0;
}

/* A cal_cli run function: reads the logs, fits, rescales the platform, writes the JSON. */
static int nccl_run(void* args, int nlogs, char** logs, ss_err* err)
{
  const nccl_args* a = args;
  if (nlogs <= 0)
    return cal_usage_error("nccl", "expected one nccl-tests log or more");
  if (!a->platform != !a->out_platform)
    return cal_usage_error("nccl", "--platform and --out-platform go together");
  if (check_outputs(a, nlogs, logs))
    return 2;
  /* Each log once: a second copy would count its points twice in the fit. */
  for (int i = 0; i < nlogs; i++)
    for (int k = 0; k < i; k++)
      if (ss_outfile_same(logs[i], logs[k]))
        return cal_usage_error("nccl", "the log %s is given twice (as '%s' and '%s'): its points would count twice",
                               logs[i], logs[k], logs[i]);
  nccl_data d = {0};
  nccl_fit f;
  cal_rescale r = {0};
  ss_outfile* platform = NULL;
  cJSON* j = NULL;
  int status = SS_EINPUT;
  d.nsrc = nlogs;
  if (!(d.src = calloc((size_t)d.nsrc, sizeof(source)))) {
    ss_err_nomem(err);
    goto done;
  }
  for (int i = 0; i < d.nsrc; i++) {
    d.src[i].path = logs[i];
    if (read_log(&d.src[i], &d, err))
      goto done;
  }
  int rc = resolve_ranks(&d, a->ranks, err);
  if (rc == 2) {
    status = cal_usage_error("nccl", "no log gives the number of ranks (no '# Rank' lines): pass --ranks N");
    goto done;
  }
  /* The rewritten platform goes in place after the JSON: a failure leaves both as they were. */
  if (rc || fit(&d, &f, err) ||
      (a->platform &&
       (ss_outfile_open(a->out_platform, "platform", &platform, err) || rescale(a, &d, &f, platform, &r, err))))
    goto done;
  j = params_json(&d, &f);
  if (a->platform)
    cJSON_AddItemToObject(j, "platform", platform_json(&r, a->platform, a->out_platform));
  status = cal_write_json(j, a->output, NULL, err);
  if (status == 0 && platform) {
    status = ss_outfile_commit(platform, err);
    platform = NULL;
  }
done:
  ss_outfile_abort(platform);
  cJSON_Delete(j);
  cal_rescale_free(&r);
  free(d.pts);
  free(d.src);
  return status;
}

static const cal_cli nccl_cli = {"nccl", nccl_help, options, nccl_option, nccl_run};

int cal_nccl_main(int argc, char** argv)
{
  nccl_args a = {0};
  return cal_cli_main(&nccl_cli, argc, argv, &a);
}
