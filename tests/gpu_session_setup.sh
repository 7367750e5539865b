#!/usr/bin/env bash
# scripts/gpu-session's set-up on a machine laid out like the GPU machines: the
# python3 on PATH is a virtual environment with CUDA torch, /usr/bin/python3 has
# none, there is no network and no C++ dev package. The venv CMake was
# configured with (pip's CUDA torch) stands in for the GPU machine's; only the
# set-up runs (OPTBENCH_SESSION_SETUP_ONLY=1).
#  1. python3 on PATH: found, nothing installed, the build configured with it.
#  2. The system's copies of the C++ libraries hidden (a private mount namespace
#     puts empty folders over them) and no network (a network namespace): with
#     the bundle scripts/deps-bundle makes, the set-up configures; the bundle's
#     libraries are the ones CMake found, and a program using each of them builds
#     and runs against the unpacked bundle (tests/deps_probe).
#  3. The same without the bundle: exit 2, one line naming the missing packages
#     and the bundle command.
#  4. A python3 without torch, nothing else: one line naming the interpreter.
# Needs root for the namespaces (CI and the GPU machines run as root); where
# unshare is refused, 2 and 3 are skipped (exit 77) after 1 and 4 ran.
#   gpu_session_setup.sh SRC
set -u
PY=${OPTBENCH_PYTHON:?the configured Python}
SRC=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/log" 2>/dev/null; exit 1; }
mkdir -p "$tmp/venv/bin" "$tmp/sys/bin" "$tmp/empty"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$PY" >"$tmp/venv/bin/python3"
chmod +x "$tmp/venv/bin/python3"
session() {  # BUILD_DIR PATH_PREFIX [VAR=VALUE...]: the set-up, as the GPU machine would run it
  local build=$1 prefix=$2; shift 2
  env -u OPTBENCH_PYTHON -u TORCH_CMAKE_PREFIX -u OPTBENCH_PRESET -u OPTBENCH_DEPS -u CMAKE_PREFIX_PATH \
    PATH="$prefix:$PATH" OPTBENCH_SESSION_SETUP_ONLY=1 OPTBENCH_BUILD_DIR="$build" OPTBENCH_VENV="$tmp/no-venv" "$@" \
    "$SRC/scripts/gpu-session" "$tmp/out" >"$tmp/log" 2>&1
}
# offline CMD...: CMD with no network and the system's nlohmann-json, CLI11,
# GoogleTest, Google Benchmark and Gloo (headers and CMake files) hidden, and the
# clone's own deps/ folder too (a bundle made there must not count).
offline() {
  unshare --mount --net --propagation private bash -c '
    arch=$(g++ -print-multiarch)
    for d in /usr/include/{nlohmann,CLI,gtest,gmock,benchmark,gloo} /usr/local/include/{nlohmann,CLI,gtest,gmock,benchmark,gloo} \
             /usr/share/cmake/{nlohmann_json,CLI11} /usr/lib/cmake/{nlohmann_json,CLI11,GTest,benchmark} \
             /usr/lib/$arch/cmake/{nlohmann_json,CLI11,GTest,benchmark} "$0/deps"; do
      [ -d "$d" ] && { mount -t tmpfs -o ro none "$d" || exit 97; }
    done
    exec "$@"' "$SRC" "$@"
}

# 1. The python3 on PATH.
session "$tmp/build" "$tmp/venv/bin"; rc=$?
[ $rc -eq 0 ] || fail "set-up exited $rc"
grep -q "set-up done: $tmp/venv/bin/python3, preset cuda" "$tmp/log" || fail "did not use the python3 on PATH"
grep -q 'installing:' "$tmp/log" && fail "tried to install"
[ -e "$tmp/no-venv" ] && fail "made a virtual environment"
[ -f "$tmp/build/CMakeCache.txt" ] || fail "not configured"
grep -qE "^OPTBENCH_PYTHON:[A-Z]+=$tmp/venv/bin/python3$" "$tmp/build/CMakeCache.txt" || fail "build not configured with that python3"
echo "ok: the python3 on PATH"

