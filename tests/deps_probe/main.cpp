// One call into each library the bundle carries; prints "deps ok" when all work.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

TEST(DepsProbe, Links) { EXPECT_EQ(nlohmann::json::parse("[1,2]").size(), 2u); }

static void BM_Noop(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(state.iterations());
}
BENCHMARK(BM_Noop)->Iterations(1);

int main(int argc, char** argv) {
  CLI::App app{"deps probe"};
  CLI11_PARSE(app, 1, argv);
  testing::InitGoogleTest(&argc, argv);
  if (RUN_ALL_TESTS() != 0) return 1;
  benchmark::Initialize(&argc, argv);
  if (benchmark::RunSpecifiedBenchmarks() != 1) return 1;
  std::puts("deps ok");
  return 0;
}
