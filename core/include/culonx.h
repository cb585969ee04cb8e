/*
 * culonx.h — the public API of libculonx (the types are in culonx_types.h).
 *
 * culonx models one training iteration of a transformer language model on a
 * GPU cluster: model (layers, hidden, heads, ...) x system (GPU, network tiers)
 * x execution (TP, PP, DP, schedule, recompute, ...). It predicts time,
 * memory per GPU and energy, in closed form (culonx_estimate) or through a
 * DAG of compute and communication work (culonx_graph_*).
 *
 * Conventions: the library never prints, never exits and never reads argv.
 * Every call that can fail returns a culonx_status and fills a caller-supplied
 * culonx_error with file, line and message. Units are in the names: _s
 * seconds, _bytes, _j joules, _w watts, _mhz, _gbps (GB/s, 1e9 bytes/s),
 * _tflops (1e12 FLOP/s), _gib (2^30 bytes).
 */
#ifndef CULONX_H
#define CULONX_H

#include "culonx_types.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the exported functions: the library is built with
 * -fvisibility=hidden, so only these are visible in libculonx.so. */
#if defined(__GNUC__) || defined(__clang__)
#define CULONX_API __attribute__((visibility("default")))
#else
#define CULONX_API
#endif

/* ------------------------------------------------------------- config I/O */

/* Loads a run file (XML, validated against configs/culonx.xsd), resolving
 * the model and system files it names relative to itself, then applies the
 * overrides ("section.key=value", section = model | system | gpu | power |
 * network | perf | execution; keys are the XML attribute names; network keys
 * name a tier: network.tier0.bw-gbps, network.inter.latency-us, see
 * core/input/config.c) in order and checks the whole run for consistency.
 * `schema_path` may be NULL: the copy of configs/culonx.xsd built into the
 * library is then used. */
CULONX_API culonx_status culonx_run_load(const char *path, const char *const *overrides,
                                         int noverrides, const char *schema_path, culonx_run *run,
                                         culonx_error *err);
/* Loads from a memory buffer (used by the fuzz harness and tests); `name`
 * is used in messages and as the base for relative paths. */
CULONX_API culonx_status culonx_run_load_buffer(const char *name, const char *buf, size_t len,
                                                const char *schema_path, culonx_run *run,
                                                culonx_error *err);
/* Applies one "section.key=value" override to an already loaded run. */
CULONX_API culonx_status culonx_run_set(culonx_run *run, const char *assignment, culonx_error *err);
/* Checks divisibility and ranges of a run (heads % tp, gpus = tp*pp*dp...). */
CULONX_API culonx_status culonx_run_check(const culonx_run *run, culonx_error *err);
/* GPUs an execution's degrees occupy (the product over its layout, e.g.
 * tp*pp*dp; saturating, 0 if a degree is not positive). */
CULONX_API int64_t culonx_execution_gpus(const culonx_execution *e);
/* The candidate nearest to a mistyped word (edit distance at most a third of
 * its length, or the one candidate it is a prefix of), else NULL. */
CULONX_API const char *culonx_did_you_mean(const char *word, const char *const *candidates, int n);
CULONX_API const char *culonx_schedule_name(culonx_schedule s);
/* Returns 0 and sets *out when `name` names a schedule, else -1. */
CULONX_API int culonx_schedule_parse(const char *name, culonx_schedule *out);
/* Number of registered schedules: ids are 0 .. count-1. */
CULONX_API int culonx_schedule_count(void);
CULONX_API const char *culonx_recompute_name(culonx_recompute r);
CULONX_API const char *culonx_dtype_name(culonx_dtype d);
CULONX_API const char *culonx_attention_name(culonx_attention a);
CULONX_API const char *culonx_tp_overlap_name(culonx_tp_overlap t);
CULONX_API const char *culonx_zero_impl_name(culonx_zero_impl z);
/* execution.offload bits as "weights,activations,optimizer" ("none" for 0)
 * into buf; returns buf. */
CULONX_API const char *culonx_offload_names(int offload, char *buf, size_t len);
CULONX_API const char *culonx_a2a_overlap_name(culonx_a2a_overlap a);

/* Converts Calculon's application, execution and system JSON files into a
 * culonx run file written to out (core/input/calculon.c). */
CULONX_API culonx_status culonx_import_calculon(const char *app_json, const char *exe_json,
                                                const char *sys_json, FILE *out, culonx_error *err);

