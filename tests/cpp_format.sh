#!/usr/bin/env bash
# The C++ and CUDA are as clang-format writes them under .clang-format. The
# clang-format is $OPTBENCH_LINT_BIN/clang-format (scripts/test installs the one
# requirements-lint.txt pins), else one on PATH.
#   cpp_format.sh SRC
set -u
SRC=$1
source "$(dirname "$0")/lint_tool.sh"
FORMAT=$(lint_tool clang-format) || exit 1
cd "$SRC" || exit 1
git rev-parse --git-dir >/dev/null 2>&1 || { echo "FAIL: $SRC is not a git checkout"; exit 1; }
list() { git ls-files -z --cached --others --exclude-standard -- '*.cpp' '*.h' '*.cu' '*.cuh'; }
if ! list | xargs -0 -r "$FORMAT" --dry-run --Werror; then
  echo "FAIL: not as clang-format writes it under .clang-format (run: $FORMAT -i FILE...)"
  exit 1
fi
echo "cpp_format: $(list | tr -cd '\0' | wc -c) files ok"
