#!/usr/bin/env bash
# scripts/gpu-session cannot pass without a GPU and cannot overrun a step:
#  1. No GPU and no --rehearsal: exit 3 before the build, one line saying "no GPU",
#     and checks.tsv says so in its first row.
#  2. A planted plan (OPTBENCH_SESSION_PLAN): a run that ignores its step's budget
#     is stopped at the budget plus its overrun and what it wrote is kept (an
#     `interrupted` results file); the steps after it still run, in the plan's
#     order; the session exits with the stopped step's 124 and its checks name it.
#  3. A plan under a deadline its reserved steps no longer fit after the set-up:
#     each skipped, named, and the session exits 4.
#   gpu_session_faults.sh SRC BUILD_DIR
set -u
PY=${OPTBENCH_PYTHON:?the configured Python}
SRC=$1; BUILD=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/log"; exit 1; }
session() { OPTBENCH_BUILD_DIR="$BUILD" "$SRC/scripts/gpu-session" "$@" >"$tmp/log" 2>&1; }

# 1. No GPU.
session "$tmp/a"
rc=$?
[ "$rc" = 3 ] || fail "without a GPU the session exited $rc, not 3"
grep -q 'error: no GPU visible' "$tmp/log" || fail "no 'no GPU' line"
! grep -q '== build' "$tmp/log" || fail "it built without a GPU"
grep -q $'^gpu\tmachine\tfail\tno GPU' "$tmp/a/checks.tsv" || fail "checks.tsv has no failed gpu row"
grep -q 'error: no GPU visible' "$tmp/a/session.log" || fail "session.log does not say why the session stopped"
echo "ok: no GPU, exit 3"

# 2. A step past its deadline, then the rest of the plan.
cat >"$tmp/plan" <<'EOF'
stuck	2	3	1	1	exec "$BUILD_DIR/optbench" run dataloader --device cpu --no-progress --time-budget 120 --out "$DIR/runs/stuck.json"
after	1	5	1	0	echo after-ran
EOF
t0=$(date +%s)
OPTBENCH_SESSION_PLAN="$tmp/plan" OPTBENCH_SESSION_S=60 session --rehearsal "$tmp/b"
rc=$?
took=$(( $(date +%s) - t0 ))
[ "$rc" = 124 ] || fail "the session exited $rc, not the stopped step's 124"
[ "$took" -le 90 ] || fail "the session took $took s with a 60 s deadline"
"$PY" - "$tmp/b" <<'PY' || fail "steps.tsv, checks.tsv or the kept results"
import csv, json, sys
d = sys.argv[1]
steps = list(csv.DictReader(open(f"{d}/steps.tsv"), delimiter="\t"))
assert [s["step"] for s in steps] == ["setup", "build", "stuck", "after"], steps
stuck, after = steps[2:]
assert stuck["exit"] == "124" and int(stuck["seconds"]) <= 3 + 1 + 5 + 1, stuck  # budget + overrun + kill grace
assert after["exit"] == "0", after
assert "after-ran" in open(f"{d}/session.log").read()
kept = json.load(open(f"{d}/runs/stuck.json"))
assert kept["status"] == "interrupted", kept["status"]
checks = {(r["check"], r["subject"]): r["result"] for r in csv.DictReader(open(f"{d}/checks.tsv"), delimiter="\t")}
assert checks[("step", "stuck")] == "fail" and checks[("run", "stuck.json")] == "fail", checks
assert checks[("step", "after")] == "pass", checks
print("ok: stuck stopped at", stuck["seconds"], "s, its file kept (interrupted); after ran")
PY

# 3. No time left for the reserved steps after the set-up. Each step's minimum is
# more than the whole session, so both are skipped however fast the set-up is (with
# the minimums of 2, a 3 s set-up once left "after" its 1 s).
cat >"$tmp/plan3" <<'EOF'
stuck	5	6	1	1	exec "$BUILD_DIR/optbench" run dataloader --device cpu --no-progress --time-budget 120 --out "$DIR/runs/stuck.json"
after	5	6	1	0	echo after-ran
EOF
OPTBENCH_SESSION_PLAN="$tmp/plan3" OPTBENCH_SESSION_S=4 session --rehearsal "$tmp/c"
rc=$?
[ "$rc" = 4 ] || fail "with its reserved steps skipped the session exited $rc, not 4"
grep -q 'reserved steps skipped for time: stuck after' "$tmp/log" || fail "the skipped steps are not named"
[ "$(grep -c $'^step\t\(stuck\|after\)\tfail\tskipped' "$tmp/c/checks.tsv")" = 2 ] || fail "checks.tsv: skips not failed"
echo "ok: reserved steps skipped, exit 4"
echo "gpu_session_faults: ok"
