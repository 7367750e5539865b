#!/usr/bin/env bash
# End to end on the CPU: a quick run produces a schema-valid file with a
# verified comparison, and the report package reads it. Every comparison has at
# least the rounds floor (6) behind it and no "passed" rests on the first loss
# alone. The wall time is printed, not asserted: ctest runs this beside other
# tests on 2 cores, so it measures the load, not the product (the budget test,
# run serially, holds the one time the product promises). With BREAKDOWN=on every variant is also profiled after its timed
# rounds: each has a breakdown (a Python twin's or Python DataLoader's says why
# not: its work runs in another process), one Chrome trace per variant loads, and the
# report shows the why column and a stacked-bar plot. Every window comes from the
# experiment's profiling process, never from the process that timed it: a timed
# process refuses the profiler (harness/profiling/profiler_role.h), so a window
# taken there would show as skipped or failed here.
#   e2e_cpu.sh OPTBENCH SRC [FILTER] [BREAKDOWN]
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1; SRC=$2; FILTER=${3:-^eval_no_grad$}; BREAKDOWN=${4:-auto}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

t0=$(date +%s)
extra=()
[ "$BREAKDOWN" = on ] && extra=(--breakdown on --trace-dir "$tmp/traces")
"$OPTBENCH" run --quick --device cpu --filter "$FILTER" --out "$tmp/r.json" "${extra[@]}" || fail "run exited $?"
echo "the quick run took $(( $(date +%s) - t0 )) s (beside the other tests: not a measurement of the suite)"
PYTHONPATH="$SRC" "$PY" -m report validate "$tmp/r.json" || fail "schema"
"$PY" - "$tmp/r.json" <<'PY' || fail "content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
exps = d["experiments"]
assert exps and all(e["status"] in ("ok", "skipped") for e in exps), [e["status"] for e in exps]
ran = [c for e in exps for c in e["cases"] if c["status"] == "ok"]
assert ran, "no case ran"
for c in ran:
    assert c["stop_reason"] in ("precision", "max_time"), c["stop_reason"]
    for v in c["variants"]:
        assert v["status"] == "ok" and v["samples"]["host_s"], v["name"]
    for cmp in c["comparisons"]:
        assert cmp["rounds"] >= 6 and not cmp.get("below_floor"), ("below the rounds floor", c["name"], cmp)
        assert cmp["speedup"] > 0 and cmp["ci_low"] <= cmp["speedup"] <= cmp["ci_high"], cmp
        ver = cmp["verification"]
        assert ver["status"] != "failed", cmp
        judged = (ver.get("details") or {}).get("judged")
        assert judged is None or set(judged) - {"first_loss"}, ("passed on the first loss alone", c["name"], cmp)
print("e2e ok:", len(ran), "cases")
PY
[ "$BREAKDOWN" = on ] || exit 0
"$PY" - "$tmp/r.json" "$tmp/traces" <<'PY' || fail "breakdown"
import json, os, sys
d = json.load(open(sys.argv[1]))
variants = [v for e in d["experiments"] for c in e["cases"] if c["status"] == "ok" for v in c["variants"]]
traces = sorted(os.listdir(sys.argv[2]))
# Python twins and Python's DataLoader: their work runs in a Python process.
twins = [v for v in variants if (v.get("params") or {}).get("runtime") == "python"
         or (v.get("params") or {}).get("loader") == "python"]
for v in twins:
    assert v["breakdown"]["status"] == "skipped" and "Python process" in v["breakdown"]["reason"], v["breakdown"]
    assert v["breakdown"]["process"] == "profiling", v["breakdown"]
variants = [v for v in variants if v not in twins]
assert len(traces) == len(variants), (len(traces), len(variants))
for v in variants:
    b = v["breakdown"]
    assert b["status"] == "ok" and b["device"] == "cpu" and b["process"] == "profiling", b
    assert b["categories_s"] and b["window_step_s"] > 0, b
    assert b["launches_per_step"] is None and "memcpy_h2d" not in b["categories_s"], b  # nothing CUDA on a CPU run
    assert json.load(open(b["trace"]))["traceEvents"], b["trace"]
    # named for the run (its results file, r.json) first: another run's traces in the same folder never collide
    assert os.path.basename(b["trace"]).startswith("r."), b["trace"]
# The timed process ran with the profiler off; the profiling process's time is its own.
assert d["config"]["measure"]["breakdown"]["mode"] == "on"
assert all(c["time_s"].get("profiling", 0) < 1e-3 for e in d["experiments"] for c in e["cases"] if c["status"] == "ok")
assert all(e["processes"]["profiling_s"] > 0 for e in d["experiments"] if e["status"] == "ok"), "no profiling process"
print("breakdown ok:", len(variants), "variants,", len(traces), "traces")
PY
PYTHONPATH="$SRC" "$PY" -m report render "$tmp/r.json" --out "$tmp/report" --plots all >/dev/null || fail "render"
grep -q "| why |" "$tmp/report/report_details.md" || fail "no why column in the report's details"
ls "$tmp/report/plots/"*_breakdown.png >/dev/null 2>&1 || fail "no stacked-bar plot"
echo "report ok: why column and breakdown plots"
