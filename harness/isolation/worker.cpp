#include "harness/isolation/worker.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>

#include "harness/case_result_json.h"
#include "harness/registry.h"
#include "harness/seeding.h"
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
  std::unique_ptr<DeviceBackend> backend;
  std::unique_ptr<VariantRunner> runner;
  try {
    const auto found = Registry::instance().match("^" + a.experiment + "$");
    if (found.size() != 1) throw std::invalid_argument("no experiment '" + a.experiment + "'");
    backend = make_backend(a.ctx.device);
    cases = build_cases(*found[0], a.ctx);
    const Case& c = find_case(cases, a.case_name);
    if (a.variant >= c.variants.size()) throw std::invalid_argument("no variant " + std::to_string(a.variant));
    runner = make_in_process_runner(c.variants[a.variant], *backend);
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
        reply_msg = {{"ok", true}, {"prepared", to_json(runner->prepare(prepare_spec_from_json(req.at("spec"))))}};
      } else if (cmd == "sample") {
        const Sample s = runner->sample(req.at("iters"), timing_mode_from(req.at("mode")));
        reply_msg = {{"ok", true}, {"sample", to_json(s)}};
      } else if (cmd == "metrics") {
        reply_msg = {{"ok", true}, {"metrics", runner->metrics()}};
      } else if (cmd == "profiled_window") {
        const auto r = profiling::window_request_from_json(req.at("request"));
        reply_msg = {{"ok", true}, {"breakdown", to_json(runner->profiled_window(r))}};
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
