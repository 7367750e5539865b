#pragma once
// Workloads draw inputs and weights from ATen's default generators unless they
// seed their own, and LibTorch seeds those from the OS in every process. The
// harness reseeds them before an experiment builds its cases and before each
// variant is built, so every run, every process (isolated worker, rank,
// verification rebuild) and every run order sees the same data.
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/experiment.h"

namespace optbench {

inline constexpr std::uint64_t kDataSeed = 0;

std::vector<Case> build_cases(const Experiment& e, const RunContext& ctx);
std::unique_ptr<Workload> build_workload(const Variant& v);

}  // namespace optbench
