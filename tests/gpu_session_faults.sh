#!/usr/bin/env bash
# scripts/gpu-session cannot pass without a GPU, cannot overrun a step, and nothing
# starved passes:
#  1. No GPU and no --rehearsal: exit 3 before the build, one line saying "no GPU",
#     and checks.tsv says so in its first row.
#  2. A planted plan (OPTBENCH_SESSION_PLAN): a run that ignores its step's budget
#     is stopped at the budget plus its overrun and what it wrote is kept (an
#     `interrupted` results file); the steps after it still run, in the plan's
#     order; the session exits with the stopped step's 124 and its checks name it.
#  3. Reserved steps whose minimums exceed the session: exit 4 before the set-up.
#  4. A slow build (a planted ninja that lists 400 units to compile): refused at
#     once, exit 4, nothing after it run, checks.tsv naming the build.
#  5. A slow build (a planted cmake whose build never ends) under a 40 s deadline,
#     its units counted slowly (a planted ninja whose dry run takes 2 s, as on a
#     loaded CI machine): stopped at its budget (124) and named, the reserved steps
#     after it still run; `new`, left its 1 s minimum for its four experiments, ends
#     them not run for time and its check fails naming them; a step deaf to SIGTERM
#     is killed 5 s past its budget, so the reserved step after it no longer fits,
#     is skipped and named; a scratch folder in RAM (/dev/shm, where that is tmpfs)
#     fails its row.
#  6. --prepare with a bundle that is not an archive: one error line naming it.
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
assert [s["step"] for s in steps] == ["setup", "build", "scratch", "stuck", "after"], steps
stuck, after = steps[3:]
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

# 3. The reserved steps' minimums alone exceed the session: nothing is started.
cat >"$tmp/plan3" <<'EOF'
stuck	5	6	1	1	exec "$BUILD_DIR/optbench" run dataloader --device cpu --no-progress --time-budget 120 --out "$DIR/runs/stuck.json"
after	5	6	1	0	echo after-ran
EOF
OPTBENCH_SESSION_PLAN="$tmp/plan3" OPTBENCH_SESSION_S=4 session --rehearsal "$tmp/c"
rc=$?
[ "$rc" = 4 ] || fail "with its reserved steps past the deadline the session exited $rc, not 4"
grep -q "the reserved steps need 13 s of the session's 4 s" "$tmp/log" || fail "the refusal does not say why"
! grep -q 'set-up done' "$tmp/log" || fail "the set-up ran"
grep -q $'^step\tsetup\tfail' "$tmp/c/checks.tsv" || fail "checks.tsv: the set-up's refusal not failed"
echo "ok: reserved steps past the deadline, exit 4 before the set-up"

# 4. A build whose bound does not fit: a ninja on PATH that lists 400 units still to
# compile (the build itself runs the real one, which CMake names).
mkdir -p "$tmp/slow-ninja"
cat >"$tmp/slow-ninja/ninja" <<EOF
#!/bin/sh
case " \$* " in *" -n "*) seq 400 | sed 's|.*|[&/400] Building CXX object u&.o|'; exit 0 ;; esac
exec $(command -v ninja) "\$@"
EOF
chmod +x "$tmp/slow-ninja/ninja"
PATH="$tmp/slow-ninja:$PATH" OPTBENCH_SESSION_PLAN="$tmp/plan" OPTBENCH_SESSION_S=300 session --rehearsal "$tmp/d"
rc=$?
[ "$rc" = 4 ] || fail "a build whose bound does not fit: exit $rc, not 4"
grep -q 'error: the build is not started: its bound [0-9]* s (400 units to compile' "$tmp/log" ||
  fail "the refusal does not give the bound"
! grep -q 'after-ran\|== stuck' "$tmp/d/session.log" || fail "steps ran after a refused build"
grep -q $'^step\tbuild\tfail\tskipped for time; its bound' "$tmp/d/checks.tsv" || fail "checks.tsv does not name the build"
echo "ok: a build whose bound does not fit is refused, exit 4"

