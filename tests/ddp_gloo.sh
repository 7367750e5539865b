#!/usr/bin/env bash
# DDP across processes on the CPU (Gloo), through `optbench launch`:
#  1. the self-check: after a step the averaged gradients are identical on every
#     rank and equal (1e-5) to one process training on the concatenated batch;
#  2. `run data_parallel` under the launcher: rank 0 alone writes a valid file
#     with the 2-process cases, verified, with scaling efficiency and busbw;
#  3. failures: a rank that exits, a rank that hangs (the others time out), the
#     launcher's own timeout, and a rank dying mid-run (finished cases stay);
#  4. usage and environment errors.
set -u
OPTBENCH=$1; SRC=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OPTBENCH_DIST_TIMEOUT=60
now() { date +%s; }

# 1. Self-check on 2 and 3 ranks.
for n in 2 3; do
  out=$("$OPTBENCH" launch --nproc $n --timeout 120 -- ddp-check 2>&1); rc=$?
  [ $rc -eq 0 ] || fail "ddp-check on $n ranks: exit $rc: $out"
  for ((r = 0; r < n; r++)); do
    echo "$out" | grep -q "^\[rank $r\] ddp check ok: rank $r of $n, gloo on cpu" || fail "rank $r of $n did not pass: $out"
  done
done
echo "$out" | grep -q "launched during backward" || fail "no overlap reported: $out"

# 2. The experiment on 2 ranks.
out=$("$OPTBENCH" launch --nproc 2 --timeout 300 -- run data_parallel --quick --device cpu --no-progress \
      --out "$tmp/r.json" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "launched run: exit $rc: $out"
[ "$(ls "$tmp")" = "r.json" ] || fail "ranks other than 0 wrote files: $(ls "$tmp")"
PYTHONPATH="$SRC" /usr/bin/python3 -m report validate "$tmp/r.json" || fail "launched run: file not schema-valid"
/usr/bin/python3 - "$tmp/r.json" <<'PY' || fail "launched run: content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
cases = {c["name"]: c for e in d["experiments"] for c in e["cases"]}
t = cases["mlp_train_ws2"]
assert t["status"] == "ok", t
assert t["params"]["world_size"] == 2 and t["params"]["processes"] == 2 and t["params"]["backend"] == "gloo", t["params"]
assert "2 processes" in t["notes"]["ran_on"], t["notes"]
ddp = [v for v in t["variants"] if v["name"] == "ddp"][0]
assert ddp["status"] == "ok" and ddp["metrics"]["world_size"] == 2, ddp
cmp = [c for c in t["comparisons"] if c["variant"] == "ddp"][0]
assert cmp["verification"]["status"] == "passed", cmp
assert 0 < t["derived"]["scaling_efficiency"] < 2, t["derived"]
a = cases["allreduce_ws2"]
assert a["status"] == "ok", a
assert a["derived"]["busbw_bytes_per_s"] > 0 and a["derived"]["ranks"] == 2, a["derived"]
assert cases["data_parallel_1dev"]["status"] == "skipped"
print("launched run ok: scaling efficiency %.2f, busbw %.2f GB/s"
      % (t["derived"]["scaling_efficiency"], a["derived"]["busbw_bytes_per_s"] / 1e9))
PY

# 3a. A rank that exits: the launcher names it, stops the other, fails fast.
t0=$(now)
out=$(OPTBENCH_FAULT_INJECT=rank=1,step=2,mode=exit "$OPTBENCH" launch --nproc 2 --timeout 60 -- ddp-check 2>&1); rc=$?
[ $rc -ne 0 ] || fail "a rank exited early but the launcher succeeded: $out"
echo "$out" | grep -q "optbench launch: rank 1 exited with status 3" || fail "exit not reported: $out"
[ $(( $(now) - t0 )) -lt 30 ] || fail "exit took too long to detect"

# 3b. A rank that hangs: the other times out in its all-reduce and exits with an error.
t0=$(now)
out=$(OPTBENCH_DIST_TIMEOUT=3 OPTBENCH_FAULT_INJECT=rank=1,step=2,mode=hang \
      "$OPTBENCH" launch --nproc 2 --timeout 60 -- ddp-check 2>&1); rc=$?
[ $rc -ne 0 ] || fail "a rank hung but the launcher succeeded: $out"
echo "$out" | grep -q "\[rank 0\] ddp check: rank 0 of 2: error: all-reduce of gradient bucket" \
  || fail "the hang is not reported by rank 0: $out"
echo "$out" | grep -q "optbench launch: rank 0 exited with status 1" || fail "rank 0's failure not reported: $out"
[ $(( $(now) - t0 )) -lt 30 ] || fail "hang took too long to detect"

# 3c. The launcher's own timeout.
t0=$(now)
out=$(OPTBENCH_FAULT_INJECT=rank=1,step=2,mode=hang "$OPTBENCH" launch --nproc 2 --timeout 3 --grace 2 -- ddp-check 2>&1); rc=$?
[ $rc -eq 124 ] || fail "launcher timeout: exit $rc: $out"
echo "$out" | grep -q "timed out after 3 s" || fail "timeout not reported: $out"
[ $(( $(now) - t0 )) -lt 20 ] || fail "launcher timeout took too long"

# 3d. A rank dying during the second case of a run: rank 0's file keeps the first.
out=$(OPTBENCH_FAULT_INJECT=rank=1,job=1,step=3,mode=exit "$OPTBENCH" launch --nproc 2 --timeout 300 -- \
      run data_parallel --quick --device cpu --no-progress --out "$tmp/f.json" 2>&1); rc=$?
[ $rc -ne 0 ] || fail "a rank died mid-run but the launcher succeeded: $out"
echo "$out" | grep -q "optbench launch: rank 1 exited with status 3" || fail "mid-run exit not reported: $out"
PYTHONPATH="$SRC" /usr/bin/python3 -m report validate "$tmp/f.json" || fail "mid-run failure: file not schema-valid"
/usr/bin/python3 - "$tmp/f.json" <<'PY' || fail "mid-run failure: finished case lost"
import json, sys
d = json.load(open(sys.argv[1]))
cases = {c["name"]: c for e in d["experiments"] for c in e["cases"]}
assert cases["mlp_train_ws2"]["status"] == "ok", cases["mlp_train_ws2"].get("status")
PY

# 4. Usage and environment errors.
out=$("$OPTBENCH" launch --nproc 2 2>&1); rc=$?
[ $rc -eq 2 ] || fail "launch without a command: exit $rc"
echo "$out" | grep -q "nothing to launch" || fail "launch without a command: $out"
out=$(WORLD_SIZE=2 RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=1 "$OPTBENCH" run data_parallel --device cpu \
      --out "$tmp/e.json" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "missing LOCAL_RANK: exit $rc: $out"
echo "$out" | grep -q "LOCAL_RANK is not set" || fail "missing LOCAL_RANK: $out"
[ ! -e "$tmp/e.json" ] || fail "a results file was written despite a bad environment"
echo "ddp gloo: ok"
