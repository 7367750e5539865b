#include "harness/python.h"

#include <cstdlib>

#include "optbench/build_config.h"

namespace optbench {

std::string python_executable() {
  if (const char* p = std::getenv("OPTBENCH_PYTHON"); p && *p) return p;
  if (*OPTBENCH_DEFAULT_PYTHON) return OPTBENCH_DEFAULT_PYTHON;
  return "python3";
}

}  // namespace optbench
