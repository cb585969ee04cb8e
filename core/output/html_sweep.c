/*
 * html_sweep.c — `culonx sweep --report FILE.html`: one self-contained HTML
 * page of a sweep: the time/energy scatter of the feasible candidates
 * coloured by peak memory (viridis scale) with the Pareto frontier and the top
 * K marked (time/memory when the GPU has no power model), why candidates were
 * rejected, and the top-K table. The candidates come from the rows the sweep
 * wrote with culonx_sweep_spec.all (CSV, header cx_core_sweep_csv_header;
 * only the time, memory, fits and energy columns are read, lines that do
 * not parse are skipped); without them the scatter shows the top K and the
 * frontier only. Points that fall on the same 2-px cell are drawn once. No
 * modelling here.
 */
#include "core/output/html.h"
#include "core/output/report.h"
#include "core/output/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double t, e, m; /* s, J, GiB */
} pt;

/* Feasible points of the --all CSV (columns 14, 17, 18, 19). */
static pt *read_rows(FILE *csv, size_t *n)
{
    *n = 0;
    if (!csv || fseek(csv, 0, SEEK_SET) != 0) return NULL;
    size_t cap = 1024;
    pt *v = malloc(cap * sizeof *v);
    char line[1024];
    while (v && fgets(line, sizeof line, csv)) {
        double f[20];
        int k = 0;
        char *s = line;
        while (k < 20) {
            char *e;
            f[k] = strtod(s, &e);
            if (e == s) f[k] = NAN;
            k++;
            s = strchr(s, ',');
            if (!s) break;
            s++;
        }
        if (k != 20 || f[18] != 1 || !(f[14] > 0) || !isfinite(f[17]) || !isfinite(f[19])) continue;
        if (*n == cap) {
            pt *nv = realloc(v, (cap *= 2) * sizeof *v);
            if (!nv) break;
            v = nv;
        }
        v[(*n)++] = (pt){f[14], f[19], f[17]};
    }
    return v;
}

static void entry_tip(char *buf, size_t n, const culonx_sweep_entry *x, const char *what)
{
    const culonx_execution *e = &x->exec;
    snprintf(
        buf, n,
        "%s: TP %lld CP %lld PP %lld DP %lld %s vp %lld mb %lld recompute %s: %.4g s, %.4g MJ, "
        "%.2f GiB",
        what, (long long)e->tp, (long long)(e->cp > 1 ? e->cp : 1), (long long)e->pp,
        (long long)e->dp, culonx_schedule_name(e->schedule), (long long)e->vp,
        (long long)e->microbatch, culonx_recompute_name(e->recompute), x->res.iteration_time_s,
        x->res.energy.total_j / 1e6, x->res.memory.peak_bytes / (1024.0 * 1024 * 1024));
}

