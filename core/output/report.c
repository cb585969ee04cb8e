/*
 * report.c — renders a result as a human-readable table or as JSON onto a
 * caller-supplied stream (the library never chooses stdout itself). Pure
 * formatting: every number printed is computed elsewhere.
 */
#include "core/base/base.h"
#include "core/output/report.h"
#include "models/model.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------ formatting */

void cx_core_fmt_time(char *buf, size_t n, double s)
{
    if (s >= 86400.0 * 2)
        snprintf(buf, n, "%.1f days", s / 86400.0);
    else if (s >= 3600.0)
        snprintf(buf, n, "%.2f h", s / 3600.0);
    else if (s >= 1.0)
        snprintf(buf, n, "%.3f s", s);
    else if (s >= 1e-3)
        snprintf(buf, n, "%.2f ms", s * 1e3);
    else
        snprintf(buf, n, "%.1f us", s * 1e6);
}

void cx_core_fmt_bytes(char *buf, size_t n, double b)
{
    if (b >= CX_GIB)
        snprintf(buf, n, "%.2f GiB", b / CX_GIB);
    else
        snprintf(buf, n, "%.1f MiB", b / (1024.0 * 1024.0));
}

void cx_core_fmt_si(char *buf, size_t n, double v, const char *unit)
{
    static const char *pre[] = {"", "k", "M", "G", "T", "P", "E", "Z"};
    int i = 0;
    while (fabs(v) >= 1000.0 && i < 7)
        v /= 1000.0, i++;
    snprintf(buf, n, "%.3g %s%s", v, pre[i], unit);
}

/* Length of the valid UTF-8 sequence at s (1..4), 0 if invalid (overlong
 * forms, surrogates and code points above U+10FFFF are invalid). */
static int utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    int n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (!n || c > 0xF4) return 0;
    unsigned cp = c & (0x3Fu >> (n - 1));
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* A JSON string: quotes, backslashes and control characters escaped; bytes
 * that are not valid UTF-8 become U+FFFD, so the output is always valid
 * UTF-8 JSON whatever a file name or label holds. */
void cx_core_json_str(FILE *out, const char *s)
{
    fputc('"', out);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char ch = *p;
        if (ch == '"' || ch == '\\') {
            fprintf(out, "\\%c", ch);
            p++;
        } else if (ch < 0x20) {
            fprintf(out, "\\u%04x", ch);
            p++;
        } else {
            int n = utf8_len(p);
            if (n == 0) {
                fputs("\\ufffd", out);
                p++;
            } else {
                fwrite(p, 1, (size_t)n, out);
                p += n;
            }
        }
    }
    fputc('"', out);
}

void cx_core_json_num(FILE *out, double v)
{
    if (!isfinite(v))
        fputs("null", out);
    else if (v == floor(v) && fabs(v) < 1e15)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.9g", v);
}

/* ------------------------------------------------------------------ text */

static void row_time(FILE *out, const char *name, double s, double total)
{
    char b[32];
    cx_core_fmt_time(b, sizeof b, s);
    fprintf(out, "  %-22s %12s  %5.1f%%\n", name, b, total > 0 ? 100.0 * s / total : 0.0);
}

static void row_bytes(FILE *out, const char *name, double v)
{
    char b[32];
    cx_core_fmt_bytes(b, sizeof b, v);
    fprintf(out, "  %-22s %12s\n", name, b);
}

