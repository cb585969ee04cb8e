/*
 * serve_report.c — renders `culonx serve` (a row per clock of one serving
 * instance, with SLO marks) and `culonx serve --plan` (the chosen pools and
 * the all-max-clock baseline) as text, JSON or CSV. Pure formatting: the
 * numbers come from core/eval/serve.c and core/eval/serve_plan.c.
 */
#include "core/base/base.h"
#include "core/output/report.h"

#include <string.h>

static const char *slo_mark(const culonx_serve_row *r)
{
    if (!r->fits) return "memory";
    if (!r->ttft_ok && !r->tpot_ok) return "TTFT+TPOT";
    if (!r->ttft_ok) return "TTFT";
    if (!r->tpot_ok) return "TPOT";
    return "ok";
}

static void header_text(FILE *out, const culonx_run *run, const culonx_serve_row *r0)
{
    const culonx_serving *s = &run->serving;
    char w[32], kv[32], ws[32], pk[32], cap[32], kvt[32];
    fprintf(out, "culonx %s — serving %s on %s (%s)\n", CULONX_VERSION, run->model.name,
            run->system.gpu.name, run->system.name);
    fprintf(out,
            "  instance    TP %lld, PP %lld (%lld GPUs), batch %lld, %lld input / %lld output "
            "tokens per request, %s weights, %s KV cache\n",
            (long long)s->tp, (long long)s->pp, (long long)(s->tp * s->pp), (long long)s->batch,
            (long long)s->input_tokens, (long long)s->output_tokens, culonx_dtype_name(s->dtype),
            culonx_dtype_name(s->kv_dtype));
    if (!r0) return;
    cx_core_fmt_bytes(w, sizeof w, r0->weights_bytes);
    cx_core_fmt_bytes(kv, sizeof kv, r0->kv_bytes);
    cx_core_fmt_bytes(ws, sizeof ws, r0->workspace_bytes);
    cx_core_fmt_bytes(pk, sizeof pk, r0->peak_bytes);
    cx_core_fmt_bytes(cap, sizeof cap, r0->capacity_bytes);
    snprintf(kvt, sizeof kvt, "%.1f KiB", r0->kv_bytes_per_token / 1024.0);
    fprintf(out,
            "  memory/GPU  weights %s + KV cache %s + workspace %s = %s of %s: %s (largest batch "
            "%lld); KV %s per token (2·l·k·d·bytes)\n",
            w, kv, ws, pk, cap, r0->fits ? "fits" : "DOES NOT FIT", (long long)r0->max_batch, kvt);
    fprintf(out, "  SLOs        TTFT ");
    if (s->ttft_slo_s > 0)
        fprintf(out, "<= %g ms", s->ttft_slo_s * 1e3);
    else
        fprintf(out, "none");
    fprintf(out, ", TPOT ");
    if (s->tpot_slo_s > 0)
        fprintf(out, "<= %g ms\n", s->tpot_slo_s * 1e3);
    else
        fprintf(out, "none\n");
}

