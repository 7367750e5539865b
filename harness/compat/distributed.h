#pragma once
// c10d (stores, process groups, collectives) behind one small interface.
// ProcessGroupGloo / ProcessGroupNCCL derive from c10d::Backend (a
// c10d::ProcessGroup wraps backends per device type). We hold the backend itself:
// it has the collectives, and is what c10d's own C++ tests drive directly.
// Gloo needs its headers (pip's LibTorch ships none; Debian's libgloo-dev has
// them: only declarations are used, no member of a Gloo type is laid out here) and a
// LibTorch built with USE_C10D_GLOO; NCCL needs a CUDA LibTorch and nccl.h (pip:
// site-packages/nvidia/nccl/include, which harness/CMakeLists.txt adds). Where one
// is missing the factory throws a clear error instead of failing to compile.
#include <torch/version.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <vector>

#if defined(USE_C10D_GLOO) && __has_include(<gloo/config.h>)
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#define OPTBENCH_HAVE_GLOO 1
#else
#define OPTBENCH_HAVE_GLOO 0
#endif

#if defined(OPTBENCH_WITH_CUDA) && OPTBENCH_WITH_CUDA && __has_include(<nccl.h>) && \
    __has_include(<torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>)
// The header is guarded by the macro LibTorch itself was built with; the pip
// wheel always has NCCL but its CMake config may not export the definition.
#ifndef USE_C10D_NCCL
#define USE_C10D_NCCL
#endif
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#define OPTBENCH_HAVE_NCCL 1
#else
#define OPTBENCH_HAVE_NCCL 0
#endif

namespace optbench::compat {

using Collectives = c10d::Backend;
using CollectivesPtr = c10::intrusive_ptr<Collectives>;
using StorePtr = c10::intrusive_ptr<c10d::Store>;
using WorkPtr = c10::intrusive_ptr<c10d::Work>;

inline constexpr bool kHaveGloo = OPTBENCH_HAVE_GLOO;
inline constexpr bool kHaveNccl = OPTBENCH_HAVE_NCCL;

// A TCPStore client, or the server too when is_server. Port 0 with is_server
// binds a free port (read it back with tcp_store_port).
inline StorePtr make_tcp_store(const std::string& host, std::uint16_t port, bool is_server, int world_size,
                               std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions o;
  o.port = port;
  o.isServer = is_server;
  o.numWorkers = static_cast<std::size_t>(world_size);
  o.waitWorkers = false;  // the process group's own rendezvous waits for every rank
  o.timeout = timeout;
  return c10::make_intrusive<c10d::TCPStore>(host, o);
}

inline std::uint16_t tcp_store_port(const StorePtr& store) {
  auto* tcp = dynamic_cast<c10d::TCPStore*>(store.get());
  return tcp ? tcp->getPort() : 0;
}

inline StorePtr prefix_store(const std::string& prefix, StorePtr store) {
  return c10::make_intrusive<c10d::PrefixStore>(prefix, std::move(store));
}

// Gloo over TCP. Loopback rendezvous binds the loopback interface; otherwise
// GLOO_SOCKET_IFNAME picks the interface as in torch.distributed, else the
// address this host's name resolves to.
inline CollectivesPtr make_gloo(const StorePtr& store, int rank, int size, std::chrono::milliseconds timeout,
                                const std::string& master_addr) {
#if OPTBENCH_HAVE_GLOO
  auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
  const char* ifname = std::getenv("GLOO_SOCKET_IFNAME");
  const bool loopback = master_addr.rfind("127.", 0) == 0 || master_addr == "localhost" || master_addr == "::1";
  if (ifname && *ifname) {
    opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
  } else if (loopback) {
    opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  } else {
    opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  }
  opts->threads = 2;
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, opts);
#else
  (void)store, (void)rank, (void)size, (void)timeout, (void)master_addr;
  throw std::runtime_error(
      "this LibTorch has no Gloo backend (or its headers are missing: install libgloo-dev); CPU collectives "
      "are unavailable");
#endif
}

