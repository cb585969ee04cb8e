/*
 * serve.c — one serving instance at one clock: prefill (time to first
 * token), decode (time per output token), throughput, memory per GPU, power
 * and energy per request and per token, and the SLO checks
 * (culonx_serve_eval, culonx_serve_clocks). Formulas: core/README.md,
 * "Serving"; the op tables are models/serve.c's (the training tables of the
 * family, forward only, with KV-cache reads and writes).
 *
 * Phase time on one instance of t x p GPUs at clock f: every op of the
 * embedding, the l layers and the head through the roofline of hw/perf.c
 * (cx_hw_work_time; no CPU launch floor: serving engines replay decode
 * steps as CUDA graphs), every forward TP collective through hw/net.c over
 * the TP group of the layout (core/layout/layout.c), and p - 1 pipeline
 * sends of the step's activations, all in sequence (one batch in flight).
 *
 * Phase energy: each op's GPU energy with the DVFS power model
 * (cx_hw_pass_energy_j) x t GPUs; collectives at the blocked power; the
 * p - 1 stages not working at the idle power of the clock; network bytes x
 * pJ/bit.
 *
 * Instance (static batching of `batch` requests, prefills then decodes):
 *   TTFT  = prefill of one prompt of n_in tokens (b = 1)
 *   TPOT  = decode step of the batch at the mean context n_in + (n_out-2)/2
 *           (the first output token comes from the prefill; the step is
 *           evaluated at the mean context, exact for the KV terms, which
 *           are linear in it)
 *   cycle = batch x TTFT + (n_out - 1) x TPOT;  tokens/s = batch n_out / cycle
 *   E_req = E_prefill + (n_out - 1) E_step / batch;  E_tok = E_req / n_out
 *   power per GPU = (batch E_prefill + (n_out-1) E_step) / (cycle x t x p)
 * Memory per GPU: weights (parameters x element bytes / (t p)) + KV cache
 * (batch (n_in + n_out) x 2 l k d kv_e / (t p), the largest stage's layers)
 * + workspace (1 GiB as core/README.md "Memory", plus the largest
 * prefill op's bytes as its activation transient).
 */
#include "core/base/base.h"
#include "core/eval/cost.h"
#include "core/layout/layout.h"
#include "core/layout/rules.h"
#include "hw/hw.h"
#include "hw/power.h"
#include "core/eval/serve.h"
#include "models/serve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WORKSPACE_BYTES 1073741824.0 /* 1 GiB: core/README.md, "Memory" */

typedef struct {
    double time_s, mem_s, compute_s, comm_s;
    double energy_j;     /* whole instance */
    double max_op_bytes; /* largest op's HBM bytes */
} phase_cost;

static double elem_bytes(culonx_dtype d)
{
    return d == CULONX_DTYPE_FP8 ? 1.0 : 2.0;
}

typedef struct {
    const culonx_run *run;
    culonx_system sys; /* with perf and power defaults filled */
    int64_t tp, pp;
    double f;
    cx_layout layout;
} serve_ctx;

static double net_j(const serve_ctx *c, const cx_hw_comm *cm)
{
    double j = 0;
    for (int i = 0; i < c->sys.ntiers && i < CULONX_MAX_TIERS; i++)
        j += cm->bytes_tier[i] * 8.0 * c->sys.tier[i].pj_per_bit * 1e-12;
    return j;
}

