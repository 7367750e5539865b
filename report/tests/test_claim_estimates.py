"""What a claim prints and rests on (issue 41): the comparison's one estimate exactly, a
point inside its own range and interval, picks fixed before the data, unlike cases
judged apart with a verdict that never gets easier with less information, a stress
case shown apart, a GPU claim measured on a CPU shown with its label."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURES, REPO

from report.claims.judge import ON_CPU, STRESS, ClaimResult, ClaimRow, _judge_apart, evaluate, load_claims
from report.claims.verdicts import CONFIRMED, DRAWN, EXCEEDED, INCONCLUSIVE, NOT_MEASURABLE, RANK, decide
from report.load.document import Document
from report.load.results import load_results
from report.render.claim_words import beside_text, claim_text, row_text
from report.render.fmt import sig_apart
from report.render.verdict_words import ONE_PROCESS, why_text
from report.statistics.measurement import PROCESS, ROUND, Measurement

COMMITTED = (
    sorted((REPO / "results").glob("*.json"))
    + sorted(FIXTURES.glob("*.json.gz"))
    + sorted(FIXTURES.glob("*/*.json.gz"))
)
CPU_RUN = REPO / "results" / "2026-11-26_cpu_amd-epyc-2core_libtorch-2.11_processes.json"
H100_RUN = FIXTURES / "h100_full.json.gz"


def _is_optbench(path: Path) -> bool:
    with (gzip.open if path.suffix == ".gz" else open)(path, "rt", encoding="utf-8") as f:
        return "experiments" in json.load(f)


@pytest.fixture(scope="module")
def judged() -> dict:
    out = {}
    for p in COMMITTED:
        if _is_optbench(p):
            doc = Document(load_results(p))
            out[p] = (doc, evaluate(doc))
    assert CPU_RUN in out and H100_RUN in out
    return out


def _comparison(doc: Document, e: ClaimRow):
    case = next(c for x in doc.experiments if x.name == e.experiment for c in x.cases if c.name == e.case)
    return next(cm for cm in case.comparisons if cm.variant_name == e.variant)


def test_every_claims_point_lies_inside_its_printed_range_and_interval(judged):
    for path, (_, results) in judged.items():
        for r in results:
            if r.m is None:
                continue
            where = (path.name, r.claim["id"])
            assert r.low * (1 - 1e-12) <= r.m.speedup <= r.high * (1 + 1e-12), where
            assert sig_apart(r.m.speedup, r.bounds) in claim_text(r), where
            if len(r.pooled) > 1:
                assert f"range {sig_apart(r.low, r.bounds)}–{sig_apart(r.high, r.bounds)}" in claim_text(r), where
            if r.m.ci_low is not None:
                assert r.m.ci_low <= r.m.speedup <= r.m.ci_high, where
                assert f"[{sig_apart(r.m.ci_low, r.bounds)}, {sig_apart(r.m.ci_high, r.bounds)}]" in claim_text(r), (
                    where
                )
            if r.verdict.verdict == INCONCLUSIVE:
                assert not why_text(r.verdict).startswith("bug"), where


def test_a_claims_figure_is_a_comparisons_one_estimate_exactly(judged):
    """Where the harness recorded the comparison (not a ratio the claim forms against
    another reference), the claim prints that comparison's estimate, and so does each row."""
    checked = 0
    for path, (doc, results) in judged.items():
        for r in results:
            for e in r.evidence + r.stress:
                cm = _comparison(doc, e)
                if cm.baseline_name != e.baseline:
                    continue  # AMP against TF32, DDP against DataParallel: formed by the claim
                est = cm.estimate
                assert (e.m.speedup, e.m.ci_low, e.m.ci_high) == (
                    est.speedup,
                    est.ci_low if est.has_ci else None,
                    est.ci_high if est.has_ci else None,
                ), (path.name, e.label)
                checked += 1
            if r.decisive is not None or len(r.pooled) == 1:
                row = r.decisive or r.pooled[0]
                assert (r.m.speedup, r.m.ci_low, r.m.ci_high) == (row.m.speedup, row.m.ci_low, row.m.ci_high)
    assert checked > 200


