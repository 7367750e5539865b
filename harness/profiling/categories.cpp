#include "harness/profiling/categories.h"

#include <regex>
#include <utility>
#include <vector>

namespace optbench::profiling {
namespace {

struct Rule {
  Category category;
  bool cpu_only;  // host copies exist only as CPU operators
  std::regex pattern;
};

std::regex icase(const char* re) { return std::regex(re, std::regex::icase | std::regex::optimize); }

// Ordered: a convolution kernel names its implicit gemm ("..._fprop_implicit_gemm_"),
// a fused optimizer runs elementwise maths, a reduction kernel names its functor:
// the more specific rule comes first. "lambda" appears in many ATen kernel names,
// so no rule may match on "lamb"; "conv" alone would match "convert".
const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = [] {
    std::vector<Rule> t;
    auto add = [&](Category c, const char* re, bool cpu_only = false) { t.push_back({c, cpu_only, icase(re)}); };
    // Inductor's Triton kernels say what they are in their prefix and list the
    // operators they fused after it: "triton_poi_fused_convolution_relu_0" is the
    // pointwise epilogue of a convolution cuDNN ran, not a convolution. Before
    // every rule that reads an operator's name.
    add(Category::elementwise, R"(^triton_poi_)");
    add(Category::reduction_norm, R"(^triton_(red|per)_)");
    add(Category::gemm, R"(^triton_tem_)");
    // Indexing, embeddings, random numbers (dropout's too) and KV-cache or quantisation kernels
    // name a category they are not ("index_elementwise_kernel",
    // "split_embedding_backward_codegen_rowwise_adagrad"): other, before the rest.
    add(Category::other,
        R"(embedding|index_elementwise|scatter_gather|distribution_elementwise|dropout|reshape_and_cache|quantize)");
    add(Category::collective, R"(nccl|c10d::|gloo|allreduce|all_reduce|allgather|all_gather|reduce_scatter|alltoall)");
    add(Category::attention, R"(flash|fmha|attention|sdpa|scaled_dot_product)");
    add(Category::optimizer, R"(adam|sgd|adagrad|rmsprop|_foreach_|multi_tensor_apply|optimizer)");
    add(Category::conv,
        R"(convol|conv[123]d|scudnn|fft2d|cask_cudnn|conv_|cudnn_conv|fprop|dgrad|wgrad|winograd|nchwtonhwc|)"
        R"(nhwctonchw|im2col|col2im)");
    // Autograd nodes and the engine's wrappers around them carry their operator's
    // name in CamelCase ("autograd::engine::evaluate_function: AddmmBackward0").
    add(Category::gemm, R"(^(autograd::engine::evaluate_function: )?(Mm|Addmm|Bmm|Baddbmm|Addbmm|Mv|Dot)Backward\d*$)");
    add(Category::elementwise,
        R"(^(autograd::engine::evaluate_function: )?(Add|Sub|Mul|Div|Gelu|Relu|Silu|Sigmoid|Tanh|Threshold|)"
        R"(MaskedFill|Clamp|ClampMin|Where|Pow|Exp|Log|Sqrt|Rsqrt|Neg|Abs|Lerp|Addcmul|Addcdiv)Backward\d*$)");
    add(Category::gemm,
        R"(gemm|gemv|^bmm_|cublas|cutlass|nvjet|splitkreduce|dot_kernel|^aten::(mm|addmm|_addmm_activation|)"
        R"(bmm|baddbmm|addbmm|matmul|linear|mv|addmv|dot|vdot)$)");
    add(Category::reduction_norm,
        R"(batch_?norm|layer_?norm|group_?norm|rms_?norm|instance_?norm|bn_fw|bn_bw|welford|reduce|softmax|)"
        R"(nll_?loss|classnllcriterion|gammabeta|cross_entropy|mean_?backward|sum_?backward|_loss|)"
        R"(^aten::(sum|mean|max|min|amax|amin|argmax|argmin|var|std|var_mean|std_mean|logsumexp|)"
        R"(cumsum|prod|all|any|norm|linalg_vector_norm)$)");
    add(Category::memcpy_host, R"(^aten::(copy_|clone|contiguous|_to_copy|to)$)", true);
    // ATen's pointwise operators by exact name (a substring such as "exp" would
    // take aten::expand, a view; "le" aten::select).
    add(Category::elementwise,
        R"(elementwise|pointwise|fill|^aten::_?(add|sub|subtract|mul|multiply|div|divide|relu|)"
        R"(gelu|silu|sigmoid|tanh|hardtanh|leaky_relu|elu|threshold|clamp|clamp_min|clamp_max|where|zero|)"
        R"(zeros|zeros_like|ones|ones_like|full|exp|log|pow|sqrt|rsqrt|neg|abs|masked_fill|lerp|addcmul|)"
        R"(addcdiv|reciprocal|erf|square|sign|maximum|minimum|eq|ne|lt|gt|le|ge|floor|ceil|round|remainder|)"
        R"(fmod|amp_update_scale)(_backward)?_?$)");
    return t;
  }();
  return table;
}

Category copy_direction(std::string_view name) {
  static const std::regex h2d = icase(R"(HtoD)"), d2h = icase(R"(DtoH)"), d2d = icase(R"(DtoD|PtoP)");
  const std::string s(name);
  if (std::regex_search(s, h2d)) return Category::memcpy_h2d;
  if (std::regex_search(s, d2h)) return Category::memcpy_d2h;
  if (std::regex_search(s, d2d)) return Category::memcpy_d2d;
  return Category::other;
}

}  // namespace

