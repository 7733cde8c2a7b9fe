/* report: the results of a run as a table, JSON or CSV (no SimGrid types). */
#ifndef SS_REPORT_H
#define SS_REPORT_H

#include "job.h"
#include "stall.h"
#include "stash.h"

#include <stdio.h>

/* The version of the JSON (and CSV) reports' layout: raised when a key changes meaning or goes. */
#define SS_REPORT_SCHEMA_VERSION 1

typedef struct ss_result {
  const ss_job* job;
  ss_breakdown bd;
  double throughput_samples_per_s;
  double epoch_s;
  double cost_usd_per_epoch; /* price x instances x epoch time */
  double simulated_s;        /* simulated date at the end of the run */
  double samples;            /* --samples, or one epoch */
  double time_to_train_s;    /* start-up (init_s) + samples at the steady-state throughput */
  double cost_to_train_usd;  /* price x instances x time to train */
  /* With failures (failures.h): the goodput of the time to train, and the expected time and cost. */
  ss_goodput goodput;
  double expected_time_to_train_s;
  double expected_cost_usd;
  /* Language models (the workload's transformer): tokens per second, the model FLOPs per second of
   * one GPU (transformer.h's convention) and their share of its dense peak at the precision (MFU). */
  double tokens_per_s;
  double model_flops_per_gpu_s;
  double mfu;
  const ss_stash* stash; /* --stash: the differential breakdown (the job is its RUN2), else NULL */
  const ss_timeline* tl; /* the run's timeline when it was simulated here (per-worker figures), */
                         /* NULL for a run simulated in another process */
} ss_result;

/* Derive the result of a job from its timeline. Returns 0, or SS_EINPUT with err set when the
 * iteration cannot give the figures (ss_job_check_iteration). */
int ss_result_compute(const ss_job* job, const ss_timeline* tl, double simulated_s, ss_result* out, ss_err* err);

/* Derive the result of a job from its timeline breakdown; returns as ss_result_compute. */
int ss_result_from_breakdown(const ss_job* job, const ss_breakdown* bd, double simulated_s, ss_result* out,
                             ss_err* err);

/* Write the result in format fmt. Returns 0, or SS_EIO when writing failed (SS_ENOMEM when memory did). */
int ss_report_write(FILE* f, const ss_result* r, ss_format fmt);

/* Write a whatif comparison (base against changed, after the changes given) in format fmt: both
 * runs' iteration, throughput, epoch, cost and breakdown, and the speedup (changed throughput over
 * base throughput). Returns 0, or SS_EIO when writing failed (SS_ENOMEM when memory did). */
int ss_report_whatif(FILE* f, const ss_result* base, const ss_result* changed, const char* const* changes, int nchanges,
                     ss_format fmt);

/* Write a collective benchmark (stash-sim bench allreduce) in format fmt: for each of the nsizes
 * sizes bytes[k], the mean time time_s[k] of one allreduce by algorithm algs[k] with protocol
 * protos[k] (a column when the per-call cost is on), algbw and busbw.
 * Returns 0, or SS_EIO when writing failed (SS_ENOMEM when memory did). */
int ss_report_bench(FILE* f, const ss_job* job, int nsizes, const double* bytes, const double* time_s,
                    const ss_allreduce* algs, const ss_proto* protos, ss_format fmt);

#endif
