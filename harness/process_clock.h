#pragma once
// When this process started, on the steady clock (DeviceBackend::now()'s), so a
// --time-budget covers everything the run does: loading LibTorch, enumerating
// cases, capturing the environment, not only sampling.
namespace optbench {

double process_start_s();

}  // namespace optbench
