/* e2e_cli: the command line as a whole: determinism, whatif against plain runs, --help and
 * --version. */
#include "e2e.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void test_deterministic(void)
{
  const char* cases[] = {"platforms/p3.16xl.xml workloads/resnet50.json",
                         "platforms/p3.16xl.xml workloads/resnet50.json --format json --cache 0.5 --workers 3",
                         "platforms/p3.8xl.xml workloads/resnet50.json --format csv --no-overlap",
                         "platforms/p3.16xl.xml workloads/resnet50.json --instances 3 --cache 0.3 --format json",
                         ("platforms/p4d.24xl.xml workloads/resnet50.json --instances 3 --allreduce tree "
                          "--fidelity reference --synthetic"),
                         "bench allreduce platforms/g4dn.12xl.xml --instances 2 --format csv",
                         "platforms/p3.8xl.xml workloads/resnet50.json --instances 2 --stash --workers 1"};
  for (int i = 0; i < 7; i++) {
    run_result a = runs(SS_SIM_BIN, cases[i]);
    run_result b = runs(SS_SIM_BIN, cases[i]);
    CHECK(a.status == 0 && b.status == 0, "%s: exit %d %d", cases[i], a.status, b.status);
    CHECK(strcmp(a.out, b.out) == 0, "%s: two runs differ", cases[i]);
    CHECK(strlen(a.out) > 100, "%s: output too short", cases[i]);
    run_free(&a);
    run_free(&b);
  }
}

/* whatif: its speedup is the ratio of the two plain runs' throughputs, whatever the change. */
void test_whatif(void)
{
  static const char* const cases[][3] = {
      {"platforms/p3.16xl.xml workloads/vgg11.json --instances 2 --synthetic", "--change nic_gbps=100",
       "--nic-gbps 100"},
      {"platforms/p3.16xl.xml workloads/vgg11.json --synthetic --bucket-mb 0", "--change nvlink=off", "--no-nvlink"},
      {"platforms/p3.8xl.xml workloads/resnet50.json --instances 2 --arch ps --async --synthetic",
       "--change arch=allreduce", "--arch allreduce"},
      {"platforms/p3.8xl.xml workloads/resnet50.json --synthetic",
       "--change platform=platforms/p2.8xl.xml --change gpus=4", "--gpus 4"},
      {"platforms/p3.8xl.xml workloads/alexnet.json --cache 1", "--change workers=1", "--workers 1"}};
  for (int c = 0; c < 5; c++) {
    cJSON* j = NULL;
    char args[1024];
    snprintf(args, sizeof(args), "whatif %s %s", cases[c][0], cases[c][1]);
    j = sim_json("%s", args);
    double base = sim_num("throughput_samples_per_s", "%s", cases[c][0]);
    char changed[1024];
    snprintf(changed, sizeof(changed), "%s %s", cases[c][0], cases[c][2]);
    if (c == 2) /* ASGD does not go with allreduce: the change drops it */
      snprintf(changed, sizeof(changed), "platforms/p3.8xl.xml workloads/resnet50.json --instances 2 --synthetic");
    if (c == 3)
      snprintf(changed, sizeof(changed), "platforms/p2.8xl.xml workloads/resnet50.json --synthetic --gpus 4");
    double after = sim_num("throughput_samples_per_s", "%s", changed);
    double speedup = j ? num(j, "speedup") : NAN;
    CHECK(fabs(speedup - after / base) <= 1e-12 * speedup, "%s: speedup %.12g, plain runs %.12g", args, speedup,
          after / base);
    cJSON_Delete(j);
  }
  /* The table says what moved. */
  run_result r = runs(SS_SIM_BIN, "whatif platforms/p3.16xl.xml workloads/vgg11.json --instances 2 --synthetic "
                                  "--change nic_gbps=100");
  CHECK(r.status == 0 && strstr(r.out, "network stall") && strstr(r.out, "speedup: x"), "whatif table: %s", r.out);
  run_free(&r);
}

