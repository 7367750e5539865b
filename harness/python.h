#pragma once
// Which Python optbench starts (the report, AOTInductor's compile step, the
// tests' schema checks): $OPTBENCH_PYTHON, else the interpreter the build was
// configured with (scripts/lib/common.sh passes the one whose torch provided this
// LibTorch), else python3 on PATH.
#include <string>

namespace optbench {

std::string python_executable();

}  // namespace optbench
