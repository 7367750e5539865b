// Square matmuls over sizes aligned to tensor-core tiles and their odd
// neighbours, per dtype; reports TFLOP/s. The GPU cases hold the stream while a
// batch is queued so the number is the kernel's, comparable with
// torch.utils.benchmark (scripts/check_matmul.py compares the two).
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "benchmarks/bench_common.h"

namespace optbench::bench {
namespace {

void matmul(benchmark::State& state, at::ScalarType dtype) {
  const std::int64_t n = state.range(0);
  const auto opts = at::TensorOptions().device(torch_device(device())).dtype(dtype);
  const auto a = at::randn({n, n}, opts), b = at::randn({n, n}, opts);
  auto c = at::empty({n, n}, opts);
  auto step = [&] { at::mm_out(c, a, b); };
  backend().hold_stream(true);
  const WarmupResult w = warm_up(backend(), step, TimingMode::batched, 0.05, 0.5);
  const std::int64_t iters = iters_per_sample(w.step_s, 2e-3, 256);
  run_manual(state, step, iters);
  backend().hold_stream(false);
  state.counters["TFLOP/s"] =
      benchmark::Counter(2.0 * n * n * n * iters / 1e12, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

void register_matmul_shapes() {
  const bool gpu = device() == DeviceKind::cuda;
  const std::vector<std::int64_t> sizes =
      gpu ? std::vector<std::int64_t>{1024, 2048, 4095, 4096, 4097, 4100, 4104, 8192}
          : std::vector<std::int64_t>{255, 256, 257, 511, 512, 513};
  std::vector<std::pair<std::string, at::ScalarType>> dtypes = {{"fp32", at::kFloat}};
  if (gpu) {
    dtypes.push_back({"fp16", at::kHalf});
    dtypes.push_back({"bf16", at::kBFloat16});
  }
  for (const auto& [name, dtype] : dtypes) {
    auto* b = benchmark::RegisterBenchmark(("matmul/" + name).c_str(),
                                           [dtype = dtype](benchmark::State& s) { matmul(s, dtype); });
    for (auto n : sizes) b->Arg(n);
    b->UseManualTime()->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace optbench::bench
