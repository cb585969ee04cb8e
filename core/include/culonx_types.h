/*
 * culonx_types.h — the types of libculonx: status and error records, model,
 * system (GPU, power model, network tiers, efficiencies), execution, run,
 * results, DVFS clock tables and models, sweep specifications and results.
 * Only types and constants: the layers below the API (hw/, models/,
 * schedules/, core/base) include this header, never culonx.h, which
 * declares the functions. Units are in the names: _s seconds, _bytes, _j
 * joules, _w watts, _mhz, _gbps (GB/s, 1e9 bytes/s), _tflops (1e12 FLOP/s),
 * _gib (2^30 bytes).
 * Long file: every public type in one header, so that the layers below the
 * API include one file and never the function declarations.
 */
#ifndef CULONX_TYPES_H
#define CULONX_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CULONX_VERSION "0.1.0"

/* ---------------------------------------------------------------- status */

typedef enum {
    CULONX_OK = 0,
    CULONX_EINPUT = 1,    /* bad input: config, CSV, option value */
    CULONX_EUSAGE = 2,    /* wrong use of the API or command line */
    CULONX_EINTERNAL = 3, /* out of memory, numerical failure, bug */
} culonx_status;

/* Where an error came from and what it is. `file` may be empty, `line` 0. */
typedef struct {
    char file[512];
    int line;
    char msg[1024];
} culonx_error;

/* ------------------------------------------------------------------ model */

typedef enum { CULONX_ARCH_GPT = 0, CULONX_ARCH_LLAMA = 1, CULONX_ARCH_MOE = 2 } culonx_arch;

typedef struct {
    char name[64];
    culonx_arch arch;
    int64_t layers;   /* l */
    int64_t hidden;   /* h */
    int64_t heads;    /* a */
    int64_t kv_heads; /* k (GQA); = heads for GPT / MHA */
    int64_t ffn;      /* f: MLP inner size */
    int64_t vocab;    /* V */
    int64_t seq;      /* s */
    int64_t head_dim; /* d: width of one attention head; 0 = hidden / heads */
    int64_t window;   /* sliding attention window in tokens; 0 = none (full causal) */
    /* Mixture of experts (arch "moe", models/moe.c; 0 = unused): routed
     * experts E, top-k per token, inner size of one expert, shared experts
     * (always active, ffn shared x expert-ffn), every moe-layer-freq-th layer
     * after the first-dense-layers is MoE (the others dense, inner size ffn) */
    int64_t experts, experts_per_token, expert_ffn, shared_experts;
    int64_t moe_layer_freq, first_dense_layers;
    /* Low-rank (MLA-style) attention, models/moe.c: query and key/value
     * compression ranks (0 = full-rank projections) and the decoupled
     * rotary width added to each query/key head */
    int64_t q_rank, kv_rank, rope_dim;
    /* the sliding window applies to layer i iff i % window_every == 0, the
     * others attend in full (gpt-oss alternates, window-every 2); 0 or 1 =
     * every layer (arch "moe" only: models/moe.c) */
    int64_t window_every;
} culonx_model;

/* ----------------------------------------------------------------- system */

/* DVFS power model of one GPU (see hw/power.c):
 *   V(f)   = v_min                                   f <= knee
 *          = v_min + v_slope * (f - knee) / 1000     f >  knee   (f in MHz)
 *   P(f,u) = const_w + static_w * V(f)/v_max
 *            + sum_c coeff_c * u_c * (V(f)/v_max)^2 * f / f_max
 * where u_c are unit utilisations in [0,1]: tensor, fp (vector), sm, dram.
 * The same model reads as per-operation energies (pJ/FLOP at a clock). */
typedef struct {
    int present; /* 0: derive a default from TDP/idle */
    char provenance[256];
    double const_w;   /* clock-independent power while active */
    double static_w;  /* leakage at v_max, scales with V */
    double knee_mhz;  /* V flat below this clock */
    double v_min;     /* normalised voltage at and below the knee */
    double v_slope;   /* normalised voltage rise per GHz above the knee */
    double tensor_w;  /* dynamic power at full tensor utilisation, f_max */
    double fp_w;      /* dynamic power at full FP (vector) utilisation */
    double sm_w;      /* dynamic power at full SM activity */
    double dram_w;    /* HBM power at full DRAM utilisation (clock-indep.) */
    double blocked_w; /* GPU blocked in communication (spinning kernels) */
    /* time scaling: t(f) = t_mem + t_compute * (f_max/f)^time_exp */
    double time_exp;
} culonx_power_model;

typedef struct {
    char name[64];
    double matrix16_tflops; /* dense fp16/bf16 tensor-core peak */
    double matrix8_tflops;  /* dense fp8 peak (0: no fp8) */
    double vector_tflops;   /* non-tensor FP32/FP16 vector peak */
    double hbm_gbps;        /* HBM bandwidth */
    double mem_gib;         /* HBM capacity */
    double min_mhz, max_mhz, step_mhz;
    double tdp_w, idle_w;
    culonx_power_model power;
} culonx_gpu;

/* A network tier: tier 0 is the scale-up domain (NVLink inside a node),
 * tier 1 the scale-out network between nodes. */
typedef struct {
    char name[32];
    double bw_gbps;    /* unidirectional bandwidth per GPU */
    double latency_s;  /* per-hop latency (alpha) */
    double efficiency; /* achieved fraction of bw for large messages */
    double pj_per_bit; /* energy per bit moved */
} culonx_net_tier;

