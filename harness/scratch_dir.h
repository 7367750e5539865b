#pragma once
// An experiment's temporary files (storage_reads' image files, AOTInductor's
// export folder) go under a folder the suite makes for that experiment's
// process and removes once the process has ended, however it ended: a crashed,
// hung or killed child cannot remove its own. The child learns the folder from
// OPTBENCH_SCRATCH; a process started without it (a test, a user's own binary)
// uses the system's temporary folder.
#include <string>
#include <vector>

namespace optbench {

inline constexpr const char* kScratchEnv = "OPTBENCH_SCRATCH";

// Where this process makes its temporary folders.
std::string scratch_parent();

// One child's scratch folder, made under $TMPDIR (or /tmp), removed with
// everything in it when this object goes: after the child has been reaped.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  // This process's environment with OPTBENCH_SCRATCH naming the folder: the child's.
  std::vector<std::string> child_env() const;

 private:
  std::string path_;
};

}  // namespace optbench