void culonx_report_serve(FILE *out, const culonx_run *run, const culonx_serve_row *rows, int n,
                         const char *format)
{
    int csv = format && !strcmp(format, "csv"), json = format && !strcmp(format, "json");
    if (csv) {
        fprintf(out, "clock_mhz,ttft_s,tpot_s,tokens_per_s,power_w,energy_j_per_token,"
                     "energy_j_per_request,peak_bytes,max_batch,fits,ttft_ok,tpot_ok,slo_ok,"
                     "min_energy\n");
        for (int i = 0; i < n; i++) {
            const culonx_serve_row *r = &rows[i];
            fprintf(out, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%lld,%d,%d,%d,%d,%d\n",
                    r->clock_mhz, r->ttft_s, r->tpot_s, r->tokens_per_s, r->power_w,
                    r->energy_j_per_token, r->energy_j_per_request, r->peak_bytes,
                    (long long)r->max_batch, r->fits, r->ttft_ok, r->tpot_ok, r->slo_ok,
                    r->min_energy);
        }
        return;
    }
    if (json) {
        const culonx_serving *s = &run->serving;
        fprintf(out, "{\"model\": ");
        cx_core_json_str(out, run->model.name);
        fprintf(out, ", \"system\": ");
        cx_core_json_str(out, run->system.name);
        fprintf(out,
                ", \"tp\": %lld, \"pp\": %lld, \"batch\": %lld, \"input_tokens\": %lld, "
                "\"output_tokens\": %lld, \"rows\": [",
                (long long)s->tp, (long long)s->pp, (long long)s->batch, (long long)s->input_tokens,
                (long long)s->output_tokens);
        for (int i = 0; i < n; i++) {
            const culonx_serve_row *r = &rows[i];
            fprintf(out, "%s\n  {\"clock_mhz\": ", i ? "," : "");
            cx_core_json_num(out, r->clock_mhz);
#define NUM(k, v)                                                                                  \
    fprintf(out, ", \"" k "\": ");                                                                 \
    cx_core_json_num(out, v)
            NUM("ttft_s", r->ttft_s);
            NUM("tpot_s", r->tpot_s);
            NUM("tpot_mem_s", r->tpot_mem_s);
            NUM("tpot_compute_s", r->tpot_compute_s);
            NUM("tpot_comm_s", r->tpot_comm_s);
            NUM("tokens_per_s", r->tokens_per_s);
            NUM("energy_j_per_token", r->energy_j_per_token);
            NUM("energy_j_per_request", r->energy_j_per_request);
            NUM("power_w", r->power_w);
            NUM("weights_bytes", r->weights_bytes);
            NUM("kv_bytes", r->kv_bytes);
            NUM("peak_bytes", r->peak_bytes);
            NUM("kv_bytes_per_token", r->kv_bytes_per_token);
#undef NUM
            fprintf(out,
                    ", \"max_batch\": %lld, \"fits\": %s, \"ttft_ok\": %s, \"tpot_ok\": %s, "
                    "\"slo_ok\": %s, \"min_energy\": %s}",
                    (long long)r->max_batch, r->fits ? "true" : "false",
                    r->ttft_ok ? "true" : "false", r->tpot_ok ? "true" : "false",
                    r->slo_ok ? "true" : "false", r->min_energy ? "true" : "false");
        }
        fprintf(out, "\n]}\n");
        return;
    }
    header_text(out, run, n > 0 ? &rows[0] : NULL);
    fprintf(out, "\n  clock MHz   TTFT ms   TPOT ms   tokens/s   W/GPU   J/token   J/request  "
                 "SLO\n");
    for (int i = 0; i < n; i++) {
        const culonx_serve_row *r = &rows[i];
        fprintf(out, "  %9.0f %9.1f %9.2f %10.1f %7.1f %9.3f %11.1f  %s%s\n", r->clock_mhz,
                r->ttft_s * 1e3, r->tpot_s * 1e3, r->tokens_per_s, r->power_w,
                r->energy_j_per_token, r->energy_j_per_request, slo_mark(r),
                r->min_energy ? "  <- least energy within SLOs" : "");
    }
    if (n > 0) {
        const culonx_serve_row *r = &rows[n - 1];
        fprintf(out,
                "\n  decode step at %.0f MHz: %.2f ms HBM-bound ops, %.2f ms compute-bound ops, "
                "%.2f ms TP/PP communication\n",
                r->clock_mhz, r->tpot_mem_s * 1e3, r->tpot_compute_s * 1e3, r->tpot_comm_s * 1e3);
    }
}

