// The AOTInductor experiment end to end on the CPU (compile from Python, cache,
// load with the C++ loader, verify against eager), and its parts: the weights
// handed to Python, the error line extracted from Python's output, and the
// embedded script's failure path under a python3 without torch.
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

#include "harness/budget_plan.h"
#include "harness/registry.h"
#include "harness/suite_runner.h"
#include "tests/scoped_env.h"
#include "workloads/aoti/package.h"
#include "workloads/aoti/package_cache.h"
#include "workloads/models/convnet.h"

using namespace optbench;
using namespace optbench::workloads;

// The whole experiment on the CPU with the Python torch the build was made
// with: the package is compiled (or found in the cache), loaded by
// AOTIModelPackageLoader, timed against eager and verified. Nothing is skipped.
TEST(AotInductor, CompilesLoadsAndVerifiesOnTheCpu) {
  const aoti::PythonTorch py = aoti::probe_python_torch(aoti::python_executable());
  ASSERT_FALSE(py.version.empty()) << aoti::python_executable() << " cannot import torch: " << py.error;
  aoti::TempDir dir("optbench-test-");
  SuiteOptions o;
  o.profile = RunProfile::quick;
  o.filter = "^aot_inductor$";
  o.out_path = dir.path() + "/results.json";
  o.progress = false;
  EXPECT_EQ(run_suite(o), kExitOk);
  std::ifstream in(o.out_path);
  const auto doc = nlohmann::json::parse(in);
  ASSERT_EQ(doc.at("experiments").size(), 1u);
  const auto& e = doc["experiments"][0];
  ASSERT_EQ(e.at("status"), "ok") << e.dump();
  ASSERT_FALSE(e.at("cases").empty());
  for (const auto& c : e["cases"]) {
    ASSERT_EQ(c.at("status"), "ok") << c.dump();
    EXPECT_TRUE(c.at("notes").contains("python")) << c.dump();
    bool verified = false;
    for (const auto& cmp : c.at("comparisons"))
      if (cmp.at("variant") == "aot_inductor") verified = cmp.at("verification").at("status") == "passed";
    EXPECT_TRUE(verified) << c.dump();
  }
}

TEST(AotInductor, WeightsFileHoldsEveryTensorAtItsOffset) {
  const ConvNet net = make_convnet(ConvNetSpec{}, 0);
  aoti::TempDir dir("optbench-test-");
  const auto layers = aoti::write_weights(net, dir.path());
  std::ifstream bin(dir.path() + "/weights.bin", std::ios::binary);
  const std::string blob((std::istreambuf_iterator<char>(bin)), std::istreambuf_iterator<char>());
  ASSERT_EQ(layers.size(), net.layers.size());
  std::size_t tensors = 0, bytes = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    EXPECT_EQ(layers[i].at("kind"), layer_kind_name(net.layers[i].kind));
    const auto expected = layer_tensors(net, i);
    ASSERT_EQ(layers[i].at("tensors").size(), expected.size()) << "layer " << i;
    for (std::size_t k = 0; k < expected.size(); ++k) {
      const auto& t = layers[i]["tensors"][k];
      const auto& [name, value] = expected[k];
      EXPECT_EQ(t.at("name"), name);
      EXPECT_EQ(t.at("shape").get<std::vector<std::int64_t>>(), value.sizes().vec());
      const auto offset = t.at("offset").get<std::size_t>();
      const auto numel = t.at("numel").get<std::int64_t>();
      ASSERT_LE(offset + 4 * numel, blob.size());
      auto read = torch::from_blob(const_cast<char*>(blob.data() + offset), {numel}, torch::kFloat).clone();
      EXPECT_TRUE(torch::equal(read, value.detach().reshape({numel}))) << "layer " << i << " " << name;
      ++tensors;
      bytes += 4 * numel;
    }
  }
  EXPECT_EQ(bytes, blob.size());
  EXPECT_EQ(tensors, 7u + 7u * 4 + 2u * 2);  // 7 conv weights, 7 BNs with 4 tensors, 2 Linears with 2
}

