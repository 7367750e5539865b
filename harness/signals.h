#pragma once
// Ctrl-C / SIGTERM: the first asks the run to stop after the current sample (the
// case is recorded as interrupted and the file closed properly); a second one
// ends the process at once (finished results are already on disk).
#include <atomic>

namespace optbench {

void install_stop_handlers();
const std::atomic<bool>& stop_requested();
int stop_signal();  // the signal that asked to stop, 0 if none

}  // namespace optbench