/* ----------------------------------------------------------------- result */

/* Closed-form estimate (fast path). */
CULONX_API culonx_status culonx_estimate(const culonx_run *run, culonx_result *res,
                                         culonx_error *err);
/* The same estimate through the DAG of the iteration (core/eval/walk.c,
 * core/eval/graph_eval.c): stage level (one node per F/B/W per microbatch and chunk) or
 * op level (one node per op of the layer table). */
CULONX_API culonx_status culonx_estimate_graph(const culonx_run *run, int op_level,
                                               culonx_result *res, culonx_error *err);
/* Writes the evaluated iteration DAG as a Chrome trace (Perfetto,
 * chrome://tracing): a process per stage, a thread per stream. */
CULONX_API culonx_status culonx_trace_write(FILE *out, const culonx_run *run, int op_level,
                                            culonx_error *err);
/* The same with options; info (may be NULL) says what was written.
 * Timestamps are integer nanoseconds (start and end rounded, dur = end -
 * start), so back-to-back events never overlap; pipeline p2p dependencies are
 * flow arrows; each stage has counter tracks for power (W) and memory (bytes). */
CULONX_API culonx_status culonx_trace_write_opts(FILE *out, const culonx_run *run,
                                                 const culonx_trace_options *opt,
                                                 culonx_trace_info *info, culonx_error *err);
/* Writes the trace to `path` through a temporary file renamed into place;
 * gzip-compressed (zlib) when the name ends in ".gz". */
CULONX_API culonx_status culonx_trace_save(const char *path, const culonx_run *run,
                                           const culonx_trace_options *opt, culonx_trace_info *info,
                                           culonx_error *err);
/* The iteration DAG as Chakra execution traces for ASTRA-sim
 * (core/output/chakra.c): DIR/culonx.RANK.et, a rank per pipeline stage;
 * DIR is created when missing. info (may be NULL): nodes written (events),
 * send/receive pairs (flows), bytes. CULONX_EUSAGE when built without
 * protobuf-c. */
CULONX_API culonx_status culonx_chakra_write(const char *dir, const culonx_run *run,
                                             const culonx_trace_options *opt,
                                             culonx_trace_info *info, culonx_error *err);
/* Every pipeline schedule side by side for one run (rows has room for
 * CULONX_SCHED_MAX); *best is the fastest that fits, -1 if none. */
CULONX_API culonx_status culonx_schedules_compare(const culonx_run *run, culonx_schedule_row *rows,
                                                  int *nrows, int *best, culonx_error *err);
CULONX_API culonx_status culonx_energy_clocks(const culonx_run *run, double min_mhz, double max_mhz,
                                              double step_mhz, culonx_clock_row **rows, int *nrows,
                                              culonx_error *err);
/* Per-pass clock plans on the iteration DAG (core/eval/plan.c): the exact
 * time-energy frontier from the all-max-clock time to the time at which every
 * pass sits at its least-energy clock, the intrinsic bloat and the plan at
 * opts->target_time_s (opts may be NULL). */
CULONX_API culonx_status culonx_plan(const culonx_run *run, const culonx_plan_options *opts,
                                     culonx_plan_result *res, culonx_error *err);
CULONX_API void culonx_plan_result_free(culonx_plan_result *res); /* NULL-safe */
/* format: "text", "json" or "csv"; npoints: frontier points printed (evenly
 * spaced in time, interpolated on the exact piecewise-linear frontier). */
CULONX_API void culonx_report_plan(FILE *out, const culonx_run *run, const culonx_plan_result *res,
                                   const char *format, int npoints);
/* Human-readable report and JSON of a result. */
CULONX_API void culonx_report_text(FILE *out, const culonx_run *run, const culonx_result *res);
CULONX_API void culonx_report_json(FILE *out, const culonx_run *run, const culonx_result *res);
CULONX_API void culonx_report_schedules(FILE *out, const culonx_run *run,
                                        const culonx_schedule_row *rows, int n, int best, int json);
/* One self-contained HTML page (inline SVG and CSS, no network) of a run:
 * breakdown bars, energy and time versus clock, the pipeline timeline and every
 * schedule side by side (core/output/html_report.c). */
CULONX_API culonx_status culonx_report_html(FILE *out, const culonx_run *run, culonx_error *err);
/* format: "text", "json" or "csv" */
CULONX_API void culonx_report_clocks(FILE *out, const culonx_run *run, const culonx_clock_row *rows,
                                     int n, const char *format);

