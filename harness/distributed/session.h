#pragma once
// A process group this process belongs to, and how the ranks of a launched run
// cooperate with the measurement harness.
//
// Under a launcher (torchrun, srun) every rank runs the same
// `optbench run ...`. Only rank 0 measures and writes the results file; ranks
// > 0 serve it, following one ordered stream of commands rank 0 writes to the
// TCPStore: "build variant (experiment, case, variant) as job J", "take a step
// of job J", "drop job J", "the run is over". So the others issue the same
// collectives in the same order as rank 0 even when it interleaves several
// distributed variants, wait on the host (outside any collective, their GPUs
// idle) while rank 0 times something else, and start every step together with
// rank 0 (a per-step handshake: they cannot run ahead).
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "harness/compat/distributed.h"
#include "harness/device.h"
#include "harness/distributed/liveness.h"
#include "harness/distributed/rendezvous.h"
#include "harness/experiment.h"

namespace optbench::distributed {

// OPTBENCH_DIST_TIMEOUT (seconds, default 300): rendezvous, every collective,
// a follower's wait for rank 0 (harness/distributed/liveness.h), and how long a
// rank waits for a dead, stopped or hung peer before failing.
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
  // mark_broken, and abort what the group still runs (NCCL: stuck kernels).
  void abort(const std::string& why);

  // Waits on the host until `work` has finished, at most timeout() and until
  // Ctrl-C, polling its completion (NCCL's wait() only orders streams, so it
  // cannot time out here). On a timeout, a signal or an error the group is
  // aborted and this throws "<what> failed (...)": a hung or dead peer fails the
  // current case instead of hanging the run.
  void wait(const compat::WorkPtr& work, const std::string& what);

  // Rank 0: the other ranks build this variant now (its constructor may run
  // collectives). Returns the job's number; on ranks > 0, the job being built.
  std::int64_t announce(const std::string& experiment, const std::string& case_name, const std::string& variant);
  // Rank 0, before each step of a job: the others take the same step now (a
  // store write; no reply is awaited).
  void start_step(std::int64_t job);
  // Rank 0: the job's variant is gone; the others drop theirs.
  void end_job(std::int64_t job);
  // Rank 0: the run is over; waits (bounded) until every rank has acknowledged.
  void finish();
  // Ranks > 0: follows rank 0's commands until the run is over. A job that
  // fails is reported and dropped, and the rank goes on serving (rank 0 records
  // the failure and moves on too). Returns the process exit code: 0, 1 when a
  // job failed, 130 when stopped by a signal.
  int serve(const RunContext& ctx);

 private:
  Session(RendezvousInfo info, DeviceKind kind);
  void connect();
  void check_one_gpu_per_rank(const std::string& who);
  // The group before the store it rendezvoused through; a healthy group shut
  // down first, a broken one aborted.
  void close();
  void command(const std::string& c);  // rank 0: appends to the stream

  RendezvousInfo info_;
  DeviceKind kind_;
  c10::Device device_;
  std::string backend_;
  std::chrono::milliseconds timeout_;
  compat::StorePtr store_;
  compat::StorePtr command_store_;        // ranks > 0: a second client, waiting for rank 0's commands
  std::unique_ptr<Heartbeat> heartbeat_;  // in a group of several: this rank's sign of life
  compat::CollectivesPtr pg_;
  std::atomic<bool> broken_{false};
  mutable std::mutex mu_;
  std::string broken_reason_;
  std::int64_t next_job_ = 0, next_command_ = 0;
};

// The group of a launched run (world size > 1), or null in a plain run.
Session* current_session();

// A variant whose steps run on every rank of the group. Rank 0's instance is
// timed by the harness: it announces itself when built, calls start_step before
// each step and end_job when destroyed; on ranks > 0 the same variant is built
// and follow_step() runs each matching step.
class DistributedWorkload : public Workload {
 public:
  virtual void follow_step() = 0;
};

// Test hook, called once per synchronised step: OPTBENCH_FAULT_INJECT=
// "rank=R,step=K,mode=exit|hang[,job=J]" makes rank R exit with status 3
// (mode=exit) or stop responding (mode=hang) at its K-th step (counted from 1),
// or with job=J at the K-th step of the J-th variant it serves (from 0).
void fault_injection_point(int rank);
// The same variable naming another mode ("rank=R,mode=M[,job=J]"; rank=* for
// every rank): true when rank R (in job J, if given) should misbehave in way M
// (e.g. mode=mismatch: build a different model; mode=unreduced_bucket: every
// rank leaves its first gradient bucket un-all-reduced), which the workload
// implements.
bool fault_injected(int rank, const std::string& mode);

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
  friend DistributedRun join_run(DeviceKind device, RunProfile profile);
  std::shared_ptr<Session> session_;
  std::optional<int> follower_exit_;
};

DistributedRun join_run(DeviceKind device, RunProfile profile);

}  // namespace optbench::distributed