# 4. A python3 without torch (as /usr/bin/python3 there), nothing else: one line naming it.
base=/usr/bin/python3
if [ -x "$base" ] && ! "$base" -c 'import torch' 2>/dev/null; then
  ln -s "$base" "$tmp/sys/bin/python3"
  session "$tmp/build-nopy" "$tmp/sys/bin"; rc=$?
  [ $rc -eq 2 ] || fail "no usable python: exit $rc, expected 2"
  [ "$(grep -c 'optbench: error:' "$tmp/log")" -eq 1 ] || fail "expected one error line"
  grep -q "optbench: error: .*$tmp/sys/bin/python3" "$tmp/log" || fail "the error does not name the interpreter"
  echo "ok: a python3 without torch is named"
else
  echo "note: no torch-less /usr/bin/python3 here, its check not run"
fi

if ! unshare --mount --net --propagation private true 2>/dev/null; then
  echo "SKIP: unshare --mount --net is refused here (needs root): the offline checks did not run"
  exit 77
fi

# 2. Offline, from the bundle.
"$SRC/scripts/deps-bundle" "$tmp/bundle.tar.gz" >"$tmp/log" 2>&1 || fail "scripts/deps-bundle failed"
kb=$(du -k "$tmp/bundle.tar.gz" | cut -f1)
[ "$kb" -le 4096 ] || fail "the bundle is $kb kB: it must travel with the working tree (a few MB at most)"
offline bash -c '! getent hosts deb.debian.org >/dev/null && [ ! -e /usr/include/nlohmann/json.hpp ]' ||
  fail "the offline namespace still has network or the system's headers"
offline bash -c "$(declare -f session); tmp='$tmp' SRC='$SRC' PATH='$PATH' session '$tmp/build-offline' '$tmp/venv/bin' OPTBENCH_DEPS='$tmp/bundle.tar.gz'"
rc=$?
[ $rc -eq 0 ] || fail "offline set-up from the bundle exited $rc"
grep -q "C++ libraries from $tmp/build-offline/deps/usr" "$tmp/log" || fail "the bundle was not used"
for p in nlohmann_json CLI11 GTest benchmark; do
  grep -qE "^${p}_DIR:PATH=$tmp/build-offline/deps/usr/" "$tmp/build-offline/CMakeCache.txt" ||
    fail "CMake found $p elsewhere than the bundle: $(grep "^${p}_DIR" "$tmp/build-offline/CMakeCache.txt")"
done
offline bash -c "cmake -S '$SRC/tests/deps_probe' -B '$tmp/probe' -G Ninja -DCMAKE_PREFIX_PATH='$tmp/build-offline/deps/usr' &&
  cmake --build '$tmp/probe' && '$tmp/probe/deps_probe'" >"$tmp/log" 2>&1 || fail "a program using the bundle's libraries did not build or run"
grep -q 'deps ok' "$tmp/log" || fail "deps_probe did not finish"
echo "ok: offline, the bundle ($kb kB) configures the build and its libraries link and run"

# 3. Offline, no bundle: one line naming what is missing and the bundle command.
offline bash -c "$(declare -f session); tmp='$tmp' SRC='$SRC' PATH='$PATH' session '$tmp/build-none' '$tmp/venv/bin'"
rc=$?
[ $rc -eq 2 ] || fail "offline without the bundle: exit $rc, expected 2"
[ "$(grep -c 'optbench: error:' "$tmp/log")" -eq 1 ] || fail "expected one error line"
for p in nlohmann-json3-dev libcli11-dev libgtest-dev libbenchmark-dev scripts/deps-bundle; do
  grep 'optbench: error:' "$tmp/log" | grep -q -- "$p" || fail "the error does not name $p"
done
echo "ok: offline without the bundle, one line: $(grep "optbench: error:" "$tmp/log")"
echo "gpu_session_setup: ok"
