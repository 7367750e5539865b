"""The report's reading of a comparison's one estimate (measurement.py): the same golden
values the harness's C++ is tested against (tests/data/two_level_golden.json), and the
recorded estimate taken as recorded."""

import json
from pathlib import Path

import pytest
from scipy import stats

from report.load.document import Document
from report.load.versions import upgrade
from report.statistics.measurement import PROCESS, ROUND, Source, t_interval

GOLDEN = json.loads((Path(__file__).resolve().parents[2] / "tests" / "data" / "two_level_golden.json").read_text())


@pytest.mark.parametrize("q", GOLDEN["t_quantiles"])
def test_t_quantile_is_the_golden_one(q):
    assert stats.t.ppf(q["p"], q["df"]) == pytest.approx(q["t"], rel=1e-9)


@pytest.mark.parametrize("c", GOLDEN["intervals"])
def test_interval_matches_the_harness_golden_vector(c):
    g, lo, hi = t_interval(c["speedups"], c["confidence"])
    assert (g, lo, hi) == pytest.approx((c["estimate"], c["ci_low"], c["ci_high"]), rel=1e-9)


def _doc(cm: dict, **experiment) -> Document:
    """One comparison b/a of case c; older files' keys moved as files are read (versions.py)."""
    cm = {"baseline": "a", "variant": "b", **cm}
    e = {"name": "e", "status": "ok", "cases": [{"name": "c", "status": "ok", "comparisons": [cm]}], **experiment}
    doc = {"schema_version": 1, "config": {"measure": {"stopping": {"confidence": 0.95}}}, "experiments": [e]}
    return Document(upgrade(doc))


def _estimate(cm: dict, **experiment):
    return _doc(cm, **experiment).experiments[0].cases[0].comparisons[0].estimate


def test_recorded_estimate_is_read_as_recorded():
    rec = {"speedup": 2.2, "ci_low": 1.5, "ci_high": 3.0, "confidence": 0.95, "unit": "process", "n": 7, "df": 6}
    e = _estimate(
        {"speedup": 2.0, "ci_low": 1.9, "ci_high": 2.1},
        estimates=[{"case": "c", "baseline": "a", "variant": "b", **rec}],
    )
    assert (e.speedup, e.ci_low, e.ci_high, e.unit, e.n, e.df) == (2.2, 1.5, 3.0, PROCESS, 7, 6)
    assert e.source is Source.RECORDED
    # an older file's, inside the comparison, is read the same (versions.py moves it)
    old = _estimate({"speedup": 2.0, "ci_low": 1.9, "ci_high": 2.1, "estimate": rec})
    assert (old.speedup, old.ci_low, old.ci_high, old.n, old.source) == (2.2, 1.5, 3.0, 7, Source.RECORDED)
    # another comparison's record is not this one's
    other = _estimate(
        {"speedup": 2.0, "ci_low": 1.9, "ci_high": 2.1},
        estimates=[{"case": "d", "baseline": "a", "variant": "b", **rec}],
    )
    assert other.source is Source.DERIVED and other.speedup == 2.0


def test_older_file_with_repeats_gets_the_process_interval():
    e = _estimate(
        {
            "speedup": 3.51,
            "ci_low": 3.4,
            "ci_high": 3.6,
            "rounds": 40,
            "repeats": [{"process": 1, "speedup": 8.71}, {"process": 2, "speedup": 3.33}],
        }
    )
    g = GOLDEN["intervals"][0]
    assert (e.speedup, e.ci_low, e.ci_high) == pytest.approx((g["estimate"], g["ci_low"], g["ci_high"]))
    assert (e.unit, e.n, e.df, e.source) == (PROCESS, 3, 2, Source.DERIVED)


def test_older_file_of_one_process_keeps_its_own_interval_and_none_below_the_floor():
    e = _estimate({"speedup": 2.0, "ci_low": 1.9, "ci_high": 2.1, "rounds": 40})
    assert (e.speedup, e.ci_low, e.ci_high, e.unit, e.n) == (2.0, 1.9, 2.1, ROUND, 40)
    e = _estimate({"speedup": 2.0, "ci_low": 1.5, "ci_high": 2.5, "rounds": 4, "rounds_floor": 6})
    assert e.ci_low is None and not e.has_ci
