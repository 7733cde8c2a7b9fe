/* planout: a plan's outputs (planout.h). */
#include "planout.h"

#include "csv.h"
#include "outfile.h"
#include "proc.h"
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int cmp_double(double a, double b)
{
  return a < b ? -1 : a > b;
}

static int cmp_double_p(const void* a, const void* b)
{
  return cmp_double(*(const double*)a, *(const double*)b);
}

/* The plan as JSON: its counts, then a row per kept configuration, ranked. */
static void write_json(FILE* f, const void* arg)
{
  const ss_planner* p = arg;
  fprintf(f, "{\n  \"schema_version\": %d,\n  \"workload\": ", SS_REPORT_SCHEMA_VERSION);
  ss_json_string(f, p->workload);
  fprintf(f, ",\n  \"samples\": %.17g,\n  \"epochs\": %.17g,\n  \"objective\": \"%s\",\n", p->samples, p->epochs,
          ss_objective_name(p->objective));
  fprintf(f, "  \"configurations\": %d,\n  \"refused\": %d,\n  \"refused_by_platform\": [", p->configurations,
          p->refused);
  for (int i = 0, k = 0; i < p->nplatforms; i++)
    if (p->refused_by[i]) {
      fprintf(f, "%s{\"platform\": ", k++ ? ", " : "");
      ss_json_string(f, p->platforms[i].name);
      fprintf(f, ", \"refused\": %d, \"first\": ", p->refused_by[i]);
      ss_json_string(f, p->refused_by_first[i].msg);
      fprintf(f, "}");
    }
  fprintf(f, "],\n  \"screened\": %d,\n  \"verify\": %d,\n  \"verified\": %d,\n  \"verify_cut\": %d,", p->screened,
          p->verify_asked, p->verified, p->verify_cut);
  fprintf(f, "\n  \"not_whole_batch\": %d,\n  \"not_dividing_layouts\": %d,\n  \"failed\": %d,\n", p->not_whole,
          p->not_dividing, p->failed);
  fprintf(f, "  \"over_budget\": %d,\n  \"over_deadline\": %d,\n  \"ranked\": %d,\n  \"rows\": [", p->over_budget,
          p->over_deadline, p->nrows);
  for (int i = 0; i < p->nrows; i++) {
    const ss_planner_row* r = &p->rows[i];
    fprintf(f, "%s\n    {\"rank\": %d, \"platform\": ", i ? "," : "", i + 1);
    ss_json_string(f, r->instance_type);
    fprintf(f, ", \"platform_file\": ");
    ss_json_string(f, p->platforms[r->platform].path);
    fprintf(f, ", \"gpu_model\": ");
    ss_json_string(f, r->gpu_model);
    fprintf(f, ", \"instances\": %d, \"gpus\": %d, \"allreduce\": \"%s\", \"shard\": \"%s\", \"batch_per_gpu\": %d,",
            r->instances, r->gpus, ss_allreduce_name(r->allreduce), ss_shard_name(r->shard), r->batch);
    fprintf(
        f,
        " \"tp\": %d, \"cp\": %d, \"ep\": %d, \"pp\": %d, \"dp\": %d, \"micro_batch\": %d, \"micro_batches\": %d, "
        "\"schedule\": \"%s\", \"virtual_stages\": %d, \"recompute\": \"%s\", \"tokens_per_s\": %.17g, \"mfu\": %.17g,",
        r->tp, r->cp, r->ep, r->pp, r->dp, r->micro_batch, r->micro_batches, ss_schedule_names[r->schedule],
        r->virtual_stages, ss_recompute_names[r->recompute], r->tokens_per_s, r->mfu);
    fprintf(f, " \"sequence_parallel\": %s, \"distributed_optimizer\": %s, \"precision\": \"%s\",",
            r->sequence_parallel ? "true" : "false", r->distributed_optimizer ? "true" : "false",
            ss_precision_names[r->precision]);
    fprintf(f, " \"iteration_s\": %.17g, \"throughput_samples_per_s\": %.17g, \"epoch_s\": %.17g,", r->iteration_s,
            r->throughput_samples_per_s, r->epoch_s);
    fprintf(f, " \"time_to_train_s\": %.17g, \"cost_usd\": %.17g, \"cost_usd_per_epoch\": %.17g,", r->time_to_train_s,
            r->cost_usd, r->cost_usd_per_epoch);
    fprintf(f, " \"price_usd_per_h\": %.17g, \"price_source\": ", r->price_usd_per_h);
    ss_json_string(f, r->price_source ? r->price_source : "");
    fprintf(f, ", \"limit\": \"%s\", \"limit_utilisation\": %.17g,", ss_res_name(r->limit), r->limit_util);
    fprintf(f, " \"dominant_stall\": \"%s\", \"compute_scaling\": \"%s\", \"pareto\": %s,",
            r->stall < SS_CAT_COUNT ? ss_cat_name(r->stall) : "none", r->compute_scaling, r->pareto ? "true" : "false");
    fprintf(f, " \"goodput\": %.17g, \"expected_time_to_train_s\": %.17g, \"expected_cost_usd\": %.17g,", r->goodput,
            r->expected_time_to_train_s, r->expected_cost_usd);
    fprintf(f, " \"verified\": %s, \"screen_iteration_s\": %.17g, \"screen_time_to_train_s\": %.17g,",
            r->verified ? "true" : "false", r->screen_iteration_s, r->screen_time_to_train_s);
    fprintf(f, " \"screen_cost_usd\": %.17g, \"screen_error\": %.17g}", r->screen_cost_usd,
            r->verified ? r->screen_time_to_train_s / r->expected_time_to_train_s - 1 : 0);
  }
  fprintf(f, "\n  ]\n}\n");
}

