file(REMOVE_RECURSE
  "CMakeFiles/culonx.dir/core/cli/cmd_calibrate.c.o"
  "CMakeFiles/culonx.dir/core/cli/cmd_calibrate.c.o.d"
  "CMakeFiles/culonx.dir/core/cli/cmd_dvfs_predict.c.o"
  "CMakeFiles/culonx.dir/core/cli/cmd_dvfs_predict.c.o.d"
  "CMakeFiles/culonx.dir/core/cli/cmd_energy.c.o"
  "CMakeFiles/culonx.dir/core/cli/cmd_energy.c.o.d"
  "CMakeFiles/culonx.dir/core/cli/cmd_estimate.c.o"
  "CMakeFiles/culonx.dir/core/cli/cmd_estimate.c.o.d"
  "CMakeFiles/culonx.dir/core/cli/cmd_import.c.o"
  "CMakeFiles/culonx.dir/core/cli/cmd_import.c.o.d"
  "CMakeFiles/culonx.dir/core/cli/cmd_plan.c.o"
  "CMakeFiles/culonx.dir/core/cli/cmd_plan.c.o.d"
  "CMakeFiles/culonx.dir/core/cli/cmd_report.c.o"
  "CMakeFiles/culonx.dir/core/cli/cmd_report.c.o.d"
  "CMakeFiles/culonx.dir/core/cli/cmd_schedules.c.o"
  "CMakeFiles/culonx.dir/core/cli/cmd_schedules.c.o.d"
  "CMakeFiles/culonx.dir/core/cli/cmd_serve.c.o"
  "CMakeFiles/culonx.dir/core/cli/cmd_serve.c.o.d"
  "CMakeFiles/culonx.dir/core/cli/cmd_sweep.c.o"
  "CMakeFiles/culonx.dir/core/cli/cmd_sweep.c.o.d"
  "CMakeFiles/culonx.dir/core/cli/cmd_trace.c.o"
  "CMakeFiles/culonx.dir/core/cli/cmd_trace.c.o.d"
  "CMakeFiles/culonx.dir/core/cli/main.c.o"
  "CMakeFiles/culonx.dir/core/cli/main.c.o.d"
  "CMakeFiles/culonx.dir/core/cli/options.c.o"
  "CMakeFiles/culonx.dir/core/cli/options.c.o.d"
  "CMakeFiles/culonx.dir/core/cli/outfile.c.o"
  "CMakeFiles/culonx.dir/core/cli/outfile.c.o.d"
  "culonx"
  "culonx.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/culonx.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
