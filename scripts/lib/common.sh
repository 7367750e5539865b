# Shared by scripts/run, scripts/test and scripts/gpu-session: find the Python
# whose torch provides the LibTorch (or make it), find or install the C++ tools
# and libraries, configure and build. Sourced, not executed.
#
# Python, in this order (the first that applies is used, never a fixed path):
#   1. $OPTBENCH_PYTHON, as given;
#   2. the python3 on PATH when its torch has CUDA compiled in (the GPU machines:
#      no network, everything already there, nothing is installed);
#   3. a virtual environment made from requirements.txt, kept outside the clone in
#      $OPTBENCH_VENV, default ${XDG_CACHE_HOME:-~/.cache}/optbench/venv-<hash of
#      requirements.txt>: made once per machine, reused by every clone.
# The LibTorch is that Python's torch (torch.utils.cmake_prefix_path) unless
# TORCH_CMAKE_PREFIX names another (e.g. an unpacked LibTorch zip).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
log() { printf 'optbench: %s\n' "$*" >&2; }
die() { printf 'optbench: error: %s\n' "$*" >&2; exit 2; }

venv_dir() {
  local hash
  hash=$(sha256sum "$ROOT/requirements.txt" | cut -c1-12)
  echo "${OPTBENCH_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/optbench/venv-$hash}"
}

python_has_cuda_torch() {
  "$1" -c 'import sys, torch; sys.exit(torch.version.cuda is None)' >/dev/null 2>&1
}

# Prints the venv's python, making the venv first if it is missing or was left
# half-made (the marker is written last). A lock keeps two clones from making it
# at once.
# pip_env DIR REQUIREMENTS WHAT [NOTE]: the virtual environment DIR made from the
# REQUIREMENTS file once per machine (a lock for callers running together, a
# marker once it is whole). Returns 0 when it is there, else why not: 3
# installing is off (OPTBENCH_NO_INSTALL=1), 4 no python3, 5 no venv, 6 pip failed.
pip_env() {
  local dir=$1 req=$2 what=$3 note=${4:-} base lock rc=0
  mkdir -p "$(dirname "$dir")"
  exec {lock}>"$dir.lock"
  flock "$lock"
  if [ ! -f "$dir/.optbench-complete" ]; then
    if [ "${OPTBENCH_NO_INSTALL:-0}" = 1 ]; then
      rc=3
    elif ! base=$(command -v python3); then
      rc=4
    else
      log "making $what $dir from $(basename "$req") (once per machine${note:+; $note})"
      rm -rf "$dir"
      if ! "$base" -m venv "$dir" >&2; then
        rc=5
      elif ! "$dir/bin/python" -m pip install --disable-pip-version-check -q -r "$req" >&2; then
        rc=6
      else
        touch "$dir/.optbench-complete"
      fi
    fi
  fi
  flock -u "$lock"
  exec {lock}>&-
  return $rc
}

# Prints the python of the environment requirements.txt pins (torch with its
# CUDA libraries, ~4.6 GB), made once per machine; dies where it cannot be.
ensure_venv() {
  local dir rc=0
  dir=$(venv_dir)
  pip_env "$dir" "$ROOT/requirements.txt" "the Python environment" "torch with its CUDA libraries is ~4.6 GB" || rc=$?
  case $rc in
    0) echo "$dir/bin/python" ;;
    3) die "no Python with CUDA torch here: $(command -v python3 || echo python3) has none, and installing is off (set OPTBENCH_PYTHON to one that has torch, numpy, scipy and matplotlib)" ;;
    4) die "no python3 on PATH to make the environment $dir with" ;;
    5) die "python3 -m venv failed (Debian: apt-get install python3-venv)" ;;
    *) die "pip could not install requirements.txt into $dir (is PyPI reachable?)" ;;
  esac
}

# Prints the bin folder of the style tools requirements-lint.txt pins (ruff,
# clang-format), an environment of their own made once per machine beside the
# Python one; fails (printing nothing) where they cannot be installed.
ensure_lint_tools() {
  local dir
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/optbench/lint-$(sha256sum "$ROOT/requirements-lint.txt" | cut -c1-12)"
  pip_env "$dir" "$ROOT/requirements-lint.txt" "the style tools' environment" && echo "$dir/bin"
}

# Sets and exports OPTBENCH_PYTHON (what the build, the tests, the report and the
# aot_inductor experiment use).
find_python() {
  local py
  if [ -n "${OPTBENCH_PYTHON:-}" ]; then
    py=$OPTBENCH_PYTHON
  elif py=$(command -v python3) && python_has_cuda_torch "$py"; then
    :
  else
    py=$(ensure_venv)
  fi
  OPTBENCH_PYTHON=$py
  export OPTBENCH_PYTHON
}

