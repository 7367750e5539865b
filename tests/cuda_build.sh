#!/usr/bin/env bash
# The CUDA build, wherever it runs: optbench is linked against libtorch_cuda,
# and `optbench env` reports a LibTorch with CUDA compiled in, and as many CUDA
# devices as the machine shows (none on CI: the GPU tests then skip).
#   cuda_build.sh OPTBENCH
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1
fail() { echo "FAIL: $*"; exit 1; }
ldd "$OPTBENCH" | grep -q 'libtorch_cuda\.so' || fail "optbench does not link libtorch_cuda"
"$OPTBENCH" env | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
assert d["libtorch"]["cuda"] is True, d["libtorch"]
assert d["cuda"] is not None and "device_count" in d["cuda"], d["cuda"]
lt, c = d["libtorch"], d["cuda"]
print("ok: LibTorch %s with CUDA %s, cuDNN %s, NCCL %s, %s device(s), run on %s"
      % (lt["version"], c["cuda_runtime"], c["cudnn"], c["nccl"], c["device_count"], d["device"]))
' || fail "optbench env"
