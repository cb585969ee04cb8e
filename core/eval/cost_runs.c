/*
 * cost_runs.c — the physical stages of a cost from its chunk classes
 * (cost.h): sends per stage, equal stages (same_prev) and their runs
 * (srun), the aggregates of the chunk costs per run (times) and per stage
 * (bytes, parameters), and the runs of equal parameters (prun) that the DP
 * part walks. A stage equal to the previous one has its values, which a
 * computation would repeat bit for bit (the same sums in the same order).
 * See core/README.md, "Equal stages".
 */
#include "core/base/base.h"
#include "core/eval/cost.h"

/* Per stage: sends, same_prev (same chunk classes in chunk order, same
 * sends) and the runs of equal stages. */
void cx_core_cost_stage_shape(cx_cost *c)
{
    const int64_t nvs = (int64_t)c->p * c->v;
    c->nsrun = 0;
    for (int s = 0; s < c->p; s++) {
        int nf = 0, nb = 0, same = s > 0;
        for (int k = 0; k < c->v; k++) {
            int vs = c->vs_stage_vs[s * c->v + k];
            if (vs + 1 < nvs && c->vs_stage[vs + 1] != s) nf++;
            if (vs > 0 && c->vs_stage[vs - 1] != s) nb++;
            same = same && c->vs_class[vs] == c->vs_class[c->vs_stage_vs[(s - 1) * c->v + k]];
        }
        c->same_prev[s] =
            (unsigned char)(same && nf == c->sends_f[s - 1] && nb == c->sends_b[s - 1]);
        c->sends_f[s] = nf, c->sends_b[s] = nb;
        if (!c->same_prev[s]) c->srun[c->nsrun++] = (int16_t)s;
    }
    c->srun[c->nsrun] = (int16_t)c->p;
}

/* Per run of equal stages: the aggregates of its first stage's chunks
 * (the run's times, energies and bytes, run_*), and, unless times_only, its
 * parameters, activations and transient bytes filled over its stages, then
 * the runs of equal parameters (stage by stage, as the DP part compares
 * them). times_only: a reprice of the same shape, whose classes hold the
 * same bytes and parameters (they read no clock), so the per-stage values
 * and prun are those of the last call. */
void cx_core_cost_stage_sums(cx_cost *c, int times_only)
{
    if (!times_only) c->nprun = 0;
    for (int r = 0; r < c->nsrun; r++) {
        const int s = c->srun[r], e = c->srun[r + 1];
        double P = 0, Pe = 0, F = 0, B = 0, W = 0, act = 0, work = 0, ej = 0, busy = 0, by = 0;
        for (int k = 0; k < c->v; k++) {
            const cx_chunk_cost *cc = cx_core_cost_chunk(c, c->vs_stage_vs[s * c->v + k]);
            P += cc->params;
            Pe += cc->expert_params;
            F += cc->f_s + cc->tp_f_s;
            B += cc->b_s + cc->tp_b_s + cc->r_s + cc->tp_r_s;
            W += cc->w_s;
            act += cc->act_bytes;
            work = cx_maxd(work, cc->work_bytes);
            ej += cc->e_f_j + cc->e_b_j + cc->e_w_j + cc->e_r_j;
            busy += cc->f_s + cc->b_s + cc->w_s + cc->r_s;
            by += cc->f_bytes + cc->b_bytes + cc->w_bytes + cc->r_bytes;
        }
        c->run_f_s[r] = F, c->run_b_s[r] = B, c->run_w_s[r] = W;
        c->run_e_j[r] = ej, c->run_busy_s[r] = busy, c->run_bytes[r] = by;
        if (times_only) continue;
        P *= c->weight_copies, Pe *= c->weight_copies;
        /* the values of its stages, and the runs of equal parameters, stage
         * by stage: a stage starts one where its parameters differ from
         * those of the stage before (inside this run: only where they are
         * NaN, which differ from themselves) */
        const int self_differs = P != P || Pe != Pe;
        for (int q = s; q < e; q++) {
            c->stage_act_bytes[q] = act, c->stage_work_bytes[q] = work;
            c->stage_params[q] = P, c->stage_expert_params[q] = Pe;
            if (q > s
                    ? self_differs
                    : q == 0 || P != c->stage_params[q - 1] || Pe != c->stage_expert_params[q - 1])
                c->prun[c->nprun++] = (int16_t)q;
            c->prun_of[q] = (int16_t)(c->nprun - 1);
        }
    }
    if (times_only) return;
    c->prun[c->nprun] = (int16_t)c->p;
    for (int r = 0, q = 0; r < c->nprun; r++) { /* a prun starts an srun (equal stages) */
        while (c->srun[q] < c->prun[r])
            q++;
        c->prun_srun[r] = (int16_t)q;
    }
    c->dp_runs_ok = c->dp_filled = 0; /* the runs of the DP values changed */
}
