"""The two committed standard CPU runs of one commit, minutes apart (results/, README
"Results"): issue 32's between-run test. Each comparison was measured in several
processes, and the interval a verdict uses is the wider of the within-process and
the between-process one (report/processes.py); these tests read what the files hold."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from report.claims import evaluate
from report.processes import reported
from report.verdicts import DRAWN, UNSTABLE

REPO = Path(__file__).resolve().parents[2]
RUNS = [REPO / "results" / f"2026-11-26_cpu_amd-epyc-2core_libtorch-2.11_processes{s}.json" for s in ("", "_second")]
NAMED = ("fused_optimizer", "eval_no_grad", "zero_grad", "aligned_dims", "torchscript")


def _intervals(doc: dict) -> dict:
    out = {}
    for e in doc["experiments"]:
        for c in e.get("cases", []):
            for cm in c.get("comparisons", []):
                r = reported(cm, 0.95)
                if r and r[1] is not None:
                    out[(e["name"], c["name"], cm["variant"])] = r
    return out


@pytest.fixture(scope="module")
def runs():
    return [json.loads(p.read_text()) for p in RUNS]


def test_every_comparison_records_its_spread_between_processes(runs):
    for d in runs:
        assert d["config"]["profile"] == "standard" and d["config"]["measure"]["processes"] >= 2
        for e in d["experiments"]:
            for c in e.get("cases", []):
                for cm in c.get("comparisons", []):
                    if c["status"] == "ok" and cm.get("speedup") is not None:
                        assert len(cm.get("repeats") or []) == d["config"]["measure"]["processes"] - 1, \
                            (e["name"], c["name"], cm["variant"])


def test_the_named_comparisons_overlap_between_the_two_runs(runs):
    """Issue 32's 21 comparisons (the C++ ones of its five experiments): at least 19
    reported intervals overlap between the runs; the Python twins' too."""
    a, b = (_intervals(d) for d in runs)
    named = [k for k in a if k[0] in NAMED and k in b and not k[1].startswith("python_")]
    twins = [k for k in a if k[0] in NAMED and k in b and k[1].startswith("python_")]
    apart = [k for k in named + twins if not (a[k][1] <= b[k][2] and b[k][1] <= a[k][2])]
    assert len(named) == 21 and len(twins) == 10
    assert len([k for k in named if k not in apart]) >= 19, apart
    assert not [k for k in twins if k in apart], apart


def test_every_verdict_is_the_same_in_both_unstable_ones_included(runs):
    seen = [{r.claim["id"]: r.verdict.verdict for r in evaluate(d)} for d in runs]
    judged = [c for c, v in seen[0].items() if v in (*DRAWN, UNSTABLE) or seen[1][c] in (*DRAWN, UNSTABLE)]
    assert len(judged) >= 8
    assert [c for c in judged if seen[0][c] != seen[1][c]] == []


def test_no_why_contradicts_its_timing_in_either_run(runs):
    from report.why_audit import audit
    for d in runs:
        a = audit(d)
        assert a.findings == [], [(f.row, f.problem) for f in a.findings]
        assert a.mechanisms + a.unexplained == 67 and a.mechanisms >= 41, a.mechanisms
