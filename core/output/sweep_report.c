/*
 * sweep_report.c — the result of a sweep as text or JSON: the summary
 * (enumerated, evaluated, feasible, pruned, rejects by reason), the top K
 * and the Pareto frontier.
 */
#include "core/output/report.h"
#include "core/base/base.h"

/* ------------------------------------------------------------ reports */

static const char *onoff(int b)
{
    return b ? "on" : "off";
}

/* the sharding column (shard: the sweep varies or sets ZeRO >= 2, HSDP or
 * offload): z<stage>, /<shard group> for HSDP, +w, +a, +o for offloaded
 * weights, activations, optimizer state */
static void shard_cell(char *buf, size_t len, const culonx_execution *e)
{
    int zero = e->zero > 0 ? e->zero : e->distributed_optimizer ? 1 : 0;
    int k = snprintf(buf, len, "z%d", zero);
    if (e->shard_group > 0 && e->shard_group < e->dp)
        k += snprintf(buf + k, len - (size_t)k, "/%lld", (long long)e->shard_group);
    if (e->offload)
        snprintf(buf + k, len - (size_t)k, "+%s%s%s",
                 e->offload & CULONX_OFFLOAD_WEIGHTS ? "w" : "",
                 e->offload & CULONX_OFFLOAD_ACTIVATIONS ? "a" : "",
                 e->offload & CULONX_OFFLOAD_OPTIMIZER ? "o" : "");
}

/* Optional columns of the text tables: energy (the power model gives
 * energy), budget (the run has a token budget, execution.tokens: time to
 * train and GPU-hours), attn and tpo (the space varies the attention kernel
 * or the TP overlap; otherwise every row has the run's value, stated in the
 * legend). The cp column is always there. */
typedef struct {
    int energy, budget, attn, tpo;
    int moe;   /* a mixture-of-experts run: ep and etp columns */
    int shard; /* the sweep varies or sets ZeRO >= 2, HSDP or offload */
} text_cols;

static void text_entry(FILE *o, int rank, const culonx_sweep_entry *x, const text_cols *c)
{
    const culonx_execution *e = &x->exec;
    const culonx_result *r = &x->res;
    fprintf(o, "%4d ", rank);
    if (c->moe)
        fprintf(o, "%3lld %3lld ", (long long)(e->ep > 1 ? e->ep : 1),
                (long long)(e->etp > 1 ? e->etp : 1));
    fprintf(o, "%6lld %4lld %3lld %4lld %5lld %-12s %3lld %4lld %-9s %-3s %-3s %-3s",
            (long long)e->gpus, (long long)e->tp, (long long)(e->cp > 1 ? e->cp : 1),
            (long long)e->pp, (long long)e->dp, culonx_schedule_name(e->schedule), (long long)e->vp,
            (long long)e->microbatch, culonx_recompute_name(e->recompute),
            onoff(e->sequence_parallel), onoff(e->distributed_optimizer), onoff(e->dp_overlap));
    if (c->attn) fprintf(o, " %-5s", culonx_attention_name(e->attention));
    if (c->tpo) fprintf(o, " %-4s", culonx_tp_overlap_name(e->tp_overlap));
    fprintf(o, " %6.0f %10.4f %10.1f %9.1f %6.3f %8.2f", r->clock_mhz, r->iteration_time_s,
            r->tokens_per_s, e->gpus > 0 ? r->tokens_per_s / (double)e->gpus : 0.0, r->mfu,
            r->memory.peak_bytes / CX_GIB);
    if (c->energy) fprintf(o, " %12.4g", r->energy.total_j);
    if (c->budget) fprintf(o, " %8.2f %10.4g", r->time_to_train_s / 86400.0, r->gpu_hours);
    if (c->shard) {
        char cell[48];
        shard_cell(cell, sizeof cell, e);
        fprintf(o, " %-9s", cell);
    }
    fprintf(o, " %6lld %llu\n", (long long)e->global_batch, (unsigned long long)x->index);
}

