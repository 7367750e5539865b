#!/usr/bin/env bash
# The commands of the README and of docs/*.md, run the way a user runs them, in
# a copy of the source tree as a fresh clone has it (tracked and
# untracked-but-not-ignored files: no build/, no out/, no deps/):
#  0. The README's example experiment (the ```cpp block that starts with
#     `// workloads/NAME.cpp`) is written into the copy as its one new file; it
#     also names a new claim, whose claims.json entry and quote in
#     report/sources.md the test adds: what adding an experiment with a new
#     claim takes, and nothing else in the tree touched.
#  1. `OPTBENCH_OUT_DIR=out/try scripts/run --quick --filter zero_grad`: exit 0,
#     and the four paths it prints (results, report.md, report.html, results.csv)
#     exist, the results validate and the report names the experiment. Then the
#     example is listed with its claim (whose id claims.json has), runs, verifies,
#     and the report cites it for that claim.
#  2. Every command in the ```sh blocks of README.md, then of docs/*.md (in
#     name order), in order, in one shell from the copy's root, with a python3
#     that has torch first on PATH (what the README assumes); a docs page may use
#     what the README's commands made (r.json). Each must exit 0, or as EXIT
#     below allows; the commands a CPU machine cannot run are in SKIP with the
#     reason. A command in neither list runs; an entry no command of the README
#     or docs matches fails the test, so the lists cannot go stale.
#   readme_commands.sh SRC
set -u
PY=${OPTBENCH_PYTHON:?the configured Python}
SRC=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/log" ] && tail -40 "$tmp/log"; exit 1; }

# Commands left out on a machine without a GPU, and why (exact text, comment dropped).
declare -A SKIP=(
  ["scripts/run"]="the full standard suite; the same script runs above with --quick --filter zero_grad, and e2e_cpu_all runs the whole quick suite"
  ["scripts/test"]="this test is part of it"
  ["build/cuda/optbench run pinned_memory --device cuda --full --out pinned.json"]="needs a GPU"
  ["torchrun --no-python --standalone --nproc-per-node N build/cuda/optbench run data_parallel --out ddp.json"]="needs N GPUs"
  ["srun -N1 --ntasks-per-node N --gpus-per-node N env MASTER_ADDR=\$(hostname) MASTER_PORT=29500 build/cuda/optbench run data_parallel --out ddp.json"]="needs Slurm and N GPUs"
)
# Exit codes other than 0 a command may end with, and why.
declare -A EXIT=(
  ["build/cuda/optbench report compare"]="0 1"  # 1: a regression between the two committed runs is a result, not a failure
  ["build/cuda/optbench report baseline"]="0 3"  # 3: results/ has no run of this machine's CPU model (committed: an AMD EPYC and an Intel Xeon VM)
)

# The copy, as a fresh clone has it.
"$SRC/tests/copy_tree.sh" "$SRC" "$tmp/clone" || fail "copying the source tree"
[ ! -e "$tmp/clone/build" ] || fail "the copy has a build folder"

# A user's environment: nothing of this build's, a python3 with torch on PATH.
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$PY" >"$tmp/bin/python3"
printf '#!/bin/sh\nexec "%s" -m torch.distributed.run "$@"\n' "$PY" >"$tmp/bin/torchrun"  # pip's console script
chmod +x "$tmp/bin/python3" "$tmp/bin/torchrun"
user_env=(env -u OPTBENCH_PYTHON -u TORCH_CMAKE_PREFIX -u OPTBENCH_PRESET -u OPTBENCH_BUILD_DIR -u OPTBENCH_OUT_DIR
          -u OPTBENCH_DEPS PATH="$tmp/bin:$PATH" CCACHE_BASEDIR="$tmp/clone"
          CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime)

# 0. The README's example experiment (its ```cpp block naming a file in
# workloads/) is added to the copy, as a user adding an experiment would: that
# one file, nothing else; scripts/run below builds it.
"$PY" - "$tmp/clone" <<'PY' >"$tmp/examples" || fail "writing the README's example experiment into the copy"
import pathlib, re, sys
root = pathlib.Path(sys.argv[1])
text = (root / "README.md").read_text()
for block in re.findall(r"^```cpp\n(.*?)^```", text, flags=re.S | re.M):
    m = re.match(r"// (workloads/[A-Za-z0-9_]+\.cpp)", block)
    if m:
        target = root / m.group(1)
        assert not target.exists(), f"{m.group(1)} exists already"
        target.write_text(block)
        print(m.group(1))
