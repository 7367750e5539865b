#include "harness/profiling/breakdown.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "harness/profiling/categories.h"
#include "harness/profiling/counters.h"
#include "harness/profiling/scopes.h"
#include "harness/stats.h"

namespace optbench::profiling {
namespace {

using Span = std::pair<std::uint64_t, std::uint64_t>;
using Spans = std::vector<Span>;  // sorted, disjoint

Spans merged(Spans s) {
  std::sort(s.begin(), s.end());
  Spans out;
  for (const auto& x : s) {
    if (x.second <= x.first) continue;
    if (!out.empty() && x.first <= out.back().second)
      out.back().second = std::max(out.back().second, x.second);
    else
      out.push_back(x);
  }
  return out;
}

std::uint64_t length(const Spans& s) {
  std::uint64_t n = 0;
  for (const auto& x : s) n += x.second - x.first;
  return n;
}

Spans intersect(const Spans& a, const Spans& b) {
  Spans out;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const auto lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (lo < hi) out.emplace_back(lo, hi);
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return out;
}

Spans complement(const Spans& s, Span within) {
  Spans out;
  std::uint64_t at = within.first;
  for (const auto& x : s) {
    if (x.first > at) out.emplace_back(at, std::min(x.first, within.second));
    at = std::max(at, x.second);
  }
  if (at < within.second) out.emplace_back(at, within.second);
  return out;
}

// Kernel names run to thousands of characters of template arguments.
std::string short_name(const std::string& n) { return n.size() > 160 ? n.substr(0, 157) + "..." : n; }

struct OpTime {
  const TraceEvent* e;
  Span span;
  std::uint64_t self_ns;
  bool top_level;
};

// Self time of CPU operators: per thread, an operator's time less that of the
// operators it called (aten::linear -> aten::addmm), so nothing counts twice.
std::vector<OpTime> cpu_op_times(const std::vector<std::pair<const TraceEvent*, Span>>& ops) {
  std::map<std::uint64_t, std::vector<std::size_t>> by_thread;
  for (std::size_t i = 0; i < ops.size(); ++i) by_thread[ops[i].first->thread].push_back(i);
  std::vector<OpTime> out;
  for (auto& [thread, idx] : by_thread) {
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      const Span &x = ops[a].second, &y = ops[b].second;
      return x.first != y.first ? x.first < y.first : x.second > y.second;
    });
    std::vector<std::size_t> stack;  // indices into out
    for (std::size_t i : idx) {
      const Span s = ops[i].second;
      while (!stack.empty() && out[stack.back()].span.second <= s.first) stack.pop_back();
      out.push_back({ops[i].first, s, s.second - s.first, stack.empty()});
      if (!stack.empty()) {
        auto& parent = out[stack.back()];
        const std::uint64_t inside = std::min(s.second, parent.span.second) - s.first;
        parent.self_ns -= std::min(parent.self_ns, inside);
      }
      stack.push_back(out.size() - 1);
    }
  }
  return out;
}

