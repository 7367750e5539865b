#!/usr/bin/env bash
# The Python of report/, scripts/ and workloads/python/ is as `ruff format` writes
# it and passes ruff's check with ruff.toml's rules (pycodestyle, pyflakes,
# bugbear). The ruff is $OPTBENCH_LINT_BIN/ruff (scripts/test installs the one
# requirements-lint.txt pins), else one on PATH.
#   python_lint.sh SRC
set -u
SRC=$1
source "$(dirname "$0")/lint_tool.sh"
RUFF=$(lint_tool ruff) || exit 1
cd "$SRC" || exit 1
# --no-cache: nothing written into the source tree.
"$RUFF" format --check --no-cache . ||
  { echo "FAIL: not as ruff format writes it (run: $RUFF format .)"; exit 1; }
"$RUFF" check --no-cache --output-format concise . || { echo "FAIL: ruff check (ruff.toml's rules)"; exit 1; }
echo "python_lint: ok"
