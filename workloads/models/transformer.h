#pragma once
// A GPT-style stack: pre-LayerNorm blocks of causal multi-head attention and a
// 4x GELU MLP, hidden size a multiple of 64. Attention is written out (QK^T,
// mask, softmax, V) rather than fused SDPA, so that every device and dtype,
// the float64 references included, runs the same operations.
#include <torch/torch.h>

namespace optbench::workloads {

struct GptConfig {
  std::int64_t layers = 4, hidden = 1024, heads = 16, seq = 512, vocab = 8192;
};

struct GptBlockImpl : torch::nn::Module {
  GptBlockImpl(std::int64_t hidden, std::int64_t heads);
  torch::Tensor forward(torch::Tensor x);
  std::int64_t heads;
  torch::nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  torch::nn::Linear qkv{nullptr}, proj{nullptr}, fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(GptBlock);

struct GptImpl : torch::nn::Module {
  explicit GptImpl(const GptConfig& c);
  torch::Tensor forward(torch::Tensor tokens);  // [batch, seq] -> logits [batch, seq, vocab]
  torch::nn::Embedding tok{nullptr}, pos{nullptr};
  torch::nn::ModuleList blocks;
  torch::nn::LayerNorm ln{nullptr};
  torch::nn::Linear head{nullptr};
};
TORCH_MODULE(Gpt);

// Training FLOPs per token, 6 x parameters (matmuls) + attention 12 L s h (Kaplan et al.).
double gpt_train_flops_per_token(const GptConfig& c);

}  // namespace optbench::workloads
