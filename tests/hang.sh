#!/usr/bin/env bash
# A hung experiment: its process stops making progress (no output, no finished
# case) without dying. The suite kills it after --hang-timeout, records it as
# "hung" with its last lines and the case it finished, goes on with the next
# experiment, and ends the file complete (exit 1: a hang is a failure).
#   hang.sh OPTBENCH_PROBE SRC
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1; SRC=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/log"; exit 1; }

t0=$(date +%s)
# 15 s: short for the test, long enough that a loaded machine's healthy
# experiment (progress lines on, as by default) is never taken for a hung one.
OPTBENCH_CRASH_PROBE=hang "$OPTBENCH" run --quick --device cpu --max-time 0.5 --hang-timeout 15 \
  --out "$tmp/r.json" >"$tmp/log" 2>&1
rc=$?
took=$(( $(date +%s) - t0 ))
[ $rc -eq 1 ] || fail "exit $rc, expected 1"
# The promise is the deadline, not a speed: 15 s of silence, plus generous room
# for loading LibTorch in each experiment's process on a loaded machine.
[ $took -lt 150 ] || fail "took $took s with a 15 s --hang-timeout"
grep -q 'crash_probe hung' "$tmp/log" || fail "no hang message on stderr"
PYTHONPATH="$SRC" "$PY" -m report validate "$tmp/r.json" || fail "file not schema-valid"
"$PY" - "$tmp/r.json" <<'PY' || fail "record"
import json, os, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
e = {x["name"]: x for x in d["experiments"]}
c = e["crash_probe"]
assert c["status"] == "hung", c
assert "--hang-timeout" in c["reason"], c["reason"]
assert any("the last line before the crash" in l for l in c["output_tail"]), c["output_tail"]
assert [x["name"] for x in c["cases"]] == ["first"], [x["name"] for x in c["cases"]]
assert e["isolation_probe"]["status"] == "ok", e["isolation_probe"]
left = [n for n in os.listdir(os.path.dirname(sys.argv[1])) if ".part" in n or ".tmp" in n]
assert not left, left
PY
echo "hang: ok"
