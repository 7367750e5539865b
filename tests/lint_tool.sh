# lint_tool NAME: prints the path of the style tool NAME (ruff, clang-format):
# $OPTBENCH_LINT_BIN/NAME (scripts/test installs the versions requirements-lint.txt
# pins), else one on PATH, with a note where its version is not the pinned one;
# fails with a FAIL line saying how to get it.
lint_tool() {
  local name=$1 tool want have
  tool=${OPTBENCH_LINT_BIN:+$OPTBENCH_LINT_BIN/$name}
  [ -n "$tool" ] && [ -x "$tool" ] || tool=$(command -v "$name" || true)
  if [ -z "$tool" ] || [ ! -x "$tool" ]; then
    echo "FAIL: no $name (scripts/test installs the one requirements-lint.txt pins; or set OPTBENCH_LINT_BIN)"
    return 1
  fi
  want=$(sed -n "s/^$name==//p" "$(dirname "${BASH_SOURCE[0]}")/../requirements-lint.txt")
  have=$("$tool" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1)
  [ "$have" = "$want" ] || echo "note: $name $have, requirements-lint.txt pins $want" >&2
  echo "$tool"
}