void test_help_version(void)
{
  run_result r = runs(SS_SIM_BIN, "--help");
  CHECK(r.status == 0 && strstr(r.out, "usage: stash-sim") && !*r.err, "--help");
  run_free(&r);
  r = runs(SS_SIM_BIN, "--version");
  CHECK(r.status == 0 && strncmp(r.out, "stash-sim ", 10) == 0, "--version");
  run_free(&r);
  /* Each subcommand's help, before its arguments (issue 30: bench --help was refused). */
  const char* sub[] = {"bench --help", "bench -h",      "bench allreduce --help",
                       "plan --help",  "whatif --help", "list --help"};
  for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
    r = runs(SS_SIM_BIN, sub[i]);
    CHECK(r.status == 0 && strstr(r.out, "usage: stash-sim") && !*r.err, "%s: exit %d, %s", sub[i], r.status, r.err);
    run_free(&r);
  }
}

/* The option registry as the binary shows it: --list-options --format json lists every option of
 * --help, the reports echo the options as the run used them (defaults resolved), the CSV's columns
 * are the JSON's paths with the same values, and -o - writes to standard output. */
void test_registry(void)
{
  run_result r = runs(SS_SIM_BIN, "--list-options --format json");
  cJSON* reg = r.status == 0 ? cJSON_Parse(r.out) : NULL;
  const cJSON* opts = cJSON_GetObjectItemCaseSensitive(reg, "options");
  CHECK(cJSON_GetArraySize(opts) > 30 && num(reg, "schema_version") == 1, "--list-options --format json");
  run_result help = runs(SS_SIM_BIN, "--help");
  const cJSON* o;
  cJSON_ArrayForEach(o, opts)
  {
    const cJSON* name = cJSON_GetObjectItemCaseSensitive(o, "name");
    const cJSON* cmds = cJSON_GetObjectItemCaseSensitive(o, "commands");
    int run = 0, positional = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "positional"));
    const cJSON* c;
    cJSON_ArrayForEach(c, cmds) run |= strcmp(c->valuestring, "run") == 0;
    char flag[96];
    snprintf(flag, sizeof(flag), "--%s", name->valuestring);
    CHECK(!run || positional || strstr(help.out, flag), "--help lacks %s", flag);
  }
  run_free(&help);
  cJSON_Delete(reg);
  run_free(&r);
  /* The echo: given values as given, derived ones resolved (8 GPUs, the workload's batch). */
  cJSON* j = sim_json("platforms/p3.16xl.xml workloads/resnet50.json --synthetic --bucket-mb 5 --iterations 3");
  const cJSON* e = cJSON_GetObjectItemCaseSensitive(j, "options");
  CHECK(e && num(e, "gpus") == 8 && num(e, "batch") == 80 && num(e, "bucket_mib") == 5 && num(e, "iterations") == 3 &&
            strcmp(cJSON_GetObjectItemCaseSensitive(e, "synthetic")->valuestring, "device") == 0 &&
            strcmp(cJSON_GetObjectItemCaseSensitive(e, "allreduce")->valuestring, "auto") == 0,
        "the options echo");
  CHECK(j && num(j, "schema_version") == 1, "schema_version");
  /* CSV = the JSON flattened: every column a path with the JSON's value. */
  r = runs(SS_SIM_BIN, "platforms/p3.16xl.xml workloads/resnet50.json --synthetic --bucket-mb 5 --iterations 3 "
                       "--format csv -o -");
  char* nl = strchr(r.out, '\n');
  int cols = 0, same = 0;
  char* h = r.out;
  char* v = nl ? nl + 1 : NULL;
  if (r.status == 0 && nl) {
    *nl = '\0';
    v[strcspn(v, "\n")] = '\0';
  }
  /* Field by field, empty ones kept (no value in the report has a comma or a quote). */
  while (r.status == 0 && h && v) {
    char* hn = strchr(h, ',');
    char* vn = strchr(v, ',');
    if (hn)
      *hn = '\0';
    if (vn)
      *vn = '\0';
    cols++;
    const cJSON* node = j;
    char path[256];
    snprintf(path, sizeof(path), "%s", h);
    char* ps = NULL;
    for (char* k = strtok_r(path, ".", &ps); k && node; k = strtok_r(NULL, ".", &ps))
      node = cJSON_GetObjectItemCaseSensitive(node, k);
    if (cJSON_IsNumber(node))
      same += strtod(v, NULL) == node->valuedouble;
    else if (cJSON_IsString(node))
      same += strcmp(v, node->valuestring) == 0;
    else if (cJSON_IsBool(node))
      same += strcmp(v, cJSON_IsTrue(node) ? "true" : "false") == 0;
    else if (cJSON_IsNull(node))
      same += !*v;
    else
      same += cJSON_IsArray(node); /* joined by spaces: the sweep's tests check them */
    h = hn ? hn + 1 : NULL;
    v = vn ? vn + 1 : NULL;
  }
  CHECK(cols > 60 && same == cols, "CSV: %d of %d columns agree with the JSON", same, cols);
  run_free(&r);
  cJSON_Delete(j);
}