def test_no_figure_is_a_best_of_several(judged):
    for path, (_, results) in judged.items():
        for r in results:
            text = " ".join(
                [
                    claim_text(r),
                    why_text(r.verdict),
                    *(beside_text(b) for b in r.beside),
                    *(row_text(e) for e in r.evidence),
                ]
            )
            assert "best of" not in text and "98.3%" not in text, (path.name, r.claim["id"])
            assert all(e.m.confidence == r.run_confidence for e in r.evidence), (path.name, r.claim["id"])


def test_every_pooled_claim_has_one_comparison_per_case(judged):
    pooled = {c["id"] for c in load_claims() if c.get("pool") is True}
    for path, (_, results) in judged.items():
        for r in results:
            if r.claim["id"] in pooled:
                cases = [(e.experiment, e.case) for e in r.evidence]
                assert len(cases) == len(set(cases)) and not r.apart, (path.name, r.claim["id"])


def _by_id(results) -> dict:
    return {r.claim["id"]: r for r in results}


def test_torchscript_judges_script_and_trace_each(judged):
    doc, results = judged[CPU_RUN]
    ts = _by_id(results)["torchscript"]
    assert sorted((e.case, e.variant) for e in ts.evidence) == [
        (c, v) for c in ("python_convnet_b1_32px", "python_convnet_b8_32px") for v in ("python_script", "python_trace")
    ]
    assert all(e.verdict is not None for e in ts.evidence)
    assert ts.verdict.verdict in (*DRAWN, INCONCLUSIVE)


def test_the_stress_case_is_shown_apart_and_not_in_the_verdict(judged):
    _, results = judged[H100_RUN]
    r = _by_id(results)["criterion_on_device"]
    assert [e.case for e in r.evidence] == ["mlp_classifier_b512_c1000"]
    assert [e.case for e in r.stress] == ["gpt_l4_h512_s256_v8192"]
    stress = [b for b in r.beside if b.label.startswith(STRESS)]
    assert len(stress) == 1 and "8192" in stress[0].label and beside_text(stress[0]).startswith("11.6×")
    assert r.m.speedup == pytest.approx(1.19, abs=0.005)  # the classifier alone


def test_gpu_claims_measured_on_a_cpu_show_the_figure_with_its_label(judged):
    doc, results = judged[CPU_RUN]
    by_id = _by_id(results)
    for cid in ("amp", "fp16_tensor_cores", "batch_size", "host_sync"):
        r = by_id[cid]
        assert r.verdict.verdict == NOT_MEASURABLE and why_text(r.verdict) == ON_CPU and r.m is not None, cid
    # grad_accumulation (not a GPU claim, no number): its own variant, two micro-batches, shown
    g = by_id["grad_accumulation"]
    assert [e.variant for e in g.evidence] == ["accumulate_k2"] and g.m.speedup == pytest.approx(0.599, abs=0.002)
    assert g.m.speedup == _comparison(doc, g.evidence[0]).estimate.speedup


def test_unlike_alignment_cases_are_each_judged(judged):
    """The H100 file is one process: each of its 17 rows is judged, and each is inconclusive
    for that alone (its interval would have decided it between processes)."""
    _, results = judged[H100_RUN]
    r = _by_id(results)["tensor_core_alignment"]
    assert r.apart and len(r.evidence) == 17
    assert all(
        e.m.unit == ROUND and e.verdict.verdict == INCONCLUSIVE and why_text(e.verdict) == ONE_PROCESS
        for e in r.evidence
    )
    assert r.verdict.verdict == INCONCLUSIVE and ONE_PROCESS in why_text(r.verdict)
    # the one-process rule held them back: between processes, the same intervals each draw a
    # verdict, the weakest confirmed on the 4104 case
    c = r.claim
    between = [
        decide(c["kind"], c.get("low"), c.get("high"), e.m.ci_low, e.m.ci_high, point=e.m.speedup).verdict
        for e in r.evidence
    ]
    assert all(v in DRAWN for v in between)
    weakest = min(range(len(between)), key=lambda i: (RANK[between[i]], r.evidence[i].m.ci_low))
    assert between[weakest] == CONFIRMED and r.evidence[weakest].case == "matmul_fp16_4104_vs_4096"
    assert min(e.m.speedup for e in r.evidence) == r.low and r.high == pytest.approx(5.82, abs=0.01)
    assert all("fp32" not in e.case for e in r.evidence)  # FP32 with TF32 off uses no tensor cores: beside


