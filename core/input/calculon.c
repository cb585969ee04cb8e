/*
 * calculon.c — `culonx import calculon APP.json EXE.json SYS.json`: converts
 * the three JSON files of Calculon (Isaev et al., "Calculon: a methodology and
 * tool for high-level co-design of systems and large language models", SC'23;
 * github.com/calculon-ai/calculon: models/, examples/ and
 * systems/) into a culonx run file (XML, model and system inline),
 * which culonx then loads, checks and estimates like any other run.
 * JSON through jansson (Debian libjansson-dev): it reports line and column of
 * syntax errors; for a bad or missing value the line is that of the key's
 * first occurrence in the file (jansson keeps no positions for values).
 *
 * Mapping (Calculon key -> culonx attribute):
 *   app: num_blocks -> layers, hidden, feedforward -> ffn, attn_heads -> heads,
 *        seq_size -> seq; attn_size must equal hidden/attn_heads; Calculon has
 *        no vocabulary, culonx takes "vocab" when present, else 51200 (the
 *        Megatron GPT vocabulary, configs/models/megatron-1t.xml); arch gpt.
 *   exe: num_procs -> gpus, tensor_par -> tp, pipeline_par -> pp, data_par ->
 *        dp, batch_size -> global-batch, microbatch_size -> microbatch,
 *        pipeline_interleaving -> vp (interleaved schedule when > 1, else
 *        1f1b), activation_recompute full/attn_only/none -> full/selective/none,
 *        seq_par (or tensor_par_comm_type "rs_ag") -> sequence-parallel,
 *        optimizer_sharding -> distributed-optimizer, data_par_overlap ->
 *        dp-overlap, datatype float16/bfloat16/float8 -> fp16/bf16/fp8;
 *        attention naive (Calculon models the s x s scores, as Megatron
 *        did before FlashAttention).
 *        weight/activations/optimizer_offload -> offload (weights,
 *        activations, optimizer; they need the system's mem2); training
 *        false is refused: culonx models training only.
 *   sys: matrix.float16 (or bfloat16).tflops -> matrix16-tflops,
 *        matrix.float8.tflops -> matrix8-tflops, vector.float32 (or
 *        float16).tflops -> vector-tflops, mem1.GiB -> mem-gib, mem1.GBps ->
 *        hbm-gbps; mem2 (Calculon's second memory, per processor) -> <host
 *        mem-gib = mem2.GiB x gpus-per-node, bw-gbps = mem2.GBps>;
 *        networks[0] and [1]: bandwidth (GB/s) -> bw-gbps, latency
 *        (s) -> latency-us, efficiency; networks[0].size -> gpus-per-node.
 *        Clocks and board power are not in Calculon: those of the shipped
 *        system with the nearest matrix16-tflops (configs/systems/) are used
 *        and the output says so in a comment.
 * The efficiency tables of Calculon (gflops/GBps efficiency curves,
 * processing_mode, network ops/processor_usage) are not translated: culonx
 * uses its own fitted performance model (hw/perf.c).
 */
#include "core/base/base.h"
#include "core/input/calculon.h"
#include "culonx.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name; /* file name for messages */
    const char *text; /* its bytes (for the line of a key) */
    size_t len;
    json_t *root;
} doc;

static int key_line(const doc *d, const char *key)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    size_t n = strlen(pat);
    int line = 1;
    for (size_t i = 0; i + n <= d->len; i++) {
        if (d->text[i] == '\n') line++;
        if (!memcmp(d->text + i, pat, n)) return line;
    }
    return 0;
}

static culonx_status bad(culonx_error *err, const doc *d, const char *key, const char *what)
{
    return cx_core_fail(err, CULONX_EINPUT, d->name, key ? key_line(d, key) : 0, "%s%s%s",
                        key ? key : "", key ? ": " : "", what);
}

/* a number at path "a" or "a.b" (NULL when absent) */
static json_t *at(json_t *root, const char *a, const char *b)
{
    json_t *v = json_is_object(root) ? json_object_get(root, a) : NULL;
    if (v && b) v = json_is_object(v) ? json_object_get(v, b) : NULL;
    return v;
}

static culonx_status num(const doc *d, json_t *root, const char *a, const char *b, int required,
                         double lo, double hi, double *out, culonx_error *err)
{
    json_t *v = at(root, a, b);
    const char *key = b ? b : a;
    if (!v) {
        if (!required) return CULONX_OK;
        char msg[128];
        snprintf(msg, sizeof msg, "missing (%s%s%s)", a, b ? "." : "", b ? b : "");
        return bad(err, d, key, msg);
    }
    if (!json_is_number(v)) return bad(err, d, key, "expected a number");
    double x = json_number_value(v);
    if (!(x >= lo && x <= hi)) {
        char msg[128];
        snprintf(msg, sizeof msg, "%g is outside %g..%g", x, lo, hi);
        return bad(err, d, key, msg);
    }
    *out = x;
    return CULONX_OK;
}

