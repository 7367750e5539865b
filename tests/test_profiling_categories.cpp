// The categoriser on names recorded by real profilers, labelled by hand:
// GPU kernels, copies and memsets from published Kineto traces
// (tests/data/recorded_cuda_names.tsv, sources in its header) and ATen
// operators recorded on this project's CPU runs (recorded_cpu_ops.tsv).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "harness/profiling/categories.h"

namespace {

using optbench::profiling::categorise;
using optbench::profiling::category_key;
using optbench::profiling::EventKind;

struct Labelled {
  std::string category, kind, name;
};

std::vector<Labelled> read_tsv(const std::string& file) {
  std::ifstream in(std::string(OPTBENCH_TEST_DATA) + "/" + file);
  EXPECT_TRUE(in) << "cannot read " << file;
  std::vector<Labelled> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Labelled r;
    std::getline(fields, r.category, '\t');
    std::getline(fields, r.kind, '\t');
    std::getline(fields, r.name);
    rows.push_back(r);
  }
  return rows;
}

EventKind kind_of(const std::string& k) {
  if (k == "kernel") return EventKind::kernel;
  if (k == "memcpy") return EventKind::memcpy;
  if (k == "memset") return EventKind::memset;
  if (k == "cpu_op") return EventKind::cpu_op;
  ADD_FAILURE() << "unknown kind " << k;
  return EventKind::other;
}

// Every mismatch in one message, so a table change shows all it moved.
void expect_all_labelled(const std::vector<Labelled>& rows, std::size_t at_least) {
  ASSERT_GE(rows.size(), at_least);
  std::map<std::string, int> per_category;
  std::string wrong;
  for (const auto& r : rows) {
    ++per_category[r.category];
    const std::string got = category_key(categorise(kind_of(r.kind), r.name));
    if (got != r.category) wrong += "  " + r.category + " <- got " + got + ": " + r.name.substr(0, 140) + "\n";
  }
  EXPECT_TRUE(wrong.empty()) << "names categorised differently from their labels:\n" << wrong;
}

TEST(ProfilingCategories, RecordedCudaNamesFallWhereTheirLabelsSay) {
  const auto rows = read_tsv("recorded_cuda_names.tsv");
  expect_all_labelled(rows, 100);
  // Each device category the breakdown reports is exercised by the fixture.
  for (const char* c : {"gemm", "conv", "attention", "elementwise", "reduction_norm", "optimizer", "memcpy_h2d",
                        "memcpy_d2h", "memcpy_d2d", "memset", "collective", "other"}) {
    EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [&](const Labelled& r) { return r.category == c; })) << c;
  }
}

TEST(ProfilingCategories, RecordedCpuOperatorsFallWhereTheirLabelsSay) {
  expect_all_labelled(read_tsv("recorded_cpu_ops.tsv"), 40);
}

TEST(ProfilingCategories, HostCopiesAreNeverDeviceCopies) {
  // A CPU build's aten::copy_ is a host copy; only the device's timeline says H2D.
  EXPECT_STREQ(category_key(categorise(EventKind::cpu_op, "aten::copy_")), "memcpy_host");
  EXPECT_STREQ(category_key(categorise(EventKind::kernel, "aten::copy_")), "other");
  EXPECT_STREQ(category_key(categorise(EventKind::memcpy, "Memcpy HtoD (Pinned -> Device)")), "memcpy_h2d");
  EXPECT_STREQ(category_key(categorise(EventKind::memcpy, "Memcpy DtoH (Device -> Pageable)")), "memcpy_d2h");
}

TEST(ProfilingCategories, ViewsAndLambdasAreNotMisread) {
  // Substrings that once looked like categories: "exp" in expand, "le" in select,
  // "lamb" in ATen's lambda kernels, "conv" in convert.
  for (const char* n : {"aten::expand", "aten::select", "aten::view", "aten::t", "aten::empty", "aten::as_strided"})
    EXPECT_STREQ(category_key(categorise(EventKind::cpu_op, n)), "other") << n;
  EXPECT_STREQ(category_key(categorise(EventKind::kernel,
                                       "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
                                       "namespace)::foo_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}>")),
               "elementwise");
  EXPECT_STREQ(category_key(categorise(EventKind::kernel, "void cub::convert_kernel<float>")), "other");
}

}  // namespace

TEST(ProfilingCategories, LaunchCallsAreKnownWithCuptiSuffixes) {
  using optbench::profiling::is_launch_call;
  for (const char* n : {"cudaLaunchKernel", "cudaLaunchKernelExC_v11060", "cudaGraphLaunch_ptsz", "cuLaunchKernelEx",
                        "cudaLaunchCooperativeKernel"})
    EXPECT_TRUE(is_launch_call(n)) << n;
  for (const char* n :
       {"cudaMemcpyAsync", "cudaStreamSynchronize", "cudaEventRecord", "cudaGraphInstantiate", "cudaMalloc"})
    EXPECT_FALSE(is_launch_call(n)) << n;
}

// Inductor names a Triton kernel by its kind (poi: pointwise, red/per: reduction,
// tem: a template, a GEMM) followed by the operators it fused; the operators name
// what the kernel is fused into, not what it does. Names in Inductor's scheme
// (torch/_inductor/codegen: "triton_" + kind + "_fused_" + the fused ops + index).
TEST(ProfilingCategories, InductorKernelsGoByTheirKindNotTheOperatorsTheyFuse) {
  const std::vector<Labelled> rows = {
      {"elementwise", "kernel", "triton_poi_fused_convolution_relu_0"},
      {"elementwise", "kernel", "triton_poi_fused__native_batch_norm_legit_no_training_relu_1"},
      {"elementwise", "kernel", "triton_poi_fused_embedding_2"},
      {"elementwise", "kernel", "triton_poi_fused_addmm_gelu_3"},
      {"reduction_norm", "kernel", "triton_red_fused__native_batch_norm_legit_functional_convolution_0"},
      {"reduction_norm", "kernel", "triton_per_fused__softmax_adaptive_avg_pool2d_1"},
      {"gemm", "kernel", "triton_tem_fused_addmm_relu_0"},
  };
  expect_all_labelled(rows, rows.size());
}
