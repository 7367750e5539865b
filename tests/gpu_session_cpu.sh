#!/usr/bin/env bash
# scripts/gpu-session --rehearsal on the CPU, in this build folder (its build step
# then has nothing to do, under a budget): every step of the plan in order, each run
# step's --time-budget within its minimum and cap and the minimums of the later steps
# left, every reserved step run (--plan says they fit 540 s and one 600 s call on an
# H100, set-up and build included), the whole session ending
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
SRC="$SRC" BUILD="$BUILD" "$PY" - "$tmp/s/steps.tsv" "$S" <<'PY' || fail "steps.tsv"
import csv, subprocess, sys, os
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
S = int(sys.argv[2])
env = {k: v for k, v in os.environ.items() if k != "OPTBENCH_SESSION_S"} | {"OPTBENCH_BUILD_DIR": os.environ["BUILD"]}
cmd = [os.environ["SRC"] + "/scripts/gpu-session", "--plan"]
out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
lines = out.stdout.splitlines()
assert lines[-1].startswith("# on an H100") and ": fits OPTBENCH_SESSION_S=540, fits a 600 s call" in lines[-1], lines[-1]
plan = {r["step"]: r for r in csv.DictReader([x for x in lines if not x.startswith("#")], delimiter="\t")}
names = [r["step"] for r in rows]
want = ["setup", "build", "scratch", "bindings", "gpu_tests", "aot_inductor", "new", "breakdown", "verified",
        "matmul_check"]
assert names == want, names
for r in rows:
    if r["budget_s"] in ("skipped", "-"):
        continue
    b = int(r["budget_s"])
    if plan[r["step"]]["cap_s"] != "-":
        assert int(plan[r["step"]]["min_s"]) <= b <= int(plan[r["step"]]["cap_s"]), r
    assert int(r["start_s"]) + b <= S, ("budget past the deadline", r)
assert rows[1]["budget_s"].isdigit(), ("the build ran without a budget", rows[1])
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