static culonx_status integer(const doc *d, json_t *root, const char *a, int required, double hi,
                             int64_t *out, culonx_error *err)
{
    double x = (double)*out;
    culonx_status st = num(d, root, a, NULL, required, 1, hi, &x, err);
    if (st == CULONX_OK && x != floor(x)) return bad(err, d, a, "expected a whole number");
    if (st == CULONX_OK) *out = (int64_t)x;
    return st;
}

static culonx_status flag(const doc *d, json_t *root, const char *a, int *out, culonx_error *err)
{
    json_t *v = at(root, a, NULL);
    if (!v) return CULONX_OK;
    if (!json_is_boolean(v)) return bad(err, d, a, "expected true or false");
    *out = json_is_true(v);
    return CULONX_OK;
}

static const char *str(json_t *root, const char *a)
{
    json_t *v = at(root, a, NULL);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* clocks and board power of the shipped systems (configs/systems/) */
static const struct {
    const char *name;
    double tflops, min_mhz, max_mhz, step_mhz, tdp_w, idle_w;
} known[] = {
    {"v100-32g", 125, 135, 1530, 7.5, 300, 40},
    {"a100-80g", 312, 210, 1410, 15, 400, 60},
    {"h100-80g", 989, 345, 1980, 15, 700, 90},
};

static culonx_status convert(doc *app, doc *exe, doc *sys, FILE *out, culonx_error *err)
{
    culonx_status st = CULONX_OK;
    doc *docs[3] = {app, exe, sys};
    for (int i = 0; i < 3; i++)
        if (!json_is_object(docs[i]->root))
            return bad(err, docs[i], NULL, "expected a JSON object");
    /* application */
    int64_t layers = 0, hidden = 0, ffn = 0, heads = 0, seq = 0, vocab = 51200, attn = 0;
    if ((st = integer(app, app->root, "num_blocks", 1, 1e5, &layers, err)) ||
        (st = integer(app, app->root, "hidden", 1, 1e7, &hidden, err)) ||
        (st = integer(app, app->root, "feedforward", 1, 1e8, &ffn, err)) ||
        (st = integer(app, app->root, "attn_heads", 1, 1e5, &heads, err)) ||
        (st = integer(app, app->root, "attn_size", 0, 1e6, &attn, err)) ||
        (st = integer(app, app->root, "seq_size", 1, 1e8, &seq, err)) ||
        (st = integer(app, app->root, "vocab", 0, 1e8, &vocab, err)))
        return st;
    if (attn && attn * heads != hidden)
        return bad(err, app, "attn_size", "attn_size x attn_heads must equal hidden");
    /* execution */
    int64_t gpus = 0, tp = 0, pp = 0, dp = 0, batch = 0, mb = 0, vp = 1;
    if ((st = integer(exe, exe->root, "num_procs", 1, 1e8, &gpus, err)) ||
        (st = integer(exe, exe->root, "tensor_par", 1, 1e6, &tp, err)) ||
        (st = integer(exe, exe->root, "pipeline_par", 1, 1e6, &pp, err)) ||
        (st = integer(exe, exe->root, "data_par", 1, 1e8, &dp, err)) ||
        (st = integer(exe, exe->root, "batch_size", 1, 1e9, &batch, err)) ||
        (st = integer(exe, exe->root, "microbatch_size", 1, 1e6, &mb, err)) ||
        (st = integer(exe, exe->root, "pipeline_interleaving", 0, 1e4, &vp, err)))
        return st;
    int sp = 0, dist = 0, overlap = 1, off = 0, training = 1;
    const char *tpc = str(exe->root, "tensor_par_comm_type");
    if (tpc && !strcmp(tpc, "rs_ag")) sp = 1;
    if ((st = flag(exe, exe->root, "seq_par", &sp, err)) ||
        (st = flag(exe, exe->root, "optimizer_sharding", &dist, err)) ||
        (st = flag(exe, exe->root, "data_par_overlap", &overlap, err)) ||
        (st = flag(exe, exe->root, "training", &training, err)))
        return st;
    if (!training) return bad(err, exe, "training", "culonx models training only");
    static const char *const offloads[] = {"weight_offload", "activations_offload",
                                           "optimizer_offload"};
    static const char *const parts[] = {"weights", "activations", "optimizer"};
    char offload[64] = "";
    const char *first_off = NULL;
    for (int i = 0; i < 3; i++) {
        off = 0;
        if ((st = flag(exe, exe->root, offloads[i], &off, err))) return st;
        if (!off) continue;
        if (!first_off) first_off = offloads[i];
        size_t k = strlen(offload);
        snprintf(offload + k, sizeof offload - k, "%s%s", k ? "," : "", parts[i]);
    }
    const char *rc = str(exe->root, "activation_recompute"), *recompute = "none";
    if (rc && !strcmp(rc, "full"))
        recompute = "full";
    else if (rc && !strcmp(rc, "attn_only"))
        recompute = "selective";
    else if (rc && strcmp(rc, "none"))
        return bad(err, exe, "activation_recompute", "expected full, attn_only or none");
    const char *dt = str(exe->root, "datatype"), *dtype = "bf16";
    if (dt && !strcmp(dt, "float16"))
        dtype = "fp16";
    else if (dt && !strcmp(dt, "float8"))
        dtype = "fp8";
    else if (dt && strcmp(dt, "bfloat16"))
        return bad(err, exe, "datatype", "expected float16, bfloat16 or float8");
    /* system */
    double m16 = 0, m8 = 0, vec = 0, gib = 0, gbps = 0;
    json_t *mx16 = at(sys->root, "matrix", "float16") ? at(sys->root, "matrix", "float16")
                                                      : at(sys->root, "matrix", "bfloat16");
    if (!json_is_object(mx16)) return bad(err, sys, "matrix", "needs float16 or bfloat16");
    if ((st = num(sys, mx16, "tflops", NULL, 1, 1e-3, 1e7, &m16, err))) return st;
    json_t *mx8 = at(sys->root, "matrix", "float8");
    if (json_is_object(mx8) && (st = num(sys, mx8, "tflops", NULL, 1, 0, 1e7, &m8, err))) return st;
    json_t *vc = at(sys->root, "vector", "float32") ? at(sys->root, "vector", "float32")
                                                    : at(sys->root, "vector", "float16");
    if (!json_is_object(vc)) return bad(err, sys, "vector", "needs float32 or float16");
    if ((st = num(sys, vc, "tflops", NULL, 1, 1e-3, 1e7, &vec, err)) ||
        (st = num(sys, sys->root, "mem1", "GiB", 1, 1e-3, 1e6, &gib, err)) ||
        (st = num(sys, sys->root, "mem1", "GBps", 1, 1e-3, 1e8, &gbps, err)))
        return st;
    double host_gib = 0, host_gbps = 0;
    const int has_mem2 = json_is_object(json_object_get(sys->root, "mem2"));
    if (has_mem2 && ((st = num(sys, sys->root, "mem2", "GiB", 1, 1e-3, 1e9, &host_gib, err)) ||
                     (st = num(sys, sys->root, "mem2", "GBps", 1, 1e-3, 1e8, &host_gbps, err))))
        return st;
    if (first_off && !has_mem2)
        return bad(err, exe, first_off, "offloading needs the system's mem2 (host memory)");
    json_t *nets = json_object_get(sys->root, "networks");
    size_t nn = json_is_array(nets) ? json_array_size(nets) : 0;
    if (nn < 1) return bad(err, sys, "networks", "needs at least one network");
    if (nn > 2) nn = 2;
    double bw[2] = {0}, lat[2] = {0}, eff[2] = {1, 1}, size0 = 0;
    for (size_t i = 0; i < nn; i++) {
        json_t *n = json_array_get(nets, i);
        if (!json_is_object(n)) return bad(err, sys, "networks", "entries must be objects");
        if ((st = num(sys, n, "bandwidth", NULL, 1, 1e-6, 1e7, &bw[i], err)) ||
            (st = num(sys, n, "latency", NULL, 1, 0, 1, &lat[i], err)) ||
            (st = num(sys, n, "efficiency", NULL, 0, 1e-3, 1, &eff[i], err)))
            return st;
        if (i == 0 && (st = num(sys, n, "size", NULL, 1, 1, 1e6, &size0, err))) return st;
    }
    int k = 0;
    for (int i = 1; i < (int)(sizeof known / sizeof known[0]); i++)
        if (fabs(log(known[i].tflops / m16)) < fabs(log(known[k].tflops / m16))) k = i;
    /* the run */
    fprintf(out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<!-- Imported from Calculon by culonx %s (core/input/calculon.c):\n"
            "       app %s\n       exe %s\n       sys %s\n"
            "     Not in Calculon, taken from configs/systems/%s.xml: clocks and board power.\n"
            "     Vocabulary %lld%s. Calculon's efficiency tables are not translated. -->\n<run>\n",
            CULONX_VERSION, app->name, exe->name, sys->name, known[k].name, (long long)vocab,
            json_object_get(app->root, "vocab") ? ""
                                                : " (not in Calculon: the Megatron GPT default)");
    fprintf(out,
            "  <model name=\"calculon-model\" arch=\"gpt\" layers=\"%lld\" hidden=\"%lld\" "
            "heads=\"%lld\" ffn=\"%lld\" vocab=\"%lld\" seq=\"%lld\"/>\n",
            (long long)layers, (long long)hidden, (long long)heads, (long long)ffn,
            (long long)vocab, (long long)seq);
    fprintf(out,
            "  <system name=\"calculon-system\" gpus-per-node=\"%.0f\">\n"
            "    <gpu name=\"calculon-gpu\" matrix16-tflops=\"%.9g\" matrix8-tflops=\"%.9g\" "
            "vector-tflops=\"%.9g\" hbm-gbps=\"%.9g\" mem-gib=\"%.9g\" min-mhz=\"%.9g\" "
            "max-mhz=\"%.9g\" step-mhz=\"%.9g\" tdp-w=\"%.9g\" idle-w=\"%.9g\"/>\n    <network>\n",
            size0, m16, m8, vec, gbps, gib, known[k].min_mhz, known[k].max_mhz, known[k].step_mhz,
            known[k].tdp_w, known[k].idle_w);
    for (size_t i = 0; i < nn; i++)
        fprintf(out,
                "      <tier name=\"net%zu\" bw-gbps=\"%.9g\" latency-us=\"%.9g\" "
                "efficiency=\"%.9g\"/>\n",
                i, bw[i], lat[i] * 1e6, eff[i]);
    fprintf(out, "    </network>\n");
    if (has_mem2)
        fprintf(out, "    <host mem-gib=\"%.9g\" bw-gbps=\"%.9g\"/>\n", host_gib * size0,
                host_gbps);
    fprintf(out,
            "  </system>\n"
            "  <execution gpus=\"%lld\" tp=\"%lld\" pp=\"%lld\" dp=\"%lld\" vp=\"%lld\" "
            "microbatch=\"%lld\" global-batch=\"%lld\" recompute=\"%s\" sequence-parallel=\"%s\" "
            "schedule=\"%s\" distributed-optimizer=\"%s\" dtype=\"%s\" dp-overlap=\"%s\" "
            "attention=\"naive\"%s%s%s/>\n"
            "</run>\n",
            (long long)gpus, (long long)tp, (long long)pp, (long long)dp,
            (long long)(vp > 1 ? vp : 1), (long long)mb, (long long)batch, recompute,
            sp ? "true" : "false",
            culonx_schedule_name(vp > 1 ? CULONX_SCHED_INTERLEAVED : CULONX_SCHED_1F1B),
            dist ? "true" : "false", dtype, overlap ? "true" : "false",
            offload[0] ? " offload=\"" : "", offload, offload[0] ? "\"" : "");
    return CULONX_OK;
}

culonx_status cx_core_calculon_buffers(const char *const names[3], const char *const texts[3],
                                       const size_t lens[3], FILE *out, culonx_error *err)
{
    cx_core_error_clear(err);
    doc d[3];
    memset(d, 0, sizeof d);
    culonx_status st = CULONX_OK;
    for (int i = 0; i < 3 && st == CULONX_OK; i++) {
        d[i].name = names[i], d[i].text = texts[i], d[i].len = lens[i];
        json_error_t je;
        d[i].root = json_loadb(texts[i], lens[i], JSON_REJECT_DUPLICATES, &je);
        if (!d[i].root)
            st = cx_core_fail(err, CULONX_EINPUT, names[i], je.line > 0 ? je.line : 1,
                              "bad JSON: %s", je.text);
    }
    if (st == CULONX_OK) st = convert(&d[0], &d[1], &d[2], out, err);
    for (int i = 0; i < 3; i++)
        json_decref(d[i].root);
    return st;
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            char *nb = cap < (64u << 20) ? realloc(b, cap *= 2) : NULL;
            if (!nb) free(b);
            b = nb;
        }
    }
    fclose(f);
    *n = len;
    return b;
}

culonx_status culonx_import_calculon(const char *app, const char *exe, const char *sys, FILE *out,
                                     culonx_error *err)
{
    cx_core_error_clear(err);
    if (!app || !exe || !sys || !out)
        return cx_core_fail(err, CULONX_EUSAGE, NULL, 0, "culonx_import_calculon: NULL argument");
    const char *names[3] = {app, exe, sys};
    char *texts[3] = {NULL, NULL, NULL};
    size_t lens[3] = {0, 0, 0};
    culonx_status st = CULONX_OK;
    for (int i = 0; i < 3 && st == CULONX_OK; i++)
        if (!(texts[i] = slurp(names[i], &lens[i])))
            st = cx_core_fail(err, CULONX_EINPUT, names[i], 0, "cannot read (or over 64 MiB)");
    if (st == CULONX_OK)
        st = cx_core_calculon_buffers(names, (const char *const *)texts, lens, out, err);
    for (int i = 0; i < 3; i++)
        free(texts[i]);
    return st;
}
