#!/usr/bin/env bash
# CLI errors: clear one-line messages, the right exit codes, nothing written.
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$OPTBENCH" --help | grep -q "list" || fail "--help does not list subcommands"
"$OPTBENCH" run --help | grep -q -- "--filter" || fail "run --help lacks --filter"

out=$("$OPTBENCH" run no_such_experiment --out "$tmp/x.json" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "unknown name: exit $rc, expected 2"
echo "$out" | grep -q "unknown experiment 'no_such_experiment'" || fail "unknown name message: $out"
echo "$out" | grep -q "eval_no_grad" || fail "unknown name does not list valid names: $out"
[ ! -e "$tmp/x.json" ] || fail "a results file was written for a bad name"

out=$("$OPTBENCH" run --filter 'zzz_nothing' --device cpu --out "$tmp/y.json" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "empty filter: exit $rc"
echo "$out" | grep -q "no experiment matches" || fail "empty filter message: $out"

out=$("$OPTBENCH" run --filter '(' --device cpu --out "$tmp/y.json" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "bad regex: exit $rc"
echo "$out" | grep -q "invalid --filter regex" || fail "bad regex message: $out"

"$OPTBENCH" run --help | grep -q -- "--breakdown" || fail "run --help lacks --breakdown"
out=$("$OPTBENCH" run eval_no_grad --device cpu --breakdown off --trace-dir "$tmp/tr" --out "$tmp/b.json" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "--trace-dir with --breakdown off: exit $rc"
echo "$out" | grep -q "trace-dir" || fail "--trace-dir with --breakdown off message: $out"
[ ! -e "$tmp/b.json" ] || fail "a results file was written for contradictory options"
out=$("$OPTBENCH" run eval_no_grad --device cpu --breakdown sometimes --out "$tmp/b.json" 2>&1); rc=$?
[ $rc -ne 0 ] || fail "--breakdown sometimes accepted"

out=$("$OPTBENCH" run --device tpu 2>&1); rc=$?
[ $rc -ne 0 ] || fail "--device tpu accepted"

if ! "$OPTBENCH" env --device auto | grep -q '"cuda": null'; then :; fi
if ! "$OPTBENCH" env --device cpu >/dev/null; then fail "env failed"; fi
out=$("$OPTBENCH" run --device cuda --out "$tmp/z.json" 2>&1); rc=$?
if ! "$OPTBENCH" env | grep -q '"device": "cuda"'; then
  [ $rc -eq 2 ] || fail "--device cuda without a GPU: exit $rc"
  echo "$out" | grep -qiE "cuda|gpu" || fail "--device cuda message: $out"
  [ ! -e "$tmp/z.json" ] || fail "results written although no GPU"
fi

echo '{}' > "$tmp/exists.json"
out=$("$OPTBENCH" run eval_no_grad --device cpu --out "$tmp/exists.json" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "existing --out: exit $rc"
[ "$(cat "$tmp/exists.json")" = "{}" ] || fail "existing --out was modified"

"$OPTBENCH" run --quick --full 2>/dev/null && fail "--quick --full accepted"
"$OPTBENCH" list | grep -q eval_no_grad || fail "list lacks eval_no_grad"
"$OPTBENCH" list --json | "$PY" -c 'import json,sys; d=json.load(sys.stdin); assert d and all("claims" in e for e in d)' \
  || fail "list --json"
echo "cli errors: ok"
