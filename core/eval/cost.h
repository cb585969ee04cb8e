/*
 * cost.h — per-stage, per-microbatch costs of a run, shared by the closed
 * form (core/eval/closed.c) and the graph walker: for each virtual stage (model
 * chunk) the forward, input-gradient, weight-gradient and recompute compute
 * time, the exposed TP communication, FLOPs, activation bytes and parameters;
 * plus the PP p2p time, the DP gradient-sync time and the optimizer step.
 *
 * Chunk classes: a virtual stage holds a slice of the model's stack (its
 * layers, in segments of one layer kind each; the embedding on the first,
 * the head on the last). Virtual stages with the same slice cost the same,
 * so each distinct content is priced once as a class (cls[]), and
 * vs_class[vs] names the class of each virtual stage, classes numbered in
 * order of first appearance. The even split has at most three (first, the
 * middle ones, last; one with a single virtual stage); an uneven split
 * (culonx_run.vstage_layers) up to CX_COST_MAX_CLASSES.
 * cx_core_cost_chunk(c, vs) is the accessor.
 * See core/README.md, "Chunk costs".
 */
#ifndef CX_CORE_COST_H
#define CX_CORE_COST_H

#include "culonx.h"
#include "core/layout/layout.h"
#include "hw/hw.h"
#include "hw/power.h"
#include "models/model.h"
#include "schedules/sched.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* capacity of the evaluators: the layout's limits (core/layout/layout.h) */
#define CX_COST_MAX_VSTAGES CX_LAYOUT_MAX_VSTAGES
#define CX_COST_MAX_STAGES CX_LAYOUT_MAX_STAGES
/* most work items (3 x microbatches x virtual stages) the graph engine and
 * the schedule replay accept: beyond it memory grows past a few GB */
#define CX_MAX_SCHEDULE_ITEMS 50000000LL
/* per-stage arrays are padded off a multiple of 4 KiB so that the many
 * arrays written together per stage do not alias in the L1 cache */
#define CX_STAGE_ARRAY (CX_COST_MAX_STAGES + 12)
/* most distinct chunk contents (classes) of one run */
#define CX_COST_MAX_CLASSES 64
/* most pieces of a chunk: the embedding, the segments it cuts, the head */
#define CX_COST_MAX_PIECES (CX_MODEL_MAX_SEGMENTS + 2)

/* Entries of the clock-independent results a cost keeps per execution
 * (below), and the most runs of equal parameters an entry holds. */
#define CX_COST_KEEP 8
#define CX_COST_KEEP_RUNS 8

/* The DP part of cx_core_cost_stages for one execution (its clock
 * cleared), per run of equal parameters: everything but the optimizer
 * step's energy, which reads the clock. f_bits: the stage forward time the
 * parameter-gather overlap reads (0 without it). */
typedef struct {
    culonx_execution exec;
    int nprun;
    uint64_t f_bits[CX_COST_KEEP_RUNS];
    double dp_s[CX_COST_KEEP_RUNS], tier0[CX_COST_KEEP_RUNS], tier1[CX_COST_KEEP_RUNS];
    double opt_s[CX_COST_KEEP_RUNS], opt_bytes[CX_COST_KEEP_RUNS];
    int nb[CX_COST_KEEP_RUNS];
    double tier_sum[CULONX_MAX_TIERS]; /* cx_cost.dp_tier_sum */
} cx_keep_dp;

/* The closed form's memory result for one execution (clock cleared). */
typedef struct {
    culonx_execution exec;
    culonx_memory memory;
    double params_per_gpu;
} cx_keep_mem;

/* A part's board-limit clocks (power_cap.c) for one clock, limit and
 * recompute mode, kept while its op table and parts are (cx_cost.cap_memo;
 * reset where they are split) */
typedef struct {
    int valid, rmode, capped;
    double f0, limit_w, clk[4], added, min_mhz;
} cx_cap_memo;

/* The closed form's reductions over the stages of one pricing of a cost
 * (core/eval/closed.c closed_sums; valid while gen is the cost's): the
 * per-stage sums of F, B and W in stage order, the bottleneck runs (rf: of
 * the forward phase or the only one, rb: of the backward phase) and their
 * first stages, and per run the time by which its first stage's last
 * backward ends before stage 0's (the tail). */
