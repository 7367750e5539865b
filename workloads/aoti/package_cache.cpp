#include "workloads/aoti/package_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "harness/budget_plan.h"

namespace optbench::workloads::aoti {
namespace {

namespace fs = std::filesystem;

// FNV-1a, 64 bits: a content key, not a security boundary.
std::uint64_t fnv1a(const std::string& bytes, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

std::string cache_root() {
  if (const char* d = std::getenv("OPTBENCH_CACHE_DIR")) return std::string(d) == "off" ? "" : d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/optbench";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/optbench";
  return "";
}

std::string package_key(const ConvNet& net, const PackageKey& key) {
  TempDir tmp("optbench-aoti-key-");
  const nlohmann::json layers = write_weights(net, tmp.path());
  const nlohmann::json meta = {{"layers", layers},         {"shape", key.input_shape},         {"device", key.device},
                               {"libtorch", key.libtorch}, {"python_torch", key.python_torch}, {"gpu", key.gpu}};
  std::uint64_t h = fnv1a(read_file(fs::path(tmp.path()) / "weights.bin"));
  h = fnv1a(meta.dump(), h);
  std::ostringstream os;
  os << std::hex << std::setw(16) << std::setfill('0') << h;
  return os.str();
}

double expected_compile_s(const std::string& root, const std::string& device) {
  double longest = 0;
  std::error_code ec;
  if (!root.empty() && fs::is_directory(fs::path(root) / "aoti", ec)) {
    for (const auto& entry : fs::directory_iterator(fs::path(root) / "aoti", ec)) {
      try {
        const auto info = nlohmann::json::parse(read_file(entry.path() / "info.json"));
        if (info.value("key", nlohmann::json::object()).value("device", "") == device)
          longest = std::max(longest, info.value("compile_s", 0.0) + info.value("export_s", 0.0));
      } catch (const std::exception&) {  // a half-written or foreign entry says nothing
      }
    }
  }
  return longest > 0 ? longest : device == "cpu" ? 120.0 : 90.0;
}

Package cached_package(const std::string& root, const std::string& python, const ConvNet& net, const PackageKey& key,
                       std::optional<double> max_compile_s) {
  auto over_budget = [&]() -> std::optional<Package> {
    if (!max_compile_s) return std::nullopt;
    Package p;
    p.error = refuse_one_time_setup("a cold AOTInductor compile", expected_compile_s(root, key.device), max_compile_s);
    if (p.error.empty()) return std::nullopt;
    return p;
  };
  if (root.empty()) {
    if (auto p = over_budget()) return *p;
    Package p = compile_package(python, net, key.input_shape, key.device);
    if (p.error.empty()) p.info["cache"] = "off";
    return p;
  }
  const fs::path entry = fs::path(root) / "aoti" / package_key(net, key);
  if (fs::exists(entry / "model.pt2") && fs::exists(entry / "info.json")) {
    Package hit;
    hit.path = (entry / "model.pt2").string();
    try {
      hit.info = nlohmann::json::parse(read_file(entry / "info.json"));
    } catch (const nlohmann::json::exception&) {
      hit.info = nlohmann::json::object();
    }
    hit.info["cache"] = "hit";
    hit.info["cache_path"] = entry.string();
    return hit;
  }
  if (auto p = over_budget()) return *p;
  Package p = compile_package(python, net, key.input_shape, key.device);
  if (!p.error.empty()) return p;
  p.info["cache"] = "miss";
  p.info["key"] = {{"input_shape", key.input_shape},
                   {"device", key.device},
                   {"libtorch", key.libtorch},
                   {"python_torch", key.python_torch},
                   {"gpu", key.gpu}};
  // Stored whole or not at all: written beside, then renamed into place.
  std::error_code ec;
  const fs::path staging = fs::path(root) / "aoti" / (".staging-" + std::to_string(getpid()));
  fs::create_directories(staging, ec);
  fs::copy_file(p.path, staging / "model.pt2", fs::copy_options::overwrite_existing, ec);
  if (!ec) {
    nlohmann::json stored = p.info;
    stored["compiled_in_this_run"] = false;  // what a later hit reads
    std::ofstream(staging / "info.json") << stored.dump(1);
    fs::rename(staging, entry, ec);
  }
  if (ec) fs::remove_all(staging, ec);
  return p;
}

}  // namespace optbench::workloads::aoti
