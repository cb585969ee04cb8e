
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/wt/s28-mem/core/cli/cmd_calibrate.c" "CMakeFiles/culonx.dir/core/cli/cmd_calibrate.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/cmd_calibrate.c.o.d"
  "/work/wt/s28-mem/core/cli/cmd_dvfs_predict.c" "CMakeFiles/culonx.dir/core/cli/cmd_dvfs_predict.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/cmd_dvfs_predict.c.o.d"
  "/work/wt/s28-mem/core/cli/cmd_energy.c" "CMakeFiles/culonx.dir/core/cli/cmd_energy.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/cmd_energy.c.o.d"
  "/work/wt/s28-mem/core/cli/cmd_estimate.c" "CMakeFiles/culonx.dir/core/cli/cmd_estimate.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/cmd_estimate.c.o.d"
  "/work/wt/s28-mem/core/cli/cmd_import.c" "CMakeFiles/culonx.dir/core/cli/cmd_import.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/cmd_import.c.o.d"
  "/work/wt/s28-mem/core/cli/cmd_plan.c" "CMakeFiles/culonx.dir/core/cli/cmd_plan.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/cmd_plan.c.o.d"
  "/work/wt/s28-mem/core/cli/cmd_report.c" "CMakeFiles/culonx.dir/core/cli/cmd_report.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/cmd_report.c.o.d"
  "/work/wt/s28-mem/core/cli/cmd_schedules.c" "CMakeFiles/culonx.dir/core/cli/cmd_schedules.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/cmd_schedules.c.o.d"
  "/work/wt/s28-mem/core/cli/cmd_serve.c" "CMakeFiles/culonx.dir/core/cli/cmd_serve.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/cmd_serve.c.o.d"
  "/work/wt/s28-mem/core/cli/cmd_sweep.c" "CMakeFiles/culonx.dir/core/cli/cmd_sweep.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/cmd_sweep.c.o.d"
  "/work/wt/s28-mem/core/cli/cmd_trace.c" "CMakeFiles/culonx.dir/core/cli/cmd_trace.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/cmd_trace.c.o.d"
  "/work/wt/s28-mem/core/cli/main.c" "CMakeFiles/culonx.dir/core/cli/main.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/main.c.o.d"
  "/work/wt/s28-mem/core/cli/options.c" "CMakeFiles/culonx.dir/core/cli/options.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/options.c.o.d"
  "/work/wt/s28-mem/core/cli/outfile.c" "CMakeFiles/culonx.dir/core/cli/outfile.c.o" "gcc" "CMakeFiles/culonx.dir/core/cli/outfile.c.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/wt/s28-mem/b_rh/CMakeFiles/culonx_lib.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
