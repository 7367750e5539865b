#pragma once
// Where a kernel's or operator's time goes, from its name: one ordered table
// (categories.cpp), first match wins. Device kernels are named by their
// libraries (cuBLAS "sm90_xmma_gemm_...", "nvjet_...", cuDNN "..._fprop_implicit_gemm_...",
// ATen "vectorized_elementwise_kernel<...>"); CPU operators by ATen ("aten::addmm").
// Names that match nothing fall into `other` and are listed with the breakdown,
// so the table can grow from what users see. Tested on recorded names
// (tests/data/recorded_cuda_names.tsv and tests/test_profiling_categories.cpp).
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "harness/profiling/trace_event.h"

namespace optbench::profiling {

enum class Category {
  gemm,            // matrix multiply: cuBLAS/cuBLASLt/CUTLASS gemm, gemv; aten::mm/addmm/bmm
  conv,            // convolution: cuDNN fprop/dgrad/wgrad, its layout transforms; aten::*convolution*
  attention,       // fused attention: flash, memory-efficient (fmha), cuDNN SDPA
  elementwise,     // pointwise: ATen's elementwise kernels, casts, activations, fills
  reduction_norm,  // reductions and normalisation: sum/mean, softmax, batch/layer norm, losses
  optimizer,       // optimizer updates: multi_tensor_apply / foreach / fused Adam(W), SGD
  memcpy_h2d,      // device timeline copies by direction
  memcpy_d2h,
  memcpy_d2d,
  memcpy_host,  // a copy (or dtype cast: copy_ does both) done by the CPU: never called H2D
  memset,
  collective,  // NCCL kernels, c10d/Gloo collectives
  compiled,    // CPU: compiled code no operator record covers (AOTInductor's run, a TorchScript graph's own work)
  other,
};

inline constexpr std::size_t kCategoryCount = static_cast<std::size_t>(Category::other) + 1;

// The JSON key of a category ("gemm", "memcpy_h2d", ...).
const char* category_key(Category c);
// The category whose key this is ("conv"), if any.
std::optional<Category> category_from_key(std::string_view key);
const std::array<Category, kCategoryCount>& all_categories();

Category categorise(EventKind kind, std::string_view name);

// Whether a CUDA runtime or driver call launches device work (a kernel or a
// graph). CUPTI adds version and stream suffixes ("cudaLaunchKernelExC_v11060",
// "cudaGraphLaunch_ptsz"), so the stem is matched.
bool is_launch_call(std::string_view api_name);

}  // namespace optbench::profiling
