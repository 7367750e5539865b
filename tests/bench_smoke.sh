#!/usr/bin/env bash
# The micro-benchmarks run and write Google Benchmark JSON with the manual-time
# convention and the device in the context.
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
BENCH=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$BENCH" --benchmark_filter='harness/empty|harness/tiny_kernel/100/|matmul/fp32/256/' --benchmark_min_time=0.01 \
  --benchmark_out="$tmp/b.json" --benchmark_out_format=json >/dev/null || { echo "FAIL: bench exited $?"; exit 1; }
"$PY" - "$tmp/b.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["context"]["optbench_device"] in ("cpu", "cuda")
names = [b["name"] for b in d["benchmarks"]]
assert any(n.startswith("harness/empty_step") for n in names), names
assert any(n.startswith("matmul/fp32/256") for n in names), names
for b in d["benchmarks"]:
    assert b["name"].endswith("manual_time"), b["name"]
    assert b["real_time"] > 0
mm = [b for b in d["benchmarks"] if b["name"].startswith("matmul/")][0]
assert mm["TFLOP/s"] > 0
# Consistency of the conventions: TFLOP/s == 2 n^3 / per-step time.
assert abs(mm["TFLOP/s"] - 2 * 256**3 / mm["per_step_s"] / 1e12) / mm["TFLOP/s"] < 0.05, mm
print("bench smoke ok")
PY
