/* ddp: how the data-parallel framework turns gradients into collectives (PyTorch DDP's buckets,
 * apex DDP's message size, Horovod's tensor fusion), and what each collective costs the host. */
#ifndef SS_DDP_H
#define SS_DDP_H

#include "option.h"

struct ss_job;

/* The framework's host time per collective call and per gradient tensor (its hook), in seconds:
 * ESTIMATES, whose reasoning docs/model.md ("The data-parallel framework") gives. */
double ss_ddp_collective_host_s(ss_ddp d);
double ss_ddp_tensor_host_s(ss_ddp d);

/* Whether the framework's collective calls run on a thread of their own (Horovod's background
 * thread) rather than on the training process's thread. */
int ss_ddp_background(ss_ddp d);

/* Bytes a collective of S bytes moves through GPU memory in copy kernels: before it, on the compute
 * stream (gradients into the flat buffer), and after it, on the collective's stream (scale by
 * 1/world and back into the gradients): 2S and 4S, a read and a write each. */
#define SS_DDP_COPY_BEFORE 2.0
#define SS_DDP_COPY_AFTER 4.0

/* Fill j->buckets (and j->nbuckets) with the collectives of the framework j->opt.ddp, in the order
 * they start: from the workload's layers and parameter tensors, and for Horovod the backward pass's
 * times on the job's GPU. Returns SS_OK or SS_ENOMEM. */
int ss_ddp_buckets(struct ss_job* j);

#endif
