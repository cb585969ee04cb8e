/*
 * transformer.c — what every family shares: building a model's stack
 * through its family (models/registry.c), parameter counts of the stack,
 * saved-activation sums, and the Megatron closed FLOP formulas the tests
 * hold the op tables to. The op tables themselves live in the family files
 * (models/gpt.c, models/llama.c) with the constructors of models/build.h.
 *
 * Parameters of the model: sum over segments of count x the kind's
 * parameters, plus the embedding and the head (model.h).
 *
 * Megatron's FLOPs per iteration (Narayanan et al. SC'21, eq. 3):
 * 72 B s l h^2 (1 + s/6h + V/12lh) without recompute, 96 B s l h^2
 * (1 + s/6h + V/16lh) with full recompute (one more forward per layer).
 * Formulas and sources: models/README.md ("Parameters", "FLOPs",
 * "Activation memory", "Tensor-parallel collectives").
 */
#include "models/model.h"

#include <string.h>

double cx_model_saved_bytes(const cx_model_ops *ops, int skip_core)
{
    double s = 0.0;
    for (int i = 0; i < ops->nops; i++)
        if (!(skip_core && ops->op[i].attn_core)) s += ops->op[i].saved_bytes;
    return s;
}

/* The stack without op tables (names, parameters, segments); 0 on success. */
static int stack_params(const culonx_model *m, cx_model_stack *st)
{
    const cx_model_family *f = cx_model_family_of(m->arch);
    if (!f) {
        st->family = NULL, st->nparts = st->nseg = 0;
        return -1;
    }
    f->build(m, NULL, st);
    return 0;
}

double cx_model_stack_params(const cx_model_stack *st)
{
    double p = 0.0;
    for (int i = 0; i < st->nseg; i++)
        p += (double)st->seg[i].count * st->part[st->seg[i].kind].params;
    return p + st->part[CX_MODEL_PART_EMBED].params + st->part[CX_MODEL_PART_HEAD].params;
}

double cx_model_stack_active_params(const cx_model_stack *st)
{
    double p = 0.0;
    for (int i = 0; i < st->nseg; i++)
        p += (double)st->seg[i].count * st->part[st->seg[i].kind].active_params;
    return p + st->part[CX_MODEL_PART_EMBED].active_params +
           st->part[CX_MODEL_PART_HEAD].active_params;
}

double cx_model_active_params(const culonx_model *m)
{
    cx_model_stack st;
    if (stack_params(m, &st) != 0) return 0.0;
    return cx_model_stack_active_params(&st);
}

double cx_model_layer_params(const culonx_model *m)
{
    cx_model_stack st;
    if (stack_params(m, &st) != 0 || st.nseg < 1) return 0.0;
    return st.part[st.seg[0].kind].params;
}

double cx_model_embed_params(const culonx_model *m)
{
    cx_model_stack st;
    if (stack_params(m, &st) != 0) return 0.0;
    return st.part[CX_MODEL_PART_EMBED].params;
}

double cx_model_head_params(const culonx_model *m)
{
    cx_model_stack st;
    if (stack_params(m, &st) != 0) return 0.0;
    return st.part[CX_MODEL_PART_HEAD].params;
}

double cx_model_total_params(const culonx_model *m)
{
    cx_model_stack st;
    if (stack_params(m, &st) != 0) return 0.0;
    return cx_model_stack_params(&st);
}

int cx_model_build(const culonx_model *m, int64_t b, int64_t t, int sp, double elem_bytes,
                   int flash, cx_model_stack *out)
{
    return cx_model_build_cp(m, b, t, 1, sp, elem_bytes, flash, out);
}

int cx_model_build_cp(const culonx_model *m, int64_t b, int64_t t, int64_t cp, int sp,
                      double elem_bytes, int flash, cx_model_stack *out)
{
    const cx_model_family *f = cx_model_family_of(m->arch);
    if (!f) {
        out->family = NULL, out->nparts = out->nseg = 0;
        return -1;
    }
    cx_model_dims d;
    d.b = (double)b, d.t = (double)t, d.e = elem_bytes;
    d.sp = t <= 1 ? 0 : sp;
    d.flash = flash;
    d.cp = cp > 1 ? (double)cp : 1.0;
    d.ep = d.etp = d.capacity = 1.0;
    f->build(m, &d, out);
    return 0;
}

int cx_model_build_dims(const culonx_model *m, const cx_model_dims *d, cx_model_stack *out)
{
    const cx_model_family *f = cx_model_family_of(m->arch);
    if (!f) {
        out->family = NULL, out->nparts = out->nseg = 0;
        return -1;
    }
    f->build(m, d, out);
    return 0;
}

double cx_model_flops_megatron(const culonx_model *m, double B, int full_recompute)
{
    double s = (double)m->seq, l = (double)m->layers, h = (double)m->hidden;
    double V = (double)m->vocab;
    if (full_recompute)
        return 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
    return 72.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (12.0 * l * h));
}