/* Achieved-efficiency parameters of the performance model (hw/perf.c).
 * Defaults are fitted; bench/fit reproduces the fit. */
typedef struct {
    double matmul_eff_max;            /* asymptotic fraction of matrix peak */
    double matmul_half_dim;           /* GEMM size (GFLOP per GEMM) at which eff is half */
    double mem_eff;                   /* achieved fraction of HBM bandwidth */
    double kernel_launch_s;           /* CPU launch cost per kernel (floor per pass) */
    double optimizer_bytes_per_param; /* bytes moved by the Adam step */
    double attn_eff;        /* fused attention forward: asymptotic fraction of matrix peak */
    double attn_half_gflop; /* forward kernel size (GFLOP) at half attn_eff; 0: flat */
    double attn_bwd_eff;    /* fused attention backward: asymptotic fraction (default attn_eff) */
    double attn_bwd_half_gflop; /* backward kernel size at half attn_bwd_eff; 0: flat */
} culonx_perf_params;

#define CULONX_MAX_TIERS 2

typedef struct {
    char name[64];
    culonx_gpu gpu;
    int64_t gpus_per_node;
    int ntiers;
    culonx_net_tier tier[CULONX_MAX_TIERS];
    culonx_perf_params perf;
    double node_overhead_w; /* CPU, NIC, fans per node (0 if unknown) */
    double pue;             /* facility power usage effectiveness (1 = none) */
    /* host memory tier (<host>, for execution.offload): host memory per
     * node and the host<->GPU bandwidth per GPU, one direction (PCIe, C2C);
     * 0 = not given (offload then refused) */
    double host_mem_gib;
    double host_bw_gbps;
} culonx_system;

/* -------------------------------------------------------------- execution */

typedef enum {
    CULONX_RECOMPUTE_NONE = 0,
    CULONX_RECOMPUTE_SELECTIVE = 1,
    CULONX_RECOMPUTE_FULL = 2,
} culonx_recompute;

/* Attention kernel (models/README.md, "Attention kernels"): flash is the
 * fused FlashAttention kernel (no s x s scores in HBM, causal and window
 * blocks skipped, scores recomputed in backward); naive materialises the
 * scores (Megatron-LM before FlashAttention: SC'21, Korthikanti et al.). */
typedef enum { CULONX_ATTENTION_FLASH = 0, CULONX_ATTENTION_NAIVE = 1 } culonx_attention;

/* TP communication overlap (Megatron --tp-comm-overlap, Transformer Engine
 * userbuffers; core/README.md, "TP overlap"): none (blocking collectives),
 * pipe (GEMM split in chunks, the collective of one chunk hidden behind the
 * next chunk's GEMM) or ring (the collective as tp - 1 ring p2p steps, each
 * hidden behind one GEMM slice). Needs sequence parallelism. */
typedef enum {
    CULONX_TP_OVERLAP_NONE = 0,
    CULONX_TP_OVERLAP_PIPE = 1,
    CULONX_TP_OVERLAP_RING = 2,
} culonx_tp_overlap;

/* ZeRO-3 implementation (core/eval/shard.c, "Implementations"): PyTorch
 * FSDP (hierarchical gathers, one backward gather) or DeepSpeed ZeRO-3
 * (flat rings, the recomputed forward gathers again). */
typedef enum { CULONX_ZERO_IMPL_FSDP = 0, CULONX_ZERO_IMPL_DEEPSPEED = 1 } culonx_zero_impl;
/* Expert all-to-all overlap (core/README.md, "Experts"): none = blocking;
 * shared = the dispatch runs beside the shared experts' gate+up and SwiGLU,
 * the combine beside their down projection (Megatron-Core
 * --moe-shared-expert-overlap); pipe = a MoE layer's all-to-alls of one
 * microbatch run beside the same layer's compute of another (DualPipe's
 * forward/backward chunk pairs; Megatron-Core's EP all-to-all overlap). */
typedef enum {
    CULONX_A2A_OVERLAP_NONE = 0,
    CULONX_A2A_OVERLAP_SHARED = 1,
    CULONX_A2A_OVERLAP_PIPE = 2,
} culonx_a2a_overlap;

typedef enum { CULONX_DTYPE_FP16 = 0, CULONX_DTYPE_BF16 = 1, CULONX_DTYPE_FP8 = 2 } culonx_dtype;

/* Pipeline schedules; names in culonx_schedule_name(). */
typedef enum {
    CULONX_SCHED_GPIPE = 0,
    CULONX_SCHED_1F1B,
    CULONX_SCHED_INTERLEAVED,
    CULONX_SCHED_ZB_H1,
    CULONX_SCHED_ZB_H2,
    CULONX_SCHED_ZB_V,
    CULONX_SCHED_DUALPIPE_V,
    /* a schedule added to schedules/list.h takes the next id: see
     * culonx_schedule_count() and culonx_schedule_parse() */
} culonx_schedule;

/* Room for schedule ids in caller arrays (ids are < culonx_schedule_count()
 * <= CULONX_SCHED_MAX). */
#define CULONX_SCHED_MAX 32

