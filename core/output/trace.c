/*
 * trace.c — writes the evaluated iteration DAG in the Chrome trace event
 * format (JSON object with "traceEvents"), readable by Perfetto: one process
 * per pipeline stage, one thread per stream (compute, TP comm, PP comm, DP
 * comm), one complete event ("ph": "X") per node with args (id, deps,
 * microbatch, chunk, virtual stage, layer, FLOPs, bytes, energy_j, power_w).
 *
 * Perfetto-clean by construction:
 * - times are integer nanoseconds: start_ns = round(start_s * 1e9), end_ns =
 *   round((start_s + dur_s) * 1e9), dur = end_ns - start_ns, printed as
 *   microseconds with exactly three decimals. A node that starts when its
 *   predecessor ends has bit-identical start and end in double (the evaluator
 *   sets start = max(pred ends)), so the rounded ends meet exactly: back-to-back
 *   events never overlap (Perfetto drops overlapping complete events).
 * - names carry the microbatch: F3, B3, W3, BW3, R3, TP3, send3, dp-bucket3;
 *   at op level the op name follows ("F3 qkv").
 * - pipeline p2p dependencies (a predecessor on another stage) are flow
 *   arrows (flow v1: "s" on the source slice, "f" with "bp": "e" on the
 *   destination slice).
 * - per stage, counter tracks "power (W)" (node energy / duration while the
 *   compute stream runs, the blocked power of cost.c between nodes) and
 *   "memory (bytes)" (static bytes + activations, the replay of
 *   core/eval/graph_eval.c: allocate at start, free at end).
 * With a clock plan (culonx_trace_options.plan_time_s > 0, stage level
 * only): the stage-level DAG at the GPU's max clock, every node's duration
 * and energy replaced by the plan's at that iteration time (the nearest
 * frontier point; cx_core_plan_run, core/eval/plan.c) and the DAG timed
 * again; each compute event's args carry its clock_mhz, so the power track
 * shows the plan's power; otherData gains "plan" (target, planned time and
 * energy of the whole cluster).
 * max_events keeps the events that start first (a time cutoff), with their
 * flows and counters. otherData carries per-stage busy and idle (bubble) time
 * and idle energy. Numbers are printed deterministically.
 */
#include "core/eval/energy.h"
#include "core/eval/graph.h"
#include "core/eval/plan.h"
#include "core/output/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const stream_names[CX_NSTREAMS] = {"compute", "TP comm", "PP comm",
                                                      "DP comm", "EP comm", "gather"};
static const char *const cat_names[CX_NODE_KINDS] = {
    "forward", "backward", "weight-grad", "backward", "recompute", "tp",
    "pp",      "dp",       "optimizer",   "ep",       "gather"};
static const char *const kind_names[CX_NODE_KINDS] = {
    "F", "B", "W", "BW", "R", "TP", "send", "dp-bucket", "optimizer", "all-to-all", "gather"};

static void num(FILE *out, double v)
{
    cx_core_json_num(out, v);
}

static int64_t ns_of(double s)
{
    return (int64_t)llround(s * 1e9);
}

/* Microseconds with three decimals from integer nanoseconds (exact). */
static void ts_us(FILE *out, int64_t ns)
{
    if (ns < 0) ns = 0;
    fprintf(out, "%lld.%03lld", (long long)(ns / 1000), (long long)(ns % 1000));
}

static int64_t node_start_ns(const cx_node *nd)
{
    return ns_of(nd->start_s);
}

