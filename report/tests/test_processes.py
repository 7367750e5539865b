"""A comparison in each process of a run (report/statistics/processes.py) and how claims use it:
the comparison's one estimate (measurement.py) is judged, its processes' disagreement in
its interval; a pooled claim pools per process, then across processes."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from report.claims.judge import evaluate, evaluate_claim
from report.claims.verdicts import CONFIRMED, INCONCLUSIVE, decide
from report.load.document import spread_of as spread
from report.render.claim_words import claim_text
from report.render.summary import summarize
from report.render.verdict_words import ONE_PROCESS, why_text
from report.statistics.measurement import PROCESS, ROUND, t_interval
from report.statistics.processes import case_points, pooled_between, relative
from report.tests import synth


def _spread(first, repeats):
    """spread_of a comparison b/v: the first process's (ratio, low, high), then each
    further process's, None for one that recorded nothing."""
    s, lo, hi = first
    raw = {"baseline": "b", "variant": "v", "speedup": s, "ci_low": lo, "ci_high": hi}
    entries = [
        {"process": i + 1, "speedup": r[0], "ci_low": r[1], "ci_high": r[2]}
        if r
        else {"process": i + 1, "speedup": None, "reason": "crashed before this case"}
        for i, r in enumerate(repeats)
    ]
    return spread(raw, entries, 0.95)


def test_spread_reads_every_process_and_says_which_recorded_nothing():
    sp = _spread((1.10, 1.08, 1.12), [(1.30, 1.28, 1.32), None])
    assert sp.speedups == [1.10, 1.30]
    assert [e.process for e in sp.estimates] == [0, 1, 2]
    assert sp.estimates[2].missing == "crashed before this case" and sp.estimates[2] not in sp.measured
    assert spread({"speedup": 1.1, "ci_low": 1.0, "ci_high": 1.2}, [], 0.95) is None  # one process
    g, lo, hi = sp.interval(0.95)
    half = stats.t.ppf(0.975, 1) * abs(math.log(1.3 / 1.1)) / math.sqrt(2) / math.sqrt(2)
    assert g == pytest.approx(math.sqrt(1.1 * 1.3)) and lo == pytest.approx(g * math.exp(-half))


def test_pooled_between_uses_processes_that_measured_every_case_and_its_range_is_of_the_same_figures():
    a = _spread((1.1, 1.0, 1.2), [(1.2, 1.1, 1.3), (1.0, 0.9, 1.1)])
    b = _spread((2.0, 1.9, 2.1), [(2.2, 2.1, 2.3), None])
    g, lo, hi = pooled_between([a, b], 0.95)  # process 2 lacks case b: processes 0 and 1 only
    assert g == pytest.approx(math.exp((math.log(math.sqrt(1.1 * 2.0)) + math.log(math.sqrt(1.2 * 2.2))) / 2))
    points = case_points([a, b])
    assert points == pytest.approx([math.sqrt(1.1 * 1.2), math.sqrt(2.0 * 2.2)])
    assert g == pytest.approx(math.sqrt(points[0] * points[1]))  # the pooled point is their geometric mean
    assert pooled_between([b], 0.95) is not None and pooled_between([_spread((1.1, 1, 1.2), [None])], 0.95) is None


def test_a_ratio_against_another_variant_is_taken_per_process():
    amp = _spread((3.0, 2.9, 3.1), [(2.4, 2.3, 2.5), (3.3, 3.2, 3.4)])
    tf32 = _spread((2.0, 1.9, 2.1), [(1.6, 1.5, 1.7), None])
    assert relative(amp, tf32).speedups == pytest.approx([1.5, 1.5])


def _claim_doc(repeats, cases=("mlp",)):
    """zero_grad cases (claim zero_grad_set_to_none, a direction claim) whose first process
    measured set_to_none 1.25x faster, with the given further processes."""
    base = synth.lognormal(1.25e-3, 0.01, 40, seed=1)
    out = []
    for i, name in enumerate(cases):
        c = synth.case(name, [("zeroing", base), ("set_to_none", synth.lognormal(1.0e-3, 0.01, 40, seed=2 + i))])
        c["comparisons"][0]["repeats"] = [
            {"process": k + 1, "speedup": s, "ci_low": lo, "ci_high": hi, "rounds": 40}
            for k, (s, lo, hi) in enumerate(repeats)
        ]
        out.append(c)
    return synth.document([synth.experiment("zero_grad", out, claims=["zero_grad_set_to_none"])])