typedef struct {
    int64_t gpus;
    int64_t tp, pp, dp, vp;
    int64_t microbatch;
    int64_t global_batch;
    culonx_recompute recompute;
    int sequence_parallel;
    culonx_schedule schedule;
    int distributed_optimizer;
    culonx_dtype dtype;
    int dp_overlap;
    double tokens;    /* training budget in tokens, 0 = none */
    double clock_mhz; /* SM clock; 0 = the GPU's max */
    culonx_attention attention;
    culonx_tp_overlap tp_overlap;
    /* distributed optimizer: the parameter all-gather runs behind the next
     * iteration's first forward (Megatron --overlap-param-gather) */
    int param_gather_overlap;
    /* context parallelism: the sequence split over cp ranks, ring attention
     * (core/README.md, "Context parallelism"); 0 or 1 = none */
    int64_t cp;
    /* Uneven pipeline stages (Megatron --decoder-first/last-pipeline-num-layers,
     * --account-for-embedding/loss-in-pipeline-split): layers of the first
     * and last virtual stage (0 = even split), or the embedding / the loss
     * counted as one layer slot of the first / last stage. */
    int64_t first_stage_layers, last_stage_layers;
    int embedding_in_split, loss_in_split;
    /* Expert parallelism (MoE models; core/README.md, "Experts"): experts
     * split over ep ranks, each expert over etp ranks; ep x etp ranks are
     * carved out of the tp x cp x dp ranks of a stage (Megatron's expert
     * groups), so the GPU count stays tp*cp*pp*dp. 0 or 1 = none. The
     * capacity factor is the load of the busiest expert rank over the mean
     * (1 = balanced; 0 counts as 1). */
    int64_t ep, etp;
    double capacity_factor;
    /* ZeRO stage (core/README.md, "Sharding"): 0 none, 1 optimizer state
     * sharded (= distributed_optimizer, its alias: the loader keeps
     * distributed_optimizer == (zero >= 1)), 2 also gradients, 3 also
     * parameters (FSDP FULL_SHARD: per-layer parameter all-gather in forward
     * and backward, gradient reduce-scatter). Runs built in code may leave
     * it 0 and set distributed_optimizer: the stage is then 1. */
    int zero;
    /* HSDP: shard within groups of this many DP ranks (x cp), replicate
     * across dp / shard_group groups; 0 = all of dp (FULL_SHARD) */
    int64_t shard_group;
    /* offload to host memory (core/README.md, "Offload"): CULONX_OFFLOAD_* bits */
    int offload;
    /* ZeRO-3 implementation (core/eval/shard.c): fsdp or deepspeed */
    culonx_zero_impl zero_impl;
    /* all-to-all overlap with computation, and node-limited routing: each
     * token's experts lie on at most route_nodes nodes of the ep group, its
     * hidden state crosses to each such node once (DeepSeek-V3); 0 = unlimited
     * (core/README.md, "Experts") */
    culonx_a2a_overlap a2a_overlap;
    int64_t route_nodes;
} culonx_execution;

/* execution.offload bits (Calculon's weight, activation, optimizer offload) */
enum {
    CULONX_OFFLOAD_WEIGHTS = 1,
    CULONX_OFFLOAD_ACTIVATIONS = 2,
    CULONX_OFFLOAD_OPTIMIZER = 4,
};

/* A serving setup (<serving>, core/eval/serve.c): one instance of tp x pp
 * GPUs decoding `batch` sequences of input_tokens prompt tokens and
 * output_tokens generated tokens each. SLOs of 0 are not checked. */
typedef struct {
    int64_t tp, pp, batch;
    int64_t input_tokens, output_tokens;
    culonx_dtype dtype;       /* weights and activations (bf16 default, fp8) */
    culonx_dtype kv_dtype;    /* KV cache elements (default: dtype) */
    int kv_dtype_given;       /* kv-dtype was set (else it follows dtype) */
    double load_tokens_per_s; /* output tokens/s the fleet serves (--plan) */
    double ttft_slo_s;        /* time to first token limit (0: none) */
    double tpot_slo_s;        /* time per output token limit (0: none) */
} culonx_serving;

/* Where a section of a run came from: file and line of its XML element,
 * "--set" and 0 after an override, empty and 0 for runs built in code. */
typedef struct {
    char file[512];
    int line;
} culonx_origin;

typedef struct {
    char path[512]; /* the run file, for messages */
    culonx_model model;
    culonx_system system;
    culonx_execution exec;
    /* Filled by the config loader (core/input/config.c); zero for runs built in
     * code. Used by culonx_run_check to point messages at the element. */
    culonx_origin model_at, system_at, gpu_at, power_at, network_at, perf_at, exec_at;
    culonx_origin tier_at[CULONX_MAX_TIERS];
    int dp_derived;       /* execution.dp was omitted: dp = gpus/(tp*pp) */
    int gpus_derived;     /* execution.gpus was omitted: gpus = tp*pp*dp */
    int gpus_set, dp_set; /* given by --set: when both are, neither is derived */
    /* Internal, no XML option yet: layers of each virtual stage in model
     * order (pp x chunks entries, >= 0, adding up to model.layers), owned by
     * the caller; NULL: the even split layers / (pp x chunks). */
    const int64_t *vstage_layers;
    int n_vstage_layers;
    /* <serving> (core/eval/serve.c): has_serving when given; serving_only
     * when the run has no <execution> (exec is then derived from it: tp, pp,
     * microbatch = global-batch = batch, dp 1) */
    int has_serving, serving_only;
    culonx_serving serving;
    culonx_origin serving_at;
} culonx_run;

