#!/usr/bin/env bash
# An experiment measured in more than one process (--processes): every
# comparison of the first process gets each further process's speedup beside
# its own, and every case what each further process recorded (each variant's
# median and page faults per step); a further process that dies costs only its
# own figures, each case it did not finish saying why, and the experiment's
# record stays the first process's.
#   process_repeats.sh OPTBENCH_PROBE SRC
set -u
PY=${OPTBENCH_PYTHON:-python3}
OPTBENCH=$1; SRC=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/log"; exit 1; }

OPTBENCH_CRASH_PROBE="later:$tmp/marker" "$OPTBENCH" run crash_probe isolation_probe --quick --processes 3 \
  --device cpu --max-time 0.3 --no-progress --out "$tmp/r.json" >"$tmp/log" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "exit $rc, expected 1 (a further process crashed)"
grep -q "crash_probe (process 2) crashed" "$tmp/log" || fail "no message naming the crashed process"
PYTHONPATH="$SRC" "$PY" -m report validate "$tmp/r.json" >/dev/null || fail "file not schema-valid"
"$PY" - "$tmp/r.json" <<'PY' || fail "record"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete" and d["config"]["measure"]["processes"] == 3
e = {x["name"]: x for x in d["experiments"]}
# A healthy experiment: two further processes, each with a ratio per comparison
# (its variants in worker processes; the one whose worker dies has none, in each).
ratios = 0
for c in e["isolation_probe"]["cases"]:
    assert [r["process"] for r in c["repeats"]] == [1, 2], c["repeats"]
    assert all(r["status"] == "ok" and set(r["variants"]) == {v["name"] for v in c["variants"]} for r in c["repeats"])
    for cm in c["comparisons"]:
        assert [r["process"] for r in cm["repeats"]] == [1, 2]
        if cm["speedup"] is None:
            assert all(r["speedup"] is None and r["reason"] for r in cm["repeats"]), cm["repeats"]
            continue
        assert all(isinstance(r["speedup"], float) and r["ci_low"] <= r["speedup"] <= r["ci_high"]
                   for r in cm["repeats"]), cm["repeats"]
        ratios += 1
assert ratios >= 2, ratios
# The one estimate: across the processes that gave a ratio, recorded with them.
for c in e["isolation_probe"]["cases"]:
    for cm in c["comparisons"]:
        if cm["speedup"] is None:
            assert "estimate" not in cm
            continue
        est, n = cm["estimate"], 1 + sum(r["speedup"] is not None for r in cm["repeats"])
        assert est["unit"] == "process" and est["n"] == n and est["df"] == n - 1, est
        assert est["ci_low"] <= est["speedup"] <= est["ci_high"], est
p = e["isolation_probe"]["processes"]
assert {k: p[k] for k in ("ran", "min", "max", "stopped")} == {"ran": 3, "min": 3, "max": 3, "stopped": "max_processes"}, p
assert p["first_s"] > 0 and p["further_s"] > 0, p
# The crash: process 2 finished "first" and died in "dies"; process 3 ran whole
# (the marker was left by the first process, so every later one dies in "dies").
cp = e["crash_probe"]
assert cp["status"] == "ok" and "output_tail" not in cp, cp.get("status")
cases = {c["name"]: c for c in cp["cases"]}
assert cases["first"]["repeats"][0]["status"] == "ok"
for name in ("dies", "after"):
    r = cases[name]["repeats"][0]
    assert r["process"] == 1 and r["status"] == "crashed" and "SIGSEGV" in r["reason"], r
    assert cases[name]["comparisons"][0]["repeats"][0]["speedup"] is None
print("ok")
PY
# More processes only while imprecise: at least 2, at most 8; stopped on precision
# only once every between-process interval is within the target.
"$OPTBENCH" run isolation_probe --quick --processes 8 --min-processes 2 --device cpu --max-time 0.3 \
  --no-progress --out "$tmp/p.json" >"$tmp/log" 2>&1
rc=$?  # 1: the probe's variant whose worker dies is an error (exit 1 by design)
[ $rc -eq 1 ] || fail "adaptive processes: exit $rc, expected 1"
"$PY" - "$tmp/p.json" <<'PY' || fail "adaptive processes record"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["experiments"][0]
p = e["processes"]
assert p["min"] == 2 and p["max"] == 8 and 2 <= p["ran"] <= 8, p
widths = [(cm["estimate"]["ci_high"] - cm["estimate"]["ci_low"]) / cm["estimate"]["speedup"]
          for c in e["cases"] for cm in c["comparisons"] if cm.get("estimate", {}).get("unit") == "process"]
assert widths, "no comparison measured across processes"
if p["stopped"] == "precision":
    assert max(widths) <= p["target_rel_ci"], (widths, p)
else:
    assert p["stopped"] == "max_processes" and p["ran"] == 8 and max(widths) > p["target_rel_ci"], (widths, p)
print("ok")
PY
# The report's export carries the one estimate: its interval between the 3 processes.
PYTHONPATH="$SRC" "$PY" -m report render "$tmp/r.json" --out "$tmp/rep" >/dev/null || fail "render"
"$PY" - "$tmp/rep/results.csv" <<'PY' || fail "no between-process interval in the report's CSV"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["experiment"] == "isolation_probe" and r["speedup"] and r["role"] != "baseline"]
assert rows and all(r["ci_unit"] == "process" and r["ci_n"] == "3" and r["ci_df"] == "2" for r in rows), rows
PY
echo "process repeats: ok"