static void ops_cost(const serve_ctx *c, const cx_model_ops *ops, double count, phase_cost *pc)
{
    const culonx_gpu *g = &c->sys.gpu;
    const culonx_dtype dt = c->run->serving.dtype;
    const double t = (double)c->tp;
    const double blocked_w = cx_hw_power_blocked_w(&g->power, g);
    cx_hw_group grp = cx_core_layout_group(&c->layout, CX_DIM_TP, c->sys.gpus_per_node);
    for (int i = 0; i < ops->nops; i++) {
        const cx_model_op *o = &ops->op[i];
        if (o->fwd_flops > 0 || o->fwd_bytes > 0) {
            cx_hw_work w = {o->fwd_flops, o->fwd_bytes, o->batch > 0 ? o->batch : 1, o->tensor,
                            o->fused_attn ? cx_hw_attn_eff(&c->sys.perf, o->fwd_flops, 0) : 0.0};
            cx_hw_time tm = cx_hw_work_time(&c->sys, &c->sys.perf, &w, dt, c->f);
            double e =
                cx_hw_pass_energy_j(g, dt, c->f, tm.time_s, o->fwd_flops, o->fwd_bytes, NULL);
            pc->time_s += count * tm.time_s;
            if (tm.mem_s >= tm.compute_s)
                pc->mem_s += count * tm.time_s;
            else
                pc->compute_s += count * tm.time_s;
            pc->energy_j += count * t * e;
            if (o->fwd_bytes > pc->max_op_bytes) pc->max_op_bytes = o->fwd_bytes;
        }
        if (o->coll_fwd != CX_COLL_NONE && c->tp > 1) {
            cx_hw_comm cm =
                cx_hw_coll_cost(&c->sys, cx_core_hw_coll(o->coll_fwd), o->coll_bytes, grp);
            pc->time_s += count * cm.time_s;
            pc->comm_s += count * cm.time_s;
            pc->energy_j += count * t * (blocked_w * cm.time_s + net_j(c, &cm));
        }
    }
}

/* One step of a phase on the instance: b sequences, `tokens` new each. */
static int phase(const serve_ctx *c, cx_model_phase ph, double b, double tokens, double ctx,
                 phase_cost *pc)
{
    const culonx_run *run = c->run;
    const culonx_model *m = &run->model;
    cx_model_serve_dims d = {b,
                             tokens,
                             ctx,
                             (double)c->tp,
                             elem_bytes(run->serving.dtype),
                             elem_bytes(run->serving.kv_dtype)};
    cx_model_stack st;
    memset(pc, 0, sizeof *pc);
    if (cx_model_serve_build(m, ph, &d, &st) != 0) return -1;
    ops_cost(c, &st.part[CX_MODEL_PART_EMBED].ops, 1.0, pc);
    for (int s = 0; s < st.nseg; s++)
        ops_cost(c, &st.part[st.seg[s].kind].ops, (double)st.seg[s].count, pc);
    ops_cost(c, &st.part[CX_MODEL_PART_HEAD].ops, 1.0, pc);
    const culonx_gpu *g = &c->sys.gpu;
    const double t = (double)c->tp, p = (double)c->pp;
    if (c->pp > 1) {
        /* stage boundaries: the step's activations, e x b x tokens x h */
        double bytes = d.e * b * tokens * (double)m->hidden;
        cx_hw_comm cm =
            cx_hw_coll_cost(&c->sys, CX_HW_P2P, bytes,
                            cx_core_layout_p2p(&c->layout, CX_DIM_PP, c->sys.gpus_per_node));
        double n = p - 1.0;
        pc->time_s += n * cm.time_s;
        pc->comm_s += n * cm.time_s;
        pc->energy_j += n * t * (cx_hw_power_blocked_w(&g->power, g) * cm.time_s + net_j(c, &cm));
        /* while one stage works the other p - 1 wait, powered at clock f */
        pc->energy_j += (p - 1.0) * t * pc->time_s * cx_hw_power_idle_w(&g->power, g, c->f);
    }
    return 0;
}

