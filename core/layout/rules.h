/*
 * check.h — the execution check: the rules an execution must satisfy
 * before it is evaluated, as predicates returning the first broken rule in
 * the reject vocabulary of culonx.h (culonx_sweep_reject), or
 * CULONX_REJECT_NONE. The schedule's own rules come from its descriptor
 * (schedules/sched.h, supports); the degrees from the layout
 * (core/layout/layout.h). cx_core_exec_check runs them all in the loader's order
 * (core/input/config.c turns the code into its message); the sweep calls the same
 * predicates one loop level at a time to reject whole subtrees.
 */
#ifndef CX_CORE_CHECK_H
#define CX_CORE_CHECK_H

#include "culonx.h"
#include "core/layout/layout.h"
#include "schedules/sched.h"

/* The degrees fill the GPUs: gpus a multiple of every degree but dp's
 * (GPUS_TP_PP), and their product (GPUS_DEGREES). */
culonx_sweep_reject cx_core_rule_gpus(const cx_layout *l, int64_t gpus);
/* tp divides heads, kv-heads and ffn. */
culonx_sweep_reject cx_core_rule_tp(const culonx_model *md, int64_t tp);
/* The pipeline: the schedule's own rules for shape s (sched.h, supports;
 * m = 0 skips those on m). */
culonx_sweep_reject cx_core_rule_pipeline(const cx_sched_desc *d, const cx_sched_shape *s);
/* The evaluator's capacity, not a validity rule: at most CX_COST_MAX_STAGES
 * stages and CX_COST_MAX_VSTAGES virtual stages (STAGES). The sweep rejects
 * by it before evaluating; cx_core_cost_build refuses the same runs. */
culonx_sweep_reject cx_core_rule_stages(const cx_sched_desc *d, const cx_sched_shape *s);
/* The global batch splits into microbatches over dp: gb % (mb*dp). The
 * callers' ranges (each <= 1e9) keep mb*dp from overflowing. */
culonx_sweep_reject cx_core_rule_batch(int64_t global_batch, int64_t microbatch, int64_t dp);
/* Uneven stages requested (first/last-stage-layers, embedding/loss in split)? */
int cx_core_exec_uneven(const culonx_execution *ex);
/* Layers of each of nvs virtual stages under the uneven keys: the given
 * first/last counts with the rest even over the middle, or (embedding/loss in
 * split) layers + slots divided evenly with the first/last stage one layer
 * lighter per slot. out may be NULL. CULONX_REJECT_UNEVEN_SPLIT when the
 * middle does not divide or nothing is left for it. */
culonx_sweep_reject cx_core_rule_split(int64_t layers, const culonx_execution *ex, int nvs,
                                       int64_t *out);
/* Context parallelism: seq % (2*cp) (two chunks per rank, causal balance)
 * and FlashAttention (ring attention runs on the fused kernel). */
culonx_sweep_reject cx_core_rule_cp(const culonx_model *md, const culonx_execution *ex);
/* Mixture of experts: ep divides experts, etp the expert-ffn, ep*etp the
 * tp*cp*dp ranks of a stage, tp the shared experts' inner size (EP); tp > 1
 * needs sequence parallelism (MOE_SP). Dense models: ep = etp = 1 (EP). */
culonx_sweep_reject cx_core_rule_moe(const culonx_model *md, const culonx_execution *ex);
/* Sharding (core/README.md, "Sharding"): shard-group needs zero >= 1 and
 * must divide dp (R = dp / shard-group HSDP replicas). ZeRO-3 with pp > 1
 * is modelled (each stage gathers its own layers per microbatch), so no
 * rule refuses it. */
culonx_sweep_reject cx_core_rule_shard(const culonx_execution *ex);
/* Offload needs the system's host tier (<host mem-gib bw-gbps>). */
culonx_sweep_reject cx_core_rule_offload(const culonx_execution *ex, const culonx_system *sys);
/* Chunks per stage of d at requested v, v capped as the sweep caps it. */
int cx_core_rule_chunks(const cx_sched_desc *d, int64_t v);

/* The rules above for one execution of model md, in this order: gpus, tp,
 * cp, shard, pipeline (m unknown), batch, pipeline (m); offload needs the
 * system and is checked by the callers; stages are left to the
 * evaluator. Degrees must be >= 1 and the schedule registered (else
 * CULONX_REJECT_EVAL). */
culonx_sweep_reject cx_core_exec_check(const culonx_model *md, const culonx_execution *ex);

#endif
