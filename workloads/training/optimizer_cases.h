#pragma once
// The fused_optimizer experiment's cases (workloads/fused_optimizer.cpp), built
// here so the tests can build the same thing with a planted fault. Per case the
// AdamW loop over parameters (baseline), the _foreach_ and the fused version
// (workloads/training/adamw.h), on the optimizer step alone or the whole
// training step; verified on the parameters after 5 steps.
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "harness/experiment.h"
#include "workloads/training/adamw.h"

namespace optbench::workloads {

struct OptimizerModel {
  std::string name;
  std::function<torch::nn::Sequential()> build;  // seeds itself
  std::int64_t batch = 0, in = 0, classes = 0;   // the training step's batch; 0: optimizer step alone
};

// depth Linear(width, width) + GELU layers and a 10-class head: many small tensors.
OptimizerModel optimizer_mlp(std::int64_t depth, std::int64_t width, std::int64_t batch);
// Two bias-free Linear(side, side): a few large tensors.
OptimizerModel optimizer_two_large(std::int64_t side);

// cfgs: per variant (per_tensor, foreach, fused) its AdamW settings; the last
// one stands for the rest (one for all, or a planted wrong one in a test).
Case fused_optimizer_case(const OptimizerModel& m, bool train, DeviceKind d, const std::vector<AdamWConfig>& cfgs);

// Its Python twin (workloads/python/twin_adamw.py): torch.optim.AdamW's step
// alone over the same parameter shapes, run by the build's Python with
// foreach=False (the Python loop over parameters, a CPU's default), foreach=True
// and fused=True; inner_steps optimizer steps per timed step. cfgs as above.
Case python_optimizer_case(const OptimizerModel& m, DeviceKind d, const std::vector<AdamWConfig>& cfgs,
                           int inner_steps);

}  // namespace optbench::workloads
