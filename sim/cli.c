/* cli: parse stash-sim's command line through the option registry. */
#include "cli.h"

#include "err.h"
#include "price.h"

#include <getopt.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* getopt values: registry rows are OPT_ROW + their index; the options of the command line itself
 * come after them. */
enum { OPT_ROW = 256, OPT_VERSION = 1000, OPT_LIST_OPTIONS, OPT_CHANGE };

static int usage_error(char* msg, size_t size, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

static int usage_error(char* msg, size_t size, const char* fmt, ...)
{
  char inner[768], line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(inner, sizeof(inner), fmt, ap);
  va_end(ap);
  /* The arguments it quotes may hold control characters: the error stays one line. */
  snprintf(line, sizeof(line), "stash-sim: error: %s (see --help)", inner);
  ss_text_escape(msg, size, line);
  return 2;
}

/* Not a usage error: the machine's (exit status 3). */
static int out_of_memory(char* msg, size_t size)
{
  snprintf(msg, size, "stash-sim: error: out of memory");
  return SS_EXIT_RESOURCE;
}

/* getopt's tables from the registry: a long option per row and per alias, a letter per short name. */
typedef struct getopt_tables {
  struct option* longs;
  char shorts[64];
} getopt_tables;

static int make_tables(getopt_tables* t)
{
  int n = 0;
  for (const ss_optdef* d = ss_option_table; d->name; d++)
    n += d->positional ? 0 : d->alias ? 2 : 1;
  t->longs = calloc((size_t)n + 5, sizeof(struct option)); /* 4 of the command line, a terminator */
  if (!t->longs)
    return -1;
  size_t s = (size_t)snprintf(t->shorts, sizeof(t->shorts), ":h");
  int k = 0;
  for (const ss_optdef* d = ss_option_table; d->name; d++) {
    if (d->positional)
      continue;
    int has_arg = d->kind == SS_KIND_SWITCH                ? no_argument
                  : d->kind == SS_KIND_ENUM && d->set != 0 ? optional_argument
                                                           : required_argument;
    t->longs[k++] = (struct option){d->name, has_arg, NULL, OPT_ROW + ss_option_index(d)};
    if (d->alias)
      t->longs[k++] = (struct option){d->alias, has_arg, NULL, OPT_ROW + ss_option_index(d)};
    if (d->short_name)
      s += (size_t)snprintf(t->shorts + s, sizeof(t->shorts) - s, "%c%s", d->short_name, has_arg ? ":" : "");
  }
  t->longs[k++] = (struct option){"help", no_argument, NULL, 'h'};
  t->longs[k++] = (struct option){"version", no_argument, NULL, OPT_VERSION};
  t->longs[k++] = (struct option){"list-options", no_argument, NULL, OPT_LIST_OPTIONS};
  t->longs[k++] = (struct option){"change", required_argument, NULL, OPT_CHANGE};
  return 0;
}

/* How messages name a command. */
static const char* command_words(unsigned cmd)
{
  switch (cmd) {
    case SS_CMD_BENCH: return "'stash-sim bench'";
    case SS_CMD_WHATIF: return "'stash-sim whatif'";
    case SS_CMD_LIST: return "'stash-sim list'";
    case SS_CMD_PLAN: return "'stash-sim plan'";
  }
  return "training runs";
}

/* An option given to a command it is not for. */
static int wrong_command(const ss_optdef* d, unsigned cmd, char* msg, size_t size)
{
  char where[256] = "";
  size_t n = 0;
  int total = 0, k = 0;
  for (const ss_command* c = ss_commands; c->name; c++)
    total += (d->commands & c->bit) && !(c->bit == SS_CMD_WHATIF && (d->commands & SS_CMD_RUN));
  for (const ss_command* c = ss_commands; c->name; c++)
    if ((d->commands & c->bit) && !(c->bit == SS_CMD_WHATIF && (d->commands & SS_CMD_RUN))) {
      k++;
      n += (size_t)snprintf(where + n, sizeof(where) - n, "%s%s",
                            k == 1       ? ""
                            : k == total ? " and "
                                         : ", ",
                            command_words(c->bit));
    }
  return usage_error(msg, size, "option '--%s' is not for %s; it is for %s", d->name, command_words(cmd), where);
}

/* getopt said '?': an unknown short option (optopt), a known flag given a value, or an unknown
 * long option (arg is the argument getopt stopped at). */
static int unknown_option(const getopt_tables* t, const char* arg, char* msg, size_t size)
{
  for (const struct option* o = t->longs; optopt && o->name; o++)
    if (o->val == optopt && o->has_arg == no_argument && strncmp(arg, "--", 2) == 0)
      return usage_error(msg, size, "option '--%s' takes no value", o->name);
  if (optopt > 0 && optopt < OPT_ROW)
    return usage_error(msg, size, "unknown option '-%c'", (char)optopt);
  return usage_error(msg, size, "unknown option '%s'", arg);
}

/* getopt_long takes an unambiguous prefix of a long option for the option ('--ep' for '--epochs'):
 * only a name or an alias of the registry, whole, is taken. The word getopt just read is the one
 * before optind, or the one before that when the value was the next word. 0, or a usage error. */
static int whole_name(const getopt_tables* t, int longindex, int nrest, char** rest, char* msg, size_t size)
{
  if (longindex < 0 || optind < 1 || optind > nrest)
    return 0;
  const char* word = rest[optind - 1];
  if (optarg && optarg == word && optind >= 2)
    word = rest[optind - 2];
  if (strncmp(word, "--", 2) != 0)
    return 0;
  const char* name = word + 2;
  size_t len = strcspn(name, "=");
  const char* full = t->longs[longindex].name;
  if (strlen(full) == len && strncmp(full, name, len) == 0)
    return 0;
  return usage_error(msg, size, "unknown option '--%.*s' (did you mean '--%s'? options are not abbreviated)",
                     (int)(len < 64 ? len : 64), name, full);
}

/* One option of the registry, checked against the command and parsed into c->opt. */
static int take_option(ss_cli* c, const ss_optdef* d, const char* arg, char* msg, size_t size)
{
  if (!(d->commands & c->cmd))
    return wrong_command(d, c->cmd, msg, size);
  char shown[64], why[768];
  snprintf(shown, sizeof(shown), "--%s", d->name);
  if (ss_option_parse(d, arg, &c->opt, shown, why, sizeof(why)))
    return usage_error(msg, size, "%s", why);
  ss_optset_add(&c->given, d);
  return 0;
}

/* Apply one whatif KEY=VALUE to c->changed: the value goes through the option of that key, so it is
 * checked as that option is; switches take on or off. */
static int apply_change(ss_cli* c, const char* change, ss_optset* changed, char* msg, size_t size)
{
  const char* eq = strchr(change, '=');
  char key[64];
  if (!eq || eq == change)
    return usage_error(msg, size, "--change expects KEY=VALUE, got '%s'", change);
  if ((size_t)(eq - change) >= sizeof(key)) /* no key is that long */
    return usage_error(msg, size, "--change: unknown key '%.*s'", (int)(eq - change), change);
  snprintf(key, sizeof(key), "%.*s", (int)(eq - change), change);
  const char* value = eq + 1;
  const ss_optdef* d = ss_option_by_key(key);
  if (!d) {
    /* The keys that fit the message, whole; --list-options has them all. */
    char keys[560] = "";
    size_t n = 0;
    int cut = 0;
    for (const ss_optdef* k = ss_option_table; k->name && !cut; k++) {
      if (!k->whatif_key)
        continue;
      cut = n + strlen(k->whatif_key) + 2 >= sizeof(keys);
      if (!cut)
        n += (size_t)snprintf(keys + n, sizeof(keys) - n, "%s%s", n ? ", " : "", k->whatif_key);
    }
    return usage_error(msg, size, "--change: unknown key '%s' (%s%s; --list-options gives every key)", key, keys,
                       cut ? ", ..." : "");
  }
  if (ss_optset_has_row(changed, d))
    return usage_error(msg, size, "--change: key '%s' given twice (one value per key)", key);
  ss_options* o = &c->changed;
  ss_optset_add(changed, d);
  int optional_enum = d->kind == SS_KIND_ENUM && d->set; /* on and off as for a switch */
  if (d->kind == SS_KIND_SWITCH || (optional_enum && (strcmp(value, "on") == 0 || strcmp(value, "off") == 0))) {
    if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0)
      return usage_error(msg, size, "--change %s: expected on or off", change);
    int on = optional_enum ? d->set : 1; /* a switch's key is in the positive sense (overlap, nvlink) */
    *(int*)((char*)o + d->offset) = strcmp(value, "on") == 0 ? on : 0;
    return 0;
  }
  char shown[96], why[768];
  snprintf(shown, sizeof(shown), "--change %s", key);
  if (ss_option_parse(d, value, o, shown, why, sizeof(why)))
    return usage_error(msg, size, "%s", why);
  /* Moving to allreduce leaves ASGD behind: allreduce is synchronous. */
  if (d->offset == offsetof(ss_options, arch) && o->arch == SS_ARCH_ALLREDUCE)
    o->async = 0;
  return 0;
}