def _claim(doc, pool=False):
    claim = next(r.claim for r in evaluate(doc) if r.claim["id"] == "zero_grad_set_to_none")
    return evaluate_claim({**claim, "pool": pool}, doc)


def test_processes_that_agree_give_the_verdict_on_their_one_interval():
    doc = _claim_doc([(1.3, 1.27, 1.33), (1.2, 1.18, 1.22)])
    res = _claim(doc)
    cm = doc["experiments"][0]["cases"][0]["comparisons"][0]
    g, lo, hi = t_interval([cm["speedup"], 1.3, 1.2], 0.95)
    assert res.verdict.verdict == CONFIRMED
    assert (res.m.speedup, res.m.ci_low, res.m.ci_high) == pytest.approx((g, lo, hi))
    assert res.m.unit == PROCESS and res.m.n == 3
    row = next(r for r in summarize([res], False).rows if r.claim == "zero_grad_set_to_none")
    assert "between 3 processes" in row.runs[0].figure
    # where every interval of the run is between 3 processes, the runs list says so once instead
    from report.render.summary import RunClaims

    row = summarize([RunClaims("run 1", [res], processes=3)]).rows[0]
    assert "processes" not in row.runs[0].figure


def test_processes_that_disagree_make_a_wide_interval_and_an_inconclusive_verdict():
    """No 'unstable between processes' verdict: the disagreement is in the interval."""
    res = _claim(_claim_doc([(1.01, 0.97, 1.05), (1.25, 1.22, 1.28)]))
    assert res.verdict.verdict == INCONCLUSIVE and "spans" in why_text(res.verdict)
    assert res.m.ci_low < 1.02 < 1.25 < res.m.ci_high


def test_one_process_files_show_their_figure_and_decide_nothing():
    """One process: its figure and interval are shown as recorded, but the interval cannot
    show the spread between processes, so no verdict rests on it (claims.ONE_PROCESS),
    however narrow: the same interval between processes would confirm the claim."""
    doc = _claim_doc([])
    assert "repeats" not in doc["experiments"][0]
    res = _claim(doc)
    cm = doc["experiments"][0]["cases"][0]["comparisons"][0]
    assert res.m.unit == ROUND
    assert (res.m.speedup, res.m.ci_low, res.m.ci_high) == (cm["speedup"], cm["ci_low"], cm["ci_high"])
    assert res.verdict.verdict == INCONCLUSIVE and why_text(res.verdict) == ONE_PROCESS
    c = res.claim
    assert decide(c["kind"], c["low"], c["high"], res.m.ci_low, res.m.ci_high, point=res.m.speedup).verdict == CONFIRMED
    # judged apart too (the default), and pooled: the rule holds on both paths
    apart = _claim(_claim_doc([], cases=("mlp", "gpt")))
    assert apart.apart and all(why_text(e.verdict) == ONE_PROCESS for e in apart.evidence)
    assert apart.verdict.verdict == INCONCLUSIVE and ONE_PROCESS in why_text(apart.verdict)
    pooled = _claim(_claim_doc([], cases=("mlp", "gpt")), pool=True)
    assert not pooled.apart and pooled.m.unit == ROUND and pooled.m.ci_low is not None
    assert pooled.verdict.verdict == INCONCLUSIVE and why_text(pooled.verdict) == ONE_PROCESS


def test_a_pooled_claim_pools_per_process_then_across_processes():
    """Two replicate cases; per process the geometric mean over them: process 2's lies
    below 1, so the pooled interval is wide and the claim inconclusive."""
    doc = _claim_doc([(1.2, 1.18, 1.22), (0.95, 0.93, 0.97)], cases=("mlp", "gpt"))
    res = _claim(doc, pool=True)
    firsts = [c["comparisons"][0]["speedup"] for c in doc["experiments"][0]["cases"]]
    per_process = [math.sqrt(firsts[0] * firsts[1]), 1.2, 0.95]
    g, lo, hi = t_interval(per_process, 0.95)
    assert not res.apart and (res.m.speedup, res.m.ci_low, res.m.ci_high) == pytest.approx((g, lo, hi))
    assert res.low <= res.m.speedup <= res.high
    assert res.verdict.verdict == INCONCLUSIVE
    assert "geometric mean of 2 cases" in claim_text(res) and "between 3 processes" in claim_text(res)
