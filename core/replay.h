/*
 * replay.h — schedule replay for the closed form (see replay.c).
 */
#ifndef CX_CORE_REPLAY_H
#define CX_CORE_REPLAY_H

#include "core/cost.h"

/* Plays the schedule of c; fills c->replay. */
culonx_status cx_core_replay(const cx_cost *c, cx_replay *out, culonx_error *err);

#endif