typedef struct {
    uint64_t gen;
    double sum_f_s, sum_b_s, sum_w_s;
    int rf, rb, jf, jb;
    int replayed; /* closed.c replays() */
    /* the result's parts that read only this pricing: the breakdown of
     * the bottleneck stage jb (side: its shard or offload time), the
     * side traffic, FLOPs and parameters */
    double bd_f_s, bd_b_s, bd_r_s, bd_tp_s, bd_ep_s, bd_side_s, side_s;
    double model_flops, hardware_flops, params, active_params;
    double ahead_s[CX_STAGE_ARRAY];
    /* per run, the DP-overlap window of its first stage's last backward
     * (the closed form's tail) */
    double window_s[CX_STAGE_ARRAY];
    /* the schedule's bubble (closed form; bubble_gen: made for gen) */
    uint64_t bubble_gen;
    double bubble_s;
    /* energy.c: the ranks per stage, the nodes and the network bits per
     * tier of TP and PP traffic (cx_core_energy_result) */
    double stage_ranks, nodes, tp_pp_bits[CULONX_MAX_TIERS];
    double blocked_w, hbm_pj; /* the GPU's blocked power, HBM pJ per byte */
    /* the curve (cx_cost.curve) the FLOPs, parameters and those energy
     * terms were made for (0: none); they read no time */
    uint64_t fixed_curve;
} cx_closed_sums;

/* The clock-independent parts of one op's work (and of its FP8 cast) */
typedef struct {
    cx_hw_work_parts work, cast_work;
    int cast;
} cx_op_keep;

/* A run of consecutive instances of one part (model.h) inside a chunk. */
typedef struct {
    int16_t part; /* CX_MODEL_PART_* or a layer kind */
    int32_t count;
} cx_chunk_piece;

typedef struct {
    /* compute time per microbatch (s), TP collectives excluded */
    double f_s, b_s, w_s, r_s;
    /* blocking TP collectives per microbatch (s), in F, in B, in recompute */
    double tp_f_s, tp_b_s, tp_r_s;
    /* of which expert collectives (all-to-all over ep, etp gather/scatter) */
    double ep_f_s, ep_b_s, ep_r_s;
    /* FLOPs per microbatch per GPU */
    double f_flops, b_flops, w_flops, r_flops;
    /* HBM bytes per microbatch per GPU (for energy) */
    double f_bytes, b_bytes, w_bytes, r_bytes;
    /* tensor-core share of compute time (for the power model) */
    double tensor_s;
    /* TP bytes sent per GPU per microbatch per tier (F+B+R) */
    double tp_tier_bytes[CULONX_MAX_TIERS];
    /* GPU energy per microbatch of each pass (TP waits excluded), J */
    double e_f_j, e_b_j, e_w_j, e_r_j;
    double act_bytes;     /* activations saved per microbatch */
    double work_bytes;    /* transient: one layer's full activations (recompute) */
    double params;        /* parameters per GPU */
    double expert_params; /* of which routed-expert parameters (/ (ep etp)) */
    /* ZeRO-2/3 and offload side traffic (core/eval/shard.c): the exposed
     * part per microbatch, already included in tp_f_s / tp_b_s (it blocks
     * compute like them), and of it the prefetch fill of the pass (the first
     * gather / the last reduce-scatter that nothing hides) */
    double sh_f_s, sh_b_s, sh_fill_f_s, sh_fill_b_s;
    double sh_total_s;       /* all side time per microbatch, hidden or not */
    double piece_params_max; /* parameters per GPU of the largest piece */
    double layer_act_max;    /* saved activations of the largest layer */
    int64_t layers;
    /* content (kept by a reprice, which zeroes the fields above: keep these
     * last): whether it holds the embedding, the head, and its pieces, input
     * to output, which the graph engine expands at op level */
    int has_embed, has_head;
    int npieces;
    cx_chunk_piece piece[CX_COST_MAX_PIECES];
} cx_chunk_cost;
_Static_assert(offsetof(cx_chunk_cost, has_head) > offsetof(cx_chunk_cost, has_embed) &&
                   offsetof(cx_chunk_cost, npieces) > offsetof(cx_chunk_cost, has_head) &&
                   offsetof(cx_chunk_cost, piece) > offsetof(cx_chunk_cost, npieces) &&
                   sizeof(cx_chunk_cost) < offsetof(cx_chunk_cost, piece) +
                                               CX_COST_MAX_PIECES * sizeof(cx_chunk_piece) +
                                               _Alignof(double),
               "cx_chunk_cost: the content fields come last (cx_core_cost_reprice)");

/* Times of each op of a table (a part: layer kind, embedding or head) per
 * microbatch. */
