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

// One child's scratch folder, made under $TMPDIR (or /tmp) and named for the
// process that owns it (optbench-scratch-<pid>-XXXXXX), removed with everything
// in it when this object goes: after the child has been reaped. An owner that
// could not remove its folder (a second Ctrl-C exits at once, SIGKILL) leaves it
// to the next one made in that parent folder, which removes every scratch folder
// whose owner no longer exists.
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

// Whether `path` lies on a file system held in RAM (tmpfs, ramfs), where a file's
// pages cannot be evicted to storage: reading it back is a memory read.
bool on_ram_filesystem(const std::string& path);

// Removes the scratch folders in `parent` whose owning process has ended; returns
// how many. Folders of live processes, of other users' processes, and names not
// of this pattern are left alone.
int remove_orphaned_scratch(const std::string& parent);

}  // namespace optbench
