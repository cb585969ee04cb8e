/*
 * trace.c — writes the evaluated iteration DAG in the Chrome trace event
 * format (JSON object with "traceEvents"), readable by Perfetto and
 * chrome://tracing: one process per pipeline stage, one thread per stream
 * (compute, TP comm, PP comm, DP comm), one complete event ("ph": "X") per
 * node with ts/dur in microseconds and args (id, deps, microbatch, chunk,
 * virtual stage, layer, FLOPs, bytes, energy_j, power_w). Metadata events
 * name processes and threads; otherData carries per-stage busy and idle
 * (bubble) time and idle energy. Numbers are printed deterministically.
 */
#include "core/eval/energy.h"
#include "core/eval/graph.h"
#include "core/output/report.h"

#include <math.h>

static const char *const stream_names[CX_NSTREAMS] = {"compute", "TP comm", "PP comm", "DP comm"};
static const char *const cat_names[CX_NODE_KINDS] = {
    "forward", "backward", "weight-grad", "backward", "recompute", "tp", "pp", "dp", "optimizer"};

static void num(FILE *out, double v)
{
    cx_core_json_num(out, v);
}

void cx_core_trace_write(FILE *out, const cx_graph *g)
{
    const culonx_run *run = g->run;
    fputs("{\"displayTimeUnit\": \"ms\", \"otherData\": {\"model\": ", out);
    cx_core_json_str(out, run->model.name);
    fputs(", \"system\": ", out);
    cx_core_json_str(out, run->system.name);
    fprintf(out, ", \"schedule\": \"%s\", \"iteration_time_s\": ",
            culonx_schedule_name(run->exec.schedule));
    num(out, g->makespan_s);
    fprintf(out, ", \"nodes\": %lld, \"detail\": \"%s\", \"stages\": [", (long long)g->n,
            g->detail == CX_DETAIL_OP ? "op" : "stage");
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
    int first = 1;
    for (int s = 0; s < g->p; s++) {
        fprintf(out,
                "%s{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"tid\": 0, "
                "\"args\": {\"name\": \"stage %d\"}}",
                first ? "" : ",\n", s, s);
        first = 0;
        fprintf(out,
                ",\n{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": %d, \"tid\": 0, "
                "\"args\": {\"sort_index\": %d}}",
                s, s);
        for (int t = 0; t < CX_NSTREAMS; t++)
            fprintf(out,
                    ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %d, "
                    "\"args\": {\"name\": \"%s\"}}",
                    s, t, stream_names[t]);
    }
    for (int64_t i = 0; i < g->n; i++) {
        const cx_node *nd = &g->node[i];
        if (nd->dur_s <= 0) continue;
        fputs(",\n{\"name\": ", out);
        cx_core_json_str(out, cx_core_node_name(g, nd));
        fprintf(out, ", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": %d, \"tid\": %d, \"ts\": ",
                nd->kind < CX_NODE_KINDS ? cat_names[nd->kind] : "?", nd->stage, nd->stream);
        fprintf(out, "%.3f, \"dur\": %.3f, \"args\": {\"id\": %lld, \"deps\": [", nd->start_s * 1e6,
                nd->dur_s * 1e6, (long long)i);
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
        fputs("}}", out);
    }
    fputs("\n]}\n", out);
}

culonx_status culonx_trace_write(FILE *out, const culonx_run *run, int op_level, culonx_error *err)
{
    cx_core_error_clear(err);
    cx_graph *g = NULL;
    culonx_status st = cx_core_graph_run(run, op_level, &g, err);
    if (st == CULONX_OK) cx_core_trace_write(out, g);
    cx_core_graph_free(g);
    return st;
}
