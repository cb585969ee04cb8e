/*
 * chakra.c — the evaluated iteration DAG as Chakra execution traces (MLCommons
 * Chakra ET, read by ASTRA-sim): one file per rank, DIR/culonx.RANK.et, each a
 * length-delimited stream (varint32 length + message) of a GlobalMetadata
 * (version, attributes schema and input_file) followed by Nodes. Schema:
 * core/output/chakra/et_def.proto (a subset of Chakra's et_def.proto, field
 * numbers as in the reference; C code generated at build time by protoc-c,
 * libprotobuf-c from Debian). Format facts: the project notes on Chakra.
 *
 * Ranks are the pipeline stages of one representative TP/DP replica (the
 * graph of core/eval/walk.c holds one rank per stage: TP ranks of a stage
 * and DP replicas are identical). Mapping, after the reference converters:
 * - F, B, W, BW, R and the optimizer step: COMP_NODE with duration_micros,
 *   num_ops (FLOPs per GPU) and tensor_size (HBM bytes);
 * - TP collectives: COMM_COLL_NODE ALL_REDUCE, pg_name "tp"; DP gradient
 *   buckets: COMM_COLL_NODE (REDUCE_SCATTER with the distributed optimizer,
 *   else ALL_REDUCE), pg_name "dp"; comm_size in bytes;
 * - a pipeline p2p node: COMM_SEND_NODE on the sender (comm_dst, comm_size,
 *   comm_tag = its node index) and, in the receiver's file, a COMM_RECV_NODE
 *   (id = node count + that index, comm_src, the same size and tag) on which
 *   the consumer depends;
 * - dependencies: data_deps (the graph's predecessors, all true data or
 *   stream-order dependencies); ids are the graph's node indices.
 * start_time_micros and duration_micros are the evaluated schedule, rounded
 * to whole microseconds. Files are written through a temporary name renamed
 * into place.
 */
#include "core/eval/graph.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef CULONX_HAVE_CHAKRA
#include <et_def.pb-c.h>

typedef ChakraProtoMsg__AttributeProto attr_t;

typedef struct {
    FILE *f;
    uint8_t *buf;
    size_t cap;
    int64_t bytes;
    int failed;
} et_file;

static void put(et_file *w, const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    if (n + 10 > w->cap) {
        uint8_t *nb = realloc(w->buf, n + 10);
        if (!nb) {
            w->failed = 1;
            return;
        }
        w->buf = nb, w->cap = n + 10;
    }
    size_t k = 0;
    uint64_t v = n; /* varint32 length */
    for (; v >= 0x80; v >>= 7)
        w->buf[k++] = (uint8_t)(v | 0x80);
    w->buf[k++] = (uint8_t)v;
    k += protobuf_c_message_pack(m, w->buf + k);
    if (fwrite(w->buf, 1, k, w->f) != k) w->failed = 1;
    w->bytes += (int64_t)k;
}

#define MAX_ATTR 10
typedef struct {
    attr_t a[MAX_ATTR];
    attr_t *p[MAX_ATTR];
    int n;
} attrs;

