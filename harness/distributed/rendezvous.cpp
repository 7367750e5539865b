#include "harness/distributed/rendezvous.h"

#include <cerrno>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

namespace optbench::distributed {
namespace {

std::optional<std::string> get(const GetEnv& env, const char* name) {
  const char* v = env(name);
  if (!v) return std::nullopt;
  return std::string(v);
}

std::string require(const GetEnv& env, const char* name, const std::string& context) {
  auto v = get(env, name);
  if (!v || v->empty()) throw RendezvousError(std::string(name) + " is not set (" + context + ")");
  return *v;
}

long long parse_int(const std::string& value, const char* name, long long lo, long long hi) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || errno != 0 || end == value.c_str() || *end != '\0')
    throw RendezvousError(std::string(name) + "='" + value + "' is not an integer");
  if (v < lo || v > hi)
    throw RendezvousError(std::string(name) + "=" + value + " is out of range [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "]");
  return v;
}

void fill_master(RendezvousInfo& r, const GetEnv& env, const std::string& context) {
  r.master_addr = require(env, "MASTER_ADDR", context);
  r.master_port = static_cast<std::uint16_t>(parse_int(require(env, "MASTER_PORT", context), "MASTER_PORT", 1, 65535));
}

void check_consistent(const RendezvousInfo& r, const char* rank_name, const char* size_name, const char* local_name) {
  if (r.rank >= r.world_size)
    throw RendezvousError(std::string(rank_name) + "=" + std::to_string(r.rank) + " is not below " + size_name + "=" +
                          std::to_string(r.world_size));
  if (r.local_rank > r.rank)
    throw RendezvousError(std::string(local_name) + "=" + std::to_string(r.local_rank) + " is larger than " +
                          rank_name + "=" + std::to_string(r.rank) + " (a local rank counts ranks on one node)");
}

}  // namespace

std::optional<RendezvousInfo> parse_rendezvous_env(const GetEnv& env) {
  constexpr long long kMaxRanks = 1 << 20;
  if (auto ws = get(env, "WORLD_SIZE")) {
    const std::string context = "WORLD_SIZE is set, so this is a torchrun-style launch";
    RendezvousInfo r;
    r.source = "torchrun";
    r.world_size = static_cast<int>(parse_int(*ws, "WORLD_SIZE", 1, kMaxRanks));
    r.rank = static_cast<int>(parse_int(require(env, "RANK", context), "RANK", 0, kMaxRanks));
    r.local_rank = static_cast<int>(parse_int(require(env, "LOCAL_RANK", context), "LOCAL_RANK", 0, kMaxRanks));
    check_consistent(r, "RANK", "WORLD_SIZE", "LOCAL_RANK");
    if (r.world_size == 1) return std::nullopt;  // one process: a plain run
    fill_master(r, env, context);
    const auto agent = get(env, "TORCHELASTIC_USE_AGENT_STORE");
    r.agent_store = agent && (*agent == "True" || *agent == "true" || *agent == "1");
    return r;
  }
  if (get(env, "RANK") || get(env, "LOCAL_RANK"))
    throw RendezvousError(
        "RANK or LOCAL_RANK is set but WORLD_SIZE is not (set all of RANK, WORLD_SIZE, LOCAL_RANK, "
        "MASTER_ADDR, MASTER_PORT, or none)");

  if (get(env, "SLURM_STEP_ID") || get(env, "SLURM_STEPID")) {
    const auto ntasks = get(env, "SLURM_NTASKS");
    if (!ntasks) return std::nullopt;  // a step without a task count: treat as one process
    const std::string context = "inside an srun step with SLURM_NTASKS=" + *ntasks;
    RendezvousInfo r;
    r.source = "slurm";
    r.world_size = static_cast<int>(parse_int(*ntasks, "SLURM_NTASKS", 1, kMaxRanks));
    if (r.world_size == 1) return std::nullopt;
    r.rank = static_cast<int>(parse_int(require(env, "SLURM_PROCID", context), "SLURM_PROCID", 0, kMaxRanks));
    r.local_rank = static_cast<int>(parse_int(require(env, "SLURM_LOCALID", context), "SLURM_LOCALID", 0, kMaxRanks));
    check_consistent(r, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID");
    fill_master(r, env,
                context +
                    "; export MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1) and "
                    "a MASTER_PORT in the job script");
    return r;
  }
  return std::nullopt;
}

std::optional<RendezvousInfo> rendezvous_from_environment() {
  return parse_rendezvous_env([](const char* n) { return std::getenv(n); });
}

std::string gpu_sharing_problem(const std::vector<GpuSlot>& slots) {
  std::map<std::string, std::map<std::string, std::vector<int>>> by_host;  // host -> gpu -> ranks
  for (const auto& s : slots) by_host[s.host][s.gpu].push_back(s.rank);
  for (const auto& [host, gpus] : by_host) {
    std::size_t ranks = 0;
    for (const auto& g : gpus) ranks += g.second.size();
    for (const auto& [gpu, users] : gpus) {
      if (users.size() < 2) continue;
      std::string list;
      for (int r : users) list += (list.empty() ? "" : ", ") + std::to_string(r);
      return std::to_string(ranks) + " ranks on host " + host + " need " + std::to_string(ranks) + " GPUs (found " +
             std::to_string(gpus.size()) + "): ranks " + list + " would share GPU " + gpu +
             " (NCCL needs one GPU per rank; start fewer ranks, e.g. --nproc " + std::to_string(gpus.size()) + ")";
    }
  }
  return "";
}

}  // namespace optbench::distributed
