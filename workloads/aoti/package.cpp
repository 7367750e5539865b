#include "workloads/aoti/package.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "harness/build_info.h"
#include "harness/scratch_dir.h"
#include "harness/subprocess.h"

namespace optbench::workloads::aoti {
namespace {

namespace fs = std::filesystem;

struct Ran {
  std::string output;  // stdout and stderr together
  int status = -1;     // exit status; -1 when it did not exit normally
};

// argv run to its end with stderr in its output; env entries added, in cwd if given.
Ran run_command(std::vector<std::string> argv, const std::vector<std::string>& env = {}, const std::string& cwd = {}) {
  SpawnOptions o;
  o.argv = std::move(argv);
  o.search_path = true;
  o.err = Stdio::to_stdout;
  // A compile takes minutes: it must not outlive a process killed with SIGKILL
  // (a CI job's timeout), whose own children die with it.
  o.die_with_parent = SIGKILL;
  if (!env.empty()) o.env = environment_with(env);
  o.cwd = cwd;
  Ran r;
  try {
    const Captured c = run_captured(o);
    r.output = c.output;
    r.status = c.exit_code;
  } catch (const std::exception& e) {
    r.output = e.what();
  }
  return r;
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream f(p);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + p.string());
}

}  // namespace

TempDir::TempDir(const std::string& prefix) {
  std::string tmpl = scratch_parent() + "/" + prefix + "XXXXXX";
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary directory from " + tmpl);
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string python_executable() { return optbench::python_executable(); }

PythonTorch probe_python_torch(const std::string& python) {
  const Ran r = run_command({python, "-c",
                             "import sys; sys.path[:] = [p for p in sys.path if p]; import torch; "
                             "print(\"OPTBENCH_TORCH\", torch.__version__, int(torch.cuda.is_available()))"});
  PythonTorch p;
  const auto at = r.output.rfind("OPTBENCH_TORCH ");
  if (r.status == 0 && at != std::string::npos) {
    std::istringstream in(r.output.substr(at + 15));
    int cuda = 0;
    in >> p.version >> cuda;
    p.cuda = cuda != 0;
  }
  if (p.version.empty()) p.error = error_line(r.output, r.status);
  return p;
}

bool same_release(const std::string& python_version, const std::string& libtorch_version) {
  return python_version.substr(0, python_version.find('+')) == libtorch_version;
}

nlohmann::json write_weights(const ConvNet& net, const std::string& dir) {
  static_assert(sizeof(float) == 4, "float32 weights");
  std::ofstream bin(fs::path(dir) / "weights.bin", std::ios::binary);
  std::int64_t offset = 0;
  nlohmann::json layers = nlohmann::json::array();
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    nlohmann::json l = to_json(net.layers[i]);
    l["tensors"] = nlohmann::json::array();
    for (const auto& [name, t] : layer_tensors(net, i)) {
      const auto c = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
      const auto bytes = static_cast<std::streamsize>(c.numel() * 4);
      bin.write(static_cast<const char*>(c.data_ptr()), bytes);
      l["tensors"].push_back({{"name", name}, {"shape", c.sizes().vec()}, {"offset", offset}, {"numel", c.numel()}});
      offset += bytes;
    }
    layers.push_back(std::move(l));
  }
  bin.close();
  if (!bin) throw std::runtime_error("cannot write weights to " + dir);
  return layers;
}

std::string error_line(const std::string& output, int exit_status) {
  const std::string marker = "OPTBENCH_AOTI_ERROR: ";
  std::istringstream in(output);
  std::string line, last, marked;
  while (std::getline(in, line)) {
    if (line.rfind(marker, 0) == 0) marked = line.substr(marker.size());
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  if (!marked.empty()) return marked;
  const std::string status = exit_status < 0 ? "killed or not started" : "exit status " + std::to_string(exit_status);
  return last.empty() ? "no output, " + status : last + " (" + status + ")";
}

Package compile_package(const std::string& python, const ConvNet& net, const std::vector<std::int64_t>& input_shape,
                        const std::string& device) {
  Package pkg;
  pkg.dir = std::make_shared<TempDir>("optbench-aoti-");
  const fs::path dir = pkg.dir->path();
  pkg.path = (dir / "model.pt2").string();
  const nlohmann::json spec = {{"device", device},
                               {"input_shape", input_shape},
                               {"layers", write_weights(net, dir.string())},
                               {"weights", (dir / "weights.bin").string()},
                               {"package", pkg.path},
                               {"python_dir", source_dir() + "/workloads/python"}};
  write_text(dir / "spec.json", spec.dump());
  // In the package's folder, with an Inductor cache of its own: the compile time
  // reported is a cold compile.
  const Ran r = run_command({python, source_dir() + "/workloads/python/export_aoti.py", "spec.json", "result.json"},
                            {"TORCHINDUCTOR_CACHE_DIR=" + (dir / "inductor_cache").string()}, dir.string());
  std::ifstream result(dir / "result.json");
  if (r.status != 0 || !result || !fs::exists(pkg.path)) {
    pkg.error = error_line(r.output, r.status);
    return pkg;
  }
  nlohmann::json info;
  result >> info;
  info["package_bytes"] = fs::file_size(pkg.path);
  info["inductor_cache"] = "cold (a fresh TORCHINDUCTOR_CACHE_DIR)";
  pkg.info = std::move(info);
  return pkg;
}

}  // namespace optbench::workloads::aoti
