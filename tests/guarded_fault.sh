#!/usr/bin/env bash
# An experiment whose guarded process fails mid-run, as MODE says:
#   crash  it dies by SIGSEGV: recorded as crashed, with the signal;
#   hang   it stops making progress (no output, no finished case) without dying:
#          the suite kills it after --hang-timeout and records it as hung.
# Either way it keeps the last lines it printed and the case it finished, the
# experiment after it still runs, no temporary or part file is left (nor the
# scratch folder whose file the dying step left: the suite removes it), and the
# file ends complete (exit 1: a crash or a hang is a failure).
#   guarded_fault.sh OPTBENCH_PROBE SRC crash|hang
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1; SRC=$2; MODE=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/log"; exit 1; }

case $MODE in
  # 15 s: short for the test, long enough that a loaded machine's healthy
  # experiment (progress lines on, as by default) is never taken for a hung one.
  hang) probe=(env OPTBENCH_CRASH_PROBE=hang); args=(--hang-timeout 15); said='crash_probe hung' ;;
  crash) probe=(); args=(--no-progress); said='crash_probe crashed' ;;
  *) echo "usage: guarded_fault.sh OPTBENCH_PROBE SRC crash|hang"; exit 2 ;;
esac
t0=$(date +%s)
mkdir "$tmp/tmpdir"
TMPDIR="$tmp/tmpdir" "${probe[@]}" "$OPTBENCH" run --quick --device cpu --max-time 0.5 "${args[@]}" --out "$tmp/r.json" >"$tmp/log" 2>&1
rc=$?
took=$(( $(date +%s) - t0 ))
[ $rc -eq 1 ] || fail "exit $rc, expected 1"
# The hang's promise is the deadline, not a speed: 15 s of silence, plus generous
# room for loading LibTorch in each experiment's process (ctest runs it alone).
[ "$MODE" != hang ] || [ $took -lt 150 ] || fail "took $took s with a 15 s --hang-timeout"
grep -q "$said" "$tmp/log" || fail "no '$said' message on stderr"
PYTHONPATH="$SRC" "$PY" -m report validate "$tmp/r.json" || fail "file not schema-valid"
"$PY" - "$tmp/r.json" "$MODE" <<'PY' || fail "record"
import json, os, sys
path, mode = sys.argv[1], sys.argv[2]
d = json.load(open(path))
assert d["status"] == "complete", d["status"]
e = {x["name"]: x for x in d["experiments"]}
c = e["crash_probe"]
if mode == "crash":
    assert c["status"] == "crashed", c
    assert "SIGSEGV" in c["signal"] and "SIGSEGV" in c["reason"], c
else:
    assert c["status"] == "hung", c
    assert "--hang-timeout" in c["reason"], c["reason"]
assert any("the last line before the crash" in l for l in c["output_tail"]), c["output_tail"]
assert [x["name"] for x in c["cases"]] == ["first"], [x["name"] for x in c["cases"]]
if mode == "crash":
    assert c["cases"][0]["status"] == "ok", c["cases"][0]
p = e["isolation_probe"]
assert p["status"] == "ok", p
if mode == "crash":
    assert [x["name"] for x in p["cases"]] == ["probe", "crash"], p
left = [n for n in os.listdir(os.path.dirname(path)) if ".part" in n or ".tmp" in n]
assert not left, left
left = os.listdir(os.path.join(os.path.dirname(path), "tmpdir"))
assert not left, ("scratch left behind", left)
PY
echo "$MODE: ok"