/* zoom: only candidates within 25% of the fastest */
static void scatter(FILE *out, const culonx_sweep_result *r, const pt *v, size_t nv, int zoom)
{
    double best = INFINITY;
    for (size_t i = 0; i < nv; i++)
        best = fmin(best, v[i].t);
    for (int i = 0; i < r->ntop; i++)
        best = fmin(best, r->top[i].res.iteration_time_s);
    for (int i = 0; i < r->nfront; i++)
        best = fmin(best, r->front[i].res.iteration_time_s);
    double tlim = zoom ? best * 1.25 : INFINITY;
    int en = r->energy_available;
    double tmin = INFINITY, tmax = 0, ymin = INFINITY, ymax = 0, mmin = INFINITY, mmax = 0;
    const double G = 1024.0 * 1024 * 1024;
#define ACC(T, Y, M)                                                                               \
    if ((T) <= tlim)                                                                               \
    (tmin = fmin(tmin, T), tmax = fmax(tmax, T), ymin = fmin(ymin, Y), ymax = fmax(ymax, Y),       \
     mmin = fmin(mmin, M), mmax = fmax(mmax, M))
    for (size_t i = 0; i < nv; i++)
        ACC(v[i].t, en ? v[i].e : v[i].m, v[i].m);
    for (int i = 0; i < r->ntop; i++)
        ACC(r->top[i].res.iteration_time_s,
            en ? r->top[i].res.energy.total_j : r->top[i].res.memory.peak_bytes / G,
            r->top[i].res.memory.peak_bytes / G);
    for (int i = 0; i < r->nfront; i++)
        ACC(r->front[i].res.iteration_time_s,
            en ? r->front[i].res.energy.total_j : r->front[i].res.memory.peak_bytes / G,
            r->front[i].res.memory.peak_bytes / G);
#undef ACC
    if (!(tmax > 0)) return;
    double pt_ = (tmax - tmin) * 0.05 + 1e-9 * tmax, py = (ymax - ymin) * 0.05 + 1e-9 * ymax;
    const double W = 900, H = 520;
    cx_svg_plot p = {80, 20, W - 190, H - 70, tmin - pt_, tmax + pt_, ymin - py, ymax + py};
    cx_core_html_figure(out, zoom ? "pareto-zoom" : "pareto",
                        zoom ? "The same, candidates within 25% of the fastest."
                        : en ? "Every feasible candidate: iteration time against energy per "
                               "iteration, coloured by peak memory per GPU. Ringed: the Pareto "
                               "frontier; numbered: the top K."
                             : "Every feasible candidate: iteration time against peak memory (no "
                               "power model). Ringed: the Pareto frontier; numbered: the top K.");
    cx_core_svg_begin(out, W, H, "time energy scatter");
    cx_core_svg_axes(out, &p, "iteration time (s)",
                     en ? "energy per iteration (MJ)" : "peak memory per GPU (GiB)", 1,
                     en ? 1e-6 : 1);
    /* one dot per 2-px cell */
    int cw = (int)(p.w / 2) + 1, ch = (int)(p.h / 2) + 1;
    unsigned char *seen = calloc((size_t)cw * (size_t)ch, 1);
    char col[16], tip[256];
    double mspan = mmax > mmin ? mmax - mmin : 1;
    for (size_t i = 0; i < nv && seen; i++) {
        if (v[i].t > tlim) continue;
        double y = en ? v[i].e : v[i].m;
        int cx = (int)((cx_core_svg_px(&p, v[i].t) - p.x0) / 2),
            cy = (int)((cx_core_svg_py(&p, y) - p.y0) / 2);
        if (cx < 0 || cy < 0 || cx >= cw || cy >= ch || seen[(size_t)cy * cw + cx]) continue;
        seen[(size_t)cy * cw + cx] = 1;
        cx_core_svg_scale_colour((v[i].m - mmin) / mspan, col, sizeof col);
        cx_core_svg_dot(out, &p, v[i].t, y, 3, col, NULL);
    }
    free(seen);
    for (int i = 0; i < r->nfront; i++) {
        const culonx_sweep_entry *x = &r->front[i];
        if (x->res.iteration_time_s > tlim) continue;
        double m = x->res.memory.peak_bytes / G, y = en ? x->res.energy.total_j : m;
        cx_core_svg_scale_colour((m - mmin) / mspan, col, sizeof col);
        entry_tip(tip, sizeof tip, x, "Pareto");
        fprintf(out,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\" stroke=\"#c00\" "
                "stroke-width=\"2\"><title>",
                cx_core_svg_px(&p, x->res.iteration_time_s), cx_core_svg_py(&p, y), col);
        cx_core_html_esc(out, tip);
        fputs("</title></circle>\n", out);
    }
    for (int i = r->ntop - 1; i >= 0; i--) {
        const culonx_sweep_entry *x = &r->top[i];
        if (x->res.iteration_time_s > tlim) continue;
        double m = x->res.memory.peak_bytes / G, y = en ? x->res.energy.total_j : m;
        char what[16];
        snprintf(what, sizeof what, "#%d", i + 1);
        entry_tip(tip, sizeof tip, x, what);
        double px = cx_core_svg_px(&p, x->res.iteration_time_s), py2 = cx_core_svg_py(&p, y);
        fprintf(out,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"#fff\" stroke=\"#222\"><title>", px,
                py2);
        cx_core_html_esc(out, tip);
        fputs("</title></circle>\n", out);
        snprintf(what, sizeof what, "%d", i + 1);
        cx_core_svg_text(out, px, py2 + 3.5, "middle", "tick", what);
    }
    /* colour bar */
    double bx = W - 80, by = p.y0, bh = p.h;
    for (int k = 0; k < 50; k++) {
        cx_core_svg_scale_colour(1 - k / 49.0, col, sizeof col);
        cx_core_svg_rect(out, bx, by + k * bh / 50, 16, bh / 50 + 0.5, NULL, col, NULL);
    }
    char buf[48];
    snprintf(buf, sizeof buf, "%.1f GiB", mmax);
    cx_core_svg_text(out, bx + 20, by + 10, "start", "tick", buf);
    snprintf(buf, sizeof buf, "%.1f GiB", mmin);
    cx_core_svg_text(out, bx + 20, by + bh, "start", "tick", buf);
    cx_core_svg_text(out, bx + 8, by - 6, "middle", "tick", "memory");
    cx_core_svg_end(out);
    fputs("</figure>\n", out);
}

