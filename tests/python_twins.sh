#!/usr/bin/env bash
# The Python twins on the CPU (workloads/python/): the torchscript experiment
# under --quick runs its batch-1 twin through the build's Python beside the C++
# cases; every variant ran, every verification passed, the twin's variants say
# what they are (runtime python, jit eager/script/trace/frozen) and the C++
# ones runtime cpp, and each twin variant recorded its Python's torch and its
# pipe's round trip. The file is schema-valid.
#   python_twins.sh OPTBENCH SRC
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1; SRC=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out="$tmp/torchscript.json"
if ! "$OPTBENCH" run --quick --no-progress --device cpu --out "$out" torchscript >"$tmp/run.log" 2>&1; then
  echo "FAIL: optbench run torchscript"; tail -n 20 "$tmp/run.log"; exit 1
fi
PYTHONPATH="$SRC" "$PY" -m report validate "$out" >/dev/null || { echo "FAIL: not schema-valid"; exit 1; }
"$PY" - "$out" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
(e,) = [e for e in d["experiments"] if e["name"] == "torchscript"]
assert e["status"] == "ok", e
cases = {c["name"]: c for c in e["cases"]}
twins = [c for n, c in cases.items() if n.startswith("python_")]
assert [c["name"] for c in twins] == ["python_convnet_b1_32px"], list(cases)  # --quick: the batch-1 twin only
for c in e["cases"]:
    assert c["status"] == "ok", (c["name"], c.get("reason"))
    runtime = "python" if c in twins else "cpp"
    jits = [v["params"].get("jit") for v in c["variants"]]
    assert jits == ["eager", "script", "trace", "frozen"] if runtime == "python" else ["eager", "script", "frozen"], jits
    for v in c["variants"]:
        assert v["status"] == "ok", (c["name"], v["name"], v.get("error"))
        assert v["params"]["runtime"] == runtime, (c["name"], v["name"], v["params"])
        if runtime == "python":
            m = v["metrics"]
            assert m["python_torch"] and m["pipe_round_trip_us"] > 0 and m["inner_steps"] >= 1, m
    for cm in c["comparisons"]:
        assert cm["verification"]["status"] == "passed", (c["name"], cm["variant"], cm["verification"])
        assert cm["speedup"] and cm["speedup"] > 0, (c["name"], cm)
twin = twins[0]
assert twin["timing_mode"] == "sync" and twin["units"]["items"] == twin["params"]["batch"] * twin["params"]["forwards_per_step"]
print("ok: twin", {cm["variant"]: round(cm["speedup"], 3) for cm in twin["comparisons"]},
      "C++", {c["name"]: {cm["variant"]: round(cm["speedup"], 3) for cm in c["comparisons"]}
              for c in e["cases"] if c is not twin})
PY