/* ------------------------------------------------------------- config I/O */

/* ----------------------------------------------------------------- result */

typedef struct {
    double forward_s;   /* compute of forward passes on the critical path */
    double backward_s;  /* compute of backward passes (B + W) */
    double recompute_s; /* recomputed forward work */
    double tp_comm_s;   /* exposed tensor-parallel collectives */
    double ep_comm_s;   /* expert all-to-all (dispatch and combine) and etp collectives */
    double pp_comm_s;   /* exposed pipeline p2p */
    double dp_comm_s;   /* exposed data-parallel gradient sync */
    double bubble_s;    /* pipeline fill/drain idle time */
    double optimizer_s; /* optimizer step */
    /* exposed ZeRO-2/3 (FSDP) communication inside the passes: per-layer
     * parameter all-gathers and gradient reduce-scatters that prefetch did
     * not hide (core/README.md, "Sharding"); 0 for zero <= 1 */
    double shard_comm_s;
    /* exposed host<->GPU offload traffic (core/README.md, "Offload") */
    double offload_s;
} culonx_time_breakdown;

typedef struct {
    double weights_bytes;
    double gradients_bytes;
    double optimizer_bytes;
    double activations_bytes; /* in flight at the peak, for the schedule */
    double workspace_bytes;   /* working buffers: see core/eval/closed.c */
    double expert_bytes;      /* routed experts' weights + grads + optimizer (in the above) */
    double peak_bytes;
    double capacity_bytes;
    int fits;
    /* ZeRO-3: unsharded parameter and gradient working copies in flight
     * (a part of workspace_bytes; core/README.md, "Sharding") */
    double gathered_bytes;
    /* offload: bytes this GPU keeps in host memory, and its share of the
     * node's host memory; fits also needs host_bytes <= host_capacity */
    double host_bytes;
    double host_capacity_bytes;
} culonx_memory;

typedef struct {
    double compute_j;  /* GPU power while computing, over all GPUs */
    double idle_j;     /* GPU idle in bubbles / blocked in communication */
    double hbm_j;      /* part of compute_j attributable to HBM traffic */
    double network_j;  /* bits moved x pJ/bit, all tiers */
    double overhead_j; /* node overhead (CPU, NIC, fans) */
    double facility_j; /* (PUE - 1) x everything else */
    double total_j;
} culonx_energy;

typedef struct {
    double params;         /* total model parameters */
    double active_params;  /* used per token (MoE: k of E routed experts); = params if dense */
    double params_per_gpu; /* held by the most loaded GPU */
    double iteration_time_s;
    culonx_time_breakdown breakdown;
    culonx_memory memory;
    double model_flops;    /* per iteration, whole cluster, no recompute */
    double hardware_flops; /* per iteration, including recompute */
    double mfu, hfu;
    double tokens_per_s;
    double clock_mhz;
    culonx_energy energy; /* per iteration */
    double avg_power_w;   /* per GPU, averaged over the iteration */
    /* board power limit (the GPU's tdp-w; core/eval/power_cap.c): when a
     * pass would draw more at the requested clock it runs at the highest
     * clock that fits. power_capped_passes: part-passes (F, B, W, R of a
     * layer kind, the embedding or the head) slowed; all 0 when none was */
    double power_limit_w;
    int power_capped_passes;
    double power_capped_min_mhz; /* the lowest clock a capped pass ran at */
    double power_capped_s;       /* compute time the cap added per iteration, busiest stage */
    /* with a token budget (exec.tokens > 0) */
    double iterations;
    double time_to_train_s;
    double gpu_hours;
    double energy_to_train_j;
    /* ZeRO-2/3 and offload side traffic of the bottleneck stage per
     * iteration, hidden or not (its exposed part: breakdown.shard_comm_s,
     * offload_s) */
    double side_traffic_s;
    /* pipeline shape */
    double bubble_fraction;
    int64_t microbatches; /* m per pipeline per iteration */
} culonx_result;

/* One schedule of culonx_schedules_compare. */
typedef struct {
    culonx_schedule schedule;
    int64_t vp;    /* interleaving used */
    int supported; /* 0: why says why not */
    char why[1024];
    culonx_result result;
    double p2p_bytes; /* sent per iteration by the busiest stage's GPU */
} culonx_schedule_row;

/* One run at every clock of [min, max] by step (0 = the GPU's own range):
 * rows are malloc'd (free them), with the minimum-energy and minimum
 * energy-delay-product clocks and the time-energy Pareto frontier marked. */
typedef struct {
    double clock_mhz;
    culonx_result result;
    double tokens_per_j;
    double edp_js; /* energy x delay */
    int min_energy, min_edp, pareto;
} culonx_clock_row;

/* ---- Serving (core/eval/serve.c) ---- */

/* One serving instance (the run's <serving>) at one SM clock. Per instance
 * of tp x pp GPUs; memory per GPU; energies of the whole instance. */
