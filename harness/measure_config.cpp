#include "harness/measure_config.h"

#include "harness/seeding.h"

namespace optbench {

MeasureConfig measure_config_for(Profile p) {
  MeasureConfig c;
  switch (p) {
    case Profile::quick:
      c.warmup_min_s = 0.05;
      c.warmup_max_s = 0.5;
      c.target_sample_s = 1e-3;
      c.stopping = {6, 0.1, 1.5, 100000, 0.05, 0.95};
      c.breakdown.mode = profiling::BreakdownMode::off;  // --breakdown on to profile a quick run
      c.cold_processes = 1;
      break;
    case Profile::standard:
      c.stopping = {10, 0.5, 8.0, 100000, 0.02, 0.95};
      break;
    case Profile::full:
      c.warmup_min_s = 1.0;
      c.warmup_max_s = 10.0;
      c.target_sample_s = 5e-3;
      c.stopping = {30, 2.0, 60.0, 100000, 0.01, 0.95};
      c.cold_processes = 3;
      break;
  }
  return c;
}

nlohmann::json to_json(const MeasureConfig& c) {
  return {{"warmup_min_s", c.warmup_min_s},
          {"warmup_max_s", c.warmup_max_s},
          {"target_sample_s", c.target_sample_s},
          {"max_iters_per_sample", c.max_iters_per_sample},
          {"interleave", to_string(c.order)},
          {"seed", c.seed},
          {"data_seed", kDataSeed},
          {"isolate", c.isolate},
          {"cold_processes", c.cold_processes},
          {"breakdown", profiling::to_json(c.breakdown)},
          {"stopping",
           {{"min_samples", c.stopping.min_samples},
            {"min_time_s", c.stopping.min_time_s},
            {"max_time_s", c.stopping.max_time_s},
            {"max_samples", c.stopping.max_samples},
            {"target_rel_ci", c.stopping.target_rel_ci},
            {"confidence", c.stopping.confidence}}}};
}

}  // namespace optbench
