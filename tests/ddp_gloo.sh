#!/usr/bin/env bash
# DDP across processes on the CPU (Gloo), the ranks started by torchrun from
# pip's torch (`python -m torch.distributed.run --no-python`), as users do:
#  1. the self-check on 2 and 4 ranks: identical gradients on every rank, equal
#     (1e-5) to one process, for both gradient layouts, no_sync accumulation,
#     a parameter no rank uses left alone, a second backward refused;
#  2. `run data_parallel` in one process (exits 0: its own code, nothing at
#     exit) and under torchrun on 2 and 4 ranks: rank 0 alone writes a valid
#     file; single device vs DP-equivalent vs DDP (copy, bucket views) at one
#     global batch, every variant verified, scaling efficiency per variant;
#  3. faults, each a clear error and a valid results file: a rank that hangs
#     (rank 0 times out, records the case as failed and exits 1), a rank that
#     dies, ranks with different models, a second backward without no_sync;
#     a bucket never all-reduced (a planted fault the self-check must fail);
#     torchrun names the rank that failed first;
#  4. environment errors.
# Every launch runs under `timeout`, so a hang fails the test instead of blocking it.
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1; SRC=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export OPTBENCH_DIST_TIMEOUT=60
export OMP_NUM_THREADS=1  # torchrun's own default, set so that it does not warn
now() { date +%s; }
torchrun() {  # torchrun SECONDS NPROC ARGS...: optbench on NPROC ranks, for at most SECONDS
  local t=$1 n=$2; shift 2
  timeout "$t" "$PY" -m torch.distributed.run --no-python --standalone --nproc-per-node "$n" "$OPTBENCH" "$@"
}
# torchrun's summary names the rank it saw fail first and that rank's exit code.
root_cause() {  # root_cause OUTPUT RANK EXITCODE WHAT
  echo "$1" | sed -n '/Root Cause/,$p' | grep -q "rank *: $2 " || fail "$4: rank $2 not named as the root cause: $1"
  echo "$1" | sed -n '/Root Cause/,$p' | grep -q "exitcode *: $3 " || fail "$4: exit code $3 not reported: $1"
}
validate() { PYTHONPATH="$SRC" "$PY" -m report validate "$1" || fail "$2: file not schema-valid"; }
run_dp() {  # run_dp NPROC OUT: data_parallel under torchrun
  torchrun 240 "$1" run data_parallel --quick --device cpu --no-progress --out "$2" 2>&1
}

# 1. Self-check.
for n in 2 4; do
  out=$(torchrun 120 $n ddp-check 2>&1); rc=$?
  [ $rc -eq 0 ] || fail "ddp-check on $n ranks: exit $rc: $out"
  for ((r = 0; r < n; r++)); do
    echo "$out" | grep -q "^ddp check ok: rank $r of $n, gloo on cpu" || fail "rank $r of $n did not pass: $out"
  done
done
echo "$out" | grep -q "launched during backward" || fail "no overlap reported: $out"
echo "$out" | grep -q "second backward refused" || fail "second backward not checked: $out"