# require_python MODULE...: one line naming the interpreter and what it lacks.
require_python() {
  local missing
  missing=$("$OPTBENCH_PYTHON" - "$@" <<'PY' 2>/dev/null
import importlib.util, sys
print(" ".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))
PY
) || die "$OPTBENCH_PYTHON does not run"
  [ -z "$missing" ] || die "$OPTBENCH_PYTHON lacks the Python packages: $missing (set OPTBENCH_PYTHON to one that has them, or unset it to use the environment made from requirements.txt)"
}

# The C++ libraries the build finds with find_package, one line each: the
# Debian/Ubuntu package, its CMake package ("-": headers only), a header it
# holds, and a pattern of the runtime package it needs ("-": none). One table for
# the check below, apt-get and the offline bundle (scripts/deps-bundle).
cxx_deps() {
  cat <<'EOF'
nlohmann-json3-dev nlohmann_json nlohmann/json.hpp -
libcli11-dev CLI11 CLI/CLI.hpp -
libgtest-dev GTest gtest/gtest.h -
libbenchmark-dev benchmark benchmark/benchmark.h ^libbenchmark[0-9]
libgloo-dev - gloo/config.h -
EOF
}
# Optional: without Gloo's headers (pip's LibTorch ships none) CPU DDP is
# compiled out and says so; ccache only speeds rebuilds up.
OPTIONAL_PACKAGES='libgloo-dev|ccache'

# The offline bundle: $OPTBENCH_DEPS, else deps/optbench-deps.tar.gz in the clone.
deps_bundle() { echo "${OPTBENCH_DEPS:-$ROOT/deps/optbench-deps.tar.gz}"; }

# Unpacks the bundle, when there is one, into $BUILD_DIR/deps (never into /;
# again only when the bundle changed) and sets DEPS_PREFIX to its usr/.
unpack_deps() {
  local bundle dest sum
  bundle=$(deps_bundle)
  DEPS_PREFIX=
  if [ ! -f "$bundle" ]; then
    [ -z "${OPTBENCH_DEPS:-}" ] || die "OPTBENCH_DEPS=$OPTBENCH_DEPS: no such file (make it with scripts/deps-bundle)"
    return 0
  fi
  dest=$BUILD_DIR/deps
  sum=$(sha256sum "$bundle" | cut -c1-64)
  if [ "$(cat "$dest/.bundle-sha256" 2>/dev/null)" != "$sum" ]; then
    rm -rf "$dest" && mkdir -p "$dest" || die "cannot make $dest"
    # GNU tar drops a leading / and refuses members that climb out with ..
    tar -xzf "$bundle" -C "$dest" --no-same-owner --no-same-permissions || die "cannot unpack $bundle"
    echo "$sum" >"$dest/.bundle-sha256"
    log "C++ libraries from $bundle, unpacked into $dest"
  fi
  DEPS_PREFIX=$dest/usr
}

# The prefixes CMake searches for packages: CMAKE_PREFIX_PATH as configure passes
# it (LibTorch, the bundle) and from the environment, then the system's.
cmake_prefixes() {
  local IFS=':'
  # shellcheck disable=SC2086
  printf '%s\n' ${TORCH_CMAKE_PREFIX:-} ${DEPS_PREFIX:-} ${CMAKE_PREFIX_PATH:-} /usr/local /usr
}

# has_cxx_dep CMAKE_PACKAGE HEADER: found where find_package looks (the config
# file under <prefix>/{share,lib,lib64,lib/<arch>}/cmake/), or, for a headers-only
# package ("-"), HEADER under <prefix>/include.
has_cxx_dep() {
  local pkg=$1 header=$2 arch p d lower
  arch=$(g++ -print-multiarch 2>/dev/null || true)
  lower=$(echo "$pkg" | tr '[:upper:]' '[:lower:]')
  while read -r p; do
    [ -n "$p" ] || continue
    if [ "$pkg" = - ]; then
      [ -f "$p/include/$header" ] && return 0
      continue
    fi
    for d in share lib lib64 ${arch:+lib/$arch}; do
      compgen -G "$p/$d/cmake/$pkg*/${pkg}Config.cmake" >/dev/null && return 0
      compgen -G "$p/$d/cmake/$pkg*/$lower-config.cmake" >/dev/null && return 0
    done
  done < <(cmake_prefixes)
  return 1
}

# The Debian packages the build needs and this machine lacks.
missing_packages() {
  local pkgs=() deb pkg header rt
  command -v cmake >/dev/null || pkgs+=(cmake)
  command -v ninja >/dev/null || pkgs+=(ninja-build)
  command -v g++ >/dev/null || pkgs+=(g++)
  command -v git >/dev/null || pkgs+=(git)
  while read -r deb pkg header rt; do
    has_cxx_dep "$pkg" "$header" || pkgs+=("$deb")
  done < <(cxx_deps)
  command -v ccache >/dev/null || pkgs+=(ccache)
  echo "${pkgs[@]:-}"
}

