"""The first screen's chart: every judged claim of every run against its claimed
range, before the summary table, in report.md and report.html."""

from __future__ import annotations

from pathlib import Path

from report.claims.judge import evaluate
from report.claims.verdicts import DRAWN
from report.load.results import load_results
from report.render.claims_chart import judged_ids

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
    assert all(verdicts[c] & set(DRAWN) for c in ids)
    # a claim no run drew a verdict on ("not measurable here": a GPU claim on a CPU) is not charted
    assert (
        {c for c, v in verdicts.items() if not v & set(DRAWN)} - set(ids)
        == {c for c, v in verdicts.items() if not v & set(DRAWN)}
        != set()
    )
    assert cli("render", *RUNS, "--out", tmp_path).rc == 0
    md = (tmp_path / "report.md").read_text()
    assert (tmp_path / "plots" / "claims.png").stat().st_size > 1024
    assert md.index("(plots/claims.png)") < md.index("## Summary")
    html = (tmp_path / "report.html").read_text()
    assert html.index('alt="claims.png"') < html.index("<h2>Summary")


def test_no_chart_without_a_judged_claim(tmp_path):
    from report.render.claims_chart import plot_claims
    from report.render.plots import matplotlib_or_none

    runs = [("run 1", [r for r in evaluate(load_results(RUNS[0])) if r.verdict.verdict == "not measurable here"])]
    assert judged_ids(runs) == []
    assert plot_claims(matplotlib_or_none(), runs, tmp_path / "c.png") is False
    assert not (tmp_path / "c.png").exists()
