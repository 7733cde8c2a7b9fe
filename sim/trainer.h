/* trainer: one rank's training process on its GPU: data, forward, backward with bucketed
 * gradients, optimizer, every blocking step booked to a category of the timeline. */
#ifndef SS_TRAINER_H
#define SS_TRAINER_H

#include "actors.h"

/* The training process of one rank (runs on its GPU host). */
void ss_trainer_actor(ss_sim* s, const ss_actor_arg* a);

#endif