TEST(AotInductor, ErrorLineIsTheMarkedLineElseTheLastOne) {
  EXPECT_EQ(aoti::error_line("Traceback ...\n  File x\nOPTBENCH_AOTI_ERROR: RuntimeError: no compiler\nmore\n", 1),
            "RuntimeError: no compiler");
  EXPECT_EQ(aoti::error_line("loading\nSegmentation fault\n\n", 139), "Segmentation fault (exit status 139)");
  EXPECT_EQ(aoti::error_line("", -1), "no output, killed or not started");
}

TEST(AotInductor, SameReleaseIgnoresTheLocalSuffix) {
  EXPECT_TRUE(aoti::same_release("2.11.0+cu130", "2.11.0"));
  EXPECT_TRUE(aoti::same_release("2.11.0", "2.11.0"));
  EXPECT_FALSE(aoti::same_release("2.10.1+cu128", "2.11.0"));
  EXPECT_FALSE(aoti::same_release("2.11.0a0+git1234", "2.11.0"));
}

// A stand-in `torch` for the embedded script: just enough of torch.nn,
// frombuffer, export and aoti_compile_and_package to check the hand-over (every
// weight read at its offset into a layer of the right shape) without PyTorch.
// Its "package" holds the sum of each tensor the model ended with, by name.
constexpr const char* kFakeTorch = R"PY(import array
__version__ = "0.0+fake"
float32 = "float32"
class _T:
    def __init__(self, shape, data=None):
        self.shape, self.data = tuple(shape), data
    def reshape(self, shape):
        n = 1
        for s in shape:
            n *= s
        assert n == len(self.data)
        return _T(shape, self.data)
    def copy_(self, src):
        assert self.shape == src.shape
        self.data = src.data
def frombuffer(buf, dtype):
    assert dtype == float32
    return _T((len(buf) // 4,), array.array("f", bytes(buf)))
def randn(shape, device=None):
    return _T(shape)
class _Flags:
    allow_tf32 = True
class backends:
    class cuda:
        matmul = _Flags()
    cudnn = _Flags()
class no_grad:
    def __enter__(self):
        return self
    def __exit__(self, *a):
        return False
class _Module:
    def eval(self):
        return self
    def to(self, device):
        return self
    def tensors(self):
        return {k: v for k, v in vars(self).items() if isinstance(v, _T)}
class _NN:
    class Conv2d(_Module):
        def __init__(self, i, o, k, stride=1, padding=0, bias=True):
            assert not bias
            self.weight = _T((o, i, k, k))
    class BatchNorm2d(_Module):
        def __init__(self, n, eps=1e-5):
            self.weight, self.bias, self.running_mean, self.running_var = (_T((n,)) for _ in range(4))
    class ReLU(_Module):
        pass
    class AdaptiveAvgPool2d(_Module):
        def __init__(self, size):
            pass
    class Flatten(_Module):
        def __init__(self, start, end):
            pass
    class Linear(_Module):
        def __init__(self, i, o, bias=True):
            self.weight, self.bias = _T((o, i)), _T((o,))
    class Sequential(_Module):
        def __init__(self, *mods):
            self.mods = list(mods)
        def __iter__(self):
            return iter(self.mods)
nn = _NN
)PY";
constexpr const char* kFakeExport = R"PY(def export(model, args):
    return model
)PY";
constexpr const char* kFakeInductor = R"PY(import json
def aoti_compile_and_package(ep, package_path):
    import torch
    assert not torch.backends.cudnn.allow_tf32 and not torch.backends.cuda.matmul.allow_tf32, "TF32 on in the compile"
    sums = {}
    for i, m in enumerate(ep):
        for name, t in m.tensors().items():
            assert t.data is not None, "layer %d %s was not loaded" % (i, name)
            sums["%d.%s" % (i, name)] = sum(t.data)
    with open(package_path, "w") as f:
        json.dump(sums, f)
    return package_path
)PY";