static void rejects(FILE *out, const culonx_sweep_result *r)
{
    uint64_t mx = 0;
    int n = 0;
    for (int i = 0; i < CULONX_REJECT_COUNT; i++)
        if (r->rejected[i]) mx = r->rejected[i] > mx ? r->rejected[i] : mx, n++;
    if (!n) return;
    cx_core_html_figure(out, "rejects", "Candidates rejected, by reason.");
    cx_core_svg_begin(out, 900, 10 + n * 22, "rejected candidates");
    int row = 0;
    for (int i = 0; i < CULONX_REJECT_COUNT; i++) {
        if (!r->rejected[i]) continue;
        double y = 6 + row++ * 22;
        char buf[32];
        cx_core_svg_text(out, 330, y + 13, "end", "leg",
                         culonx_sweep_reject_name((culonx_sweep_reject)i));
        double w = (double)r->rejected[i] / (double)mx * 450;
        cx_core_svg_rect(out, 340, y, w, 16, NULL, "#bab0ac", NULL);
        snprintf(buf, sizeof buf, "%llu", (unsigned long long)r->rejected[i]);
        cx_core_svg_text(out, 345 + w, y + 13, "start", "tick", buf);
    }
    cx_core_svg_end(out);
    fputs("</figure>\n", out);
}

static void top_table(FILE *out, const culonx_sweep_result *r)
{
    fputs("<table><tr><th>#</th><th>gpus</th><th>tp</th><th>cp</th><th>pp</th><th>dp</th>"
          "<th>schedule</th>"
          "<th>vp</th><th>mb</th><th>recompute</th><th>sp</th><th>MHz</th><th>time</th>"
          "<th>tokens/s</th><th>MFU</th><th>memory</th><th>energy</th></tr>\n",
          out);
    for (int i = 0; i < r->ntop; i++) {
        const culonx_sweep_entry *x = &r->top[i];
        const culonx_execution *e = &x->exec;
        char t[48], m[48], en[48];
        cx_core_fmt_time(t, sizeof t, x->res.iteration_time_s);
        cx_core_fmt_bytes(m, sizeof m, x->res.memory.peak_bytes);
        cx_core_fmt_si(en, sizeof en, x->res.energy.total_j, "J");
        fprintf(out,
                "<tr><td>%d</td><td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td>"
                "<td>%s</td>"
                "<td>%lld</td><td>%lld</td><td>%s</td><td>%s</td><td>%.0f</td><td>%s</td>"
                "<td>%.4g</td><td>%.1f%%</td><td>%s</td><td>%s</td></tr>\n",
                i + 1, (long long)e->gpus, (long long)e->tp, (long long)(e->cp > 1 ? e->cp : 1),
                (long long)e->pp, (long long)e->dp, culonx_schedule_name(e->schedule),
                (long long)e->vp, (long long)e->microbatch, culonx_recompute_name(e->recompute),
                e->sequence_parallel ? "on" : "off", x->res.clock_mhz, t, x->res.tokens_per_s,
                100 * x->res.mfu, m, en);
    }
    fputs("</table>\n", out);
}

culonx_status culonx_sweep_report_html(FILE *out, const culonx_sweep_result *r, FILE *all_csv,
                                       culonx_error *err)
{
    cx_core_error_clear(err);
    if (!out || !r)
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "culonx_sweep_report_html: NULL");
    size_t nv = 0;
    pt *v = read_rows(all_csv, &nv);
    char title[256], sub[256];
    snprintf(title, sizeof title, "culonx sweep: %s on %s", r->run.model.name, r->run.system.name);
    snprintf(sub, sizeof sub,
             "%llu candidates enumerated, %llu evaluated, %llu feasible (fit in %.1f GiB)",
             (unsigned long long)r->enumerated, (unsigned long long)r->evaluated,
             (unsigned long long)r->feasible, r->memory_limit_bytes / (1024.0 * 1024 * 1024));
    cx_core_html_head(out, title, sub);
    fputs("<h2>Time, energy and memory of every feasible strategy</h2>\n", out);
    scatter(out, r, v, nv, 0);
    scatter(out, r, v, nv, 1);
    fputs("<h2>Top strategies</h2>\n", out);
    top_table(out, r);
    fputs("<h2>Why candidates were rejected</h2>\n", out);
    rejects(out, r);
    cx_core_html_tail(out);
    free(v);
    return CULONX_OK;
}
