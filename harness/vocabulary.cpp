#include "harness/vocabulary.h"

#include "harness/profiling/categories.h"
#include "harness/profiling/counters.h"

namespace optbench {

nlohmann::json vocabulary() {
  nlohmann::json categories = nlohmann::json::array();
  for (profiling::Category c : profiling::all_categories()) categories.push_back(profiling::category_key(c));
  return {{"categories", categories}, {"counters", profiling::counter_keys()}};
}

}  // namespace optbench