static attr_t *add(attrs *s, const char *name)
{
    attr_t *a = &s->a[s->n];
    chakra_proto_msg__attribute_proto__init(a);
    a->name = (char *)name;
    s->p[s->n++] = a;
    return a;
}
static void a_i64(attrs *s, const char *name, int64_t v)
{
    attr_t *a = add(s, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL, a->int64_val = v;
}
static void a_u64(attrs *s, const char *name, uint64_t v)
{
    attr_t *a = add(s, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL, a->uint64_val = v;
}
static void a_i32(attrs *s, const char *name, int32_t v)
{
    attr_t *a = add(s, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL, a->int32_val = v;
}
static void a_bool(attrs *s, const char *name, int v)
{
    attr_t *a = add(s, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL, a->bool_val = v != 0;
}
static void a_str(attrs *s, const char *name, const char *v)
{
    attr_t *a = add(s, name);
    a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL, a->string_val = (char *)v;
}

static uint64_t us(double s)
{
    return s > 0 ? (uint64_t)llround(s * 1e6) : 0;
}

static int32_t tag_of(int64_t k)
{
    return (int32_t)(k % 2147483647);
}

static void write_recv(et_file *w, const cx_graph *g, int64_t k)
{
    const cx_node *src = &g->node[k];
    ChakraProtoMsg__Node n = CHAKRA_PROTO_MSG__NODE__INIT;
    char name[64];
    snprintf(name, sizeof name, "recv%d", src->mb);
    n.id = (uint64_t)(g->n + k);
    n.name = name;
    n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE;
    n.start_time_micros = us(src->start_s);
    n.duration_micros = us(src->dur_s);
    attrs at = {.n = 0};
    a_bool(&at, "is_cpu_op", 0);
    a_i32(&at, "comm_src", src->stage);
    a_i64(&at, "comm_size", (int64_t)llround(src->bytes));
    a_i32(&at, "comm_tag", tag_of(k));
    n.n_attr = (size_t)at.n, n.attr = at.p;
    put(w, &n.base);
}

static void write_node(et_file *w, const cx_graph *g, int64_t i, const int16_t *dst)
{
    const cx_node *nd = &g->node[i];
    ChakraProtoMsg__Node n = CHAKRA_PROTO_MSG__NODE__INIT;
    char name[160];
    static const char *const kn[CX_NODE_KINDS] = {
        "F", "B", "W", "BW", "R", "TP", "send", "dp-bucket", "optimizer", "all-to-all", "gather"};
    const char *k = nd->kind < CX_NODE_KINDS ? kn[nd->kind] : "?";
    if (nd->kind == CX_NODE_OPT)
        snprintf(name, sizeof name, "%s", k);
    else if (g->detail == CX_DETAIL_OP && nd->stream == CX_STREAM_COMPUTE && nd->kind <= CX_NODE_R)
        snprintf(name, sizeof name, "%s%d %s", k, nd->mb, cx_core_node_name(g, nd));
    else
        snprintf(name, sizeof name, "%s%d", k, nd->mb);
    uint64_t deps[CX_NODE_NPRED];
    size_t nd_ = 0;
    for (int q = 0; q < CX_NODE_NPRED; q++) {
        int32_t p = nd->pred[q];
        if (p < 0) continue;
        deps[nd_++] = g->node[p].stage == nd->stage ? (uint64_t)p : (uint64_t)(g->n + p);
    }
    n.id = (uint64_t)i;
    n.name = name;
    n.data_deps = deps, n.n_data_deps = nd_;
    n.start_time_micros = us(nd->start_s);
    n.duration_micros = us(nd->dur_s);
    attrs at = {.n = 0};
    a_bool(&at, "is_cpu_op", 0);
    int64_t size = (int64_t)llround(nd->bytes);
    if (nd->kind == CX_NODE_TP || nd->kind == CX_NODE_DP || nd->kind == CX_NODE_EP ||
        nd->kind == CX_NODE_GATHER) {
        n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
        int rs = nd->kind == CX_NODE_DP && g->run->exec.distributed_optimizer;
        a_i64(&at, "comm_type",
              nd->kind == CX_NODE_EP       ? CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_TO_ALL
              : nd->kind == CX_NODE_GATHER ? CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_GATHER
              : rs                         ? CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER
                                           : CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE);
        a_i64(&at, "comm_size", size);
        a_str(&at, "pg_name",
              nd->kind == CX_NODE_TP   ? "tp"
              : nd->kind == CX_NODE_DP ? "dp"
              : nd->kind == CX_NODE_EP ? "ep"
                                       : "shard");
    } else if (nd->kind == CX_NODE_SEND && dst[i] >= 0) {
        n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE;
        a_i32(&at, "comm_dst", dst[i]);
        a_i64(&at, "comm_size", size);
        a_i32(&at, "comm_tag", tag_of(i));
    } else {
        n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
        a_i64(&at, "num_ops", (int64_t)llround(nd->flops));
        a_u64(&at, "tensor_size", (uint64_t)llround(fmax(0.0, nd->bytes)));
    }
    n.n_attr = (size_t)at.n, n.attr = at.p;
    put(w, &n.base);
}

static culonx_status write_rank(const cx_graph *g, int s, const char *dir, const int16_t *dst,
                                int64_t *recv_at, culonx_trace_info *in, culonx_error *err)
{
    char path[4096], tmp[4200];
    if (snprintf(path, sizeof path, "%s/culonx.%d.et", dir, s) >= (int)sizeof path)
        return cx_core_fail(err, CULONX_EINPUT, dir, 0, "path too long");
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    et_file w = {.f = fopen(tmp, "wb")};
    if (!w.f) return cx_core_fail(err, CULONX_EINPUT, path, 0, "cannot write: %s", strerror(errno));
    ChakraProtoMsg__GlobalMetadata md = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
    attrs at = {.n = 0};
    a_str(&at, "schema", "1.0.2-chakra.1.0.0");
    a_str(&at, "input_file", g->run->path);
    a_str(&at, "producer", "culonx " CULONX_VERSION);
    md.version = (char *)"0.0.4";
    md.n_attr = (size_t)at.n, md.attr = at.p;
    put(&w, &md.base);
    for (int64_t i = g->stage_begin[s]; i < g->stage_begin[s + 1] && !w.failed; i++) {
        const cx_node *nd = &g->node[i];
        for (int q = 0; q < CX_NODE_NPRED; q++) {
            int32_t p = nd->pred[q];
            if (p < 0 || g->node[p].stage == s || recv_at[p] == s) continue;
            recv_at[p] = s;
            write_recv(&w, g, p);
            in->events++, in->flows++;
        }
        write_node(&w, g, i, dst);
        in->events++;
    }
    int bad = w.failed || fclose(w.f) != 0;
    free(w.buf);
    if (bad || rename(tmp, path) != 0) {
        remove(tmp);
        return cx_core_fail(err, CULONX_EINPUT, path, 0, "cannot write: %s", strerror(errno));
    }
    in->bytes += w.bytes;
    return CULONX_OK;
}

culonx_status culonx_chakra_write(const char *dir, const culonx_run *run,
                                  const culonx_trace_options *opt, culonx_trace_info *info,
                                  culonx_error *err)
{
    cx_core_error_clear(err);
    if (info) memset(info, 0, sizeof *info);
    if (!dir || !run || !opt)
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "culonx_chakra_write: NULL argument");
    if (opt->plan_time_s > 0)
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0,
                            "Chakra traces carry no clock plan (use the Chrome trace)");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return cx_core_fail(err, CULONX_EINPUT, dir, 0, "cannot create: %s", strerror(errno));
    cx_graph *g = NULL;
    culonx_status st = cx_core_graph_run(run, opt->op_level, &g, err);
    if (st != CULONX_OK) return st;
    int16_t *dst = malloc((size_t)g->n * sizeof *dst);
    int64_t *recv_at = malloc((size_t)g->n * sizeof *recv_at);
    culonx_trace_info in = {0};
    if (!dst || !recv_at) {
        st = cx_core_fail(err, CULONX_EINTERNAL, NULL, 0, "out of memory");
    } else {
        for (int64_t i = 0; i < g->n; i++)
            dst[i] = -1, recv_at[i] = -1;
        for (int64_t i = 0; i < g->n; i++)
            for (int q = 0; q < CX_NODE_NPRED; q++) {
                int32_t p = g->node[i].pred[q];
                if (p >= 0 && g->node[p].stage != g->node[i].stage) dst[p] = g->node[i].stage;
            }
        for (int s = 0; s < g->p && st == CULONX_OK; s++)
            st = write_rank(g, s, dir, dst, recv_at, &in, err);
    }
    free(dst), free(recv_at);
    cx_core_graph_free(g);
    if (st == CULONX_OK && info) *info = in;
    return st;
}
#else
culonx_status culonx_chakra_write(const char *dir, const culonx_run *run,
                                  const culonx_trace_options *opt, culonx_trace_info *info,
                                  culonx_error *err)
{
    (void)dir, (void)run, (void)opt;
    cx_core_error_clear(err);
    if (info) memset(info, 0, sizeof *info);
    return cx_core_fail(err, CULONX_EUSAGE, NULL, 0,
                        "this culonx was built without protobuf-c: no Chakra export (install "
                        "libprotobuf-c-dev and protobuf-c-compiler, rebuild)");
}
#endif
