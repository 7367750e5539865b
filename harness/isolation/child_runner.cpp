#include "harness/isolation/child_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/case_result_json.h"
#include "harness/run_settings.h"
#include "harness/subprocess.h"

namespace optbench {
namespace {

using json = nlohmann::json;

class ChildRunner final : public VariantRunner {
 public:
  ChildRunner(const WorkerOrigin& o, const std::string& case_name, std::size_t index) {
    // A worker that died must surface as an error on write, not kill this process.
    std::signal(SIGPIPE, SIG_IGN);
    SpawnOptions so;
    so.argv = {o.executable, "_worker", "--settings", json(WorkerArgs{o.experiment, case_name, index, o.ctx}).dump()};
    so.in = Stdio::pipe;
    so.out = Stdio::pipe;
    so.die_with_parent = SIGKILL;  // the worker must not outlive the run, even one killed with SIGKILL
    const Subprocess child = spawn(so);
    pid_ = child.pid;
    out_ = fdopen(child.in, "w");
    in_ = fdopen(child.out, "r");
  }

  ~ChildRunner() override {
    if (out_) {
      std::fprintf(out_, "{\"cmd\":\"exit\"}\n");
      std::fclose(out_);
    }
    if (in_) std::fclose(in_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }

  Prepared prepare(const PrepareSpec& p) override {
    const json hello = receive();  // the worker found its variant (or says why not)
    if (!hello.value("ok", false)) throw std::runtime_error("worker: " + hello.value("error", std::string("failed")));
    const json r = request({{"cmd", "prepare"}, {"spec", to_json(p)}});
    return prepared_from_json(r.at("prepared"));
  }

  Sample sample(std::int64_t iters, TimingMode mode) override {
    return sample_from_json(request({{"cmd", "sample"}, {"iters", iters}, {"mode", to_string(mode)}}).at("sample"));
  }

  json metrics() override { return request({{"cmd", "metrics"}}).at("metrics"); }
  BreakdownRecord profiled_window(const profiling::WindowRequest& r) override {
    return breakdown_record_from_json(
        request({{"cmd", "profiled_window"}, {"request", profiling::to_json(r)}}).at("breakdown"));
  }
  Workload* workload() override { return nullptr; }
  const char* process() const override { return "fresh"; }

 private:
  json request(const json& req) {
    if (std::fprintf(out_, "%s\n", req.dump().c_str()) < 0 || std::fflush(out_) != 0)
      throw std::runtime_error(exit_description());
    json r = receive();
    if (!r.value("ok", false)) {
      std::string msg = r.value("error", std::string("worker request failed"));
      // Keep an out-of-memory recognisable as one on this side of the pipe.
      if (r.value("oom", false) && msg.find("out of memory") == std::string::npos) msg = "out of memory: " + msg;
      throw std::runtime_error(msg);
    }
    return r;
  }

  json receive() {
    std::string line;
    for (int ch; (ch = std::fgetc(in_)) != EOF && ch != '\n';) line.push_back(static_cast<char>(ch));
    if (line.empty()) throw std::runtime_error(exit_description());
    return json::parse(line);
  }

  // Why the pipe closed: the worker's exit status or signal.
  std::string exit_description() {
    int status = 0;
    if (pid_ > 0 && waitpid(pid_, &status, 0) == pid_) {
      pid_ = -1;
      if (WIFSIGNALED(status)) return "worker process killed by signal " + std::to_string(WTERMSIG(status));
      return "worker process exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return "worker process stopped answering";
  }

  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  FILE* in_ = nullptr;
};

}  // namespace

std::unique_ptr<VariantRunner> make_child_runner(const WorkerOrigin& origin, const std::string& case_name,
                                                 std::size_t variant_index) {
  return std::make_unique<ChildRunner>(origin, case_name, variant_index);
}

}  // namespace optbench