// A folder holding the fake torch package (kFakeTorch, kFakeExport) whose
// aoti_compile_and_package is `inductor`, for PYTHONPATH.
struct FakeTorch {
  explicit FakeTorch(const std::string& inductor) {
    std::filesystem::create_directory(dir.path() + "/torch");
    std::ofstream(dir.path() + "/torch/__init__.py") << kFakeTorch;
    std::ofstream(dir.path() + "/torch/export.py") << kFakeExport;
    std::ofstream(dir.path() + "/torch/_inductor.py") << inductor;
  }
  aoti::TempDir dir{"optbench-test-"};
};

TEST(AotInductor, ScriptHandsEveryWeightToPython) {
  const std::string python = "/usr/bin/python3";
  if (!std::filesystem::exists(python)) GTEST_SKIP() << "no " << python;
  const FakeTorch fake(kFakeInductor);
  const ConvNet net = make_convnet(ConvNetSpec{}, 0);
  const aoti::Package pkg = [&] {
    const optbench::testing::ScopedEnv path("PYTHONPATH", fake.dir.path());
    return aoti::compile_package(python, net, {2, 3, 32, 32}, "cpu");
  }();
  ASSERT_EQ(pkg.error, "");
  EXPECT_EQ(pkg.info.at("torch_version"), "0.0+fake");
  EXPECT_GT(pkg.info.at("package_bytes").get<double>(), 0);
  std::ifstream in(pkg.path);
  const auto got = nlohmann::json::parse(in);
  std::size_t count = 0;
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    for (const auto& [name, t] : layer_tensors(net, i)) {
      const std::string key = std::to_string(i) + "." + name;
      ASSERT_TRUE(got.contains(key)) << key;
      const double sum = t.sum().item<double>();
      EXPECT_NEAR(got[key].get<double>(), sum, 1e-4 * (1 + t.abs().sum().item<double>())) << key;
      ++count;
    }
  EXPECT_EQ(got.size(), count);
}

// The export script under the real interpreter, where it cannot compile:
// it must parse, run, and end in one marked error line.
TEST(AotInductor, ScriptReportsAPythonWithoutTorch) {
  const std::string python = "/usr/bin/python3";
  if (!std::filesystem::exists(python)) GTEST_SKIP() << "no " << python;
  const aoti::PythonTorch probe = aoti::probe_python_torch(python);
  if (!probe.version.empty()) GTEST_SKIP() << python << " has torch " << probe.version;
  EXPECT_NE(probe.error.find("No module named 'torch'"), std::string::npos) << probe.error;
  const ConvNet net = make_convnet(ConvNetSpec{}, 0);
  const aoti::Package pkg = aoti::compile_package(python, net, {1, 3, 32, 32}, "cpu");
  EXPECT_EQ(pkg.error, "ModuleNotFoundError: No module named 'torch'");
  ASSERT_TRUE(pkg.dir);
  EXPECT_TRUE(std::filesystem::exists(pkg.dir->path() + "/weights.bin"));
  EXPECT_FALSE(std::filesystem::exists(pkg.path));
}

// The package cache: the key follows the weights and every input of the key; a
// stored package is reused without compiling (python here cannot compile at all);
// a failed compile stores nothing.
TEST(AotInductorCache, KeyTracksInputsAndAHitSkipsTheCompile) {
  const ConvNet net = make_convnet(ConvNetSpec{}, 0), other = make_convnet(ConvNetSpec{}, 1);
  const aoti::PackageKey key{{8, 3, 64, 64}, "cpu", "2.11.0", "2.11.0+cu130", "CPU"};
  aoti::PackageKey wider = key;
  wider.input_shape[0] = 16;
  aoti::PackageKey gpu = key;
  gpu.gpu = "NVIDIA H100 80GB HBM3";
  const std::string k = aoti::package_key(net, key);
  EXPECT_EQ(k, aoti::package_key(net, key));
  EXPECT_NE(k, aoti::package_key(other, key));
  EXPECT_NE(k, aoti::package_key(net, wider));
  EXPECT_NE(k, aoti::package_key(net, gpu));

  aoti::TempDir root("optbench-cache-");
  const aoti::Package miss = aoti::cached_package(root.path(), "/bin/false", net, key);
  EXPECT_FALSE(miss.error.empty());
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(root.path()) / "aoti" / k));

  const auto entry = std::filesystem::path(root.path()) / "aoti" / k;
  std::filesystem::create_directories(entry);
  std::ofstream(entry / "model.pt2") << "package";
  std::ofstream(entry / "info.json") << R"({"compile_s": 75.0})";
  const aoti::Package hit = aoti::cached_package(root.path(), "/bin/false", net, key);
  EXPECT_TRUE(hit.error.empty()) << hit.error;
  EXPECT_EQ(hit.path, (entry / "model.pt2").string());
  EXPECT_EQ(hit.info["cache"], "hit");
  EXPECT_EQ(hit.info["compile_s"], 75.0);
}

