/*
 * serve.h — internal helpers shared by the serving evaluator (serve.c) and
 * its pool planner (serve_plan.c). Formulas: core/README.md, "Serving".
 */
#ifndef CX_CORE_SERVE_H
#define CX_CORE_SERVE_H

#include "culonx.h"

/* The clocks of [lo, hi] by step (0: the GPU's min, max and step); *out is
 * malloc'd. CULONX_EINPUT outside the GPU's range. */
culonx_status cx_core_serve_clock_list(const culonx_gpu *g, double lo, double hi, double step,
                                       double **out, int *n, culonx_error *err);

#endif