typedef struct {
    double f_s[CX_MODEL_MAX_OPS], b_s[CX_MODEL_MAX_OPS], w_s[CX_MODEL_MAX_OPS];
    double r_s[CX_MODEL_MAX_OPS]; /* recompute (0 for ops not recomputed) */
    double tp_f_s[CX_MODEL_MAX_OPS], tp_b_s[CX_MODEL_MAX_OPS];
} cx_op_times;

typedef struct {
    const culonx_run *run;
    /* op tables of this run, and the times of their ops per part */
    cx_model_stack stack;
    cx_op_times part_t[CX_MODEL_MAX_PARTS];
    /* the forward and backward collective of each op of each part (no clock
     * in them), and whether a build left them (cx_core_cost_reprice) */
    cx_hw_comm part_comm[CX_MODEL_MAX_PARTS][CX_MODEL_MAX_OPS][2];
    /* and the clock-independent parts of its forward, backward and
     * weight-gradient work (kept with them) */
    cx_op_keep part_keep[CX_MODEL_MAX_PARTS][CX_MODEL_MAX_OPS][3];
    int comm_kept;
    /* 0: a memory-only build (cx_core_cost_build_mem): shape, parameters
     * and bytes exact, times and energies not priced */
    int priced;
    uint64_t gen; /* unique to the last build or reprice into this cost */
    /* the build's number (gen of the last build or re-execution, kept by a
     * reprice): every clock's costs of one curve come from the same kept
     * op parts (the replay at every clock at once, replay_clocks.c) */
    uint64_t curve;
    culonx_system sys; /* with perf defaults filled */
    const cx_sched_desc *sched;
    cx_layout layout; /* degrees, strides, groups (core/layout/layout.h) */
    int p, v, m;      /* v = chunks per stage for the schedule */
    double clock_mhz;
    cx_hw_pass_prep pe; /* pass energy at clock_mhz (cx_core_pass_energy_j) */
    /* chunk classes (see the top): cls[vs_class[vs]] is virtual stage vs;
     * class_vstages[k] virtual stages are of class k */
    cx_chunk_cost cls[CX_COST_MAX_CLASSES];
    int nclass;
    int class_vstages[CX_COST_MAX_CLASSES];
    int16_t vs_class[CX_COST_MAX_VSTAGES];
    int32_t vs_layer0[CX_COST_MAX_VSTAGES + 1]; /* first layer of each virtual stage */
    double p2p_s; /* one activation/gradient transfer between stages */
    double p2p_bytes;
    int p2p_tier;
    /* per physical stage */
    double stage_params[CX_STAGE_ARRAY];
    double stage_expert_params[CX_STAGE_ARRAY]; /* of which routed experts */
    /* per-stage aggregates of its chunks that read no clock */
    double stage_act_bytes[CX_STAGE_ARRAY], stage_work_bytes[CX_STAGE_ARRAY];
    /* per run r of equal stages (srun below; every stage of the run has
     * them): the aggregates of its chunks per microbatch, forward (F +
     * TP), backward (B + R + their TP) and weight-gradient time
     * (cx_core_run_times), pass energies, compute (TP excluded) and HBM
     * bytes */
    double run_f_s[CX_STAGE_ARRAY], run_b_s[CX_STAGE_ARRAY], run_w_s[CX_STAGE_ARRAY];
    double run_e_j[CX_STAGE_ARRAY], run_busy_s[CX_STAGE_ARRAY], run_bytes[CX_STAGE_ARRAY];
    int dp_nb[CX_STAGE_ARRAY]; /* DP buckets */
    /* 1 when stage s equals stage s-1 in every per-stage value above (same
     * chunk classes in chunk order, same sends): loops may reuse s-1's
     * results */
    unsigned char same_prev[CX_STAGE_ARRAY];
    /* runs of stages with equal parameters (stage_params and
     * stage_expert_params): run r is stages [prun[r], prun[r+1]) */
    int nprun;
    int16_t prun[CX_STAGE_ARRAY + 1];
    /* runs of equal stages (same_prev): run r is stages [srun[r], srun[r+1]) */
    int nsrun;
    int16_t srun[CX_STAGE_ARRAY + 1];
    int sends_f[CX_STAGE_ARRAY]; /* p2p sends per microbatch, forward */
    int sends_b[CX_STAGE_ARRAY]; /* and backward */
    int16_t vs_stage[CX_COST_MAX_VSTAGES], vs_chunk[CX_COST_MAX_VSTAGES];
    int16_t vs_stage_vs[CX_COST_MAX_VSTAGES]; /* [stage * v + chunk] -> virtual stage */
    /* The DP part (cost_dp.c) per run r of equal parameters (prun; prun_of:
     * the run of each stage): gradient sync (RS+AG or AR) time, its DP
     * buckets and bytes per tier, the optimizer step's time, GPU energy and
     * HBM bytes. Current after every pricing and DP update. */
    int16_t prun_of[CX_STAGE_ARRAY];
    int16_t prun_srun[CX_STAGE_ARRAY]; /* the first srun at or after prun[r] */
    double dpr_s[CX_STAGE_ARRAY], dpr_tier[CX_STAGE_ARRAY][CULONX_MAX_TIERS];
    int dpr_nb[CX_STAGE_ARRAY];
    double optr_s[CX_STAGE_ARRAY], optr_j[CX_STAGE_ARRAY], optr_bytes[CX_STAGE_ARRAY];
    /* The same per stage (dp_nb above too), for the graph walker and the
     * clock plans: written by cx_core_cost_build, _build_mem, _reexec and
     * cx_core_cost_stages, not by cx_core_cost_build_key's DP-only update
     * nor by a reprice of a priced cost (cx_core_cost_dp_runs: dp_stale,
     * until cx_core_cost_dp_stages) */
    double dp_s[CX_COST_MAX_STAGES];
    double dp_tier_bytes[CX_STAGE_ARRAY][CULONX_MAX_TIERS];
    double optimizer_s[CX_STAGE_ARRAY];
    double optimizer_j[CX_STAGE_ARRAY];
    double optimizer_bytes[CX_STAGE_ARRAY];
    /* the DP bytes per tier summed over the stages, stage by stage (energy) */
    double dp_tier_sum[CULONX_MAX_TIERS];
    /* dp_runs_ok: the per-run values were written over the current prun, at
     * the cost's number dp_gen (optimizer energy reads the clock); dp_filled:
     * so were the per-stage ones (each run then holds one value, and a run
     * is written again only where its first stage differs); dp_stale: the
     * per-stage ones are behind the per-run ones */
    int dp_runs_ok, dp_filled, dp_stale;
    uint64_t dp_gen;
    double weight_copies;
    /* sharding (core/eval/shard.c): stage, shard and replica groups of the
     * layout, shard size S (1 without ZeRO) and replicas R */
    int zero;
    double shard_n, replicas;
    cx_hw_group shard_grp, replica_grp;
    /* the shard group they were made for (cx_core_shard_groups), and the
     * size of the gradient group */
    int shard_in_ok;
    int64_t shard_in_group, grad_size;
    /* per part: the prefetch fill of one instance (forward, backward) */
    double part_fill_f_s[CX_MODEL_MAX_PARTS], part_fill_b_s[CX_MODEL_MAX_PARTS];
    /* and its exposed time per instance (in the chunks' tp_f_s / tp_b_s;
     * the op-level graph puts it on the gather stream) */
    double part_sh_f_s[CX_MODEL_MAX_PARTS], part_sh_b_s[CX_MODEL_MAX_PARTS];
    double host_bw_bps; /* host<->GPU bytes/s per GPU (offload) */
    /* board power limit (core/eval/power_cap.c, core/README.md "Board power
     * limit"): the GPU's tdp-w, 0 when absent; the clock each part's F, B,
     * W and R pass runs at (c->clock_mhz unless its power there exceeds the
     * limit), the per-microbatch compute time the cap added to each class's
     * passes, the part-passes capped and the lowest clock any ran at */
    double power_limit_w;
    double part_clk[CX_MODEL_MAX_PARTS][4];
    cx_cap_memo cap_memo[CX_MODEL_MAX_PARTS];
    double cap_added_s[CX_COST_MAX_CLASSES];
    int capped_parts;
    double cap_min_mhz;
    /* clock-independent results of this shape, kept across reprices and
     * reset by every full build (cost.c cx_core_cost_stages, closed.c
     * memory): a sweep prices one shape at every clock */
    int nkeep_dp, keep_dp_next, keep_dp_last, nkeep_mem, keep_mem_next, keep_mem_last;
    /* The kept entries were all made for executions with one cost key
     * (cost_key.c exec_key: they differ at most in the DP fields of
     * cx_core_exec_dp_same and the clock) when keep_mixed is 0, keep_curve
     * is curve and the run is keep_run: a build or re-execution starts
     * that for its run, a keyed call that found the key's execution names
     * its run (cx_core_cost_keyed), an entry made for another run, or in
     * another curve, sets keep_mixed. The lookups then compare the DP
     * fields alone (the rest is equal). */
    const culonx_run *keep_run;
    uint64_t keep_curve;
    int keep_mixed;
    cx_closed_sums closed; /* closed.c, for the evaluations of one pricing */
    cx_keep_dp keep_dp[CX_COST_KEEP];
    cx_keep_mem keep_mem[CX_COST_KEEP];
} cx_cost;

