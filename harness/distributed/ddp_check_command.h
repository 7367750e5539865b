#pragma once
// The CLI side of distributed runs: the hidden `optbench ddp-check` (ranks are
// started by torchrun or srun, docs/distributed.md). cli.cpp registers it with
// one call and dispatches with another, so its own code stays unaware of it.
#include <memory>
#include <optional>

namespace CLI {
class App;
}

namespace optbench::distributed {

class DistributedCommands {
 public:
  virtual ~DistributedCommands() = default;
  // After parsing: the exit code when one of these subcommands was given.
  virtual std::optional<int> dispatch() = 0;
};

std::unique_ptr<DistributedCommands> add_distributed_commands(CLI::App& app);

}  // namespace optbench::distributed
