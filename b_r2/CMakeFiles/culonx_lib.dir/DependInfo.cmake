
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/s28-mem/core/base/base.c" "CMakeFiles/culonx_lib.dir/core/base/base.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/base/base.c.o.d"
  "/work/wt/s28-mem/core/eval/a2a.c" "CMakeFiles/culonx_lib.dir/core/eval/a2a.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/a2a.c.o.d"
  "/work/wt/s28-mem/core/eval/closed.c" "CMakeFiles/culonx_lib.dir/core/eval/closed.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/closed.c.o.d"
  "/work/wt/s28-mem/core/eval/compare.c" "CMakeFiles/culonx_lib.dir/core/eval/compare.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/compare.c.o.d"
  "/work/wt/s28-mem/core/eval/cost.c" "CMakeFiles/culonx_lib.dir/core/eval/cost.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/cost.c.o.d"
  "/work/wt/s28-mem/core/eval/cost_clock_key.c" "CMakeFiles/culonx_lib.dir/core/eval/cost_clock_key.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/cost_clock_key.c.o.d"
  "/work/wt/s28-mem/core/eval/cost_clocks.c" "CMakeFiles/culonx_lib.dir/core/eval/cost_clocks.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/cost_clocks.c.o.d"
  "/work/wt/s28-mem/core/eval/cost_copy.c" "CMakeFiles/culonx_lib.dir/core/eval/cost_copy.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/cost_copy.c.o.d"
  "/work/wt/s28-mem/core/eval/cost_dp.c" "CMakeFiles/culonx_lib.dir/core/eval/cost_dp.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/cost_dp.c.o.d"
  "/work/wt/s28-mem/core/eval/cost_key.c" "CMakeFiles/culonx_lib.dir/core/eval/cost_key.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/cost_key.c.o.d"
  "/work/wt/s28-mem/core/eval/cost_runs.c" "CMakeFiles/culonx_lib.dir/core/eval/cost_runs.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/cost_runs.c.o.d"
  "/work/wt/s28-mem/core/eval/energy.c" "CMakeFiles/culonx_lib.dir/core/eval/energy.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/energy.c.o.d"
  "/work/wt/s28-mem/core/eval/graph_eval.c" "CMakeFiles/culonx_lib.dir/core/eval/graph_eval.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/graph_eval.c.o.d"
  "/work/wt/s28-mem/core/eval/plan.c" "CMakeFiles/culonx_lib.dir/core/eval/plan.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/plan.c.o.d"
  "/work/wt/s28-mem/core/eval/plan_cut.c" "CMakeFiles/culonx_lib.dir/core/eval/plan_cut.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/plan_cut.c.o.d"
  "/work/wt/s28-mem/core/eval/plan_exact.c" "CMakeFiles/culonx_lib.dir/core/eval/plan_exact.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/plan_exact.c.o.d"
  "/work/wt/s28-mem/core/eval/plan_fast.c" "CMakeFiles/culonx_lib.dir/core/eval/plan_fast.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/plan_fast.c.o.d"
  "/work/wt/s28-mem/core/eval/plan_flow.c" "CMakeFiles/culonx_lib.dir/core/eval/plan_flow.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/plan_flow.c.o.d"
  "/work/wt/s28-mem/core/eval/plan_scale.c" "CMakeFiles/culonx_lib.dir/core/eval/plan_scale.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/plan_scale.c.o.d"
  "/work/wt/s28-mem/core/eval/plan_series.c" "CMakeFiles/culonx_lib.dir/core/eval/plan_series.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/plan_series.c.o.d"
  "/work/wt/s28-mem/core/eval/power_cap.c" "CMakeFiles/culonx_lib.dir/core/eval/power_cap.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/power_cap.c.o.d"
  "/work/wt/s28-mem/core/eval/replay.c" "CMakeFiles/culonx_lib.dir/core/eval/replay.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_clocks.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_clocks.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_clocks.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_compile.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_compile.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_compile.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_fill.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_fill.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_fill.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_formula.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_formula.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_formula.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_formula_v.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_formula_v.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_formula_v.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_formula_zb.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_formula_zb.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_formula_zb.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_held.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_held.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_held.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_jlanes.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_jlanes.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_jlanes.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_lanes.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_lanes.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_lanes.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_mem.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_mem.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_mem.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_memo.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_memo.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_memo.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_prog.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_prog.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_prog.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_v_sweep.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_v_sweep.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_v_sweep.c.o.d"
  "/work/wt/s28-mem/core/eval/replay_zb_sweep.c" "CMakeFiles/culonx_lib.dir/core/eval/replay_zb_sweep.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/replay_zb_sweep.c.o.d"
  "/work/wt/s28-mem/core/eval/serve.c" "CMakeFiles/culonx_lib.dir/core/eval/serve.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/serve.c.o.d"
  "/work/wt/s28-mem/core/eval/serve_plan.c" "CMakeFiles/culonx_lib.dir/core/eval/serve_plan.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/serve_plan.c.o.d"
  "/work/wt/s28-mem/core/eval/shard.c" "CMakeFiles/culonx_lib.dir/core/eval/shard.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/shard.c.o.d"
  "/work/wt/s28-mem/core/eval/walk.c" "CMakeFiles/culonx_lib.dir/core/eval/walk.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/eval/walk.c.o.d"
  "/work/wt/s28-mem/core/input/calculon.c" "CMakeFiles/culonx_lib.dir/core/input/calculon.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/input/calculon.c.o.d"
  "/work/wt/s28-mem/core/input/check.c" "CMakeFiles/culonx_lib.dir/core/input/check.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/input/check.c.o.d"
  "/work/wt/s28-mem/core/input/config.c" "CMakeFiles/culonx_lib.dir/core/input/config.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/input/config.c.o.d"
  "/work/wt/s28-mem/core/input/dvfs.c" "CMakeFiles/culonx_lib.dir/core/input/dvfs.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/input/dvfs.c.o.d"
  "/work/wt/s28-mem/core/input/fields.c" "CMakeFiles/culonx_lib.dir/core/input/fields.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/input/fields.c.o.d"
  "/work/wt/s28-mem/core/input/names.c" "CMakeFiles/culonx_lib.dir/core/input/names.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/input/names.c.o.d"
  "/work/wt/s28-mem/core/input/xml.c" "CMakeFiles/culonx_lib.dir/core/input/xml.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/input/xml.c.o.d"
  "/work/wt/s28-mem/core/layout/layout.c" "CMakeFiles/culonx_lib.dir/core/layout/layout.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/layout/layout.c.o.d"
  "/work/wt/s28-mem/core/layout/rules.c" "CMakeFiles/culonx_lib.dir/core/layout/rules.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/layout/rules.c.o.d"
  "/work/wt/s28-mem/core/output/chakra.c" "CMakeFiles/culonx_lib.dir/core/output/chakra.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/output/chakra.c.o.d"
  "/work/wt/s28-mem/core/output/dvfs_report.c" "CMakeFiles/culonx_lib.dir/core/output/dvfs_report.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/output/dvfs_report.c.o.d"
  "/work/wt/s28-mem/core/output/html_report.c" "CMakeFiles/culonx_lib.dir/core/output/html_report.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/output/html_report.c.o.d"
  "/work/wt/s28-mem/core/output/html_sweep.c" "CMakeFiles/culonx_lib.dir/core/output/html_sweep.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/output/html_sweep.c.o.d"
  "/work/wt/s28-mem/core/output/html_timeline.c" "CMakeFiles/culonx_lib.dir/core/output/html_timeline.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/output/html_timeline.c.o.d"
  "/work/wt/s28-mem/core/output/plan_report.c" "CMakeFiles/culonx_lib.dir/core/output/plan_report.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/output/plan_report.c.o.d"
  "/work/wt/s28-mem/core/output/report.c" "CMakeFiles/culonx_lib.dir/core/output/report.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/output/report.c.o.d"
  "/work/wt/s28-mem/core/output/serve_report.c" "CMakeFiles/culonx_lib.dir/core/output/serve_report.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/output/serve_report.c.o.d"
  "/work/wt/s28-mem/core/output/svg.c" "CMakeFiles/culonx_lib.dir/core/output/svg.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/output/svg.c.o.d"
  "/work/wt/s28-mem/core/output/sweep_report.c" "CMakeFiles/culonx_lib.dir/core/output/sweep_report.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/output/sweep_report.c.o.d"
  "/work/wt/s28-mem/core/output/sweep_rows.c" "CMakeFiles/culonx_lib.dir/core/output/sweep_rows.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/output/sweep_rows.c.o.d"
  "/work/wt/s28-mem/core/output/trace.c" "CMakeFiles/culonx_lib.dir/core/output/trace.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/output/trace.c.o.d"
  "/work/wt/s28-mem/core/output/trace_file.c" "CMakeFiles/culonx_lib.dir/core/output/trace_file.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/output/trace_file.c.o.d"
  "/work/wt/s28-mem/core/search/mpi.c" "CMakeFiles/culonx_lib.dir/core/search/mpi.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/search/mpi.c.o.d"
  "/work/wt/s28-mem/core/search/options.c" "CMakeFiles/culonx_lib.dir/core/search/options.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/search/options.c.o.d"
  "/work/wt/s28-mem/core/search/rank.c" "CMakeFiles/culonx_lib.dir/core/search/rank.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/search/rank.c.o.d"
  "/work/wt/s28-mem/core/search/space.c" "CMakeFiles/culonx_lib.dir/core/search/space.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/search/space.c.o.d"
  "/work/wt/s28-mem/core/search/sweep.c" "CMakeFiles/culonx_lib.dir/core/search/sweep.c.o" "gcc" "CMakeFiles/culonx_lib.dir/core/search/sweep.c.o.d"
  "/work/wt/s28-mem/b_r2/generated/chakra/et_def.pb-c.c" "CMakeFiles/culonx_lib.dir/generated/chakra/et_def.pb-c.c.o" "gcc" "CMakeFiles/culonx_lib.dir/generated/chakra/et_def.pb-c.c.o.d"
  "/work/wt/s28-mem/b_r2/generated/culonx_xsd.c" "CMakeFiles/culonx_lib.dir/generated/culonx_xsd.c.o" "gcc" "CMakeFiles/culonx_lib.dir/generated/culonx_xsd.c.o.d"
  "/work/wt/s28-mem/hw/calibrate.c" "CMakeFiles/culonx_lib.dir/hw/calibrate.c.o" "gcc" "CMakeFiles/culonx_lib.dir/hw/calibrate.c.o.d"
  "/work/wt/s28-mem/hw/lapack.c" "CMakeFiles/culonx_lib.dir/hw/lapack.c.o" "gcc" "CMakeFiles/culonx_lib.dir/hw/lapack.c.o.d"
  "/work/wt/s28-mem/hw/net.c" "CMakeFiles/culonx_lib.dir/hw/net.c.o" "gcc" "CMakeFiles/culonx_lib.dir/hw/net.c.o.d"
  "/work/wt/s28-mem/hw/perf.c" "CMakeFiles/culonx_lib.dir/hw/perf.c.o" "gcc" "CMakeFiles/culonx_lib.dir/hw/perf.c.o.d"
  "/work/wt/s28-mem/hw/power.c" "CMakeFiles/culonx_lib.dir/hw/power.c.o" "gcc" "CMakeFiles/culonx_lib.dir/hw/power.c.o.d"
  "/work/wt/s28-mem/models/gpt.c" "CMakeFiles/culonx_lib.dir/models/gpt.c.o" "gcc" "CMakeFiles/culonx_lib.dir/models/gpt.c.o.d"
  "/work/wt/s28-mem/models/llama.c" "CMakeFiles/culonx_lib.dir/models/llama.c.o" "gcc" "CMakeFiles/culonx_lib.dir/models/llama.c.o.d"
  "/work/wt/s28-mem/models/moe.c" "CMakeFiles/culonx_lib.dir/models/moe.c.o" "gcc" "CMakeFiles/culonx_lib.dir/models/moe.c.o.d"
  "/work/wt/s28-mem/models/registry.c" "CMakeFiles/culonx_lib.dir/models/registry.c.o" "gcc" "CMakeFiles/culonx_lib.dir/models/registry.c.o.d"
  "/work/wt/s28-mem/models/serve.c" "CMakeFiles/culonx_lib.dir/models/serve.c.o" "gcc" "CMakeFiles/culonx_lib.dir/models/serve.c.o.d"
  "/work/wt/s28-mem/models/transformer.c" "CMakeFiles/culonx_lib.dir/models/transformer.c.o" "gcc" "CMakeFiles/culonx_lib.dir/models/transformer.c.o.d"
  "/work/wt/s28-mem/schedules/1f1b.c" "CMakeFiles/culonx_lib.dir/schedules/1f1b.c.o" "gcc" "CMakeFiles/culonx_lib.dir/schedules/1f1b.c.o.d"
  "/work/wt/s28-mem/schedules/dualpipev.c" "CMakeFiles/culonx_lib.dir/schedules/dualpipev.c.o" "gcc" "CMakeFiles/culonx_lib.dir/schedules/dualpipev.c.o.d"
  "/work/wt/s28-mem/schedules/gpipe.c" "CMakeFiles/culonx_lib.dir/schedules/gpipe.c.o" "gcc" "CMakeFiles/culonx_lib.dir/schedules/gpipe.c.o.d"
  "/work/wt/s28-mem/schedules/interleaved.c" "CMakeFiles/culonx_lib.dir/schedules/interleaved.c.o" "gcc" "CMakeFiles/culonx_lib.dir/schedules/interleaved.c.o.d"
  "/work/wt/s28-mem/schedules/play.c" "CMakeFiles/culonx_lib.dir/schedules/play.c.o" "gcc" "CMakeFiles/culonx_lib.dir/schedules/play.c.o.d"
  "/work/wt/s28-mem/schedules/registry.c" "CMakeFiles/culonx_lib.dir/schedules/registry.c.o" "gcc" "CMakeFiles/culonx_lib.dir/schedules/registry.c.o.d"
  "/work/wt/s28-mem/schedules/sim.c" "CMakeFiles/culonx_lib.dir/schedules/sim.c.o" "gcc" "CMakeFiles/culonx_lib.dir/schedules/sim.c.o.d"
  "/work/wt/s28-mem/schedules/util.c" "CMakeFiles/culonx_lib.dir/schedules/util.c.o" "gcc" "CMakeFiles/culonx_lib.dir/schedules/util.c.o.d"
  "/work/wt/s28-mem/schedules/zb_h1.c" "CMakeFiles/culonx_lib.dir/schedules/zb_h1.c.o" "gcc" "CMakeFiles/culonx_lib.dir/schedules/zb_h1.c.o.d"
  "/work/wt/s28-mem/schedules/zb_h2.c" "CMakeFiles/culonx_lib.dir/schedules/zb_h2.c.o" "gcc" "CMakeFiles/culonx_lib.dir/schedules/zb_h2.c.o.d"
  "/work/wt/s28-mem/schedules/zb_v.c" "CMakeFiles/culonx_lib.dir/schedules/zb_v.c.o" "gcc" "CMakeFiles/culonx_lib.dir/schedules/zb_v.c.o.d"
  )

# Pairs of files generated by the same build rule.
set(CMAKE_MULTIPLE_OUTPUT_PAIRS
  "/work/wt/s28-mem/b_r2/generated/chakra/et_def.pb-c.h" "/work/wt/s28-mem/b_r2/generated/chakra/et_def.pb-c.c"
  )


# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
