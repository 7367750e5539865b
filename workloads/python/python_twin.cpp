#include "workloads/python/python_twin.h"

#include <ATen/Parallel.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "harness/build_info.h"
#include "harness/subprocess.h"

namespace optbench::workloads {
namespace {

constexpr int kPings = 21;  // round trips timed at start, the median recorded

// How long an idle OpenMP worker of a twin spins before it sleeps. The
// variants' processes take turns on the same cores, which a user's one
// process never does: with libgomp's default (300,000 spins, milliseconds)
// the process that has just answered keeps a core busy into the next
// variant's request, whose own threads then wait for it at every barrier (on
// 2 cores, 10 forwards at batch 1 took 0.1-2 s instead of ~15 ms). 10,000 spins
// (well under a millisecond) still outlast the gap between two operators of a
// step, so within a request the workers behave as by default. A user's own
// GOMP_SPINCOUNT or OMP_WAIT_POLICY is kept. (The build's torch uses libgomp.)
constexpr const char* kSpinCount = "10000";

// This process's environment with the spin count added; *wait: the setting
// the twin runs with, for its metrics.
std::vector<std::string> twin_environment(std::string* wait) {
  std::vector<std::string> env, own;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    if (kv.rfind("GOMP_SPINCOUNT=", 0) == 0 || kv.rfind("OMP_WAIT_POLICY=", 0) == 0) own.push_back(kv);
    env.push_back(kv);
  }
  if (own.empty()) own.push_back(std::string("GOMP_SPINCOUNT=") + kSpinCount), env.push_back(own.back());
  *wait = own.front();
  for (std::size_t i = 1; i < own.size(); ++i) *wait += " " + own[i];
  return env;
}

[[noreturn]] void ended(const std::string& last) {
  throw std::runtime_error("the Python twin process ended" + (last.empty() ? "" : ": " + last));
}

// Byte by byte: the reply to "output" is a line and then raw bytes, which a
// buffered read would take part of.
std::string read_line(int fd, const std::string& last) {
  std::string line;
  char c;
  for (;;) {
    const ssize_t r = ::read(fd, &c, 1);
    if (r == 1) {
      if (c == '\n') return line;
      line += c;
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else {
      ended(line.empty() ? last : line);
    }
  }
}

void read_exact(int fd, char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r > 0) {
      p += r;
      n -= static_cast<std::size_t>(r);
    } else if (r < 0 && errno == EINTR) {
      continue;
    } else {
      ended("in the middle of its output");
    }
  }
}

}  // namespace

std::string python_step_server() { return source_dir() + "/workloads/python/step_server.py"; }

PythonTwin::PythonTwin(const std::string& python, nlohmann::json spec) {
  if (!spec.contains("threads")) spec["threads"] = at::get_num_threads();
  SpawnOptions so;
  so.argv = {python, python_step_server()};
  so.search_path = true;
  std::string wait;
  so.env = twin_environment(&wait);
  so.in = Stdio::pipe;
  so.out = Stdio::pipe;
  so.err = Stdio::to_stdout;  // an error's traceback comes back as the last line read
  // No die_with_parent: the server ends at the end of its stdin, which closes
  // with this process however it ends. A child that dies makes the next write
  // fail with EPIPE (an error here) rather than end the run with SIGPIPE.
  static std::once_flag ignore_sigpipe;
  std::call_once(ignore_sigpipe, [] { ::signal(SIGPIPE, SIG_IGN); });
  const Subprocess child = spawn(so);
  pid_ = child.pid;
  to_child_ = child.in;
  from_child_ = child.out;
  // Lines before "ready" are warnings or a traceback: keep the last for the error.
  const std::string family = spec.value("family", "?");
  std::string line, last;
  try {
    const std::string first = spec.dump() + "\n";
    if (::write(to_child_, first.data(), first.size()) != static_cast<ssize_t>(first.size())) ended("");
    for (;;) {
      line = read_line(from_child_, last);
      if (line.rfind("ready ", 0) == 0) break;
      last = line;
    }
    metrics_ = nlohmann::json::parse(line.substr(6));
  } catch (const std::exception& e) {
    throw std::runtime_error("the Python twin '" + family + "' did not start (" + python + "): " + e.what());
  }
  metrics_["inner_steps"] = spec.at("inner_steps");
  metrics_["openmp_wait"] = wait;
  std::vector<double> us;
  for (int i = 0; i < kPings; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    if (request("ping") != "pong") throw std::runtime_error("the Python twin does not answer ping");
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(us.begin(), us.begin() + kPings / 2, us.end());
  metrics_["pipe_round_trip_us"] = us[kPings / 2];
}

PythonTwin::~PythonTwin() {
  if (to_child_ >= 0) {
    (void)!::write(to_child_, "quit\n", 5);
    ::close(to_child_);
  }
  if (from_child_ >= 0) ::close(from_child_);
  if (pid_ > 0) wait_status(pid_);
}

std::string PythonTwin::request(const std::string& line) {
  const std::string msg = line + "\n";
  if (::write(to_child_, msg.data(), msg.size()) != static_cast<ssize_t>(msg.size()))
    throw std::runtime_error("the Python twin process does not read its requests");
  return read_line(from_child_, "");
}

void PythonTwin::failed(const std::string& reply) {
  // A Python exception prints its traceback and ends the process: its last line says what.
  std::string last = reply;
  try {
    for (;;)
      if (std::string l = read_line(from_child_, last); !l.empty()) last = l;
  } catch (const std::exception&) {
  }
  throw std::runtime_error("the Python twin: " + last);
}

void PythonTwin::step() {
  const std::string reply = request("step");
  if (reply != "ok") failed(reply);
}

at::Tensor PythonTwin::output() {
  const std::string reply = request("output");
  long long n = -1;
  if (std::sscanf(reply.c_str(), "output %lld", &n) != 1 || n < 0) failed(reply);
  at::Tensor t = at::empty({n}, at::kFloat);
  read_exact(from_child_, static_cast<char*>(t.data_ptr()), static_cast<std::size_t>(n) * sizeof(float));
  return t;
}

nlohmann::json PythonTwin::metrics() { return metrics_; }

}  // namespace optbench::workloads
