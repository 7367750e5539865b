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

namespace {
// Python puts the working directory first on sys.path for -m and -c, so a report/
// package or a numpy.py there would run instead of the project's; -P stops
// that only from Python 3.11, and a blank or "." entry in PYTHONPATH adds the directory
// back. So the runner sets sys.path itself before any import: the source tree, then the
// interpreter's own entries, less the working directory ('').
constexpr const char* kReportRunner =
    "import sys; sys.path[:] = [sys.argv.pop(1)] + [p for p in sys.path if p]; "
    "import runpy; runpy.run_module('report', run_name='__main__', alter_sys=True)";
}  // namespace

std::vector<std::string> report_argv(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {python_executable(), "-c", kReportRunner, source_dir()};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace optbench
