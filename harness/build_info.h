#pragma once
// What the build was configured with, read at run time. Kept out of compile
// definitions so that only harness/build_info.cpp depends on a clone's paths
// (ccache then reuses every other object across clones).
#include <string>
#include <vector>

namespace optbench {

// Which Python optbench starts (the report, AOTInductor's compile step, the
// tests' schema checks): $OPTBENCH_PYTHON, else the interpreter the build was
// configured with (scripts/lib/common.sh passes the one whose torch provided this
// LibTorch), else python3 on PATH.
std::string python_executable();

// The source tree this binary was built from (the report package, git state).
std::string source_dir();

// The argv that runs `python -m report ARGS...` from source_dir() with the
// configured Python, and nothing from the working directory or PYTHONPATH on
// its path (its caller unsets PYTHONPATH).
std::vector<std::string> report_argv(const std::vector<std::string>& args);

}  // namespace optbench
