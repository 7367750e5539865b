#include "workloads/python/python_twin.h"

#include <ATen/Parallel.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "harness/build_info.h"
#include "workloads/python/python_pipe.h"
#include "workloads/python/twin_zygote.h"

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

}  // namespace

std::string python_step_server() { return source_dir() + "/workloads/python/step_server.py"; }

PythonTwin::PythonTwin(const std::string& python, nlohmann::json spec) {
  if (!spec.contains("threads")) spec["threads"] = at::get_num_threads();
  std::string wait;
  const std::string family = spec.value("family", "?");
  try {
    TwinZygote& zygote = TwinZygote::get(python, twin_environment(&wait));
    zygote_ = &zygote;
    pipe_ = zygote.fork_twin(family, "the Python twin process");
    pipe_->send(spec.dump());
    metrics_ = nlohmann::json::parse(pipe_->wait_for("ready ").substr(6));
  } catch (const std::exception& e) {
    throw std::runtime_error("the Python twin '" + family + "' did not start (" + python + "): " + e.what());
  }
  metrics_["inner_steps"] = spec.at("inner_steps");
  metrics_["openmp_wait"] = wait;
  std::vector<double> us;
  for (int i = 0; i < kPings; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    if (pipe_->request("ping") != "pong") throw std::runtime_error("the Python twin does not answer ping");
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(us.begin(), us.begin() + kPings / 2, us.end());
  metrics_["pipe_round_trip_us"] = us[kPings / 2];
}

PythonTwin::~PythonTwin() = default;

void PythonTwin::failed(const std::string& reply) {
  const std::string last = pipe_->last_words(reply);
  // Its end, as the zygote reaped it (a signal names a kill or a crash).
  std::string how = zygote_ ? zygote_->status(pipe_->pid()) : "";
  for (int i = 0; i < 20 && how == "running"; ++i) {  // its last words read: it is ending
    ::usleep(50000);
    how = zygote_->status(pipe_->pid());
  }
  const bool known = !how.empty() && how != "running";
  throw std::runtime_error("the Python twin" + (known ? " " + how : "") + (last.empty() ? " ended" : ": " + last));
}

std::string PythonTwin::request(const std::string& line) {
  try {
    return pipe_->request(line);
  } catch (const std::exception&) {
    failed("");  // it ended: how, and its last words
  }
}

void PythonTwin::step() {
  if (const std::string reply = request("step"); reply != "ok") failed(reply);
}

at::Tensor PythonTwin::output() {
  const std::string reply = request("output");
  long long n = -1;
  if (std::sscanf(reply.c_str(), "output %lld", &n) != 1 || n < 0) failed(reply);
  at::Tensor t = at::empty({n}, at::kFloat);
  pipe_->read_exact(static_cast<char*>(t.data_ptr()), static_cast<std::size_t>(n) * sizeof(float));
  return t;
}

nlohmann::json PythonTwin::metrics() { return metrics_; }

}  // namespace optbench::workloads
