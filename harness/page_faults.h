#pragma once
// Minor page faults of this process so far (getrusage; every thread). A step
// whose temporaries the allocator serves by fresh mmap faults each page in
// every time (glibc above its mmap threshold), and that cost lands in the
// step's time: recorded per sample so an allocator regime shows in the results
// instead of passing for a property of the optimization.
#include <cstdint>

namespace optbench {

std::int64_t minor_page_faults();

}  // namespace optbench
