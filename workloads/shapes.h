#pragma once
// Input shapes that change every step, as with variable-size images: the
// cudnn.benchmark experiment's "new shape every step" case.
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace optbench::workloads {

// (H, W) for step i, both within [min_px, max_px]. H takes max-min+1 values and W
// one fewer; the two counts are coprime, so the pair repeats only after
// (n)(n-1) steps (4160 for 160..224): every step of a run sees a new shape.
inline std::pair<std::int64_t, std::int64_t> varying_shape(std::int64_t i, std::int64_t min_px, std::int64_t max_px) {
  const std::int64_t nh = max_px - min_px + 1, nw = nh - 1;
  if (nw < 1 || i < 0) throw std::invalid_argument("varying_shape: need max_px > min_px and i >= 0");
  // Steps of 37 and 53 (coprime to both counts here) spread consecutive shapes apart.
  return {min_px + (i * 37) % nh, min_px + (i * 53) % nw};
}

}  // namespace optbench::workloads
