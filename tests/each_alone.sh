#!/usr/bin/env bash
# Every registered experiment alone in a fresh process, as the first thing that
# process does with the device (the first GPU run failed cases that only passed
# when an earlier experiment had initialised CUDA). Each run must exit 0 with a
# schema-valid file and no failed case or verification.
#   each_alone.sh OPTBENCH SRC DEVICE [BUDGET_S]   (default $OPTBENCH_ALONE_BUDGET, else 8)
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1; SRC=$2; DEVICE=$3; BUDGET=${4:-${OPTBENCH_ALONE_BUDGET:-8}}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ "$DEVICE" = cuda ] && ! "$OPTBENCH" env --device auto | "$PY" -c 'import json,sys; sys.exit(json.load(sys.stdin)["device"] != "cuda")' 2>/dev/null; then
  echo "SKIP: no CUDA device is visible"; exit 77
fi
names=$("$OPTBENCH" list --json | "$PY" -c 'import json,sys; print(" ".join(e["name"] for e in json.load(sys.stdin)))')
[ -n "$names" ] || { echo "FAIL: no experiments listed"; exit 1; }
failed=()
for name in $names; do
  out="$tmp/$name.json"
  start=$(date +%s)
  "$OPTBENCH" run --quick --no-progress --device "$DEVICE" --time-budget "$BUDGET" --out "$out" "$name" \
    >"$tmp/$name.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ] || ! PYTHONPATH="$SRC" "$PY" -m report validate "$out" >/dev/null 2>&1 ||
     ! "$PY" - "$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
for e in d["experiments"]:
    if e["status"] == "failed":
        bad.append(f"{e['name']}: {e.get('reason')}")
    for c in e["cases"]:
        if c["status"] == "failed":
            bad.append(f"{e['name']}/{c['name']}: {c.get('reason')}")
        for v in c.get("variants", []):
            if v["status"] in ("error", "oom"):
                bad.append(f"{e['name']}/{c['name']}/{v['name']}: {v.get('error')}")
        for cmp in c.get("comparisons", []):
            if cmp["verification"]["status"] == "failed":
                bad.append(f"{e['name']}/{c['name']}/{cmp['variant']}: verification {cmp['verification']}")
assert d["status"] == "complete", d["status"]
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
  then
    echo "FAIL: $name alone (exit $rc)"; tail -n 20 "$tmp/$name.log"; failed+=("$name")
  else
    echo "ok: $name alone ($(( $(date +%s) - start )) s)"
  fi
done
[ ${#failed[@]} -eq 0 ] || { echo "FAILED: ${failed[*]}"; exit 1; }
