#include "harness/isolation/child_runner.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace optbench {
namespace {

using json = nlohmann::json;

class ChildRunner final : public VariantRunner {
 public:
  ChildRunner(const WorkerOrigin& o, const std::string& case_name, std::size_t index) {
    // A worker that died must surface as an error on write, not kill this process.
    std::signal(SIGPIPE, SIG_IGN);
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0)
      throw std::runtime_error("cannot create pipes for a worker process");
    std::vector<std::string> args = {o.executable, "_worker", "--experiment", o.experiment, "--case", case_name,
                                     "--variant", std::to_string(index), "--device", to_string(o.ctx.device),
                                     "--profile", to_string(o.ctx.profile)};
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("cannot fork a worker process");
    if (pid_ == 0) {
      // The worker must not outlive the run, even one killed with SIGKILL.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      dup2(to_child[0], STDIN_FILENO);
      dup2(from_child[1], STDOUT_FILENO);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      std::perror("optbench: cannot start a worker process");
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    out_ = fdopen(to_child[1], "w");
    in_ = fdopen(from_child[0], "r");
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
  json profiled_window(const profiling::WindowRequest& r) override {
    return request({{"cmd", "profiled_window"}, {"request", profiling::to_json(r)}}).at("breakdown");
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
