// What does the harness add? An empty step shows the fixed cost of one sample
// (events + synchronisation on a GPU, two clock reads on a CPU); a one-element
// kernel timed in batches of 1..1000 shows that cost amortised away by batching.
#include <ATen/ATen.h>

#include "benchmarks/bench_common.h"

namespace optbench::bench {

void register_harness_overhead() {
  benchmark::RegisterBenchmark("harness/empty_step",
                               [](benchmark::State& state) { run_manual(state, [] {}, state.range(0)); })
      ->Arg(1)
      ->Arg(1000)
      ->UseManualTime();

  benchmark::RegisterBenchmark("harness/tiny_kernel",
                               [](benchmark::State& state) {
                                 auto x = at::zeros({1}, at::TensorOptions().device(torch_device(device())));
                                 run_manual(state, [&x] { x.add_(1); }, state.range(0));
                                 benchmark::DoNotOptimize(x.data_ptr());
                               })
      ->Arg(1)
      ->Arg(10)
      ->Arg(100)
      ->Arg(1000)
      ->UseManualTime();
}

}  // namespace optbench::bench
