"""The per-process estimators the report shares with the harness (report/statistics/stats.py and
harness/stats.cpp): the same golden inputs and outputs (tests/data/stats_golden.json)
that tests/test_stats.cpp holds the C++ to, so the two agree while both exist."""

import json
from pathlib import Path

import pytest

from report.statistics.multiplicity import rounds_floor
from report.statistics.stats import median_ci, paired_ratio

GOLDEN = json.loads((Path(__file__).resolve().parents[2] / "tests" / "data" / "stats_golden.json").read_text())


@pytest.mark.parametrize("c", GOLDEN["median_ci"], ids=lambda c: f"n{len(c['values'])}")
def test_median_ci_is_the_golden_one(c):
    assert median_ci(c["values"], c["confidence"]) == (c["median"], c["ci_low"], c["ci_high"])


@pytest.mark.parametrize("c", GOLDEN["paired_speedup"], ids=lambda c: f"n{len(c['baseline'])}")
def test_paired_speedup_is_the_golden_one(c):
    assert paired_ratio(c["baseline"], c["variant"], c["confidence"]) == (c["speedup"], c["ci_low"], c["ci_high"])


def test_the_golden_intervals_are_the_sign_test_ones():
    """Independent of both implementations: each interval's ranks from the binomial
    tail by direct summation, where n is small enough to sum exactly."""
    from math import comb

    for c in GOLDEN["median_ci"]:
        xs, n = sorted(c["values"]), len(c["values"])
        if n > 60:
            continue
        half_alpha = (1 - c["confidence"]) / 2
        k = 1
        while k < (n + 1) // 2 and sum(comb(n, i) for i in range(k + 1)) / 2**n <= half_alpha:
            k += 1
        assert (xs[k - 1], xs[n - k]) == (c["ci_low"], c["ci_high"]), n


@pytest.mark.parametrize("c", GOLDEN["rounds_floor"], ids=lambda c: str(c["confidence"]))
def test_rounds_floor_is_the_golden_one(c):
    assert rounds_floor(c["confidence"]) == c["rounds"]
