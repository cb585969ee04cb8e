/*
 * html_report.c — `culonx report`: one self-contained HTML file (inline CSS
 * and SVG, one small inline script that only checks the page; no network, no
 * external file) for a training run: the key numbers; time, memory and energy
 * breakdown bars (culonx_estimate); energy and time per iteration versus SM
 * clock with the minimum-energy and minimum-EDP clocks marked
 * (culonx_energy_clocks); the pipeline timeline of the iteration
 * (html_timeline.c, the stage-level DAG of core/eval/walk.c); every schedule
 * side by side (culonx_schedules_compare). The sweep report (html_sweep.c)
 * shares the page head and tail. Every chart is a <figure class="chart">
 * whose data-chart attribute names it; the page script counts the charts and
 * their SVG shapes into #cx-status, which tests/check_report.sh reads in a
 * headless browser. No modelling here.
 */
#include "core/eval/graph.h"
#include "core/output/html.h"
#include "core/output/report.h"
#include "core/output/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const css =
    "body{font:14px/1.45 'DejaVu Sans',sans-serif;margin:24px auto;max-width:1000px;color:#222;"
    "background:#fff}h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 6px;"
    "border-bottom:1px solid #ddd;padding-bottom:3px}.sub{color:#555;margin:0 0 12px}"
    "table{border-collapse:collapse;font-size:13px}td,th{padding:3px 9px;text-align:right;"
    "border-bottom:1px solid #eee}th{background:#f4f4f4}td:first-child,th:first-child{text-align:"
    "left}figure{margin:8px 0}figcaption{color:#555;font-size:12px}svg text{font-family:'DejaVu "
    "Sans',sans-serif}.tick{font-size:11px;fill:#444}.axl{font-size:12px;fill:#222}.ttl{"
    "font-size:13px;font-weight:bold}.leg{font-size:12px}.ax{stroke:#444;stroke-width:1}.grid{"
    "stroke:#eee;stroke-width:1}.limit{stroke:#c00;stroke-width:2;stroke-dasharray:4 3}"
    ".s1{fill:none;stroke:#4e79a7;stroke-width:2}.s2{fill:none;stroke:#e15759;stroke-width:2}"
    ".mark{stroke:#555;stroke-width:1;stroke-dasharray:3 3}.scroll{overflow-x:auto;border:1px "
    "solid #ddd}.lab{font-size:10px;fill:#fff;pointer-events:none}.kv td{text-align:left}"
    ".best td{font-weight:bold}.note{color:#555;font-size:12px}";

static const char *const script =
    "<script>\n(function(){var errs=[];window.addEventListener('error',function(e){"
    "errs.push(String(e.message));});window.addEventListener('load',function(){"
    "var f=document.querySelectorAll('figure.chart'),bad=[];for(var i=0;i<f.length;i++){"
    "var n=f[i].querySelectorAll('svg rect,svg circle,svg polyline,svg line').length;"
    "if(n<3)bad.push(f[i].getAttribute('data-chart'));}"
    "var el=document.getElementById('cx-status');el.textContent=(errs.length||bad.length?"
    "'FAIL':'ok')+' charts='+f.length+' empty='+bad.join(',')+' errors='+errs.join(';');});"
    "})();\n</script>\n";

void cx_core_html_head(FILE *out, const char *title, const char *subtitle)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>", out);
    cx_core_html_esc(out, title);
    fprintf(out, "</title>\n<style>%s</style>\n%s</head><body>\n<h1>", css, script);
    cx_core_html_esc(out, title);
    fputs("</h1>\n<p class=\"sub\">", out);
    cx_core_html_esc(out, subtitle);
    fputs("</p>\n", out);
}

void cx_core_html_tail(FILE *out)
{
    fprintf(out,
            "<p class=\"note\">Made by culonx %s, an analytical model: every number is a "
            "prediction. Status: <span id=\"cx-status\">no script</span></p>\n</body></html>\n",
            CULONX_VERSION);
}

void cx_core_html_figure(FILE *out, const char *id, const char *caption)
{
    fprintf(out, "<figure class=\"chart\" data-chart=\"%s\">\n", id);
    if (caption) {
        fputs("<figcaption>", out);
        cx_core_html_esc(out, caption);
        fputs("</figcaption>\n", out);
    }
}

static void fmt_time(char *b, size_t n, double v)
{
    cx_core_fmt_time(b, n, v);
}
static void fmt_bytes(char *b, size_t n, double v)
{
    cx_core_fmt_bytes(b, n, v);
}
static void fmt_energy(char *b, size_t n, double v)
{
    cx_core_fmt_si(b, n, v, "J");
}

