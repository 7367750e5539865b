#include "harness/page_faults.h"

#include <sys/resource.h>

namespace optbench {

std::int64_t minor_page_faults() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return -1;
  return static_cast<std::int64_t>(u.ru_minflt);
}

}  // namespace optbench