/* ---- Serving (core/eval/serve.c, core/output/serve_report.c) ---- */
/* The run's <serving> at every clock of [min, max] by step (0: the GPU's
 * own range): prefill (TTFT), decode step (TPOT), throughput, memory, power,
 * energy per request and per token, SLO marks. rows are malloc'd (free).
 * CULONX_EINPUT when the run has no <serving>. */
CULONX_API culonx_status culonx_serve_clocks(const culonx_run *run, double min_mhz, double max_mhz,
                                             double step_mhz, culonx_serve_row **rows, int *nrows,
                                             culonx_error *err);
/* One instance of the run's <serving> with tp replaced by `tp` at one clock
 * (0: max). */
CULONX_API culonx_status culonx_serve_eval(const culonx_run *run, int64_t tp, double clock_mhz,
                                           culonx_serve_row *row, culonx_error *err);
/* DynamoLLM's pool plan on `gpus` GPUs for the run's load and request class
 * over the clocks of [min, max] by step (0: the GPU's range), solved exactly
 * (see core/eval/serve_plan.c). */
CULONX_API culonx_status culonx_serve_plan_solve(const culonx_run *run, int64_t gpus,
                                                 double min_mhz, double max_mhz, double step_mhz,
                                                 culonx_serve_plan *plan, culonx_error *err);
/* format: "text", "json" or "csv" */
CULONX_API void culonx_report_serve(FILE *out, const culonx_run *run, const culonx_serve_row *rows,
                                    int n, const char *format);
CULONX_API void culonx_report_serve_plan(FILE *out, const culonx_run *run,
                                         const culonx_serve_plan *plan, const char *format);

/* ---- DVFS calibration and prediction (core/input/dvfs.c, hw/power.c, hw/calibrate.c) ---- */
/* Loads a DVFS clock-table CSV; bad rows fail with path:line. */
CULONX_API culonx_status culonx_dvfs_csv_load(const char *path, culonx_dvfs_table *out,
                                              culonx_error *err);
/* Parses a DVFS clock-table CSV held in memory; `name` is used in messages. */
CULONX_API culonx_status culonx_dvfs_csv_parse(const char *name, const char *buf, size_t len,
                                               culonx_dvfs_table *out, culonx_error *err);
CULONX_API void culonx_dvfs_table_free(culonx_dvfs_table *s); /* NULL-safe */
/* Keeps, for each (gpu, benchmark, kernel, input), only its highest-clock
 * row: the "profile once" view of a clock table. Order of first appearance. */
CULONX_API culonx_status culonx_dvfs_profile_rows(const culonx_dvfs_table *in,
                                                  culonx_dvfs_table *out, culonx_error *err);
/* Fits the DVFS model of the one GPU in `table` (rows of benchmark family
 * `exclude_family` are left out when non-NULL): power coefficients by
 * non-negative least squares with the knee and voltage ratio found by grid
 * and pattern search; time scaling per clock; power-ratio tables per clock
 * by Huber ridge least squares. `fit` may be NULL. */
CULONX_API culonx_status culonx_power_calibrate(const culonx_dvfs_table *table,
                                                const char *exclude_family,
                                                culonx_dvfs_model *model, culonx_power_fit *fit,
                                                culonx_error *err);
/* Writes `<power const-w=.. static-w=.. knee-mhz=.. v-min=.. v-slope=..
 * tensor-w=.. fp-w=.. sm-w=.. dram-w=.. blocked-w=.. time-exp=..
 * provenance=../>` (plus max-mhz, clocks-mhz, time-mem-scale,
 * time-compute-scale, split-dram when the model has per-clock tables,
 * time-mem-power-scale and time-mem-fp-scale when any of them is non-zero, and power-ratio:
 * CULONX_DVFS_POWER_TERMS numbers per clock, clock-major). */
CULONX_API culonx_status culonx_power_write_xml(FILE *out, const culonx_dvfs_model *model,
                                                const char *comment, culonx_error *err);
/* Reads such a file (root element <power>); no network, no entities. */
CULONX_API culonx_status culonx_power_read_xml(const char *path, culonx_dvfs_model *model,
                                               culonx_error *err);
/* Predicts time, power and energy of every profile row at every clock
 * ("profile once, model everywhere"); out holds nprofile*nclocks points,
 * profile-major. */
