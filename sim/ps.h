/* ps: parameter servers: the server shards, each rank's push stream, and the trainer's pulls. */
#ifndef SS_PS_H
#define SS_PS_H

#include "actors.h"

/* A parameter-server shard (actor argument worker = shard index), on its host. */
void ss_ps_server_actor(ss_sim* s, const ss_actor_arg* a);

/* A rank's push stream to the parameter servers (replaces its collective stream). */
void ss_ps_push_actor(ss_sim* s, const ss_actor_arg* a);

/* Make the calling actor (rank r's trainer) the permanent receiver of its pull mailboxes, one per
 * part (transfers start at once, whatever the trainer is doing). */
void ss_ps_receive_pulls(ss_sim* s, int r);

/* The mailboxes and queues of the parameter servers (after ps_msgs), and their release. */
void ss_ps_setup(ss_sim* s);
void ss_ps_free(ss_sim* s);

/* Receive the parameters of every part of one iteration (called by rank r's trainer). */
void ss_ps_pull_all(ss_sim* s, int r);

/* --ps-aggregate instance: rank r all-gathers the parameters its instance's GPUs pulled, 1/g each
 * (a lock-step ring); nothing otherwise. */
void ss_ps_gather_local(ss_sim* s, int r);

#endif