void culonx_report_text(FILE *out, const culonx_run *run, const culonx_result *r)
{
    const culonx_model *m = &run->model;
    const culonx_execution *e = &run->exec;
    const cx_model_family *fam = cx_model_family_of(m->arch);
    char a[32], b[32], c[32];
    cx_core_fmt_si(a, sizeof a, r->params, "");
    fprintf(out, "culonx %s — %s on %lld x %s (%s)\n", CULONX_VERSION, m->name, (long long)e->gpus,
            run->system.gpu.name, run->system.name);
    fprintf(out,
            "  model       %s, %lld layers, hidden %lld, %lld heads (%lld kv), ffn %lld, "
            "vocab %lld, seq %lld: %s parameters\n",
            fam ? fam->name : "?", (long long)m->layers, (long long)m->hidden, (long long)m->heads,
            (long long)m->kv_heads, (long long)m->ffn, (long long)m->vocab, (long long)m->seq, a);
    fprintf(out,
            "  execution   TP %lld, PP %lld, DP %lld, VP %lld, microbatch %lld, global "
            "batch %lld (%lld microbatches), %s\n",
            (long long)e->tp, (long long)e->pp, (long long)e->dp, (long long)e->vp,
            (long long)e->microbatch, (long long)e->global_batch, (long long)r->microbatches,
            culonx_schedule_name(e->schedule));
    if (m->arch == CULONX_ARCH_MOE) {
        cx_core_fmt_si(a, sizeof a, r->active_params, "");
        fprintf(out,
                "              %lld experts (top-%lld, expert ffn %lld, %lld shared): %s "
                "active parameters\n",
                (long long)m->experts, (long long)m->experts_per_token, (long long)m->expert_ffn,
                (long long)m->shared_experts, a);
    }
    if (e->cp > 1)
        fprintf(out, "              context parallel CP %lld (ring attention)\n", (long long)e->cp);
    if (m->arch == CULONX_ARCH_MOE) {
        fprintf(out, "              expert parallel EP %lld, ETP %lld, capacity factor %g",
                (long long)(e->ep > 1 ? e->ep : 1), (long long)(e->etp > 1 ? e->etp : 1),
                e->capacity_factor > 1.0 ? e->capacity_factor : 1.0);
        if (e->a2a_overlap != CULONX_A2A_OVERLAP_NONE)
            fprintf(out, ", all-to-all overlap %s", culonx_a2a_overlap_name(e->a2a_overlap));
        if (e->route_nodes > 0)
            fprintf(out, ", routed to at most %lld nodes", (long long)e->route_nodes);
        fputc('\n', out);
        if (m->window > 0 && m->window_every > 1)
            fprintf(out,
                    "              sliding window %lld on one layer in %lld, full attention on the "
                    "rest\n",
                    (long long)m->window, (long long)m->window_every);
    }
    fprintf(out,
            "              recompute %s, sequence parallel %s, distributed optimizer %s, "
            "%s, DP overlap %s, clock %.0f MHz\n",
            culonx_recompute_name(e->recompute), e->sequence_parallel ? "on" : "off",
            e->distributed_optimizer ? "on" : "off", culonx_dtype_name(e->dtype),
            e->dp_overlap ? "on" : "off", r->clock_mhz);
    const int zero = e->zero > 0 ? e->zero : e->distributed_optimizer ? 1 : 0;
    if (zero >= 2 || e->shard_group > 0 || e->offload) {
        char off[64];
        culonx_offload_names(e->offload, off, sizeof off);
        fprintf(out, "              ZeRO %d%s%s%s, shard group %lld of DP %lld, offload %s\n", zero,
                zero >= 3 ? " (" : "", zero >= 3 ? culonx_zero_impl_name(e->zero_impl) : "",
                zero >= 3 ? ")" : "", (long long)(e->shard_group > 0 ? e->shard_group : e->dp),
                (long long)e->dp, off);
    }

    cx_core_fmt_time(a, sizeof a, r->iteration_time_s);
    fprintf(out, "\nIteration time %s\n", a);
    const culonx_time_breakdown *t = &r->breakdown;
    double T = r->iteration_time_s;
    row_time(out, "forward", t->forward_s, T);
    row_time(out, "backward", t->backward_s, T);
    row_time(out, "recompute", t->recompute_s, T);
    row_time(out, "TP communication", t->tp_comm_s, T);
    if (m->arch == CULONX_ARCH_MOE) row_time(out, "expert all-to-all", t->ep_comm_s, T);
    row_time(out, "PP communication", t->pp_comm_s, T);
    row_time(out, "pipeline bubble", t->bubble_s, T);
    row_time(out, "DP communication", t->dp_comm_s, T);
    row_time(out, "optimizer step", t->optimizer_s, T);
    if (zero >= 2) row_time(out, "ZeRO gather / RS", t->shard_comm_s, T);
    if (e->offload) row_time(out, "offload transfers", t->offload_s, T);
    if (zero >= 2 || e->offload) {
        cx_core_fmt_time(a, sizeof a, r->side_traffic_s);
        fprintf(out,
                "    (gathers, reduce-scatters and host transfers: %s per iteration, the rest "
                "hidden by prefetch)\n",
                a);
    }

    const culonx_memory *mm = &r->memory;
    cx_core_fmt_bytes(a, sizeof a, mm->peak_bytes);
    cx_core_fmt_bytes(b, sizeof b, mm->capacity_bytes);
    fprintf(out, "\nMemory per GPU %s of %s: %s\n", a, b, mm->fits ? "fits" : "DOES NOT FIT");
    row_bytes(out, "weights", mm->weights_bytes);
    row_bytes(out, "gradients", mm->gradients_bytes);
    row_bytes(out, "optimizer state", mm->optimizer_bytes);
    row_bytes(out, "activations", mm->activations_bytes);
    row_bytes(out, "working buffers", mm->workspace_bytes);
    if (m->arch == CULONX_ARCH_MOE) row_bytes(out, "of which experts", mm->expert_bytes);
    if (mm->gathered_bytes > 0) row_bytes(out, "  of which unsharded", mm->gathered_bytes);
    if (e->offload) {
        cx_core_fmt_bytes(a, sizeof a, mm->host_bytes);
        cx_core_fmt_bytes(b, sizeof b, mm->host_capacity_bytes);
        fprintf(out, "  host memory %s of %s per GPU (offload)\n", a, b);
    }

    cx_core_fmt_si(a, sizeof a, r->model_flops, "FLOP");
    cx_core_fmt_si(b, sizeof b, r->hardware_flops, "FLOP");
    fprintf(out, "\nCompute\n  model FLOPs / iter     %12s\n  hardware FLOPs / iter  %12s\n", a, b);
    fprintf(out, "  MFU %.1f%%   HFU %.1f%%   %.1f TFLOP/s per GPU (hardware)\n", 100.0 * r->mfu,
            100.0 * r->hfu, r->hardware_flops / (r->iteration_time_s * (double)e->gpus) / 1e12);
    cx_core_fmt_si(a, sizeof a, r->tokens_per_s, "tokens/s");
    fprintf(out, "  throughput %s, pipeline bubble %.1f%%\n", a, 100.0 * r->bubble_fraction);

    if (r->energy.total_j > 0) {
        const culonx_energy *en = &r->energy;
        cx_core_fmt_si(a, sizeof a, en->total_j, "J");
        double tok = (double)e->global_batch * (double)run->model.seq;
        fprintf(out, "\nEnergy per iteration %s (%.4g J per token), %.0f W average per GPU\n", a,
                tok > 0 ? en->total_j / tok : 0.0, r->avg_power_w);
        /* HBM traffic energy is part of GPU compute (core/eval/energy.c) */
        const char *names[] = {"GPU compute", "  of which HBM", "GPU idle / blocked",
                               "network",     "node overhead",  "facility (PUE)"};
        double vals[] = {en->compute_j, en->hbm_j,      en->idle_j,
                         en->network_j, en->overhead_j, en->facility_j};
        for (int i = 0; i < 6; i++) {
            cx_core_fmt_si(b, sizeof b, vals[i], "J");
            fprintf(out, "  %-22s %12s  %5.1f%%\n", names[i], b, 100.0 * vals[i] / en->total_j);
        }
    }
    if (r->power_capped_passes > 0) {
        /* the board power limit (core/eval/power_cap.c) */
        cx_core_fmt_time(a, sizeof a, r->power_capped_s);
        fprintf(out,
                "\nPower capped: %d passes (of a layer kind, the embedding or the head) would "
                "exceed the %.0f W board limit at %.0f MHz; they run at %.0f MHz or above, +%s "
                "compute per iteration (busiest stage)\n",
                r->power_capped_passes, r->power_limit_w, r->clock_mhz, r->power_capped_min_mhz, a);
    }
    if (e->tokens > 0) {
        cx_core_fmt_si(a, sizeof a, e->tokens, "tokens");
        cx_core_fmt_time(b, sizeof b, r->time_to_train_s);
        cx_core_fmt_si(c, sizeof c, r->gpu_hours, "GPU-hours");
        fprintf(out, "\nTraining budget %s: %.0f iterations, %s, %s", a, r->iterations, b, c);
        if (r->energy_to_train_j > 0) fprintf(out, ", %.3g MWh", r->energy_to_train_j / 3.6e9);
        fputc('\n', out);
    }
}

