#pragma once
// Mechanism counters of a profiled window: what an optimization changes in the
// work a step does, counted rather than timed, so they hold however much the
// profiler slows the window. Per step of the window (events that start in it):
//   op_calls_per_step           operator calls ("aten::mm", any "ns::op" record
//                               but autograd's and this suite's), nested or not
//   top_level_ops_per_step      operator calls inside no other operator call
//   autograd_nodes_per_step     autograd nodes recorded: distinct sequence
//                               numbers of operators run with grad mode on
//   backward_nodes_per_step     autograd nodes run by backward (the engine's
//                               "autograd::engine::evaluate_function: ..." records)
//   fills_per_step              fill operations (aten::zero_, fill_, zeros,
//                               zeros_like, new_zeros; one inside another counts
//                               once; the trace does not hold the value filled)
//   host_reads_per_step         a tensor's value read on the host (aten::item,
//                               _local_scalar_dense): a synchronisation on a GPU
//   optimizer_steps_per_step    optimizer steps (kOptimizerStepScope scopes)
//   optimizer_ops_per_step      operator calls inside an optimizer step
//   kernel_launches_per_step    CUDA: kernel and graph launches (breakdown.h's
//                               launches_per_step); null on a CPU
// Experiments name the counter that carries their claim
// (ExperimentInfo::mechanism_counters); the report leads its why with it. The
// keys, in this order, are counter_keys() (breakdown_figures.h, beside the
// figures' serializer).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/profiling/breakdown_figures.h"
#include "harness/profiling/trace_event.h"

namespace optbench::profiling {

// Whether a CPU record is an operator call: "namespace::name" with a lower-case
// namespace other than autograd's, torch's and this suite's (scopes.h).
bool is_operator(const std::string& name);

MechanismCounts count_mechanisms(const std::vector<TraceEvent>& events, std::uint64_t start_ns, std::uint64_t end_ns,
                                 int steps, std::optional<double> kernel_launches_per_step);

}  // namespace optbench::profiling
