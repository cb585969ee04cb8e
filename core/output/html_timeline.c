/*
 * html_timeline.c — the pipeline timeline of the HTML report: a lane per
 * pipeline stage showing its compute stream (F, B, W, BW, R, optimizer; at
 * stage level TP collectives are folded into compute, see core/eval/walk.c).
 * Two views of the same graph:
 * - overview: 900 px for the whole iteration; each pixel column of a lane
 *   takes the colour of the kind busy longest in it (blank if busy < 40%), so
 *   a 64-stage, 512-microbatch run stays a few thousand rectangles;
 * - detail: a horizontally scrolling strip at a scale where the median
 *   compute event is 24 px wide (at most 60,000 px), every event a rectangle
 *   with its microbatch number when it is 14 px or wider.
 * No modelling here.
 */
#include "core/output/html.h"
#include "core/output/report.h"
#include "core/output/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NK 6 /* F, B, W, BW, R, optimizer */
static const char *const kind_label[NK] = {"F forward",   "B input grad", "W weight grad",
                                           "BW backward", "R recompute",  "optimizer"};
static const char *const kind_colour[NK] = {"#4e79a7", "#f28e2b", "#59a14f",
                                            "#e15759", "#b07aa1", "#9c755f"};

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void legend(FILE *out)
{
    fputs("<div class=\"note\">", out);
    for (int k = 0; k < NK; k++)
        fprintf(out,
                "<span style=\"display:inline-block;width:11px;height:11px;background:%s;"
                "margin:0 4px 0 12px\"></span>%s",
                kind_colour[k], kind_label[k]);
    fputs("</div>\n", out);
}

static void overview(FILE *out, const cx_graph *g, double lane_h)
{
    const int W = 900;
    const double left = 70, top = 8;
    double T = g->makespan_s;
    double(*acc)[NK] = calloc((size_t)W, sizeof *acc);
    if (!acc) return;
    cx_core_svg_begin(out, left + W + 10, top + g->p * lane_h + 40, "pipeline timeline overview");
    for (int s = 0; s < g->p; s++) {
        memset(acc, 0, (size_t)W * sizeof *acc);
        for (int64_t i = g->stage_begin[s]; i < g->stage_begin[s + 1]; i++) {
            const cx_node *nd = &g->node[i];
            int k = cx_core_node_phase(nd->kind);
            if (nd->stream != CX_STREAM_COMPUTE || k < 0 || !(nd->dur_s > 0)) continue;
            double a = nd->start_s / T * W, b = (nd->start_s + nd->dur_s) / T * W;
            for (int c = (int)floor(a); c < W && c <= (int)floor(b); c++) {
                double lo = fmax(a, c), hi = fmin(b, c + 1.0);
                if (hi > lo && c >= 0) acc[c][k] += hi - lo;
            }
        }
        double y = top + s * lane_h;
        int run_k = -1, run_c = 0;
        for (int c = 0; c <= W; c++) {
            int best = -1;
            if (c < W) {
                double tot = 0;
                for (int k = 0; k < NK; k++)
                    tot += acc[c][k];
                for (int k = 0; k < NK && tot >= 0.4; k++)
                    if (acc[c][k] > 0 && (best < 0 || acc[c][k] > acc[c][best])) best = k;
            }
            if (best != run_k) {
                if (run_k >= 0)
                    cx_core_svg_rect(out, left + run_c, y + 1, c - run_c, lane_h - 2, NULL,
                                     kind_colour[run_k], NULL);
                run_k = best, run_c = c;
            }
        }
        if (g->p <= 32 || s % (g->p / 16) == 0 || s == g->p - 1) {
            char lab[32];
            snprintf(lab, sizeof lab, "stage %d", s);
            fprintf(out,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">%s</text>\n",
                    left - 6, y + lane_h / 2 + 4, lab);
        }
    }
    cx_svg_plot p = {left, top, W, g->p * lane_h, 0, T, 0, 1};
    /* time axis only */
    double by = top + g->p * lane_h;
    cx_core_svg_line(out, left, by, left + W, by, "ax");
    double st = pow(10, floor(log10(T / 6)));
    if (T / st > 15) st *= 2;
    if (T / st > 15) st *= 2.5;
    char buf[48];
    for (double v = 0; v <= T * (1 + 1e-9); v += st) {
        double x = cx_core_svg_px(&p, v);
        cx_core_svg_line(out, x, by, x, by + 4, "ax");
        cx_core_fmt_time(buf, sizeof buf, v);
        cx_core_svg_text(out, x, by + 16, "middle", "tick", buf);
    }
    cx_core_svg_text(out, left + W / 2.0, by + 32, "middle", "axl", "time in the iteration");
    cx_core_svg_end(out);
    free(acc);
}

