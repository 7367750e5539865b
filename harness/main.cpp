#include "harness/cli.h"

int main(int argc, char** argv) { return optbench::cli_main(argc, argv); }
