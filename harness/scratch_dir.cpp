#include "harness/scratch_dir.h"

#include <linux/magic.h>
#include <signal.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>

#include "harness/subprocess.h"

namespace optbench {
namespace {

constexpr std::string_view kPrefix = "optbench-scratch-";

std::string temp_root() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

// The owner's pid in "optbench-scratch-<pid>-XXXXXX"; 0 for any other name.
pid_t owner_of(const std::string& name) {
  if (name.rfind(kPrefix, 0) != 0) return 0;
  const std::string rest = name.substr(kPrefix.size());
  const auto dash = rest.find('-');
  if (dash == 0 || dash == std::string::npos || rest.find_first_not_of("0123456789") != dash) return 0;
  try {
    return static_cast<pid_t>(std::stol(rest.substr(0, dash)));
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

std::string scratch_parent() {
  if (const char* s = std::getenv(kScratchEnv); s && *s) return s;
  return std::filesystem::temp_directory_path().string();
}

bool on_ram_filesystem(const std::string& path) {
  struct statfs st{};
  if (::statfs(path.c_str(), &st) != 0) return false;
  return st.f_type == TMPFS_MAGIC || st.f_type == RAMFS_MAGIC;
}

int remove_orphaned_scratch(const std::string& parent) {
  namespace fs = std::filesystem;
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const pid_t owner = owner_of(it->path().filename().string());
    // ESRCH: no such process. EPERM (another user's live process) and success keep it.
    if (owner <= 0 || ::kill(owner, 0) == 0 || errno != ESRCH) continue;
    std::error_code rm;
    if (fs::remove_all(it->path(), rm) > 0 && !rm) ++removed;
  }
  return removed;
}

ScratchDir::ScratchDir() {
  const std::string root = temp_root();
  remove_orphaned_scratch(root);
  std::string tmpl = root + "/" + std::string(kPrefix) + std::to_string(::getpid()) + "-XXXXXX";
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
