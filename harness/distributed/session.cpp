#include "harness/distributed/session.h"

#include <ATen/ATen.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "harness/registry.h"
#include "harness/seeding.h"
#include "harness/signals.h"
#include "harness/suite_runner.h"

#if OPTBENCH_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

namespace optbench::distributed {
namespace {

using json = nlohmann::json;

Session* g_current = nullptr;

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

std::string first_line(std::string s) {
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  return s;
}

std::vector<std::uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }
std::string text(const std::vector<std::uint8_t>& b) { return {b.begin(), b.end()}; }

constexpr int kEveryRank = -2;  // rank=*

struct FaultSpec {
  int rank = -1;
  std::int64_t job = -1;  // -1: count steps over the whole process
  std::int64_t step = -1;
  std::string mode;
};

// Which announced job a follower is serving (for fault injection), and the
// steps taken in it.
std::atomic<std::int64_t> g_job{-1};
std::atomic<std::int64_t> g_job_steps{0};

FaultSpec parse_fault(const char* spec) {
  FaultSpec f;
  if (!spec || !*spec) return f;
  std::string s(spec);
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const auto comma = s.find(',', pos);
    const std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const auto eq = item.find('=');
    if (eq != std::string::npos) {
      const std::string k = item.substr(0, eq), v = item.substr(eq + 1);
      if (k == "rank") f.rank = v == "*" ? kEveryRank : std::atoi(v.c_str());
      if (k == "step") f.step = std::atoll(v.c_str());
      if (k == "job") f.job = std::atoll(v.c_str());
      if (k == "mode") f.mode = v;
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return f;
}

}  // namespace

std::chrono::milliseconds collective_timeout() {
  double s = 300;
  if (const char* v = std::getenv("OPTBENCH_DIST_TIMEOUT"); v && *v) {
    char* end = nullptr;
    const double parsed = std::strtod(v, &end);
    if (end != v && parsed > 0) s = parsed;
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000));
}

Session::Session(RendezvousInfo info, DeviceKind kind)
    : info_(std::move(info)), kind_(kind), device_(c10::kCPU), timeout_(collective_timeout()) {}

Session::~Session() {
  if (g_current == this) g_current = nullptr;
  close();
}

void Session::close() {
  if (pg_) {
    try {
      if (broken()) {
        compat::abort(*pg_);
      } else {
#if OPTBENCH_WITH_CUDA
        // Nothing of ours still runs on the communicators when they go.
        if (device_.is_cuda()) c10::cuda::device_synchronize();
#endif
        compat::shutdown(*pg_);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "optbench: rank %d: closing the process group: %s\n", info_.rank,
                   first_line(e.what()).c_str());
    }
  }
  pg_.reset();
  heartbeat_.reset();
  command_store_.reset();
  store_.reset();
}

std::shared_ptr<Session> Session::join(const RendezvousInfo& info, DeviceKind device) {
  std::shared_ptr<Session> s(new Session(info, device));
  s->connect();
  return s;
}

std::shared_ptr<Session> Session::local(DeviceKind device) {
  RendezvousInfo info;
  info.source = "local";
  std::shared_ptr<Session> s(new Session(info, device));
  s->connect();
  return s;
}

void Session::connect() {
  const std::string where = info_.master_addr + ":" + std::to_string(info_.master_port);
  const std::string who = "rank " + std::to_string(info_.rank) + " of " + std::to_string(info_.world_size);
  const double timeout_s = static_cast<double>(timeout_.count()) / 1e3;
  if (kind_ == DeviceKind::cuda) {
#if OPTBENCH_WITH_CUDA
    const int count = static_cast<int>(c10::cuda::device_count());
    if (count < 1) throw std::runtime_error(who + ": no CUDA device is visible");
    if (info_.local_rank >= count && count != 1)
      throw std::runtime_error(who + ": " + std::to_string(info_.local_rank + 1) +
                               "+ ranks on this node need as many "
                               "GPUs (found " +
                               std::to_string(count) + "): LOCAL_RANK=" + std::to_string(info_.local_rank) +
                               " has none (NCCL needs one GPU per rank)");
    const int index = count == 1 ? 0 : info_.local_rank;
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(index));
    device_ = c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(index));
    backend_ = "nccl";
#else
    throw std::runtime_error("this build has no CUDA support");
