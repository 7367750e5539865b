#pragma once
// Names of the RecordFunction user scopes that the harness and the workloads
// agree on, so a profiled window tells them from operators: the window and
// each of its steps (kineto_window.cpp); every optimizer step (its operators
// are counted: counters.h; workloads/training/optimizer_scope.h); and compiled
// code that no operator record covers (AOTInductor's run, a TorchScript
// graph's call), whose uncovered time goes to the "compiled" category, or to
// the category named after a '/' where the code is known to be of one kind
// ("optbench::compiled/conv": a frozen graph's oneDNN convolutions).
namespace optbench::profiling {

inline constexpr const char* kWindowScope = "optbench::window";
inline constexpr const char* kStepScope = "optbench::step";
inline constexpr const char* kOptimizerStepScope = "optbench::optimizer_step";
inline constexpr const char* kCompiledScope = "optbench::compiled";

}  // namespace optbench::profiling