const char* category_key(Category c) {
  switch (c) {
    case Category::gemm:
      return "gemm";
    case Category::conv:
      return "conv";
    case Category::attention:
      return "attention";
    case Category::elementwise:
      return "elementwise";
    case Category::reduction_norm:
      return "reduction_norm";
    case Category::optimizer:
      return "optimizer";
    case Category::memcpy_h2d:
      return "memcpy_h2d";
    case Category::memcpy_d2h:
      return "memcpy_d2h";
    case Category::memcpy_d2d:
      return "memcpy_d2d";
    case Category::memcpy_host:
      return "memcpy_host";
    case Category::memset:
      return "memset";
    case Category::collective:
      return "collective";
    case Category::compiled:
      return "compiled";
    case Category::other:
      return "other";
  }
  return "other";
}

const std::array<Category, kCategoryCount>& all_categories() {
  static const std::array<Category, kCategoryCount> all = {
      Category::gemm,      Category::conv,       Category::attention,  Category::elementwise, Category::reduction_norm,
      Category::optimizer, Category::memcpy_h2d, Category::memcpy_d2h, Category::memcpy_d2d,  Category::memcpy_host,
      Category::memset,    Category::collective, Category::compiled,   Category::other};
  return all;
}

std::optional<Category> category_from_key(std::string_view key) {
  for (Category c : all_categories())
    if (key == category_key(c)) return c;
  return std::nullopt;
}

bool is_launch_call(std::string_view n) {
  static constexpr std::string_view stems[] = {"cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaGraphLaunch",
                                               "cuLaunchKernel",   "cuLaunchCooperativeKernel",   "cuGraphLaunch"};
  for (auto s : stems)
    if (n.substr(0, s.size()) == s) return true;
  return false;
}

Category categorise(EventKind kind, std::string_view name) {
  if (kind == EventKind::memcpy) return copy_direction(name);
  if (kind == EventKind::memset) return Category::memset;
  if (kind != EventKind::kernel && kind != EventKind::cpu_op) return Category::other;
  const std::string s(name);
  for (const auto& r : rules()) {
    if (r.cpu_only && kind != EventKind::cpu_op) continue;
    if (std::regex_search(s, r.pattern)) return r.category;
  }
  return Category::other;
}

}  // namespace optbench::profiling
