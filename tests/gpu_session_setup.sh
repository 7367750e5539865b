#!/usr/bin/env bash
# scripts/gpu-session on a machine laid out like the GPU machines: the python3 on
# PATH is a virtual environment with CUDA torch and matplotlib, /usr/bin/python3
# has neither, and there is no network. The set-up must find that python3,
# install nothing and configure the build; with no usable python3 it must stop
# in one line naming the interpreter. The venv made from requirements.txt (the
# one CMake was configured with, pip's CUDA torch) stands in for the GPU
# machine's; only the set-up runs (OPTBENCH_SESSION_SETUP_ONLY=1).
#   gpu_session_setup.sh SRC
set -u
PY=${OPTBENCH_PYTHON:?the configured Python}
SRC=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/log" 2>/dev/null; exit 1; }
mkdir -p "$tmp/venv/bin" "$tmp/sys/bin"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$PY" >"$tmp/venv/bin/python3"
chmod +x "$tmp/venv/bin/python3"
session() {  # PATH_PREFIX
  env -u OPTBENCH_PYTHON -u TORCH_CMAKE_PREFIX -u OPTBENCH_PRESET PATH="$1:$PATH" OPTBENCH_SESSION_SETUP_ONLY=1 \
    OPTBENCH_BUILD_DIR="$tmp/build" OPTBENCH_VENV="$tmp/no-venv" "$SRC/scripts/gpu-session" "$tmp/out" >"$tmp/log" 2>&1
}

session "$tmp/venv/bin"; rc=$?
[ $rc -eq 0 ] || fail "set-up exited $rc"
grep -q "set-up done: $tmp/venv/bin/python3, preset cuda" "$tmp/log" || fail "did not use the python3 on PATH"
grep -q 'installing:' "$tmp/log" && fail "tried to install"
[ -e "$tmp/no-venv" ] && fail "made a virtual environment"
[ -f "$tmp/build/CMakeCache.txt" ] || fail "not configured"
grep -qE "^OPTBENCH_PYTHON:[A-Z]+=$tmp/venv/bin/python3$" "$tmp/build/CMakeCache.txt" || fail "build not configured with that python3"

# A python3 without torch (as /usr/bin/python3 there), nothing else: one line naming it.
base=/usr/bin/python3
[ -x "$base" ] && ! "$base" -c 'import torch' 2>/dev/null || { echo "ok (no torch-less python3 for the second check)"; exit 0; }
ln -s "$base" "$tmp/sys/bin/python3"
session "$tmp/sys/bin"; rc=$?
[ $rc -eq 2 ] || fail "no usable python: exit $rc, expected 2"
[ "$(grep -c 'optbench: error:' "$tmp/log")" -eq 1 ] || fail "expected one error line"
grep -q "optbench: error: .*$tmp/sys/bin/python3" "$tmp/log" || fail "the error does not name the interpreter"
echo "gpu_session_setup: ok"
