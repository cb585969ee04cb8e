/*
 * cost_clocks.c — the parts' times of one priced shape at every clock of a
 * sweep in one pass (cost.h cx_core_cost_clocks_rows): a sweep visits the
 * clocks of one structure one after another, and a reprice at each
 * (cost.c price) prices every op pass again; here each op's kept parts
 * (cx_op_keep) are read once and priced at all clocks in an inner loop
 * over the clocks, into the sums that price() leaves in part[pi] before the
 * classes are summed. The same operations in the same order per clock
 * (cost.c ops_cost, cost_ops.h), so the same bits; only where those are
 * plain sums: no TP, context-parallel or all-to-all overlap (they read the
 * times op by op), no side traffic (shard.c), no power limit binding at the
 * clock and no CPU launch floor stretching a pass at it (each stretch is
 * 1: x * 1 = x). Elsewhere the caller prices as before.
 * No constants of its own.
 */
#include "core/eval/cost.h"
#include "core/eval/cost_ops.h"

#include <stdlib.h>
#include <string.h>

/* per clock: F, B, W, R, tensor sums and F, B, W, R kernel counts */
#define ACC 9

struct cx_cost_clocks {
    int n;             /* clocks */
    double *mhz;       /* [n] */
    double *r;         /* [n] clock ratios (cx_cost_clock_ratio) */
    double *acc;       /* [ACC][n] */
    double *rows;      /* [n][CX_MODEL_MAX_PARTS][CX_COST_CLOCK_FIELDS] */
    unsigned char *ok; /* [n] rows usable at clock i */
    const cx_cost *c;  /* the cost the rows were made for */
    uint64_t curve;    /* its curve (cx_cost.curve) */
    int made, last;    /* rows made for (c, curve); the last clock asked */
};

cx_cost_clocks *cx_core_cost_clocks_new(void)
{
    return calloc(1, sizeof(cx_cost_clocks));
}

static void drop(cx_cost_clocks *t)
{
    free(t->mhz), free(t->r), free(t->acc), free(t->rows), free(t->ok);
    t->mhz = t->r = t->acc = t->rows = NULL;
    t->ok = NULL;
    t->n = 0, t->made = 0, t->c = NULL;
}

void cx_core_cost_clocks_free(cx_cost_clocks *t)
{
    if (!t) return;
    drop(t);
    free(t);
}

void cx_core_cost_clocks_set(cx_cost_clocks *t, const double *mhz, int n)
{
    if (!t) return;
    drop(t);
    if (n < 2) return;
    const size_t nn = (size_t)n;
    t->mhz = malloc(nn * sizeof *t->mhz);
    t->r = malloc(nn * sizeof *t->r);
    t->acc = malloc(ACC * nn * sizeof *t->acc);
    t->rows = malloc(nn * CX_MODEL_MAX_PARTS * CX_COST_CLOCK_FIELDS * sizeof *t->rows);
    t->ok = malloc(nn);
    if (!t->mhz || !t->r || !t->acc || !t->rows || !t->ok) {
        drop(t);
        return;
    }
    memcpy(t->mhz, mhz, nn * sizeof *mhz);
    t->n = n, t->last = 0;
}

/* The run's settings under which price() sums the ops' times plainly
 * (besides the per-clock power limit and launch floors): no TP or
 * all-to-all overlap, no ZeRO-2/3 or offload side traffic (shard.c side). */
static int plain(const cx_cost *c)
{
    const culonx_execution *ex = &c->run->exec;
    return ex->a2a_overlap == CULONX_A2A_OVERLAP_NONE &&
           (ex->tp_overlap == CULONX_TP_OVERLAP_NONE || ex->tp <= 1) && c->zero < 2 &&
           (ex->offload & (CULONX_OFFLOAD_WEIGHTS | CULONX_OFFLOAD_ACTIVATIONS)) == 0;
}

