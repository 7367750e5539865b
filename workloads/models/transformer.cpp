#include "workloads/models/transformer.h"

#include <cmath>

namespace optbench::workloads {

GptBlockImpl::GptBlockImpl(std::int64_t hidden, std::int64_t heads_) : heads(heads_) {
  TORCH_CHECK(hidden % heads == 0, "hidden must be divisible by heads");
  ln1 = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden})));
  ln2 = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden})));
  qkv = register_module("qkv", torch::nn::Linear(hidden, 3 * hidden));
  proj = register_module("proj", torch::nn::Linear(hidden, hidden));
  fc1 = register_module("fc1", torch::nn::Linear(hidden, 4 * hidden));
  fc2 = register_module("fc2", torch::nn::Linear(4 * hidden, hidden));
}

torch::Tensor GptBlockImpl::forward(torch::Tensor x) {
  const auto b = x.size(0), s = x.size(1), h = x.size(2), d = h / heads;
  auto parts = qkv(ln1(x)).view({b, s, 3, heads, d}).permute({2, 0, 3, 1, 4});  // 3, b, heads, s, d
  auto q = parts[0], k = parts[1], v = parts[2];
  auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(d));
  auto mask = torch::ones({s, s}, x.options().dtype(torch::kBool)).triu(1);
  scores = scores.masked_fill(mask, -std::numeric_limits<float>::infinity());
  auto att = torch::softmax(scores, -1).to(v.scalar_type());
  auto y = torch::matmul(att, v).transpose(1, 2).reshape({b, s, h});
  x = x + proj(y);
  return x + fc2(torch::gelu(fc1(ln2(x))));
}

GptImpl::GptImpl(const GptConfig& c) {
  tok = register_module("tok", torch::nn::Embedding(c.vocab, c.hidden));
  pos = register_module("pos", torch::nn::Embedding(c.seq, c.hidden));
  blocks = register_module("blocks", torch::nn::ModuleList());
  for (std::int64_t i = 0; i < c.layers; ++i) blocks->push_back(GptBlock(c.hidden, c.heads));
  ln = register_module("ln", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.hidden})));
  head = register_module("head", torch::nn::Linear(c.hidden, c.vocab));
}

torch::Tensor GptImpl::forward(torch::Tensor tokens) {
  auto positions = torch::arange(tokens.size(1), tokens.options());
  auto x = tok(tokens) + pos(positions).unsqueeze(0);
  for (const auto& blk : *blocks) x = blk->as<GptBlock>()->forward(x);
  return head(ln(x));
}

double gpt_train_flops_per_token(const GptConfig& c) {
  const double h = static_cast<double>(c.hidden);
  const double params = c.layers * 12.0 * h * h + h * c.vocab;
  return 6.0 * params + 12.0 * c.layers * c.seq * h;
}

}  // namespace optbench::workloads
