#!/usr/bin/env bash
# An experiment measured in more than one process (--processes): further
# processes repeat only the comparisons a claim's verdict reads (the probes
# have no claims, so their runs here repeat every one: --repeat-all), and what each
# further process recorded for a case (each comparison's speedup, each variant's
# median and page faults per step) is a record of its own beside the first
# process's cases, which are never changed; a further process that dies costs
# only its own figures, each case it did not finish saying why, and the
# experiment's record stays the first process's.
#   process_repeats.sh OPTBENCH_PROBE SRC OPTBENCH
set -u
PY=${OPTBENCH_PYTHON:-python3}
OPTBENCH=$1; SRC=$2; REAL=$3  # the probes, and the real experiments (their claims)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/log"; exit 1; }

OPTBENCH_CRASH_PROBE="later:$tmp/marker" "$OPTBENCH" run crash_probe isolation_probe --quick --processes 3 \
  --repeat-all --device cpu --max-time 0.3 --no-progress --out "$tmp/r.json" >"$tmp/log" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "exit $rc, expected 1 (a further process crashed)"
grep -q "crash_probe (process 2) crashed" "$tmp/log" || fail "no message naming the crashed process"
PYTHONPATH="$SRC" "$PY" -m report validate "$tmp/r.json" >/dev/null || fail "file not schema-valid"
"$PY" - "$tmp/r.json" <<'PY' || fail "record"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete" and d["config"]["measure"]["processes"] == 3
assert d["config"]["measure"]["repeat_all"] is True and all("claimed" not in x for x in d["experiments"])
e = {x["name"]: x for x in d["experiments"]}
# The first process's cases are as it wrote them: nothing is added to them later.
for x in e.values():
    for c in x["cases"]:
        assert "repeats" not in c and all("repeats" not in cm and "estimate" not in cm for cm in c.get("comparisons", [])), c["name"]
def records(x, case):
    return [r for r in x.get("repeats", []) if r["case"] == case]
def entry(r, cm):
    found = [m for m in r["comparisons"] if (m["baseline"], m["variant"]) == (cm["baseline"], cm["variant"])]
    assert len(found) == 1, (r, cm)
    return found[0]
# A healthy experiment: two further processes, each with a ratio per comparison
# (its variants in worker processes; the one whose worker dies has none, in each).
ratios = 0
ip = e["isolation_probe"]
for c in ip["cases"]:
    rs = records(ip, c["name"])
    assert [r["process"] for r in rs] == [1, 2], rs
    assert all(r["status"] == "ok" and set(r["variants"]) == {v["name"] for v in c["variants"]} for r in rs)
    for cm in c["comparisons"]:
        further = [entry(r, cm) for r in rs]
        if cm["speedup"] is None:
            assert all(f["speedup"] is None and f["reason"] for f in further), further
            continue
        assert all(isinstance(f["speedup"], float) and f["ci_low"] <= f["speedup"] <= f["ci_high"]
                   for f in further), further
        ratios += 1
assert ratios >= 2, ratios
# The one estimate: across the processes that gave a ratio, recorded once beside them.
estimates = {(x["case"], x["baseline"], x["variant"]): x for x in ip["estimates"]}
for c in ip["cases"]:
    for cm in c["comparisons"]:
        key = (c["name"], cm["baseline"], cm["variant"])
        if cm["speedup"] is None:
            assert key not in estimates
            continue
        est, n = estimates[key], 1 + sum(entry(r, cm)["speedup"] is not None for r in records(ip, c["name"]))
        assert est["unit"] == "process" and est["n"] == n and est["df"] == n - 1, est
        assert est["ci_low"] <= est["speedup"] <= est["ci_high"], est
p = ip["processes"]
assert {k: p[k] for k in ("ran", "min", "max", "stopped")} == {"ran": 3, "min": 3, "max": 3, "stopped": "max_processes"}, p
assert p["first_s"] > 0 and p["further_s"] > 0, p
assert ip["wall_s"] >= p["first_s"] + p["further_s"] - 1e-6, (ip["wall_s"], p)
# The crash: process 2 finished "first" and died in "dies"; process 3 ran whole
# (the marker was left by the first process, so every later one dies in "dies").
cp = e["crash_probe"]
assert cp["status"] == "ok" and "output_tail" not in cp, cp.get("status")
assert records(cp, "first")[0]["status"] == "ok"
for name in ("dies", "after"):
    r = records(cp, name)[0]
    assert r["process"] == 1 and r["status"] == "crashed" and "SIGSEGV" in r["reason"], r
    assert all(m["speedup"] is None for m in r["comparisons"]), r
