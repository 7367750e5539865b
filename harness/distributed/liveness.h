#pragma once
// Deadlines on the waits between ranks that are not collectives (those are
// bounded by Session::wait), so that a rank that is stopped (SIGSTOP), hung or
// gone ends the run with its name instead of leaving the others waiting:
//  - rendezvous: every rank announces itself in the store; rank 0 waits for all
//    of them at most the deadline and names the ones missing;
//  - a follower waiting for rank 0's next command: rank 0 may legitimately time
//    other variants for long between two commands, so silence alone proves
//    nothing; rank 0 therefore beats a counter in the store every second from a
//    thread of its own (its own store connection, never inside a timed step's
//    store traffic), and a follower's watch thread ends the follower, naming
//    rank 0, when the counter has not moved for the deadline. A stopped or dead
//    rank 0 stops beating. The watch cannot rely on a store call returning: a
//    TCPStore client waits without limit for an answer from a server that is
//    stopped (SIGSTOP) rather than gone, so the reading happens in one thread
//    and the judging in another, and the follower (which holds no results)
//    exits from the latter;
//  - a collective that timed out: every rank beats the same way, so the rank
//    that gives up names the peers whose counters stand still.
// The deadline is OPTBENCH_DIST_TIMEOUT (default 300 s), as for collectives.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness/compat/distributed.h"

namespace optbench::distributed {

// A rank's heartbeat: a thread adding 1 to its store counter every second.
class Heartbeat {
 public:
  Heartbeat(compat::StorePtr store, int rank);  // store: a client of its own
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

 private:
  compat::StorePtr store_;
  std::string key_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// Follower: watches rank 0's heartbeat through `store` (a client of its own)
// and, when it has not moved for `deadline`, prints one line naming rank 0 and
// ends the process with status 1 (the launcher then stops the run). Ends with
// the object.
class Rank0Watch {
 public:
  Rank0Watch(compat::StorePtr store, int rank, std::chrono::milliseconds deadline);
  ~Rank0Watch();
  Rank0Watch(const Rank0Watch&) = delete;
  Rank0Watch& operator=(const Rank0Watch&) = delete;

 private:
  struct State;
  std::shared_ptr<State> state_;  // shared with its threads, which may outlive it
};

// Follower: waits for `key` (rank 0's next command) however long rank 0 takes
// (Rank0Watch bounds that); false when `stop` is set first.
bool wait_for_command(c10d::Store& store, const std::string& key, const std::atomic<bool>& stop);

// After a collective failed: "rank 1" / "ranks 1, 3" whose heartbeats did not
// move over a short look (about 2 s), "" when all did or `stop` came first
// (the launcher's SIGTERM must find this rank closing its file, not looking).
std::string silent_ranks(c10d::Store& store, int world_size, int self, const std::atomic<bool>& stop);

// Rendezvous: announces `rank`, then waits until all `world_size` ranks have;
// throws naming the missing ranks after `deadline`, or "stopped" on `stop`.
void wait_for_all_ranks(c10d::Store& store, int rank, int world_size, std::chrono::milliseconds deadline,
                        const std::atomic<bool>& stop);

}  // namespace optbench::distributed