# 5. A build that never ends (a cmake on PATH whose --build sleeps; its units counted
# by a ninja whose dry run takes 2 s), then a starved new, a step deaf to SIGTERM,
# and the reserved step it leaves no time. The build's budget is reckoned when it
# starts, so the slow count does not take new's minimum.
mkdir -p "$tmp/slow-cmake"
cat >"$tmp/slow-cmake/cmake" <<EOF
#!/bin/sh
[ "\$1" = --build ] && exec sleep 600
exec $(command -v cmake) "\$@"
EOF
cat >"$tmp/slow-cmake/ninja" <<EOF
#!/bin/sh
case " \$* " in *" -n "*) sleep 2 ;; esac
exec $(command -v ninja) "\$@"
EOF
chmod +x "$tmp/slow-cmake/cmake" "$tmp/slow-cmake/ninja"
cat >"$tmp/plan5" <<'EOF'
new	1	2	1	5	run fused_optimizer persistent_workers storage_reads torchscript --quick
deaf	1	100	0	0	trap '' TERM; sleep 100
after	5	5	1	0	echo after-ran
EOF
scratch=$tmp/scratch
[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && scratch=$(mktemp -d /dev/shm/gpu-session-XXXXXX)
t0=$(date +%s)
PATH="$tmp/slow-cmake:$PATH" OPTBENCH_SESSION_PLAN="$tmp/plan5" OPTBENCH_SESSION_S=40 OPTBENCH_SESSION_SCRATCH="$scratch" \
  session --rehearsal "$tmp/e"
rc=$?
took=$(( $(date +%s) - t0 ))
case $scratch in /dev/shm/gpu-session-*) rm -rf "$scratch" ;; esac
[ "$rc" = 124 ] || fail "a build stopped at its budget: the session exited $rc, not 124"
[ "$took" -le 55 ] || fail "the session took $took s with a 40 s deadline"
"$PY" - "$tmp/e" "$scratch" <<'PY' || fail "steps.tsv or checks.tsv"
import csv, sys
d, scratch = sys.argv[1:]
steps = {s["step"]: s for s in csv.DictReader(open(f"{d}/steps.tsv"), delimiter="\t")}
assert list(steps) == ["setup", "build", "scratch", "new", "deaf", "after"], list(steps)
build = steps["build"]
assert build["exit"] == "124" and int(build["seconds"]) <= int(build["budget_s"]) + 1, build
checks = {(r["check"], r["subject"]): r for r in csv.DictReader(open(f"{d}/checks.tsv"), delimiter="\t")}
assert checks[("step", "build")]["result"] == "fail", checks[("step", "build")]
row = checks[("experiments", "new.json")]
assert row["result"] == "fail" and "not run for time: " in row["figure"] and "starved" in row["figure"], row
assert "fused_optimizer" in row["figure"], row
assert checks[("step", "deaf")]["result"] == "fail" and steps["deaf"]["exit"] == "137", steps["deaf"]
assert checks[("step", "after")]["result"] == "fail" and steps["after"]["budget_s"] == "skipped", steps["after"]
in_ram = scratch.startswith("/dev/shm/")
assert checks[("step", "scratch")]["result"] == ("fail" if in_ram else "pass"), checks[("step", "scratch")]
print("ok: the build stopped at", build["seconds"], "s of", build["budget_s"], "s; new starved:", row["figure"])
print("ok: deaf killed, after skipped; the scratch folder", "in RAM failed" if in_ram else "on disk passed")
PY
grep -q 'reserved steps skipped for time: after' "$tmp/log" || fail "the skipped step is not named"

# 6. --prepare with a bundle that is not an archive.
echo 'not a tarball' >"$tmp/bad.tar.gz"
OPTBENCH_DEPS="$tmp/bad.tar.gz" "$SRC/scripts/gpu-session" --prepare >"$tmp/log" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "--prepare with an unreadable bundle exited $rc, not 2"
grep -q "optbench: error: $tmp/bad.tar.gz is not a readable" "$tmp/log" || fail "--prepare does not name the bundle"
echo "ok: --prepare refuses an unreadable bundle"
echo "gpu_session_faults: ok"