/* A duration in the table: hours, or minutes below one. */
static void duration(char* buf, size_t size, double s)
{
  if (s >= 3600)
    snprintf(buf, size, "%.2f h", s / 3600);
  else if (s >= 60)
    snprintf(buf, size, "%.1f min", s / 60);
  else
    snprintf(buf, size, "%.3g s", s);
}

/* A row's time to train, largest stall and limit as the tables write them. */
static void row_cells(const ss_planner_row* r, char* t, size_t tsize, char* stall, size_t ssize, char* limit,
                      size_t lsize)
{
  duration(t, tsize, r->expected_time_to_train_s);
  snprintf(stall, ssize, "none");
  if (r->stall < SS_CAT_COUNT)
    snprintf(stall, ssize, "%s %.1f%%", ss_category_of(r->stall)->word, 100 * r->part_s[r->stall] / r->iteration_s);
  snprintf(limit, lsize, "%s %.0f%%", ss_res_label(r->limit), 100 * r->limit_util);
  if (!r->verified)
    snprintf(limit, lsize, "(screen)");
}

/* The screen's time to train of a simulated row and its error against the simulation ("1.31 h -2.1%"),
 * or "-" for a row the screen alone gives. */
static void screen_cell(const ss_planner_row* r, char* buf, size_t size)
{
  char t[32];
  duration(t, sizeof(t), r->screen_time_to_train_s);
  if (r->verified)
    snprintf(buf, size, "%s %+.1f%%", t, 100 * (r->screen_time_to_train_s / r->expected_time_to_train_s - 1));
  else
    snprintf(buf, size, "-");
}

/* The rows a table shows: the simulated ones, or every row when none was simulated (--verify 0). */
static int shown_rows(const ss_planner* p)
{
  return p->verified > 0 ? p->verified : p->nrows;
}

/* The rows of a plan of layouts: the layout, micro-batches, schedule and recomputation instead of
 * the data-parallel columns, tokens per second and MFU instead of samples. */
