// optbench with only the isolation probe registered: the worker binary of the
// process-isolation tests.
#include "harness/cli.h"
#include "harness/registry.h"
#include "tests/isolation_probe.h"

int main(int argc, char** argv) {
  optbench::Registry::instance().add(optbench::testing::make_isolation_probe());
  return optbench::cli_main(argc, argv);
}