/* Pass indices of cx_cost.part_clk. */
enum { CX_PASS_F, CX_PASS_B, CX_PASS_W, CX_PASS_R };

/* a equals b but in the clock (b's clock_mhz is 0: the executions kept per
 * shape below), bit for bit */
static inline int cx_core_exec_same_unclocked(const culonx_execution *a, const culonx_execution *b)
{
    const size_t o = offsetof(culonx_execution, clock_mhz), n = sizeof a->clock_mhz;
    return memcmp(a, b, o) == 0 &&
           memcmp((const char *)a + o + n, (const char *)b + o + n, sizeof *a - o - n) == 0 &&
           b->clock_mhz == 0 && !signbit(b->clock_mhz);
}

/* The fields in which the executions kept per shape (cx_keep_dp,
 * cx_keep_mem) differ in a sweep, compared before the whole execution:
 * equal executions always pass, most others fail here. */
static inline int cx_core_exec_dp_same(const culonx_execution *a, const culonx_execution *b)
{
    return a->dp_overlap == b->dp_overlap && a->distributed_optimizer == b->distributed_optimizer &&
           a->zero == b->zero && a->param_gather_overlap == b->param_gather_overlap &&
           a->shard_group == b->shard_group;
}

/* Whether c's kept entries are all of run's cost key (see keep_mixed). */
static inline int cx_core_cost_keyed(const cx_cost *c, const culonx_run *run)
{
    return !c->keep_mixed && run == c->keep_run && c->keep_curve == c->curve;
}
/* An entry is kept for run: the entries stay of one key where it is. */
static inline void cx_core_cost_keep_for(cx_cost *c, const culonx_run *run)
{
    if (!cx_core_cost_keyed(c, run)) c->keep_mixed = 1;
}