static void write_table_layouts(FILE* f, const ss_planner* p, int shared)
{
  fprintf(f, "\n%4s  %-16s %3s %5s  %-16s %-27s %-21s %12s %-20s %11s %11s %6s  %-20s  %-22s %s\n", "rank", "instance",
          "n", "GPUs", "t x p x d", "micro-batch x m, sched", "recompute, sp, do", "time", "  screen, its error",
          "total $", "tokens/s", "MFU", "largest stall", "limited by", "front");
  for (int i = 0; i < shown_rows(p); i++) {
    const ss_planner_row* r = &p->rows[i];
    char t[32], stall[48], limit[48], layout[96], micro[48], scr[48];
    row_cells(r, t, sizeof(t), stall, sizeof(stall), limit, sizeof(limit));
    screen_cell(r, scr, sizeof(scr));
    char experts[16] = "";
    if (r->ep > 1)
      snprintf(experts, sizeof(experts), " e%d", r->ep);
    if (r->cp > 1)
      snprintf(layout, sizeof(layout), "%d x cp%d x %d x %d%s", r->tp, r->cp, r->pp, r->dp, experts);
    else
      snprintf(layout, sizeof(layout), "%d x %d x %d%s", r->tp, r->pp, r->dp, experts);
    if (r->tp * r->cp * r->pp * r->ep > 1 && r->virtual_stages > 1)
      snprintf(micro, sizeof(micro), "%d x %d, %s v%d", r->micro_batch, r->micro_batches,
               ss_schedule_names[r->schedule], r->virtual_stages);
    else if (r->tp * r->cp * r->pp * r->ep > 1)
      snprintf(micro, sizeof(micro), "%d x %d, %s", r->micro_batch, r->micro_batches, ss_schedule_names[r->schedule]);
    else
      snprintf(micro, sizeof(micro), "batch %d per GPU", r->micro_batch);
    /* What runs: the recomputation, sp and do where on, the precision. */
    char opts[64];
    snprintf(
        opts, sizeof(opts), "%s%s%s %s", r->tp * r->cp * r->pp * r->ep > 1 ? ss_recompute_names[r->recompute] : "-",
        r->sequence_parallel ? " sp" : "", r->distributed_optimizer ? " do" : "", ss_precision_names[r->precision]);
    fprintf(f, "%4d  %-16s %3d %5d  %-16s %-27s %-21s %12s   %-18s %11.4g %11.0f %5.1f%%  %-20s  %-22s %s\n", i + 1,
            shared ? p->platforms[r->platform].name : r->instance_type, r->instances, r->gpus, layout, micro, opts, t,
            scr, r->expected_cost_usd, r->tokens_per_s, 100 * r->mfu, stall, limit, r->pareto ? "*" : "");
  }
  if (p->nrows > 0) {
    const ss_planner_row* r = &p->rows[0];
    char stall[64] = "none";
    if (r->stall < SS_CAT_COUNT)
      snprintf(stall, sizeof(stall), "%s, %.1f%% of its iteration", ss_category_of(r->stall)->label,
               100 * r->part_s[r->stall] / r->iteration_s);
    char context[24] = "";
    if (r->cp > 1)
      snprintf(context, sizeof(context), "context %d x ", r->cp);
    char limit[64] = "not simulated";
    if (r->verified)
      snprintf(limit, sizeof(limit), "limited by %s (%.0f%% busy)", ss_res_label(r->limit), 100 * r->limit_util);
    fprintf(f, "\n  the first: tensor %d x %spipeline %d x data %d on %d %s; largest stall: %s; %s\n", r->tp, context,
            r->pp, r->dp, r->instances, r->instance_type, stall, limit);
  }
}

/* The rows screened and not simulated, which the table leaves out (the JSON and CSV have them). */
static void write_unshown(FILE* f, const ss_planner* p)
{
  int rest = p->nrows - shown_rows(p);
  if (rest <= 0)
    return;
  const ss_planner_row* r = &p->rows[shown_rows(p)];
  char t[32];
  duration(t, sizeof(t), r->expected_time_to_train_s);
  fprintf(
      f,
      "\n  %d more ranked by the screen alone, not simulated (--format json or csv lists them): the first, %s x %d, "
      "%s and %.4g $ by the screen\n",
      rest, r->instance_type, r->instances, t, r->expected_cost_usd);
}

/* The screen against the simulation on the simulated rows: the median and largest error of its time to
 * train, Spearman's rank correlation of the two, and whether the screen's first is the simulation's. */
static void write_screen_error(FILE* f, const ss_planner* p)
{
  int n = p->verified;
  if (n < 1)
    return;
  double* e = calloc((size_t)n, sizeof(double));
  if (!e)
    return;
  double largest = 0;
  int top = 0;
  for (int i = 0; i < n; i++) {
    e[i] = fabs(p->rows[i].screen_time_to_train_s / p->rows[i].expected_time_to_train_s - 1);
    largest = fmax(largest, e[i]);
    /* The screen's first among the simulated: the one of least screened figure. */
    const ss_planner_row *a = &p->rows[i], *b = &p->rows[top];
    double fa = p->objective == SS_OBJECTIVE_TIME ? a->screen_time_to_train_s : a->screen_cost_usd;
    double fb = p->objective == SS_OBJECTIVE_TIME ? b->screen_time_to_train_s : b->screen_cost_usd;
    top = fa < fb ? i : top;
  }
  qsort(e, (size_t)n, sizeof(double), cmp_double_p);
  double median = n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
  free(e);
  fprintf(f, "  the screen's error on the %d simulated: median %.1f%%, largest %.1f%% (time to train); its first %s\n",
          n, 100 * median, 100 * largest, top == 0 ? "is the simulation's first" : "is not the simulation's first");
}