typedef struct {
    double clock_mhz;
    int64_t gpus;          /* tp x pp */
    double ttft_s;         /* prefill of one prompt: time to first token */
    double tpot_s;         /* one decode step of the batch (mean context) */
    double tpot_mem_s;     /* of which HBM-bound op time */
    double tpot_compute_s; /* of which compute-bound op time */
    double tpot_comm_s;    /* of which TP collectives and pipeline sends */
    double tokens_per_s;   /* output tokens/s of the instance */
    double prefill_j;      /* one prompt, all GPUs of the instance */
    double decode_step_j;  /* one decode step of the batch */
    double energy_j_per_request, energy_j_per_token;
    double power_w;      /* average per GPU while serving */
    double idle_power_w; /* per GPU, powered at this clock with no work */
    double weights_bytes, kv_bytes, workspace_bytes, peak_bytes, capacity_bytes; /* per GPU */
    double kv_bytes_per_token;                                                   /* whole model */
    int64_t max_batch; /* largest batch whose KV cache fits (0: weights alone do not) */
    int fits, ttft_ok, tpot_ok, slo_ok; /* slo_ok: fits and both SLOs hold */
    int min_energy; /* least energy per token among the rows that meet the SLOs */
} culonx_serve_row;

#define CULONX_SERVE_MAX_POOLS 16

/* One pool of a serving plan: `instances` instances of tp x pp GPUs at one
 * clock, serving load_tokens_per_s output tokens/s between them. */
typedef struct {
    int64_t tp, instances;
    double clock_mhz;
    double load_tokens_per_s;
    double power_w; /* the pool's GPUs, busy and idle */
    culonx_serve_row row;
} culonx_serve_pool;

/* DynamoLLM's problem for one request class (culonx_serve_plan): pools of
 * each TP degree, each at one clock, minimising the power of the N GPUs at
 * the given load subject to the SLOs, compared with every GPU in TP-max
 * instances at the maximum clock. */
typedef struct {
    int64_t gpus;
    double load_tokens_per_s;
    int feasible; /* some plan serves the load within the SLOs */
    int npools;
    culonx_serve_pool pool[CULONX_SERVE_MAX_POOLS];
    double power_w; /* all N GPUs (unused ones idle at the lowest clock) */
    double energy_j_per_token;
    int baseline_feasible;
    int64_t baseline_tp, baseline_instances;
    double baseline_clock_mhz, baseline_power_w, baseline_energy_j_per_token;
    double saving; /* 1 - power / baseline power (0 when either is infeasible) */
    int ntp;       /* TP degrees considered */
    int64_t tp[CULONX_SERVE_MAX_POOLS];
    int nclocks;
    uint64_t evaluated; /* (counts, clocks) combinations solved */
} culonx_serve_plan;

/* ---- clock plans on the iteration DAG (core/eval/plan.c) ---- */

typedef struct {
    double target_time_s;    /* plan to report: 0 = the fastest (intrinsic bloat) */
    double straggler;        /* > 1: one DP replica's pipeline is that much slower */
    int exact;               /* 1: exact (cuts; with points > 0: at those points) */
    int points;              /* fast engine: frontier times (0 = 25) */
    double power_limit_w;    /* > 0: every pass at its highest clock within this GPU power */
    double carbon_g_per_kwh; /* > 0: emissions of the chosen plan's training budget */
    int bound; /* >= 1: a lower bound on the chosen point's energy (LP dual); its widening
                * rounds may scan bound x 4e8 arcs (core/README.md, "Clock plans") */
    /* exact with points > 0: cuts allowed per point (0 = until the optimum); where spent,
     * the point is the improved plan, not certified (an upper bound on the optimum) */
    long exact_steps;
} culonx_plan_options;

/* A point of the time-energy frontier (whole cluster, one iteration). */
typedef struct {
    double iteration_time_s;
    double energy_j;          /* total, facility included */
    double saving_vs_max_j;   /* all-max-clock energy at this time minus energy_j */
    double uniform_energy_j;  /* best single clock as fast or faster (0 if none) */
    double uniform_clock_mhz; /* that clock (0 if none) */
} culonx_plan_point;

/* Clocks of one stage and phase (F, B, W, BW, R, optimizer) in the chosen
 * plan: time-weighted mean, lowest and highest over its passes. */
typedef struct {
    int stage;
    char phase[12];
    int passes;
    double mean_clock_mhz, min_clock_mhz, max_clock_mhz;
    double time_s; /* busy time of the phase on the stage */
} culonx_plan_clock;

/* culonx_plan's result; malloc'd arrays, free with culonx_plan_result_free. */
typedef struct {
    double min_time_s;           /* all computations at max clock = estimate's time */
    double max_time_s;           /* all at their least-energy clock */
    double max_clock_energy_j;   /* every pass at max clock, at min_time_s */
    double intrinsic_bloat_j;    /* max_clock_energy_j - frontier energy at min_time_s */
    culonx_plan_point *frontier; /* breakpoints, fastest first, monotone */
    int npoints;
    double plan_time_s, plan_energy_j; /* the chosen point */
    /* options.bound: no plan at plan_time_s uses less than plan_bound_j (a lower bound by
     * LP duality, core/eval/plan_cut.c); plan_certified 1: from the dual
     * flow of the plan's critical subgraph (KKT: the plan is optimal), 4: that
     * flow with its bounds widened on its minimum cuts, 2: widened and then
     * overflowing its upper bounds (the widening's work budget spent), 3: a
     * maximum flow of the critical subgraph, 0: the trivial bound (every pass
     * at its cheapest clock) */
    double plan_bound_j;
    int plan_certified;
    culonx_plan_clock *clocks; /* per stage and phase at the chosen point */
    int nclocks;
    int64_t nodes;   /* DAG nodes */
    int64_t cuts;    /* minimum cuts solved */
    int hull_clocks; /* clock steps the curves were built from */
    /* exact with points > 0 and exact_steps > 0: frontier times whose cut
     * descent ran out of steps (improved plans, not certified optima) */
    int uncertified_points;
    /* straggler (options.straggler > 1) */
    double straggler_time_s;   /* iteration time set by the slow replica */
    double straggler_saving_j; /* energy the other replicas save by planning */
    /* power limit (options.power_limit_w > 0): each pass at the highest clock
     * whose power stays within the limit (a GPU's power cap, as Zeus sets it) */
    double power_limit_w;
    double limit_time_s, limit_energy_j;             /* iteration under the limit */
    double limit_min_clock_mhz, limit_max_clock_mhz; /* clocks the passes run at */
    int limit_unmet; /* passes over the limit even at the lowest clock */
    /* per token and over the run's token budget (iterations 0: no budget) */
    double tokens_per_iteration, iterations;
    double carbon_g_per_kwh; /* the option, echoed */
} culonx_plan_result;

