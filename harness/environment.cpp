#include "harness/environment.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <sys/utsname.h>
#include <torch/version.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "harness/build_info.h"
#include "harness/compat/numerics_flags.h"
#include "harness/malloc_regime.h"
#include "harness/nvml.h"
#include "harness/subprocess.h"

#if OPTBENCH_WITH_CUDA
#include "harness/cuda/cuda_backend.h"
#endif

namespace optbench {
namespace {

using json = nlohmann::json;

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// What a command prints, "" when it fails (git absent, not a checkout).
std::string command_output(const std::vector<std::string>& argv) {
  SpawnOptions o;
  o.argv = argv;
  o.search_path = true;
  o.err = Stdio::discard;
  try {
    const Captured c = run_captured(o);
    return c.exit_code == 0 ? trim(c.output) : "";
  } catch (const std::exception&) {
    return "";
  }
}

std::string file_field(const std::string& path, const std::string& key, char sep) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(key, 0) != 0) continue;
    auto pos = line.find(sep);
    if (pos == std::string::npos) continue;
    std::string v = line.substr(pos + 1);
    v.erase(0, v.find_first_not_of(" \t\""));
    while (!v.empty() && (v.back() == '"' || v.back() == ' ')) v.pop_back();
    return v;
  }
  return "";
}

std::string utc_now_iso() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// BLAS/oneDNN libraries mapped into this process: CPU numbers depend on them
// (Debian's default reference BLAS is an order of magnitude slower than OpenBLAS).
json math_libraries() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  json libs = json::array();
  while (std::getline(maps, line)) {
    const auto pos = line.find('/');
    if (pos == std::string::npos) continue;
    const std::string path = line.substr(pos);
    const bool math = path.find("blas") != std::string::npos || path.find("mkl") != std::string::npos ||
                      path.find("dnnl") != std::string::npos || path.find("lapack") != std::string::npos;
    if (math && std::find(libs.begin(), libs.end(), path) == libs.end()) libs.push_back(path);
  }
  return libs;
}

// Only the extensions that select other kernels, so that two machines alike in these
// run the same code; each one's reason:
//   avx2            ATen's AVX2 kernels (the floor of at::get_cpu_capability()'s AVX2);
//   avx512f         ATen's AVX512 kernels (with bw/vl/dq, which every AVX-512 server
//                   CPU has beside it) and oneDNN's 512-bit ones;
//   avx_vnni, avx512_vnni  oneDNN's int8 dot products, 256- and 512-bit;
//   avx512_bf16     native bf16 dot products: without it (or AMX) bf16 is converted to
//                   fp32 and back, emulated, and runs slower than fp32;
//   avx512_fp16     native fp16 arithmetic;
//   amx_tile, amx_bf16, amx_int8, amx_fp16  oneDNN's tile matmuls per type;
//   asimd, asimddp, i8mm, bf16, sve, sve2   ARM's NEON, its int8 dot products and
//                   matrix multiply, native bf16 and the scalable vectors (ATen's
//                   SVE256 kernels need sve with bf16).
// Flags that do not change a kernel (sse*, popcnt, the AVX-512 subsets above) stay out:
// a longer list would split runs of the same code into series.
constexpr std::array<const char*, 16> kIsaFlags = {
    "avx2",     "avx512f",  "avx_vnni", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16",
    "amx_int8", "amx_fp16", "asimd",    "asimddp",     "i8mm",        "bf16",        "sve",      "sve2"};

json git_info() {
  const std::string dir = source_dir();
  const std::string sha = command_output({"git", "-C", dir, "rev-parse", "HEAD"});
  if (sha.empty()) return {{"sha", nullptr}, {"dirty", nullptr}};
  const std::string status = command_output({"git", "-C", dir, "status", "--porcelain", "--untracked-files=no"});
  return {{"sha", sha}, {"dirty", !status.empty()}};
}

}  // namespace

json cpu_isa(std::istream& cpuinfo) {
  std::string line;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    // x86 lists "flags", ARM "Features"; every core repeats them: the first is enough
    if (key != "flags" && key != "Features") continue;
    std::istringstream words(line.substr(colon + 1));
    const std::set<std::string> have{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    json isa = json::array();
    for (const char* flag : kIsaFlags)
      if (have.count(flag)) isa.push_back(flag);
    return isa;
  }
  return nullptr;
}

json torch_cpu_capability() {
  try {
    const std::string c = at::get_cpu_capability();
    return c.empty() ? json(nullptr) : json(c);
  } catch (const std::exception&) {
    return nullptr;
  }
}

json capture_environment(DeviceKind device, const std::vector<std::string>& argv) {
  json env;
  env["date"] = utc_now_iso();
  env["optbench_version"] = OPTBENCH_VERSION;
  env["git"] = git_info();
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  env["command_line"] = cmd;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  env["host"] = host;
  utsname u{};
  uname(&u);
  env["os"] = {{"name", file_field("/etc/os-release", "PRETTY_NAME", '=')},
               {"kernel", std::string(u.sysname) + " " + u.release},
               {"arch", u.machine}};
  std::ifstream cpuinfo("/proc/cpuinfo");
  env["cpu"] = {{"model", file_field("/proc/cpuinfo", "model name", ':')},
                {"logical_cores", std::thread::hardware_concurrency()},
                {"torch_threads", at::get_num_threads()},
                {"isa", cpu_isa(cpuinfo)},
                {"torch_capability", torch_cpu_capability()},
                {"math_libraries", math_libraries()}};
  env["libtorch"] = {{"version", TORCH_VERSION}, {"cuda", cuda_compiled()}};
  env["malloc"] = to_json(pin_malloc_regime());
  env["device"] = to_string(device);
  env["numerics"] = compat::to_json(compat::read_numerics_flags());
#if OPTBENCH_WITH_CUDA
  env["cuda"] = cuda::environment();
#else
  env["cuda"] = nullptr;
#endif
  env["nvml"] = {{"available", nvml::available()}, {"driver_version", nvml::driver_version()}};
  if (!nvml::available()) env["nvml"]["reason"] = nvml::unavailable_reason();
  return env;
}

}  // namespace optbench
