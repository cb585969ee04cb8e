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
 * times op by op), no side traffic (shard.c) and no power limit binding at
 * the clock; where the CPU launch floor stretches a pass at a clock, that
 * clock's sums are made again op by op with the stretches (elsewhere each
 * stretch is 1: x * 1 = x). Elsewhere the caller prices as before.
 * With the rows, what the reprice does after them is made for all clocks
 * too (cx_core_cost_clocks_apply): each class's times as the sums of its
 * pieces and its pass energies (hw/power.h cx_hw_pass_energy_prepared_j,
 * lane by lane: t <= 0 gives 0, utilisations clipped at 1, NaN counted
 * 0), then the runs of equal stages' aggregates (cost_runs.c
 * cx_core_cost_stage_sums(c, 1)), four clocks at a time, the same
 * operations in the same order per lane; and the board limit and the pass
 * energy's clock terms per clock (reprice_start, power_cap_init). A
 * reprice then copies them (session 25: GPipe's reprices ~1.06k
 * instructions an evaluation -> ~0.86k, core/README.md "Sweeps").
 * No constants of its own.
 */
#include "core/eval/cost.h"
#include "core/eval/cost_ops.h"
#include "hw/power.h"

#include <stdlib.h>
#include <string.h>

/* per clock (n padded to 4): F, B, W, R, tensor sums, F, B, W, R kernel counts */
#define ACC 9

/* per class and clock (the class rows): the CX_COST_CLOCK_FIELDS, then
 * e_f e_b e_w e_r; per run of equal stages and clock: run_f_s run_b_s
 * run_w_s run_e_j run_busy_s */
#define CX_CLASS_FIELDS 15
#define CX_RUN_FIELDS 5

/* per clock: the pass energy's terms that read the clock (hw/power.h
 * cx_hw_pass_prep), n padded to 4 */
enum { PE_PEAK, PE_VN, PE_BASE, PE_F, PE_FMAX, PE_N };

struct cx_cost_clocks {
    int n;                 /* clocks */
    double *mhz;           /* [n] */
    double *r;             /* [n] clock ratios (cx_cost_clock_ratio) */
    double *acc;           /* [ACC][n] */
    double *rows;          /* [n][CX_MODEL_MAX_PARTS][CX_COST_CLOCK_FIELDS] */
    unsigned char *ok;     /* [n] rows usable at clock i */
    const cx_cost *c;      /* the cost the rows were made for */
    uint64_t curve;        /* its curve (cx_cost.curve) */
    int made, last;        /* rows made for (c, curve); the last clock asked */
    double *lim;           /* [n] the board limit binding at clock j (power_cap.c) */
    cx_hw_pass_prep *prep; /* [n] the pass energy's terms at clock j */
    /* lim and prep read only the GPU and the dtype: made for these */
    int pmade;
    culonx_gpu pgpu;
    culonx_dtype pdtype;
    /* the classes' times and energies (cx_core_cost_clocks_classes) */
    double *pt;   /* [CX_MODEL_MAX_PARTS][CX_COST_CLOCK_FIELDS][n4]: rows by part and field */
    double *pe;   /* [PE_N][n4] */
    double *crow; /* [CX_COST_MAX_CLASSES][CX_CLASS_FIELDS][n4] */
    int cmade;    /* crow made for curve */
    /* the runs of equal stages' aggregates (cx_core_cost_clocks_runs) */
    double *rrow;    /* [nsrun][CX_RUN_FIELDS][n4] */
    int rcap, rmade; /* runs rrow has room for; made for curve */
};

cx_cost_clocks *cx_core_cost_clocks_new(void)
{
    return calloc(1, sizeof(cx_cost_clocks));
}

