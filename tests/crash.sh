#!/usr/bin/env bash
# Crash isolation: an experiment whose process dies by SIGSEGV mid-run is
# recorded as crashed, with the signal and the last lines it printed, the case
# it finished before is kept, the experiment after it still runs, and the file
# ends complete (exit 1: a crash is a failure).
#   crash.sh OPTBENCH_PROBE SRC
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1; SRC=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/log"; exit 1; }

"$OPTBENCH" run --quick --device cpu --no-progress --max-time 0.5 --out "$tmp/r.json" >"$tmp/log" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "exit $rc, expected 1"
grep -q 'crash_probe crashed' "$tmp/log" || fail "no crash message on stderr"
PYTHONPATH="$SRC" "$PY" -m report validate "$tmp/r.json" || fail "file not schema-valid"
"$PY" - "$tmp/r.json" <<'PY' || fail "record"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
e = {x["name"]: x for x in d["experiments"]}
c = e["crash_probe"]
assert c["status"] == "crashed", c
assert "SIGSEGV" in c["signal"] and "SIGSEGV" in c["reason"], c
assert any("the last line before the crash" in l for l in c["output_tail"]), c["output_tail"]
assert [x["name"] for x in c["cases"]] == ["first"], [x["name"] for x in c["cases"]]
assert c["cases"][0]["status"] == "ok", c["cases"][0]
p = e["isolation_probe"]
assert p["status"] == "ok" and [x["name"] for x in p["cases"]] == ["probe", "crash"], p
assert not any(k.startswith("r.json.part") for k in __import__("os").listdir(__import__("os").path.dirname(sys.argv[1])))
PY
echo "crash: ok"
