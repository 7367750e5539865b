#include "harness/distributed/ddp_check_command.h"

#include <CLI/CLI.hpp>
#include <string>

#include "harness/cli_numbers.h"
#include "harness/distributed/self_check.h"

namespace optbench::distributed {
namespace {

class Commands final : public DistributedCommands {
 public:
  explicit Commands(CLI::App& app) {
    check_ = app.add_subcommand("ddp-check", "Self-check of the DDP implementation across the launched ranks");
    check_->group("");  // hidden: a test hook
    check_->add_option("--device", device_, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
    check_->add_option("--steps", check_opts_.steps, "Training steps to check")->check(cli::whole_number(1));
    check_->add_option("--bucket-bytes", check_opts_.bucket_bytes, "Gradient bucket cap")->check(cli::whole_number(1));
  }

  std::optional<int> dispatch() override {
    if (*check_) {
      check_opts_.device = parse_device(device_);
      return run_ddp_check(check_opts_);
    }
    return std::nullopt;
  }

 private:
  CLI::App* check_ = nullptr;
  SelfCheckOptions check_opts_;
  std::string device_ = "cpu";
};

}  // namespace

std::unique_ptr<DistributedCommands> add_distributed_commands(CLI::App& app) { return std::make_unique<Commands>(app); }

}  // namespace optbench::distributed