/* ---- DVFS calibration and prediction (core/input/dvfs.c, hw/power.c, hw/calibrate.c) ---- */

/* One row of a DVFS clock-table CSV (a clock sweep of microbenchmarks; not a
 * parallelism sweep) (columns gpu,benchmark,kernel,input,core_mhz,
 * mem_mhz,time_ms,power_w,sm_active,sm_occupancy,dram_active,fp16_active,
 * fp32_active,fp64_active,tensor_active). Empty counter cells load as NaN;
 * time and power must be present and non-negative. */
typedef struct {
    char gpu[32];
    char benchmark[64]; /* the benchmark family */
    char kernel[64];
    char input[32];
    int line; /* line in the CSV, for messages */
    double core_mhz, mem_mhz, time_ms, power_w;
    double sm_active, sm_occupancy, dram_active;
    double fp16_active, fp32_active, fp64_active, tensor_active;
} culonx_dvfs_row;

typedef struct {
    char path[512];
    size_t nrows;
    culonx_dvfs_row *rows;
} culonx_dvfs_table;

#define CULONX_DVFS_MAX_CLOCKS 32
#define CULONX_DVFS_POWER_TERMS 6

/* A calibrated DVFS model of one GPU: the power model plus the per-clock time
 * scaling fitted on a clock table. With nclocks == 0 only the power model's
 * t(f) = t_mem + t_compute*(f_max/f)^time_exp applies. The time of a kernel
 * profiled at f0 is t(f) = t0 * R(f)/R(f0) with
 *   R(f) = (1 - c) * max(mem_scale(f) + mem_power_scale(f) * P0 / 100 W
 *                         + mem_fp_scale(f) * u,  compute_scale(f) * u)
 *          + c * compute_scale(f),
 *   c    = 1 - clamp((dram_active - split_dram_lo)/(split_dram_hi - split_dram_lo), 0, 1)
 * (the compute fraction, from the profiled DRAM activity; P0 the profiled
 * board power, the measured proxy of the core work per byte that limits
 * memory-bound work at low clocks; u the profiled FP16+FP32+FP64+tensor
 * activity, clamped to 1: the arithmetic a memory-bound kernel issues at the
 * SM clock, which it cannot finish faster than compute-bound work would,
 * hw/README.md "DVFS power"); the scales
 * are interpolated linearly between the table's clocks. */
typedef struct {
    culonx_power_model power;
    char gpu[32];
    double max_mhz; /* f_max the model is normalised to */
    int nclocks;
    double clock_mhz[CULONX_DVFS_MAX_CLOCKS];     /* ascending */
    double mem_scale[CULONX_DVFS_MAX_CLOCKS];     /* time factor of memory-bound work */
    double compute_scale[CULONX_DVFS_MAX_CLOCKS]; /* time factor of compute-bound work */
    /* extra time factor of memory-bound work per 100 W of profiled power
     * (all 0: none, as in models written before it existed) */
    double mem_power_scale[CULONX_DVFS_MAX_CLOCKS];
    /* extra time factor of memory-bound work per unit of profiled FP +
     * tensor activity (all 0: none, as in models written before it existed) */
    double mem_fp_scale[CULONX_DVFS_MAX_CLOCKS];
    double split_dram_lo, split_dram_hi;
    /* Per-clock power-ratio tables (power_terms == 0: none; then the power
     * model anchored to the profiled power is used). At clock f the power of
     * a kernel profiled at f0 with power P0 is P0 * G(f)/G(f0),
     *   G(f) = sum_k power_ratio[j][k] * phi_k   (interpolated in f),
     *   phi  = (1, s, d/R, s*d/R, u/R, s*u/R),  s = 100 W / P0,
     * d = profiled DRAM activity, u = FP16+FP32+FP64+tensor activity and
     * R = t(f)/t(f0) the predicted time ratio; at f0 itself the profile is
     * returned unchanged. */
    int power_terms;
    double power_ratio[CULONX_DVFS_MAX_CLOCKS][CULONX_DVFS_POWER_TERMS];
} culonx_dvfs_model;

/* Quality of a calibration on the rows it was fitted to. Errors are mean
 * absolute relative errors (fractions, not %). time/energy errors are of
 * "profile once" predictions from each kernel's highest-clock row. */