/* whatif: at least one change, each valid, and a changed configuration that holds together (the
 * options it changes must have an effect in it). */
static int apply_changes(ss_cli* c, char* msg, size_t size)
{
  if (c->nchanges == 0)
    return usage_error(msg, size, "'stash-sim whatif' needs at least one --change KEY=VALUE");
  c->changed = c->opt;
  ss_optset* changed = &c->changes_given;
  for (int i = 0; i < c->nchanges; i++) {
    int rc = apply_change(c, c->changes[i], changed, msg, size);
    if (rc)
      return rc;
  }
  char why[768];
  if (ss_options_check(&c->changed, changed, SS_CMD_WHATIF, why, sizeof(why)))
    return usage_error(msg, size, "the changed configuration: %s", why);
  ss_options_settle(&c->changed, changed);
  return 0;
}

/* The command of argv[1] and the index of its first option word; 0 with msg for a bad subcommand. */
static int find_command(ss_cli* out, int argc, char** argv, int* first, char* msg, size_t size)
{
  *first = 1;
  out->cmd = SS_CMD_RUN;
  if (argc < 2)
    return 0;
  if (strcmp(argv[1], "whatif") == 0) {
    out->cmd = SS_CMD_WHATIF;
    *first = 2;
  } else if (strcmp(argv[1], "bench") == 0) {
    /* "stash-sim bench allreduce ...": the subcommand words are not getopt's. */
    out->cmd = SS_CMD_BENCH;
    if (argc < 3)
      return usage_error(msg, size, "'stash-sim bench' expects allreduce, reduce-scatter or all-gather, got nothing");
    /* "stash-sim bench --help" (or -h) asks for bench's help: the options come next. */
    if (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0) {
      *first = 2;
      return 0;
    }
    int op = ss_coll_op_parse(argv[2]);
    if (op < 0)
      return usage_error(msg, size, "'stash-sim bench' expects allreduce, reduce-scatter or all-gather, got '%s'",
                         argv[2]);
    out->opt.bench_op = (ss_coll_op)op;
    *first = 3;
  } else if (strcmp(argv[1], "list") == 0) {
    out->cmd = SS_CMD_LIST;
    *first = 2;
  } else if (strcmp(argv[1], "plan") == 0) {
    out->cmd = SS_CMD_PLAN;
    *first = 2;
  }
  return 0;
}

