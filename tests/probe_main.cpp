// optbench with only the test probes registered: the worker binary of the
// process-isolation tests, and the suite of the crash-isolation test.
#include "harness/cli.h"
#include "harness/registry.h"
#include "tests/crash_probe.h"
#include "tests/isolation_probe.h"

int main(int argc, char** argv) {
  optbench::Registry::instance().add(optbench::testing::make_isolation_probe());
  optbench::Registry::instance().add(optbench::testing::make_crash_probe());
  return optbench::cli_main(argc, argv);
}
