#pragma once
// Ctrl-C / SIGTERM: the first asks the run to stop after the current sample (the
// case is recorded as interrupted and the file closed properly); a second one
// ends the process at once (finished results are already on disk), removing
// first what this process was writing (see set_abrupt_cleanup). A second signal
// within 200 ms of the first is the same request delivered twice (timeout(1)
// signals the child and then its process group) and changes nothing.
#include <sys/types.h>

#include <atomic>
#include <string>

namespace optbench {

void install_stop_handlers();
const std::atomic<bool>& stop_requested();
int stop_signal();  // the signal that asked to stop, 0 if none

// What a second signal removes before the process dies, so that no temporary
// or part file outlives it: the handler can only make async-signal-safe calls,
// so the paths are copied into fixed slots beforehand ("" empties a slot).
enum class AbruptSlot { own_temp, child_part, child_temp, count };
void set_abrupt_cleanup(AbruptSlot slot, const std::string& path);
// A child writing the files in the child slots: killed (and reaped) before they
// are removed, so it cannot write them again. 0: none.
void set_abrupt_kill(pid_t child);

}  // namespace optbench