// The experiment's own cases() with a fake torch's compile: probed first with the
// real torch (once per process), so the experiment is supported and only the
// compile is fake; the package cache is the test's own.
struct FakeCompile {
  explicit FakeCompile(const std::string& inductor) : torch(inductor) {}
  std::vector<Case> cases(const RunContext& ctx) {
    const optbench::testing::ScopedEnv path("PYTHONPATH", torch.dir.path()), root("OPTBENCH_CACHE_DIR", cache.path());
    return experiment->cases(ctx);
  }
  FakeTorch torch;
  const Experiment* experiment = Registry::instance().match("^aot_inductor$").at(0);
  aoti::TempDir cache{"optbench-cache-"};
};

// A compile that fails where torch is there is a failure on this machine, not a
// skip (a skipped case reads as "not applicable here", and a GPU session's checks
// pass it): the aot_inductor variant is kept, and building it throws the reason.
TEST(AotInductor, AFailedCompileIsTheVariantsErrorNotASkip) {
  const RunContext ctx{DeviceKind::cpu, RunProfile::quick};
  FakeCompile f(
      "def aoti_compile_and_package(ep, package_path):\n    raise RuntimeError('planted: no C++ compiler')\n");
  if (const std::string why = f.experiment->unsupported_reason(ctx); !why.empty()) GTEST_SKIP() << why;
  const std::vector<Case> cases = f.cases(ctx);
  ASSERT_EQ(cases.size(), 1u);
  const Case& c = cases[0];
  EXPECT_EQ(c.skip_reason, "");
  ASSERT_EQ(c.variants.size(), 2u);
  EXPECT_EQ(c.variants[1].name, "aot_inductor");
  try {
    (void)c.variants[1].make();
    ADD_FAILURE() << "building the variant of a failed compile did not throw";
  } catch (const std::runtime_error& err) {
    EXPECT_NE(std::string(err.what()).find("AOTInductor compilation failed: RuntimeError: planted"), std::string::npos)
        << err.what();
  }
}

// The standard profile compiles twice (batch 8 and 1): each compile is weighed
// against the budget left when it starts, not when the first one did. Compiles
// of ~1.5 s here (the cache's record says 1 s), 2.5 s of budget: the first fits,
// the second does not.
TEST(AotInductor, EachCompileIsWeighedAgainstTheBudgetLeftWhenItStarts) {
  RunContext ctx{DeviceKind::cpu, RunProfile::standard};
  FakeCompile f(std::string("import time\n") + kFakeInductor +
                "_write = aoti_compile_and_package\n"
                "def aoti_compile_and_package(ep, package_path):\n    time.sleep(1.5)\n"
                "    return _write(ep, package_path)\n");
  if (const std::string why = f.experiment->unsupported_reason(ctx); !why.empty()) GTEST_SKIP() << why;
  const auto seen = std::filesystem::path(f.cache.path()) / "aoti" / "earlier";
  std::filesystem::create_directories(seen);
  std::ofstream(seen / "info.json") << R"({"compile_s": 1.0, "export_s": 0.0, "key": {"device": "cpu"}})";
  ctx.budget_left_s = 2.5;
  const std::vector<Case> cases = f.cases(ctx);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].skip_reason, "");
  EXPECT_TRUE(is_budget_reason(cases[1].skip_reason)) << cases[1].name << ": '" << cases[1].skip_reason << "'";
}
