// Distributed pieces that need no second process: the launchers' environment,
// one GPU per rank, bucket assignment, nccl-tests' bandwidth formulas, the
// parameter check across ranks, the DDP implementation on a group of one (Gloo:
// both gradient layouts, no_sync accumulation, a refused second backward, an
// unused parameter left alone). Multi-rank behaviour is tested under torchrun
// by tests/ddp_gloo.sh.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "harness/distributed/rendezvous.h"
#include "harness/distributed/session.h"
#include "workloads/ddp/bucketed_ddp.h"

using namespace optbench;
using namespace optbench::distributed;
using namespace optbench::workloads::ddp;

namespace {

using Env = std::map<std::string, std::string>;

std::optional<RendezvousInfo> parse(const Env& env) {
  return parse_rendezvous_env([&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

// The message of the RendezvousError parse throws, or "" when it does not.
std::string error_of(const Env& env) {
  try {
    parse(env);
  } catch (const RendezvousError& e) {
    return e.what();
  }
  return "";
}

const Env kTorchrun = {
    {"RANK", "3"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}, {"MASTER_ADDR", "node0"}, {"MASTER_PORT", "29500"}};

const Env kSlurm = {{"SLURM_STEP_ID", "0"}, {"SLURM_NTASKS", "4"},       {"SLURM_PROCID", "2"},
                    {"SLURM_LOCALID", "0"}, {"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "12345"}};

Env with(Env env, const std::string& k, const std::string& v) {
  env[k] = v;
  return env;
}
Env without(Env env, const std::string& k) {
  env.erase(k);
  return env;
}

}  // namespace

TEST(Rendezvous, NoLauncherIsAPlainRun) {
  EXPECT_FALSE(parse({}).has_value());
  EXPECT_FALSE(parse({{"PATH", "/bin"}}).has_value());
}

TEST(Rendezvous, Torchrun) {
  const auto r = parse(kTorchrun);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->rank, 3);
  EXPECT_EQ(r->world_size, 8);
  EXPECT_EQ(r->local_rank, 1);
  EXPECT_EQ(r->master_addr, "node0");
  EXPECT_EQ(r->master_port, 29500);
  EXPECT_FALSE(r->agent_store);
  EXPECT_EQ(r->source, "torchrun");
  EXPECT_TRUE(parse(with(kTorchrun, "TORCHELASTIC_USE_AGENT_STORE", "True"))->agent_store);
}

TEST(Rendezvous, WorldSizeOneIsAPlainRun) {
  EXPECT_FALSE(parse({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"LOCAL_RANK", "0"}}).has_value());
}

TEST(Rendezvous, TorchrunErrorsNameTheVariable) {
  EXPECT_NE(error_of(without(kTorchrun, "RANK")).find("RANK is not set"), std::string::npos);
  EXPECT_NE(error_of(without(kTorchrun, "LOCAL_RANK")).find("LOCAL_RANK is not set"), std::string::npos);
  EXPECT_NE(error_of(without(kTorchrun, "MASTER_ADDR")).find("MASTER_ADDR is not set"), std::string::npos);
  EXPECT_NE(error_of(without(kTorchrun, "MASTER_PORT")).find("MASTER_PORT is not set"), std::string::npos);
  EXPECT_NE(error_of(with(kTorchrun, "RANK", "8")).find("not below WORLD_SIZE=8"), std::string::npos);
  EXPECT_NE(error_of(with(kTorchrun, "RANK", "-1")).find("out of range"), std::string::npos);
  EXPECT_NE(error_of(with(kTorchrun, "WORLD_SIZE", "two")).find("WORLD_SIZE='two' is not an integer"),
            std::string::npos);
  EXPECT_NE(error_of(with(kTorchrun, "WORLD_SIZE", "0")).find("out of range"), std::string::npos);
  EXPECT_NE(error_of(with(kTorchrun, "MASTER_PORT", "70000")).find("MASTER_PORT=70000 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of(with(kTorchrun, "MASTER_PORT", "29500x")).find("not an integer"), std::string::npos);
  EXPECT_NE(error_of(with(kTorchrun, "LOCAL_RANK", "5")).find("LOCAL_RANK=5 is larger than RANK=3"), std::string::npos);
  EXPECT_NE(error_of({{"RANK", "1"}}).find("WORLD_SIZE is not"), std::string::npos);
}

TEST(Rendezvous, Slurm) {
  const auto r = parse(kSlurm);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->rank, 2);
  EXPECT_EQ(r->world_size, 4);
  EXPECT_EQ(r->local_rank, 0);
  EXPECT_EQ(r->master_addr, "10.0.0.1");
  EXPECT_EQ(r->master_port, 12345);
  EXPECT_EQ(r->source, "slurm");
  EXPECT_TRUE(parse(without(with(kSlurm, "SLURM_STEPID", "0"), "SLURM_STEP_ID")).has_value());
}

TEST(Rendezvous, SlurmBatchScriptIsOneProcess) {
  // A batch script sees the allocation's SLURM_NTASKS and SLURM_PROCID=0 but is
  // not in a step: one process.
  EXPECT_FALSE(parse(without(kSlurm, "SLURM_STEP_ID")).has_value());
  EXPECT_FALSE(parse(with(kSlurm, "SLURM_NTASKS", "1")).has_value());
}

TEST(Rendezvous, SlurmErrors) {
  const std::string no_addr = error_of(without(kSlurm, "MASTER_ADDR"));
  EXPECT_NE(no_addr.find("MASTER_ADDR is not set"), std::string::npos);
  EXPECT_NE(no_addr.find("scontrol show hostnames"), std::string::npos) << no_addr;
  EXPECT_NE(error_of(without(kSlurm, "SLURM_PROCID")).find("SLURM_PROCID is not set"), std::string::npos);
  EXPECT_NE(error_of(with(kSlurm, "SLURM_PROCID", "4")).find("not below SLURM_NTASKS=4"), std::string::npos);
  EXPECT_NE(error_of(with(kSlurm, "SLURM_LOCALID", "3")).find("SLURM_LOCALID=3 is larger"), std::string::npos);
}

TEST(Rendezvous, TorchrunWinsOverSlurm) {
  // torchrun started by srun: one agent per node, the workers count every GPU.
  Env both = kSlurm;
  for (const auto& kv : kTorchrun) both[kv.first] = kv.second;
  const auto r = parse(both);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->world_size, 8);
  EXPECT_EQ(r->rank, 3);
  EXPECT_EQ(r->source, "torchrun");
}

TEST(Buckets, ReverseOrderUpToTheCap) {
  // Parameters 0..4 of 10, 20, 30, 40, 50 bytes; cap 55: from the last, 50 | 40 | 30+20 | 10.
  const std::vector<BucketParam> ps = {{10, 0}, {20, 0}, {30, 0}, {40, 0}, {50, 0}};
  const std::vector<std::vector<std::size_t>> want = {{4}, {3}, {2, 1}, {0}};
  EXPECT_EQ(assign_buckets(ps, 55), want);
  // Exactly at the cap still fits: 30+20+10 = 60.
  const std::vector<std::vector<std::size_t>> at_cap = {{4}, {3}, {2, 1, 0}};
  EXPECT_EQ(assign_buckets(ps, 60), at_cap);
}

TEST(Buckets, LargeParameterAloneAndKeysSplit) {
  const std::vector<BucketParam> ps = {{4, 0}, {4, 0}, {100, 0}, {4, 1}, {4, 1}};
  const auto b = assign_buckets(ps, 16);
  // 4+4 (key 1) | 100 (over the cap, alone) | 4+4 (key 0)
  const std::vector<std::vector<std::size_t>> want = {{4, 3}, {2}, {1, 0}};
  EXPECT_EQ(b, want);
  // No cap: one bucket per run of equal keys.
  const std::vector<std::vector<std::size_t>> one = {{4, 3}, {2, 1, 0}};
  EXPECT_EQ(assign_buckets(ps, 0), one);
}

TEST(Buckets, EveryParameterExactlyOnce) {
  std::vector<BucketParam> ps;
  for (int i = 0; i < 57; ++i) ps.push_back({(i * 37) % 101 + 1, i % 3 == 0 ? 1 : 0});
  for (std::int64_t cap : {1, 50, 200, 100000}) {
    std::multiset<std::size_t> seen;
    for (const auto& bucket : assign_buckets(ps, cap)) {
      std::int64_t bytes = 0;
      for (std::size_t i : bucket) {
        seen.insert(i);
        bytes += ps[i].bytes;
        EXPECT_EQ(ps[i].key, ps[bucket.front()].key);
      }
      EXPECT_TRUE(bytes <= cap || bucket.size() == 1) << "cap " << cap;
    }
    EXPECT_EQ(seen.size(), ps.size());
    EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), ps.size());
  }
  EXPECT_TRUE(assign_buckets({}, 10).empty());
}

TEST(BusBandwidth, NcclTestsFormula) {
  // 1 GB in 10 ms: algbw 100 GB/s; busbw = algbw * 2(n-1)/n.
  EXPECT_DOUBLE_EQ(allreduce_algbw(1e9, 0.01), 1e11);
  EXPECT_DOUBLE_EQ(allreduce_busbw(1e9, 0.01, 2), 1e11);
  EXPECT_DOUBLE_EQ(allreduce_busbw(1e9, 0.01, 4), 1.5e11);
  EXPECT_DOUBLE_EQ(allreduce_busbw(1e9, 0.01, 8), 1.75e11);
  EXPECT_DOUBLE_EQ(allreduce_busbw(1e9, 0.01, 1), 0.0);
  EXPECT_DOUBLE_EQ(allreduce_algbw(1e9, 0.0), 0.0);
}

TEST(GpuSlots, TwoRanksOnOneGpuAreNamed) {
  EXPECT_EQ(gpu_sharing_problem({{0, "n1", "0000:1a:00.0"}, {1, "n1", "0000:1b:00.0"}, {2, "n2", "0000:1a:00.0"}}), "");
  const std::string p = gpu_sharing_problem({{0, "n1", "0000:1a:00.0"}, {1, "n1", "0000:1a:00.0"}});
  EXPECT_EQ(p.rfind("2 ranks on host n1 need 2 GPUs (found 1): ranks 0, 1 would share GPU 0000:1a:00.0", 0), 0u) << p;
  const std::string q =
      gpu_sharing_problem({{0, "n1", "A"}, {1, "n1", "B"}, {2, "n1", "A"}, {3, "n1", "B"}, {4, "n2", "A"}});
  EXPECT_NE(q.find("4 ranks on host n1 need 4 GPUs (found 2)"), std::string::npos) << q;
}

TEST(Signature, MismatchNamesEachRank) {
  const auto a = at::zeros({3, 4}), b = at::zeros({4}), c = at::zeros({4, 3});
  const auto s1 = parameter_signature({a, b}, 1024);
  EXPECT_EQ(signature_mismatch({s1, s1, s1}), "");
  // Same element count, other shape order: still a mismatch.
  const auto s2 = parameter_signature({c, b}, 1024);
  EXPECT_EQ(s2[1], s1[1]);
  const std::string m = signature_mismatch({s1, s2});
  EXPECT_NE(m.find("do not hold the same parameters"), std::string::npos) << m;
  EXPECT_NE(m.find("rank 1: 2 tensors, 16 elements"), std::string::npos) << m;
  EXPECT_NE(signature_mismatch({s1, parameter_signature({a, b}, 2048)}), "");  // bucket caps differ
  EXPECT_NE(signature_mismatch({s1, parameter_signature({a.to(at::kDouble), b}, 1024)}), "");
}

namespace {

struct Net {
  std::vector<at::Tensor> ps, ref;
  at::Tensor x;
  explicit Net(std::uint64_t seed) {
    auto gen = at::detail::createCPUGenerator(seed);
    ps = {at::randn({5}, gen),  // never used by the loss
          at::randn({8, 16}, gen), at::randn({16, 4}, gen)};
    for (auto& p : ps) {
      ref.push_back(p.clone().requires_grad_(true));
      p.requires_grad_(true);
    }
    x = at::randn({3, 8}, gen);
  }
  at::Tensor loss(const std::vector<at::Tensor>& p, double k = 1.0) const {
    return (x * k).mm(p[1]).tanh().mm(p[2]).pow(2).sum();
  }
  void clear() {
    for (auto* v : {&ps, &ref})
      for (auto& p : *v) p.mutable_grad() = at::Tensor();
  }
};

}  // namespace

TEST(Ddp, GroupOfOneKeepsGradientsAndOverlaps) {
  if (!compat::kHaveGloo) GTEST_SKIP() << "no Gloo in this build";
  auto session = Session::local(DeviceKind::cpu);
  ASSERT_EQ(session->world_size(), 1);
  EXPECT_EQ(session->backend(), "gloo");
  for (GradLayout layout : {GradLayout::copy, GradLayout::bucket_view}) {
    Net n(3);
    DistributedDataParallel ddp(n.ps, *session, DdpOptions{300, layout});
    // From the last: 64 floats (256 B) | 128 floats (512 B, over the cap) | 5 floats.
    ASSERT_EQ(ddp.num_buckets(), 3u);
    EXPECT_EQ(ddp.gradient_bytes(), (5 + 128 + 64) * 4);
    ddp.broadcast_parameters(0);
    EXPECT_TRUE(at::equal(n.ps[1], n.ref[1]));
    for (int step = 0; step < 2; ++step) {
      n.loss(n.ps).backward();
      ddp.finish_gradients();
      ddp.wait_completed();
      n.loss(n.ref).backward();
      EXPECT_TRUE(at::equal(n.ps[1].grad(), n.ref[1].grad())) << "step " << step;
      EXPECT_TRUE(at::equal(n.ps[2].grad(), n.ref[2].grad())) << "step " << step;
      // Used by no rank: left untouched, as PyTorch does (it used to get zeros).
      EXPECT_FALSE(n.ps[0].grad().defined());
      // The two buckets whose parameters get gradients went out from the hooks.
      EXPECT_EQ(ddp.last_overlapped_buckets(), 2);
      n.clear();
    }
    EXPECT_EQ(ddp.steps(), 2);
  }
}

TEST(Ddp, BucketViewGradientsAliasTheBucket) {
  if (!compat::kHaveGloo) GTEST_SKIP() << "no Gloo in this build";
  auto session = Session::local(DeviceKind::cpu);
  Net n(4);
  DistributedDataParallel ddp(n.ps, *session, DdpOptions{0, GradLayout::bucket_view});  // one bucket
  ASSERT_EQ(ddp.num_buckets(), 1u);
  n.loss(n.ps).backward();
  ddp.finish_gradients();
  const auto& g1 = n.ps[1].grad();
  const auto& g2 = n.ps[2].grad();
  // One buffer: parameter 2's slice comes first (reverse order), parameter 1's right after it.
  EXPECT_TRUE(g1.is_alias_of(g2));
  EXPECT_EQ(static_cast<const float*>(g1.data_ptr()), static_cast<const float*>(g2.data_ptr()) + 64);
  // With copies, each gradient is a tensor of its own.
  Net m(4);
  DistributedDataParallel copy(m.ps, *session, DdpOptions{0, GradLayout::copy});
  m.loss(m.ps).backward();
  copy.finish_gradients();
  EXPECT_FALSE(m.ps[1].grad().is_alias_of(m.ps[2].grad()));
  EXPECT_TRUE(at::equal(g1, m.ps[1].grad()));
}

TEST(Ddp, NoSyncAccumulatesMicroBatches) {
  if (!compat::kHaveGloo) GTEST_SKIP() << "no Gloo in this build";
  auto session = Session::local(DeviceKind::cpu);
  for (GradLayout layout : {GradLayout::copy, GradLayout::bucket_view}) {
    Net n(5);
    DistributedDataParallel ddp(n.ps, *session, DdpOptions{300, layout});
    {
      DistributedDataParallel::NoSync quiet(ddp);
      n.loss(n.ps, 1.0).backward();
    }
    n.loss(n.ps, 0.5).backward();
    ddp.finish_gradients();
    n.loss(n.ref, 1.0).backward();
    n.loss(n.ref, 0.5).backward();
    EXPECT_TRUE(at::allclose(n.ps[1].grad(), n.ref[1].grad()));
    EXPECT_TRUE(at::allclose(n.ps[2].grad(), n.ref[2].grad()));
  }
}

TEST(Ddp, SecondBackwardWithoutNoSyncIsRefused) {
  if (!compat::kHaveGloo) GTEST_SKIP() << "no Gloo in this build";
  auto session = Session::local(DeviceKind::cpu);
  Net n(6);
  DistributedDataParallel ddp(n.ps, *session, DdpOptions{300, GradLayout::copy});
  n.loss(n.ps).backward();
  try {
    n.loss(n.ps).backward();
    FAIL() << "a second backward before finish_gradients() was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("no_sync()"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(session->broken());
  EXPECT_THROW(ddp.finish_gradients(), std::runtime_error);
}
