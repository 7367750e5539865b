#include "harness/isolation/worker.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>

#include "harness/registry.h"
#include "harness/variant_runner.h"

namespace optbench {
namespace {

using json = nlohmann::json;

const Case& find_case(const std::vector<Case>& cases, const std::string& name) {
  for (const auto& c : cases)
    if (c.name == name) return c;
  throw std::invalid_argument("no case '" + name + "'");
}

}  // namespace

int run_worker(const WorkerArgs& a) {
  // Replies go to the original stdout; anything else printed goes to stderr.
  const int reply_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  FILE* reply = fdopen(reply_fd, "w");
  // Ctrl-C reaches the whole process group: the parent decides when to stop.
  std::signal(SIGINT, SIG_IGN);
  auto send = [&](const json& j) {
    std::fprintf(reply, "%s\n", j.dump().c_str());
    std::fflush(reply);
  };

  std::vector<Case> cases;
  const Variant* variant = nullptr;
  std::unique_ptr<DeviceBackend> backend;
  std::unique_ptr<VariantRunner> runner;
  try {
    const auto found = Registry::instance().match("^" + a.experiment + "$");
    if (found.size() != 1) throw std::invalid_argument("no experiment '" + a.experiment + "'");
    backend = make_backend(a.ctx.device);
    cases = found[0]->cases(a.ctx);
    const Case& c = find_case(cases, a.case_name);
    if (a.variant >= c.variants.size()) throw std::invalid_argument("no variant " + std::to_string(a.variant));
    variant = &c.variants[a.variant];
    runner = make_in_process_runner(*variant, *backend);
    send({{"ok", true}, {"pid", getpid()}});
  } catch (const std::exception& e) {
    send({{"ok", false}, {"error", first_line(e.what())}});
    return 1;
  }

  std::string line;
  while (std::getline(std::cin, line)) {
    json reply_msg;
    try {
      const json req = json::parse(line);
      const std::string cmd = req.at("cmd");
      if (cmd == "prepare") {
        PrepareSpec p;
        p.mode = req.at("mode") == "sync" ? TimingMode::sync : TimingMode::batched;
        p.hold_stream = req.at("hold_stream");
        p.warmup_min_s = req.at("warmup_min_s");
        p.warmup_max_s = req.at("warmup_max_s");
        p.target_sample_s = req.at("target_sample_s");
        p.max_iters = req.at("max_iters");
        reply_msg = {{"ok", true}, {"prepared", to_json(runner->prepare(p))}};
      } else if (cmd == "sample") {
        const auto mode = req.at("mode") == "sync" ? TimingMode::sync : TimingMode::batched;
        reply_msg = {{"ok", true}, {"sample", to_json(runner->sample(req.at("iters"), mode))}};
      } else if (cmd == "metrics") {
        reply_msg = {{"ok", true}, {"metrics", runner->metrics()}};
      } else if (cmd == "exit") {
        break;
      } else {
        reply_msg = {{"ok", false}, {"error", "unknown request '" + cmd + "'"}};
      }
    } catch (const std::exception& e) {
      reply_msg = {{"ok", false}, {"error", first_line(e.what())}, {"oom", is_out_of_memory(e)}};
    }
    send(reply_msg);
  }
  runner.reset();
  return 0;
}

}  // namespace optbench
