"""Nothing unverified counts (issue 40, item 1): a variant that errored (a Python twin
killed mid-run, an OOM) keeps the ratio of the rounds before it died, but no claim is
judged on it; the claim says what it left out."""

import copy
import json
from pathlib import Path

from report.claims.judge import evaluate
from report.load.document import Document

RUN = Path(__file__).resolve().parents[2] / "results" / "2026-11-27_cpu_amd-epyc-2core_libtorch-2.11_standard.json"


def _torchscript(doc: dict):
    return next(r for r in evaluate(Document(doc)) if r.claim["id"] == "torchscript")


def test_an_errored_twin_carries_no_verdict():
    raw = json.loads(RUN.read_text())
    before = _torchscript(copy.deepcopy(raw))
    assert any("python_script" in e.label for e in before.evidence)
    for e in raw["experiments"]:
        for c in e.get("cases") or []:
            for v in c.get("variants") or []:
                params = v.get("params") or {}
                if params.get("jit") == "script" and params.get("runtime") == "python":
                    v["status"] = "error"
    after = _torchscript(raw)
    assert after.evidence and not any("python_script" in e.label for e in after.evidence)
    assert sum("python_script: left out, its variant error: unverified" in n for n in after.notes) == 2