static void detail(FILE *out, const cx_graph *g, double lane_h)
{
    double T = g->makespan_s;
    int64_t n = 0;
    for (int64_t i = 0; i < g->n; i++)
        if (g->node[i].stream == CX_STREAM_COMPUTE && g->node[i].dur_s > 0) n++;
    double med = T;
    double *d = n ? malloc((size_t)n * sizeof *d) : NULL;
    if (d) {
        int64_t k = 0;
        for (int64_t i = 0; i < g->n; i++)
            if (g->node[i].stream == CX_STREAM_COMPUTE && g->node[i].dur_s > 0)
                d[k++] = g->node[i].dur_s;
        qsort(d, (size_t)n, sizeof *d, cmp_d);
        med = d[n / 2];
        free(d);
    }
    double scale = fmax(900 / T, 24 / med); /* px per second */
    if (scale * T > 60000) scale = 60000 / T;
    double W = scale * T + 20, top = 22;
    /* stage labels stay put, the strip scrolls */
    fputs("<div style=\"display:flex\">", out);
    cx_core_svg_begin(out, 66, top + g->p * lane_h + 4, "stages");
    for (int s = 0; s < g->p; s++) {
        char lab[32];
        snprintf(lab, sizeof lab, "stage %d", s);
        cx_core_svg_text(out, 60, top + s * lane_h + lane_h / 2 + 4, "end", "tick", lab);
    }
    cx_core_svg_end(out);
    fputs("<div class=\"scroll\" style=\"flex:1\">", out);
    cx_core_svg_begin(out, W, top + g->p * lane_h + 4, "pipeline timeline detail");
    double st = pow(10, floor(log10(150 / scale)));
    if (st * scale < 150) st *= 2;
    if (st * scale < 150) st *= 2.5;
    char buf[48];
    for (double v = 0; v <= T * (1 + 1e-9); v += st) {
        cx_core_svg_line(out, 4 + v * scale, 16, 4 + v * scale, top + g->p * lane_h, "grid");
        cx_core_fmt_time(buf, sizeof buf, v);
        cx_core_svg_text(out, 4 + v * scale, 12, v > 0 ? "middle" : "start", "tick", buf);
    }
    for (int64_t i = 0; i < g->n; i++) {
        const cx_node *nd = &g->node[i];
        int k = cx_core_node_phase(nd->kind);
        if (nd->stream != CX_STREAM_COMPUTE || k < 0 || !(nd->dur_s > 0)) continue;
        double x = 4 + nd->start_s * scale, w = nd->dur_s * scale, y = top + nd->stage * lane_h;
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"/>\n",
                x, y + 1, w, lane_h - 2, kind_colour[k]);
        if (w >= 14 && k != 5)
            fprintf(out,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"lab\">%d</text>\n",
                    x + w / 2, y + lane_h / 2 + 3.5, nd->mb);
    }
    cx_core_svg_end(out);
    fputs("</div></div>\n", out);
}

void cx_core_html_timeline(FILE *out, const cx_graph *g)
{
    if (!(g->makespan_s > 0) || g->p < 1) return;
    char cap[256];
    snprintf(cap, sizeof cap,
             "Compute stream of each of the %d pipeline stages over one iteration (%s, %d "
             "microbatches); gaps are bubbles and waits.",
             g->p, culonx_schedule_name(g->run->exec.schedule), g->m);
    fputs("<h2>Pipeline timeline</h2>\n", out);
    cx_core_html_figure(out, "timeline-overview", cap);
    legend(out);
    overview(out, g, g->p > 48 ? 6 : g->p > 16 ? 10 : 22);
    fputs("</figure>\n", out);
    cx_core_html_figure(out, "timeline-detail",
                        "Detail: scroll sideways; numbers are microbatches.");
    detail(out, g, 18);
    fputs("</figure>\n", out);
}
