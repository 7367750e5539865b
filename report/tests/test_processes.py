"""Between-process spread (report/processes.py) and how claims use it: the wider of the
within- and between-process intervals, and an unstable verdict where the processes
disagree."""
from __future__ import annotations

import math

import pytest
from scipy import stats

from report.claims import evaluate
from report.processes import BETWEEN, WITHIN, between_ci, pooled_between, spread, wider
from report.summary import summarize
from report.tests import synth
from report.verdicts import UNSTABLE


def test_between_ci_is_the_t_interval_of_the_mean_log():
    g, lo, hi = between_ci([1.0, 2.0, 4.0], 0.95)
    half = stats.t.ppf(0.975, 2) * math.log(2.0) / math.sqrt(3)
    assert g == pytest.approx(2.0)
    assert lo == pytest.approx(2.0 * math.exp(-half))
    assert hi == pytest.approx(2.0 * math.exp(half))
    assert between_ci([1.5], 0.95) is None  # one process: no spread


def _raw(first, repeats):
    s, lo, hi = first
    return {"baseline": "b", "variant": "v", "speedup": s, "ci_low": lo, "ci_high": hi,
            "repeats": [{"process": i + 1, "speedup": r[0], "ci_low": r[1], "ci_high": r[2]} if r else
                        {"process": i + 1, "speedup": None, "reason": "crashed before this case"}
                        for i, r in enumerate(repeats)]}


def test_spread_reads_every_process_and_says_which_recorded_nothing():
    sp = spread(_raw((1.10, 1.08, 1.12), [(1.30, 1.28, 1.32), None]))
    assert sp.speedups == [1.10, 1.30]
    assert [e.process for e in sp.estimates] == [0, 1, 2]
    assert "1 without a ratio (crashed before this case)" in sp.text(0.95)
    assert spread({"speedup": 1.1, "ci_low": 1.0, "ci_high": 1.2}) is None  # one process


def test_the_wider_interval_is_used_with_its_own_point():
    # Processes far apart: the between-process interval is wider and centred on their geometric mean.
    s, lo, hi, basis = wider((1.10, 1.08, 1.12), between_ci([1.10, 1.50, 1.30], 0.95))
    assert basis == BETWEEN and lo < 1.08 and hi > 1.5
    assert s == pytest.approx(math.exp((math.log(1.1) + math.log(1.5) + math.log(1.3)) / 3))
    # Processes that agree closely: the within-process interval stays.
    assert wider((1.10, 1.05, 1.15), between_ci([1.10, 1.101, 1.099], 0.95))[3] == WITHIN
    # No within interval (too few rounds): none from the processes either.
    assert wider((1.10, None, None), between_ci([1.1, 1.5], 0.95))[1:] == (None, None, WITHIN)


def test_pooled_between_uses_processes_that_measured_every_case():
    a = spread(_raw((1.1, 1.0, 1.2), [(1.2, 1.1, 1.3), (1.0, 0.9, 1.1)]))
    b = spread(_raw((2.0, 1.9, 2.1), [(2.2, 2.1, 2.3), None]))
    g, lo, hi = pooled_between([a, b], 0.95)  # process 2 lacks case b: processes 0 and 1 only
    assert g == pytest.approx(math.exp((math.log(math.sqrt(1.1 * 2.0)) + math.log(math.sqrt(1.2 * 2.2))) / 2))
    assert pooled_between([b], 0.95) is not None and pooled_between([spread(_raw((1.1, 1, 1.2), [None]))], 0.95) is None


def _claim_doc(repeats):
    """A zero_grad case (claim zero_grad_set_to_none, a direction claim) whose first process
    measured set_to_none 1.25x faster, with the given further processes."""
    base = synth.lognormal(1.25e-3, 0.01, 40, seed=1)
    opt = synth.lognormal(1.0e-3, 0.01, 40, seed=2)
    c = synth.case("mlp", [("zeroing", base), ("set_to_none", opt)])
    c["comparisons"][0]["repeats"] = [
        {"process": i + 1, "speedup": s, "ci_low": lo, "ci_high": hi, "rounds": 40} for i, (s, lo, hi) in enumerate(repeats)]
    return synth.document([synth.experiment("zero_grad", [c], claims=["zero_grad_set_to_none"])])


def _claim(doc):
    return next(r for r in evaluate(doc) if r.claim["id"] == "zero_grad_set_to_none")


def test_processes_that_agree_give_the_verdict_and_the_wider_interval():
    res = _claim(_claim_doc([(1.3, 1.27, 1.33), (1.2, 1.18, 1.22)]))
    assert res.verdict.verdict == "confirmed"
    assert res.basis == BETWEEN and res.processes == 3
    row = next(r for r in summarize([res], False).rows if r.claim == "zero_grad_set_to_none")
    assert "between 3 processes" in row.speedup


def test_a_verdict_that_flips_between_processes_is_unstable():
    res = _claim(_claim_doc([(1.01, 0.97, 1.05), (1.25, 1.22, 1.28)]))
    assert res.verdict.verdict == UNSTABLE
    assert "process 1: confirmed" in res.verdict.why and "process 2: not reproduced" in res.verdict.why


def test_one_process_files_are_judged_as_before():
    doc = _claim_doc([])
    for c in doc["experiments"][0]["cases"]:
        for cm in c["comparisons"]:
            del cm["repeats"]
    res = _claim(doc)
    assert res.basis == WITHIN and res.verdict.verdict == "confirmed"


def test_two_runs_one_unstable_between_processes_are_not_called_reproduced():
    from report.summary import mark_reproduced
    steady = _claim(_claim_doc([(1.3, 1.27, 1.33), (1.2, 1.18, 1.22)]))
    flipping = _claim(_claim_doc([(1.01, 0.97, 1.05), (1.25, 1.22, 1.28)]))
    sm = summarize([steady], False)
    mark_reproduced(sm, [("input 1", [steady]), ("input 2", [flipping])])
    row = next(r for r in sm.rows if r.claim == "zero_grad_set_to_none")
    assert row.reproduced == f"no, unstable: input 1 confirmed; input 2 {UNSTABLE}"


def test_a_pooled_claim_whose_processes_disagree_is_unstable():
    """Two cases; per process the geometric mean over them: process 2's lies below 1."""
    base = synth.lognormal(1.25e-3, 0.01, 40, seed=1)
    cases = []
    for name, seed in (("mlp", 2), ("gpt", 3)):
        c = synth.case(name, [("zeroing", base), ("set_to_none", synth.lognormal(1.0e-3, 0.01, 40, seed=seed))])
        c["comparisons"][0]["repeats"] = [{"process": 1, "speedup": 1.2, "ci_low": 1.18, "ci_high": 1.22},
                                          {"process": 2, "speedup": 0.95, "ci_low": 0.93, "ci_high": 0.97}]
        cases.append(c)
    res = _claim(synth.document([synth.experiment("zero_grad", cases, claims=["zero_grad_set_to_none"])]))
    assert res.verdict.verdict == UNSTABLE
    assert "geometric mean over the 2 cases" in res.verdict.why and "process 3: not reproduced (0.950×)" in res.verdict.why
