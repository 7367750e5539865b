#include "harness/warmup.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "harness/stats.h"

namespace optbench {

double primary_time(const Sample& s, TimingMode mode) {
  return (mode == TimingMode::batched && s.device_s) ? *s.device_s : s.host_s;
}

WarmupResult warm_up(DeviceBackend& backend, const std::function<void()>& step, TimingMode mode, double min_s,
                     double max_s) {
  WarmupResult r;
  const double t0 = backend.now();
  const Sample first = backend.time(step, 1, TimingMode::sync);
  r.first_run_s = first.host_s;
  r.iters = 1;
  std::vector<double> recent;
  std::int64_t batch = 1;
  for (;;) {
    const Sample s = backend.time(step, batch, mode);
    r.iters += batch;
    recent.push_back(primary_time(s, mode));
    if (recent.size() > 3) recent.erase(recent.begin());
    // Grow the batch while a call is short, so tiny steps are not dominated by
    // the per-call synchronisation.
    if (s.host_s * static_cast<double>(batch) < min_s / 20) batch *= 2;
    r.seconds = backend.now() - t0;
    if (recent.size() == 3) {
      const double mid = median(recent);
      const auto [lo, hi] = std::minmax_element(recent.begin(), recent.end());
      r.stable = mid > 0 && (*hi - *lo) / mid <= kStableSpread;
    }
    if ((r.seconds >= min_s && r.stable) || r.seconds >= max_s) break;
  }
  r.step_s = median(recent);
  return r;
}

std::int64_t iters_per_sample(double step_s, double target_s, std::int64_t max_iters) {
  if (!(step_s > 0)) return max_iters;
  const double n = std::ceil(target_s / step_s);
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::min(n, 1e12)), 1, max_iters);
}

}  // namespace optbench