#endif
  } else {
    backend_ = "gloo";
  }

  const bool server = info_.rank == 0 && !info_.agent_store;
  try {
    store_ = compat::make_tcp_store(info_.master_addr, info_.master_port, server, info_.world_size, timeout_);
  } catch (const std::exception& e) {
    throw std::runtime_error(who + ": cannot " + std::string(server ? "open" : "reach") +
                             " the rendezvous TCPStore at " + where +
                             (server || info_.agent_store ? "" : " (hosted by rank 0)") + " within " +
                             seconds(timeout_s) + " (OPTBENCH_DIST_TIMEOUT): " + first_line(e.what()));
  }
  if (info_.source == "local") info_.master_port = compat::tcp_store_port(store_);
  if (info_.world_size > 1) {
    // Every rank present before the process group starts, or the missing ones named.
    if (info_.rank == 0)
      std::fprintf(stderr, "optbench: rank 0: waiting up to %s (OPTBENCH_DIST_TIMEOUT) for %d ranks at %s\n",
                   seconds(timeout_s).c_str(), info_.world_size, where.c_str());
    try {
      wait_for_all_ranks(*store_, info_.rank, info_.world_size, timeout_, stop_requested());
    } catch (const std::exception& e) {
      throw std::runtime_error(who + ": rendezvous at " + where + " failed: " + first_line(e.what()));
    }
    heartbeat_ = std::make_unique<Heartbeat>(
        compat::make_tcp_store(info_.master_addr, info_.master_port, /*is_server=*/false, info_.world_size, timeout_),
        info_.rank);
  }
  if (backend_ == "nccl" && info_.world_size > 1) check_one_gpu_per_rank(who);
  try {
    auto pg_store = compat::prefix_store("optbench/pg", store_);
    pg_ = backend_ == "nccl" ? compat::make_nccl(pg_store, info_.rank, info_.world_size, timeout_)
                             : compat::make_gloo(pg_store, info_.rank, info_.world_size, timeout_, info_.master_addr);
    // Everyone is there and the collectives work: an all-reduce of ones.
    auto one = at::ones({1}, at::TensorOptions().dtype(at::kFloat).device(device_));
    compat::wait(compat::allreduce_async(*pg_, one), timeout_, /*host_blocking=*/true);
    const float got = one.cpu().item<float>();
    if (got != static_cast<float>(info_.world_size))
      throw std::runtime_error("a check all-reduce gave " + std::to_string(got) + ", expected " +
                               std::to_string(info_.world_size));
  } catch (const std::exception& e) {
    throw std::runtime_error(who + ": " + backend_ + " rendezvous through " + where + " failed (are all " +
                             std::to_string(info_.world_size) +
                             " ranks started, with the same MASTER_ADDR and "
                             "MASTER_PORT? waited up to " +
                             seconds(timeout_s) + "): " + first_line(e.what()));
  }
}

void Session::check_one_gpu_per_rank(const std::string& who) {
  // Every rank publishes which GPU it took; two ranks on one GPU would make NCCL
  // fail (or hang) in its own rendezvous.
  std::string gpu = device_.str();
#if OPTBENCH_WITH_CUDA
  const auto* prop = at::cuda::getDeviceProperties(device_.index());
  char bus[32];
  std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", prop->pciDomainID, prop->pciBusID, prop->pciDeviceID);
  gpu = bus;
#endif
  char host[256] = "?";
  ::gethostname(host, sizeof host - 1);
  store_->set("optbench/gpu/" + std::to_string(info_.rank), bytes(std::string(host) + "\n" + gpu));
  std::vector<GpuSlot> slots;
  try {
    for (int r = 0; r < info_.world_size; ++r) {
      const std::string v = text(store_->get("optbench/gpu/" + std::to_string(r)));
      const auto nl = v.find('\n');
      slots.push_back({r, v.substr(0, nl), nl == std::string::npos ? "" : v.substr(nl + 1)});
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(who + ": not every rank reached the rendezvous within " +
                             seconds(static_cast<double>(timeout_.count()) / 1e3) + ": " + first_line(e.what()));
  }
  if (auto problem = gpu_sharing_problem(slots); !problem.empty()) throw std::runtime_error(problem);
}

void Session::mark_broken(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!broken_.exchange(true)) broken_reason_ = first_line(why);
}

void Session::check_usable() const {
  if (!broken_.load()) return;
  std::lock_guard<std::mutex> lock(mu_);
  throw std::runtime_error("the process group is unusable after an earlier failure: " + broken_reason_);
}

void Session::abort(const std::string& why) {
  mark_broken(why);
  try {
    if (pg_) compat::abort(*pg_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "optbench: rank %d: aborting the process group: %s\n", info_.rank,
                 first_line(e.what()).c_str());
  }
}