/* The costs of virtual stage vs. */
static inline const cx_chunk_cost *cx_core_cost_chunk(const cx_cost *c, int vs)
{
    return &c->cls[c->vs_class[vs]];
}

/* The hw collective that prices a model-layer collective (models/ -> hw/). */
static inline cx_hw_coll cx_core_hw_coll(cx_coll_kind k)
{
    switch (k) {
    case CX_COLL_REDUCE_SCATTER:
        return CX_HW_REDUCE_SCATTER;
    case CX_COLL_ALL_GATHER:
        return CX_HW_ALL_GATHER;
    case CX_COLL_ALL_TO_ALL:
        return CX_HW_ALL_TO_ALL;
    default:
        return CX_HW_ALL_REDUCE;
    }
}

/* Energy per GPU of a compute pass of duration t_s doing `flops` (tensor)
 * and moving `bytes` of HBM, at the cost's clock (hw/power.c);
 * *power_w gets the power. */
static inline double cx_core_pass_energy_j(const cx_cost *c, double t_s, double flops, double bytes,
                                           double *power_w)
{
    /* prepared for the cost's clock at its build or reprice: same bits */
    if (c->pe.f_in == c->clock_mhz && c->pe.dtype == c->run->exec.dtype)
        return cx_hw_pass_energy_prepared_j(&c->pe, t_s, flops, bytes, power_w);
    return cx_hw_pass_energy_j(&c->sys.gpu, c->run->exec.dtype, c->clock_mhz, t_s, flops, bytes,
                               power_w);
}
/* The same at clock f_mhz (a pass the board limit slowed, power_cap.c). */
double cx_core_pass_energy_at_j(const cx_cost *c, double f_mhz, double t_s, double flops,
                                double bytes, double *power_w);
/* Time of a pass of op o at clock f_mhz from its clock-independent parts k
 * (cx_cost.part_keep: hw/perf.c's work split, FP8 casts, expert load; all
 * 0 for a pass with no work, which takes 0). */
double cx_core_op_kept_time(const cx_cost *c, const cx_model_op *o, const cx_op_keep *k,
                            double f_mhz);
/* Board power limit (core/eval/power_cap.c): resets the cap state of c;
 * the clocks of one part's passes (CX_PASS_*; returns the compute time per
 * instance the cap added); a class's pass energies from its parts' at their
 * own clocks. */