std::vector<RankedName> ranked(const std::unordered_map<std::string, std::pair<std::uint64_t, Category>>& by_name,
                               double total_ns, double steps, std::size_t n) {
  std::vector<std::pair<std::string, std::pair<std::uint64_t, Category>>> v(by_name.begin(), by_name.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::vector<RankedName> out;
  for (std::size_t i = 0; i < v.size() && i < n; ++i)
    out.push_back({short_name(v[i].first), std::string(category_key(v[i].second.second)),
                   static_cast<double>(v[i].second.first) * 1e-9 / steps,
                   total_ns > 0 ? static_cast<double>(v[i].second.first) / total_ns : 0.0});
  return out;
}

// Names repeat every step (thousands of events, a few hundred names): each is
// matched against the table once.
struct Categoriser {
  std::unordered_map<std::string, Category> seen;
  Category operator()(EventKind kind, const std::string& name) {
    const std::string key = (kind == EventKind::cpu_op ? "c:" : kind == EventKind::kernel ? "k:" : "o:") + name;
    auto it = seen.find(key);
    if (it == seen.end()) it = seen.emplace(key, categorise(kind, name)).first;
    return it->second;
  }
};

// A compiled-code scope (scopes.h) and the category its uncovered time goes to.
struct CompiledScope {
  const TraceEvent* e;
  Span span;
  Category category;
};

std::optional<CompiledScope> compiled_scope(const TraceEvent& e, Span s) {
  const std::string_view prefix = kCompiledScope;
  if (e.kind != EventKind::annotation || e.name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const std::string_view rest = std::string_view(e.name).substr(prefix.size());
  std::optional<Category> c = Category::compiled;
  if (!rest.empty()) c = rest.front() == '/' ? category_from_key(rest.substr(1)) : std::nullopt;
  if (!c) return std::nullopt;
  return CompiledScope{&e, s, *c};
}

bool within(Span inner, Span outer) { return outer.first <= inner.first && inner.second <= outer.second; }

using ByName = std::unordered_map<std::string, std::pair<std::uint64_t, Category>>;

// A window's events by kind, clipped to it, and the time credited to categories.
struct Collected {
  Span window;
  double steps = 1, window_ns = 0;
  std::vector<std::pair<const TraceEvent*, Span>> ops = {}, launches = {};
  Spans kernels = {}, copies = {}, memsets = {};
  std::vector<CompiledScope> compiled = {};
  std::vector<std::pair<std::uint64_t, double>> step_times = {};  // start, seconds
  std::array<double, kCategoryCount> cat_ns{};
  ByName by_name = {};
  Categoriser category_of = {};
  std::vector<OpTime> op_times = {};
  Spans top_ops = {};  // merged: top-level operators and compiled scopes

  double per_step(double ns) const { return ns * 1e-9 / steps; }
  void credit_as(Category c, const std::string& name, std::uint64_t ns) {
    cat_ns[static_cast<std::size_t>(c)] += static_cast<double>(ns);
    by_name.try_emplace(name, 0, c).first->second.first += ns;
  }
  void credit(EventKind kind, const std::string& name, std::uint64_t ns) {
    credit_as(category_of(kind, name), name, ns);
  }
};

// The events by kind; on a device timeline, kernels, copies and memsets credited.
Collected collect(const std::vector<TraceEvent>& events, const Window& w) {
  Collected c;
  c.window = {w.start_ns, std::max(w.end_ns, w.start_ns)};
  c.steps = std::max(1, w.steps);
  c.window_ns = static_cast<double>(c.window.second - c.window.first);
  for (const auto& e : events) {
    const auto lo = std::max(e.start_ns, c.window.first), hi = std::min(e.end_ns, c.window.second);
    if (lo >= hi) continue;
    const Span s{lo, hi};
    switch (e.kind) {
      case EventKind::cpu_op:
        c.ops.emplace_back(&e, s);
        break;
      case EventKind::annotation:
        if (e.name == kStepScope) c.step_times.emplace_back(e.start_ns, static_cast<double>(e.duration_ns()) * 1e-9);
        if (auto scope = compiled_scope(e, s)) c.compiled.push_back(*scope);
        break;
      case EventKind::kernel:
        c.kernels.push_back(s);
        break;
      case EventKind::memcpy:
        c.copies.push_back(s);
        break;
      case EventKind::memset:
        c.memsets.push_back(s);
        break;
      case EventKind::launch:
        c.launches.emplace_back(&e, s);
        break;
      default:
        break;
    }
    if (w.device_timeline &&
        (e.kind == EventKind::kernel || e.kind == EventKind::memcpy || e.kind == EventKind::memset))
      c.credit(e.kind, e.name, s.second - s.first);
  }
  return c;
}

// The operators' times; on a CPU timeline their self times credited, and compiled
// code's own (its time outside the operator calls it makes, and the self time of the
// non-operator records inside it: a TorchScript method's "forward"): neither is
// idle, neither is "other".
void credit_host(Collected& c, const Window& w) {
  c.op_times = cpu_op_times(c.ops);
  auto in_compiled = [&](const OpTime& o) {
    return std::any_of(c.compiled.begin(), c.compiled.end(),
                       [&](const CompiledScope& s) { return s.e->thread == o.e->thread && within(o.span, s.span); });
  };
  for (const auto& o : c.op_times) {
    if (o.top_level) c.top_ops.push_back(o.span);
    if (w.device_timeline) continue;
    if (!c.compiled.empty() && !is_operator(o.e->name) && in_compiled(o)) continue;
    c.credit(EventKind::cpu_op, o.e->name, o.self_ns);
  }
  if (!w.device_timeline)
    for (const auto& scope : c.compiled) {
      Spans covered;
      for (const auto& o : c.op_times)
        if (o.e->thread == scope.e->thread && is_operator(o.e->name) && within(o.span, scope.span))
          covered.push_back(o.span);
      const std::uint64_t own = (scope.span.second - scope.span.first) - length(merged(covered));
      c.credit_as(scope.category, scope.e->name, own);
      c.top_ops.push_back(scope.span);
    }
  c.top_ops = merged(c.top_ops);
}

// The window against the timed step: the profiler's overhead and whether it is within tolerance.
void add_window(BreakdownFigures& b, const Collected& c, const Window& w) {
  b.window_step_s = c.per_step(c.window_ns);
  if (w.timed_step_s && *w.timed_step_s > 0) {
    b.timed_step_s = *w.timed_step_s;
    b.overhead = c.per_step(c.window_ns) / *w.timed_step_s - 1.0;
    b.agrees = std::abs(*b.overhead) <= w.tolerance;
  }
  b.tolerance = w.tolerance;
}

// Seconds per step by category; returns their total in ns.
double add_categories(BreakdownFigures& b, const Collected& c) {
  double cat_total = 0;
  for (Category k : all_categories()) {
    const double ns = c.cat_ns[static_cast<std::size_t>(k)];
    cat_total += ns;
    if (ns > 0) b.categories_s.emplace_back(category_key(k), c.per_step(ns));
  }
  return cat_total;
}

// A device timeline: busy and idle, launches, and what the host did while the device idled.
void add_device_shares(BreakdownFigures& b, const Collected& c) {
  const double window_ns = c.window_ns;
  const Spans k = merged(c.kernels), cp = merged(c.copies);
  Spans all = c.kernels;
  all.insert(all.end(), c.copies.begin(), c.copies.end());
  all.insert(all.end(), c.memsets.begin(), c.memsets.end());
  const Spans busy = merged(all);
  const Spans idle = complement(busy, c.window);
  const double busy_ns = static_cast<double>(length(busy)), k_ns = static_cast<double>(length(k));
  // None at all: CUPTI saw nothing (unavailable, not permitted) or the variant
  // runs nothing on the GPU; either way its shares say nothing about the GPU.
  b.device_events = c.kernels.size() + c.copies.size() + c.memsets.size();
  b.busy_s = c.per_step(busy_ns);
  b.idle_s = c.per_step(window_ns - busy_ns);
  b.shares = {window_ns > 0 ? k_ns / window_ns : 0.0, window_ns > 0 ? (busy_ns - k_ns) / window_ns : 0.0,
              window_ns > 0 ? (window_ns - busy_ns) / window_ns : 0.0};
  const double cp_ns = static_cast<double>(length(cp));
  if (cp_ns > 0) b.copy_overlap = static_cast<double>(length(intersect(cp, k))) / cp_ns;
  // A runtime launch (cudaLaunchKernel) may call the driver's (cuLaunchKernel)
  // on the same thread: count the outer one only.
  std::vector<double> launch_ns;
  for (const auto& [e, s] : c.launches) {
    if (e->driver) {
      const bool nested = std::any_of(c.launches.begin(), c.launches.end(), [&](const auto& o) {
        return !o.first->driver && o.first->thread == e->thread && o.second.first <= s.first &&
               s.second <= o.second.second;
      });
      if (nested) continue;
    }
    launch_ns.push_back(static_cast<double>(s.second - s.first));
  }
  b.launches_per_step = static_cast<double>(launch_ns.size()) / c.steps;
  // The median: one launch that loads its module lazily takes seconds (3.06 s
  // of 79 launches in the recorded A100 trace), the rest microseconds.
  if (!launch_ns.empty()) b.host_s_per_launch = median(launch_ns) * 1e-9;
  // What the host was doing while the device had nothing to run: .item(),
  // pageable copies, a criterion on the CPU.
  b.host_ops_while_idle_s = c.per_step(static_cast<double>(length(intersect(c.top_ops, idle))));
  ByName exposed;
  for (const auto& o : c.op_times)
    if (o.top_level)
      if (const auto n = length(intersect({o.span}, idle)); n > 0)
        exposed.try_emplace(o.e->name, 0, Category::other).first->second.first += n;
  b.host_ops_while_idle_top = ranked(exposed, window_ns - busy_ns, c.steps, 3);
  for (auto& t : *b.host_ops_while_idle_top) t.category.reset();
}

// A CPU timeline: busy is under a top-level operator (or compiled code), the rest idle.
void add_host_shares(BreakdownFigures& b, const Collected& c) {
  const double window_ns = c.window_ns;
  const double busy_ns = static_cast<double>(length(c.top_ops));
  const double host_copy_ns = c.cat_ns[static_cast<std::size_t>(Category::memcpy_host)];
  b.busy_s = c.per_step(busy_ns);
  b.idle_s = c.per_step(window_ns - busy_ns);
  b.shares = {window_ns > 0 ? (busy_ns - host_copy_ns) / window_ns : 0.0,
              window_ns > 0 ? host_copy_ns / window_ns : 0.0, window_ns > 0 ? (window_ns - busy_ns) / window_ns : 0.0};
}

// Each step's host time in the window, in order (on CUDA the device may finish it later).
std::optional<std::vector<double>> step_seconds(std::vector<std::pair<std::uint64_t, double>> step_times) {
  if (step_times.empty()) return std::nullopt;
  std::sort(step_times.begin(), step_times.end());
  std::vector<double> step_s;
  for (const auto& [start, sec] : step_times) step_s.push_back(sec);
  return step_s;
}

// The names the category table does not know, most time first.
std::vector<std::string> other_names(const ByName& by_name) {
  std::vector<std::pair<std::uint64_t, std::string>> unknown;
  for (const auto& [name, v] : by_name)
    if (v.second == Category::other) unknown.emplace_back(v.first, name);
  std::sort(unknown.rbegin(), unknown.rend());
  std::vector<std::string> others;
  for (std::size_t i = 0; i < unknown.size() && i < 10; ++i) others.push_back(short_name(unknown[i].second));
  return others;
}

}  // namespace

BreakdownFigures breakdown(const std::vector<TraceEvent>& events, const Window& w) {
  Collected c = collect(events, w);
  credit_host(c, w);
  BreakdownFigures b;
  b.device_timeline = w.device_timeline;
  b.steps = w.steps;
  add_window(b, c, w);
  const double cat_total = add_categories(b, c);
  if (w.device_timeline)
    add_device_shares(b, c);
  else
    add_host_shares(b, c);
  b.step_s = step_seconds(c.step_times);
  b.counters = count_mechanisms(events, c.window.first, c.window.second, w.steps,
                                w.device_timeline ? b.launches_per_step : std::nullopt);
  b.top = ranked(c.by_name, cat_total, c.steps, 5);
  b.other_names = other_names(c.by_name);
  return b;
}

}  // namespace optbench::profiling
