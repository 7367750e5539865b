#pragma once
// Who this process is in a multi-process run, from the environment the
// launchers set:
//  - torchrun: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
//    MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE=True: torchrun's agent hosts the
//    TCPStore, so rank 0 connects as a client too);
//  - Slurm (`srun`): SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, with MASTER_ADDR
//    and MASTER_PORT exported by the job script. Slurm's variables count only
//    inside a job step (SLURM_STEP_ID set): a batch script's own environment
//    names the allocation's task count but is one process.
// torchrun's variables win when both are present (torchrun started by srun).
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace optbench::distributed {

struct RendezvousInfo {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string master_addr = "127.0.0.1";
  std::uint16_t master_port = 0;
  bool agent_store = false;  // the TCPStore is hosted by someone else (torchrun's agent)
  std::string source;        // "torchrun" | "slurm" | "local"
};

// Thrown for missing, malformed or inconsistent variables; the message names them.
struct RendezvousError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using GetEnv = std::function<const char*(const char*)>;

// nullopt when the environment describes no multi-process run (a plain
// `optbench run`); throws RendezvousError when it describes one badly.
std::optional<RendezvousInfo> parse_rendezvous_env(const GetEnv& getenv);
std::optional<RendezvousInfo> rendezvous_from_environment();

// Which GPU a rank would use: its host and the GPU's PCI bus id.
struct GpuSlot {
  int rank = 0;
  std::string host;
  std::string gpu;
};

// "" when no two ranks share a GPU, else the error to show, e.g. "4 ranks on
// host n1 need 4 GPUs (found 1): ranks 0, 1, 2, 3 would share GPU 0000:1a:00.0
// (NCCL needs one GPU per rank)". Checked before NCCL starts, which otherwise
// fails its rendezvous with an unrelated-looking error.
std::string gpu_sharing_problem(const std::vector<GpuSlot>& slots);

}  // namespace optbench::distributed
