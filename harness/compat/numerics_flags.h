#pragma once
// Numerics flags that change what a benchmark measures, read and set in one place.
// (2.x also has a per-backend fp32 precision API; the allowTF32 accessors are
// what Python's torch.backends.*.allow_tf32 still read and write.)
#include <ATen/Context.h>

#include <nlohmann/json.hpp>

namespace optbench::compat {

struct NumericsFlags {
  bool tf32_matmul = false;  // cuBLAS may use TF32 for fp32 matmul
  bool tf32_cudnn = true;    // cuDNN may use TF32 for fp32 convolution
  bool cudnn_benchmark = false;
  bool cudnn_deterministic = false;
  bool deterministic_algorithms = false;
};

// Plain fp32 (TF32 off for matmul and cuDNN, no autotuning): for variants held
// to an fp32 tolerance of each other, where TF32 rounding would be the difference.
inline NumericsFlags strict_fp32() {
  NumericsFlags f;
  f.tf32_cudnn = false;
  return f;
}

inline NumericsFlags read_numerics_flags() {
  auto& ctx = at::globalContext();
  return {ctx.allowTF32CuBLAS(), ctx.allowTF32CuDNN(), ctx.benchmarkCuDNN(), ctx.deterministicCuDNN(),
          ctx.deterministicAlgorithms()};
}

inline void apply_numerics_flags(const NumericsFlags& f) {
  auto& ctx = at::globalContext();
  ctx.setAllowTF32CuBLAS(f.tf32_matmul);
  ctx.setAllowTF32CuDNN(f.tf32_cudnn);
  ctx.setBenchmarkCuDNN(f.cudnn_benchmark);
  ctx.setDeterministicCuDNN(f.cudnn_deterministic);
  ctx.setDeterministicAlgorithms(f.deterministic_algorithms, /*warn_only=*/false);
}

inline nlohmann::json to_json(const NumericsFlags& f) {
  return {{"tf32_matmul", f.tf32_matmul},
          {"tf32_cudnn", f.tf32_cudnn},
          {"cudnn_benchmark", f.cudnn_benchmark},
          {"cudnn_deterministic", f.cudnn_deterministic},
          {"deterministic_algorithms", f.deterministic_algorithms}};
}

// Sets flags for a scope and restores the previous ones (experiments that flip
// TF32 or cudnn.benchmark must not leak them into the next experiment).
class NumericsFlagsGuard {
 public:
  explicit NumericsFlagsGuard(const NumericsFlags& f) : saved_(read_numerics_flags()) { apply_numerics_flags(f); }
  ~NumericsFlagsGuard() { apply_numerics_flags(saved_); }
  NumericsFlagsGuard(const NumericsFlagsGuard&) = delete;
  NumericsFlagsGuard& operator=(const NumericsFlagsGuard&) = delete;

 private:
  NumericsFlags saved_;
};

// Just TF32 for matmul, for a scope (variants that differ only in that flag).
class Tf32MatmulGuard {
 public:
  explicit Tf32MatmulGuard(bool on) : saved_(at::globalContext().allowTF32CuBLAS()) {
    at::globalContext().setAllowTF32CuBLAS(on);
  }
  ~Tf32MatmulGuard() { at::globalContext().setAllowTF32CuBLAS(saved_); }
  Tf32MatmulGuard(const Tf32MatmulGuard&) = delete;
  Tf32MatmulGuard& operator=(const Tf32MatmulGuard&) = delete;

 private:
  bool saved_;
};

}  // namespace optbench::compat