// NCCL on the calling thread's current CUDA device (set it first). Operations
// time out after `timeout`. By default NCCL's watchdog would then tear the
// process down (no record, the results file left "running"); unless the user
// chose otherwise, error handling is set to 2 (CleanUpOnly: the watchdog aborts
// the communicators and the error surfaces in the work, which Session::wait
// turns into a failed case). The variable is TORCH_NCCL_ASYNC_ERROR_HANDLING
// (NCCL_ASYNC_ERROR_HANDLING is its deprecated name, honoured if a user set it).
inline CollectivesPtr make_nccl(const StorePtr& store, int rank, int size, std::chrono::milliseconds timeout) {
#if OPTBENCH_HAVE_NCCL
  if (!std::getenv("TORCH_NCCL_ASYNC_ERROR_HANDLING") && !std::getenv("NCCL_ASYNC_ERROR_HANDLING")) {
    ::setenv("TORCH_NCCL_ASYNC_ERROR_HANDLING", "2", 0);
    ::setenv("NCCL_ASYNC_ERROR_HANDLING", "2", 0);
  }
  auto opts = c10d::ProcessGroupNCCL::Options::create();
  opts->timeout = timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, opts);
#else
  (void)store, (void)rank, (void)size, (void)timeout;
  throw std::runtime_error(
      "this build has no NCCL process group (CPU LibTorch, or nccl.h was not found when building)");
#endif
}

inline WorkPtr allreduce_async(Collectives& pg, const at::Tensor& t, c10d::ReduceOp op = c10d::ReduceOp::SUM) {
  std::vector<at::Tensor> ts{t};
  c10d::AllreduceOptions o;
  o.reduceOp = op;
  return pg.allreduce(ts, o);
}

// Every rank's `in` into out[r] (same shape and dtype on every rank).
inline WorkPtr allgather_async(Collectives& pg, const std::vector<at::Tensor>& out, const at::Tensor& in) {
  std::vector<std::vector<at::Tensor>> outs{out};
  std::vector<at::Tensor> ins{in};
  return pg.allgather(outs, ins);
}

inline WorkPtr broadcast_async(Collectives& pg, const at::Tensor& t, int root) {
  std::vector<at::Tensor> ts{t};
  c10d::BroadcastOptions o;
  o.rootRank = root;
  o.rootTensor = 0;
  return pg.broadcast(ts, o);
}

// Whether the backend averages in the reduction itself (ReduceOp::AVG): NCCL
// does (2.10+); Gloo does not, so callers scale while copying into the buffer.
inline bool supports_avg(const std::string& backend) { return backend == "nccl"; }

// True once the collective has finished (or failed): a non-blocking query (for
// NCCL, of the CUDA events after it), so a caller can wait against its own
// deadline and signals instead of inside the backend.
inline bool completed(const WorkPtr& work) { return work->isCompleted(); }

// Releases whatever a failed or timed-out group still runs: NCCL's abort
// (ncclCommAbort) frees kernels stuck waiting for a dead peer. Gloo has none (its
// collectives end at their own timeout): nothing to do there.
inline void abort(Collectives& pg) {
#if OPTBENCH_HAVE_NCCL
  if (auto* nccl = dynamic_cast<c10d::ProcessGroupNCCL*>(&pg)) nccl->abort();
#else
  (void)pg;
#endif
}

// What torch.distributed.destroy_process_group() does before the group is
// freed: NCCL's shutdown() ends the watchdog and heartbeat threads and frees the
// communicators while CUDA is still up. A 2.x ProcessGroupNCCL destroyed without
// it warns "destroy_process_group() was not called" and aborts from its
// destructor (seen followed by a SIGSEGV at exit). Gloo's destructor joins its
// threads: nothing to do before it.
inline void shutdown(Collectives& pg) {
#if OPTBENCH_HAVE_NCCL
  if (auto* nccl = dynamic_cast<c10d::ProcessGroupNCCL*>(&pg)) nccl->shutdown();
#else
  (void)pg;
#endif
}

// Waits for a collective. Host-blocking backends (Gloo) wait at most `timeout`
// and throw; NCCL's wait only orders the current stream after the collective
// (a host wait would serialise every step), its watchdog enforces the timeout.
inline void wait(const WorkPtr& work, std::chrono::milliseconds timeout, bool host_blocking) {
  if (host_blocking) {
    work->wait(timeout);
  } else {
    work->wait();
  }
}

}  // namespace optbench::compat