/* ------------------------------------------------------------------ JSON */

static void kv(FILE *out, const char *k, double v, int comma)
{
    fprintf(out, "\"%s\": ", k);
    cx_core_json_num(out, v);
    if (comma) fputs(", ", out);
}

void culonx_report_json(FILE *out, const culonx_run *run, const culonx_result *r)
{
    const culonx_execution *e = &run->exec;
    fputs("{\"model\": ", out);
    cx_core_json_str(out, run->model.name);
    fputs(", \"system\": ", out);
    cx_core_json_str(out, run->system.name);
    fputs(", \"execution\": {", out);
    kv(out, "gpus", (double)e->gpus, 1);
    kv(out, "tp", (double)e->tp, 1);
    kv(out, "pp", (double)e->pp, 1);
    kv(out, "dp", (double)e->dp, 1);
    kv(out, "vp", (double)e->vp, 1);
    kv(out, "microbatch", (double)e->microbatch, 1);
    kv(out, "global_batch", (double)e->global_batch, 1);
    kv(out, "microbatches", (double)r->microbatches, 1);
    fprintf(out, "\"schedule\": \"%s\", \"recompute\": \"%s\", \"dtype\": \"%s\", ",
            culonx_schedule_name(e->schedule), culonx_recompute_name(e->recompute),
            culonx_dtype_name(e->dtype));
    fprintf(out, "\"sequence_parallel\": %s, \"distributed_optimizer\": %s, \"dp_overlap\": %s, ",
            e->sequence_parallel ? "true" : "false", e->distributed_optimizer ? "true" : "false",
            e->dp_overlap ? "true" : "false");
    kv(out, "cp", (double)(e->cp > 1 ? e->cp : 1), 1);
    fprintf(out, "\"attention\": \"%s\", \"tp_overlap\": \"%s\", \"param_gather_overlap\": %s, ",
            culonx_attention_name(e->attention), culonx_tp_overlap_name(e->tp_overlap),
            e->param_gather_overlap ? "true" : "false");
    kv(out, "first_stage_layers", (double)e->first_stage_layers, 1);
    kv(out, "last_stage_layers", (double)e->last_stage_layers, 1);
    kv(out, "ep", (double)(e->ep > 1 ? e->ep : 1), 1);
    kv(out, "etp", (double)(e->etp > 1 ? e->etp : 1), 1);
    kv(out, "capacity_factor", e->capacity_factor > 1.0 ? e->capacity_factor : 1.0, 1);
    fprintf(out, "\"a2a_overlap\": \"%s\", ", culonx_a2a_overlap_name(e->a2a_overlap));
    kv(out, "route_nodes", (double)e->route_nodes, 1);
    fprintf(out, "\"embedding_in_split\": %s, \"loss_in_split\": %s, ",
            e->embedding_in_split ? "true" : "false", e->loss_in_split ? "true" : "false");
    {
        char off[64];
        culonx_offload_names(e->offload, off, sizeof off);
        kv(out, "zero", e->zero > 0 ? e->zero : e->distributed_optimizer ? 1 : 0, 1);
        kv(out, "shard_group", (double)(e->shard_group > 0 ? e->shard_group : e->dp), 1);
        fprintf(out, "\"zero_impl\": \"%s\", \"offload\": \"%s\"},\n",
                culonx_zero_impl_name(e->zero_impl), off);
    }
    fputs(" ", out);
    kv(out, "params", r->params, 1);
    kv(out, "active_params", r->active_params, 1);
    kv(out, "params_per_gpu", r->params_per_gpu, 1);
    kv(out, "iteration_time_s", r->iteration_time_s, 1);
    kv(out, "side_traffic_s", r->side_traffic_s, 1);
    kv(out, "clock_mhz", r->clock_mhz, 0);
    const culonx_time_breakdown *t = &r->breakdown;
    fputs(",\n \"breakdown_s\": {", out);
    kv(out, "forward", t->forward_s, 1);
    kv(out, "backward", t->backward_s, 1);
    kv(out, "recompute", t->recompute_s, 1);
    kv(out, "tp_comm", t->tp_comm_s, 1);
    kv(out, "ep_comm", t->ep_comm_s, 1);
    kv(out, "pp_comm", t->pp_comm_s, 1);
    kv(out, "bubble", t->bubble_s, 1);
    kv(out, "dp_comm", t->dp_comm_s, 1);
    kv(out, "optimizer", t->optimizer_s, 1);
    kv(out, "shard_comm", t->shard_comm_s, 1);
    kv(out, "offload", t->offload_s, 0);
    const culonx_memory *mm = &r->memory;
    fputs("},\n \"memory\": {", out);
    kv(out, "weights_bytes", mm->weights_bytes, 1);
    kv(out, "gradients_bytes", mm->gradients_bytes, 1);
    kv(out, "optimizer_bytes", mm->optimizer_bytes, 1);
    kv(out, "activations_bytes", mm->activations_bytes, 1);
    kv(out, "workspace_bytes", mm->workspace_bytes, 1);
    kv(out, "expert_bytes", mm->expert_bytes, 1);
    kv(out, "peak_bytes", mm->peak_bytes, 1);
    kv(out, "capacity_bytes", mm->capacity_bytes, 1);
    kv(out, "gathered_bytes", mm->gathered_bytes, 1);
    kv(out, "host_bytes", mm->host_bytes, 1);
    kv(out, "host_capacity_bytes", mm->host_capacity_bytes, 1);
    fprintf(out, "\"fits\": %s},\n \"flops\": {", mm->fits ? "true" : "false");
    kv(out, "model", r->model_flops, 1);
    kv(out, "hardware", r->hardware_flops, 0);
    fputs("},\n ", out);
    kv(out, "mfu", r->mfu, 1);
    kv(out, "hfu", r->hfu, 1);
    kv(out, "tokens_per_s", r->tokens_per_s, 1);
    kv(out, "bubble_fraction", r->bubble_fraction, 1);
    kv(out, "energy_j", r->energy.total_j, 1);
    kv(out, "avg_power_w", r->avg_power_w, 1);
    /* facility included (PUE, node overhead): energy / (global batch x seq) */
    double tok = (double)run->exec.global_batch * (double)run->model.seq;
    kv(out, "energy_per_token_j", tok > 0 ? r->energy.total_j / tok : 0.0, 0);
    if (r->power_capped_passes > 0) { /* the board power limit (core/eval/power_cap.c) */
        fputs(",\n \"power_capped\": {", out);
        kv(out, "limit_w", r->power_limit_w, 1);
        kv(out, "passes", (double)r->power_capped_passes, 1);
        kv(out, "min_clock_mhz", r->power_capped_min_mhz, 1);
        kv(out, "added_compute_s", r->power_capped_s, 0);
        fputc('}', out);
    }
    const culonx_energy *en = &r->energy;
    fputs(",\n \"energy_breakdown_j\": {", out);
    kv(out, "compute", en->compute_j, 1);
    kv(out, "idle", en->idle_j, 1);
    kv(out, "hbm", en->hbm_j, 1);
    kv(out, "network", en->network_j, 1);
    kv(out, "overhead", en->overhead_j, 1);
    kv(out, "facility", en->facility_j, 0);
    fputs("}", out);
    if (e->tokens > 0) {
        fputs(",\n \"training\": {", out);
        kv(out, "tokens", e->tokens, 1);
        kv(out, "iterations", r->iterations, 1);
        kv(out, "time_to_train_s", r->time_to_train_s, 1);
        kv(out, "gpu_hours", r->gpu_hours, 1);
        kv(out, "energy_j", r->energy_to_train_j, 0);
        fputs("}", out);
    }
    fputs("}\n", out);
}

