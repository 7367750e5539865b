#!/usr/bin/env bash
# scripts/gpu-session --rehearsal on the CPU, in this build folder (its build step
# then has nothing to do): every step of the plan in order, each run step's
# --time-budget within its minimum and cap and the minimums of the later steps
# left, a step that cannot fit skipped and saying so, the whole session ending
# within OPTBENCH_SESSION_S (plus the one sample a run may overrun and process
# exits: the deadline is a promise, so this test runs serially), at most 8
# files in DIR (what the GPU machine can hand back), the session's checks
# (checks.tsv) passing as a CPU can show them, and the results files rendering as
# one report.
#   gpu_session_cpu.sh SRC BUILD_DIR SESSION_S
set -u
PY=${OPTBENCH_PYTHON:?the configured Python}
SRC=$1; BUILD=$2; S=${3:-250}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; tail -30 "$tmp/log"; exit 1; }
t0=$(date +%s)
OPTBENCH_BUILD_DIR="$BUILD" OPTBENCH_SESSION_S=$S "$SRC/scripts/gpu-session" --rehearsal "$tmp/s" >"$tmp/log" 2>&1
rc=$?
took=$(( $(date +%s) - t0 ))
cat "$tmp/log"
[ $rc -eq 0 ] || fail "the session exited $rc"
grep -q 'a rehearsal on the CPU' "$tmp/log" || fail "no rehearsal warning without a GPU"
[ "$took" -le $((S + 15)) ] || fail "the session took $took s, its deadline is $S s"
n=$(find "$tmp/s" -type f | wc -l)
[ "$n" -le 8 ] || fail "$n files in the session folder, the GPU machine hands back 8"
SRC="$SRC" "$PY" - "$tmp/s/steps.tsv" "$S" <<'PY' || fail "steps.tsv"
import csv, subprocess, sys, os
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
S = int(sys.argv[2])
plan = {r["step"]: r for r in csv.DictReader(
    subprocess.run([os.environ["SRC"] + "/scripts/gpu-session", "--plan"], capture_output=True, text=True, check=True)
    .stdout.splitlines(), delimiter="\t")}
names = [r["step"] for r in rows]
want = ["setup", "build", "bindings", "gpu_tests", "new", "breakdown", "aot_inductor", "verified", "matmul_check"]
assert names == want, names
for r in rows:
    if r["step"] in plan and r["budget_s"] != "skipped":
        b = int(r["budget_s"])
        assert int(plan[r["step"]]["min_s"]) <= b <= int(plan[r["step"]]["cap_s"]), r
        assert int(r["start_s"]) + b <= S, ("budget past the deadline", r)
ran = {r["step"] for r in rows if r["budget_s"] != "skipped"}
reserved = {s for s, p in plan.items() if p["reserve"] == "1" and s != "each_alone"}
assert reserved <= ran, ("a reserved step was skipped with the default plan", rows)
print("steps ok:", " ".join(f'{r["step"]}={r["seconds"]}s' for r in rows))
PY
grep -q $'^gpu\tmachine\tn/a' "$tmp/s/checks.tsv" || fail "checks.tsv: no n/a gpu row in a rehearsal"
! grep -q $'\tfail\t' "$tmp/s/checks.tsv" || fail "a failed check: $(grep $'\tfail\t' "$tmp/s/checks.tsv")"
[ -f "$tmp/s/runs/new.json" ] && [ -f "$tmp/s/runs/breakdown.json" ] || fail "expected runs/new.json and runs/breakdown.json"
"$BUILD/optbench" report render "$tmp/s/runs" --out "$tmp/rep" >/dev/null 2>&1 || fail "the session's runs do not render"
[ -s "$tmp/rep/report.md" ] || fail "no report"
echo "gpu_session_cpu: ok ($took s of $S s)"
