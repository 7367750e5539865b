#pragma once
// One training step (forward, cross-entropy, backward, SGD) of the
// `data_parallel` experiment, in one of three ways:
//  - single_device: one process, one device, the whole global batch;
//  - data_parallel: one process replicating the model over N devices every
//    step (torch::nn::parallel::data_parallel on GPUs; on the CPU, a
//    DP-equivalent in one process: N replicas copied from the model every
//    step, a thread each on its slice of the batch, gradients summed back);
//  - ddp: one process per rank, each with its own share of the batch, gradients
//    averaged by workloads/ddp/bucketed_ddp.h.
// Rank r's batch is the same in every variant and run, so the global batch of
// single_device / data_parallel is the concatenation of the ranks' batches and
// every variant's first-step gradients can be checked against one process.
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/distributed/session.h"
#include "workloads/ddp/bucketed_ddp.h"

namespace optbench::workloads::ddp {

enum class Net { mlp, resnet50 };
enum class Mode { single_device, data_parallel, ddp };

struct TrainSpec {
  Net net = Net::mlp;
  std::int64_t batch = 32;                            // per rank
  std::int64_t width = 256, depth = 4, classes = 16;  // the MLP
  std::int64_t image = 224;                           // ResNet-50's input side
  std::int64_t bucket_cap_bytes = 25 << 20;
};

double parameter_count(const TrainSpec& s);
// Matmul FLOPs of forward + backward (2 + 4 per multiply-add) for `samples`.
double train_flops(const TrainSpec& s, double samples);

// What rank 0 announces so the other ranks build the same variant.
struct Job {
  std::string experiment, case_name, variant;
};

class Train final : public distributed::DistributedWorkload {
 public:
  // ranks: how many ranks' batches one step of single_device / data_parallel
  // covers (the global batch), and for data_parallel how many devices.
  // ddp runs over the launched group, or (local_group) a private group of one.
  Train(const TrainSpec& s, Mode mode, GradLayout layout, DeviceKind kind, Job job, int ranks, bool local_group);
  ~Train() override;

  void step() override;
  void follow_step() override;
  nlohmann::json metrics() override;
  // "" when the first step's (averaged) gradients match one process on the
  // ranks' batches concatenated.
  std::string check_first_step() const;

 private:
  void run_step();
  torch::Tensor forward();
  void reduce_replica_gradients();  // the CPU DP-equivalent's ReduceAdd
  std::vector<torch::Tensor> reference_gradients() const;

  TrainSpec spec_;
  Mode mode_;
  torch::Device device_{torch::kCPU};
  std::shared_ptr<distributed::Session> owned_;
  distributed::Session* session_ = nullptr;  // set in a launched run, and for ddp
  int rank_ = 0, world_ = 1, ranks_ = 1;
  std::int64_t job_ = -1;
  std::shared_ptr<torch::nn::Module> module_;
  torch::nn::Sequential mlp_{nullptr};
  std::function<torch::Tensor(const torch::Tensor&)> net_forward_;
  std::unique_ptr<torch::optim::SGD> opt_;
  std::unique_ptr<DistributedDataParallel> ddp_;
  std::vector<torch::Device> dp_devices_;
  std::vector<std::shared_ptr<torch::nn::SequentialImpl>> replicas_;
  torch::Tensor x_, y_;
  std::vector<torch::Tensor> first_grads_;
  double comm_wait_s_ = 0;
  std::int64_t overlapped_ = 0, ddp_steps_ = 0;
};

}  // namespace optbench::workloads::ddp
