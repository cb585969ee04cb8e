/*
 * replay_step.h — the timing rule of the closed form's replay, shared by the
 * engine's play of the orders (core/eval/replay.c) and their compiled
 * program (core/eval/replay_prog.c), so that both compute every item the
 * same way:
 *   start = max(stage free, dependency token), end = start + duration;
 *   an item whose output crosses to another stage sends it on the stage's PP
 *   stream: ss = max(end, PP free), output token = PP free = ss + p2p, and
 *   the stage's next compute waits for it unless the schedule overlaps p2p.
 * Durations F = f + tp_f, B = r + tp_r + b + tp_b, BW = B + w, W = w.
 * See core/README.md, "Closed form" (replayed schedules).
 */
#ifndef CX_CORE_REPLAY_STEP_H
#define CX_CORE_REPLAY_STEP_H

#include "schedules/play.h"

typedef struct {
    double dF, dB, dBW, dW; /* item durations */
    double lastB, lastBW;   /* DP-overlap window when a B / BW item is last */
} cx_replay_vsinfo;

typedef struct {
    const cx_replay_vsinfo *vi;
    double p2p_s;
    int overlap;
} cx_replay_timing;

/* stage registers of the engine */
enum { CX_R_FREE, CX_R_PP_FREE, CX_R_LAST_END, CX_R_LAST_ITEM };

/* Duration and DP-overlap window of an item of kind on vi. */
static inline double cx_replay_dur(const cx_replay_vsinfo *vi, int kind, double *win)
{
    if (kind == CX_WORK_F) return *win = vi->dF;
    if (kind == CX_WORK_W) return *win = vi->dW;
    if (kind == CX_WORK_BW) {
        *win = vi->lastBW;
        return vi->dBW;
    }
    *win = vi->lastB;
    return vi->dB;
}

/* The engine's STEP callback for this rule (ctx: a cx_replay_timing). */
CX_PLAY_STEP void cx_replay_step_time(void *ctx, const cx_play_step *st, cx_play_token *done,
                                      cx_play_token *out)
{
    const cx_replay_timing *tm = ctx;
    const cx_replay_vsinfo *vi = &tm->vi[st->vs];
    double *reg = st->reg;
    double win, ready = st->dep ? st->dep->t : 0.0, dur = cx_replay_dur(vi, st->kind, &win);
    double start = reg[CX_R_FREE] > ready ? reg[CX_R_FREE] : ready;
    double end = start + dur, out_t = end;
    reg[CX_R_FREE] = end;
    if (st->send) {
        double ss = end > reg[CX_R_PP_FREE] ? end : reg[CX_R_PP_FREE];
        out_t = reg[CX_R_PP_FREE] = ss + tm->p2p_s;
        if (!tm->overlap) reg[CX_R_FREE] = out_t;
    }
    reg[CX_R_LAST_END] = end;
    reg[CX_R_LAST_ITEM] = win;
    done->t = end;
    out->t = out_t;
}

#endif
