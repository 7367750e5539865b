#!/usr/bin/env bash
# The Python of report/, scripts/ and workloads/python/ passes ruff's check with
# ruff.toml's rules (pycodestyle, pyflakes, bugbear). The ruff is $OPTBENCH_RUFF
# (scripts/test installs the one requirements-lint.txt pins), else one on PATH.
#   python_lint.sh SRC
set -u
SRC=$1
RUFF=${OPTBENCH_RUFF:-$(command -v ruff || true)}
[ -n "$RUFF" ] && [ -x "$RUFF" ] ||
  { echo "FAIL: no ruff (scripts/test installs the one requirements-lint.txt pins; or set OPTBENCH_RUFF)"; exit 1; }
cd "$SRC" || exit 1
want=$(sed -n 's/^ruff==//p' requirements-lint.txt)
have=$("$RUFF" --version | awk '{print $2}')
[ "$have" = "$want" ] || echo "note: ruff $have, requirements-lint.txt pins $want"
# --no-cache: nothing written into the source tree.
"$RUFF" check --no-cache --output-format concise . || { echo "FAIL: ruff check (ruff.toml's rules)"; exit 1; }
echo "python_lint: ok"