/* One op pass's kept parts for cx_cost_op_time at a ratio r:
 * work.arith ? arith_s * r : 0 is a * r with a = 0 where there is no
 * arithmetic (0 * r = 0 for the finite r > 0 of a clock), and a pass
 * without a cast adds max(0 * r, 0) = 0, as cx_cost_op_time's 0.0. */
typedef struct {
    double a, m, ca, cm;
} pass_k;

static pass_k fold(const cx_op_keep *k)
{
    pass_k p = {k->work.arith ? k->work.arith_s : 0.0, k->work.mem_s, 0.0, 0.0};
    if (k->cast) p.ca = k->cast_work.arith ? k->cast_work.arith_s : 0.0, p.cm = k->cast_work.mem_s;
    return p;
}

static inline double mx(double x, double y)
{
    return x > y ? x : y; /* cx_cost_work_time_r's choice */
}

/* ops_cost's loop body for one op at every clock (ten: o->tensor; rec:
 * recomputed), with its sums per clock: F B W R, the tensor part T and
 * the launch floor's kernel counts nF nB nW nR (cx_cost_cpu_floors) */
static inline void op_clocks(int n, const double *restrict r, pass_k f, pass_k b, pass_k w, int ten,
                             int rec, double *restrict acc)
{
    double *restrict F = acc, *restrict B = F + n, *restrict W = B + n, *restrict R = W + n;
    double *restrict T = R + n, *restrict nF = T + n, *restrict nB = nF + n;
    double *restrict nW = nB + n, *restrict nR = nW + n;
    for (int j = 0; j < n; j++) {
        const double rj = r[j];
        const double tf = mx(f.a * rj, f.m), tb = mx(b.a * rj, b.m), tw = mx(w.a * rj, w.m);
        const double fs = tf + mx(f.ca * rj, f.cm), bs = tb + mx(b.ca * rj, b.cm),
                     ws = tw + mx(w.ca * rj, w.cm);
        const double sf = ten ? 0.0 + tf : 0.0, sb = ten ? 0.0 + tb : 0.0,
                     sw = ten ? 0.0 + tw : 0.0;
        const double rs = rec ? fs : 0.0, sr = rec ? sf : 0.0;
        F[j] += fs, B[j] += bs, W[j] += ws, R[j] += rs;
        nF[j] += fs > 0 ? 1.0 : 0.0, nB[j] += bs > 0 ? 1.0 : 0.0, nW[j] += ws > 0 ? 1.0 : 0.0;
        nR[j] += rs > 0 ? 1.0 : 0.0;
        T[j] += sf + sb + sw + (rs > 0 ? sr : 0.0);
    }
}

/* ops_cost (cost.c) of part pi with n = 1 at every clock, each pass at
 * the clock's ratio r[j]: the sums into rows, and ok[j] cleared where a
 * launch floor stretches a pass (the stretch would scale each op). */
