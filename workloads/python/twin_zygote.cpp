#include "workloads/python/twin_zygote.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <stdexcept>

#include "workloads/python/python_twin.h"  // python_step_server()

namespace optbench::workloads {
namespace {

constexpr int kConnectS = 120;  // a fork and a connect: milliseconds, unless the twin died

// A socket in Linux's abstract namespace: no file to leave behind if this
// process dies. Its name travels as "@name" (step_server.py reads it so).
struct Listener {
  int fd = -1;
  std::string name;
  explicit Listener(unsigned n) {
    name = "optbench-twin-" + std::to_string(::getpid()) + "-" + std::to_string(n);
    fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path + 1, name.data(), name.size());  // sun_path[0] = 0: abstract
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd, 1) != 0)
      throw std::runtime_error(std::string("cannot listen for a Python twin: ") + std::strerror(errno));
  }
  ~Listener() {
    if (fd >= 0) ::close(fd);
  }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
};

pid_t peer_pid(int fd) {
  ucred c{};
  socklen_t len = sizeof c;
  return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) == 0 ? c.pid : -1;
}

}  // namespace

TwinZygote& TwinZygote::get(const std::string& python, const std::vector<std::string>& env) {
  static std::map<std::string, std::unique_ptr<TwinZygote>> zygotes;
  auto& z = zygotes[python];
  if (!z) z.reset(new TwinZygote(python, env));
  return *z;
}

TwinZygote::TwinZygote(std::string python, std::vector<std::string> env)
    : python_(std::move(python)), env_(std::move(env)) {}

PythonPipe& TwinZygote::pipe() {
  if (!pipe_)
    pipe_ = std::make_unique<PythonPipe>(std::vector<std::string>{python_, python_step_server(), "--zygote"}, env_,
                                         "the Python twins' zygote", "quit");
  return *pipe_;
}

std::unique_ptr<PythonPipe> TwinZygote::fork_twin(const std::string& family, const std::string& what) {
  Listener listener(++forked_);
  std::string reply;
  try {
    reply = pipe().request("fork " + family + " @" + listener.name);
  } catch (const std::exception& e) {
    // It ended (importing torch failed, or it was killed): its last words say
    // why, and the next twin starts a new one.
    const std::string last = pipe_ ? pipe_->last_words(reply) : "";  // none where it could not be started
    pipe_.reset();
    throw std::runtime_error(std::string(e.what()) + (last.empty() ? "" : ": " + last));
  }
  long long pid = -1;
  if (std::sscanf(reply.c_str(), "forked %lld", &pid) != 1 || pid <= 0) {
    const std::string last = pipe_->last_words(reply);
    pipe_.reset();
    throw std::runtime_error("the Python twins' zygote did not fork: " + last);
  }
  for (int waited = 0; waited < kConnectS; ++waited) {
    pollfd p{listener.fd, POLLIN, 0};
    if (::poll(&p, 1, 1000) > 0) {
      const int fd = ::accept4(listener.fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      if (peer_pid(fd) != static_cast<pid_t>(pid)) {  // not the twin: another process found the name
        ::close(fd);
        continue;
      }
      return std::make_unique<PythonPipe>(static_cast<pid_t>(pid), fd, what, "quit");
    }
    if (const std::string s = status(static_cast<pid_t>(pid)); s != "running")
      throw std::runtime_error(what + " ended before it connected" + (s.empty() ? "" : " (" + s + ")"));
  }
  throw std::runtime_error(what + " did not connect within " + std::to_string(kConnectS) + " s");
}

std::string TwinZygote::status(pid_t pid) {
  if (!pipe_) return "";  // the zygote that forked it is gone: not one started to answer
  try {
    const std::string reply = pipe_->request("status " + std::to_string(pid));
    return reply.rfind("status ", 0) == 0 ? reply.substr(7) : "";
  } catch (const std::exception&) {
    pipe_.reset();
    return "";
  }
}

}  // namespace optbench::workloads