static void text_header(FILE *o, const text_cols *c)
{
    fprintf(o, "%4s ", "#");
    if (c->moe) fprintf(o, "%3s %3s ", "ep", "etp");
    fprintf(o, "%6s %4s %3s %4s %5s %-12s %3s %4s %-9s %-3s %-3s %-3s", "gpus", "tp", "cp", "pp",
            "dp", "schedule", "vp", "mb", "recompute", "sp", "dop", "ovl");
    if (c->attn) fprintf(o, " %-5s", "attn");
    if (c->tpo) fprintf(o, " %-4s", "tpo");
    fprintf(o, " %6s %10s %10s %9s %6s %8s", "MHz", "iter_s", "tokens/s", "tok/s/gpu", "mfu",
            "mem_GiB");
    if (c->energy) fprintf(o, " %12s", "energy_J");
    if (c->budget) fprintf(o, " %8s %10s", "days", "gpu_hours");
    if (c->shard) fprintf(o, " %-9s", "sharding");
    fprintf(o, " %6s %s\n", "batch", "index");
}

/* what the abbreviated columns mean, once after the tables */
static void text_legend(FILE *o, const text_cols *c, const culonx_sweep_result *R)
{
    const culonx_execution *run = &R->run.exec;
    const culonx_sweep_list *la = &R->spec.list[CULONX_SWEEP_ATTENTION];
    const culonx_sweep_list *lt = &R->spec.list[CULONX_SWEEP_TP_OVERLAP];
    fprintf(o, "\ncolumns: tp, cp, pp, dp tensor-, context-, pipeline-, data-parallel degrees; "
               "vp chunks\n  per stage; mb microbatch; sp sequence parallelism; dop distributed "
               "optimizer;\n  ovl DP overlap; ");
    if (c->attn)
        fprintf(o, "attn attention kernel; ");
    else
        fprintf(o, "attention %s in every row; ",
                culonx_attention_name(la->n == 1 ? (culonx_attention)la->v[0] : run->attention));
    if (c->tpo)
        fprintf(o, "tpo TP communication overlap;\n  ");
    else
        fprintf(o, "tp-overlap %s in every row;\n  ",
                culonx_tp_overlap_name(lt->n == 1 ? (culonx_tp_overlap)lt->v[0] : run->tp_overlap));
    fprintf(o, "MHz SM clock; iter_s seconds per iteration; tok/s/gpu tokens/s per GPU;\n  mfu "
               "model FLOPs utilisation; mem_GiB peak memory per GPU");
    if (c->energy) fprintf(o, ";\n  energy_J energy per iteration");
    if (c->budget)
        fprintf(o, ";\n  days, gpu_hours to train %.4g tokens (execution.tokens)", run->tokens);
    if (c->shard)
        fprintf(o, ";\n  sharding ZeRO stage (z3 = FSDP), /N HSDP shard group, +w/a/o offloaded "
                   "weights,\n  activations, optimizer state");
    fprintf(o, ";\n  batch global batch; index position in the sweep's enumeration\n");
    if (c->moe)
        fprintf(o, "  ep, etp expert-parallel degree and tensor parallelism inside experts\n");
}

/* The frontier in text: at most FRONT_ROWS rows, evenly spaced in time
 * order (the first and the last always); JSON lists every point. */
#define FRONT_ROWS 20