def _row(lo: float, hi: float, point: float) -> ClaimRow:
    return ClaimRow("e", "c", "v", Measurement(point, lo, hi, 0.95, PROCESS, 5, 4, rounds=40, floor=6), "b")


CLAIM = {"id": "x", "kind": "speedup", "low": 1.1, "high": 1.2}


def _claim_verdict(rows: list[tuple[float, float, float]]):
    res = ClaimResult(dict(CLAIM), ["e"], [_row(*r) for r in rows])
    return _judge_apart(res, True), res


def test_a_claim_judged_apart_never_gets_easier_with_a_wider_row():
    rng = np.random.default_rng(2041)
    for _ in range(3000):
        k = int(rng.integers(1, 5))
        centre = np.exp(rng.normal(0.12, 0.15, k))
        half = np.exp(rng.uniform(-5, -1, k))
        rows = [(c * math.exp(-h), c * math.exp(h), c) for c, h in zip(centre, half)]
        before, _ = _claim_verdict(rows)
        i, grow = int(rng.integers(0, k)), math.exp(rng.uniform(0, 1))
        wider = list(rows)
        wider[i] = (rows[i][0] / grow, rows[i][1] * grow, rows[i][2])
        after, res = _claim_verdict(wider)
        assert after.verdict in (before.verdict, INCONCLUSIVE) or (before.verdict, after.verdict) == (
            EXCEEDED,
            CONFIRMED,
        )
        # confirmed only where every row is as claimed or more; the figure is the decisive row's
        if after.verdict in (CONFIRMED, EXCEEDED):
            assert all(RANK[e.verdict.verdict] >= RANK[CONFIRMED] for e in res.evidence)
        assert res.m.speedup == res.decisive.m.speedup and res.low <= res.m.speedup <= res.high


def test_a_claim_with_no_verdict_shows_the_same_row_whatever_the_data():
    """Not measurable, no verdict to rest on: the figure is the first row as declared,
    never the least (which row comes out lowest changes between runs: host_sync's
    item_every_10 in one committed run, no_item in the other)."""
    rng = np.random.default_rng(41)
    for _ in range(200):
        points = np.exp(rng.normal(0.0, 0.1, 3))
        res = ClaimResult(dict(CLAIM), ["e"], [_row(p * 0.98, p * 1.02, p) for p in points])
        res.evidence = [ClaimRow("e", "c", v, e.m, "b") for v, e in zip(("a", "b", "c"), res.evidence)]
        assert _judge_apart(res, False) is None
        assert res.decisive.variant == "a" and res.m.speedup == points[0]
        assert res.low == min(points) and res.high == max(points)
        assert "first of 3 judged apart" in claim_text(res)


def test_the_committed_pair_shows_one_row_per_unjudged_claim_in_both_runs():
    name = "2026-11-27_cpu_amd-epyc-2core_libtorch-2.11_standard_share2{}.json"
    pair = [REPO / "results" / name.format(s) for s in ("", "_second")]
    rows = []
    for p in pair:
        rows.append(
            {
                r.claim["id"]: (r.decisive.case, r.decisive.variant)
                for r in evaluate(Document(load_results(p)))
                if r.verdict.verdict == NOT_MEASURABLE and r.decisive is not None
            }
        )
    assert {"host_sync", "grad_checkpointing"} <= rows[0].keys()
    assert rows[0] == rows[1]


def _side(x: float, b: float) -> int:
    return (x > b) - (x < b)