void cx_core_power_cap_init(cx_cost *c);
/* The same where the limit at c's clock is known (limit_w). */
void cx_core_power_cap_init_limit(cx_cost *c, double limit_w);
/* The limit a pricing of c at clock_mhz applies (cx_cost.power_limit_w):
 * the GPU's tdp-w, 0 when absent or when full activity stays within it. */
double cx_core_power_limit_at(const cx_cost *c, double clock_mhz);
double cx_core_power_cap_part(cx_cost *c, int part, int recompute_mode, double clk[4]);
/* The clocks of that part's passes at clock f0 under limit_w (f0 each when
 * limit_w is 0), as cx_core_power_cap_part finds them; c untouched. */
void cx_core_power_cap_clocks(const cx_cost *c, int part, int recompute_mode, double f0,
                              double limit_w, double clk[4]);
void cx_core_power_cap_class(cx_cost *c, int k, const cx_chunk_cost *part, const double *added);
/* Power of a GPU waiting in a bubble or blocked in communication. */
double cx_core_blocked_power_w(const cx_cost *c);
/* core/eval/a2a.c: the expert all-to-all left exposed by execution.a2a-overlap
 * in one op table's times (tp_f_s, tp_b_s and the recompute's tp_r) */
void cx_core_a2a_overlap(const cx_cost *c, const cx_model_ops *ops, cx_op_times *ot, double *tp_r);

/* CULONX_EINPUT when a result is not a usable estimate: iteration time
 * above 1e9 s or any reported quantity not finite (degenerate inputs). */
culonx_status cx_core_result_check(const culonx_run *run, const culonx_result *res,
                                   culonx_error *err);

/* Computes all costs at a clock (0 = max). Fails on configurations the
 * model cannot express (e.g. too many stages). */
culonx_status cx_core_cost_build(const culonx_run *run, double clock_mhz, cx_cost *c,
                                 culonx_error *err);
/* The same shape, parameters and bytes (everything memory reads), times and
 * energies left unpriced (c->priced = 0) when no side traffic can exist
 * (ZeRO < 2, no offload: then whether the schedule is replayed reads no
 * time); else cx_core_cost_build. cx_core_cost_reprice completes it. */
culonx_status cx_core_cost_build_mem(const culonx_run *run, double clock_mhz, cx_cost *c,
                                     culonx_error *err);
/* cx_core_cost_build (mem_only: _build_mem) into a cost that holds a
 * whole build for the same system (culonx_run.system bit for bit;
 * cost_key.c): the system's defaults it filled are kept, and its
 * virtual-stage maps and equal stages where the schedule, p, v and the
 * classes of the virtual stages are the same. */
culonx_status cx_core_cost_build_same_sys(const culonx_run *run, double clock_mhz, cx_cost *c,
                                          int mem_only, culonx_error *err);
/* The per-stage parts of cx_core_cost_build (its last steps): sends and
 * stage aggregates of the chunk classes (stage_sums; nothing of the DP
 * settings), then DP gradient sync and optimizer (stages), which reads
 * run->exec and is redone alone when only DP settings changed (cost_key.c). */
/* Sends and equal stages of the chunk classes (same_prev, srun); the shape
 * part of a build (cost_runs.c). */
void cx_core_cost_stage_shape(cx_cost *c);
/* The aggregates of the chunk classes per run and per stage (cost_runs.c;
 * times_only: a reprice, see there). */
void cx_core_cost_stage_sums(cx_cost *c, int times_only);
/* c, built for run at some clock (same shape: run differs from that build
 * at most in the clock and the DP settings the cost key ignores), priced at
 * clock_mhz: the result of cx_core_cost_build without its shape steps
 * (cost_key.c); where c was priced, its per-stage DP values wait for
 * cx_core_cost_dp_stages (dp_stale). */
void cx_core_cost_reprice(const culonx_run *run, double clock_mhz, cx_cost *c);
/* The parts' times of one priced shape (cx_cost.curve) at each clock of a
 * sweep, made in one pass over the ops for all clocks (cost_clocks.c); one
 * per worker (cost_key.c), its size set by the clocks alone. */
typedef struct cx_cost_clocks cx_cost_clocks;
cx_cost_clocks *cx_core_cost_clocks_new(void);
/* NULL-safe. */
void cx_core_cost_clocks_free(cx_cost_clocks *t);
/* The sweep's clocks (n distinct values); n < 2 or out of memory: none
 * (t then answers nothing). */