/* ------------------------------------------------------- schedules table */

void culonx_report_schedules(FILE *out, const culonx_run *run, const culonx_schedule_row *rows,
                             int n, int best, int json)
{
    char a[32], b[32], c[32];
    if (json) {
        fputs("{\"model\": ", out);
        cx_core_json_str(out, run->model.name);
        fprintf(out, ", \"pp\": %lld, \"microbatches\": %lld, \"best\": ", (long long)run->exec.pp,
                (long long)(run->exec.global_batch / (run->exec.microbatch * run->exec.dp)));
        if (best >= 0)
            cx_core_json_str(out, culonx_schedule_name(rows[best].schedule));
        else
            fputs("null", out);
        fputs(", \"schedules\": [", out);
        for (int i = 0; i < n; i++) {
            const culonx_schedule_row *r = &rows[i];
            fprintf(out, "%s\n {\"schedule\": \"%s\", \"supported\": %s", i ? "," : "",
                    culonx_schedule_name(r->schedule), r->supported ? "true" : "false");
            if (!r->supported) {
                fputs(", \"why\": ", out);
                cx_core_json_str(out, r->why);
                fputs("}", out);
                continue;
            }
            fprintf(out, ", \"vp\": %lld, \"iteration_time_s\": ", (long long)r->vp);
            cx_core_json_num(out, r->result.iteration_time_s);
            fputs(", \"bubble_fraction\": ", out);
            cx_core_json_num(out, r->result.bubble_fraction);
            fputs(", \"activations_bytes\": ", out);
            cx_core_json_num(out, r->result.memory.activations_bytes);
            fputs(", \"peak_bytes\": ", out);
            cx_core_json_num(out, r->result.memory.peak_bytes);
            fprintf(out,
                    ", \"fits\": %s, \"p2p_bytes\": ", r->result.memory.fits ? "true" : "false");
            cx_core_json_num(out, r->p2p_bytes);
            fputs(", \"energy_j\": ", out);
            cx_core_json_num(out, r->result.energy.total_j);
            fputs("}", out);
        }
        fputs("]}\n", out);
        return;
    }
    fprintf(
        out, "Pipeline schedules for %s: TP %lld, PP %lld, DP %lld, %lld microbatches of %lld\n\n",
        run->model.name, (long long)run->exec.tp, (long long)run->exec.pp, (long long)run->exec.dp,
        (long long)(run->exec.global_batch / (run->exec.microbatch * run->exec.dp)),
        (long long)run->exec.microbatch);
    fprintf(out, "  %-12s %3s %12s %7s %12s %12s %5s %12s\n", "schedule", "v", "iteration",
            "bubble", "activations", "peak mem", "fits", "p2p/iter");
    for (int i = 0; i < n; i++) {
        const culonx_schedule_row *r = &rows[i];
        if (!r->supported) {
            fprintf(out, "  %-12s   - not applicable: %s\n", culonx_schedule_name(r->schedule),
                    r->why);
            continue;
        }
        cx_core_fmt_time(a, sizeof a, r->result.iteration_time_s);
        cx_core_fmt_bytes(b, sizeof b, r->result.memory.activations_bytes);
        cx_core_fmt_bytes(c, sizeof c, r->result.memory.peak_bytes);
        char d[32];
        cx_core_fmt_bytes(d, sizeof d, r->p2p_bytes);
        fprintf(out, "  %-12s %3lld %12s %6.1f%% %12s %12s %5s %12s%s\n",
                culonx_schedule_name(r->schedule), (long long)r->vp, a,
                100.0 * r->result.bubble_fraction, b, c, r->result.memory.fits ? "yes" : "NO", d,
                i == best ? "  <- best" : "");
    }
    if (best < 0)
        fputs("\nNo schedule fits in memory.\n", out);
    else
        fprintf(out, "\nBest that fits: %s\n", culonx_schedule_name(rows[best].schedule));
}