/* The two jobs of test_price_choice (star2 x 3: its instance file has a price; p3.16xlarge x 2:
 * the table's) and the user's price file. */
#define PRICE_STAR "tests/platforms/star2.xml tests/workloads/tiny.json --instances 3"
#define PRICE_P3 "platforms/p3.16xl.xml workloads/resnet50.json --synthetic --iterations 2 --warmup 1 --instances 2"
#define PRICE_FILE "--price-file tests/fixtures/prices_test.csv"
#define PRICE_P5 "platforms/p5.48xl.xml tests/workloads/tiny.json --iterations 2 --warmup 1"
#define PRICE_P5E "platforms/p5e.48xl.xml tests/workloads/tiny.json --iterations 2 --warmup 1"

/* Prices: the cost of an epoch is the chosen price x instances x epoch time (closed form), whichever
 * of --price-file, the table (--region, --purchase, --price-date) and the instance file gives the
 * price, and the report names the source and the purchase option. */
void test_price_choice(void)
{
  static const struct {
    const char* args;
    double price;
    const char* source;
    const char* purchase;
  } cases[] = {
      {PRICE_STAR, 1, "instance file on-demand", "on-demand"},
      {PRICE_STAR " " PRICE_FILE, 2.5, PRICE_FILE " us-east-1 2026-12-01 spot", "spot"},
      {PRICE_STAR " " PRICE_FILE " --region eu-west-1", 3.75, PRICE_FILE " eu-west-1 2026-12-01 savings-plan-1y",
       "savings-plan-1y"},
      {PRICE_P3, 24.48, "prices.csv us-east-1 2026-12-01 on-demand", "on-demand"},
      {PRICE_P3 " --region eu-west-1", 26.44, "prices.csv eu-west-1 2026-12-01 on-demand", "on-demand"},
      {PRICE_P3 " --region eu-west-1 " PRICE_FILE, 7.3, PRICE_FILE " eu-west-1 2026-12-01 spot", "spot"},
      {PRICE_P5, 55.04, "prices.csv us-east-1 2025-06-05 on-demand", "on-demand"},
      {PRICE_P5 " --price-date 2025-06-04", 98.32, "prices.csv us-east-1 2025-03-31 on-demand", "on-demand"},
      {PRICE_P5 " --purchase capacity-block", 41.528, "prices.csv us-east-1 2026-07-22 capacity-block",
       "capacity-block"},
      {PRICE_P5 " --purchase capacity-block --price-date 2026-03-01", 31.464,
       "prices.csv us-east-1 2026-01-31 capacity-block", "capacity-block"},
      {PRICE_P5 " --purchase spot --region us-west-2", 18.2302, "prices.csv us-west-2 2025-11-30 spot DERIVED", "spot"},
      {PRICE_P5E, 47.76, "prices.csv us-east-2 2026-07-22 capacity-block", "capacity-block"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    cJSON* j = sim_json("%s", cases[i].args);
    if (!j)
      continue;
    double price = cJSON_GetObjectItemCaseSensitive(j, "price_usd_per_h")->valuedouble;
    double epoch = cJSON_GetObjectItemCaseSensitive(j, "epoch_s")->valuedouble;
    double cost = cJSON_GetObjectItemCaseSensitive(j, "cost_usd_per_epoch")->valuedouble;
    double inst = cJSON_GetObjectItemCaseSensitive(j, "instances")->valuedouble;
    const cJSON* src = cJSON_GetObjectItemCaseSensitive(j, "price_source");
    const cJSON* how = cJSON_GetObjectItemCaseSensitive(j, "purchase");
    CHECK(price == cases[i].price, "%s: price %.17g, expected %.17g", cases[i].args, price, cases[i].price);
    CHECK(fabs(cost - cases[i].price * inst * epoch / 3600) <= 1e-12 * cost, "%s: cost %.17g, expected %.17g",
          cases[i].args, cost, cases[i].price * inst * epoch / 3600);
    CHECK(cJSON_IsString(src) && strcmp(src->valuestring, cases[i].source) == 0, "%s: price_source '%s'", cases[i].args,
          cJSON_IsString(src) ? src->valuestring : "none");
    CHECK(cJSON_IsString(how) && strcmp(how->valuestring, cases[i].purchase) == 0, "%s: purchase '%s'", cases[i].args,
          cJSON_IsString(how) ? how->valuestring : "none");
    cJSON_Delete(j);
  }
}

/* GPU memory (docs/model.md, "GPU memory"): a job that does not fit its GPU is refused with one line
 * unless --ignore-memory; one that fits reports its parts, which sum to the total. */
void test_gpu_memory(void)
{
  run_result r = runs(SS_SIM_BIN, "platforms/p3.16xl.xml workloads/bert-large.json --batch 64");
  CHECK(r.status == 1 && strncmp(r.err, "workloads/bert-large.json: error: needs 110.8 GiB of 16 GiB", 59) == 0 &&
            strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
        "BERT-large at batch 64 on a V100: exit %d, %s", r.status, r.err);
  run_free(&r);
  static const char* const parts[] = {"parameters", "gradients", "optimizer", "activations", "buffers", "reserve"};
  cJSON* j = sim_json("platforms/p3.16xl.xml workloads/bert-large.json --batch 64 --ignore-memory -n 1 --warmup 0 "
                      "--synthetic");
  const cJSON* m = cJSON_GetObjectItemCaseSensitive(j, "gpu_memory_bytes");
  CHECK(cJSON_IsObject(m), "gpu_memory_bytes is not an object");
  double sum = 0;
  for (int k = 0; m && k < 6; k++)
    sum += cJSON_GetObjectItemCaseSensitive(m, parts[k])->valuedouble;
  double total = cJSON_GetObjectItemCaseSensitive(m, "total")->valuedouble;
  CHECK(fabs(sum - total) <= 1e-9 * total, "parts sum to %.17g, total %.17g", sum, total);
  /* 334,094,338 parameters with AdamW: 4 + 4 + 8 B each, DDP's buckets 4 more; 1,741,164,544 B a sample. */
  CHECK(cJSON_GetObjectItemCaseSensitive(m, "optimizer")->valuedouble == 334094338.0 * 8, "BERT-large's AdamW state");
  CHECK(cJSON_GetObjectItemCaseSensitive(m, "buffers")->valuedouble == 334094338.0 * 4, "BERT-large's DDP buckets");
  CHECK(cJSON_GetObjectItemCaseSensitive(m, "activations")->valuedouble == 1741164544.0 * 64,
        "BERT-large's activations");
  CHECK(total > cJSON_GetObjectItemCaseSensitive(m, "capacity")->valuedouble, "BERT-large at 64 fits?");
  cJSON_Delete(j);
  /* GPT-2 1.5B at batch 1: not on a 16 GB V100, on an 80 GB H100. */
  r = runs(SS_SIM_BIN, "platforms/p3.16xl.xml workloads/gpt2-1.5b.json");
  CHECK(r.status == 1 && strstr(r.err, "needs 49.1 GiB of 16 GiB on a Tesla V100-SXM2-16GB") != NULL,
        "GPT-2 1.5B on a V100: exit %d, %s", r.status, r.err);
  run_free(&r);
  j = sim_json("platforms/p5.48xl.xml workloads/gpt2-1.5b.json -n 1 --warmup 0 --synthetic");
  m = cJSON_GetObjectItemCaseSensitive(j, "gpu_memory_bytes");
  CHECK(m && cJSON_GetObjectItemCaseSensitive(m, "total")->valuedouble == 52673926912.0 &&
            cJSON_GetObjectItemCaseSensitive(m, "capacity")->valuedouble == 80.0 * 1073741824.0,
        "GPT-2 1.5B on an H100");
  cJSON_Delete(j);
  /* Unknown memory (a workload without per-layer work): null, and the table says so. */
  j = sim_json("tests/platforms/star2.xml tests/workloads/tiny.json -n 1 --warmup 0 --synthetic");
  CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "gpu_memory_bytes")), "unknown memory is not null");
  cJSON_Delete(j);
  r = runs(SS_SIM_BIN, "platforms/p3.16xl.xml tests/workloads/tiny.json -n 1 --warmup 0 --synthetic");
  CHECK(r.status == 0 && strstr(r.out, "  GPU memory not checked: the workload gives no per-layer work (act_bytes)\n"),
        "no memory line: %s", r.out);
  run_free(&r);
}