static void part_rows(cx_cost_clocks *t, const cx_cost *c, int pi)
{
    const cx_model_ops *ops = &c->stack.part[pi].ops;
    const int rmode = c->run->exec.recompute, is_layer = c->stack.part[pi].recompute;
    const cx_hw_comm(*comm)[2] = (const cx_hw_comm(*)[2])c->part_comm[pi];
    const cx_op_keep(*keep)[3] = (const cx_op_keep(*)[3])c->part_keep[pi];
    const int n = t->n, no = ops->nops;
    const int full = is_layer && rmode == CULONX_RECOMPUTE_FULL;
    const int sel = is_layer && rmode == CULONX_RECOMPUTE_SELECTIVE;
    double *F = t->acc, *B = F + n, *W = B + n, *R = W + n, *T = R + n;
    double *nF = T + n, *nB = nF + n, *nW = nB + n, *nR = nW + n;
    memset(t->acc, 0, ACC * (size_t)n * sizeof *t->acc);
    /* the collectives read no clock: their sums (part and floor alike) */
    double tf = 0, tb = 0, tr = 0, ef = 0, eb = 0, er = 0;
    double cf = 0, cb = 0, cr = 0;
    int kf = 0, kb = 0, kr = 0;
    for (int i = 0; i < no; i++) {
        const cx_model_op *o = &ops->op[i];
        double tp_f = 0, tp_b = 0, tp_r = 0;
        if (o->coll_fwd != CX_COLL_NONE) tp_f += comm[i][0].time_s;
        if (o->coll_bwd != CX_COLL_NONE) tp_b += comm[i][1].time_s;
        const int rec = full || (sel && o->sel_recompute);
        if (rec && full && o->coll_fwd != CX_COLL_NONE) tp_r += comm[i][0].time_s;
        cf += tp_f, cb += tp_b, cr += tp_r;
        kf += tp_f > 0, kb += tp_b > 0, kr += tp_r > 0;
        tf += tp_f, tb += tp_b, tr += tp_r;
        if (o->coll_group != CX_GROUP_TP) ef += tp_f, eb += tp_b, er += tp_r;
        const pass_k pf = fold(&keep[i][0]), pb = fold(&keep[i][1]), pw = fold(&keep[i][2]);
        const int ten = o->tensor != 0;
        if (ten && rec)
            op_clocks(n, t->r, pf, pb, pw, 1, 1, t->acc);
        else if (ten)
            op_clocks(n, t->r, pf, pb, pw, 1, 0, t->acc);
        else if (rec)
            op_clocks(n, t->r, pf, pb, pw, 0, 1, t->acc);
        else
            op_clocks(n, t->r, pf, pb, pw, 0, 0, t->acc);
    }
    for (int j = 0; j < n; j++) {
        double *q = t->rows + ((size_t)j * CX_MODEL_MAX_PARTS + (size_t)pi) * CX_COST_CLOCK_FIELDS;
        if (cx_cost_floor_stretch(c, F[j], cf, kf + (int)nF[j]) != 1.0 ||
            cx_cost_floor_stretch(c, B[j], cb, kb + (int)nB[j]) != 1.0 ||
            cx_cost_floor_stretch(c, W[j], 0.0, (int)nW[j]) != 1.0 ||
            cx_cost_floor_stretch(c, R[j], cr, kr + (int)nR[j]) != 1.0)
            t->ok[j] = 0;
        q[0] = F[j], q[1] = B[j], q[2] = W[j], q[3] = R[j];
        q[4] = tf, q[5] = tb, q[6] = tr, q[7] = ef, q[8] = eb, q[9] = er, q[10] = T[j];
    }
}

/* The rows of c's curve at every clock of t. */
static void make(cx_cost_clocks *t, const cx_cost *c)
{
    t->c = c, t->curve = c->curve, t->made = 1;
    memset(t->ok, 0, (size_t)t->n);
    if (!plain(c)) return;
    const cx_model_stack *stk = &c->stack;
    for (int pi = 0; pi < stk->nparts; pi++)
        for (int i = 0; i < stk->part[pi].ops.nops; i++)
            if (stk->part[pi].ops.op[i].coll_cp) return; /* ring attention overlap */
    for (int j = 0; j < t->n; j++) {
        t->r[j] = cx_cost_clock_ratio(c, t->mhz[j]);
        t->ok[j] = !(cx_core_power_limit_at(c, t->mhz[j]) > 0); /* power_cap_init */
    }
    for (int pi = 0; pi < stk->nparts; pi++)
        part_rows(t, c, pi);
}

const double *cx_core_cost_clocks_rows(cx_cost_clocks *t, const cx_cost *c)
{
    if (!t || t->n == 0 || !c->priced || !c->comm_kept || !plain(c)) return NULL;
    int j = t->last + 1 < t->n && t->mhz[t->last + 1] == c->clock_mhz ? t->last + 1 : -1;
    for (int i = 0; j < 0 && i < t->n; i++)
        if (t->mhz[i] == c->clock_mhz) j = i;
    if (j < 0) return NULL;
    t->last = j;
    if (!t->made || t->c != c || t->curve != c->curve) make(t, c);
    if (!t->ok[j]) return NULL;
    return t->rows + (size_t)j * CX_MODEL_MAX_PARTS * CX_COST_CLOCK_FIELDS;
}
