#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <set>

#include "workloads/shapes.h"

using namespace optbench::workloads;

// The generator behind cudnn_benchmark's new-shape case stays inside the input it
// narrows (the first GPU run crashed with "start (0) + length (234) exceeds
// dimension size (224)") and gives a new shape at every step of a long run.
TEST(VaryingShape, StaysInsideTheInputAndDoesNotRepeat) {
  const auto x = at::zeros({1, 1, 224, 224});
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  for (std::int64_t i = 0; i < 4160; ++i) {
    const auto [h, w] = varying_shape(i, 160, 224);
    ASSERT_GE(h, 160);
    ASSERT_LE(h, 224);
    ASSERT_GE(w, 160);
    ASSERT_LE(w, 224);
    ASSERT_NO_THROW(x.narrow(2, 0, h).narrow(3, 0, w));
    seen.insert({h, w});
  }
  EXPECT_EQ(seen.size(), 4160u);
  EXPECT_THROW(varying_shape(0, 224, 224), std::invalid_argument);
}
