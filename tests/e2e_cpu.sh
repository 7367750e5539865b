#!/usr/bin/env bash
# End to end on the CPU: a quick run produces a schema-valid file with a
# verified comparison, and the report package reads it.
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1; SRC=$2; FILTER=${3:-^eval_no_grad$}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$OPTBENCH" run --quick --device cpu --filter "$FILTER" --out "$tmp/r.json" || fail "run exited $?"
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
        assert cmp["speedup"] > 0 and cmp["ci_low"] <= cmp["speedup"] <= cmp["ci_high"], cmp
        assert cmp["verification"]["status"] != "failed", cmp
print("e2e ok:", len(ran), "cases")
PY
