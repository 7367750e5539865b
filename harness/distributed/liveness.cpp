#include "harness/distributed/liveness.h"

#include <cstdio>
#include <cstdlib>

namespace optbench::distributed {
namespace {

using Clock = std::chrono::steady_clock;
std::string beat_key(int rank) { return "optbench/heartbeat/" + std::to_string(rank); }
constexpr auto kBeatPeriod = std::chrono::seconds(1);
// How long one wait lasts before the heartbeat is read again, or stop checked.
constexpr auto kSlice = std::chrono::milliseconds(500);

std::string seconds(std::chrono::milliseconds d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", static_cast<double>(d.count()) / 1e3);
  return buf;
}

std::string first_line(std::string s) {
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  return s;
}

std::string joined_key(int rank) { return "optbench/joined/" + std::to_string(rank); }

}  // namespace

Heartbeat::Heartbeat(compat::StorePtr store, int rank) : store_(std::move(store)), key_(beat_key(rank)) {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!done_) {
      try {
        store_->add(key_, 1);
      } catch (const std::exception&) {
        // The store is shutting down with the run; followers judge silence.
      }
      cv_.wait_for(lock, kBeatPeriod, [this] { return done_; });
    }
  });
}

Heartbeat::~Heartbeat() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

struct Rank0Watch::State {
  compat::StorePtr store;
  int rank = 0;
  std::chrono::milliseconds deadline{0};
  std::atomic<bool> done{false};
  std::atomic<std::int64_t> last_sign_ns{0};  // steady clock: when rank 0's counter last moved
};

namespace {
std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}
}  // namespace

Rank0Watch::Rank0Watch(compat::StorePtr store, int rank, std::chrono::milliseconds deadline)
    : state_(std::make_shared<State>()) {
  state_->store = std::move(store);
  state_->rank = rank;
  state_->deadline = deadline;
  state_->last_sign_ns = now_ns();
  // Reader: may block for good in a call to a stopped server; detached.
  std::thread([s = state_] {
    std::int64_t last = -1;
    while (!s->done.load()) {
      try {
        const std::int64_t beat = s->store->add(beat_key(0), 0);
        if (beat != last) {
          last = beat;
          s->last_sign_ns = now_ns();
        }
      } catch (const std::exception&) {
        // Gone: no sign of life; the judge decides.
      }
      std::this_thread::sleep_for(kSlice);
    }
  }).detach();
  // Judge.
  std::thread([s = state_] {
    while (!s->done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      if (s->done.load()) return;
      if (now_ns() - s->last_sign_ns.load() >
          std::chrono::duration_cast<std::chrono::nanoseconds>(s->deadline).count()) {
        std::fprintf(stderr,
                     "optbench: rank %d: error: rank 0 has shown no sign of life for %s (OPTBENCH_DIST_TIMEOUT): "
                     "it is stopped, hung or gone; giving up\n",
                     s->rank, seconds(s->deadline).c_str());
        std::fflush(stderr);
        std::_Exit(1);  // this rank holds no results; its main thread may be stuck in a store call
      }
    }
  }).detach();
}

Rank0Watch::~Rank0Watch() { state_->done = true; }

bool wait_for_command(c10d::Store& store, const std::string& key, const std::atomic<bool>& stop) {
  for (;;) {
    if (stop.load()) return false;
    try {
      store.wait({key}, kSlice);
      return true;
    } catch (const std::exception&) {
      // Not there yet: rank 0 is timing something else (Rank0Watch judges whether it lives).
    }
  }
}

std::string silent_ranks(c10d::Store& store, int world_size, int self, const std::atomic<bool>& stop) {
  try {
    std::vector<std::int64_t> before;
    for (int r = 0; r < world_size; ++r) before.push_back(r == self ? 0 : store.add(beat_key(r), 0));
    for (auto until = Clock::now() + 2 * kBeatPeriod + std::chrono::milliseconds(200); Clock::now() < until;) {
      if (stop.load()) return "";
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::string silent;
    int count = 0;
    for (int r = 0; r < world_size; ++r) {
      if (r == self || store.add(beat_key(r), 0) != before[static_cast<std::size_t>(r)]) continue;
      silent += (silent.empty() ? "" : ", ") + std::to_string(r);
      ++count;
    }
    return silent.empty() ? "" : (count == 1 ? "rank " : "ranks ") + silent;
  } catch (const std::exception& e) {
    return "the store (rank 0's) did not answer: " + first_line(e.what());
  }
}

void wait_for_all_ranks(c10d::Store& store, int rank, int world_size, std::chrono::milliseconds deadline,
                        const std::atomic<bool>& stop) {
  store.set(joined_key(rank), std::vector<std::uint8_t>{1});
  std::vector<std::string> keys;
  for (int r = 0; r < world_size; ++r) keys.push_back(joined_key(r));
  const auto give_up = Clock::now() + deadline;
  for (;;) {
    if (stop.load()) throw std::runtime_error("stopped by a signal while waiting for the other ranks");
    try {
      store.wait(keys, kSlice);
      return;
    } catch (const std::exception&) {
    }
    if (Clock::now() < give_up) continue;
    std::string missing;
    int count = 0;
    for (int r = 0; r < world_size; ++r) {
      bool there = false;
      try {
        there = store.check({joined_key(r)});
      } catch (const std::exception&) {
      }
      if (!there) {
        missing += (missing.empty() ? "" : ", ") + std::to_string(r);
        ++count;
      }
    }
    throw std::runtime_error((count == 1 ? "rank " : "ranks ") + missing + (count == 1 ? " has" : " have") +
                             " not joined within " + seconds(deadline) +
                             " (OPTBENCH_DIST_TIMEOUT): not started, killed, or given another MASTER_ADDR/MASTER_PORT");
  }
}

}  // namespace optbench::distributed
