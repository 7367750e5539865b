#!/usr/bin/env bash
# `optbench plan` over the committed runs: the standard profile on one H100, with
# at least 3 processes for what a claim reads, fits 15 minutes (issue 51's
# bound, from files whose lack of a time_s split makes their figures bounds);
# every experiment the binary would run on a GPU is planned from some file;
# a malformed or foreign file is named and skipped, never fatal; none readable: exit 2.
#   plan.sh OPTBENCH SRC
set -u
PY=${OPTBENCH_PYTHON:-python3}
OPTBENCH=$1; SRC=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/log" 2>/dev/null; exit 1; }
files=("$SRC"/report/tests/fixtures/h100*.json.gz "$SRC"/report/tests/fixtures/h100_2026-11-24/*.json.gz
  "$SRC"/results/2026-12-02_cpu_intel-xeon-2core_libtorch-2.11_standard.json)

"$OPTBENCH" plan --device cuda --profile standard --json "${files[@]}" >"$tmp/std.json" 2>"$tmp/log" ||
  fail "plan --profile standard exited $?"
"$PY" - "$tmp/std.json" <<'PYEOF' || fail "standard plan"
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["unplanned"], d["unplanned"]
t = d["total"]
assert 0 < t["least_s"] <= 900, t
assert t["least_s"] <= t["most_s"], t
claimed = [e for e in d["experiments"] if e["processes"]["max"] > 1]
assert claimed and all(e["processes"]["min"] >= 3 for e in claimed), claimed
cudnn = next(e for e in d["experiments"] if e["name"] == "cudnn_benchmark")
assert any("new_shape_every_step" in n and "left out" in n for n in cudnn["notes"]), cudnn["notes"]
loader = next(e for e in d["experiments"] if e["name"] == "dataloader")
assert any("resized since" in n for n in loader["notes"]), loader["notes"]
print(f"standard: at least {t['least_s']:.0f} s, at most {t['most_s']:.0f} s, once {t['once_s']:.0f} s")
PYEOF

"$OPTBENCH" plan --device cuda --profile quick "${files[@]}" >"$tmp/quick.txt" 2>"$tmp/log" || fail "quick exited $?"
grep -q '^total: at least' "$tmp/quick.txt" || fail "quick plan has no total"
head -c 100 "$SRC/README.md" >"$tmp/foreign.json"
printf '{"experiments": [' >"$tmp/truncated.json"
"$OPTBENCH" plan --device cuda "$tmp/foreign.json" "$tmp/truncated.json" "${files[0]}" >"$tmp/out" 2>"$tmp/log" ||
  fail "a bad file beside a good one is fatal"
grep -q "skipping $tmp/foreign.json" "$tmp/log" && grep -q "skipping $tmp/truncated.json" "$tmp/log" ||
  fail "bad files not named"
"$OPTBENCH" plan --device cuda "$tmp/foreign.json" >"$tmp/out" 2>"$tmp/log"
[ $? -eq 2 ] || fail "no readable file: expected exit 2"
echo "plan: ok"