print("ok")
PY
# More processes only while imprecise: at least 2, at most 8; stopped on precision
# only once every between-process interval is within the target.
"$OPTBENCH" run isolation_probe --quick --processes 8 --min-processes 2 --repeat-all --device cpu --max-time 0.3 \
  --no-progress --out "$tmp/p.json" >"$tmp/log" 2>&1
rc=$?  # 1: the probe's variant whose worker dies is an error (exit 1 by design)
[ $rc -eq 1 ] || fail "adaptive processes: exit $rc, expected 1"
"$PY" - "$tmp/p.json" <<'PY' || fail "adaptive processes record"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["experiments"][0]
p = e["processes"]
assert p["min"] == 2 and p["max"] == 8 and 2 <= p["ran"] <= 8, p
widths = [(x["ci_high"] - x["ci_low"]) / x["speedup"] for x in e["estimates"] if x["unit"] == "process"]
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
# Without --repeat-all: further processes repeat the cases and variants the
# claims' verdicts read (python -m report claimed), nothing else; every other
# comparison is measured in the first process and its estimate says so.
"$REAL" run dataloader --quick --processes 3 --device cpu --max-time 0.3 --no-progress \
  --out "$tmp/c.json" >"$tmp/log" 2>&1 || fail "claimed repeats: exit $?"
PYTHONPATH="$SRC" "$PY" -m report claimed "$tmp/c.json" >"$tmp/claimed.json" || fail "report claimed"
"$PY" - "$tmp/c.json" "$tmp/claimed.json" <<'PY' || fail "claimed repeats record"
import json, sys
d = json.load(open(sys.argv[1]))
asked = json.load(open(sys.argv[2]))
e = d["experiments"][0]
claimed = e["claimed"]
# What the run repeated is what the report's claims read in the finished file.
assert claimed and claimed == asked.get("dataloader"), (claimed, asked)
cases = {c["name"]: c for c in e["cases"]}
for r in e["repeats"]:
    assert r["case"] in claimed, r["case"]
    baseline = cases[r["case"]]["variants"][0]["name"]
    assert set(r["variants"]) == set(claimed[r["case"]]) | {baseline}, (r["case"], r["variants"])
assert {r["case"] for r in e["repeats"]} == set(claimed)
left = [c for c in cases.values() if c["name"] not in claimed and c.get("comparisons")]
some_variant_left = any(len(cases[n]["variants"]) > len(set(v) | {cases[n]["variants"][0]["name"]})
                        for n, v in claimed.items())
assert left or some_variant_left, "the test needs something the claims do not read"
for x in e["estimates"]:
    read = x["case"] in claimed and {x["baseline"], x["variant"]} <= set(claimed[x["case"]]) | {cases[x["case"]]["variants"][0]["name"]}
    assert x["unit"] == ("process" if read else "round"), x
    if read:
        assert x["n"] == 3, x
print("ok")
PY
# Where the report cannot say which comparisons claims read (here no Python at all),
# every comparison is repeated, and the file says why.
OPTBENCH_PYTHON=/bin/false "$REAL" run zero_grad --quick --processes 2 --device cpu --max-time 0.2 --no-progress \
  --out "$tmp/u.json" >"$tmp/log" 2>&1 || fail "unknown claims: exit $?"
grep -q "every comparison repeated and profiled" "$tmp/log" || fail "no message that every comparison is repeated"
"$PY" - "$tmp/u.json" <<'PY' || fail "unknown claims record"
import json, sys
e = json.load(open(sys.argv[1]))["experiments"][0]
assert "claimed" not in e and "exited 1" in e["claimed_unknown"], e.get("claimed_unknown")
ran = {c["name"] for c in e["cases"] if c.get("comparisons")}
assert ran and {r["case"] for r in e["repeats"]} == ran, (ran, e["repeats"])
print("ok")
PY
echo "process repeats: ok"
