#!/usr/bin/env bash
# Two runs started together on one --out (a re-triggered CI job, two jobs on
# one runner), each with --overwrite, one profiling every variant (--breakdown
# on) and one not (off), which marks every case with its run: either one is
# refused at once (exit 2, one line naming the other run) and the other's file
# is whole and its own, or they did not overlap and the file is the last one's;
# never a file whose header belongs to one run and cases to the other, never a
# torn file, never a leftover temporary or part file. Three tries. Then without
# --out: a run whose default name (optbench-cpu-<UTC second>.json) another run
# already has takes the next free one (-2) instead of being refused.
#   same_out.sh OPTBENCH SRC
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1; SRC=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
f="$tmp/r.json"
refusals=0
for try in 1 2 3; do
  "$OPTBENCH" run eval_no_grad zero_grad --quick --device cpu --no-progress --max-time 0.2 --breakdown off \
    --overwrite --out "$f" >"$tmp/a.log" 2>&1 &
  a=$!
  "$OPTBENCH" run eval_no_grad zero_grad --quick --device cpu --no-progress --max-time 0.2 --breakdown on \
    --overwrite --out "$f" >"$tmp/b.log" 2>&1 &
  b=$!
  wait $a; rca=$?
  wait $b; rcb=$?
  for x in "a $rca" "b $rcb"; do
    set -- $x
    case $2 in
      0) ;;
      2) [ "$(wc -l <"$tmp/$1.log")" -eq 1 ] && grep -q "is being written by another optbench run" "$tmp/$1.log" \
           || fail "try $try: run $1 exited 2 without the one-line refusal: $(cat "$tmp/$1.log")"
         refusals=$((refusals + 1)) ;;
      *) fail "try $try: run $1 exited $2: $(cat "$tmp/$1.log")" ;;
    esac
  done
  [ $rca -eq 0 ] || [ $rcb -eq 0 ] || fail "try $try: both runs refused"
  PYTHONPATH="$SRC" "$PY" -m report validate "$f" >/dev/null || fail "try $try: the file is not schema-valid"
  "$PY" - "$f" <<'PY' || fail "try $try: the file mixes the two runs"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
profiled = d["config"]["measure"]["breakdown"]["mode"] == "on"
cases = [c for e in d["experiments"] for c in e["cases"] if c["status"] == "ok"]
assert len(cases) == 3, [c["name"] for c in cases]
for c in cases:
    # Every case from this file's own run: profiled exactly when its header says so.
    marks = {"breakdown" in v for v in c["variants"]}
    assert marks == {profiled}, (c["name"], marks, "header says breakdown", profiled)
PY
  left=$(ls -A "$tmp" | grep -E '\.(tmp|part)')
  [ -z "$left" ] || fail "try $try: left $left"
done
# Every default name of the next 20 seconds taken, as by runs of those seconds.
mkdir "$tmp/default"
now=$(date -u +%s)
for i in $(seq 0 20); do : >"$tmp/default/optbench-cpu-$(date -u -d "@$((now + i))" +%Y%m%dT%H%M%SZ).json"; done
(cd "$tmp/default" && "$OPTBENCH" run eval_no_grad --quick --device cpu --no-progress --max-time 0.2 >"$tmp/d.log" 2>&1) ||
  { cat "$tmp/d.log"; fail "a run without --out whose default name was taken: refused"; }
made=$(cd "$tmp/default" && ls optbench-cpu-*-2.json 2>/dev/null)
[ "$(echo "$made" | wc -w)" = 1 ] && [ -s "$tmp/default/$made" ] || fail "no -2 file: $(ls "$tmp/default" | tail -3)"
echo "same out: ok ($refusals of 3 tries had a run refused; the others did not overlap; a taken default name gave $made)"
