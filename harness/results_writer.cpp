#include "harness/results_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "harness/signals.h"

namespace optbench {
namespace {

// A file system without locks (some network mounts): the file is written
// unguarded rather than not at all.
bool locks_unsupported(int err) { return err == ENOLCK || err == EOPNOTSUPP || err == ENOSYS; }

}  // namespace

ResultsWriter::ResultsWriter(std::string path, nlohmann::json environment, nlohmann::json config)
    : path_(std::move(path)) {
  doc_ = {{"schema", kSchemaName},
          {"schema_version", kSchemaVersion},
          {"status", to_string(RunStatus::running)},
          {"environment", std::move(environment)},
          {"config", std::move(config)},
          {"experiments", nlohmann::json::array()}};
  take_lock();
  remove_leftover_temps(path_);
  flush();
}

ResultsWriter::~ResultsWriter() {
  if (locked_fd_ >= 0) ::close(locked_fd_);
}

void ResultsWriter::take_lock() {
  // The file in place may be replaced between open and flock (by the run that
  // holds it): then the lock was taken on a version no longer there; try again.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) return;  // the first version is created with link(), which never replaces
      if (errno == ELOOP)
        throw WriteError("'" + path_ + "' is a symbolic link; give the real path of the results file");
      throw WriteError("cannot open '" + path_ + "': " + std::strerror(errno));
    }
    struct stat held{}, now{};
    if (::fstat(fd, &held) != 0 || !S_ISREG(held.st_mode)) {
      ::close(fd);
      throw WriteError("'" + path_ + "' is not a regular file");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0 && !locks_unsupported(errno)) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK)
        throw OutputBusy("'" + path_ +
                         "' is being written by another optbench run; wait for it to end or choose "
                         "another --out");
      throw WriteError("cannot lock '" + path_ + "': " + std::strerror(err));
    }
    if (::stat(path_.c_str(), &now) == 0 && now.st_dev == held.st_dev && now.st_ino == held.st_ino) {
      locked_fd_ = fd;
      return;
    }
    ::close(fd);
  }
  throw WriteError("cannot lock '" + path_ + "': it keeps being replaced");
}

std::size_t ResultsWriter::begin_experiment(nlohmann::json info) {
  info["status"] = to_string(ExperimentStatus::running);
  info["cases"] = nlohmann::json::array();
  doc_["experiments"].push_back(std::move(info));
  flush();
  return doc_["experiments"].size() - 1;
}

void ResultsWriter::add_case(std::size_t experiment, nlohmann::json result) {
  doc_["experiments"].at(experiment)["cases"].push_back(std::move(result));
  flush();
}

namespace {

void add_once(nlohmann::json& experiment, nlohmann::json fields) {
  for (auto& [key, value] : fields.items()) {
    if (experiment.contains(key))
      throw std::logic_error("results: experiment " + experiment.value("name", std::string("?")) + " already has '" +
                             key + "'");
    experiment[key] = std::move(value);
  }
}

}  // namespace

void ResultsWriter::end_experiment(std::size_t experiment, ExperimentStatus status, const std::string& reason,
                                   double wall_s) {
  auto& e = doc_["experiments"].at(experiment);
  // The status is the record's life (running, then its outcome); the rest is added once.
  e["status"] = to_string(status);
  nlohmann::json fields = nlohmann::json::object();
  if (!reason.empty()) fields["reason"] = reason;
  if (wall_s >= 0) fields["wall_s"] = wall_s;
  add_once(e, std::move(fields));
  flush();
}

void ResultsWriter::add_repeats(std::size_t experiment, std::vector<nlohmann::json> records) {
  if (records.empty()) return;
  auto& e = doc_["experiments"].at(experiment);
  if (!e.contains("repeats")) e["repeats"] = nlohmann::json::array();
  for (auto& r : records) e["repeats"].push_back(std::move(r));
  flush();
}

void ResultsWriter::add_breakdowns(std::size_t experiment, const std::string& case_name,
                                   const nlohmann::json& by_variant) {
  for (auto& c : doc_["experiments"].at(experiment)["cases"]) {
    if (c.value("name", "") != case_name || !c.contains("variants")) continue;
    for (auto& v : c["variants"]) {
      const auto it = by_variant.find(v.value("name", ""));
      if (it == by_variant.end()) continue;
      if (v.contains("breakdown"))
        throw std::logic_error("results: variant " + case_name + "/" + v.value("name", "") +
                               " already has a breakdown");
      v["breakdown"] = *it;
    }
  }
  flush();
}

void ResultsWriter::add_fields(std::size_t experiment, nlohmann::json fields) {
  add_once(doc_["experiments"].at(experiment), std::move(fields));
  flush();
}

void ResultsWriter::add_fields(const std::vector<std::pair<std::size_t, nlohmann::json>>& fields) {
  for (const auto& [experiment, f] : fields) add_once(doc_["experiments"].at(experiment), f);
  flush();
}

void ResultsWriter::finish(RunStatus status) {
  doc_["status"] = to_string(status);
  flush();
}

void ResultsWriter::flush() {
  // Non-finite numbers have no JSON spelling; nlohmann writes them as null,
  // which the schema allows wherever a statistic may be undefined.
  const std::string text = doc_.dump(1) + '\n';
  TempFile tmp = create_temp_beside(path_);
  auto discard = [&](const std::string& why) {
    ::close(tmp.fd);
    ::unlink(tmp.path.c_str());
    set_abrupt_cleanup(AbruptSlot::own_temp, "");
    throw WriteError(why);
  };
  try {
    write_fully(tmp.fd, text, tmp.path);
  } catch (const WriteError& e) {
    discard(e.what());
  }
  // The new version carries the lock before it becomes visible: the file in
  // place is held by this run at every moment.
  if (::flock(tmp.fd, LOCK_EX | LOCK_NB) != 0 && !locks_unsupported(errno))
    discard("cannot lock '" + tmp.path + "': " + std::strerror(errno));
  if (locked_fd_ < 0) {
    // No file there when the run started: link() creates it only if it still
    // does not exist, so two runs starting together cannot both create it.
    if (::link(tmp.path.c_str(), path_.c_str()) == 0) {
      ::unlink(tmp.path.c_str());
    } else if (errno == EEXIST) {
      ::close(tmp.fd);
      ::unlink(tmp.path.c_str());
      set_abrupt_cleanup(AbruptSlot::own_temp, "");
      take_lock();  // OutputBusy while the other run holds it
      flush();
      return;
    } else if (errno == EPERM || errno == EOPNOTSUPP || errno == ENOSYS) {
      // A file system without hard links: rename, without the guard on creation.
      if (::rename(tmp.path.c_str(), path_.c_str()) != 0)
        discard("cannot move results into '" + path_ + "': " + std::strerror(errno));
    } else {
      discard("cannot create '" + path_ + "': " + std::strerror(errno));
    }
  } else if (::rename(tmp.path.c_str(), path_.c_str()) != 0) {
    discard("cannot move results into '" + path_ + "': " + std::strerror(errno));
  }
  set_abrupt_cleanup(AbruptSlot::own_temp, "");
  if (locked_fd_ >= 0) ::close(locked_fd_);
  locked_fd_ = tmp.fd;
}

}  // namespace optbench
