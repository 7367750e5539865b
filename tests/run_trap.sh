#!/usr/bin/env bash
# scripts/run under a CI job's timeout (issue 40): SIGTERM to its process group
# mid-run still leaves the report of what the run kept, and the exit status is
# the run's (130). Before, the script died with 143 and rendered nothing.
# scripts/run's last step (scripts/lib/run_and_render.sh) is run on this build.
#   run_trap.sh OPTBENCH SRC
set -u
OPTBENCH=$1; SRC=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; tail -20 "$tmp/log"; exit 1; }
# A session of its own, as a CI job's steps run: the signal goes to the group.
setsid bash -c 'source "$1/scripts/lib/common.sh"; source "$1/scripts/lib/run_and_render.sh"
                run_and_render "$2" "$3" zero_grad --device cpu --no-progress --max-time 30' _ \
  "$SRC" "$OPTBENCH" "$tmp/out" >"$tmp/stdout" 2>"$tmp/log" &
pid=$!
mkdir -p "$tmp/out"
# Once the run has written its file (at its start) and is measuring.
for _ in $(seq 600); do [ -f "$tmp/out/results.json" ] && break; sleep 0.1; done
[ -f "$tmp/out/results.json" ] || fail "the run wrote no file within 60 s"
sleep 3
kill -TERM -- "-$pid" || fail "no process group $pid"
wait "$pid"
rc=$?
[ $rc -eq 130 ] || fail "exit $rc, expected the run's 130"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["status"] == "interrupted"' "$tmp/out/results.json" ||
  fail "results.json is not closed as interrupted"
[ -s "$tmp/out/report.md" ] || fail "no report.md"
[ "$(wc -l <"$tmp/stdout")" -eq 4 ] || fail "printed $(cat "$tmp/stdout"), expected the 4 paths"
grep -q "rendering the report of what the run kept" "$tmp/log" || fail "no word that the report is of a stopped run"
echo "run trap: ok (exit 130, report rendered)"