PY
[ -s "$tmp/examples" ] || fail "the README shows no example experiment (a \`\`\`cpp block starting with // workloads/NAME.cpp)"

# 0b. A new claim for the example: its id in the experiment's claim list, its entry
# in claims.json (no match: every comparison of the experiments naming it), its
# quote in a document report/sources.md carries. Nothing else is edited.
NEW_CLAIM=linear_no_grad
"$PY" - "$tmp/clone" "$(head -1 "$tmp/examples")" "$NEW_CLAIM" <<'PY' || fail "adding a new claim for the example"
import json, pathlib, re, sys
root, example, cid = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
src = root / example
text, n = re.subn(r'\{"no_grad_eval"\}', '{"no_grad_eval", "%s"}' % cid, src.read_text())
assert n == 1, "the example's claim list moved"
src.write_text(text)
path = root / "report/claims/claims.json"
doc = json.loads(path.read_text())
doc["claims"].append({
    "id": cid,
    "technique": "NoGradGuard around one Linear layer's forward",
    "kind": "direction",
    "low": None,
    "high": None,
    "gpu_only": False,
    "why": "The README's example experiment: a Linear layer evaluated under NoGradGuard against autograd recording.",
    "quote": "Evaluating a layer without autograd recording is faster.",
    "source": {"document": "A scratch source for tests", "section": "Claims"},
})
path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
with open(root / "report/sources.md", "a", encoding="utf-8") as f:
    f.write("\n## A scratch source for tests\n\n### Claims\n\nEvaluating a layer without autograd recording is faster.\n")
PY

# 1. scripts/run.
cd "$tmp/clone"
t0=$(date +%s)
"${user_env[@]}" OPTBENCH_OUT_DIR=out/try scripts/run --quick --filter zero_grad >"$tmp/stdout" 2>"$tmp/log"
rc=$?
[ $rc -eq 0 ] || fail "scripts/run exited $rc"
mapfile -t paths < <(tail -4 "$tmp/stdout")
[ "${#paths[@]}" -eq 4 ] || fail "scripts/run printed $(wc -l <"$tmp/stdout") lines, expected the 4 paths: $(cat "$tmp/stdout")"
for p in "${paths[@]}"; do
  [ -s "$p" ] || fail "scripts/run printed $p, which does not exist"
done
[ "${paths[0]}" = "$tmp/clone/out/try/results.json" ] || fail "results not in OPTBENCH_OUT_DIR: ${paths[0]}"
build/cuda/optbench report validate "${paths[0]}" >>"$tmp/log" 2>&1 || fail "the results do not validate"
grep -q zero_grad "${paths[1]}" && grep -q zero_grad "${paths[2]}" && grep -q zero_grad "${paths[3]}" ||
  fail "the report does not show zero_grad"
echo "ok: scripts/run --quick --filter zero_grad ($(( $(date +%s) - t0 )) s, with the build): ${paths[*]}"

# 1b. The example experiment is listed with its claim, runs, verifies, and the
# report counts it for that claim.
while IFS= read -r file; do
  name=$(basename "$file" .cpp)
  build/cuda/optbench list --json >"$tmp/list.json" || fail "optbench list --json"
  "$PY" -c 'import json,sys; e=[x for x in json.load(open(sys.argv[1])) if x["name"]==sys.argv[2]]; sys.exit(0 if e and e[0]["claims"] else 1)' \
    "$tmp/list.json" "$name" || fail "the README's example $name is not listed with a claim"
  OPTBENCH_PYTHON=$PY tests/claim_ids.sh build/cuda/optbench . >>"$tmp/log" 2>&1 || fail "claim ids of the copy with $name"
  build/cuda/optbench run "$name" --quick --no-progress --out "out/$name.json" >>"$tmp/log" 2>&1 ||
    fail "optbench run $name exited $?"
  "$PY" - "out/$name.json" "$name" <<'PY' || fail "the example's results"
