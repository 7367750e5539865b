#include "harness/part_files.h"

#include <dirent.h>
#include <unistd.h>

#include <set>

#include "harness/atomic_file.h"

namespace optbench {
namespace {

// Experiment names: letters, digits, '_' (never '.', so a part's own temporary
// files, "<part>.tmp-...", are recognised by their part's name).
bool experiment_name(const std::string& s) {
  return !s.empty() &&
         s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == std::string::npos;
}

}  // namespace

std::string part_path(const std::string& out, const std::string& experiment) { return out + ".part-" + experiment; }

void remove_part(const std::string& part) {
  ::unlink(part.c_str());
  remove_leftover_temps(part);
}

void remove_leftover_parts(const std::string& out) {
  const auto [folder, name] = split_path(out);
  const std::string prefix = name + ".part-";
  std::set<std::string> parts;
  if (DIR* d = ::opendir(folder.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n.rfind(prefix, 0) != 0) continue;
      const std::string experiment = n.substr(prefix.size(), n.find('.', prefix.size()) - prefix.size());
      if (experiment_name(experiment)) parts.insert(folder + "/" + prefix + experiment);
    }
    ::closedir(d);
  }
  for (const auto& p : parts) remove_part(p);
}

}  // namespace optbench