void culonx_report_serve_plan(FILE *out, const culonx_run *run, const culonx_serve_plan *p,
                              const char *format)
{
    const culonx_serving *s = &run->serving;
    if (format && !strcmp(format, "json")) {
        fprintf(out, "{\"gpus\": %lld, \"load_tokens_per_s\": ", (long long)p->gpus);
        cx_core_json_num(out, p->load_tokens_per_s);
        fprintf(out, ", \"feasible\": %s, \"power_w\": ", p->feasible ? "true" : "false");
        cx_core_json_num(out, p->power_w);
        fprintf(out, ", \"energy_j_per_token\": ");
        cx_core_json_num(out, p->energy_j_per_token);
        fprintf(out, ", \"pools\": [");
        for (int i = 0; i < p->npools; i++) {
            const culonx_serve_pool *q = &p->pool[i];
            fprintf(out, "%s{\"tp\": %lld, \"instances\": %lld, \"clock_mhz\": ", i ? ", " : "",
                    (long long)q->tp, (long long)q->instances);
            cx_core_json_num(out, q->clock_mhz);
            fprintf(out, ", \"load_tokens_per_s\": ");
            cx_core_json_num(out, q->load_tokens_per_s);
            fprintf(out, ", \"power_w\": ");
            cx_core_json_num(out, q->power_w);
            fprintf(out, ", \"ttft_s\": ");
            cx_core_json_num(out, q->row.ttft_s);
            fprintf(out, ", \"tpot_s\": ");
            cx_core_json_num(out, q->row.tpot_s);
            fprintf(out, "}");
        }
        fprintf(out, "], \"baseline\": {\"tp\": %lld, \"instances\": %lld, \"clock_mhz\": ",
                (long long)p->baseline_tp, (long long)p->baseline_instances);
        cx_core_json_num(out, p->baseline_clock_mhz);
        fprintf(out, ", \"feasible\": %s, \"power_w\": ", p->baseline_feasible ? "true" : "false");
        cx_core_json_num(out, p->baseline_power_w);
        fprintf(out, ", \"energy_j_per_token\": ");
        cx_core_json_num(out, p->baseline_energy_j_per_token);
        fprintf(out, "}, \"saving\": ");
        cx_core_json_num(out, p->saving);
        fprintf(out, ", \"clocks\": %d, \"evaluated\": %llu}\n", p->nclocks,
                (unsigned long long)p->evaluated);
        return;
    }
    header_text(out, run, NULL);
    fprintf(out, "  plan        %lld GPUs, load %g output tokens/s; TP degrees", (long long)p->gpus,
            p->load_tokens_per_s);
    for (int i = 0; i < p->ntp; i++)
        fprintf(out, "%s%lld", i ? "," : " ", (long long)p->tp[i]);
    fprintf(out, " x %d clocks, %llu pool combinations solved\n", p->nclocks,
            (unsigned long long)p->evaluated);
    fprintf(out, "  SLOs        TTFT %g ms, TPOT %g ms (0: none)\n\n", s->ttft_slo_s * 1e3,
            s->tpot_slo_s * 1e3);
    if (!p->feasible) {
        fprintf(out, "  no plan serves the load within the SLOs on %lld GPUs\n",
                (long long)p->gpus);
    } else {
        fprintf(out, "  TP  instances  clock MHz  load tok/s  capacity tok/s   TTFT ms  TPOT ms  "
                     "power W\n");
        int64_t used = 0;
        for (int i = 0; i < p->npools; i++) {
            const culonx_serve_pool *q = &p->pool[i];
            used += q->instances * q->row.gpus;
            fprintf(out, "  %2lld %10lld %10.0f %11.1f %15.1f %9.1f %8.2f %8.0f\n",
                    (long long)q->tp, (long long)q->instances, q->clock_mhz, q->load_tokens_per_s,
                    (double)q->instances * q->row.tokens_per_s, q->row.ttft_s * 1e3,
                    q->row.tpot_s * 1e3, q->power_w);
        }
        fprintf(out,
                "\n  plan        %.0f W for all %lld GPUs (%lld in pools, the rest idle), %.3f "
                "J/token\n",
                p->power_w, (long long)p->gpus, (long long)used, p->energy_j_per_token);
    }
    fprintf(out, "  baseline    %lld x TP %lld at %.0f MHz: ", (long long)p->baseline_instances,
            (long long)p->baseline_tp, p->baseline_clock_mhz);
    if (p->baseline_feasible)
        fprintf(out, "%.0f W, %.3f J/token\n", p->baseline_power_w, p->baseline_energy_j_per_token);
    else
        fprintf(out, "cannot serve the load within the SLOs\n");
    if (p->feasible && p->baseline_feasible)
        fprintf(out, "  saving      %.1f%% of the baseline's energy\n", 100.0 * p->saving);
}
