#include "harness/distributed/launch_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "harness/cli_numbers.h"
#include "harness/distributed/launcher.h"
#include "harness/distributed/self_check.h"

namespace optbench::distributed {
namespace {

class Commands final : public DistributedCommands {
 public:
  explicit Commands(CLI::App& app) {
    launch_ = app.add_subcommand(
        "launch", "Start N ranks of optbench here, torchrun-style: optbench launch --nproc 2 -- run data_parallel");
    launch_->add_option("--nproc,--nproc-per-node", launch_opts_.nproc, "Number of ranks (processes)")
        ->required()
        ->check(cli::whole_number(1, 1024));
    launch_
        ->add_option("--timeout", launch_opts_.timeout_s,
                     "Stop every rank and fail after this many seconds (default: no limit)")
        ->check(cli::finite_number(true));
    launch_->add_option("--grace", launch_opts_.grace_s, "Seconds between SIGTERM and SIGKILL when stopping ranks")
        ->check(cli::finite_number(true));
    launch_->add_option("--master-port", launch_opts_.master_port, "Rendezvous port (default: a free one)")
        ->check(cli::whole_number(0, 65535));
    // Everything after `--` (or from the first positional on) is the ranks' command line.
    launch_->add_option("command", command_, "The optbench arguments each rank runs (after --)");
    launch_->prefix_command();

    check_ = app.add_subcommand("ddp-check", "Self-check of the DDP implementation across the launched ranks");
    check_->group("");  // hidden: a test hook
    check_->add_option("--device", device_, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
    check_->add_option("--steps", check_opts_.steps, "Training steps to check")->check(cli::whole_number(1));
    check_->add_option("--bucket-bytes", check_opts_.bucket_bytes, "Gradient bucket cap")->check(cli::whole_number(1));
  }

  std::optional<int> dispatch() override {
    if (*launch_) {
      std::vector<std::string> args = command_;
      auto rest = launch_->remaining();
      if (!rest.empty() && rest.front() == "--") rest.erase(rest.begin());
      args.insert(args.end(), rest.begin(), rest.end());
      if (args.empty()) {
        std::fprintf(stderr,
                     "optbench launch: error: nothing to launch; usage: optbench launch --nproc N -- run ...\n");
        return 2;
      }
      launch_opts_.args = args;
      return launch(launch_opts_);
    }
    if (*check_) {
      check_opts_.device = parse_device(device_);
      return run_ddp_check(check_opts_);
    }
    return std::nullopt;
  }

 private:
  CLI::App* launch_ = nullptr;
  CLI::App* check_ = nullptr;
  LaunchOptions launch_opts_;
  SelfCheckOptions check_opts_;
  std::vector<std::string> command_;
  std::string device_ = "cpu";
};

}  // namespace

std::unique_ptr<DistributedCommands> add_distributed_commands(CLI::App& app) { return std::make_unique<Commands>(app); }

}  // namespace optbench::distributed
