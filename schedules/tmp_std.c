/* tmp_std.c — TEMPORARY stand-in for gpipe/1f1b/interleaved descriptors (no orders) until the
 * schedules/ files land; closed-form bubble (p-1)(F+B+W)/v, in-flight per Korthikanti. */
#include "schedules/sched.h"
const cx_sched_desc *cx_sched_tmp(culonx_schedule id);
static int ch1(int v)
{
    (void)v;
    return 1;
}
static int chv(int v)
{
    return v < 1 ? 1 : v;
}
static int vs_lin(int p, int v, int s, int c)
{
    (void)v;
    return c * p + s;
}
static double bub(int p, int m, int v, double f, double b, double w)
{
    (void)m;
    return (p - 1) * (f + b + w) / v;
}
static double inf_g(int p, int m, int v, int s)
{
    (void)p;
    (void)v;
    (void)s;
    return m;
}
static double inf_1(int p, int m, int v, int s)
{
    (void)v;
    return (p - s) < m ? (p - s) : m;
}
static double inf_i(int p, int m, int v, int s)
{
    (void)m;
    (void)s;
    return p * (1.0 + (p - 1.0) / (p * v));
}
static const cx_sched_desc d[3] = {
    {"gpipe", CULONX_SCHED_GPIPE, 0, ch1, vs_lin, 0, bub, inf_g, 1, 1},
    {"1f1b", CULONX_SCHED_1F1B, 0, ch1, vs_lin, 0, bub, inf_1, 1, 1},
    {"interleaved", CULONX_SCHED_INTERLEAVED, 0, chv, vs_lin, 0, bub, inf_i, 1, 1},
};
const cx_sched_desc *cx_sched_tmp(culonx_schedule id)
{
    return id < 3 ? &d[id] : 0;
}
