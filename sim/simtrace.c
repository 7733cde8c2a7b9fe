/* simtrace: a simulation's ranks in the Chrome trace: its tracks, their names, spans on them. */
#include "simtrace.h"

#include <stdio.h>

void ss_simtrace_tracks(ss_sim* s)
{
  const ss_job* j = s->job;
  char name[160];
  int loaders = j->opt.synthetic ? 0 : j->workers;
  for (int i = 0; i < j->instances; i++) {
    ss_trace_name(name, sizeof(name), "instance %d (%s)", i, j->platform->instance_type);
    ss_trace_process(s->trace, i + 1, name);
    for (int k = 0; k < j->gpus_per_instance; k++) {
      snprintf(name, sizeof(name), "GPU %d", k);
      ss_trace_thread(s->trace, i + 1, SS_TRACK_TRAINER(k), name, 4 * k);
      snprintf(name, sizeof(name), "GPU %d %s", k, j->opt.arch == SS_ARCH_PS ? "push" : "collectives");
      ss_trace_thread(s->trace, i + 1, SS_TRACK_COLL(k), name, 4 * k + 1);
      for (int w = 0; w < loaders; w++) {
        snprintf(name, sizeof(name), "GPU %d loader %d", k, w);
        ss_trace_thread(s->trace, i + 1, SS_TRACK_LOADER(k, w), name, 4 * k + 2);
      }
      if (!j->opt.synthetic && j->workers == 0) {
        snprintf(name, sizeof(name), "GPU %d loading (in the training process)", k);
        ss_trace_thread(s->trace, i + 1, SS_TRACK_LOADER(k, SS_TRACK_INPROCESS), name, 4 * k + 2);
      }
      if (j->host) {
        snprintf(name, sizeof(name), "GPU %d host thread (training process)", k);
        ss_trace_thread(s->trace, i + 1, SS_TRACK_HOST(k), name, 4 * k + 3);
      }
    }
  }
  if (j->opt.arch == SS_ARCH_PS) {
    ss_trace_process(s->trace, j->instances + 1, "parameter servers");
    for (int k = 0; k < j->opt.servers; k++) {
      snprintf(name, sizeof(name), "server %d", k);
      ss_trace_thread(s->trace, j->instances + 1, k + 1, name, k);
    }
  }
}

void ss_simtrace_rank(ss_sim* s, int r, int tid, const char* name, const char* cat, double start_s, double dur_s,
                      const char* detail)
{
  if (s->trace)
    ss_trace_span(s->trace, s->ranks[r].inst + 1, tid, name, cat, start_s, dur_s, detail);
}

void ss_simtrace_checkpoint(ss_sim* s, double end_s)
{
  const ss_failures* f = &s->job->failures;
  ss_goodput g;
  ss_failures_goodput(f, 1, &g);
  if (!s->trace || !(g.interval_s > 0) || !(f->write_s > 0))
    return;
  char name[256];
  ss_trace_process(s->trace, SS_TRACE_PID_CHECKPOINT, "checkpoints (after the simulated iterations)");
  ss_trace_thread(s->trace, SS_TRACE_PID_CHECKPOINT, SS_TRACK_CHECKPOINT, "checkpoint writes", 0);
  ss_trace_name(name, sizeof(name), "checkpoint write: %.3g GB to %s, every %.3g min of training%s",
                f->ckpt_bytes / 1e9, ss_ckpt_target_of((ss_ckpt_target)s->job->opt.checkpoint_to)->label,
                g.interval_s / 60, g.young ? " (Young)" : "");
  ss_trace_span(s->trace, SS_TRACE_PID_CHECKPOINT, SS_TRACK_CHECKPOINT, name, "checkpoint", end_s, f->write_s, NULL);
}