# 2a. One process: DDP at world size 1; the exit code is the run's own.
out=$("$OPTBENCH" run data_parallel --quick --device cpu --no-progress --out "$tmp/one.json" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "plain run: exit $rc (not the run's own 0): $out"
validate "$tmp/one.json" "plain run"
"$PY" - "$tmp/one.json" <<'PY' || fail "plain run: content"
import json, sys
d = json.load(open(sys.argv[1]))
cases = {c["name"]: c for e in d["experiments"] for c in e["cases"]}
t = cases["mlp_train_ws1"]
assert t["status"] == "ok", t
assert [v["name"] for v in t["variants"]] == ["single_device", "ddp", "ddp_bucket_view"], t["variants"]
assert all(c["verification"]["status"] == "passed" for c in t["comparisons"]), t["comparisons"]
for name in ("ddp", "ddp_bucket_view"):
    assert "overhead_fraction" in t["derived"]["variants"][name], t["derived"]
layouts = {v["name"]: v["metrics"].get("grad_layout") for v in t["variants"]}
assert layouts["ddp"] == "copy" and layouts["ddp_bucket_view"] == "bucket_view", layouts
assert cases["resnet50_train_ws1"]["status"] == "skipped"
PY

# 2b. Under torchrun on 2 and 4 ranks.
for n in 2 4; do
  rm -f "$tmp"/r*.json
  out=$(run_dp $n "$tmp/r$n.json"); rc=$?
  [ $rc -eq 0 ] || fail "launched run on $n ranks: exit $rc: $out"
  [ "$(ls "$tmp" | grep -c '^r')" = 1 ] || fail "ranks other than 0 wrote files: $(ls "$tmp")"
  validate "$tmp/r$n.json" "launched run on $n ranks"
  "$PY" - "$tmp/r$n.json" $n <<'PY' || fail "launched run on $n ranks: content"
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
assert d["status"] == "complete", d["status"]
cases = {c["name"]: c for e in d["experiments"] for c in e["cases"]}
t = cases["mlp_train_ws%d" % n]
assert t["status"] == "ok", t
p = t["params"]
assert p["world_size"] == n and p["processes"] == n and p["backend"] == "gloo", p
assert p["global_batch"] == n * p["batch_per_rank"], p
names = [v["name"] for v in t["variants"]]
assert names == ["single_device", "data_parallel", "ddp", "ddp_bucket_view"], names
assert all(v["status"] == "ok" for v in t["variants"]), [(v["name"], v.get("error")) for v in t["variants"]]
# One global batch: every variant does the same work per step.
assert len({json.dumps(v.get("units", t["units"]), sort_keys=True) for v in t["variants"]}) == 1
assert all(c["verification"]["status"] == "passed" for c in t["comparisons"]), t["comparisons"]
assert "%d processes" % n in t["notes"]["ran_on"] and "DP-equivalent" in t["notes"]["data_parallel_on_cpu"], t["notes"]
dv = t["derived"]["variants"]
for name in ("data_parallel", "ddp", "ddp_bucket_view"):
    assert dv[name]["devices"] == n and 0 < dv[name]["scaling_efficiency"] < 2, (name, dv[name])
assert t["derived"]["ddp_over_data_parallel"] > 0, t["derived"]
m = {v["name"]: v.get("metrics", {}) for v in t["variants"]}
assert m["ddp"]["world_size"] == n and m["ddp"]["averaging"].startswith("scaled by 1/world"), m["ddp"]
assert m["data_parallel"]["replicas"] == n and m["single_device"]["global_batch"] == p["global_batch"], m
a = cases["allreduce_ws%d" % n]
assert a["status"] == "ok", a
assert a["derived"]["busbw_bytes_per_s"] > 0 and a["derived"]["ranks"] == n, a["derived"]
assert cases["data_parallel_1dev"]["status"] == "skipped" and cases["resnet50_train_ws1"]["status"] == "skipped"
print("%d ranks ok: scaling efficiency single->DP-equivalent %.2f, ->DDP %.2f, ->DDP views %.2f"
      % (n, dv["data_parallel"]["scaling_efficiency"], dv["ddp"]["scaling_efficiency"],
         dv["ddp_bucket_view"]["scaling_efficiency"]))
PY
done

# Checks a faulty run's file: valid, the mlp case failed (or interrupted when
# torchrun stopped rank 0 first) with `words` in its record.
check_fault() {  # check_fault FILE WHAT WORDS STATUSES
  validate "$1" "$2"
  "$PY" - "$1" "$3" "$4" <<'PY' || fail "$2: record"
import json, sys
d = json.load(open(sys.argv[1])); words = sys.argv[2]; statuses = sys.argv[3].split(",")
assert d["status"] in ("complete", "interrupted"), d["status"]
cases = {c["name"]: c for e in d["experiments"] for c in e["cases"]}
t = cases["mlp_train_ws2"]
assert t["status"] in statuses, (t["status"], t.get("reason"))
if words:
    text = json.dumps(t)
    assert words in text, (words, t.get("reason"), [v.get("error") for v in t.get("variants", [])])
PY
}

# 3a. A rank that hangs in DDP's third step: rank 0 gives up after the timeout,
# aborts the group, records the case as failed, finishes the file, exits 1;
# torchrun then stops the hung rank and names rank 0.
t0=$(now)
out=$(OPTBENCH_DIST_TIMEOUT=3 OPTBENCH_FAULT_INJECT=rank=1,job=0,step=3,mode=hang run_dp 2 "$tmp/hang.json"); rc=$?
[ $rc -eq 1 ] || fail "hung rank: torchrun exit $rc, expected 1: $out"
root_cause "$out" 0 1 "hung rank"
check_fault "$tmp/hang.json" "hung rank" "a peer rank may have died or hung" failed
[ "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$tmp/hang.json")" = complete ] \
  || fail "hung rank: file not completed"
[ $(( $(now) - t0 )) -lt 90 ] || fail "hung rank took too long to detect"

# 3b. A rank that dies in DDP's third step: torchrun names it and stops rank 0
# (SIGTERM), whose file stays valid (the case failed, or interrupted if the stop
# came first).
out=$(OPTBENCH_FAULT_INJECT=rank=1,job=0,step=3,mode=exit run_dp 2 "$tmp/dead.json"); rc=$?
[ $rc -eq 1 ] || fail "dead rank: torchrun exit $rc, expected 1: $out"
root_cause "$out" 1 3 "dead rank"
check_fault "$tmp/dead.json" "dead rank" "" failed,interrupted

# 3c. A rank dying in the last case (all-reduce, job 2): the finished case stays.
out=$(OPTBENCH_FAULT_INJECT=rank=1,job=2,step=3,mode=exit run_dp 2 "$tmp/late.json"); rc=$?
[ $rc -eq 1 ] || fail "late death: torchrun exit $rc, expected 1: $out"
root_cause "$out" 1 3 "late death"
check_fault "$tmp/late.json" "late death" "" ok

# 3d. Ranks with different models: every rank refuses before any gradient moves.
out=$(OPTBENCH_FAULT_INJECT=rank=1,job=0,mode=mismatch run_dp 2 "$tmp/mismatch.json"); rc=$?
[ $rc -eq 1 ] || fail "mismatch: exit $rc: $out"
echo "$out" | grep -q "^optbench: rank 1: error in data_parallel/mlp_train_ws2/ddp: the ranks do not hold the same parameters" \
  || fail "mismatch: rank 1's error missing: $out"
check_fault "$tmp/mismatch.json" "mismatch" "do not hold the same parameters" failed

# 3e. A second backward before the gradients are finished (no no_sync()): refused.
out=$(OPTBENCH_FAULT_INJECT=rank=0,mode=second_backward run_dp 2 "$tmp/twice.json"); rc=$?
[ $rc -eq 1 ] || fail "second backward: exit $rc: $out"
check_fault "$tmp/twice.json" "second backward" "accumulate gradients inside no_sync()" failed

# 3e'. A planted fault: the first gradient bucket never all-reduced on any rank.
# The self-check must fail it (each rank keeps its own gradients there).
out=$(OPTBENCH_FAULT_INJECT='rank=*,mode=unreduced_bucket' torchrun 120 2 ddp-check 2>&1); rc=$?
[ $rc -ne 0 ] || fail "ddp-check passed with a bucket never all-reduced: $out"
echo "$out" | grep -q "averaged gradients differ across ranks" || fail "unreduced bucket not named: $out"

# 4. Environment errors.
out=$(WORLD_SIZE=2 RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=1 "$OPTBENCH" run data_parallel --device cpu \
      --out "$tmp/e.json" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "missing LOCAL_RANK: exit $rc: $out"
echo "$out" | grep -q "LOCAL_RANK is not set" || fail "missing LOCAL_RANK: $out"
[ ! -e "$tmp/e.json" ] || fail "a results file was written despite a bad environment"
echo "ddp gloo: ok"
