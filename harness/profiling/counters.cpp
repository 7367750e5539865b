#include "harness/profiling/counters.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "harness/profiling/scopes.h"

namespace optbench::profiling {
namespace {

constexpr std::string_view kBackwardNode = "autograd::engine::evaluate_function:";

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool is_fill(const std::string& n) {
  static const std::set<std::string> fills = {"aten::zero_", "aten::fill_", "aten::zeros", "aten::zeros_like",
                                              "aten::new_zeros"};
  return fills.count(n) > 0;
}

bool is_host_read(const std::string& n) { return n == "aten::item" || n == "aten::_local_scalar_dense"; }

// What is open around an event on its thread.
struct Open {
  std::uint64_t end;
  bool op, fill, read, optimizer, backward;
};

}  // namespace

bool is_operator(const std::string& name) {
  const auto sep = name.find("::");
  if (sep == std::string::npos || sep == 0 || name.find("::", sep + 2) != std::string::npos || sep + 2 == name.size())
    return false;
  const std::string_view ns(name.data(), sep);
  if (ns == "autograd" || ns == "torch" || ns == "optbench") return false;
  return std::all_of(ns.begin(), ns.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

MechanismCounts count_mechanisms(const std::vector<TraceEvent>& events, std::uint64_t start_ns, std::uint64_t end_ns,
                                 int steps, std::optional<double> kernel_launches_per_step) {
  std::map<std::uint64_t, std::vector<const TraceEvent*>> by_thread;
  for (const auto& e : events)
    if ((e.kind == EventKind::cpu_op || e.kind == EventKind::annotation) && e.start_ns >= start_ns &&
        e.start_ns < end_ns)
      by_thread[e.thread].push_back(&e);

  std::uint64_t ops = 0, top = 0, backward = 0, fills = 0, reads = 0, opt_steps = 0, opt_ops = 0;
  std::set<std::pair<std::uint64_t, std::int64_t>> nodes;
  for (auto& [thread, evs] : by_thread) {
    // Outer before inner: by start, the longer first.
    std::sort(evs.begin(), evs.end(), [](const TraceEvent* a, const TraceEvent* b) {
      return a->start_ns != b->start_ns ? a->start_ns < b->start_ns : a->end_ns > b->end_ns;
    });
    std::vector<Open> stack;
    auto inside = [&](bool Open::* flag) {
      return std::any_of(stack.begin(), stack.end(), [&](const Open& o) { return o.*flag; });
    };
    for (const TraceEvent* e : evs) {
      while (!stack.empty() && stack.back().end <= e->start_ns) stack.pop_back();
      Open o{e->end_ns, false, false, false, false, false};
      if (e->kind == EventKind::annotation) {
        if (e->name == kOptimizerStepScope) {
          if (!inside(&Open::optimizer)) ++opt_steps;
          o.optimizer = true;
        }
      } else if (starts_with(e->name, kBackwardNode)) {
        ++backward;
        o.backward = true;
      } else if (is_operator(e->name)) {
        ++ops;
        if (!inside(&Open::op)) ++top;
        if (inside(&Open::optimizer)) ++opt_ops;
        if (e->sequence >= 0 && !inside(&Open::backward)) nodes.emplace(thread, e->sequence);
        o.op = true;
        if (is_fill(e->name)) {
          if (!inside(&Open::fill)) ++fills;
          o.fill = true;
        }
        if (is_host_read(e->name)) {
          if (!inside(&Open::read)) ++reads;
          o.read = true;
        }
      }
      stack.push_back(o);
    }
  }
  const double n = std::max(1, steps);
  auto per_step = [&](std::uint64_t x) { return static_cast<double>(x) / n; };
  return {per_step(ops),   per_step(top),       per_step(nodes.size()), per_step(backward),      per_step(fills),
          per_step(reads), per_step(opt_steps), per_step(opt_ops),      kernel_launches_per_step};
}

}  // namespace optbench::profiling
