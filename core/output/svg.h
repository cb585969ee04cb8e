/*
 * svg.h — a small SVG and chart writer for the HTML reports (svg.c): shapes
 * with CSS classes, escaped text, "nice" axis ticks (1-2-5 steps), and three
 * chart kinds built on them: stacked horizontal bars, line charts over a
 * shared x axis, scatter plots with a colour scale. No modelling.
 */
#ifndef CX_CORE_SVG_H
#define CX_CORE_SVG_H

#include <stdio.h>

void cx_core_html_esc(FILE *out, const char *s);
void cx_core_svg_begin(FILE *out, double w, double h, const char *label);
void cx_core_svg_end(FILE *out);
void cx_core_svg_rect(FILE *out, double x, double y, double w, double h, const char *cls,
                      const char *fill, const char *tip);
void cx_core_svg_line(FILE *out, double x1, double y1, double x2, double y2, const char *cls);
void cx_core_svg_text(FILE *out, double x, double y, const char *anchor, const char *cls,
                      const char *text);

/* An x/y plot area in pixels mapping data ranges (linear). */
typedef struct {
    double x0, y0, w, h;           /* plot area in pixels (top left, size) */
    double xmin, xmax, ymin, ymax; /* data ranges */
} cx_svg_plot;

double cx_core_svg_px(const cx_svg_plot *p, double x);
double cx_core_svg_py(const cx_svg_plot *p, double y);
/* Axes with ticks and labels; the tick label is value * scale with fmt. */
void cx_core_svg_axes(FILE *out, const cx_svg_plot *p, const char *xlabel, const char *ylabel,
                      double xscale, double yscale);
/* Polyline through n points (data units). */
void cx_core_svg_polyline(FILE *out, const cx_svg_plot *p, const double *x, const double *y, int n,
                          const char *cls);
void cx_core_svg_dot(FILE *out, const cx_svg_plot *p, double x, double y, double r,
                     const char *fill, const char *tip);

/* One stacked horizontal bar: n parts of `value`, with a legend. */
typedef struct {
    const char *name;
    double value;
} cx_svg_part;
/* fmt_value(buf, n, value) formats a part for the legend and the tooltip. */
void cx_core_svg_stacked_bar(FILE *out, const char *label, const cx_svg_part *parts, int n,
                             double limit, const char *limit_label,
                             void (*fmt_value)(char *, size_t, double));
/* Colour of part i of a palette of 10 (categorical) and of t in [0, 1]
 * (sequential, for a colour scale). */
const char *cx_core_svg_palette(int i);
void cx_core_svg_scale_colour(double t, char *buf, size_t n);

#endif