static void write_table(FILE* f, const ss_planner* p)
{
  fprintf(f, "stash-sim plan: %s, %.17g samples (%.3g epochs), ranked by %s\n", p->workload, p->samples, p->epochs,
          p->objective == SS_OBJECTIVE_TIME ? "time to train" : "total cost");
  fprintf(f, "  %d configurations: %d ranked", p->configurations, p->nrows);
  if (p->refused)
    fprintf(f, ", %d refused before simulation", p->refused);
  if (p->not_whole)
    fprintf(f, ", %d with a per-GPU batch%s that is not whole", p->not_whole,
            p->model_parallel ? " or micro-batches" : "");
  if (p->not_dividing)
    fprintf(f, " (%d layouts that do not divide the GPUs skipped)", p->not_dividing);
  if (p->failed)
    fprintf(f, ", %d failed", p->failed);
  if (p->over_budget)
    fprintf(f, ", %d over the budget", p->over_budget);
  if (p->over_deadline)
    fprintf(f, ", %d past the deadline", p->over_deadline);
  fprintf(f, "\n");
  for (int i = 0; i < p->nplatforms; i++)
    if (p->refused_by[i])
      fprintf(f, "  refused on %s: %d, the first: %s\n", p->platforms[i].name, p->refused_by[i],
              p->refused_by_first[i].msg);
  if (p->failed)
    fprintf(f, "  first failed: %s\n", p->failed_first.msg);
  fprintf(f, "  time and total $ with failures and checkpoints (goodput: docs/model.md); ");
  fprintf(f, "screened in closed form: %d; simulated: the screen's best %d (--verify %d)", p->screened, p->verified,
          p->verify_asked);
  if (p->verify_cut)
    fprintf(f, ", %d more beyond --max-minutes %g", p->verify_cut, p->max_minutes);
  fprintf(f, "\n");
  write_screen_error(f, p);
  /* The shard column as wide as its longest name (fsdp-hybrid-zero2), 12 at least. */
  int sw = 12;
  for (int i = 0; i < p->nrows; i++)
    if ((int)strlen(ss_shard_name(p->rows[i].shard)) > sw)
      sw = (int)strlen(ss_shard_name(p->rows[i].shard));
  /* Two instance files of one instance type (a copy with other figures): each row names its file
   * as given, not the type both share. */
  int shared = 0;
  for (int i = 0; i < p->nrows && !shared; i++)
    for (int k = 0; k < i && !shared; k++)
      shared = p->rows[i].platform != p->rows[k].platform &&
               strcmp(p->rows[i].instance_type, p->rows[k].instance_type) == 0;
  if (p->model_parallel) {
    write_table_layouts(f, p, shared);
    write_unshown(f, p);
    return;
  }
  fprintf(f, "\n%4s  %-16s %3s %5s  %-12s %-*s %6s %12s %-20s %11s %10s %12s  %-20s  %-22s %-18s %s\n", "rank",
          "instance", "n", "GPUs", "allreduce", sw, "shard", "batch", "time", "  screen, its error", "total $",
          "$/epoch", "samples/s", "largest stall", "limited by", "GPU times", "front");
  for (int i = 0; i < shown_rows(p); i++) {
    const ss_planner_row* r = &p->rows[i];
    char t[32], stall[48], limit[48], scr[48];
    row_cells(r, t, sizeof(t), stall, sizeof(stall), limit, sizeof(limit));
    screen_cell(r, scr, sizeof(scr));
    fprintf(f, "%4d  %-16s %3d %5d  %-12s %-*s %6d %12s   %-18s %11.4g %10.4g %12.1f  %-20s  %-22s %-18s %s\n", i + 1,
            shared ? p->platforms[r->platform].name : r->instance_type, r->instances, r->gpus,
            ss_allreduce_name(r->allreduce), sw, ss_shard_name(r->shard), r->batch, t, scr, r->expected_cost_usd,
            r->cost_usd_per_epoch, r->throughput_samples_per_s, stall, limit, r->compute_scaling, r->pareto ? "*" : "");
  }
  write_unshown(f, p);
}

