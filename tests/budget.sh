#!/usr/bin/env bash
# --time-budget covers the whole run from process start: the whole suite with a
# 40 s budget ends within 40 s plus its longest sample (and a second for process
# exit), with a complete, valid file; what the budget left out is "not_run".
#   budget.sh OPTBENCH SRC [BUDGET_S]
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1; SRC=$2; BUDGET=${3:-40}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
start=$(date +%s.%N)
"$OPTBENCH" run --no-progress --device cpu --time-budget "$BUDGET" --out "$tmp/r.json" >"$tmp/log" 2>&1
rc=$?
end=$(date +%s.%N)
[ $rc -le 1 ] || { echo "FAIL: run exited $rc"; tail -n 20 "$tmp/log"; exit 1; }
PYTHONPATH="$SRC" "$PY" -m report validate "$tmp/r.json" || { echo "FAIL: schema"; exit 1; }
"$PY" - "$tmp/r.json" "$start" "$end" "$BUDGET" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
budget = float(sys.argv[4])
assert d["status"] == "complete", d["status"]
longest = 0.0
not_run = 0
for e in d["experiments"]:
    not_run += e["status"] == "not_run"
    for c in e["cases"]:
        not_run += c["status"] == "not_run"
        for v in c.get("variants", []):
            for t in v["samples"]["host_s"]:
                longest = max(longest, t * v["iters_per_sample"])
limit = budget + longest + 1.0
print(f"wall {wall:.1f} s, budget {budget} s, longest sample {longest:.2f} s, limit {limit:.1f} s, {not_run} not run")
assert wall <= limit, f"run took {wall:.1f} s, over {limit:.1f} s"
PY