/* The positional arguments of the command. */
static int take_arguments(ss_cli* out, int nargs, char** args, char* msg, size_t size)
{
  /* An empty argument names no file (a shell variable left unset, most likely). */
  for (int i = 0; i < nargs && out->cmd != SS_CMD_LIST; i++)
    if (!args[i][0]) {
      const char* what = out->cmd == SS_CMD_PLAN || ((out->cmd == SS_CMD_RUN || out->cmd == SS_CMD_WHATIF) && i == 1)
                             ? "WORKLOAD"
                             : "PLATFORM";
      return usage_error(msg, size, "%s is empty: give a file or a short name ('stash-sim list %s')", what,
                         strcmp(what, "WORKLOAD") == 0 ? "workloads" : "platforms");
    }
  if (out->cmd == SS_CMD_LIST) {
    if (nargs == 0)
      return usage_error(msg, size, "'stash-sim list' expects platforms, workloads or categories, got nothing");
    if (nargs > 1 ||
        (strcmp(args[0], "platforms") != 0 && strcmp(args[0], "workloads") != 0 && strcmp(args[0], "categories") != 0))
      return usage_error(msg, size, "'stash-sim list' expects platforms, workloads or categories, got '%s'",
                         args[nargs > 1]);
    out->list_what = args[0];
    return 0;
  }
  if (out->cmd == SS_CMD_BENCH) {
    if (nargs != 1)
      return usage_error(msg, size, "'bench %s' expects one PLATFORM, got %s", ss_coll_op_name(out->opt.bench_op),
                         nargs == 0 ? "none" : "more");
    out->opt.platform_path = args[0];
    return 0;
  }
  if (out->cmd == SS_CMD_PLAN) {
    if (nargs != 1)
      return usage_error(msg, size,
                         "'stash-sim plan' expects one WORKLOAD (the instance types come from "
                         "--platforms), got %s",
                         nargs == 0 ? "none" : "more");
    out->opt.workload_path = args[0];
    return 0;
  }
  if (nargs != 2)
    return usage_error(msg, size, "expected PLATFORM and WORKLOAD, got %s argument%s",
                       nargs == 0   ? "no"
                       : nargs == 1 ? "one"
                                    : "more than two",
                       nargs == 1 ? "" : "s");
  out->opt.platform_path = args[0];
  out->opt.workload_path = args[1];
  return 0;
}

