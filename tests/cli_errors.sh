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
echo "$out" | grep -q "optbench list" || fail "unknown name does not say where the names are: $out"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "unknown name: not one line: $out"
[ ! -e "$tmp/x.json" ] || fail "a results file was written for a bad name"

out=$("$OPTBENCH" run --filter 'zzz_nothing' --device cpu --out "$tmp/y.json" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "empty filter: exit $rc"
echo "$out" | grep -q "no experiment matches" || fail "empty filter message: $out"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "empty filter: not one line: $out"

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

# Every usage error: exit 2 (not CLI11's own 105-109) and one line, nothing written.
usage_error() {  # usage_error WORDS ARGS...: exit 2, one line containing WORDS
  local words=$1; shift
  out=$("$OPTBENCH" "$@" 2>&1); rc=$?
  [ $rc -eq 2 ] || fail "'$*': exit $rc, expected 2: $out"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "'$*': not one line: $out"
  echo "$out" | grep -q -- "$words" || fail "'$*': message lacks '$words': $out"
  [ ${#out} -lt 300 ] || fail "'$*': a ${#out}-character message: $out"
}
usage_error "tpu" run --device tpu --out "$tmp/u.json"
usage_error "excludes" run --quick --full --out "$tmp/u.json"
usage_error "--bogus" run --bogus --out "$tmp/u.json"
usage_error "time-budget" run --time-budget -5 --out "$tmp/u.json"
# NaN and infinities refused for every numeric option (NaN passed every
# "> 0" check and then meant "no budget").
for opt in --time-budget --max-time --target-ci --hang-timeout; do
  for v in nan inf -inf 1e999 0 abc; do
    usage_error "$opt" run eval_no_grad --device cpu "$opt" "$v" --out "$tmp/u.json"
  done
done
for opt in --min-samples --cold-processes; do
  for v in nan 0 -3 1.5 inf; do
    usage_error "$opt" run eval_no_grad --device cpu "$opt" "$v" --out "$tmp/u.json"
  done
done
usage_error "did you mean 'eval_no_grad'" run eval_nograd --device cpu --out "$tmp/u.json"
usage_error "seed" run eval_no_grad --device cpu --seed nan --out "$tmp/u.json"
usage_error "seed" run eval_no_grad --device cpu --seed -1 --out "$tmp/u.json"
usage_error "seed" run eval_no_grad --device cpu --seed 18446744073709551616 --out "$tmp/u.json"
# A refused run creates nothing, --trace-dir's folder included (issue 40).
touch "$tmp/exists.json"
usage_error "exists" run eval_no_grad --device cpu --trace-dir "$tmp/traces" --out "$tmp/exists.json"
[ ! -e "$tmp/traces" ] || fail "--trace-dir was created for a refused run"
usage_error "unknown experiment" run no_such_experiment --device cpu --trace-dir "$tmp/traces" --out "$tmp/u.json"
[ ! -e "$tmp/traces" ] || fail "--trace-dir was created for an unknown experiment"
# The largest the help's UINT allows gets past the options (issue 40: it was refused):
# the error is then the empty filter's, not the seed's.
usage_error "no experiment matches" run --filter zzz_nothing --device cpu --seed 18446744073709551615 --out "$tmp/u.json"
[ ! -e "$tmp/u.json" ] || fail "a results file was written for a usage error"

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

"$OPTBENCH" list | grep -q eval_no_grad || fail "list lacks eval_no_grad"
"$OPTBENCH" list --json | "$PY" -c 'import json,sys; d=json.load(sys.stdin); assert d and all("claims" in e for e in d)' \
  || fail "list --json"
echo "cli errors: ok"