void Session::wait(const compat::WorkPtr& work, const std::string& what) {
  check_usable();
  const auto t0 = std::chrono::steady_clock::now();
  const auto deadline = t0 + timeout_;
  std::string problem;
  try {
    // Spin briefly (a collective usually ends within microseconds of the last
    // rank joining), then sleep in growing steps up to 1 ms.
    auto nap = std::chrono::microseconds(0);
    while (!compat::completed(work)) {
      const auto now = std::chrono::steady_clock::now();
      if (stop_requested()) {
        problem = "stopped by a signal";
        break;
      }
      if (now > deadline) {
        problem = "no result within " + seconds(static_cast<double>(timeout_.count()) / 1e3) +
                  " (OPTBENCH_DIST_TIMEOUT): a peer rank may have died or hung";
        break;
      }
      if (now - t0 > std::chrono::microseconds(200)) {
        nap = std::min<std::chrono::microseconds>(std::chrono::microseconds(1000), nap + std::chrono::microseconds(50));
        std::this_thread::sleep_for(nap);
      } else {
        std::this_thread::yield();
      }
    }
    if (problem.empty()) work->wait();  // rethrows the collective's own error
  } catch (const std::exception& e) {
    problem = first_line(e.what()) + " (a peer rank may have died or hung)";
  }
  if (problem.empty()) return;
  // Name the peers that stopped beating (stopped, hung in a call, or gone).
  if (heartbeat_ && !stop_requested())
    if (const std::string silent = silent_ranks(*store_, info_.world_size, info_.rank, stop_requested());
        !silent.empty())
      problem += "; no sign of life from " + silent;
  const std::string message = what + " failed: " + problem;
  abort(message);
  throw std::runtime_error(message);
}

namespace {
std::string command_key(std::int64_t n) { return "optbench/cmd/" + std::to_string(n); }
}  // namespace

void Session::command(const std::string& c) {
  // One small key per command stays in the store (tens of bytes): deleting it
  // would cost a round trip inside the timed step.
  store_->set(command_key(next_command_++), bytes(c));
}

std::int64_t Session::announce(const std::string& experiment, const std::string& case_name,
                               const std::string& variant) {
  if (info_.rank != 0) return g_job.load();
  check_usable();
  const std::int64_t n = next_job_++;
  command(json{{"type", "variant"}, {"job", n}, {"experiment", experiment}, {"case", case_name}, {"variant", variant}}
              .dump());
  return n;
}

void Session::start_step(std::int64_t job) {
  if (info_.rank == 0 && info_.world_size > 1) command("s " + std::to_string(job));
}

void Session::end_job(std::int64_t job) {
  if (info_.rank == 0 && info_.world_size > 1) command("e " + std::to_string(job));
}

