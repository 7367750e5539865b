# Shared by scripts/run and scripts/test: find or install what the build needs,
# pick the LibTorch (CUDA from pip torch when present, else Debian's CPU one),
# configure and build. Sourced, not executed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PY=/usr/bin/python3   # Debian's matplotlib/jsonschema live here, not in a pyenv python
log() { printf 'optbench: %s\n' "$*" >&2; }
die() { printf 'optbench: error: %s\n' "$*" >&2; exit 2; }

# The pip torch wheel's CMake prefix when it has CUDA, else empty. Any python3
# may hold it (the GPU machines' system python does).
cuda_torch_prefix() {
  local py
  for py in python3 /usr/bin/python3; do
    command -v "$py" >/dev/null 2>&1 || continue
    "$py" - <<'PY' 2>/dev/null && return 0
import torch, sys
if torch.version.cuda is None:
    sys.exit(1)
print(torch.utils.cmake_prefix_path)
PY
  done
  return 1
}

# Each requirement: a check command and the Debian package that satisfies it.
missing_packages() {
  local want_cpu_torch=$1 pkgs=()
  command -v cmake >/dev/null || pkgs+=(cmake)
  command -v ninja >/dev/null || pkgs+=(ninja-build)
  command -v g++ >/dev/null || pkgs+=(g++)
  command -v git >/dev/null || pkgs+=(git)
  [ -f /usr/include/nlohmann/json.hpp ] || pkgs+=(nlohmann-json3-dev)
  [ -f /usr/include/CLI/CLI.hpp ] || pkgs+=(libcli11-dev)
  [ -f /usr/include/gtest/gtest.h ] || pkgs+=(libgtest-dev)
  [ -f /usr/include/benchmark/benchmark.h ] || pkgs+=(libbenchmark-dev)
  if [ "$want_cpu_torch" = 1 ] && [ ! -f /usr/lib/x86_64-linux-gnu/cmake/Torch/TorchConfig.cmake ]; then
    pkgs+=(libtorch-dev)
  fi
  # Gloo headers for the CPU process group (DDP across processes on the CPU).
  if [ "$want_cpu_torch" = 1 ]; then
    [ -f /usr/include/gloo/config.h ] || pkgs+=(libgloo-dev)
  fi
  [ -x "$PY" ] || pkgs+=(python3)
  if [ -x "$PY" ]; then
    "$PY" -c 'import matplotlib' 2>/dev/null || pkgs+=(python3-matplotlib)
    "$PY" -c 'import numpy' 2>/dev/null || pkgs+=(python3-numpy)
    "$PY" -c 'import scipy.stats' 2>/dev/null || pkgs+=(python3-scipy)
    "$PY" -c 'import jsonschema' 2>/dev/null || pkgs+=(python3-jsonschema)
    "$PY" -c 'import pytest' 2>/dev/null || pkgs+=(python3-pytest)
  fi
  command -v ccache >/dev/null || pkgs+=(ccache)
  echo "${pkgs[@]:-}"
}

install_missing() {
  local pkgs
  pkgs=$(missing_packages "$1")
  [ -z "$pkgs" ] && return 0
  log "installing: $pkgs"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo=$(command -v sudo || true)
  if command -v apt-get >/dev/null && { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; }; then
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    $sudo apt-get install -y --no-install-recommends $pkgs >/dev/null 2>&1 ||
      { $sudo apt-get update >/dev/null 2>&1 && $sudo apt-get install -y --no-install-recommends $pkgs >/dev/null 2>&1; } ||
      true
  fi
  # ccache and pytest are optional (the build and C++ tests run without them).
  pkgs=$(missing_packages "$1" | tr ' ' '\n' | grep -vxE 'ccache|python3-pytest|python3-jsonschema' | tr '\n' ' ' || true)
  [ -z "${pkgs// /}" ] || die "missing and could not be installed: $pkgs (install these Debian/Ubuntu packages, or the equivalents, and rerun)"
}

# Sets PRESET and configures build/$PRESET.
configure() {
  local prefix
  if prefix=$(cuda_torch_prefix); then
    PRESET=cuda
    export TORCH_CMAKE_PREFIX=$prefix
    install_missing 0
    log "LibTorch with CUDA from pip torch ($prefix)"
  else
    PRESET=cpu
    install_missing 1
    log "LibTorch CPU from Debian's libtorch-dev"
  fi
  cmake --preset "$PRESET" -S "$ROOT" >/dev/null || die "CMake configure failed (see the messages above)"
}

build() {
  local jobs
  jobs=$(nproc)
  # torch.h translation units need ~1.1 GB each; keep parallelism within memory.
  local mem_jobs=$(( $(awk '/MemAvailable/ {print int($2/1500000)}' /proc/meminfo) ))
  [ "$mem_jobs" -ge 1 ] && [ "$mem_jobs" -lt "$jobs" ] && jobs=$mem_jobs
  cmake --build "$ROOT/build/$PRESET" -j "$jobs" || die "build failed"
}
