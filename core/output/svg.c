/*
 * svg.c — the SVG writer of svg.h: every number printed with %.1f pixels
 * (enough for screens, keeps reports small), text escaped for HTML/XML,
 * ticks at 1, 2 or 5 x 10^k so that 4 to 8 labels show. The categorical
 * palette is Tableau 10 (colour-blind friendly ordering); the sequential scale
 * interpolates viridis' end points through its midpoint. No modelling.
 */
#include "core/output/svg.h"

#include <math.h>
#include <string.h>

void cx_core_html_esc(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '&':
            fputs("&amp;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            fputc(*s, out);
        }
    }
}

void cx_core_svg_begin(FILE *out, double w, double h, const char *label)
{
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"",
            w, h, w, h);
    cx_core_html_esc(out, label);
    fputs("\">\n", out);
}

void cx_core_svg_end(FILE *out)
{
    fputs("</svg>\n", out);
}

void cx_core_svg_rect(FILE *out, double x, double y, double w, double h, const char *cls,
                      const char *fill, const char *tip)
{
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", x, y, w, h);
    if (cls) fprintf(out, " class=\"%s\"", cls);
    if (fill) fprintf(out, " fill=\"%s\"", fill);
    if (tip) {
        fputs("><title>", out);
        cx_core_html_esc(out, tip);
        fputs("</title></rect>\n", out);
    } else {
        fputs("/>\n", out);
    }
}

void cx_core_svg_line(FILE *out, double x1, double y1, double x2, double y2, const char *cls)
{
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"%s\"/>\n", x1, y1,
            x2, y2, cls ? cls : "ax");
}

void cx_core_svg_text(FILE *out, double x, double y, const char *anchor, const char *cls,
                      const char *text)
{
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"", x, y, anchor ? anchor : "start");
    if (cls) fprintf(out, " class=\"%s\"", cls);
    fputc('>', out);
    cx_core_html_esc(out, text);
    fputs("</text>\n", out);
}

double cx_core_svg_px(const cx_svg_plot *p, double x)
{
    double span = p->xmax - p->xmin;
    return p->x0 + (span > 0 ? (x - p->xmin) / span : 0.5) * p->w;
}

double cx_core_svg_py(const cx_svg_plot *p, double y)
{
    double span = p->ymax - p->ymin;
    return p->y0 + p->h - (span > 0 ? (y - p->ymin) / span : 0.5) * p->h;
}

static double nice_step(double span)
{
    if (!(span > 0)) return 1;
    double raw = span / 6, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

static void tick_label(char *buf, size_t n, double v)
{
    double a = fabs(v);
    if (a >= 1e5 || (a > 0 && a < 1e-3))
        snprintf(buf, n, "%.3g", v);
    else
        snprintf(buf, n, "%.6g", v);
}

void cx_core_svg_axes(FILE *out, const cx_svg_plot *p, const char *xlabel, const char *ylabel,
                      double xscale, double yscale)
{
    char buf[64];
    double bx = p->x0, by = p->y0 + p->h;
    cx_core_svg_line(out, bx, by, bx + p->w, by, "ax");
    cx_core_svg_line(out, bx, p->y0, bx, by, "ax");
    double st = nice_step((p->xmax - p->xmin) * xscale);
    for (double v = ceil(p->xmin * xscale / st) * st; v <= p->xmax * xscale + 1e-9 * st; v += st) {
        double x = cx_core_svg_px(p, v / xscale);
        cx_core_svg_line(out, x, by, x, by + 4, "ax");
        cx_core_svg_line(out, x, p->y0, x, by, "grid");
        tick_label(buf, sizeof buf, v);
        cx_core_svg_text(out, x, by + 16, "middle", "tick", buf);
    }
    st = nice_step((p->ymax - p->ymin) * yscale);
    for (double v = ceil(p->ymin * yscale / st) * st; v <= p->ymax * yscale + 1e-9 * st; v += st) {
        double y = cx_core_svg_py(p, v / yscale);
        cx_core_svg_line(out, bx - 4, y, bx, y, "ax");
        cx_core_svg_line(out, bx, y, bx + p->w, y, "grid");
        tick_label(buf, sizeof buf, v);
        cx_core_svg_text(out, bx - 7, y + 4, "end", "tick", buf);
    }
    if (xlabel) cx_core_svg_text(out, bx + p->w / 2, by + 34, "middle", "axl", xlabel);
    if (ylabel) {
        fprintf(out,
                "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" "
                "class=\"axl\">",
                p->x0 - 52, p->y0 + p->h / 2);
        cx_core_html_esc(out, ylabel);
        fputs("</text>\n", out);
    }
}

void cx_core_svg_polyline(FILE *out, const cx_svg_plot *p, const double *x, const double *y, int n,
                          const char *cls)
{
    fprintf(out, "<polyline class=\"%s\" points=\"", cls);
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%.1f,%.1f", i ? " " : "", cx_core_svg_px(p, x[i]), cx_core_svg_py(p, y[i]));
    fputs("\"/>\n", out);
}

void cx_core_svg_dot(FILE *out, const cx_svg_plot *p, double x, double y, double r,
                     const char *fill, const char *tip)
{
    fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"", cx_core_svg_px(p, x),
            cx_core_svg_py(p, y), r, fill);
    if (tip) {
        fputs("><title>", out);
        cx_core_html_esc(out, tip);
        fputs("</title></circle>\n", out);
    } else {
        fputs("/>\n", out);
    }
}