static void drop(cx_cost_clocks *t)
{
    free(t->mhz), free(t->r), free(t->acc), free(t->rows), free(t->ok);
    free(t->pt), free(t->pe), free(t->crow), free(t->lim), free(t->prep), free(t->rrow);
    t->rrow = NULL, t->rcap = t->rmade = 0;
    t->mhz = t->r = t->acc = t->rows = t->pt = t->pe = t->crow = t->lim = NULL;
    t->prep = NULL;
    t->ok = NULL;
    t->n = 0, t->made = t->cmade = t->pmade = 0;
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
    const size_t nn = (size_t)n, n4 = (nn + 3) & ~(size_t)3; /* 4 lanes */
    t->mhz = malloc(nn * sizeof *t->mhz);
    t->r = malloc(n4 * sizeof *t->r);
    t->acc = malloc(ACC * n4 * sizeof *t->acc);
    t->rows = malloc(nn * CX_MODEL_MAX_PARTS * CX_COST_CLOCK_FIELDS * sizeof *t->rows);
    t->ok = malloc(nn);
    t->pt = malloc(CX_MODEL_MAX_PARTS * CX_COST_CLOCK_FIELDS * n4 * sizeof *t->pt);
    t->pe = malloc(PE_N * n4 * sizeof *t->pe);
    t->crow = malloc(n4 * CX_COST_MAX_CLASSES * CX_CLASS_FIELDS * sizeof *t->crow);
    t->lim = malloc(nn * sizeof *t->lim);
    t->prep = malloc(nn * sizeof *t->prep);
    if (!t->mhz || !t->r || !t->acc || !t->rows || !t->ok || !t->pt || !t->pe || !t->crow ||
        !t->lim || !t->prep) {
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

/* Four clocks at a time in GCC vectors (lowered to SSE2 pairs, or AVX2
 * where the CPU has it: the same bits, each lane's multiply, add and
 * compare being IEEE's). VMAX(x, y): x > y ? x : y per lane, as
 * cx_cost_work_time_r; MASK(v, m): v where m, else +0. */
typedef double v4d __attribute__((vector_size(32)));
typedef long long v4l __attribute__((vector_size(32)));
typedef double v4du __attribute__((vector_size(32), aligned(8)));
#define MASK(v, m) ((v4d)((v4l)(v) & (m)))
#define VMAX(x, y) ((v4d)(((v4l)(x) & ((x) > (y))) | ((v4l)(y) & ~((x) > (y)))))

/* ops_cost's loop body for one op at every clock (n, padded to 4: r[n]
 * holds ratios there too; ten: o->tensor; rec: recomputed) with its sums
 * per clock: F B W R, the tensor part T and the launch floor's kernel
 * counts nF nB nW nR (cx_cost_cpu_floors), each n apart in acc */
#define DEFINE_OP_CLOCKS(NAME, ATTR)                                                               \
    ATTR static void NAME(int n, const double *r, const pass_k *k, int ten, int rec, double *acc)  \
    {                                                                                              \
        const v4d z = {0, 0, 0, 0}, one = {1, 1, 1, 1};                                            \
        const v4d fa = z + k[0].a, fm = z + k[0].m, fca = z + k[0].ca, fcm = z + k[0].cm;          \
        const v4d ba = z + k[1].a, bm = z + k[1].m, bca = z + k[1].ca, bcm = z + k[1].cm;          \
        const v4d wa = z + k[2].a, wm = z + k[2].m, wca = z + k[2].ca, wcm = z + k[2].cm;          \
        for (int j = 0; j < n; j += 4) {                                                           \
            const v4d rj = *(const v4du *)(r + j);                                                 \
            const v4d xf = fa * rj, xb = ba * rj, xw = wa * rj;                                    \
            const v4d tf = VMAX(xf, fm), tb = VMAX(xb, bm), tw = VMAX(xw, wm);                     \
            const v4d cf = fca * rj, cb = bca * rj, cw = wca * rj;                                 \
            const v4d fs = tf + VMAX(cf, fcm), bs = tb + VMAX(cb, bcm), ws = tw + VMAX(cw, wcm);   \
            const v4d sf = ten ? tf + 0.0 : z, sb = ten ? tb + 0.0 : z, sw = ten ? tw + 0.0 : z;   \
            const v4d rs = rec ? fs : z, sr = rec ? sf : z;                                        \
            v4du *F = (v4du *)(acc + j), *B = (v4du *)(acc + n + j);                               \
            v4du *W = (v4du *)(acc + 2 * n + j), *R = (v4du *)(acc + 3 * n + j);                   \
            v4du *T = (v4du *)(acc + 4 * n + j), *nF = (v4du *)(acc + 5 * n + j);                  \
            v4du *nB = (v4du *)(acc + 6 * n + j), *nW = (v4du *)(acc + 7 * n + j);                 \
            v4du *nR = (v4du *)(acc + 8 * n + j);                                                  \
            *F += fs, *B += bs, *W += ws, *R += rs;                                                \
            *nF += MASK(one, fs > z), *nB += MASK(one, bs > z), *nW += MASK(one, ws > z);          \
            *nR += MASK(one, rs > z);                                                              \
            *T += sf + sb + sw + MASK(sr, rs > z);                                                 \
        }                                                                                          \
    }

DEFINE_OP_CLOCKS(op_clocks_base, )
#if defined(__x86_64__) && defined(__GNUC__)
DEFINE_OP_CLOCKS(op_clocks_avx2, __attribute__((target("avx2"))))
#endif

typedef void op_clocks_fn(int, const double *, const pass_k *, int, int, double *);
static op_clocks_fn *op_clocks = op_clocks_base;

#if defined(__x86_64__) && defined(__GNUC__)
CX_PICK_ISA(pick, "avx2", op_clocks, op_clocks_avx2)
#endif

/* ops_cost's sums (cost.c, n = 1) at ratio r where the CPU launch floor
 * stretches a pass (k: the stretches of F, B, W and R, cx_cost_cpu_floors):
 * each op's pass times scaled, in op order, the same operations. */
static void stretched(const cx_model_ops *ops, const cx_op_keep (*keep)[3], double r, int full,
                      int sel, const double k[4], double *F, double *B, double *W, double *R,
                      double *T)
{
    double f = 0, b = 0, w = 0, rr = 0, ts = 0;
    for (int i = 0; i < ops->nops; i++) {
        const cx_model_op *o = &ops->op[i];
        double tf = 0, tb = 0, tw = 0;
        const double fs = cx_cost_op_time(o, &tf, &keep[i][0], r);
        const double bs = cx_cost_op_time(o, &tb, &keep[i][1], r);
        const double ws = cx_cost_op_time(o, &tw, &keep[i][2], r);
        const int rec = full || (sel && o->sel_recompute);
        const double rs = rec ? fs : 0.0, trr = rec ? tf : 0.0;
        const double tr = rs > 0 ? trr * k[CX_PASS_R] : 0.0;
        f += 1.0 * (fs * k[CX_PASS_F]), b += 1.0 * (bs * k[CX_PASS_B]);
        w += 1.0 * (ws * k[CX_PASS_W]), rr += 1.0 * (rs * k[CX_PASS_R]);
        ts += 1.0 * (tf * k[CX_PASS_F] + tb * k[CX_PASS_B] + tw * k[CX_PASS_W] + tr);
    }
    *F = f, *B = b, *W = w, *R = rr, *T = ts;
}

/* ops_cost (cost.c) of part pi with n = 1 at every clock, each pass at
 * the clock's ratio r[j]: the sums into rows; where a launch floor
 * stretches a pass, the sums again with each op scaled (stretched). */
static void part_rows(cx_cost_clocks *t, const cx_cost *c, int pi)
{
    const cx_model_ops *ops = &c->stack.part[pi].ops;
    const int rmode = c->run->exec.recompute, is_layer = c->stack.part[pi].recompute;
    const cx_hw_comm(*comm)[2] = (const cx_hw_comm(*)[2])c->part_comm[pi];
    const cx_op_keep(*keep)[3] = (const cx_op_keep(*)[3])c->part_keep[pi];
    const int n = t->n, n4 = (n + 3) & ~3, no = ops->nops;
    const int full = is_layer && rmode == CULONX_RECOMPUTE_FULL;
    const int sel = is_layer && rmode == CULONX_RECOMPUTE_SELECTIVE;
    double *F = t->acc, *B = F + n4, *W = B + n4, *R = W + n4, *T = R + n4;
    double *nF = T + n4, *nB = nF + n4, *nW = nB + n4, *nR = nW + n4;
    memset(t->acc, 0, ACC * (size_t)n4 * sizeof *t->acc);
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
        const pass_k pk[3] = {fold(&keep[i][0]), fold(&keep[i][1]), fold(&keep[i][2])};
        op_clocks(n4, t->r, pk, o->tensor != 0, rec, t->acc);
    }
    for (int j = 0; j < n; j++) {
        double *q = t->rows + ((size_t)j * CX_MODEL_MAX_PARTS + (size_t)pi) * CX_COST_CLOCK_FIELDS;
        const double k[4] = {cx_cost_floor_stretch(c, F[j], cf, kf + (int)nF[j]),
                             cx_cost_floor_stretch(c, B[j], cb, kb + (int)nB[j]),
                             cx_cost_floor_stretch(c, W[j], 0.0, (int)nW[j]),
                             cx_cost_floor_stretch(c, R[j], cr, kr + (int)nR[j])};
        if (k[0] != 1.0 || k[1] != 1.0 || k[2] != 1.0 || k[3] != 1.0)
            stretched(ops, keep, t->r[j], full, sel, k, &F[j], &B[j], &W[j], &R[j], &T[j]);
        q[0] = F[j], q[1] = B[j], q[2] = W[j], q[3] = R[j];
        q[4] = tf, q[5] = tb, q[6] = tr, q[7] = ef, q[8] = eb, q[9] = er, q[10] = T[j];
    }
    /* the same by field, n4 lanes (those past the last clock: its values,
     * r being its ratio there), for the classes (make_classes) */
    double *p = t->pt + (size_t)pi * CX_COST_CLOCK_FIELDS * (size_t)n4;
    const size_t row = (size_t)n4 * sizeof *p;
    memcpy(p, F, row), memcpy(p + n4, B, row), memcpy(p + 2 * n4, W, row);
    memcpy(p + 3 * n4, R, row), memcpy(p + 10 * n4, T, row);
    const double cst[6] = {tf, tb, tr, ef, eb, er};
    for (int f = 0; f < 6; f++)
        for (int j = 0; j < n4; j++)
            p[(4 + f) * n4 + j] = cst[f];
}

/* The rows of c's curve at every clock of t. */
static void make(cx_cost_clocks *t, const cx_cost *c)
{
    t->curve = c->curve, t->made = 1, t->cmade = t->rmade = 0;
    memset(t->ok, 0, (size_t)t->n);
    const culonx_dtype dt = c->run->exec.dtype;
    if (!t->pmade || t->pdtype != dt || memcmp(&t->pgpu, &c->sys.gpu, sizeof t->pgpu) != 0) {
        for (int j = 0; j < t->n; j++) { /* of the GPU, the dtype and the clock */
            t->lim[j] = cx_core_power_limit_at(c, t->mhz[j]);
            cx_hw_pass_energy_prepare(&c->sys.gpu, dt, t->mhz[j], &t->prep[j]);
        }
        t->pmade = 1, t->pdtype = dt;
        memcpy(&t->pgpu, &c->sys.gpu, sizeof t->pgpu);
    }
    if (!plain(c)) return;
    const cx_model_stack *stk = &c->stack;
    for (int pi = 0; pi < stk->nparts; pi++)
        for (int i = 0; i < stk->part[pi].ops.nops; i++)
            if (stk->part[pi].ops.op[i].coll_cp) return; /* ring attention overlap */
    for (int j = 0; j < t->n; j++) {
        t->r[j] = cx_cost_clock_ratio(c, t->mhz[j]);
        t->ok[j] = !(t->lim[j] > 0); /* power_cap_init */
    }
    for (int j = t->n; j & 3; j++) /* the lanes past the last clock: read, never kept */
        t->r[j] = t->r[t->n - 1];
    for (int pi = 0; pi < stk->nparts; pi++)
        part_rows(t, c, pi);
}

const double *cx_core_cost_clocks_rows_at(cx_cost_clocks *t, const cx_cost *c, double f_mhz)
{
    if (!t || t->n == 0 || !c->priced || !c->comm_kept || !plain(c)) return NULL;
    int j = t->last + 1 < t->n && t->mhz[t->last + 1] == f_mhz ? t->last + 1 : -1;
    for (int i = 0; j < 0 && i < t->n; i++)
        if (t->mhz[i] == f_mhz) j = i;
    if (j < 0) return NULL;
    t->last = j;
    if (!t->made || t->curve != c->curve) make(t, c);
    if (!t->ok[j]) return NULL;
    return t->rows + (size_t)j * CX_MODEL_MAX_PARTS * CX_COST_CLOCK_FIELDS;
}

/* The index of clock f_mhz in t (the one after the last asked first), or -1. */
static int clock_index(const cx_cost_clocks *t, double f_mhz)
{
    if (t->last + 1 < t->n && t->mhz[t->last + 1] == f_mhz) return t->last + 1;
    for (int i = 0; i < t->n; i++)
        if (t->mhz[i] == f_mhz) return i;
    return -1;
}

int cx_core_cost_clocks_clock_terms(const cx_cost_clocks *t, const cx_cost *c, double f_mhz,
                                    culonx_dtype dtype, double *limit_w, cx_hw_pass_prep *pe)
{
    if (!t || t->n == 0 || !t->made || t->curve != c->curve) return 0;
    const int j = clock_index(t, f_mhz);
    if (j < 0 || t->prep[j].dtype != dtype) return 0;
    *limit_w = t->lim[j], *pe = t->prep[j];
    return 1;
}

const double *cx_core_cost_clocks_rows(cx_cost_clocks *t, const cx_cost *c)
{
    return cx_core_cost_clocks_rows_at(t, c, c->clock_mhz);
}

/* The classes of price()'s fast path (cost.c) at every clock, four clocks
 * at a time as op_clocks: each class's fields as the sums over its pieces
 * (0 + L x part, in piece order; tp_f and tp_b + the prefetch fill, 0
 * without side traffic) and each pass's energy as
 * cx_hw_pass_energy_prepared_j (the same operations per lane: t <= 0 gives
 * 0, utilisations clipped at 1, NaN counted 0). pt: the rows by part and
 * field; q: the per-clock terms (PE_*), k: the clock-free ones (tensor,
 * fp at 0, SM at 1 and DRAM power, HBM bytes/s); out: the class's fields
 * (CX_CLASS_FIELDS) n4 apart. */
#define SEL(m, a, b) ((v4d)(((v4l)(a) & (m)) | ((v4l)(b) & ~(m))))
#define DEFINE_CLASS_CLOCKS(NAME, ATTR)                                                            \
    ATTR static void NAME(int n4, const double *pt, const cx_chunk_cost *cc, const double *q,      \
                          const double *k, double *out)                                            \
    {                                                                                              \
        const v4d z = {0, 0, 0, 0}, one = {1, 1, 1, 1};                                            \
        const double fl[4] = {cc->f_flops, cc->b_flops, cc->w_flops, cc->r_flops};                 \
        const double by[4] = {cc->f_bytes, cc->b_bytes, cc->w_bytes, cc->r_bytes};                 \
        for (int j = 0; j < n4; j += 4) {                                                          \
            v4d x[CX_COST_CLOCK_FIELDS];                                                           \
            for (int f = 0; f < CX_COST_CLOCK_FIELDS; f++)                                         \
                x[f] = z;                                                                          \
            for (int i = 0; i < cc->npieces; i++) {                                                \
                const double L = (double)cc->piece[i].count;                                       \
                const double *b = pt + (size_t)cc->piece[i].part * CX_COST_CLOCK_FIELDS * n4 + j;  \
                for (int f = 0; f < CX_COST_CLOCK_FIELDS; f++)                                     \
                    x[f] += L * *(const v4du *)(b + (size_t)f * n4);                               \
            }                                                                                      \
            if (cc->npieces > 0) x[4] += 0.0, x[5] += 0.0; /* the fills */                         \
            for (int f = 0; f < CX_COST_CLOCK_FIELDS; f++)                                         \
                *(v4du *)(out + (size_t)f * n4 + j) = x[f];                                        \
            const v4d peak = *(const v4du *)(q + PE_PEAK * n4 + j);                                \
            const v4d vn = *(const v4du *)(q + PE_VN * n4 + j);                                    \
            const v4d base = *(const v4du *)(q + PE_BASE * n4 + j);                                \
            const v4d fq = *(const v4du *)(q + PE_F * n4 + j);                                     \
            const v4d fmax = *(const v4du *)(q + PE_FMAX * n4 + j);                                \
            for (int p = 0; p < 4; p++) {                                                          \
                const v4d ts = x[p];                                                               \
                v4d ten = fl[p] / (peak * ts);                                                     \
                ten = SEL(ten > one, one, ten);                                                    \
                v4d dram = by[p] / (k[4] * ts);                                                    \
                dram = SEL(dram > one, one, dram);                                                 \
                const v4d dyn = k[0] * SEL(ten == ten, ten, z) + k[1] + k[2];                      \
                const v4d pw =                                                                     \
                    base + dyn * vn * vn * fq / fmax + k[3] * SEL(dram == dram, dram, z);          \
                const v4d e = pw * ts;                                                             \
                *(v4du *)(out + (size_t)(CX_COST_CLOCK_FIELDS + p) * n4 + j) = SEL(ts <= z, z, e); \
            }                                                                                      \
        }                                                                                          \
    }

DEFINE_CLASS_CLOCKS(class_clocks_base, )
#if defined(__x86_64__) && defined(__GNUC__)
DEFINE_CLASS_CLOCKS(class_clocks_avx2, __attribute__((target("avx2"))))
#endif

typedef void class_clocks_fn(int, const double *, const cx_chunk_cost *, const double *,
                             const double *, double *);
static class_clocks_fn *class_clocks = class_clocks_base;

#if defined(__x86_64__) && defined(__GNUC__)
CX_PICK_ISA(pick_class, "avx2", class_clocks, class_clocks_avx2)
#endif

/* The class rows of c's curve at every clock (the rows made). */
static void make_classes(cx_cost_clocks *t, const cx_cost *c)
{
    const int n = t->n, n4 = (n + 3) & ~3, nc = c->nclass;
    for (int j = 0; j < n4; j++) { /* the lanes past the last clock: its terms */
        const cx_hw_pass_prep *pp = &t->prep[j < n ? j : n - 1];
        t->pe[PE_PEAK * n4 + j] = pp->peak, t->pe[PE_VN * n4 + j] = pp->vn;
        t->pe[PE_BASE * n4 + j] = pp->base_w, t->pe[PE_F * n4 + j] = pp->f;
        t->pe[PE_FMAX * n4 + j] = pp->fmax;
    }
    /* clock-free (the same at every clock) */
    const cx_hw_pass_prep *p0 = &t->prep[0];
    const double k[5] = {p0->tensor_w, p0->fp0_w, p0->sm1_w, p0->dram_w, p0->hbm_bps};
    for (int cl = 0; cl < nc; cl++)
        class_clocks(n4, t->pt, &c->cls[cl], t->pe, k,
                     t->crow + (size_t)cl * CX_CLASS_FIELDS * (size_t)n4);
    t->cmade = 1;
}

/* cost_runs.c cx_core_cost_stage_sums(c, 1) at every clock: per run of
 * equal stages, from its first stage's chunks in chunk order (the class
 * rows), F = sum (f + tp_f), B = sum (b + tp_b + r + tp_r), W = sum w,
 * the energy sum (e_f + e_b + e_w + e_r) and busy sum (f + b + w + r),
 * four clocks at a time (the same operations per lane). */
#define DEFINE_RUN_CLOCKS(NAME, ATTR)                                                              \
    ATTR static void NAME(int n4, const double *crow, const int *cls, int v, double *out)          \
    {                                                                                              \
        const size_t S = (size_t)n4;                                                               \
        for (int j = 0; j < n4; j += 4) {                                                          \
            v4d F = {0, 0, 0, 0}, B = F, W = F, E = F, U = F;                                      \
            for (int k = 0; k < v; k++) {                                                          \
                const double *x = crow + (size_t)cls[k] * CX_CLASS_FIELDS * S + j;                 \
                const v4d f = *(const v4du *)x, b = *(const v4du *)(x + S);                        \
                const v4d w = *(const v4du *)(x + 2 * S), r = *(const v4du *)(x + 3 * S);          \
                F += f + *(const v4du *)(x + 4 * S);                                               \
                B += b + *(const v4du *)(x + 5 * S) + r + *(const v4du *)(x + 6 * S);              \
                W += w;                                                                            \
                E += *(const v4du *)(x + 11 * S) + *(const v4du *)(x + 12 * S) +                   \
                     *(const v4du *)(x + 13 * S) + *(const v4du *)(x + 14 * S);                    \
                U += f + b + w + r;                                                                \
            }                                                                                      \
            *(v4du *)(out + j) = F, *(v4du *)(out + S + j) = B, *(v4du *)(out + 2 * S + j) = W;    \
            *(v4du *)(out + 3 * S + j) = E, *(v4du *)(out + 4 * S + j) = U;                        \
        }                                                                                          \
    }

DEFINE_RUN_CLOCKS(run_clocks_base, )
#if defined(__x86_64__) && defined(__GNUC__)
DEFINE_RUN_CLOCKS(run_clocks_avx2, __attribute__((target("avx2"))))
#endif

typedef void run_clocks_fn(int, const double *, const int *, int, double *);
static run_clocks_fn *run_clocks = run_clocks_base;

#if defined(__x86_64__) && defined(__GNUC__)
CX_PICK_ISA(pick_run, "avx2", run_clocks, run_clocks_avx2)
#endif

/* The runs' aggregates of c's curve at every clock (the classes made):
 * 0 when out of memory. */
static int make_runs(cx_cost_clocks *t, const cx_cost *c)
{
    const int n4 = (t->n + 3) & ~3, nr = c->nsrun, v = c->v;
    if (nr > t->rcap) {
        free(t->rrow);
        t->rrow = malloc((size_t)nr * CX_RUN_FIELDS * (size_t)n4 * sizeof *t->rrow);
        t->rcap = t->rrow ? nr : 0;
        if (!t->rrow) return 0;
    }
    int cls[CX_COST_MAX_VSTAGES];
    for (int r = 0; r < nr; r++) {
        const int s = c->srun[r];
        for (int k = 0; k < v; k++)
            cls[k] = c->vs_class[c->vs_stage_vs[s * v + k]];
        run_clocks(n4, t->crow, cls, v, t->rrow + (size_t)r * CX_RUN_FIELDS * (size_t)n4);
    }
    return 1;
}

int cx_core_cost_clocks_apply(cx_cost_clocks *t, cx_cost *c)
{
    if (!t || t->n == 0 || !t->made || t->curve != c->curve || t->mhz[t->last] != c->clock_mhz ||
        !t->ok[t->last])
        return 0;
    if (!t->cmade) {
        make_classes(t, c);
        t->rmade = make_runs(t, c);
    }
    if (!t->rmade) return 0;
    const size_t S = (size_t)((t->n + 3) & ~3);
    /* what price()'s part loop leaves without side traffic */
    for (int i = 0; i < c->stack.nparts; i++) {
        c->part_fill_f_s[i] = c->part_fill_b_s[i] = 0.0;
        c->part_sh_f_s[i] = c->part_sh_b_s[i] = 0.0;
    }
    for (int k = 0; k < c->nclass; k++) {
        cx_chunk_cost *cc = &c->cls[k];
        const double *x = t->crow + (size_t)k * CX_CLASS_FIELDS * S + t->last;
        cc->f_s = x[0], cc->b_s = x[S], cc->w_s = x[2 * S], cc->r_s = x[3 * S];
        cc->tp_f_s = x[4 * S], cc->tp_b_s = x[5 * S], cc->tp_r_s = x[6 * S];
        cc->ep_f_s = x[7 * S], cc->ep_b_s = x[8 * S], cc->ep_r_s = x[9 * S];
        cc->tensor_s = x[10 * S];
        cc->sh_f_s = cc->sh_b_s = cc->sh_total_s = 0.0; /* 0 + L x 0 ... + the fill 0 */
        if (cc->npieces > 0) cc->sh_fill_f_s = cc->sh_fill_b_s = 0.0;
        cc->e_f_j = x[11 * S], cc->e_b_j = x[12 * S], cc->e_w_j = x[13 * S], cc->e_r_j = x[14 * S];
    }
    /* cx_core_cost_stage_sums(c, 1): the runs' times and energies (their
     * bytes read no clock and stand) */
    for (int r = 0; r < c->nsrun; r++) {
        const double *x = t->rrow + (size_t)r * CX_RUN_FIELDS * S + t->last;
        c->run_f_s[r] = x[0], c->run_b_s[r] = x[S], c->run_w_s[r] = x[2 * S];
        c->run_e_j[r] = x[3 * S], c->run_busy_s[r] = x[4 * S];
    }
    return 1;
}

int cx_core_cost_clocks_key(cx_cost_clocks *t, const cx_cost *c, double f_mhz, double *key)
{
    if (!cx_core_cost_clocks_rows_at(t, c, f_mhz)) return 0; /* t->last: f_mhz's */
    if (!t->cmade) {
        make_classes(t, c);
        t->rmade = make_runs(t, c);
    }
    const size_t S = (size_t)((t->n + 3) & ~3);
    for (int k = 0; k < c->nclass; k++) {
        const double *x = t->crow + (size_t)k * CX_CLASS_FIELDS * S + t->last;
        double *q = key + 7 * k; /* the class fields apply() gives, in the key's order */
        q[0] = x[0], q[1] = x[4 * S], q[2] = x[S], q[3] = x[5 * S];
        q[4] = x[3 * S], q[5] = x[6 * S], q[6] = x[2 * S];
    }
    key[7 * c->nclass] = c->p2p_s;
    return 7 * c->nclass + 1;
}
