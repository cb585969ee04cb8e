/*
 * html.h — pieces shared by the HTML reports (html_report.c, html_sweep.c,
 * html_timeline.c): the page head (inline CSS and the checking script), the
 * tail with the #cx-status element, a chart figure, and the pipeline
 * timeline of an evaluated graph.
 */
#ifndef CX_CORE_HTML_H
#define CX_CORE_HTML_H

#include "core/eval/graph.h"

#include <stdio.h>

void cx_core_html_head(FILE *out, const char *title, const char *subtitle);
void cx_core_html_tail(FILE *out);
/* Opens <figure class="chart" data-chart="id"> (close with </figure>). */
void cx_core_html_figure(FILE *out, const char *id, const char *caption);
/* Overview (binned to pixels) and a scrollable detail of the compute stream
 * of every stage, events coloured by kind and labelled by microbatch. */
void cx_core_html_timeline(FILE *out, const cx_graph *g);

#endif
