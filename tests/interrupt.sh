#!/usr/bin/env bash
# Incremental writing: SIGINT mid-run records the case as interrupted and exits
# 130, and so does SIGTERM (a CI job's timeout); SIGKILL mid-run leaves a valid
# file with every finished case; a second SIGINT ends the run at once, leaving
# a valid file and no temporary or part file; SIGTERM delivered twice at once (as
# timeout(1) does: to the child, then to its process group) is one request. The
# scratch folders a SIGKILLed or twice-interrupted run could not remove are
# removed by the next run (harness/scratch_dir.h): none is left at the end.
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1; SRC=$2; FILTER=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp/scratch"; mkdir "$TMPDIR"
fail() { echo "FAIL: $*"; exit 1; }
finished_cases() {
  "$PY" -c 'import json,sys
try: d=json.load(open(sys.argv[1]))
except Exception: print(0); sys.exit()
print(sum(1 for e in d["experiments"] for c in e["cases"] if c["status"] in ("ok","skipped","failed")))' "$1"
}
wait_for_cases() {  # file, count
  for _ in $(seq 1 600); do
    [ -f "$1" ] && [ "$(finished_cases "$1")" -ge "$2" ] && return 0
    sleep 0.2
  done
  fail "no finished case in $1 after 120 s"
}

for sig in INT TERM KILL INT2 TERM_TWICE; do
  f="$tmp/$sig.json"
  # A long per-case cap so the run is surely still going when the signal lands.
  "$OPTBENCH" run --device cpu --filter "$FILTER" --max-time 30 --target-ci 1e-9 --no-progress --out "$f" &
  pid=$!
  wait_for_cases "$f" 1
  if [ $sig = INT2 ]; then
    kill -s INT $pid; sleep 0.5; kill -s INT $pid
  elif [ $sig = TERM_TWICE ]; then
    kill -s TERM $pid; kill -s TERM $pid
  else
    kill -s $sig $pid
  fi
  wait $pid; rc=$?
  PYTHONPATH="$SRC" "$PY" -m report validate "$f" || fail "$sig: file not schema-valid"
  status=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$f")
  [ "$(finished_cases "$f")" -ge 1 ] || fail "$sig: finished case lost"
  if [ $sig = INT ] || [ $sig = TERM ] || [ $sig = TERM_TWICE ]; then
    [ $rc -eq 130 ] || fail "SIG$sig: exit $rc, expected 130"
    [ "$status" = interrupted ] || fail "SIG$sig: status $status"
    "$PY" -c 'import json,sys
d=json.load(open(sys.argv[1]))
assert any(c["status"]=="interrupted" for e in d["experiments"] for c in e["cases"]), "no interrupted case"' "$f" \
      || fail "SIGINT: the case in flight is not recorded as interrupted"
  elif [ $sig = KILL ]; then
    [ "$status" = running ] || fail "SIGKILL: status $status"
    rm -f "$f".tmp-* "$f".part-*  # a SIGKILLed run cannot clean; the next run on $f does (results_files.sh)
  else
    left=$(ls -A "$tmp" | grep -E '\.(tmp|part)')
    [ -z "$left" ] || fail "second SIGINT: left $left"
  fi
done
left=$(ls -A "$TMPDIR" | grep optbench-scratch)
[ -z "$left" ] || fail "scratch folders left after the last run: $left"
echo "interrupt: ok"