int ss_planout_write(FILE* f, const ss_planner* p, ss_format fmt)
{
  if (fmt == SS_FORMAT_TABLE)
    write_table(f, p);
  else if (fmt == SS_FORMAT_JSON)
    write_json(f, p);
  else
    return ss_csv_write_from(f, write_json, p, "rows");
  return ferror(f) ? SS_EIO : SS_OK;
}

/* gnuplot's name: on PATH (ss_proc_exec's execvp). */
static char gnuplot_name[] = "gnuplot";

int ss_planout_plot_ready(ss_err* err)
{
  char version[] = "--version";
  char* argv[] = {gnuplot_name, version, NULL};
  ss_proc_output r;
  if (ss_proc_exec(argv, &r, err))
    return ss_err_kind(err, SS_EIO);
  int ok = !r.exec_errno && r.how.code == 0;
  ss_proc_output_free(&r);
  if (ok)
    return SS_OK;
  ss_err_set(err, NULL, 0,
             "--plot needs gnuplot, which is not on PATH: install it (Debian, Ubuntu: "
             "apt-get install gnuplot-nox) or drop --plot");
  return ss_err_kind(err, SS_EIO);
}

/* s as a gnuplot single-quoted string ('' is a quote there); control characters, which would end
 * the command, become spaces. */
static void gp_string(FILE* f, const char* s)
{
  fputc('\'', f);
  for (; *s; s++)
    if (*s == '\'')
      fputs("''", f);
    else
      fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
  fputc('\'', f);
}

/* The point styles and colours of the instance types, in turn (scripts/plot's series colours). */
static const int point_types[] = {7, 5, 9, 11, 13, 15, 1, 2, 3, 4, 6, 8};
static const char* const point_colours[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02",
                                            "#a6761d", "#666666", "#1f78b4", "#b15928", "#fb9a99", "#6a3d9a"};
#define NSTYLES (int)(sizeof(point_types) / sizeof(point_types[0]))

/* By time to train, then cost (the front's line). */
static int by_time(const void* pa, const void* pb)
{
  const ss_planner_row *a = *(const ss_planner_row* const*)pa, *b = *(const ss_planner_row* const*)pb;
  int c = cmp_double(a->expected_time_to_train_s, b->expected_time_to_train_s);
  return c ? c : cmp_double(a->expected_cost_usd, b->expected_cost_usd);
}

/* "set logscale AXIS" when the values span more than a decade. */
static void log_when_wide(FILE* f, const char* axis, double lo, double hi)
{
  if (lo > 0 && hi > 10 * lo)
    fprintf(f, "set logscale %s\n", axis);
}

/* The plot's data: a datablock per instance type ($Tk, its rows), then the front sorted by time
 * ($FRONT). Returns 0 or SS_ENOMEM. */
static int write_data(FILE* f, const ss_planner* p)
{
  const ss_planner_row** front = calloc((size_t)p->nrows + 1, sizeof(*front));
  if (!front)
    return SS_ENOMEM;
  int nfront = 0;
  for (int i = 0; i < p->nrows; i++)
    if (p->rows[i].pareto)
      front[nfront++] = &p->rows[i];
  qsort(front, (size_t)nfront, sizeof(*front), by_time);
  for (int k = 0; k < p->nplatforms; k++) {
    fprintf(f, "$T%d << EOD\n", k);
    for (int i = 0; i < p->nrows; i++)
      if (p->rows[i].platform == k)
        fprintf(f, "%.17g %.17g\n", p->rows[i].expected_time_to_train_s / 3600, p->rows[i].expected_cost_usd);
    fprintf(f, "EOD\n");
  }
  fprintf(f, "$FRONT << EOD\n");
  for (int i = 0; i < nfront; i++)
    fprintf(f, "%.17g %.17g\n", front[i]->expected_time_to_train_s / 3600, front[i]->expected_cost_usd);
  fprintf(f, "EOD\n");
  free(front);
  return SS_OK;
}

/* The instance type of platform k's rows, or NULL when it has none (no series in the plot). */
static const char* instance_type(const ss_planner* p, int k)
{
  for (int i = 0; i < p->nrows; i++)
    if (p->rows[i].platform == k)
      return p->rows[i].instance_type;
  return NULL;
}