void cx_core_cost_clocks_set(cx_cost_clocks *t, const double *mhz, int n);
/* The times cx_core_cost_reprice's price() would leave in part[pi] of c
 * (priced, its ops' parts kept, reprice_start and the shard groups done
 * for c->clock_mhz; no power limit binding), CX_COST_CLOCK_FIELDS per
 * part, or NULL where t cannot give their bits (another clock, TP,
 * context-parallel or all-to-all overlap, side traffic, a CPU launch
 * floor); made for all of t's clocks at c's first call for its curve. */
#define CX_COST_CLOCK_FIELDS 11 /* f b w r tp_f tp_b tp_r ep_f ep_b ep_r tensor */
const double *cx_core_cost_clocks_rows(cx_cost_clocks *t, const cx_cost *c);
/* The same at clock f_mhz (> 0) instead of c->clock_mhz. The rows are
 * those of c's curve: a copy of c, or c repriced, reads the same ones. */
const double *cx_core_cost_clocks_rows_at(cx_cost_clocks *t, const cx_cost *c, double f_mhz);
/* The board limit (power_cap.c) and the pass energy's terms
 * (cx_hw_pass_energy_prepare) at clock f_mhz of t for c's GPU and dtype,
 * where t holds them (made for c's curve): 1, else 0. */
int cx_core_cost_clocks_clock_terms(const cx_cost_clocks *t, const cx_cost *c, double f_mhz,
                                    culonx_dtype dtype, double *limit_w, cx_hw_pass_prep *pe);
/* What price()'s fast path leaves in c after its parts' rows
 * (cx_core_cost_clocks_rows just gave c's rows: the same clock), written
 * into c from t: the classes' times and pass energies (their pieces'
 * sums and cx_hw_pass_energy_prepared_j) and cx_core_cost_stage_sums(c,
 * 1)'s run aggregates: 1, or 0 (nothing written) where t has none. Made
 * for all of t's clocks at c's first call for its curve, four clocks at a
 * time (the classes' pieces, FLOPs and bytes and the runs of equal
 * stages, which no reprice changes, read once). */
int cx_core_cost_clocks_apply(cx_cost_clocks *t, cx_cost *c);
/* The replay's time key of c's curve at clock f_mhz (cx_replay_time_key's
 * layout: per class f, tp_f, b, tp_b, r, tp_r, w, then the p2p time) from
 * the table's class rows, the bits a reprice at f_mhz gives there (its
 * classes are those rows); its length, or 0 where the table has no rows
 * at f_mhz (cx_core_cost_clocks_rows_at). */
int cx_core_cost_clocks_key(cx_cost_clocks *t, const cx_cost *c, double f_mhz, double *key);
/* cx_core_cost_reprice, the parts' times from t where it has them (NULL:
 * the same as cx_core_cost_reprice); the same bits either way, but
 * c->part_t (read by walk.c on its own builds) is left as it was. */
void cx_core_cost_reprice_clocks(const culonx_run *run, double clock_mhz, cx_cost *c,
                                 cx_cost_clocks *t);
/* The replay memo's time key (replay_lanes.h cx_replay_time_key: per
 * chunk class f, tp_f, b, tp_b, r, tp_r, w, then the p2p time) of c, priced
 * (c->priced, its ops' parts kept), at clock_mhz: the bits of
 * cx_core_cost_reprice(c->run, clock_mhz, copy of c) then
 * cx_replay_time_key, by the same operations, c untouched
 * (cost_clock_key.c). Returns the count (7 nclass + 1), or 0 where it
 * cannot give those bits (c keeps no op parts, or its shard groups are not
 * c->run's): reprice then. */
int cx_core_cost_time_key_at(const cx_cost *c, double clock_mhz, double *key);
/* The same, the parts' times from t where it has them (NULL: none). */
int cx_core_cost_time_key_clocks(const cx_cost *c, double clock_mhz, double *key,
                                 cx_cost_clocks *t);
/* c, built for a run with the same op tables, layout and chunk classes
 * (run differs from that build at most in the clock and in execution
 * fields read only when pricing: recompute, TP overlap, ZeRO stage, shard
 * group, offload, ZeRO implementation, all-to-all overlap and the DP
 * settings; cost_key.c), built for run at clock_mhz: the result of
 * cx_core_cost_build (mem_only: cx_core_cost_build_mem) without its shape
 * steps, the ops' clock-independent parts and collectives kept. */
void cx_core_cost_reexec(const culonx_run *run, double clock_mhz, cx_cost *c, int mem_only);
/* The DP part of run (cost_dp.c): per run (cx_core_cost_dp_runs), then per
 * stage (cx_core_cost_dp_stages, when behind); cx_core_cost_stages both. */