const char *cx_core_svg_palette(int i)
{
    static const char *const c[10] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
    return c[((i % 10) + 10) % 10];
}

void cx_core_svg_scale_colour(double t, char *buf, size_t n)
{
    /* viridis: #440154 (0), #21918c (0.5), #fde725 (1) */
    static const double k[3][3] = {{68, 1, 84}, {33, 145, 140}, {253, 231, 37}};
    if (!(t >= 0)) t = 0;
    if (t > 1) t = 1;
    int s = t < 0.5 ? 0 : 1;
    double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
    int r = (int)lround(k[s][0] + u * (k[s + 1][0] - k[s][0]));
    int g = (int)lround(k[s][1] + u * (k[s + 1][1] - k[s][1]));
    int b = (int)lround(k[s][2] + u * (k[s + 1][2] - k[s][2]));
    snprintf(buf, n, "#%02x%02x%02x", r, g, b);
}

void cx_core_svg_stacked_bar(FILE *out, const char *label, const cx_svg_part *parts, int n,
                             double limit, const char *limit_label,
                             void (*fmt_value)(char *, size_t, double))
{
    double total = 0;
    for (int i = 0; i < n; i++)
        total += parts[i].value > 0 ? parts[i].value : 0;
    double scale_max = fmax(total, limit > 0 ? limit : 0);
    const double W = 900, bar_x = 10, bar_y = 24, bar_h = 34, bar_w = W - 20;
    int rows = (n + 2) / 3;
    cx_core_svg_begin(out, W, bar_y + bar_h + 24 + rows * 20, label);
    char buf[64], tip[192];
    fmt_value(buf, sizeof buf, total);
    snprintf(tip, sizeof tip, "%s: %s", label, buf);
    cx_core_svg_text(out, bar_x, 16, "start", "ttl", tip);
    double x = bar_x;
    for (int i = 0; i < n; i++) {
        if (!(parts[i].value > 0) || !(scale_max > 0)) continue;
        double w = parts[i].value / scale_max * bar_w;
        fmt_value(buf, sizeof buf, parts[i].value);
        snprintf(tip, sizeof tip, "%s: %s (%.1f%%)", parts[i].name, buf,
                 100 * parts[i].value / (total > 0 ? total : 1));
        cx_core_svg_rect(out, x, bar_y, w, bar_h, "part", cx_core_svg_palette(i), tip);
        x += w;
    }
    if (limit > 0) {
        double lx = bar_x + limit / scale_max * bar_w;
        cx_core_svg_line(out, lx, bar_y - 6, lx, bar_y + bar_h + 6, "limit");
        if (limit_label) cx_core_svg_text(out, lx - 4, bar_y - 8, "end", "tick", limit_label);
    }
    for (int i = 0; i < n; i++) {
        double lx = bar_x + (i % 3) * 300, ly = bar_y + bar_h + 18 + (i / 3) * 20;
        cx_core_svg_rect(out, lx, ly - 10, 12, 12, NULL, cx_core_svg_palette(i), NULL);
        fmt_value(buf, sizeof buf, parts[i].value);
        snprintf(tip, sizeof tip, "%s %s (%.1f%%)", parts[i].name, buf,
                 100 * parts[i].value / (total > 0 ? total : 1));
        cx_core_svg_text(out, lx + 17, ly, "start", "leg", tip);
    }
    cx_core_svg_end(out);
}