/* The value of an option whose value is optional (--synthetic [MODE]): after '=', or the next word
 * when it is one of the option's names (then taken from the arguments), else none (NULL). */
static const char* optional_value(const ss_optdef* d, int nrest, char** rest, const char* arg)
{
  if (arg || d->kind != SS_KIND_ENUM || !d->set || optind >= nrest)
    return arg;
  for (int i = 0; d->values[i]; i++)
    if (strcmp(d->values[i], rest[optind]) == 0)
      return rest[optind++];
  return NULL;
}

/* Run getopt over rest[0..nrest) (SimGrid's options already set aside). */
static int parse_options(ss_cli* out, int nrest, char** rest, char* msg, size_t size)
{
  getopt_tables t;
  if (make_tables(&t))
    return out_of_memory(msg, size);
  int rc = 0, ch, longindex = -1;
  opterr = 0;
  /* 0, not 1: glibc then also forgets where it was inside a word of short options (-Xh), which a
   * second parse in the same process (compare's rows, the fuzz targets) would carry on from. */
  optind = 0;
  while (!rc && (longindex = -1, ch = getopt_long(nrest, rest, t.shorts, t.longs, &longindex)) != -1) {
    if (ch != '?' && ch != ':' && (rc = whole_name(&t, longindex, nrest, rest, msg, size)) != 0)
      break;
    const ss_optdef* d = ch >= OPT_ROW && ch < OPT_VERSION ? &ss_option_table[ch - OPT_ROW] : ss_option_by_short(ch);
    if (ch == 'h')
      out->help = 1;
    else if (ch == OPT_VERSION)
      out->version = 1;
    else if (ch == OPT_LIST_OPTIONS)
      out->list_options = 1;
    else if (ch == '?')
      rc = unknown_option(&t, rest[optind - 1], msg, size);
    else if (ch == ':' && optopt >= OPT_ROW && optopt < OPT_VERSION &&
             !(ss_option_table[optopt - OPT_ROW].commands & out->cmd))
      rc = wrong_command(&ss_option_table[optopt - OPT_ROW], out->cmd, msg, size);
    else if (ch == ':')
      rc = usage_error(msg, size, "option '%s' needs a value", rest[optind - 1]);
    else if (ch == OPT_CHANGE && out->cmd != SS_CMD_WHATIF)
      rc = usage_error(msg, size, "option '--change' is for 'stash-sim whatif'");
    else if (ch == OPT_CHANGE)
      out->changes[out->nchanges++] = optarg;
    else
      rc = take_option(out, d, optional_value(d, nrest, rest, optarg), msg, size);
  }
  free(t.longs);
  if (rc || out->help || out->version || out->list_options)
    return rc;
  rc = take_arguments(out, nrest - optind, rest + optind, msg, size);
  char why[768];
  if (!rc && ss_options_check(&out->opt, &out->given, out->cmd, why, sizeof(why)))
    rc = usage_error(msg, size, "%s", why);
  if (!rc)
    ss_options_settle(&out->opt, &out->given);
  if (!rc && out->cmd == SS_CMD_WHATIF)
    rc = apply_changes(out, msg, size);
  return rc;
}

