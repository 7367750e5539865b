#!/usr/bin/env bash
# The results file's folder under faults a shared runner brings:
#  1. leftovers of a killed run (temporary files, part files, a symbolic link
#     planted at a temporary name) are removed by the next run on that --out,
#     and the link's target is left alone;
#  2. a write that fails mid-run (a full disk, simulated with a file size limit,
#     `ulimit -f`: it needs no privileges, and write() fails the same way, with
#     EFBIG instead of ENOSPC) ends the run with exit 74 and one line, the file
#     keeps its last whole version, and no temporary or part file is left;
#     with crash isolation (the default) and --in-process.
#   results_files.sh OPTBENCH SRC
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1; SRC=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
validate() { PYTHONPATH="$SRC" "$PY" -m report validate "$1" >/dev/null || fail "$2: file not schema-valid"; }
litter() { ls -A "$1" | grep -E '\.(tmp|part)' ; }

# 1. Leftovers.
mkdir "$tmp/a"; f="$tmp/a/r.json"
echo precious > "$tmp/a/victim"
echo '{' > "$f.tmp-4242"; echo '{' > "$f.part-eval_no_grad"; echo '{' > "$f.part-eval_no_grad.tmp-99"
ln -s "$tmp/a/victim" "$f.tmp-31337"
out=$("$OPTBENCH" run eval_no_grad --quick --device cpu --no-progress --max-time 0.2 --out "$f" --overwrite 2>&1); rc=$?
[ $rc -eq 0 ] || fail "run beside leftovers: exit $rc: $out"
validate "$f" "run beside leftovers"
[ -z "$(litter "$tmp/a")" ] || fail "leftovers not removed: $(litter "$tmp/a")"
[ "$(cat "$tmp/a/victim")" = precious ] || fail "the planted link's target was written"

# 2. A write failure mid-run. The limit leaves room for the header and the
# experiment's start (measured from the file just written), not for a case.
sizes=$("$PY" - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
case = d["experiments"][0]["cases"][0]
d["experiments"] = []
print(len(json.dumps(d, indent=1)), len(json.dumps(case, indent=1)))
PY
) || fail "cannot read sizes"
read -r header case_size <<<"$sizes"
[ "$case_size" -gt 4000 ] || fail "a case is only $case_size bytes: the limit below cannot fall between header and case"
limit_kb=$(( (header + 2500) / 1024 + 1 ))
for mode in guarded --in-process; do
  d="$tmp/$mode"; mkdir "$d"
  extra=(); [ "$mode" = guarded ] || extra=("$mode")
  out=$( (ulimit -f "$limit_kb"; exec "$OPTBENCH" run eval_no_grad --quick --device cpu --no-progress \
          --max-time 0.2 "${extra[@]}" --out "$d/r.json") 2>&1); rc=$?
  [ $rc -eq 74 ] || fail "$mode: write failure: exit $rc, expected 74: $out"
  line=$(echo "$out" | grep "optbench: error: the results could not be written")
  [ -n "$line" ] || fail "$mode: no write-failure message: $out"
  echo "$line" | grep -q "keeps its last complete version" || fail "$mode: message: $line"
  validate "$d/r.json" "$mode: after the write failure"
  "$PY" - "$d/r.json" <<'PY' || fail "$mode: last version"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "running", d["status"]  # the run did not finish; this is its last whole version
PY
  [ -z "$(litter "$d")" ] || fail "$mode: litter after the write failure: $(litter "$d")"
done
echo "results files: ok"
