#!/usr/bin/env bash
# Every claim id an experiment names (ExperimentInfo::claims, `optbench list
# --json`) has its entry in report/claims/claims.json, and every entry there is named
# by some experiment: a claim the report cannot find, or one no experiment can
# ever test, is a mistake made when an experiment is added.
#   claim_ids.sh OPTBENCH SRC
set -u
PY=${OPTBENCH_PYTHON:-python3}
OPTBENCH=$1; SRC=$2
listing=$("$OPTBENCH" list --json) || { echo "FAIL: optbench list --json exited $?"; exit 1; }
LISTING=$listing "$PY" - "$SRC/report/claims/claims.json" <<'PYEOF'
import json, os, sys
experiments = json.loads(os.environ["LISTING"])
claims = {c["id"] for c in json.load(open(sys.argv[1]))["claims"]}
named = {}
for e in experiments:
    for cid in e.get("claims", []):
        named.setdefault(cid, []).append(e["name"])
problems = [f"experiment {', '.join(exps)} names claim '{cid}', which report/claims/claims.json does not have"
            for cid, exps in sorted(named.items()) if cid not in claims]
problems += [f"report/claims/claims.json has claim '{cid}', which no experiment names"
             for cid in sorted(claims - set(named))]
if not experiments:
    problems.append("optbench list --json listed no experiments")
for p in problems:
    print("FAIL:", p)
print(f"{len(experiments)} experiments, {len(named)} claim ids named, {len(claims)} in claims.json")
sys.exit(1 if problems else 0)
PYEOF
