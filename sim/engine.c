/* engine: run one simulation of a job on SimGrid. */
#include "engine.h"

#include "actors.h"

#include <fcntl.h>
#include <simgrid/engine.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char* const ss_engine_default_cfg[] = {
    "--log=xbt_cfg.thresh:warning",     "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
    "--cfg=network/TCP-gamma:0",        NULL};

static void engine_init(const ss_job* job, int ncfg, char** cfg)
{
  int nd = 0;
  while (ss_engine_default_cfg[nd])
    nd++;
  int argc = 1 + nd + ncfg;
  char** argv = calloc((size_t)argc + 1, sizeof(char*));
  ss_assert(argv);
  argv[0] = (char*)"stash-sim";
  for (int i = 0; i < nd; i++)
    argv[1 + i] = (char*)ss_engine_default_cfg[i];
  for (int i = 0; i < ncfg; i++)
    argv[1 + nd + i] = cfg[i];
  simgrid_init(&argc, argv);
  free(argv);
  /* The file passed our own validation (platform.c), so SimGrid will not abort on it. */
  simgrid_load_platform(job->platform->path);
}

static void spawn(ss_sim* s, ss_actor_arg* arg, const char* name, sg_host_t host, xbt_main_func_t code)
{
  sg_actor_t a = sg_actor_init(name, host);
  sg_actor_set_data(a, arg);
  sg_actor_start(a, code, 0, NULL);
  s->actors_started++;
}

/* Build per-rank state and start the actors; args receives the actor arguments to free later. */
static void sim_setup(ss_sim* s, const ss_job* j, ss_actor_arg** args_out)
{
  int n = j->ngpus;
  int loaders = j->opt.synthetic || s->coll_bytes > 0 ? 0 : j->workers;
  s->cpu = sg_host_by_name("cpu");
  unsigned ndisks = 0;
  sg_disk_t* disks = NULL;
  sg_host_get_disks(s->cpu, &ndisks, &disks);
  ss_assert(ndisks == 1);
  s->disk = disks[0];
  free(disks);
  s->ranks = calloc((size_t)n, sizeof(ss_rank));
  ss_actor_arg* args = calloc((size_t)n * (size_t)(2 + loaders), sizeof(ss_actor_arg));
  ss_assert(s->ranks && args);
  *args_out = args;
  int na = 0;
  char name[64];
  for (int r = 0; r < n; r++) {
    ss_rank* me = &s->ranks[r];
    me->rank = r;
    snprintf(name, sizeof(name), "gpu%d", r);
    me->host = sg_host_by_name(name);
    me->mu = sg_mutex_init();
    me->cv = sg_cond_init();
    me->pending = sg_sem_init(0);
    me->ready = calloc((size_t)j->niters, 1);
    me->batch_fetch_s = calloc((size_t)j->niters, sizeof(double));
    me->batch_prep_s = calloc((size_t)j->niters, sizeof(double));
    me->inbox = calloc((size_t)j->rings.nrings, sizeof(sg_mailbox_t));
    me->next = calloc((size_t)j->rings.nrings, sizeof(int));
    ss_assert(me->host && me->ready && me->batch_fetch_s && me->batch_prep_s && me->inbox && me->next);
    for (int c = 0; c < j->rings.nrings; c++) {
      snprintf(name, sizeof(name), "ring%d.rank%d", c, r);
      me->inbox[c] = sg_mailbox_by_name(name);
    }
  }
  for (int c = 0; c < j->rings.nrings; c++)
    for (int i = 0; i < n; i++)
      s->ranks[j->rings.rings[c].order[i]].next[c] = j->rings.rings[c].order[(i + 1) % n];
  for (int r = 0; r < n; r++) {
    if (s->coll_bytes <= 0) {
      args[na] = (ss_actor_arg){s, r, 0};
      snprintf(name, sizeof(name), "trainer%d", r);
      spawn(s, &args[na++], name, s->ranks[r].host, ss_trainer_actor);
    }
    if (n > 1) {
      args[na] = (ss_actor_arg){s, r, 0};
      snprintf(name, sizeof(name), "coll%d", r);
      spawn(s, &args[na++], name, s->ranks[r].host, ss_coll_actor);
    }
    for (int w = 0; w < loaders; w++) {
      args[na] = (ss_actor_arg){s, r, w};
      snprintf(name, sizeof(name), "loader%d.%d", r, w);
      spawn(s, &args[na++], name, s->cpu, ss_loader_actor);
    }
  }
}

