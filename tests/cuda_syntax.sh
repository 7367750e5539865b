#!/usr/bin/env bash
# The CUDA-only code compiled where no LibTorch with CUDA exists: every source
# that has `#if OPTBENCH_WITH_CUDA` branches is syntax-checked with the macro on,
# against this LibTorch's CUDA headers and the CUDA toolkit's. This catches
# typos and CUDA-toolkit API changes in GPU code on CPU-only CI; the LibTorch
# 2.x branches of harness/compat/ still wait for a GPU build.
# Usage: cuda_syntax.sh SRC_DIR CUDA_INCLUDE_DIR TORCH_INCLUDE_DIR...
set -u
SRC=$1; CUDA_INC=$2; shift 2
[ -f "$CUDA_INC/cuda_runtime_api.h" ] || { echo "no CUDA toolkit headers: skipped"; exit 77; }
stub=$(mktemp -d); trap 'rm -rf "$stub"' EXIT
# The CPU package lacks the generated header that c10/cuda includes.
mkdir -p "$stub/c10/cuda/impl" && : > "$stub/c10/cuda/impl/cuda_cmake_macros.h"
flags=(-std=c++17 -fsyntax-only -D_GLIBCXX_USE_CXX11_ABI=1 -DOPTBENCH_WITH_CUDA=1 -DOPTBENCH_SOURCE_DIR="\"$SRC\""
       -DOPTBENCH_VERSION="\"0\"" -I"$SRC" -I"$stub" -isystem "$CUDA_INC")
# /usr/include is already searched; naming it with -isystem breaks #include_next.
for inc in "$@"; do [ "$inc" = /usr/include ] || flags+=(-isystem "$inc"); done
cd "$SRC" || exit 1
mapfile -t files < <(grep -rlE '^#if(def)? +OPTBENCH_WITH_CUDA|defined\(OPTBENCH_WITH_CUDA\)' harness workloads benchmarks tests --include='*.cpp' | sort)
[ ${#files[@]} -gt 0 ] || { echo "FAIL: found no CUDA-guarded sources (pattern out of date?)"; exit 1; }
check() {
  local out
  out=$(g++ "${flags[@]}" "$1" 2>&1) && return 0
  printf 'FAIL: %s\n%s\n' "$1" "$(printf '%s\n' "$out" | grep -m 20 -A3 'error')"
  return 1
}
fail=0
# Two at a time: a torch.h translation unit takes ~1 GB and ~15 s.
pids=()
for f in "${files[@]}"; do
  check "$f" & pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}" || fail=1; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
echo "checked ${#files[@]} files: ${files[*]}"
exit $fail
