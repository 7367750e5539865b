"""The first screen's chart: every judged claim of every run against its claimed
range, before the summary table, in report.md and report.html."""

from __future__ import annotations

from pathlib import Path

from report.claims.judge import ClaimResult, evaluate
from report.claims.verdicts import DRAWN, Verdict, Why
from report.load.results import load_results
from report.render.claims_chart import judged_ids, spans
from report.statistics.measurement import Measurement

REPO = Path(__file__).resolve().parents[2]
RUNS = [
    REPO / "results" / "2026-12-05_cpu_intel-xeon-2core_libtorch-2.11_standard.json",
    REPO / "results" / "2026-11-27_cpu_amd-epyc-2core_libtorch-2.11_standard.json",
]


def test_judged_claims_are_charted_before_the_summary(tmp_path, cli):
    runs = [(f"run {i}", evaluate(load_results(p))) for i, p in enumerate(RUNS, start=1)]
    ids = judged_ids(runs)
    verdicts: dict[str, set] = {}
    for _, rs in runs:
        for r in rs:
            verdicts.setdefault(str(r.claim["id"]), set()).add(r.verdict.verdict)
    assert "confirmed" in {v for c in ids for v in verdicts[c]}
    assert all(verdicts[c] & {*DRAWN, "inconclusive"} for c in ids)
    # a claim no run measured ("not measurable here": a GPU claim on a CPU) is not charted
    unmeasured = {c for c, v in verdicts.items() if v == {"not measurable here"}}
    assert unmeasured and not unmeasured & set(ids)
    assert cli("render", *RUNS, "--out", tmp_path).rc == 0
    md = (tmp_path / "report.md").read_text()
    assert (tmp_path / "plots" / "claims.png").stat().st_size > 1024
    assert md.index("(plots/claims.png)") < md.index("## Summary")
    html = (tmp_path / "report.html").read_text()
    assert html.index('alt="claims.png"') < html.index("<h2>Summary")


def _result(verdict: Verdict, est=1.1, lo=1.04, hi=1.16) -> ClaimResult:
    claim = {"id": "c", "low": 1.05, "high": 1.15}
    return ClaimResult(claim, ["e"], m=Measurement(est, lo, hi, 0.95), verdict=verdict)


def test_an_interval_spanning_outcomes_is_charted_hollow_and_others_are_not():
    confirmed = Verdict("confirmed", Why.IN_CLAIM)
    spanning = Verdict("inconclusive", Why.SPANS)
    few = Verdict("inconclusive", Why.TOO_FEW_ROUNDS)
    rows = Verdict("inconclusive", Why.ROWS_UNDECIDED, row=spanning)
    rows_few = Verdict("inconclusive", Why.ROWS_UNDECIDED, row=few)
    assert [spans(v) for v in (confirmed, spanning, few, rows, rows_few, None)] == [
        False,
        True,
        False,
        True,
        False,
        False,
    ]
    # a pair split on a claim (confirmed, inconclusive) is charted; too few rounds alone is not
    assert judged_ids([("run 1", [_result(spanning)])]) == ["c"]
    assert judged_ids([("run 1", [_result(few)])]) == []
    assert judged_ids([("run 1", [_result(spanning, lo=None)])]) == []


def test_a_split_pair_draws_both_runs(tmp_path):
    from report.render.claims_chart import plot_claims
    from report.render.plots import matplotlib_or_none

    plt = matplotlib_or_none()
    runs = [
        ("run 1", [_result(Verdict("confirmed", Why.IN_CLAIM))]),
        ("run 2", [_result(Verdict("inconclusive", Why.SPANS))]),
    ]
    assert plot_claims(plt, runs, tmp_path / "c.png") is True
    assert (tmp_path / "c.png").stat().st_size > 1024


def test_no_chart_without_a_judged_claim(tmp_path):
    from report.render.claims_chart import plot_claims
    from report.render.plots import matplotlib_or_none

    runs = [("run 1", [r for r in evaluate(load_results(RUNS[0])) if r.verdict.verdict == "not measurable here"])]
    assert judged_ids(runs) == []
    assert plot_claims(matplotlib_or_none(), runs, tmp_path / "c.png") is False
    assert not (tmp_path / "c.png").exists()