static void kv(FILE *out, const char *k, const char *v)
{
    fputs("<tr><td>", out);
    cx_core_html_esc(out, k);
    fputs("</td><td>", out);
    cx_core_html_esc(out, v);
    fputs("</td></tr>\n", out);
}

static void summary(FILE *out, const culonx_run *run, const culonx_result *r)
{
    char a[64], b[64], line[256];
    fputs("<table class=\"kv\">\n", out);
    cx_core_fmt_time(a, sizeof a, r->iteration_time_s);
    kv(out, "iteration time", a);
    cx_core_fmt_bytes(a, sizeof a, r->memory.peak_bytes);
    cx_core_fmt_bytes(b, sizeof b, r->memory.capacity_bytes);
    snprintf(line, sizeof line, "%s of %s: %s", a, b, r->memory.fits ? "fits" : "does NOT fit");
    kv(out, "memory per GPU", line);
    snprintf(line, sizeof line, "MFU %.1f%%, HFU %.1f%%, %.4g tokens/s", 100 * r->mfu, 100 * r->hfu,
             r->tokens_per_s);
    kv(out, "compute", line);
    snprintf(line, sizeof line,
             "TP %lld, PP %lld, DP %lld, VP %lld, microbatch %lld, %lld "
             "microbatches, %s, recompute %s",
             (long long)run->exec.tp, (long long)run->exec.pp, (long long)run->exec.dp,
             (long long)run->exec.vp, (long long)run->exec.microbatch, (long long)r->microbatches,
             culonx_schedule_name(run->exec.schedule), culonx_recompute_name(run->exec.recompute));
    kv(out, "execution", line);
    cx_core_fmt_si(a, sizeof a, r->energy.total_j, "J");
    snprintf(line, sizeof line, "%s per iteration, %.0f W average per GPU", a, r->avg_power_w);
    kv(out, "energy", line);
    fputs("</table>\n", out);
}

static void breakdowns(FILE *out, const culonx_result *r)
{
    const culonx_time_breakdown *t = &r->breakdown;
    cx_svg_part tp[11] = {{"forward", t->forward_s},     {"backward", t->backward_s},
                          {"recompute", t->recompute_s}, {"TP comm", t->tp_comm_s},
                          {"PP comm", t->pp_comm_s},     {"pipeline bubble", t->bubble_s},
                          {"DP comm", t->dp_comm_s},     {"optimizer", t->optimizer_s}};
    int ntp = 8; /* expert, ZeRO-2/3 and offload parts only when the run has them */
    if (t->ep_comm_s > 0) tp[ntp].name = "expert all-to-all", tp[ntp++].value = t->ep_comm_s;
    if (t->shard_comm_s > 0) tp[ntp].name = "ZeRO gather / RS", tp[ntp++].value = t->shard_comm_s;
    if (t->offload_s > 0) tp[ntp].name = "offload", tp[ntp++].value = t->offload_s;
    fputs("<h2>Where the time, memory and energy go</h2>\n", out);
    cx_core_html_figure(out, "time-breakdown", NULL);
    cx_core_svg_stacked_bar(out, "Iteration time", tp, ntp, 0, NULL, fmt_time);
    fputs("</figure>\n", out);
    const culonx_memory *m = &r->memory;
    cx_svg_part mp[] = {{"weights", m->weights_bytes},
                        {"gradients", m->gradients_bytes},
                        {"optimizer state", m->optimizer_bytes},
                        {"activations", m->activations_bytes},
                        {"working buffers", m->workspace_bytes}};
    cx_core_html_figure(out, "memory-breakdown", NULL);
    cx_core_svg_stacked_bar(out, "Memory per GPU (dashed: capacity)", mp, 5, m->capacity_bytes,
                            "capacity", fmt_bytes);
    fputs("</figure>\n", out);
    const culonx_energy *e = &r->energy;
    if (e->total_j > 0) {
        cx_svg_part ep[] = {{"GPU compute", e->compute_j},
                            {"GPU idle / blocked", e->idle_j},
                            {"network", e->network_j},
                            {"node overhead", e->overhead_j},
                            {"facility (PUE)", e->facility_j}};
        cx_core_html_figure(out, "energy-breakdown", NULL);
        cx_core_svg_stacked_bar(out, "Energy per iteration (all GPUs)", ep, 5, 0, NULL, fmt_energy);
        char hbm[64];
        cx_core_fmt_si(hbm, sizeof hbm, e->hbm_j, "J");
        fprintf(out, "<figcaption>HBM traffic accounts for %s of GPU energy.</figcaption>", hbm);
        fputs("</figure>\n", out);
    }
}

/* Energy and time per iteration against the SM clock, minimum energy and
 * minimum energy-delay product marked. */
