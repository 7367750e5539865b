#!/usr/bin/env bash
# A Python twin that writes to its stderr mid-run (a library's warning) neither
# hangs the run nor loses its figures (issue 37: a warning line was taken for a
# reply, and both sides waited until --hang-timeout). A sitecustomize.py on the
# twin's PYTHONPATH writes a warning at start and another just before its third
# step's reply.
#   twin_stderr.sh OPTBENCH SRC
set -u
PY=${OPTBENCH_PYTHON:-python3}
OPTBENCH=$1; SRC=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; tail -20 "$tmp/log"; exit 1; }
mkdir -p "$tmp/site"
cat >"$tmp/site/sitecustomize.py" <<'PYEOF'
import sys
sys.stderr.write("UserWarning: planted at start\n")
sys.stderr.flush()


class _WarnOnThirdStep:
    """The twin's stdout, writing a warning to stderr just before its third "ok"."""

    def __init__(self, f):
        self._f, self._oks = f, 0

    def write(self, text):
        if text == "ok\n":
            self._oks += 1
            if self._oks == 3:
                sys.stderr.write("UserWarning: planted mid-run\n")
                sys.stderr.flush()
        return self._f.write(text)

    def __getattr__(self, name):
        return getattr(self._f, name)


sys.stdout = _WarnOnThirdStep(sys.stdout)
PYEOF
PYTHONPATH="$tmp/site" timeout 300 "$OPTBENCH" run torchscript --quick --device cpu --max-time 1.5 --no-progress \
  --hang-timeout 120 --out "$tmp/r.json" >"$tmp/log" 2>&1
rc=$?
[ $rc -ne 124 ] || fail "the run hung"
[ $rc -eq 0 ] || fail "exit $rc"
grep -q "planted mid-run" "$tmp/log" || fail "the twin's stderr is not in the run's output"
"$PY" - "$tmp/r.json" <<'PYEOF' || fail "record"
import json, sys
d = json.load(open(sys.argv[1]))
twins = [v for e in d["experiments"] for c in e["cases"] for v in c.get("variants", [])
         if (v.get("params") or {}).get("runtime") == "python"]
assert twins and all(v["status"] == "ok" for v in twins), [(v["name"], v["status"], v.get("error")) for v in twins]
print("ok:", len(twins), "twin variants")
PYEOF
echo "twin stderr: ok"