import json, sys
doc = json.load(open(sys.argv[1]))
(exp,) = [e for e in doc["experiments"] if e["name"] == sys.argv[2]]
cases = exp["cases"]
assert cases and all(c["status"] == "ok" for c in cases), [c.get("status") for c in cases]
for c in cases:
    for cmp in c["comparisons"]:
        assert cmp["speedup"] and cmp["verification"]["status"] == "passed", cmp
PY
  build/cuda/optbench report render "out/$name.json" --out "out/$name-report" >>"$tmp/log" 2>&1 || fail "rendering $name"
  claim=$("$PY" -c 'import json,sys; print([x for x in json.load(open(sys.argv[1])) if x["name"]==sys.argv[2]][0]["claims"][0])' \
    "$tmp/list.json" "$name")
  grep -F "$claim" "out/$name-report/report.md" | grep -qF "$name" ||
    fail "the report's line for claim $claim does not cite $name"
  echo "ok: the README's example $file built, ran, verified, and counts for claim $claim"
  # the new claim (0b): named by the listing, found by the report, its quote checked
  "$PY" -c 'import json,sys; e=[x for x in json.load(open(sys.argv[1])) if x["name"]==sys.argv[2]]; sys.exit(0 if sys.argv[3] in e[0]["claims"] else 1)' \
    "$tmp/list.json" "$name" "$NEW_CLAIM" || fail "the example does not list the new claim $NEW_CLAIM"
  grep -F "| $NEW_CLAIM |" "out/$name-report/report.md" | grep -qF "$name" ||
    grep -A3 -F "$NEW_CLAIM" "out/$name-report/report.md" | grep -qF "$name" ||
    fail "the report does not cite $name for the new claim $NEW_CLAIM: $(grep -F "$NEW_CLAIM" "out/$name-report/report.md")"
  PYTHONPATH=. "$PY" -m pytest -q -p no:cacheprovider report/tests/test_claims.py \
    -k "claims_file_lists or quotes_come_from or no_claim_names_a_path" >>"$tmp/log" 2>&1 ||
    fail "report/tests/test_claims.py's checks of claims.json fail with the new claim"
  echo "ok: the new claim $NEW_CLAIM: listed, reported with $name, its quote found in report/sources.md"
done <"$tmp/examples"

# 2. The code blocks of the README, then of docs/*.md.
"$PY" - "$tmp/clone" >"$tmp/commands" <<'PY' || fail "reading the code blocks of the README and docs/"
import pathlib, re, sys
root = pathlib.Path(sys.argv[1])
for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
    text = page.read_text()
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M):
        block = re.sub(r"\\\n\s*", "", block)          # continuation lines joined
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                print(line)
PY
[ -s "$tmp/commands" ] || fail "no code block found in the README or docs/"
declare -A seen=()
n_run=0
while IFS= read -r line; do
  cmd=$(printf '%s' "$line" | sed -E 's/[[:space:]]+#[^\x27"]*$//; s/[[:space:]]+$//')
  if [ -n "${SKIP[$cmd]+x}" ]; then
    seen[$cmd]=1
    echo "skip: $cmd  ($(printf '%s' "${SKIP[$cmd]}"))"
    continue
  fi
  allowed=0
  for k in "${!EXIT[@]}"; do
    case $cmd in "$k"*) allowed=${EXIT[$k]}; seen[$k]=1 ;; esac
  done
  echo "run:  $cmd" | tee -a "$tmp/log"
  printf '%s\n' "$cmd" >>"$tmp/script"
  printf 'rc=$?; case " %s " in *" $rc "*) ;; *) echo "README/docs command exited $rc: %s" >&2; exit 1;; esac\n' \
    "$allowed" "${cmd//%/%%}" >>"$tmp/script"
  n_run=$((n_run + 1))
done <"$tmp/commands"
for k in "${!SKIP[@]}" "${!EXIT[@]}"; do
  [ -n "${seen[$k]+x}" ] || fail "the test lists '$k', which no command of the README or docs/ matches (update the lists)"
done
t0=$(date +%s)
"${user_env[@]}" bash "$tmp/script" >>"$tmp/log" 2>&1 || fail "a README/docs command failed (log above)"
echo "ok: $n_run README and docs/ commands ran in $(( $(date +%s) - t0 )) s, ${#SKIP[@]} left out with their reasons"