static culonx_status serve_setup(const culonx_run *run, int64_t tp, double clock_mhz, serve_ctx *c,
                                 culonx_error *err)
{
    if (!run->has_serving)
        return cx_core_fail(err, CULONX_EINPUT, run->path, 0,
                            "<run>: no <serving> element (serve needs one)");
    const culonx_serving *s = &run->serving;
    const culonx_gpu *g0 = &run->system.gpu;
    culonx_sweep_reject why = cx_core_rule_tp(&run->model, tp);
    if (why != CULONX_REJECT_NONE)
        return cx_core_fail(err, CULONX_EINPUT, run->serving_at.file, run->serving_at.line,
                            "<serving tp=\"%lld\">: %s != 0 (heads %lld, kv-heads %lld, ffn %lld)",
                            (long long)tp, culonx_sweep_reject_name(why),
                            (long long)run->model.heads, (long long)run->model.kv_heads,
                            (long long)run->model.ffn);
    if (clock_mhz < 0 || !isfinite(clock_mhz) ||
        (clock_mhz > 0 && (clock_mhz < g0->min_mhz - 1e-9 || clock_mhz > g0->max_mhz + 1e-9)))
        return cx_core_fail(err, CULONX_EINPUT, "--clocks", 0,
                            "clock %g MHz is outside the GPU's %g..%g MHz", clock_mhz, g0->min_mhz,
                            g0->max_mhz);
    memset(c, 0, sizeof *c);
    c->run = run;
    c->sys = run->system;
    cx_hw_perf_defaults(&c->sys.perf);
    cx_hw_power_default(&c->sys.gpu);
    c->tp = tp;
    c->pp = s->pp;
    c->f = clock_mhz > 0 ? clock_mhz : g0->max_mhz;
    culonx_execution ex;
    memset(&ex, 0, sizeof ex);
    ex.tp = tp, ex.pp = s->pp, ex.dp = 1, ex.vp = 1;
    ex.gpus = tp * s->pp;
    cx_core_layout_init(&c->layout, &ex);
    return CULONX_OK;
}

culonx_status culonx_serve_eval(const culonx_run *run, int64_t tp, double clock_mhz,
                                culonx_serve_row *row, culonx_error *err)
{
    cx_core_error_clear(err);
    if (!run || !row) return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "culonx_serve_eval: NULL");
    serve_ctx c;
    culonx_status st = serve_setup(run, tp, clock_mhz, &c, err);
    if (st != CULONX_OK) return st;
    const culonx_serving *s = &run->serving;
    const culonx_model *m = &run->model;
    const culonx_gpu *g = &c.sys.gpu;
    const double b = (double)s->batch, nin = (double)s->input_tokens;
    const double nout = (double)s->output_tokens;
    const double gpus = (double)(tp * s->pp);
    phase_cost pre, dec;
    double ctx = nin + (nout >= 2 ? (nout - 2.0) / 2.0 : 0.0);
    if (phase(&c, CX_MODEL_PREFILL, 1.0, nin, 0.0, &pre) != 0 ||
        phase(&c, CX_MODEL_DECODE, b, 1.0, ctx, &dec) != 0)
        return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "serving op table overflow");

    memset(row, 0, sizeof *row);
    row->clock_mhz = c.f;
    row->gpus = tp * s->pp;
    row->ttft_s = pre.time_s;
    row->tpot_s = dec.time_s;
    row->tpot_mem_s = dec.mem_s;
    row->tpot_compute_s = dec.compute_s;
    row->tpot_comm_s = dec.comm_s;
    row->prefill_j = pre.energy_j;
    row->decode_step_j = dec.energy_j;
    double steps = nout - 1.0;
    double cycle_s = b * pre.time_s + steps * dec.time_s;
    double cycle_j = b * pre.energy_j + steps * dec.energy_j;
    row->tokens_per_s = cycle_s > 0 ? b * nout / cycle_s : 0.0;
    row->energy_j_per_request = cycle_j / b;
    row->energy_j_per_token = cycle_j / (b * nout);
    row->power_w = cycle_s > 0 ? cycle_j / (cycle_s * gpus) : 0.0;
    row->idle_power_w = cx_hw_power_idle_w(&g->power, g, c.f);

    /* memory per GPU */
    const double params = cx_model_total_params(m);
    const double layers_max = ceil((double)m->layers / (double)s->pp);
    row->kv_bytes_per_token = cx_model_kv_bytes_per_token(m, elem_bytes(s->kv_dtype));
    const double kv_tok_gpu =
        row->kv_bytes_per_token * (layers_max / (double)m->layers) / (double)tp;
    const double per_seq = (nin + nout) * kv_tok_gpu;
    row->weights_bytes = params * elem_bytes(s->dtype) / gpus;
    row->kv_bytes = b * per_seq;
    row->workspace_bytes = WORKSPACE_BYTES + pre.max_op_bytes;
    row->peak_bytes = row->weights_bytes + row->kv_bytes + row->workspace_bytes;
    row->capacity_bytes = g->mem_gib * 1073741824.0;
    row->fits = row->peak_bytes <= row->capacity_bytes;
    double room = row->capacity_bytes - row->weights_bytes - row->workspace_bytes;
    row->max_batch = room > 0 && per_seq > 0 ? (int64_t)floor(room / per_seq) : 0;
    row->ttft_ok = !(s->ttft_slo_s > 0) || row->ttft_s <= s->ttft_slo_s;
    row->tpot_ok = !(s->tpot_slo_s > 0) || row->tpot_s <= s->tpot_slo_s;
    row->slo_ok = row->fits && row->ttft_ok && row->tpot_ok;
    return CULONX_OK;
}