/* list categories: the table the scripts read is the report's: seven categories in its order, each
 * key a key of the JSON report's breakdown (and no other there), each label a line of its table (the
 * pipeline bubble's in a pipeline-parallel run's, the only one that shows it); the table form a
 * line each, the CSV a header and a line each. */
void test_list_categories(void)
{
  static const char* const names[] = {"compute",       "prep_stall", "fetch_stall", "interconnect_stall",
                                      "network_stall", "host_stall", "bubble"};
  run_result r = runs(SS_SIM_BIN, "list categories --format json");
  cJSON* cats = r.status == 0 && !*r.err ? cJSON_Parse(r.out) : NULL;
  CHECK(cJSON_IsArray(cats) && cJSON_GetArraySize(cats) == 7, "list categories --format json: exit %d, %s", r.status,
        r.err);
  run_free(&r);
  const char* base = "tests/platforms/star2.xml tests/workloads/tiny.json -n 1 --warmup 0";
  cJSON* j = sim_json("%s", base);
  const cJSON* bd = cJSON_GetObjectItemCaseSensitive(j, "breakdown");
  run_result table = runs(SS_SIM_BIN, base);
  run_result piped = runs(SS_SIM_BIN,
                          "platforms/p4d.24xl.xml tests/workloads/pipe8.json --gpus 2 --pp 2 --grad-accum 2");
  CHECK(cJSON_GetArraySize(bd) == 7, "the breakdown has %d keys", cJSON_GetArraySize(bd));
  for (int c = 0; cats && c < 7; c++) {
    const cJSON* o = cJSON_GetArrayItem(cats, c);
    const char* f[5] = {"name", "key", "label", "word", "host_wait"};
    const char* v[5];
    for (int k = 0; k < 5; k++) {
      const cJSON* s = cJSON_GetObjectItemCaseSensitive(o, f[k]);
      v[k] = cJSON_IsString(s) && *s->valuestring ? s->valuestring : "";
      CHECK(*v[k], "category %d: no %s", c, f[k]);
    }
    char key[64], line[96];
    snprintf(key, sizeof(key), "%s_s", names[c]);
    snprintf(line, sizeof(line), "\n    %s ", v[2]);
    CHECK(strcmp(v[0], names[c]) == 0 && strcmp(v[1], key) == 0, "category %d: %s, %s", c, v[0], v[1]);
    CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(bd, v[1])), "the breakdown has no %s", v[1]);
    CHECK(strstr(strcmp(v[0], "bubble") ? table.out : piped.out, line) != NULL, "the report's table has no line '%s'",
          v[2]);
  }
  run_free(&table);
  run_free(&piped);
  cJSON_Delete(j);
  cJSON_Delete(cats);
  /* The table: a line each, the name first, its key next. */
  r = runs(SS_SIM_BIN, "list categories");
  int lines = 0;
  for (char *s = r.out, *nl; r.status == 0 && (nl = strchr(s, '\n')); s = nl + 1, lines++) {
    char want[64];
    snprintf(want, sizeof(want), "%s ", lines < 7 ? names[lines] : "?");
    const char* key = strstr(s, "_s ");
    CHECK(lines < 7 && strncmp(s, want, strlen(want)) == 0 && key && key < nl, "list categories, line %d", lines + 1);
  }
  CHECK(r.status == 0 && lines == 7 && !*r.err, "list categories: exit %d, %d lines", r.status, lines);
  run_free(&r);
  r = runs(SS_SIM_BIN, "list categories --format csv");
  lines = 0;
  for (const char* s = r.out; (s = strchr(s, '\n')); s++)
    lines++;
  const char* head = "name,key,label,word,host_wait\ncompute,compute_s,";
  CHECK(r.status == 0 && strncmp(r.out, head, strlen(head)) == 0 && lines == 8, "list categories --format csv: %s",
        r.out);
  run_free(&r);
}

