#pragma once
// A process group this process belongs to, and how the ranks of a launched run
// cooperate with the measurement harness.
//
// Under a launcher (optbench launch, torchrun, srun) every rank runs the same
// `optbench run ...`. Only rank 0 measures and writes the results file; ranks
// > 0 serve it: when rank 0 builds a variant that is a DistributedWorkload it
// announces (experiment, case, variant) through the TCPStore, and every other
// rank builds the same variant and follows its steps (same collectives in the
// same order) until rank 0 says the last step has been done. At the end rank 0
// tells them the run is over.
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "harness/compat/distributed.h"
#include "harness/device.h"
#include "harness/distributed/rendezvous.h"
#include "harness/experiment.h"

namespace optbench::distributed {

// OPTBENCH_DIST_TIMEOUT (seconds, default 300): rendezvous, every collective,
// and how long a rank waits for a dead or hung peer before failing.
std::chrono::milliseconds collective_timeout();

class Session {
 public:
  // Joins the group the rendezvous describes: TCPStore at MASTER_ADDR:MASTER_PORT
  // (hosted by rank 0 unless torchrun's agent hosts it), Gloo for the CPU, NCCL
  // for CUDA with cuda:LOCAL_RANK made current (cuda:0 when a rank sees one GPU).
  static std::shared_ptr<Session> join(const RendezvousInfo& info, DeviceKind device);
  // A group of one over a private TCPStore on a free loopback port: DDP at world
  // size 1 inside a plain `optbench run`.
  static std::shared_ptr<Session> local(DeviceKind device);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  int rank() const { return info_.rank; }
  int world_size() const { return info_.world_size; }
  int local_rank() const { return info_.local_rank; }
  const RendezvousInfo& info() const { return info_; }
  DeviceKind device_kind() const { return kind_; }
  c10::Device device() const { return device_; }
  const std::string& backend() const { return backend_; }  // "gloo" | "nccl"
  bool host_blocking() const { return backend_ == "gloo"; }
  std::chrono::milliseconds timeout() const { return timeout_; }
  compat::Collectives& collectives() { return *pg_; }

  // After a failed collective the ranks no longer agree on what comes next:
  // later distributed work fails at once with the first reason.
  void mark_broken(const std::string& why);
  bool broken() const { return broken_.load(); }
  void check_usable() const;  // throws when broken

  // Rank 0: the other ranks build this variant and follow its steps.
  void announce(const std::string& experiment, const std::string& case_name, const std::string& variant);
  // Rank 0: the run is over; waits (bounded) until every rank has acknowledged.
  void finish();
  // Ranks > 0: builds and follows what rank 0 announces until it finishes.
  // Returns the process exit code (0, 1 on an error, 130 when stopped by a signal).
  int serve(const RunContext& ctx);

 private:
  Session(RendezvousInfo info, DeviceKind kind);
  void connect();
  std::string job_key(std::int64_t n) const;

  RendezvousInfo info_;
  DeviceKind kind_;
  c10::Device device_;
  std::string backend_;
  std::chrono::milliseconds timeout_;
  compat::StorePtr store_;
  compat::CollectivesPtr pg_;
  std::atomic<bool> broken_{false};
  mutable std::mutex mu_;
  std::string broken_reason_;
  std::int64_t next_job_ = 0;
};

// The group of a launched run (world size > 1), or null in a plain run.
Session* current_session();

// A variant whose steps run on every rank of the group. Rank 0's instance is
// timed by the harness; on ranks > 0 the same variant is built and follow() runs
// the matching steps until rank 0's instance says it has done its last one.
class DistributedWorkload : public Workload {
 public:
  virtual void follow() = 0;
};

// Test hook, called once per synchronised step: OPTBENCH_FAULT_INJECT=
// "rank=R,step=K,mode=exit|hang[,job=J]" makes rank R exit with status 3
// (mode=exit) or stop responding (mode=hang) at its K-th step (counted from 1),
// or with job=J at the K-th step of the J-th variant it serves (from 0).
void fault_injection_point(int rank);

// `optbench run` joins the group the environment describes (if any) before the
// suite. On ranks > 0 the call serves rank 0 until the run ends and
// follower_exit_code() is set; on rank 0 the returned object keeps the group
// open for the suite and, when destroyed, tells the other ranks to exit.
class DistributedRun {
 public:
  DistributedRun() = default;
  DistributedRun(DistributedRun&&) = default;
  DistributedRun& operator=(DistributedRun&&) = default;
  ~DistributedRun();
  std::optional<int> follower_exit_code() const { return follower_exit_; }

 private:
  friend DistributedRun join_run(DeviceKind device, Profile profile);
  std::shared_ptr<Session> session_;
  std::optional<int> follower_exit_;
};

DistributedRun join_run(DeviceKind device, Profile profile);

}  // namespace optbench::distributed