static int64_t node_end_ns(const cx_node *nd)
{
    return ns_of(nd->start_s + nd->dur_s);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Start time (ns) before which events are kept: all when max_events is 0 or
 * not exceeded; else the start of the (max_events+1)-th event in time. */
static int64_t cutoff_ns(const cx_graph *g, int64_t max_events)
{
    int64_t n = 0;
    for (int64_t i = 0; i < g->n; i++)
        if (g->node[i].dur_s > 0) n++;
    if (max_events <= 0 || n <= max_events) return INT64_MAX;
    int64_t *t = malloc((size_t)n * sizeof *t);
    if (!t) return INT64_MAX;
    int64_t k = 0;
    for (int64_t i = 0; i < g->n; i++)
        if (g->node[i].dur_s > 0) t[k++] = node_start_ns(&g->node[i]);
    qsort(t, (size_t)n, sizeof *t, cmp_i64);
    int64_t c = t[max_events];
    free(t);
    return c;
}

static int kept(const cx_node *nd, int64_t cut)
{
    return nd->dur_s > 0 && node_start_ns(nd) < cut;
}

static void event_name(FILE *out, const cx_graph *g, const cx_node *nd)
{
    char buf[160];
    const char *k = nd->kind < CX_NODE_KINDS ? kind_names[nd->kind] : "?";
    if (nd->kind == CX_NODE_OPT)
        snprintf(buf, sizeof buf, "%s", k);
    else if (g->detail == CX_DETAIL_OP && nd->stream == CX_STREAM_COMPUTE && nd->kind <= CX_NODE_R)
        snprintf(buf, sizeof buf, "%s%d %s", k, nd->mb, cx_core_node_name(g, nd));
    else
        snprintf(buf, sizeof buf, "%s%d", k, nd->mb);
    cx_core_json_str(out, buf);
}

static void counter(FILE *out, int stage, const char *name, const char *key, int64_t ns, double v)
{
    fprintf(out, ",\n{\"ph\": \"C\", \"name\": \"%s\", \"pid\": %d, \"tid\": 0, \"ts\": ", name,
            stage);
    ts_us(out, ns);
    fprintf(out, ", \"args\": {\"%s\": ", key);
    num(out, v);
    fputs("}}", out);
}

/* Power and memory counter tracks of one stage, in compute-stream order. */
static void stage_counters(FILE *out, const cx_graph *g, int s, int64_t cut, double blocked_w)
{
    int64_t prev_end = -1;
    double last_w = -1;
    for (int64_t i = g->stage_begin[s]; i < g->stage_begin[s + 1]; i++) {
        const cx_node *nd = &g->node[i];
        if (nd->stream != CX_STREAM_COMPUTE || !kept(nd, cut)) continue;
        int64_t a = node_start_ns(nd), b = node_end_ns(nd);
        if (prev_end >= 0 && a > prev_end && last_w != blocked_w)
            counter(out, s, "power (W)", "W", prev_end, last_w = blocked_w);
        double w = nd->energy_j / nd->dur_s;
        if (w != last_w) counter(out, s, "power (W)", "W", a, last_w = w);
        prev_end = b;
    }
    if (prev_end >= 0) counter(out, s, "power (W)", "W", prev_end, blocked_w);
    /* memory replay: static + activations; allocate at start, free at end */
    double base = g->stage[s].static_bytes, cur = 0;
    counter(out, s, "memory (bytes)", "bytes", 0, base);
    for (int64_t i = g->stage_begin[s]; i < g->stage_begin[s + 1]; i++) {
        const cx_node *nd = &g->node[i];
        if (nd->stream != CX_STREAM_COMPUTE) continue;
        if (nd->mem_bytes == 0 && nd->work_bytes == 0) continue;
        int64_t a = node_start_ns(nd), b = node_end_ns(nd);
        if (a >= cut) break;
        if (nd->mem_bytes > 0) cur += nd->mem_bytes;
        if (nd->mem_bytes > 0 || nd->work_bytes > 0)
            counter(out, s, "memory (bytes)", "bytes", a, base + cur + nd->work_bytes);
        if (nd->mem_bytes < 0) cur += nd->mem_bytes;
        if (nd->mem_bytes < 0 || nd->work_bytes > 0)
            counter(out, s, "memory (bytes)", "bytes", b, base + cur);
    }
}

static void write_header(FILE *out, const cx_graph *g, int64_t cut, const culonx_plan_result *pr,
                         double target_s)
{
    const culonx_run *run = g->run;
    fputs("{\"displayTimeUnit\": \"ms\", \"otherData\": {\"model\": ", out);
    cx_core_json_str(out, run->model.name);
    fputs(", \"system\": ", out);
    cx_core_json_str(out, run->system.name);
    fprintf(out, ", \"schedule\": \"%s\", \"iteration_time_s\": ",
            culonx_schedule_name(run->exec.schedule));
    num(out, g->makespan_s);
    if (pr) {
        fputs(", \"plan\": {\"target_time_s\": ", out);
        num(out, target_s);
        fputs(", \"iteration_time_s\": ", out);
        num(out, pr->plan_time_s);
        fputs(", \"energy_j\": ", out);
        num(out, pr->plan_energy_j);
        fputs(", \"max_clock_time_s\": ", out);
        num(out, pr->min_time_s);
        fputs(", \"max_clock_energy_j\": ", out);
        num(out, pr->max_clock_energy_j);
        fputs("}", out);
    }
    fprintf(out, ", \"nodes\": %lld, \"detail\": \"%s\", \"truncated\": %s, \"stages\": [",
            (long long)g->n, g->detail == CX_DETAIL_OP ? "op" : "stage",
            cut == INT64_MAX ? "false" : "true");
    /* per stage: compute busy time, idle (bubble + waits) time and energy */
    double blocked_w = cx_core_blocked_power_w(g->cost);
    for (int s = 0; s < g->p; s++) {
        const cx_stage_stats *st = &g->stage[s];
        double busy = st->busy_s[CX_STREAM_COMPUTE], idle = fmax(0.0, g->makespan_s - busy);
        fprintf(out, "%s{\"stage\": %d, \"compute_busy_s\": ", s ? ", " : "", s);
        num(out, busy);
        fputs(", \"idle_s\": ", out);
        num(out, idle);
        fputs(", \"idle_energy_j\": ", out);
        num(out, idle * blocked_w);
        fputs(", \"peak_activation_bytes\": ", out);
        num(out, st->peak_act_bytes);
        fputs("}", out);
    }
    fputs("]},\n\"traceEvents\": [\n", out);
    for (int s = 0; s < g->p; s++) {
        fprintf(out,
                "%s{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"tid\": 0, "
                "\"args\": {\"name\": \"stage %d\"}}",
                s ? ",\n" : "", s, s);
        fprintf(out,
                ",\n{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": %d, \"tid\": 0, "
                "\"args\": {\"sort_index\": %d}}",
                s, s);
        /* the EP stream only for mixture-of-experts runs, the gather stream
         * (ZeRO-2/3 / offload) only when the run has one */
        const int has_ep = g->run->model.arch == CULONX_ARCH_MOE;
        const int has_sh = g->cost->zero >= 2 || g->run->exec.offload;
        const int nstreams = has_sh ? CX_NSTREAMS : has_ep ? CX_STREAM_SHARD : CX_STREAM_EP;
        for (int t = 0; t < nstreams; t++)
            if (t != CX_STREAM_EP || has_ep)
                fprintf(out,
                        ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %d, "
                        "\"args\": {\"name\": \"%s\"}}",
                        s, t, stream_names[t]);
    }
}

static void write_event(FILE *out, const cx_graph *g, int64_t i, const double *clock_mhz)
{
    const cx_node *nd = &g->node[i];
    int64_t a = node_start_ns(nd), b = node_end_ns(nd);
    fputs(",\n{\"name\": ", out);
    event_name(out, g, nd);
    fprintf(out, ", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"ts\": ",
            nd->kind < CX_NODE_KINDS ? cat_names[nd->kind] : "?", nd->stage, nd->stream);
    ts_us(out, a);
    fputs(", \"dur\": ", out);
    ts_us(out, b - a);
    fprintf(out, ", \"args\": {\"id\": %lld, \"deps\": [", (long long)i);
    int c = 0;
    for (int k = 0; k < CX_NODE_NPRED; k++)
        if (nd->pred[k] >= 0) fprintf(out, "%s%d", c++ ? ", " : "", nd->pred[k]);
    fputs("]", out);
    if (nd->kind != CX_NODE_OPT && nd->kind != CX_NODE_DP)
        fprintf(out, ", \"microbatch\": %d, \"chunk\": %d, \"vstage\": %d", nd->mb, nd->chunk,
                nd->vstage);
    if (nd->kind == CX_NODE_DP) fprintf(out, ", \"bucket\": %d", nd->mb);
    if (nd->layer >= 0) fprintf(out, ", \"layer\": %d", nd->layer);
    fputs(", \"flops\": ", out);
    num(out, nd->flops);
    fputs(", \"bytes\": ", out);
    num(out, nd->bytes);
    fputs(", \"energy_j\": ", out);
    num(out, nd->energy_j);
    fputs(", \"power_w\": ", out);
    num(out, nd->dur_s > 0 ? nd->energy_j / nd->dur_s : 0.0);
    if (clock_mhz && clock_mhz[i] > 0) {
        fputs(", \"clock_mhz\": ", out);
        num(out, clock_mhz[i]);
    }
    fputs("}}", out);
}

/* Flow arrows into node i from its predecessors on other stages (p2p). */
static int64_t write_flows(FILE *out, const cx_graph *g, int64_t i, int64_t cut, int64_t id)
{
    const cx_node *nd = &g->node[i];
    int64_t n = 0;
    for (int k = 0; k < CX_NODE_NPRED; k++) {
        int32_t p = nd->pred[k];
        if (p < 0 || g->node[p].stage == nd->stage || !kept(&g->node[p], cut)) continue;
        const cx_node *src = &g->node[p];
        fprintf(out,
                ",\n{\"ph\": \"s\", \"id\": %lld, \"name\": \"p2p\", \"cat\": \"p2p\", "
                "\"pid\": %d, \"tid\": %d, \"ts\": ",
                (long long)(id + n), src->stage, src->stream);
        ts_us(out, node_start_ns(src));
        fprintf(out,
                "},\n{\"ph\": \"f\", \"bp\": \"e\", \"id\": %lld, \"name\": \"p2p\", "
                "\"cat\": \"p2p\", \"pid\": %d, \"tid\": %d, \"ts\": ",
                (long long)(id + n), nd->stage, nd->stream);
        ts_us(out, node_start_ns(nd));
        fputs("}", out);
        n++;
    }
    return n;
}

static void trace_write(FILE *out, const cx_graph *g, int64_t max_events, culonx_trace_info *info,
                        const double *clock_mhz, const culonx_plan_result *pr, double target_s)
{
    int64_t cut = cutoff_ns(g, max_events);
    culonx_trace_info in = {0};
    write_header(out, g, cut, pr, target_s);
    for (int64_t i = 0; i < g->n; i++) {
        const cx_node *nd = &g->node[i];
        if (nd->dur_s <= 0) continue;
        if (!kept(nd, cut)) {
            in.dropped++;
            continue;
        }
        write_event(out, g, i, clock_mhz);
        in.events++;
        in.flows += write_flows(out, g, i, cut, in.flows + 1);
    }
    double blocked_w = cx_core_blocked_power_w(g->cost);
    for (int s = 0; s < g->p; s++)
        stage_counters(out, g, s, cut, blocked_w);
    fputs("\n]}\n", out);
    if (info) *info = in;
}

void cx_core_trace_write_opts(FILE *out, const cx_graph *g, int64_t max_events,
                              culonx_trace_info *info)
{
    trace_write(out, g, max_events, info, NULL, NULL, 0);
}

/* The stage-level DAG timed by the clock plan at target_s: *g (caller
 * frees), per-node clocks in pn, the plan in pr (caller frees both). */
static culonx_status plan_graph(const culonx_run *run, double target_s, cx_graph **g,
                                cx_plan_nodes *pn, culonx_plan_result *pr, culonx_error *err)
{
    culonx_run r = *run;
    r.exec.clock_mhz = run->system.gpu.max_mhz;
    culonx_status st = cx_core_graph_run(&r, 0, g, err);
    if (st != CULONX_OK) return st;
    culonx_plan_options po = {0};
    po.target_time_s = target_s;
    st = cx_core_plan_run(run, &po, pr, pn, err);
    if (st != CULONX_OK) return st;
    if (pn->n != (*g)->n)
        return cx_core_fail(err, CULONX_EINTERNAL, NULL, 0,
                            "trace --plan: plan has %lld nodes, the DAG %lld", (long long)pn->n,
                            (long long)(*g)->n);
    for (int64_t i = 0; i < pn->n; i++) {
        (*g)->node[i].dur_s = pn->dur_s[i];
        (*g)->node[i].energy_j = pn->energy_j[i];
    }
    return cx_core_graph_eval(*g, err);
}

int64_t cx_core_trace_overlaps(const cx_graph *g)
{
    int64_t bad = 0;
    for (int s = 0; s < g->p; s++) {
        int64_t end[CX_NSTREAMS] = {0};
        for (int64_t i = g->stage_begin[s]; i < g->stage_begin[s + 1]; i++) {
            const cx_node *nd = &g->node[i];
            if (nd->dur_s <= 0 || nd->stream >= CX_NSTREAMS) continue;
            if (node_start_ns(nd) < end[nd->stream]) bad++;
            if (node_end_ns(nd) > end[nd->stream]) end[nd->stream] = node_end_ns(nd);
        }
    }
    return bad;
}

void cx_core_trace_write(FILE *out, const cx_graph *g)
{
    cx_core_trace_write_opts(out, g, 0, NULL);
}

culonx_status culonx_trace_write_opts(FILE *out, const culonx_run *run,
                                      const culonx_trace_options *opt, culonx_trace_info *info,
                                      culonx_error *err)
{
    cx_core_error_clear(err);
    if (info) memset(info, 0, sizeof *info);
    if (!out || !run || !opt)
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "culonx_trace_write_opts: NULL argument");
    if (opt->plan_time_s > 0 && opt->op_level)
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0,
                            "a clock plan is traced at stage level only (not op level)");
    if (opt->plan_time_s < 0 || !isfinite(opt->plan_time_s))
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0,
                            "plan time must be a positive number of seconds");
    cx_graph *g = NULL;
    cx_plan_nodes pn = {0};
    culonx_plan_result pr = {0};
    culonx_status st = opt->plan_time_s > 0 ? plan_graph(run, opt->plan_time_s, &g, &pn, &pr, err)
                                            : cx_core_graph_run(run, opt->op_level, &g, err);
    if (st == CULONX_OK) {
        long before = ftell(out);
        if (opt->plan_time_s > 0)
            trace_write(out, g, opt->max_events, info, pn.clock_mhz, &pr, opt->plan_time_s);
        else
            cx_core_trace_write_opts(out, g, opt->max_events, info);
        long after = ftell(out);
        if (info && before >= 0 && after >= before) info->bytes = after - before;
    }
    cx_core_graph_free(g);
    cx_core_plan_nodes_free(&pn);
    culonx_plan_result_free(&pr);
    return st;
}

culonx_status culonx_trace_write(FILE *out, const culonx_run *run, int op_level, culonx_error *err)
{
    culonx_trace_options opt = {.op_level = op_level};
    return culonx_trace_write_opts(out, run, &opt, NULL, err);
}
