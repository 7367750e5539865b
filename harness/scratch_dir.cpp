#include "harness/scratch_dir.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "harness/subprocess.h"

namespace optbench {

std::string scratch_parent() {
  if (const char* s = std::getenv(kScratchEnv); s && *s) return s;
  return std::filesystem::temp_directory_path().string();
}

ScratchDir::ScratchDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/optbench-scratch-XXXXXX";
  if (!::mkdtemp(tmpl.data()))
    throw std::runtime_error("cannot make a scratch folder " + tmpl + ": " + std::strerror(errno));
  path_ = tmpl;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> ScratchDir::child_env() const {
  return environment_with({std::string(kScratchEnv) + "=" + path_});
}

}  // namespace optbench
