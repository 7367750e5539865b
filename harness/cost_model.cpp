#include "harness/cost_model.h"

#include "harness/budget_plan.h"
#include "harness/measure_config.h"
#include "harness/run_settings.h"
#include "harness/stats.h"

namespace optbench {

nlohmann::json cost_model() {
  nlohmann::json profiles = nlohmann::json::object();
  for (RunProfile p : {RunProfile::quick, RunProfile::standard, RunProfile::full}) {
    const MeasureConfig m = measure_config_for(p);
    profiles[to_string(p)] = {{"measure", m}, {"rounds_floor", min_samples_for(m.stopping.confidence)}};
  }
  const BudgetConstants b = budget_constants();
  return {{"profiles", profiles},
          {"budget",
           {{"prepare_steps", b.prepare_steps},
            {"verify_reference_steps", b.verify_reference_steps},
            {"verify_steps_per_variant", b.verify_steps_per_variant},
            {"verify_builds_per_variant", b.verify_builds_per_variant},
            {"process_start_s", b.process_start_s},
            {"cuda_process_start_s", b.cuda_process_start_s},
            {"cupti_setup_s", b.cupti_setup_s},
            {"window_estimate_factor", b.window_estimate_factor},
            {"min_share_s", b.min_share_s},
            {"child_exit_reserve_s", b.child_exit_reserve_s}}}};
}

}  // namespace optbench