/* The gnuplot script of the plot, writing to output. */
static int write_script(FILE* f, const ss_planner* p, const char* output, int svg)
{
  double tlo = INFINITY, thi = 0, clo = INFINITY, chi = 0;
  for (int i = 0; i < p->nrows; i++) {
    double t = p->rows[i].expected_time_to_train_s / 3600, c = p->rows[i].expected_cost_usd;
    tlo = fmin(tlo, t);
    thi = fmax(thi, t);
    clo = fmin(clo, c);
    chi = fmax(chi, c);
  }
  fprintf(f, "set terminal %s size 860,560 font 'sans,10' noenhanced background '#ffffff'\nset output ",
          svg ? "svg" : "pngcairo");
  gp_string(f, output);
  fprintf(f, "\nset title ");
  char title[512];
  snprintf(title, sizeof(title), "stash-sim plan: %s, %.4g epoch%s (%d configurations ranked)", p->workload, p->epochs,
           p->epochs == 1 ? "" : "s", p->nrows);
  gp_string(f, title);
  fprintf(f, "\nset xlabel 'time to train (hours)'\nset ylabel 'total cost (US$)'\n");
  log_when_wide(f, "x", tlo, thi);
  log_when_wide(f, "y", clo, chi);
  fprintf(f, "set grid\nset key outside right top box\nset offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n");
  if (write_data(f, p))
    return SS_ENOMEM;
  fprintf(f, "plot $FRONT using 1:2 with lines lw 1.5 dt 2 lc rgb '#000000' title 'Pareto front'");
  for (int k = 0, style = 0; k < p->nplatforms; k++) {
    const char* type = instance_type(p, k);
    if (!type)
      continue;
    fprintf(f, ", \\\n  $T%d using 1:2 with points pt %d ps 1.3 lc rgb '%s' title ", k, point_types[style % NSTYLES],
            point_colours[style % NSTYLES]);
    gp_string(f, type);
    style++;
  }
  fprintf(f, "\n");
  return SS_OK;
}

/* The first line of text (gnuplot's complaint), without its newline, at most size - 1 bytes. */
static void first_line(const char* text, char* buf, size_t size)
{
  while (*text == '\n' || *text == ' ')
    text++;
  snprintf(buf, size, "%.*s", (int)strcspn(text, "\n"), text);
}

int ss_planout_plot(const ss_planner* p, const char* path, ss_err* err)
{
  const char* dot = strrchr(path, '.');
  int svg = dot && strcasecmp(dot, ".svg") == 0;
  ss_outfile* out = NULL;
  char script[4096];
  FILE* f = NULL;
  int slot = -1;
  if (ss_outfile_open(path, "plot", &out, err))
    return SS_EIO;
  if (ss_outfile_scratch("gnuplot script", script, sizeof(script), &f, &slot, err)) {
    ss_outfile_abort(out);
    return SS_EIO;
  }
  /* gnuplot writes the outfile's temporary file (or path itself when it is a device or a FIFO). */
  const char* target = ss_outfile_temp(out) ? ss_outfile_temp(out) : path;
  int rc = write_script(f, p, target, svg);
  int bad = ferror(f);
  if ((fclose(f) || bad) && !rc)
    rc = ss_err_set(err, NULL, 0, "cannot write the temporary gnuplot script %s: %s", script, strerror(errno));
  else if (rc == SS_ENOMEM)
    rc = ss_err_nomem(err);
  ss_proc_output r;
  memset(&r, 0, sizeof(r));
  char* argv[] = {gnuplot_name, script, NULL};
  if (!rc && !(rc = ss_proc_exec(argv, &r, err)) && (r.exec_errno || r.how.code != 0)) {
    char why[512];
    first_line(r.exec_errno ? strerror(r.exec_errno) : r.err, why, sizeof(why));
    rc = ss_err_set(err, path, 0, "gnuplot could not draw the plot (exit %d): %s", r.how.code, why);
  }
  ss_proc_output_free(&r);
  ss_outfile_scratch_done(script, slot);
  if (rc) {
    ss_outfile_abort(out);
    return ss_err_kind(err, rc == SS_ENOMEM ? SS_ENOMEM : SS_EIO);
  }
  return ss_outfile_commit(out, err);
}