static void sim_teardown(ss_sim* s, const ss_job* j, ss_actor_arg* args)
{
  for (int r = 0; s->ranks && r < j->ngpus; r++) {
    ss_rank* me = &s->ranks[r];
    sg_mutex_destroy(me->mu);
    sg_cond_destroy(me->cv);
    sg_sem_destroy(me->pending);
    free(me->ready);
    free(me->batch_fetch_s);
    free(me->batch_prep_s);
    free(me->inbox);
    free(me->next);
  }
  free(s->ranks);
  free(args);
}

static int sim_run(ss_sim* s, ss_err* err)
{
  simgrid_run();
  if (s->actors_finished == s->actors_started)
    return SS_OK;
  ss_err_set(err, NULL, 0, "the simulation stopped with %d of %d actors unfinished (deadlock)",
             s->actors_started - s->actors_finished, s->actors_started);
  return SS_ESIM;
}

int ss_engine_run(const ss_job* job, int ncfg, char** cfg, ss_timeline** out, double* simulated_s, ss_err* err)
{
  engine_init(job, ncfg, cfg);
  ss_sim s = {.job = job};
  s.tl = ss_timeline_new(job->ngpus, job->niters);
  ss_assert(s.tl);
  ss_actor_arg* args = NULL;
  sim_setup(&s, job, &args);
  int rc = sim_run(&s, err);
  *simulated_s = simgrid_get_clock();
  sim_teardown(&s, job, args);
  if (rc) {
    ss_timeline_free(s.tl);
    return rc;
  }
  *out = s.tl;
  return SS_OK;
}

int ss_engine_allreduce(const ss_job* job, int ncfg, char** cfg, double bytes, int reps, double* end_s, ss_err* err)
{
  ss_assert(bytes > 0 && reps > 0);
  engine_init(job, ncfg, cfg);
  ss_sim s = {.job = job, .coll_bytes = bytes, .coll_reps = reps, .coll_end_s = end_s};
  ss_actor_arg* args = NULL;
  sim_setup(&s, job, &args);
  int rc = sim_run(&s, err);
  sim_teardown(&s, job, args);
  return rc;
}

/* The message of SimGrid's first error line, without its "[date] file:line: [category/LEVEL] "
 * prefix and C++ exception names. */
static void simgrid_message(char* text, char* msg, size_t size)
{
  char* end = strchr(text, '\n');
  if (end)
    *end = '\0';
  char* m = text;
  char* level = strstr(m, "/CRITICAL] ");
  if (!level)
    level = strstr(m, "/ERROR] ");
  if (level)
    m = strstr(level, "] ") + 2;
  if (strncmp(m, "Uncaught exception ", 19) == 0) {
    m += 19;
    char* colon = strstr(m, ": ");
    if (colon)
      m = colon + 2;
  }
  snprintf(msg, size, "%s", *m ? m : "SimGrid stopped");
}

int ss_engine_check_cfg(const ss_job* job, int ncfg, char** cfg, ss_err* err)
{
  if (ncfg == 0)
    return SS_OK;
  int fds[2];
  if (pipe(fds))
    return ss_err_set(err, NULL, 0, "cannot check the SimGrid options: pipe failed");
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return ss_err_set(err, NULL, 0, "cannot check the SimGrid options: fork failed");
  }
  if (pid == 0) {
    /* A trial start-up: SimGrid aborts on a bad option, and the parent reads why. */
    int null = open("/dev/null", O_WRONLY);
    close(fds[0]);
    dup2(fds[1], 2);
    if (null >= 0)
      dup2(null, 1);
    engine_init(job, ncfg, cfg);
    _exit(0);
  }
  close(fds[1]);
  /* Keep the start of what the child says (its first line is the reason) and drain the rest. */
  char text[4096], chunk[4096];
  size_t n = 0;
  ssize_t got;
  while ((got = read(fds[0], chunk, sizeof(chunk))) > 0) {
    size_t take = (size_t)got < sizeof(text) - 1 - n ? (size_t)got : sizeof(text) - 1 - n;
    memcpy(text + n, chunk, take);
    n += take;
  }
  text[n] = '\0';
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return SS_OK;
  char msg[sizeof(text)];
  simgrid_message(text, msg, sizeof(msg));
  char given[512] = "";
  for (int i = 0; i < ncfg; i++) {
    size_t len = strlen(given);
    snprintf(given + len, sizeof(given) - len, "%s%s", i ? " " : "", cfg[i]);
  }
  return ss_err_set(err, NULL, 0, "SimGrid rejected %s: %s", given, msg);
}