void culonx_sweep_report_text(FILE *o, const culonx_sweep_result *R)
{
    if (!R || !R->is_root) return;
    const culonx_run *run = &R->run;
    fprintf(o, "sweep: %s on %s (%s), objective %s\n", run->model.name, run->system.name,
            run->system.gpu.name, culonx_objective_name(R->spec.objective));
    fprintf(o, "enumerated %llu, evaluated %llu, feasible %llu (peak memory <= %.1f GiB)\n",
            (unsigned long long)R->enumerated, (unsigned long long)R->evaluated,
            (unsigned long long)R->feasible, R->memory_limit_bytes / CX_GIB);
    if (R->pruning_on)
        fprintf(o,
                "pruned by bounds %llu (feasible, but provably cannot enter the top-K or the "
                "Pareto frontier; not evaluated)\n",
                (unsigned long long)R->pruned);
    fprintf(o, "rejected:\n");
    int any = 0;
    for (int r = 0; r < CULONX_REJECT_COUNT; r++)
        if (R->rejected[r]) {
            fprintf(o, "  %-48s %llu\n", culonx_sweep_reject_name((culonx_sweep_reject)r),
                    (unsigned long long)R->rejected[r]);
            any = 1;
        }
    if (!any) fprintf(o, "  none\n");
    if (!R->energy_available)
        fprintf(o,
                "energy: not available (the power model gives zero energy for %s); "
                "Pareto frontier over (time, memory)\n",
                run->system.name);
    const int shard = R->spec.list[CULONX_SWEEP_ZERO].n ||
                      R->spec.list[CULONX_SWEEP_SHARD_GROUP].n ||
                      R->spec.list[CULONX_SWEEP_OFFLOAD].n || run->exec.zero >= 2 ||
                      run->exec.shard_group > 0 || run->exec.offload;
    const text_cols cols = {R->energy_available,
                            run->exec.tokens > 0,
                            R->spec.list[CULONX_SWEEP_ATTENTION].n > 1,
                            R->spec.list[CULONX_SWEEP_TP_OVERLAP].n > 1,
                            run->model.arch == CULONX_ARCH_MOE,
                            shard};
    const int energy = cols.energy;
    if (R->ntop == 0) {
        fprintf(o, "no feasible configuration\n");
    } else {
        fprintf(o, "\ntop %d by %s%s:\n", R->ntop, culonx_objective_name(R->spec.objective),
                R->spec.objective == CULONX_OBJECTIVE_TIME ||
                        R->spec.objective == CULONX_OBJECTIVE_GPU_HOURS
                    ? " (distinct strategies, each at its best clock)"
                    : "");
        text_header(o, &cols);
        for (int i = 0; i < R->ntop; i++)
            text_entry(o, i + 1, &R->top[i], &cols);
        int rows = R->nfront > FRONT_ROWS ? FRONT_ROWS : R->nfront;
        fprintf(o, "\nPareto frontier over (%s): %d points",
                energy ? "time, energy, memory" : "time, memory", R->nfront);
        if (rows < R->nfront)
            fprintf(o, ", %d shown evenly spaced by time (--format json lists all)", rows);
        fprintf(o, "\n");
        text_header(o, &cols);
        for (int k = 0; k < rows; k++) {
            int i = rows > 1 ? (int)((int64_t)k * (R->nfront - 1) / (rows - 1)) : 0;
            text_entry(o, i + 1, &R->front[i], &cols);
        }
        text_legend(o, &cols, R);
    }
    if (R->spec.verify_k > 0) {
        fprintf(o, "\nverify: top %d re-evaluated with the graph engine%s\n", R->nverified,
                R->verify_status == CULONX_OK ? "" : " (the graph engine failed on the next one)");
        if (R->nverified > 0)
            fprintf(o, "%4s %12s %12s %8s %12s %12s\n", "#", "closed_s", "graph_s", "diff%",
                    "closed_GiB", "graph_GiB");
        for (int i = 0; i < R->nverified; i++) {
            double a = R->top[i].res.iteration_time_s, b = R->verified[i].iteration_time_s;
            fprintf(o, "%4d %12.4f %12.4f %8.2f %12.2f %12.2f\n", i + 1, a, b,
                    a > 0 ? 100.0 * (b - a) / a : 0.0, R->top[i].res.memory.peak_bytes / CX_GIB,
                    R->verified[i].memory.peak_bytes / CX_GIB);
        }
    }
}

static void json_entry(FILE *o, const culonx_sweep_entry *x)
{
    const culonx_execution *e = &x->exec;
    const culonx_result *r = &x->res;
    char off[64];
    fprintf(
        o,
        "{\"index\": %llu, \"gpus\": %lld, \"global_batch\": %lld, \"tp\": %lld, \"pp\": %lld, "
        "\"dp\": %lld, \"schedule\": \"%s\", \"vp\": %lld, \"microbatch\": %lld, "
        "\"recompute\": \"%s\", \"sequence_parallel\": %s, \"distributed_optimizer\": %s, "
        "\"dp_overlap\": %s, \"clock_mhz\": %.9g, \"iteration_time_s\": %.9g, "
        "\"tokens_per_s\": %.9g, \"mfu\": %.9g, \"peak_memory_gib\": %.9g, \"energy_j\": %.9g, "
        "\"objective\": %.9g, \"cp\": %lld, \"attention\": \"%s\", \"tp_overlap\": \"%s\", "
        "\"ep\": %lld, \"etp\": %lld, \"zero\": %d, \"shard_group\": %lld, \"offload\": \"%s\"}",
        (unsigned long long)x->index, (long long)e->gpus, (long long)e->global_batch,
        (long long)e->tp, (long long)e->pp, (long long)e->dp, culonx_schedule_name(e->schedule),
        (long long)e->vp, (long long)e->microbatch, culonx_recompute_name(e->recompute),
        e->sequence_parallel ? "true" : "false", e->distributed_optimizer ? "true" : "false",
        e->dp_overlap ? "true" : "false", r->clock_mhz, r->iteration_time_s, r->tokens_per_s,
        r->mfu, r->memory.peak_bytes / CX_GIB, r->energy.total_j, x->objective,
        (long long)(e->cp > 1 ? e->cp : 1), culonx_attention_name(e->attention),
        culonx_tp_overlap_name(e->tp_overlap), (long long)(e->ep > 1 ? e->ep : 1),
        (long long)(e->etp > 1 ? e->etp : 1),
        e->zero > 0                ? e->zero
        : e->distributed_optimizer ? 1
                                   : 0,
        (long long)(e->shard_group > 0 ? e->shard_group : e->dp),
        culonx_offload_names(e->offload, off, sizeof off));
}