/* The clock list of [min, max] by step (0: the GPU's range and step). */
culonx_status cx_core_serve_clock_list(const culonx_gpu *g, double lo, double hi, double step,
                                       double **out, int *n, culonx_error *err)
{
    if (lo <= 0) lo = g->min_mhz;
    if (hi <= 0) hi = g->max_mhz;
    if (step <= 0) step = g->step_mhz > 0 ? g->step_mhz : 15.0;
    if (!(lo <= hi) || lo < g->min_mhz - 1e-9 || hi > g->max_mhz + 1e-9)
        return cx_core_fail(err, CULONX_EINPUT, "--clocks", 0,
                            "clock range %g:%g MHz is outside the GPU's %g..%g MHz", lo, hi,
                            g->min_mhz, g->max_mhz);
    double nd = floor((hi - lo) / step + 1e-9) + 1;
    if (nd > 100000)
        return cx_core_fail(err, CULONX_EINPUT, "--clocks", 0, "too many clocks (%g)", nd);
    *n = (int)nd;
    *out = malloc((size_t)*n * sizeof **out);
    if (!*out) return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    for (int i = 0; i < *n; i++)
        (*out)[i] = lo + step * i;
    return CULONX_OK;
}

culonx_status culonx_serve_clocks(const culonx_run *run, double min_mhz, double max_mhz,
                                  double step_mhz, culonx_serve_row **rows, int *nrows,
                                  culonx_error *err)
{
    cx_core_error_clear(err);
    if (!run || !rows || !nrows)
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "culonx_serve_clocks: NULL");
    *rows = NULL;
    *nrows = 0;
    double *clk = NULL;
    int n = 0;
    culonx_status st =
        cx_core_serve_clock_list(&run->system.gpu, min_mhz, max_mhz, step_mhz, &clk, &n, err);
    if (st != CULONX_OK) return st;
    culonx_serve_row *r = calloc((size_t)n, sizeof *r);
    if (!r) {
        free(clk);
        return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    }
    int best = -1;
    for (int i = 0; i < n && st == CULONX_OK; i++) {
        st = culonx_serve_eval(run, run->serving.tp, clk[i], &r[i], err);
        if (st == CULONX_OK && r[i].slo_ok &&
            (best < 0 || r[i].energy_j_per_token < r[best].energy_j_per_token))
            best = i;
    }
    free(clk);
    if (st != CULONX_OK) {
        free(r);
        return st;
    }
    if (best >= 0) r[best].min_energy = 1;
    *rows = r;
    *nrows = n;
    return CULONX_OK;
}
