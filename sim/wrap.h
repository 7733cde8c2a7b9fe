/* wrap: the wrapping units of the sharded modes that gather parameters (ZeRO-3's layers, FSDP's
 * units), and the collectives each forward and backward pass over them issues. */
#ifndef SS_WRAP_H
#define SS_WRAP_H

#include "job.h"

/* The units, the chunks and the collectives of an iteration of job j, whose mode has units
 * (ss_shard_has_units) and whose buckets, metrics and host figures are made. SS_OK or SS_ENOMEM. */
int ss_wrap_plan(ss_job* j);

#endif