typedef struct {
    size_t nrows, nkernels;
    double power_r2; /* R^2 of power over all rows (counters at each clock) */
    double time_r2;  /* R^2 of predicted/measured time ratio over all rows */
    int nclocks;
    double clock_mhz[CULONX_DVFS_MAX_CLOCKS];
    double power_mape[CULONX_DVFS_MAX_CLOCKS]; /* power model with measured counters */
    double time_mape[CULONX_DVFS_MAX_CLOCKS];
    double energy_mape[CULONX_DVFS_MAX_CLOCKS];
} culonx_power_fit;

/* One predicted point: kernel `profile_index` of the profile at a clock. */
typedef struct {
    size_t profile_index;
    double core_mhz, time_ms, power_w, energy_millijoules;
} culonx_dvfs_point;

/* ---- Sweeps (core/search/sweep.c) ---- */

/* A sweep enumerates executions of one model on one system (a mixed-radix
 * product of value lists, one per dimension, outermost first as listed in
 * culonx_sweep_dim), evaluates each valid one in closed form, and keeps the
 * top K by an objective, the Pareto frontier and per-reason reject counts.
 * Candidates are numbered by their position in the product (the enumeration
 * index); ties always break by index, so results are identical for any
 * thread or MPI rank count. See core/search/sweep.c for the rules. */

typedef enum {
    CULONX_SWEEP_GPUS = 0,
    CULONX_SWEEP_GLOBAL_BATCH,
    CULONX_SWEEP_TP,
    CULONX_SWEEP_PP,
    CULONX_SWEEP_SCHEDULE, /* values: culonx_schedule ids */
    CULONX_SWEEP_VP,       /* chunks per stage for the interleaved schedule */
    CULONX_SWEEP_MICROBATCH,
    CULONX_SWEEP_RECOMPUTE,   /* values: culonx_recompute */
    CULONX_SWEEP_SP,          /* 0 off, 1 on */
    CULONX_SWEEP_CLOCK,       /* SM clock in MHz */
    CULONX_SWEEP_DIST_OPT,    /* 0 off, 1 on */
    CULONX_SWEEP_DP_OVERLAP,  /* 0 off, 1 on */
    CULONX_SWEEP_CP,          /* context-parallel degree */
    CULONX_SWEEP_ATTENTION,   /* values: culonx_attention */
    CULONX_SWEEP_TP_OVERLAP,  /* values: culonx_tp_overlap */
    CULONX_SWEEP_ZERO,        /* ZeRO stage 0-3 (0: distributed optimizer decides) */
    CULONX_SWEEP_SHARD_GROUP, /* HSDP shard group (0: all of dp) */
    CULONX_SWEEP_OFFLOAD,     /* CULONX_OFFLOAD_* bits */
    CULONX_SWEEP_EP,          /* expert-parallel degree (MoE) */
    CULONX_SWEEP_ETP,         /* tensor parallelism inside the experts */
    CULONX_SWEEP_NDIMS
} culonx_sweep_dim;

typedef enum {
    CULONX_OBJECTIVE_TIME = 0,     /* minimise time per token (= iteration time at one batch) */
    CULONX_OBJECTIVE_ENERGY,       /* minimise energy per token (needs the power model) */
    CULONX_OBJECTIVE_TOKENS_PER_J, /* maximise tokens per joule (needs the power model) */
    CULONX_OBJECTIVE_GPU_HOURS,    /* minimise GPU-time per token (GPU-hours to train) */
} culonx_objective;

/* Why an execution is not valid, or a candidate was not evaluated or not
 * feasible: the one reject vocabulary of the execution check (core/layout/rules.c:
 * the loader, `schedules`), the schedules' own rules and the sweep. */
