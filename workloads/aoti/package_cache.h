#pragma once
// Compiled AOTInductor packages kept between runs. A cold compile takes over a
// minute on a GPU machine, on every run; a package is reused when the weights,
// the input shape, the device, LibTorch, Python's torch and the GPU are all the
// same (the key hashes them). The cold compile time measured when the package
// was built stays in its info, marked as such.
#include <optional>
#include <string>
#include <vector>

#include "workloads/aoti/package.h"

namespace optbench::workloads::aoti {

// $OPTBENCH_CACHE_DIR, else $XDG_CACHE_HOME/optbench, else ~/.cache/optbench;
// "" when OPTBENCH_CACHE_DIR=off (or no home): no caching.
std::string cache_root();

// What identifies a package besides the weights: shape, device, versions, GPU.
struct PackageKey {
  std::vector<std::int64_t> input_shape;
  std::string device;        // "cpu" | "cuda"
  std::string libtorch;      // TORCH_VERSION
  std::string python_torch;  // torch.__version__ of the compiling python
  std::string gpu;           // device name ("CPU" on the CPU)
};

// Hex key of the weights (as handed to Python) and everything in `key`.
std::string package_key(const ConvNet& net, const PackageKey& key);

// The cached package for (net, key) under `root`, else compiled now (and stored
// there). info["cache"] says which: "hit" or "miss"; "" root: always compiled.
// With max_compile_s, a compile expected to take longer is not started: the
// package's error is then the budget's reason (harness/budget_plan.h).
Package cached_package(const std::string& root, const std::string& python, const ConvNet& net, const PackageKey& key,
                       std::optional<double> max_compile_s = std::nullopt);

// What a cold compile for `device` is expected to take: the longest one stored
// under `root` for that device, else a first guess (120 s on a CPU, 90 s on a GPU).
double expected_compile_s(const std::string& root, const std::string& device);

}  // namespace optbench::workloads::aoti