void Session::finish() {
  if (info_.rank != 0 || info_.world_size < 2 || !store_) return;
  try {
    command(json{{"type", "done"}}.dump());
    // After a failed collective some rank is dead or stuck, and after Ctrl-C the
    // others are stopping too: do not wait for them.
    if (broken() || stop_requested()) return;
    std::vector<std::string> acks;
    for (int r = 1; r < info_.world_size; ++r) acks.push_back("optbench/ack/" + std::to_string(r));
    // The other ranks read the last job from rank 0's store: keep it up until they have.
    store_->wait(acks, std::min(timeout_, std::chrono::milliseconds(30000)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "optbench: rank 0: not every rank acknowledged the end of the run: %s\n",
                 first_line(e.what()).c_str());
  }
}

int Session::serve(const RunContext& ctx) {
  std::map<std::string, std::vector<Case>> cases;  // per experiment, built once
  std::map<std::int64_t, std::unique_ptr<Workload>> jobs;
  std::map<std::int64_t, std::int64_t> steps;  // per job, for fault injection
  std::map<std::int64_t, std::string> names;
  bool failed = false;
  auto report = [&](std::int64_t job, const std::string& what, const std::exception& e) {
    std::fprintf(stderr, "optbench: rank %d: error in %s: %s\n", info_.rank, what.c_str(),
                 first_line(e.what()).c_str());
    failed = true;
    jobs.erase(job);  // rank 0 sees the same failure (or times out on this rank) and records it
  };
  try {
    // Rank 0 may time other variants for long between two commands: this
    // client waits as long as rank 0's heartbeat moves (Rank0Watch,
    // harness/distributed/liveness.h).
    command_store_ =
        compat::make_tcp_store(info_.master_addr, info_.master_port, /*is_server=*/false, info_.world_size, timeout_);
    const Rank0Watch watch(
        compat::make_tcp_store(info_.master_addr, info_.master_port, /*is_server=*/false, info_.world_size, timeout_),
        info_.rank, timeout_);
    for (;;) {
      const std::string key = command_key(next_command_++);
      if (!wait_for_command(*command_store_, key, stop_requested())) return kExitInterrupted;
      const std::string c = text(command_store_->get(key));
      if (stop_requested()) return kExitInterrupted;
      if (c.rfind("s ", 0) == 0 || c.rfind("e ", 0) == 0) {
        const std::int64_t job = std::stoll(c.substr(2));
        auto it = jobs.find(job);
        if (it == jobs.end()) continue;  // failed here already
        if (c[0] == 'e') {
          jobs.erase(it);
          continue;
        }
        g_job = job;
        g_job_steps = steps[job];
        try {
          dynamic_cast<DistributedWorkload&>(*it->second).follow_step();
        } catch (const std::exception& e) {
          if (stop_requested()) return kExitInterrupted;
          report(job, names[job], e);
        }
        steps[job] = g_job_steps;
        continue;
      }
      const json cmd = json::parse(c);
      const std::string type = cmd.value("type", "");
      if (type == "done") {
        jobs.clear();
        command_store_->set("optbench/ack/" + std::to_string(info_.rank), bytes("1"));
        return failed ? 1 : 0;
      }
      if (type != "variant") throw std::runtime_error("unknown command from rank 0: " + c);
      const std::int64_t job = cmd.at("job");
      const std::string exp = cmd.at("experiment"), cname = cmd.at("case"), vname = cmd.at("variant");
      names[job] = exp + "/" + cname + "/" + vname;
      g_job = job;
      g_job_steps = 0;
      try {
        if (!cases.count(exp)) {
          const Experiment* found = nullptr;
          for (const auto& e : Registry::instance().all())
            if (e->info().name == exp) found = e.get();
          if (!found) throw std::runtime_error("rank 0 announced unknown experiment '" + exp + "'");
          cases[exp] = build_cases(*found, ctx);
        }
        const Variant* variant = nullptr;
        for (const auto& k : cases[exp])
          if (k.name == cname)
            for (const auto& v : k.variants)
              if (v.name == vname) variant = &v;
        if (!variant)
          throw std::runtime_error("rank 0 announced " + names[job] +
                                   ", which this rank does not have (different arguments or binaries?)");
        auto work = build_workload(*variant);
        if (!dynamic_cast<DistributedWorkload*>(work.get()))
          throw std::runtime_error(names[job] + " is not a distributed workload");
        jobs[job] = std::move(work);
      } catch (const std::exception& e) {
        if (stop_requested()) return kExitInterrupted;
        report(job, names[job], e);
      }
    }
  } catch (const std::exception& e) {
    if (stop_requested()) return kExitInterrupted;
    std::fprintf(stderr, "optbench: rank %d: error: %s\n", info_.rank, first_line(e.what()).c_str());
    return 1;
  }
}

Session* current_session() { return g_current; }

bool fault_injected(int rank, const std::string& mode) {
  static const FaultSpec spec = parse_fault(std::getenv("OPTBENCH_FAULT_INJECT"));
  return (spec.rank == rank || spec.rank == kEveryRank) && spec.mode == mode &&
         (spec.job < 0 || spec.job == g_job.load());
}

void fault_injection_point(int rank) {
  static const FaultSpec spec = parse_fault(std::getenv("OPTBENCH_FAULT_INJECT"));
  static std::atomic<std::int64_t> steps{0};
  if (spec.rank != rank) return;
  const std::int64_t total = ++steps, in_job = ++g_job_steps;
  const std::int64_t n = spec.job >= 0 ? in_job : total;
  if (n != spec.step || (spec.job >= 0 && g_job.load() != spec.job)) return;
  if (spec.mode == "hang") {
    std::fprintf(stderr, "optbench: rank %d: injected fault: hanging at step %lld\n", rank, static_cast<long long>(n));
    std::fflush(stderr);
    for (;;) pause();
  }
  std::fprintf(stderr, "optbench: rank %d: injected fault: exiting at step %lld\n", rank, static_cast<long long>(n));
  std::fflush(stderr);
  std::_Exit(3);
}

DistributedRun::~DistributedRun() {
  if (!session_) return;
  session_->finish();
  session_.reset();
}

DistributedRun join_run(DeviceKind device, RunProfile profile) {
  DistributedRun run;
  auto info = rendezvous_from_environment();
  if (!info) return run;
  auto session = Session::join(*info, device);
  if (info->rank != 0) {
    g_current = session.get();
    std::fprintf(stderr, "optbench: rank %d of %d serving rank 0 (%s on %s)\n", info->rank, info->world_size,
                 session->backend().c_str(), session->device().str().c_str());
    run.follower_exit_ = session->serve(RunContext{device, profile});
    g_current = nullptr;
    return run;
  }
  std::fprintf(stderr, "optbench: rank 0 of %d (%s; %s on %s): only rank 0 measures and writes results\n",
               info->world_size, info->source.c_str(), session->backend().c_str(), session->device().str().c_str());
  g_current = session.get();
  run.session_ = std::move(session);
  return run;
}

}  // namespace optbench::distributed
