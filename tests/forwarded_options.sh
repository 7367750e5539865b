#!/usr/bin/env bash
# Options of a suite run reach each experiment's process: the suite runs every
# experiment in a child `optbench run`, which rebuilds its settings from the
# arguments it is given. --cold-processes 3 on the probe (a case that derives
# from its cold first step) must give each variant three cold first steps.
#   forwarded_options.sh OPTBENCH_PROBE
set -u
PY=${OPTBENCH_PYTHON:-python3}
OPTBENCH=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$OPTBENCH" run isolation_probe --quick --device cpu --no-progress --max-time 0.3 --cold-processes 3 \
  --out "$tmp/r.json" >"$tmp/log" 2>&1 || { echo "FAIL: run exited $?"; cat "$tmp/log"; exit 1; }
"$PY" - "$tmp/r.json" <<'PY' || { echo "FAIL: record"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["config"]["measure"]["cold_processes"] == 3, d["config"]["measure"]
probe = next(c for c in d["experiments"][0]["cases"] if c["name"] == "probe")
for v in probe["variants"]:
    assert len(v.get("cold_first_runs_s", [])) == 3, (v["name"], v.get("cold_first_runs_s"))
PY
echo "forwarded_options: ok"