void culonx_sweep_report_json(FILE *o, const culonx_sweep_result *R)
{
    if (!R || !R->is_root) return;
    fprintf(o, "{\n  \"model\": ");
    cx_core_json_str(o, R->run.model.name);
    fprintf(o, ",\n  \"system\": ");
    cx_core_json_str(o, R->run.system.name);
    fprintf(o, ",\n  \"objective\": \"%s\",\n", culonx_objective_name(R->spec.objective));
    fprintf(o, "  \"enumerated\": %llu,\n  \"evaluated\": %llu,\n  \"feasible\": %llu,\n",
            (unsigned long long)R->enumerated, (unsigned long long)R->evaluated,
            (unsigned long long)R->feasible);
    fprintf(o, "  \"pruned\": %llu,\n", (unsigned long long)R->pruned);
    fprintf(o, "  \"memory_limit_gib\": %.9g,\n  \"energy_available\": %s,\n",
            R->memory_limit_bytes / CX_GIB, R->energy_available ? "true" : "false");
    fprintf(o, "  \"rejected\": {");
    for (int r = 0; r < CULONX_REJECT_COUNT; r++)
        if (r != CULONX_REJECT_POWER_CAP || R->spec.power_cap_w > 0)
            fprintf(o, "%s\n    \"%s\": %llu", r ? "," : "",
                    culonx_sweep_reject_name((culonx_sweep_reject)r),
                    (unsigned long long)R->rejected[r]);
    fprintf(o, "\n  },\n  \"top\": [");
    for (int i = 0; i < R->ntop; i++) {
        fprintf(o, "%s\n    ", i ? "," : "");
        json_entry(o, &R->top[i]);
    }
    fprintf(o, "%s],\n  \"pareto_axes\": \"%s\",\n  \"pareto\": [", R->ntop ? "\n  " : "",
            R->energy_available ? "time,energy,memory" : "time,memory");
    for (int i = 0; i < R->nfront; i++) {
        fprintf(o, "%s\n    ", i ? "," : "");
        json_entry(o, &R->front[i]);
    }
    fprintf(o, "%s]", R->nfront ? "\n  " : "");
    if (R->spec.verify_k > 0) {
        fprintf(o, ",\n  \"verify\": {\"requested\": %d, \"ok\": %s, \"graph\": [",
                R->spec.verify_k, R->verify_status == CULONX_OK ? "true" : "false");
        for (int i = 0; i < R->nverified; i++)
            fprintf(o,
                    "%s\n    {\"index\": %llu, \"closed_iteration_time_s\": %.9g, "
                    "\"graph_iteration_time_s\": %.9g, \"closed_peak_memory_gib\": %.9g, "
                    "\"graph_peak_memory_gib\": %.9g}",
                    i ? "," : "", (unsigned long long)R->top[i].index,
                    R->top[i].res.iteration_time_s, R->verified[i].iteration_time_s,
                    R->top[i].res.memory.peak_bytes / CX_GIB,
                    R->verified[i].memory.peak_bytes / CX_GIB);
        fprintf(o, "%s]}", R->nverified ? "\n  " : "");
    }
    fprintf(o, "\n}\n");
}
