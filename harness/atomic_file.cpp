#include "harness/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "harness/signals.h"

namespace optbench {
namespace {

bool all_digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

// "<digits>" or "<digits>-<digits>": the suffixes create_temp_beside makes.
bool temp_suffix(const std::string& s) {
  const auto dash = s.find('-');
  return dash == std::string::npos ? all_digits(s) : all_digits(s.substr(0, dash)) && all_digits(s.substr(dash + 1));
}

}  // namespace

std::pair<std::string, std::string> split_path(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

TempFile create_temp_beside(const std::string& target) {
  const std::string base = target + ".tmp-" + std::to_string(::getpid());
  for (int n = 0; n < 1000; ++n) {
    TempFile t;
    t.path = n == 0 ? base : base + "-" + std::to_string(n);
    // Registered before it exists: a second Ctrl-C between open and rename removes it.
    set_abrupt_cleanup(AbruptSlot::own_temp, t.path);
    t.fd = ::open(t.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (t.fd >= 0) return t;
    if (errno != EEXIST) {
      const int err = errno;
      set_abrupt_cleanup(AbruptSlot::own_temp, "");
      throw WriteError("cannot create '" + t.path + "': " + std::strerror(err));
    }
    // Taken: left by a dead process with this pid, or planted. Never reused.
  }
  set_abrupt_cleanup(AbruptSlot::own_temp, "");
  throw WriteError("cannot create a temporary file beside '" + target + "': 1000 names taken");
}

void write_fully(int fd, const std::string& data, const std::string& path) {
  std::size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw WriteError("cannot write '" + path + "': " + std::strerror(n < 0 ? errno : ENOSPC));
    off += static_cast<std::size_t>(n);
  }
}

void remove_leftover_temps(const std::string& target) {
  const auto [folder, name] = split_path(target);
  const std::string prefix = name + ".tmp-";
  DIR* d = ::opendir(folder.c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n.rfind(prefix, 0) == 0 && temp_suffix(n.substr(prefix.size())))
      ::unlinkat(::dirfd(d), n.c_str(), 0);  // a symbolic link is removed, never followed
  }
  ::closedir(d);
}

}  // namespace optbench