int ss_cli_parse(int argc, char** argv, ss_cli* out, char* msg, size_t msg_size)
{
  memset(out, 0, sizeof(*out));
  ss_options_default(&out->opt);
  out->cfg = calloc((size_t)argc + 1, sizeof(char*));
  out->changes = calloc((size_t)argc + 1, sizeof(char*));
  char** rest = calloc((size_t)argc + 1, sizeof(char*));
  int first = 1;
  int rc = !out->cfg || !out->changes || !rest ? out_of_memory(msg, msg_size)
                                               : find_command(out, argc, argv, &first, msg, msg_size);
  if (rc) {
    free(rest);
    return rc;
  }
  /* SimGrid's options go aside; getopt sees the rest. */
  int nrest = 0;
  rest[nrest++] = argv[0];
  for (int i = first; i < argc; i++) {
    if (strncmp(argv[i], "--cfg=", 6) == 0 || strncmp(argv[i], "--log=", 6) == 0)
      out->cfg[out->ncfg++] = argv[i];
    else
      rest[nrest++] = argv[i];
  }
  if (out->ncfg && out->cmd == SS_CMD_LIST)
    rc = usage_error(msg, msg_size, "option '%s' is not for 'stash-sim list'", out->cfg[0]);
  else
    rc = parse_options(out, nrest, rest, msg, msg_size);
  free(rest);
  return rc;
}

void ss_cli_free(ss_cli* c)
{
  free(c->cfg);
  free(c->changes);
  c->cfg = NULL;
  c->changes = NULL;
}

/* Add instance file path as what, and the price table the run reads beside it. */
static int add_instance(ss_inputs* in, const char* what, const char* path)
{
  char table[4096], beside[160];
  if (ss_inputs_add(in, what, path))
    return SS_ENOMEM;
  if (!path || !ss_price_table_path(path, table, sizeof(table)))
    return SS_OK;
  snprintf(beside, sizeof(beside), "%s beside %s", SS_PRICE_TABLE, what);
  return ss_inputs_add(in, beside, table);
}

int ss_cli_inputs(const ss_cli* cli, const ss_planner_platform* plats, int nplats, ss_inputs* in)
{
  const ss_options* sets[2] = {&cli->opt, cli->cmd == SS_CMD_WHATIF ? &cli->changed : NULL};
  for (int k = 0; k < 2 && sets[k]; k++)
    for (const ss_optdef* d = ss_option_table; d->name; d++) {
      if (d->file != SS_FILE_READS || !(d->commands & (unsigned)cli->cmd))
        continue;
      const char* path = *(const char* const*)(const void*)((const char*)sets[k] + d->offset);
      const char* mine = *(const char* const*)(const void*)((const char*)&cli->opt + d->offset);
      if (k == 1 && (!path || (mine && strcmp(path, mine) == 0)))
        continue; /* not changed */
      char what[128];
      if (k == 1)
        snprintf(what, sizeof(what), "the changed %s (--change %s=)", d->name, d->whatif_key ? d->whatif_key : d->name);
      else if (d->positional)
        snprintf(what, sizeof(what), "the %s", d->name);
      else
        snprintf(what, sizeof(what), "--%s", d->name);
      int rc = d->offset == offsetof(ss_options, platform_path) ? add_instance(in, what, path)
                                                                : ss_inputs_add(in, what, path);
      if (rc)
        return rc;
    }
  for (int i = 0; i < nplats; i++) {
    if (add_instance(in, "an instance file of --platforms", plats[i].path))
      return SS_ENOMEM;
  }
  return SS_OK;
}