static void clocks_chart(FILE *out, const culonx_clock_row *rows, int n)
{
    double *x = malloc((size_t)n * sizeof *x), *ye = malloc((size_t)n * sizeof *ye),
           *yt = malloc((size_t)n * sizeof *yt);
    if (!x || !ye || !yt) goto done;
    double emin = INFINITY, emax = 0, tmin = INFINITY, tmax = 0;
    int ie = -1, id = -1;
    for (int i = 0; i < n; i++) {
        x[i] = rows[i].clock_mhz, ye[i] = rows[i].result.energy.total_j;
        yt[i] = rows[i].result.iteration_time_s;
        emin = fmin(emin, ye[i]), emax = fmax(emax, ye[i]);
        tmin = fmin(tmin, yt[i]), tmax = fmax(tmax, yt[i]);
        if (rows[i].min_energy) ie = i;
        if (rows[i].min_edp) id = i;
    }
    fputs("<h2>Energy and time versus GPU clock</h2>\n", out);
    cx_core_html_figure(out, "energy-clock",
                        "Per iteration, all GPUs. Dashed: the clock of minimum energy and of "
                        "minimum energy-delay product (EDP).");
    const double W = 900, H = 300;
    cx_core_svg_begin(out, W, 2 * H, "energy and time versus clock");
    for (int k = 0; k < 2; k++) {
        double lo = k ? tmin : emin, hi = k ? tmax : emax, pad = (hi - lo) * 0.08 + 1e-12 * hi;
        cx_svg_plot p = {80, 20 + k * H, W - 110, H - 70, x[0], x[n - 1], lo - pad, hi + pad};
        double s = k ? 1 : 1e-6;
        cx_core_svg_axes(out, &p, "SM clock (MHz)", k ? "iteration time (s)" : "energy (MJ)", 1, s);
        cx_core_svg_polyline(out, &p, x, k ? yt : ye, n, k ? "s2" : "s1");
        for (int m = 0; m < 2; m++) {
            int i = m ? id : ie;
            if (i < 0) continue;
            double px = cx_core_svg_px(&p, x[i]);
            cx_core_svg_line(out, px, p.y0, px, p.y0 + p.h, "mark");
            char tip[128], v[48];
            if (k)
                cx_core_fmt_time(v, sizeof v, yt[i]);
            else
                cx_core_fmt_si(v, sizeof v, ye[i], "J");
            snprintf(tip, sizeof tip, "%s %.0f MHz: %s", m ? "min EDP" : "min energy", x[i], v);
            cx_core_svg_dot(out, &p, x[i], k ? yt[i] : ye[i], 5, m ? "#59a14f" : "#f28e2b", tip);
            int right = px < p.x0 + p.w * 0.55;
            cx_core_svg_text(out, px + (right ? 6 : -6), p.y0 + 14 + 16 * m,
                             right ? "start" : "end", "leg", tip);
        }
    }
    cx_core_svg_end(out);
    fputs("</figure>\n", out);
done:
    free(x), free(ye), free(yt);
}