CULONX_API culonx_status culonx_dvfs_predict(const culonx_dvfs_model *model,
                                             const culonx_dvfs_row *profile, size_t nprofile,
                                             const double *clocks_mhz, int nclocks,
                                             culonx_dvfs_point *out, culonx_error *err);
/* Renders a calibration (`culonx calibrate`): the fitted model and its
 * per-clock errors, as text or (json != 0) one JSON object. */
CULONX_API void culonx_report_calibration(FILE *out, const culonx_dvfs_model *model,
                                          const culonx_power_fit *fit, const char *table_path,
                                          const char *exclude_family, const char *power_path,
                                          int json);
/* Renders predictions of culonx_dvfs_predict (nprofile = prof->nrows rows x
 * nclocks): format "text" (least-energy clock marked), "csv" or "json". */
CULONX_API void culonx_report_dvfs_points(FILE *out, const culonx_dvfs_table *prof,
                                          const culonx_dvfs_point *pt, int nclocks,
                                          const char *power_path, const char *profile_path,
                                          const char *format);
/* Fills gpu->power from datasheet facts (TDP, idle W, clocks) when
 * gpu->power.present == 0; A100 and H100 get the constants of hw/README.md. */
CULONX_API void culonx_power_default(culonx_gpu *gpu);

/* ---- Sweeps (core/search/sweep.c) ---- */
CULONX_API void culonx_sweep_spec_init(culonx_sweep_spec *spec);
/* Sets one option from its command-line form: name without "--" (gpus,
 * global-batch, tp, pp, schedule, vp, mb, recompute, sp, dist-opt,
 * dp-overlap, clocks, objective, top, threads, max-memory-gib,
 * min-global-batch, max-global-batch, max-microbatch, verify; no-prune and
 * tp-across-nodes take no value). Integer lists:
 * "8", "1,2,4", "A:B" or "A:B:STEP" (ranges inclusive), mixed with commas;
 * sorted, duplicates dropped. CULONX_EUSAGE on bad syntax or values. */
CULONX_API culonx_status culonx_sweep_option(culonx_sweep_spec *spec, const char *name,
                                             const char *value, culonx_error *err);
CULONX_API const char *culonx_sweep_reject_name(culonx_sweep_reject r);
CULONX_API const char *culonx_objective_name(culonx_objective o);
/* Keeps memory the process frees for its own reuse instead of handing it
 * back to the kernel (glibc: mmap threshold 32 MiB, trim threshold 1 GiB;
 * elsewhere nothing). A sweep frees and allocates shape buffers of up to
 * megabytes, and every page handed back costs a page fault when touched
 * again (core/README.md, "Page faults"). The culonx command calls it first;
 * programs that time sweeps through the library should too. */
CULONX_API void culonx_keep_freed_memory(void);
/* Runs the sweep. Under MPI (culonx_sweep_mpi_begin) every rank calls it;
 * rank 0 gets the reduced result (is_root = 1). *out is freed with
 * culonx_sweep_result_free. CULONX_EINPUT when an energy objective is asked
 * for and the power model gives no energy. */
CULONX_API culonx_status culonx_sweep_run(const culonx_run *run, const culonx_sweep_spec *spec,
                                          culonx_sweep_result **out, culonx_error *err);
CULONX_API void culonx_sweep_result_free(culonx_sweep_result *r);
CULONX_API void culonx_sweep_report_text(FILE *out, const culonx_sweep_result *r);
CULONX_API void culonx_sweep_report_json(FILE *out, const culonx_sweep_result *r);
/* One self-contained HTML page of a sweep (core/output/html_sweep.c): the
 * time/energy scatter coloured by memory with the Pareto frontier and top K,
 * the top-K table and the reject reasons. all_csv: the rows the sweep wrote
 * through culonx_sweep_spec.all as CSV (read from the start), or NULL. */
CULONX_API culonx_status culonx_sweep_report_html(FILE *out, const culonx_sweep_result *r,
                                                  FILE *all_csv, culonx_error *err);
/* MPI (no-ops without it): initialises MPI when launched by mpirun
 * (OMPI_COMM_WORLD_SIZE / PMI_SIZE set); rank 0 and size 1 otherwise. */
CULONX_API void culonx_sweep_mpi_begin(int *argc, char ***argv, int *rank, int *size);
CULONX_API void culonx_sweep_mpi_end(void);

#ifdef __cplusplus
}
#endif
#endif /* CULONX_H */
