#pragma once
// `optbench list | run | env | report`, with CLI11.
namespace optbench {
int cli_main(int argc, char** argv);
}