/* The estimate of a command as --estimate prints it (JSON): its object, or NULL. */
static cJSON* estimate_of(const char* args)
{
  char buf[1024];
  snprintf(buf, sizeof(buf), "%s --estimate --format json", args);
  run_result r = runs(SS_SIM_BIN, buf);
  cJSON* j = r.status == 0 && !*r.err ? cJSON_Parse(r.out) : NULL;
  CHECK(j != NULL, "%s: exit %d, %s", buf, r.status, r.err);
  run_free(&r);
  return j;
}

/* --estimate (issue 30): every command prints its work and simulates nothing; the estimate grows
 * with what is simulated; --max-minutes refuses exactly what the estimate puts beyond it. */
void test_estimate(void)
{
  static const struct {
    const char* args;
    int runs;
  } cmd[] = {
      {"tests/platforms/star2.xml tests/workloads/tiny.json", 1},
      {"tests/platforms/star2.xml tests/workloads/tiny.json --stash", 4},
      {"whatif tests/platforms/star2.xml tests/workloads/tiny.json --change instances=2", 2},
      {"bench allreduce tests/platforms/star2.xml --iters 3", 1},
      {"plan tests/workloads/tiny.json --platforms tests/platforms/star2.xml --max-instances 3 --algorithms ring,tree",
       6},
  };
  for (size_t i = 0; i < sizeof(cmd) / sizeof(cmd[0]); i++) {
    cJSON* j = estimate_of(cmd[i].args);
    CHECK(num(j, "simulations") == cmd[i].runs && num(j, "estimated_cpu_s") > 0 &&
              cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "within_bound")),
          "%s: %d simulations expected", cmd[i].args, cmd[i].runs);
    cJSON_Delete(j);
    /* The text form: one line, on standard output. */
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s --estimate", cmd[i].args);
    run_result r = runs(SS_SIM_BIN, buf);
    CHECK(r.status == 0 && strncmp(r.out, "this ", 5) == 0 && strstr(r.out, "allows it\n") && !*r.err, "%s: %s", buf,
          r.out);
    run_free(&r);
  }
  /* Nothing is simulated, nothing written: -o is not created. */
  char out[] = "/tmp/ss_estimate_XXXXXX";
  int fd = mkstemp(out);
  CHECK(fd >= 0, "mkstemp");
  close(fd);
  unlink(out);
  char buf[1024];
  snprintf(buf, sizeof(buf), "tests/platforms/star2.xml tests/workloads/tiny.json --estimate -o %s", out);
  run_result r = runs(SS_SIM_BIN, buf);
  CHECK(r.status == 0 && access(out, F_OK) != 0, "--estimate wrote -o");
  run_free(&r);
  /* It grows with the instances simulated, the iterations and the fidelity. */
  cJSON* a = estimate_of("platforms/p3.16xl.xml workloads/resnet50.json --instances 2 --no-symmetry");
  cJSON* b = estimate_of("platforms/p3.16xl.xml workloads/resnet50.json --instances 8 --no-symmetry");
  cJSON* c = estimate_of("platforms/p3.16xl.xml workloads/resnet50.json --instances 8 --no-symmetry --iterations 100");
  cJSON* d = estimate_of("platforms/p3.16xl.xml workloads/resnet50.json --instances 8 --fidelity reference");
  double ea = num(a, "estimated_cpu_s"), eb = num(b, "estimated_cpu_s"), ec = num(c, "estimated_cpu_s"),
         ed = num(d, "estimated_cpu_s");
  CHECK(ea < eb && eb < ec && eb < ed, "estimates %g (2 instances) %g (8) %g (100 iterations) %g (reference)", ea, eb,
        ec, ed);
  cJSON_Delete(a);
  cJSON_Delete(b);
  cJSON_Delete(c);
  cJSON_Delete(d);
  /* --max-minutes refuses what the estimate puts beyond it, and only that. */
  double minutes = ec / 60;
  snprintf(buf, sizeof(buf),
           "platforms/p3.16xl.xml workloads/resnet50.json --instances 8 --no-symmetry --iterations 100 "
           "--max-minutes %.9g",
           minutes * 0.99);
  r = runs(SS_SIM_BIN, buf);
  CHECK(r.status == 1 && strstr(r.err, "more than --max-minutes") && !*r.out, "below the estimate: exit %d, %s",
        r.status, r.err);
  run_free(&r);
  snprintf(buf, sizeof(buf),
           "platforms/p3.16xl.xml workloads/resnet50.json --instances 8 --no-symmetry --iterations 100 "
           "--max-minutes %.9g --estimate",
           minutes * 1.01);
  r = runs(SS_SIM_BIN, buf);
  CHECK(r.status == 0 && strstr(r.out, "allows it"), "above the estimate: exit %d, %s", r.status, r.out);
  run_free(&r);
}
