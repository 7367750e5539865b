#pragma once
// Validates a results file with the report package's validator (python3 -m
// report validate, i.e. jsonschema against harness/results.schema.json), so C++
// and Python agree on one schema.
#include <cstdlib>
#include <string>

#include "harness/build_info.h"

namespace optbench::testing {

inline bool schema_valid(const std::string& path) {
  const std::string cmd = std::string("PYTHONPATH='") + source_dir() + "' '" + python_executable() +
                          "' -m report validate '" + path + "' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

}  // namespace optbench::testing