/* ----------------------------------------------------------- clock table */

void culonx_report_clocks(FILE *out, const culonx_run *run, const culonx_clock_row *rows, int n,
                          const char *format)
{
    int csv = !strcmp(format, "csv"), json = !strcmp(format, "json");
    if (csv)
        fputs("clock_mhz,iteration_time_s,energy_j,avg_power_w,tokens_per_j,edp_js,"
              "min_energy,min_edp,pareto\n",
              out);
    else if (json) {
        fputs("{\"model\": ", out);
        cx_core_json_str(out, run->model.name);
        fputs(", \"system\": ", out);
        cx_core_json_str(out, run->system.name);
        fputs(", \"clocks\": [", out);
    } else {
        fprintf(out, "Energy per iteration by SM clock: %s on %lld x %s\n\n", run->model.name,
                (long long)run->exec.gpus, run->system.gpu.name);
        fprintf(out, "  %9s %12s %12s %10s %12s  %s\n", "clock MHz", "iteration", "energy",
                "power/GPU", "tokens/J", "marks");
    }
    for (int i = 0; i < n; i++) {
        const culonx_clock_row *r = &rows[i];
        const culonx_result *res = &r->result;
        if (csv) {
            fprintf(out, "%.0f,%.9g,%.9g,%.6g,%.6g,%.9g,%d,%d,%d\n", r->clock_mhz,
                    res->iteration_time_s, res->energy.total_j, res->avg_power_w, r->tokens_per_j,
                    r->edp_js, r->min_energy, r->min_edp, r->pareto);
        } else if (json) {
            fprintf(out, "%s\n {\"clock_mhz\": ", i ? "," : "");
            cx_core_json_num(out, r->clock_mhz);
            fputs(", \"iteration_time_s\": ", out);
            cx_core_json_num(out, res->iteration_time_s);
            fputs(", \"energy_j\": ", out);
            cx_core_json_num(out, res->energy.total_j);
            fputs(", \"avg_power_w\": ", out);
            cx_core_json_num(out, res->avg_power_w);
            fputs(", \"tokens_per_j\": ", out);
            cx_core_json_num(out, r->tokens_per_j);
            fprintf(out, ", \"min_energy\": %s, \"min_edp\": %s, \"pareto\": %s}",
                    r->min_energy ? "true" : "false", r->min_edp ? "true" : "false",
                    r->pareto ? "true" : "false");
        } else {
            char a[32], b[32];
            cx_core_fmt_time(a, sizeof a, res->iteration_time_s);
            cx_core_fmt_si(b, sizeof b, res->energy.total_j, "J");
            fprintf(out, "  %9.0f %12s %12s %8.0f W %12.4g  %s%s%s\n", r->clock_mhz, a, b,
                    res->avg_power_w, r->tokens_per_j, r->min_energy ? "min-energy " : "",
                    r->min_edp ? "min-EDP " : "", r->pareto ? "pareto" : "");
        }
    }
    if (json)
        fputs("]}\n", out);
    else if (!csv) {
        const culonx_clock_row *e = NULL, *d = NULL, *mx = &rows[n - 1];
        for (int i = 0; i < n; i++) {
            if (rows[i].min_energy) e = &rows[i];
            if (rows[i].min_edp) d = &rows[i];
        }
        if (e && d)
            fprintf(out,
                    "\nMinimum energy at %.0f MHz: %.1f%% less energy than %.0f MHz, %.1f%% "
                    "slower.\nMinimum energy-delay product at %.0f MHz.\n",
                    e->clock_mhz,
                    100.0 * (1.0 - e->result.energy.total_j / mx->result.energy.total_j),
                    mx->clock_mhz,
                    100.0 * (e->result.iteration_time_s / mx->result.iteration_time_s - 1.0),
                    d->clock_mhz);
    }
}