def test_a_printed_figure_keeps_its_side_of_every_bound_its_verdict_is_drawn_against():
    """sig_apart: 3 digits, more where 3 would print a figure on or across a bound."""
    assert sig_apart(1.0487, (1.05, 1.15)) == "1.049"  # '1.05' would read as inside 1.05-1.15
    assert sig_apart(1.0487, ()) == "1.05" and sig_apart(1.0712, (1.05, 1.15)) == "1.07"
    assert sig_apart(1.0195, (1 / 1.02, 1.02)) == "1.0195"  # '1.02' would sit on the band's end
    assert sig_apart(1.0487, (1.05,), g=True) == "1.049" and sig_apart(1.1, (1.05,), g=True) == "1.1"
    rng = np.random.default_rng(7)
    for _ in range(2000):
        bounds = tuple(float(b) for b in rng.uniform(0.9, 1.3, size=3))
        v = float(rng.choice(bounds)) * float(1 + rng.choice([-1, 1]) * 10 ** rng.uniform(-5, -1))
        printed = float(sig_apart(v, bounds))
        assert all(_side(printed, b) == _side(v, b) for b in bounds), (v, bounds, printed)


def test_every_printed_claim_interval_keeps_its_side_of_the_claim_and_the_no_effect_band(judged):
    """The committed files' claim figures, as the summary and the verdict print them:
    an interval that reads as inside the claimed range while its verdict says it leaves
    it (torchscript's 1.0487 printed '1.05' beside 1.05-1.15) is a sentence that
    disagrees with the numbers beside it."""
    import re

    from report.claims.verdicts import bounds
    from report.render.summary import speedup_text

    number = r"([0-9]+(?:\.[0-9]+)?(?:e[+-][0-9]+)?)"
    checked = 0
    for path, (_, results) in judged.items():
        for r in results:
            b = bounds(r.claim.get("kind", ""), r.claim.get("low"), r.claim.get("high"))
            if r.m is None or not b:
                continue
            texts = [(speedup_text(r), (r.m.speedup, r.m.ci_low, r.m.ci_high))]
            texts += [
                (why_text(e.verdict), (e.m.ci_low, e.m.ci_high))
                for e in r.evidence
                if e.verdict and "CI [" in why_text(e.verdict)
            ]
            texts += [(row_text(e), (e.m.speedup, e.m.ci_low, e.m.ci_high)) for e in r.evidence]
            for text, values in texts:
                figures = [float(x) for x in re.findall(number, text.replace("\u00a0", " "))]
                for v in values:
                    if v is None:
                        continue
                    close = min(figures, key=lambda f: abs(f - v) / v, default=None)
                    assert close is not None and abs(close - v) / v < 0.01, (path.name, r.claim["id"], text, v)
                    assert all(_side(close, x) == _side(v, x) for x in b), (path.name, r.claim["id"], text, v, b)
                    checked += 1
    assert checked > 100


def test_intervals_named_apart_are_printed_with_their_gap():
    """An experiment table's 'moved?' names two runs' intervals that have no point in
    common: printed so that the gap shows, not '[1.25, 1.30], [1.30, 1.35]'."""
    from types import SimpleNamespace

    from report.render.side_by_side import moved

    row = lambda lo, hi: SimpleNamespace(ci_low=lo, ci_high=hi)  # noqa: E731
    assert moved([row(1.25, 1.2996), row(1.3004, 1.35)]) == "estimate: CIs apart, [1.2500, 1.2996], [1.3004, 1.3500]"
    assert moved([row(1.27, 1.29), row(1.30, 1.31)]) == "estimate: CIs apart, [1.27, 1.29], [1.30, 1.31]"
    assert moved([row(1.25, 1.3004), row(1.2996, 1.35)]) == "no"
    # no more digits than the gap needs (the Intel pair's fused step)
    apart = moved([row(1.26994, 1.29295), row(1.29536, 1.31378)])
    assert apart == "estimate: CIs apart, [1.27, 1.29], [1.30, 1.31]", apart
