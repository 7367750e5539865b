#pragma once
// Producing an AOTInductor package for the ConvNet. AOTInductor compiles from
// Python (torch.export.export, then torch._inductor.aoti_compile_and_package),
// so the weights go to Python as raw little-endian float32 with a JSON layer
// description, an embedded script rebuilds the same network in torch.nn, loads
// them, exports and compiles; C++ then loads the .pt2 with
// AOTIModelPackageLoader. Nothing here needs the loader itself, so the
// failure paths (no Python, no torch, a compile error) are tested on their own.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workloads/models/convnet.h"

namespace optbench::workloads::aoti {

// A private directory under the process's scratch folder (harness/scratch_dir.h),
// removed with everything in it.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// $OPTBENCH_PYTHON, else python3 from PATH.
std::string python_executable();

struct PythonTorch {
  std::string version;  // torch.__version__; empty when torch did not import
  bool cuda = false;    // torch.cuda.is_available()
  std::string error;    // why torch did not import (one line)
};
PythonTorch probe_python_torch(const std::string& python);

// "2.11.0+cu130" and "2.11.0" are the same release (local suffix dropped).
bool same_release(const std::string& python_version, const std::string& libtorch_version);

// Writes dir/weights.bin (every tensor of every layer, float32, in order) and
// returns the layer list for Python: kind, shape attributes, and per tensor its
// name, shape, byte offset and element count.
nlohmann::json write_weights(const ConvNet& net, const std::string& dir);

// What went wrong, in one line, from the script's combined output and exit
// status: its marked error line, else the last line printed.
std::string error_line(const std::string& output, int exit_status);

struct Package {
  std::shared_ptr<TempDir> dir;                    // owns the files; the package lives as long as this
  std::string path;                                // the .pt2
  std::string error;                               // non-empty: no package, and why (one line)
  nlohmann::json info = nlohmann::json::object();  // export_s, compile_s, torch_version, package_bytes
};

// Exports and compiles `net` (on the CPU) for inputs of `input_shape` on
// `device` ("cpu" or "cuda"), fp32 with TF32 off.
Package compile_package(const std::string& python, const ConvNet& net, const std::vector<std::int64_t>& input_shape,
                        const std::string& device);

}  // namespace optbench::workloads::aoti