static void schedules_chart(FILE *out, const culonx_schedule_row *rows, int n, int best)
{
    fputs("<h2>Every pipeline schedule side by side</h2>\n", out);
    double tmax = 0, mmax = 0, cap = 0;
    for (int i = 0; i < n; i++) {
        if (!rows[i].supported) continue;
        tmax = fmax(tmax, rows[i].result.iteration_time_s);
        mmax = fmax(mmax, rows[i].result.memory.peak_bytes);
        cap = rows[i].result.memory.capacity_bytes;
    }
    mmax = fmax(mmax, cap);
    cx_core_html_figure(out, "schedules",
                        "Left: iteration time (grey end: pipeline bubble); green: the fastest that "
                        "fits. Right: peak "
                        "memory per GPU, dashed: capacity.");
    const double W = 900, row_h = 26, top = 28;
    cx_core_svg_begin(out, W, top + n * row_h + 10, "schedules side by side");
    cx_core_svg_text(out, 130, 18, "start", "ttl", "iteration time");
    cx_core_svg_text(out, 540, 18, "start", "ttl", "peak memory per GPU");
    for (int i = 0; i < n; i++) {
        const culonx_schedule_row *s = &rows[i];
        double y = top + i * row_h;
        char name[64], v[64], tip[160];
        snprintf(name, sizeof name, "%s%s", culonx_schedule_name(s->schedule),
                 i == best ? " (best)" : "");
        cx_core_svg_text(out, 122, y + 15, "end", "leg", name);
        if (!s->supported || !(tmax > 0)) {
            cx_core_svg_text(out, 130, y + 15, "start", "tick", "not supported for this shape");
            continue;
        }
        const culonx_result *r = &s->result;
        double w = r->iteration_time_s / tmax * 300, wb = r->breakdown.bubble_s / tmax * 300;
        cx_core_fmt_time(v, sizeof v, r->iteration_time_s);
        snprintf(tip, sizeof tip, "%s: %s, bubble %.1f%%", name, v, 100 * r->bubble_fraction);
        cx_core_svg_rect(out, 130, y + 3, w, row_h - 8, NULL, i == best ? "#59a14f" : "#4e79a7",
                         tip);
        cx_core_svg_rect(out, 130 + w - wb, y + 3, wb, row_h - 8, NULL, "#bab0ac", tip);
        cx_core_svg_text(out, 130 + w + 5, y + 15, "start", "tick", v);
        double mw = mmax > 0 ? r->memory.peak_bytes / mmax * 280 : 0;
        cx_core_fmt_bytes(v, sizeof v, r->memory.peak_bytes);
        snprintf(tip, sizeof tip, "%s: %s%s", name, v, r->memory.fits ? "" : " (does not fit)");
        cx_core_svg_rect(out, 540, y + 3, mw, row_h - 8, NULL,
                         r->memory.fits ? "#76b7b2" : "#e15759", tip);
        cx_core_svg_text(out, 540 + mw + 5, y + 15, "start", "tick", v);
    }
    if (mmax > 0 && cap > 0) {
        double cx = 540 + cap / mmax * 280;
        cx_core_svg_line(out, cx, top - 4, cx, top + n * row_h, "limit");
    }
    cx_core_svg_end(out);
    fputs("</figure>\n<table><tr><th>schedule</th><th>vp</th><th>time</th><th>bubble</th>"
          "<th>peak memory</th><th>fits</th><th>p2p per iteration</th></tr>\n",
          out);
    for (int i = 0; i < n; i++) {
        const culonx_schedule_row *s = &rows[i];
        char t[48], m[48], p[48];
        fprintf(out, "<tr%s><td>%s</td>", i == best ? " class=\"best\"" : "",
                culonx_schedule_name(s->schedule));
        if (!s->supported) {
            fputs("<td colspan=\"6\" style=\"text-align:left\">", out);
            cx_core_html_esc(out, s->why);
            fputs("</td></tr>\n", out);
            continue;
        }
        cx_core_fmt_time(t, sizeof t, s->result.iteration_time_s);
        cx_core_fmt_bytes(m, sizeof m, s->result.memory.peak_bytes);
        cx_core_fmt_bytes(p, sizeof p, s->p2p_bytes);
        fprintf(out,
                "<td>%lld</td><td>%s</td><td>%.1f%%</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                (long long)s->vp, t, 100 * s->result.bubble_fraction, m,
                s->result.memory.fits ? "yes" : "no", p);
    }
    fputs("</table>\n", out);
}

culonx_status culonx_report_html(FILE *out, const culonx_run *run, culonx_error *err)
{
    cx_core_error_clear(err);
    if (!out || !run)
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "culonx_report_html: NULL argument");
    culonx_result res;
    culonx_status st = culonx_estimate(run, &res, err);
    if (st != CULONX_OK) return st;
    culonx_clock_row *clocks = NULL;
    int nclocks = 0;
    culonx_schedule_row *sched = calloc(CULONX_SCHED_MAX, sizeof *sched);
    cx_graph *g = NULL;
    if (!sched) return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    int nsched = 0, best = -1;
    st = culonx_schedules_compare(run, sched, &nsched, &best, err);
    if (st == CULONX_OK && res.energy.total_j > 0)
        st = culonx_energy_clocks(run, 0, 0, 0, &clocks, &nclocks, err);
    if (st == CULONX_OK) st = cx_core_graph_run(run, 0, &g, err);
    if (st == CULONX_OK) {
        char title[256], sub[640];
        snprintf(title, sizeof title, "culonx report: %s on %lld x %s", run->model.name,
                 (long long)run->exec.gpus, run->system.gpu.name);
        snprintf(sub, sizeof sub, "%s; one training iteration as predicted by culonx", run->path);
        cx_core_html_head(out, title, sub);
        summary(out, run, &res);
        breakdowns(out, &res);
        if (nclocks > 1)
            clocks_chart(out, clocks, nclocks);
        else
            fputs("<p class=\"note\">No energy chart: the run's GPU has no power model.</p>\n",
                  out);
        cx_core_html_timeline(out, g);
        schedules_chart(out, sched, nsched, best);
        cx_core_html_tail(out);
    }
    cx_core_graph_free(g);
    free(clocks);
    free(sched);
    return st;
}
