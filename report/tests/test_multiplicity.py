"""Bonferroni for a headline picked as the best of several settings (report/multiplicity.py)."""
import synth

from report.claims import _chosen, _headline
from report.document import Document
from report.multiplicity import confidence_for, rounds_floor


def test_floors_follow_the_order_statistics():
    # 1 - 2 * 0.5^n must reach the confidence: 6 rounds at 95%, 7 at 97.5% and 98.3%, 8 at 99%.
    assert [rounds_floor(confidence_for(m, 0.95)) for m in (1, 2, 3, 5)] == [6, 7, 7, 8]


def _case(rounds: int):
    c = synth.case("c", [("base", synth.lognormal(1.3, 0.05, rounds, 1)),
                         ("a", synth.lognormal(1.0, 0.05, rounds, 2)),
                         ("b", synth.lognormal(1.05, 0.05, rounds, 3)),
                         ("c", synth.lognormal(1.1, 0.05, rounds, 4))])
    for cm in c["comparisons"]:
        cm["rounds"] = rounds
    for v in c["variants"]:
        v["params"] = {"setting": v["name"]}
    e = Document(synth.document([synth.experiment("e", [c])])).experiments[0]
    return e, e.cases[0]


def test_the_best_of_three_gets_a_wider_interval_and_says_so():
    e, c = _case(40)
    best = _headline({}, c, None)
    assert best.variant == "a" and best.chosen_from == 3 and abs(best.confidence - 0.98333) < 1e-4
    plain = _headline({"variant_params": {"setting": "a"}}, c, None)
    assert plain.chosen_from == 1
    assert best.ci_low <= plain.ci_low and best.ci_high >= plain.ci_high
    assert (best.ci_low, best.ci_high) != (plain.ci_low, plain.ci_high)
    assert "best of 3, 98.3% CI" in best.text


def test_six_rounds_hold_a_95_interval_but_not_a_corrected_one():
    e, c = _case(6)
    best = _headline({}, c, None)
    assert best.below_floor and best.ci_low is None and "needs 7 rounds" in best.text
    assert _chosen(_headline({"variant_params": {"setting": "a"}}, c, None), 1).ci_low is not None
