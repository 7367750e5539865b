"""No best-of-m headline (report/statistics/multiplicity.py, report/claims/judge.py): a case with several
matching settings gives each its own row at the run's confidence, never the largest
with a corrected interval; and the rounds floor the report's own intervals need."""

import synth

from report.claims.judge import evaluate_claim
from report.claims.verdicts import DRAWN
from report.render.claim_words import row_text
from report.statistics.multiplicity import rounds_floor


def test_floors_follow_the_order_statistics():
    # 1 - 2 * 0.5^n must reach the confidence: 6 rounds at 95%, 7 at 97.5% and 98.3%, 8 at 99%.
    assert [rounds_floor(c) for c in (0.95, 0.975, 1 - 0.05 / 3, 0.99)] == [6, 7, 7, 8]


def _doc(rounds: int, processes: int | None = None) -> dict:
    c = synth.case(
        "c",
        [
            ("base", synth.lognormal(1.3, 0.05, rounds, 1)),
            ("a", synth.lognormal(1.0, 0.05, rounds, 2)),
            ("b", synth.lognormal(1.05, 0.05, rounds, 3)),
            ("c", synth.lognormal(1.1, 0.05, rounds, 4)),
        ],
    )
    for cm in c["comparisons"]:
        cm["rounds"] = rounds
    if processes:
        synth.in_processes(c, processes)
    for v in c["variants"]:
        v["params"] = {"setting": v["name"]}
    return synth.document([synth.experiment("e", [c], claims=["x"])])


CLAIM = {"id": "x", "kind": "direction", "low": None, "high": None, "why": "", "quote": "", "source": {}}


def test_several_settings_are_each_a_row_at_the_runs_confidence():
    doc = _doc(40, processes=3)
    r = evaluate_claim(CLAIM, doc)
    assert [e.variant for e in r.evidence] == ["a", "b", "c"]  # file order, every one
    recorded = {e["variant"]: e for e in doc["experiments"][0]["estimates"]}
    for e in r.evidence:
        est = recorded[e.variant]  # the recorded estimate, its interval at the run's 95%, not corrected
        assert (e.m.speedup, e.m.ci_low, e.m.ci_high, e.m.confidence) == (
            est["speedup"],
            est["ci_low"],
            est["ci_high"],
            0.95,
        )
        assert e.verdict.verdict in DRAWN and "best of" not in row_text(e)
    # the claim's figure is the weakest row's, not the largest
    assert r.decisive.variant == "c" and r.m.speedup == recorded["c"]["speedup"]


def test_picking_the_largest_of_a_param_is_fixed_by_the_param_not_the_speed():
    r = evaluate_claim({**CLAIM, "match": {"largest": "rank"}}, _set_ranks(_doc(40)))
    assert [e.variant for e in r.evidence] == ["c"]  # rank 3, the slowest of the three


def _set_ranks(doc: dict) -> dict:
    for i, v in enumerate(doc["experiments"][0]["cases"][0]["variants"]):
        v["params"]["rank"] = i
    return doc
