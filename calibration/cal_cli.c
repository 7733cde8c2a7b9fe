/* cal_cli: one main for stash-calibrate's subcommands: their options, --help, their errors. */
#include "cal_cli.h"

#include "err.h"

#include <stdarg.h>
#include <stdio.h>

int cal_cli_main(const cal_cli* cli, int argc, char** argv, void* args)
{
  int help = 0, ch;
  opterr = 0;
  optind = 0; /* 0: glibc also forgets a word of short options left half-read (sim/cli.c) */
  while ((ch = getopt_long(argc, argv, ":o:h", cli->options, NULL)) != -1) {
    if (ch == 'h')
      help = 1;
    else if (ch == ':')
      return cal_usage_error(cli->name, "option '%s' needs a value", argv[optind - 1]);
    else if (ch == '?')
      return cal_usage_error(cli->name, "unknown option '%s'", argv[optind - 1]);
    else if (cli->option(ch, optarg, args))
      return 2;
  }
  if (help) {
    fputs(cli->help, stdout);
    return 0;
  }
  ss_err err;
  ss_err_clear(&err);
  int status = cli->run(args, argc - optind, argv + optind, &err);
  if (status >= 0)
    return status;
  char line[2048];
  ss_err_format(&err, line, sizeof(line));
  fprintf(stderr, "%s\n", line);
  return ss_err_exit_code(&err);
}

int cal_usage_error(const char* cmd, const char* fmt, ...)
{
  char inner[1024], line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(inner, sizeof(inner), fmt, ap);
  va_end(ap);
  /* The arguments it quotes may hold control characters: the error stays one line. */
  ss_text_escape(line, sizeof(line), inner);
  fprintf(stderr, "stash-calibrate%s%s: error: %s (see --help)\n", cmd ? " " : "", cmd ? cmd : "", line);
  return 2;
}
