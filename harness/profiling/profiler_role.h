#pragma once
// Which processes may start the profiler. A process whose times are published
// (an experiment's timing processes, their isolated variants' workers, an
// --in-process run, a launcher's rank) never does: CUPTI stays attached after a
// Kineto window and slows every later step of its process (pytorch#144455). The
// profiled windows run in the experiment's profiling process instead
// (ExperimentChildSettings::profiling). The mark crosses exec through the
// environment, so a timing process's workers carry it too.
namespace optbench::profiling {

// Marks this process, and every process it starts from now on, as timed.
void mark_timed_process();
// Whether this process is marked (by itself or by the process that started it).
bool in_timed_process();

}  // namespace optbench::profiling
