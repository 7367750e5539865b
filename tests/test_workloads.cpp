// Every registered experiment, on the CPU: declares itself properly, builds its
// cases, and each variant of each runnable case steps and (where the case
// verifies, by tolerance or its own check) produces an output matching the baseline's.
#include <gtest/gtest.h>

#include <regex>

#include "harness/registry.h"
#include "harness/seeding.h"
#include "harness/verify.h"

using namespace optbench;

class EveryExperiment : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryExperiment, DeclaresAndRunsOnCpu) {
  const Experiment* e = Registry::instance().match("^" + GetParam() + "$").at(0);
  const ExperimentInfo info = e->info();
  EXPECT_TRUE(std::regex_match(info.name, std::regex("[a-z0-9_]+")));
  EXPECT_FALSE(info.title.empty());
  EXPECT_FALSE(info.optimization.empty());
  EXPECT_FALSE(info.claims.empty()) << "every experiment tests a claim";
  RunContext ctx{DeviceKind::cpu, RunProfile::quick};
  if (!e->unsupported_reason(ctx).empty()) GTEST_SKIP() << e->unsupported_reason(ctx);
  const auto cases = build_cases(*e, ctx);  // seeded, as in a run
  ASSERT_FALSE(cases.empty());
  for (const Case& c : cases) {
    if (!c.skip_reason.empty()) continue;
    ASSERT_FALSE(c.variants.empty()) << c.name;
    std::vector<std::unique_ptr<Workload>> built;
    for (const Variant& v : c.variants) {
      built.push_back(build_workload(v));
      built.back()->step();
    }
    for (std::size_t i = 1; i < built.size(); ++i) {
      if (c.tolerance) {
        const OutputComparison cmp = compare_outputs(built[0]->output(), built[i]->output(), *c.tolerance);
        EXPECT_TRUE(cmp.passed) << c.name << " " << c.variants[i].name << ": " << cmp.message
                                << " max_abs_err=" << cmp.max_abs_err;
      }
      if (c.verify) {
        std::vector<Workload*> pair = {built[0].get(), built[i].get()};
        EXPECT_EQ(c.verify(pair).problem, "") << c.name << " " << c.variants[i].name;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryExperiment, ::testing::ValuesIn(Registry::instance().names()),
                         [](const auto& info) { return info.param; });