typedef enum {
    CULONX_REJECT_NONE = -1,              /* no rule broken */
    CULONX_REJECT_GLOBAL_BATCH_RANGE = 0, /* outside --min/--max-global-batch */
    CULONX_REJECT_TP_NODE,            /* tp does not divide gpus-per-node (nor a multiple of it) */
    CULONX_REJECT_TP_ACROSS,          /* tp > gpus-per-node without --tp-across-nodes */
    CULONX_REJECT_HEADS_TP,           /* heads % tp */
    CULONX_REJECT_KV_HEADS_TP,        /* kv-heads % tp */
    CULONX_REJECT_FFN_TP,             /* ffn % tp */
    CULONX_REJECT_LAYERS_PP,          /* layers % pp */
    CULONX_REJECT_GPUS_TP_PP,         /* gpus % (tp*cp*pp) */
    CULONX_REJECT_PP1_CHUNKS,         /* multi-chunk schedule (vp > 1, V-shape) with pp = 1 */
    CULONX_REJECT_LAYERS_PP_VP,       /* layers % (pp*vp) */
    CULONX_REJECT_LAYERS_2PP,         /* V-shaped schedule: layers % (2*pp) */
    CULONX_REJECT_STAGES,             /* more stages than the model holds */
    CULONX_REJECT_BATCH_MB_DP,        /* global batch % (microbatch*dp) */
    CULONX_REJECT_SCHED_MICROBATCHES, /* fewer microbatches than the schedule needs */
    CULONX_REJECT_DUP_SCHEDULE,       /* pp = 1: every schedule is the same execution */
    CULONX_REJECT_DUP_SP,             /* tp = 1: sequence parallel changes nothing */
    CULONX_REJECT_DUP_DIST_OPT,       /* dp = 1: distributed optimizer changes nothing */
    CULONX_REJECT_DUP_DP_OVERLAP,     /* dp = 1: nothing to overlap */
    CULONX_REJECT_CP,                 /* cp > 1: seq % (2*cp), heads, or naive attention */
    CULONX_REJECT_TP_OVERLAP_SP,      /* tp-overlap without sequence parallelism */
    CULONX_REJECT_SHARD_GROUP,        /* shard-group with zero 0, or not dividing dp */
    CULONX_REJECT_DUP_ZERO,           /* duplicate: shard-group = dp, dist-opt beside zero >= 1 */
    CULONX_REJECT_OFFLOAD_HOST,       /* offload on a system without <host> */
    CULONX_REJECT_EVAL,               /* the evaluator refused it */
    CULONX_REJECT_MEMORY,             /* does not fit in memory (evaluated) */
    CULONX_REJECT_POWER_CAP,          /* facility power over --power-cap-mw (evaluated) */
    CULONX_REJECT_EP,       /* experts % ep, expert-ffn % etp, tp*cp*dp % (ep*etp), shared % tp */
    CULONX_REJECT_MOE_SP,   /* a MoE model with tp > 1 without sequence parallelism */
    CULONX_REJECT_MOE_ZERO, /* ZeRO-2/3 with a MoE model (not modelled) */
    CULONX_REJECT_COUNT,    /* reasons a sweep counts (its space holds no others) */
    /* only an execution given in full breaks these (dp is derived and vp
     * only varies for schedules that take it in a sweep) */
    CULONX_REJECT_VP_SCHEDULE = CULONX_REJECT_COUNT, /* vp > 1, schedule takes none */
    CULONX_REJECT_GPUS_DEGREES,                      /* gpus != tp*pp*dp */
    CULONX_REJECT_UNEVEN_SPLIT, /* first/last stage layers or slots leave no even middle */
    CULONX_REJECT_CP_SEQ,       /* seq % (2*cp) (causal load balance) or naive attention */
    CULONX_REJECT_ALL_COUNT
} culonx_sweep_reject;

#define CULONX_SWEEP_MAX_VALUES 1024

typedef struct {
    int n; /* 0: the default for the dimension */
    int64_t v[CULONX_SWEEP_MAX_VALUES];
} culonx_sweep_list;

typedef struct {
    culonx_sweep_list list[CULONX_SWEEP_NDIMS];
    int tp_across_nodes;      /* default tp list adds multiples of gpus-per-node */
    int64_t max_microbatch;   /* default microbatch list 1,2,4.. up to this (64) */
    int64_t min_global_batch; /* 0: none */
    int64_t max_global_batch; /* 0: none */
    double max_memory_gib;    /* 0: the GPU's capacity */
    double power_cap_w;       /* 0: none; facility power (energy / time) at most this */
    culonx_objective objective;
    int top_k;    /* 0: 10 */
    int threads;  /* 0: online cores */
    int verify_k; /* re-evaluate the top K with the graph engine */
    /* 1: evaluate every candidate exactly (no pruning by lower bounds; see
     * core/search/sweep.c). Pruning is also off with `all`. Results are the same. */
    int no_prune;
    /* Every evaluated row (CSV, or JSON lines when all_jsonl) in index order,
     * written while the sweep runs. NULL: none. */
    FILE *all;
    int all_jsonl;
    /* Called now and then from the calling thread (rank 0 under MPI). */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
} culonx_sweep_spec;

typedef struct {
    uint64_t index; /* enumeration index */
    culonx_execution exec;
    culonx_result res;
    double objective; /* lower is better (tokens-per-joule is negated) */
} culonx_sweep_entry;

typedef struct {
    int is_root;            /* 0 on MPI ranks other than 0: nothing to report */
    culonx_run run;         /* the base run */
    culonx_sweep_spec spec; /* with defaults filled in (all, progress cleared) */
    uint64_t enumerated, evaluated, feasible;
    /* feasible candidates not evaluated exactly because lower bounds prove
     * they can enter neither the top K nor the Pareto frontier (counted in
     * feasible: their peak memory is exact); pruning_on: pruning was used */
    uint64_t pruned;
    int pruning_on;
    uint64_t rejected[CULONX_REJECT_COUNT];
    int energy_available; /* the power model gives nonzero energy */
    double memory_limit_bytes;
    int ntop;
    culonx_sweep_entry *top; /* best first */
    int nfront;
    culonx_sweep_entry *front; /* Pareto frontier, by time then index */
    int verify_status;         /* culonx_status of --verify */
    int nverified;
    culonx_result *verified; /* graph-engine results of top[0..nverified-1] */
} culonx_sweep_result;

/* Options of a Chrome trace (core/output/trace.c). */
typedef struct {
    int op_level;       /* 0: a node per chunk and microbatch; 1: a node per op */
    int64_t max_events; /* keep the earliest events only (0: all) */
    /* > 0: trace the clock plan at this iteration time (s; the nearest point
     * of the frontier, culonx_plan): stage level only, each event's clock in
     * its args, the power track at the plan's clocks. Chrome trace only. */
    double plan_time_s;
} culonx_trace_options;

/* What a trace holds once written. */
typedef struct {
    int64_t events;  /* complete ("X") events written */
    int64_t dropped; /* events left out by max_events */
    int64_t flows;   /* p2p flow arrows */
    int64_t bytes;   /* uncompressed JSON size */
} culonx_trace_info;

#ifdef __cplusplus
}
#endif
#endif /* CULONX_TYPES_H */
