#!/usr/bin/env bash
# The code's one enforced style rule: no line of C++, CUDA or Python longer than
# 120 columns (.clang-format's ColumnLimit; ruff.toml's line-length). Shell
# scripts and data (the plan's TSV lines, exact command texts, JSON) are exempt.
#   line_length.sh SRC
set -u
SRC=$1
cd "$SRC" || exit 1
git rev-parse --git-dir >/dev/null 2>&1 || { echo "FAIL: $SRC is not a git checkout"; exit 1; }
long=$(git ls-files -z --cached --others --exclude-standard -- '*.cpp' '*.h' '*.cu' '*.py' |
  xargs -0 -r awk 'length > 120 {printf "%s:%d: %d columns\n", FILENAME, FNR, length}')
if [ -n "$long" ]; then
  echo "FAIL: lines longer than 120 columns:"
  echo "$long"
  exit 1
fi
echo "line_length: ok"
