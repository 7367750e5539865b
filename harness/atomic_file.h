#pragma once
// Writing a file so that readers only ever see a whole version of it and a
// shared folder cannot redirect the write. Each version goes to a fresh
// temporary file beside the target, "<target>.tmp-<pid>", created exclusively
// (O_CREAT|O_EXCL|O_NOFOLLOW: a file or symbolic link planted at that name is
// never opened, let alone followed), then renamed over the target. A failed
// write removes its temporary file and throws WriteError; the target keeps its
// last whole version.
#include <stdexcept>
#include <string>

namespace optbench {

// A file could not be written (disk full, file size limit, permissions, an I/O
// error). The run ends with kExitWriteFailed.
struct WriteError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TempFile {
  int fd = -1;
  std::string path;
};

// "<target>.tmp-<pid>", or "<target>.tmp-<pid>-<n>" while that name is taken.
TempFile create_temp_beside(const std::string& target);
// All of data, or WriteError naming path and the reason.
void write_fully(int fd, const std::string& data, const std::string& path);
// What a process that died mid-write left: "<target>.tmp-<digits>[-<digits>]"
// in target's folder. Only for the process that holds target's lock (no one
// else writes these names then).
void remove_leftover_temps(const std::string& target);
// "<folder>", "<name>" of a path ("." for a bare name).
std::pair<std::string, std::string> split_path(const std::string& path);

}  // namespace optbench