void cx_core_cost_stages(const culonx_run *run, cx_cost *c);
void cx_core_cost_dp_runs(const culonx_run *run, cx_cost *c);
void cx_core_cost_dp_stages(cx_cost *c);

/* *d = *s but the unused tails of s's fixed-capacity arrays (past p, the
 * classes, the virtual stages, the parts; cost_copy.c): the same cost for
 * every reader, most of 440 KB not copied. d != s. */
void cx_core_cost_copy(cx_cost *d, const cx_cost *s);

/* A stage's weight, gradient and optimizer bytes: Pd dense and Pe expert
 * parameters, ZeRO stage `zero` over S ranks (the experts' optimizer state
 * over eo), wb bytes a weight. cx_core_stage_memory's terms; the sweep's
 * memory floors (closed.c) call it too, so that a floor takes the same
 * operations and is never above the peak. */
static inline void cx_param_bytes(double Pd, double Pe, int zero, double S, double eo, double wb,
                                  double *weights, double *gradients, double *optimizer)
{
    *weights = wb * (Pd / (zero >= 3 ? S : 1.0) + Pe);
    *gradients = 4.0 * (Pd / (zero >= 2 ? S : 1.0) + Pe);
    *optimizer = 12.0 * Pd / (zero >= 1 ? S : 1.0) + 12.0 * Pe / eo;
}
/* Memory of stage s except activations: weights, gradients, optimizer
 * state and working buffers (work_bytes = transient recompute bytes). */
void cx_core_stage_memory(const cx_cost *c, int s, double work_bytes, culonx_memory *mm);
/* MFU, HFU, tokens/s and the training-budget fields from time and FLOPs. */
void cx_core_result_rates(const culonx_run *run, culonx_result *res);

/* Sharding and offload (core/eval/shard.c, core/README.md "Sharding",
 * "Offload"). Groups, shard size and host bandwidth of the run, before the
 * parts are priced. */
void cx_core_shard_init(cx_cost *c);
/* The ZeRO stage and the shard and replica groups of c->run (part of
 * cx_core_shard_init; redone alone when only DP settings changed). */
void cx_core_shard_groups(cx_cost *c);
/* The side traffic of one instance of part `pi` (ZeRO-3 parameter
 * all-gathers, ZeRO-2/3 gradient reduce-scatters, offload fetches and
 * stores): its exposed time beyond the instance's compute, added to pc's
 * and ot's TP times (op 0) and pc->sh_*; the fill to c->part_fill_*; bytes
 * per tier to pc->tp_tier_bytes; ot is left as is (the op-level graph
 * emits c->part_sh_* itself). */
void cx_core_shard_part(cx_cost *c, int pi, cx_chunk_cost *pc, cx_op_times *ot);
/* Its side times per instance (no clock in them), forward *xf and backward
 * *xb (the larger of network and host link), bytes per tier added to tiers
 * (NULL: not counted); 0 when part pi has none (nothing written). */
int cx_core_shard_side(const cx_cost *c, int pi, double *xf, double *xb, double *tiers);
/* The gradient sync of a stage of P parameters per GPU after its last
 * backward (a, b: the collectives; their times and bytes): ZeRO 0 all-
 * reduce, 1 reduce-scatter + all-gather, 2 all-gather (the reduce-scatter
 * ran per layer), 3 nothing; HSDP adds the replicas' all-reduce of the
 * shards. Returns the all-gather part (the one param-gather-overlap hides). */
double cx_core_shard_dp(const cx_cost *c, double P, cx_hw_comm *a, cx_hw_comm *b);
/* Applies offload and sharding to a stage's memory once activations are
 * known: activations (offload) go to host memory but two layers' worth;
 * peak, host bytes and fits. */
void cx_core_memory_finish(const cx_cost *c, culonx_memory *mm);

/* The TP part of tp (TP collectives + side time sh): tp - sh, its rounding
 * residue (below 1e-12 tp) taken as 0. */
static inline double cx_core_tp_only(double tp, double sh)
{
    double x = tp - sh;
    return sh > 0 && x < 1e-12 * tp ? 0.0 : x;
}

/* Number of DP gradient buckets of stage s (1 without dp-overlap). */
static inline int cx_core_dp_buckets(const cx_cost *c, int s)
{
    return c->dpr_nb[c->prun_of[s]];
}

/* Stage index holding virtual stage vs, and chunk index on it. */
int cx_core_cost_stage_of(const cx_cost *c, int vs, int *chunk);

#endif
