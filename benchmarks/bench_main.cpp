// Entry point: picks the device (OPTBENCH_DEVICE=cpu|cuda, default: GPU when
// present), records it as custom context, registers the benchmarks for it.
#include <torch/version.h>

#include <cstdlib>
#include <string>

#include "benchmarks/bench_common.h"

namespace optbench::bench {

DeviceKind device() {
  static const DeviceKind d = [] {
    const char* env = std::getenv("OPTBENCH_DEVICE");
    return env ? parse_device(env) : best_device();
  }();
  return d;
}

DeviceBackend& backend() {
  static std::unique_ptr<DeviceBackend> b = make_backend(device());
  return *b;
}

}  // namespace optbench::bench

int main(int argc, char** argv) {
  using namespace optbench;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("optbench_device", to_string(bench::device()));
  benchmark::AddCustomContext("libtorch_version", TORCH_VERSION);
  bench::register_harness_overhead();
  bench::register_matmul_shapes();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
