#include "harness/build_info.h"

#include <cstdlib>

#include "optbench/build_config.h"

namespace optbench {

std::string python_executable() {
  if (const char* p = std::getenv("OPTBENCH_PYTHON"); p && *p) return p;
  if (*OPTBENCH_DEFAULT_PYTHON) return OPTBENCH_DEFAULT_PYTHON;
  return "python3";
}

std::string source_dir() { return OPTBENCH_BUILD_SOURCE_DIR; }

}  // namespace optbench