# Unpacks the offline bundle, installs what is still missing where it can (root
# or sudo, apt-get, network), and stops in one line naming what is missing.
install_missing() {
  local pkgs sudo=""
  unpack_deps
  pkgs=$(missing_packages)
  [ -z "${pkgs// /}" ] && return 0
  [ "$(id -u)" = 0 ] || sudo=$(command -v sudo || true)
  # OPTBENCH_NO_INSTALL=1: a machine without network (scripts/gpu-session sets it).
  if [ "${OPTBENCH_NO_INSTALL:-0}" != 1 ] && command -v apt-get >/dev/null && { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; }; then
    log "installing: $pkgs"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    $sudo apt-get install -y --no-install-recommends $pkgs >/dev/null 2>&1 ||
      { $sudo apt-get update >/dev/null 2>&1 && $sudo apt-get install -y --no-install-recommends $pkgs >/dev/null 2>&1; } ||
      true
  fi
  pkgs=$(missing_packages | tr ' ' '\n' | grep -vxE "$OPTIONAL_PACKAGES" | paste -sd' ' || true)
  [ -z "${pkgs// /}" ] ||
    die "missing: $pkgs (looked in $(cmake_prefixes | paste -sd' ')); with network: apt-get install $pkgs, or run scripts/deps-bundle on such a machine and bring its archive here as $(deps_bundle) (or name it in OPTBENCH_DEPS)"
}

# Sets PRESET, BUILD_DIR (build/$PRESET, or $OPTBENCH_BUILD_DIR) and DEPS_PREFIX, and configures
# it against the LibTorch found.
configure() {
  find_python
  if [ -z "${TORCH_CMAKE_PREFIX:-}" ]; then
    TORCH_CMAKE_PREFIX=$("$OPTBENCH_PYTHON" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null) ||
      die "$OPTBENCH_PYTHON cannot import torch (set TORCH_CMAKE_PREFIX to a LibTorch's share/cmake, or OPTBENCH_PYTHON to a python with torch)"
  fi
  export TORCH_CMAKE_PREFIX
  if [ -z "${OPTBENCH_PRESET:-}" ]; then
    if [ -d "$TORCH_CMAKE_PREFIX/../../lib" ] && ls "$TORCH_CMAKE_PREFIX"/../../lib/libtorch_cuda.so >/dev/null 2>&1; then
      OPTBENCH_PRESET=cuda
    else
      OPTBENCH_PRESET=cpu
    fi
  fi
  PRESET=$OPTBENCH_PRESET
  BUILD_DIR=${OPTBENCH_BUILD_DIR:-$ROOT/build/$PRESET}
  install_missing
  log "LibTorch from $TORCH_CMAKE_PREFIX (preset $PRESET), Python $OPTBENCH_PYTHON${DEPS_PREFIX:+, C++ libraries from $DEPS_PREFIX}"
  # ccache: the precompiled torch.h header is only reused with this sloppiness.
  # CCACHE_BASEDIR: paths inside the clone hashed relative, so another clone (CI's
  # fresh one) reuses the objects.
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}
  # -Werror only where OPTBENCH_WERROR says so (scripts/test); else the folder keeps
  # the value it was configured with (OFF in a new one), so that scripts/run after
  # scripts/test does not recompile every object for a flag that changes none.
  cmake --preset "$PRESET" -S "$ROOT" -B "$BUILD_DIR" -DOPTBENCH_PYTHON="$OPTBENCH_PYTHON" \
    ${OPTBENCH_WERROR:+-DOPTBENCH_WERROR="$OPTBENCH_WERROR"} \
    -DCMAKE_PREFIX_PATH="$TORCH_CMAKE_PREFIX${DEPS_PREFIX:+;$DEPS_PREFIX}" >/dev/null ||
    die "CMake configure failed (see the messages above)"
}

# build [TARGET...]: everything, or only the targets named.
build() {
  local jobs mem_jobs targets=()
  jobs=$(nproc)
  # A torch.h translation unit needs ~1.5 GB at -O2; keep parallelism within memory.
  mem_jobs=$(awk '/MemAvailable/ {print int($2/1500000)}' /proc/meminfo)
  [ "$mem_jobs" -ge 1 ] && [ "$mem_jobs" -lt "$jobs" ] && jobs=$mem_jobs
  [ $# -eq 0 ] || targets=(--target "$@")
  # stdout is for what the scripts print as results (scripts/run: the paths)
  cmake --build "$BUILD_DIR" -j "$jobs" "${targets[@]}" >&2 || die "build failed"
}
