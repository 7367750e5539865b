"""The claims' speedups use the harness's own estimator: for a pair of one case,
the report's figure and CI are the case's comparison, to rounding; where the harness
compared the pair, the report reads its comparison."""

import json
import math

import numpy as np
import pytest
from conftest import REPO

from report.load.document import Document
from report.statistics import evidence as ev
from report.statistics.stats import median_ci

RUN = REPO / "results" / "2026-11-23_cpu_amd-epyc-2core_libtorch-1.13.json"


def comparisons(doc):
    for e in Document(doc).experiments:
        for c in e.cases:
            for cm in c.comparisons:
                if cm.raw.get("estimator", "").startswith("median of per-round ratios") and cm.speedup:
                    yield c, cm.baseline, cm.variant, cm


def test_paired_ratio_is_the_harness_comparison():
    doc = json.loads(RUN.read_text())
    seen = below = 0
    for c, base, var, cm in comparisons(doc):
        cmp = cm.raw
        r = ev.computed(base, var, 0.95)
        assert r.paired and r.rounds == cmp["rounds"]
        assert math.isclose(r.speedup, cmp["speedup"], rel_tol=1e-9), (c.name, var.name)
        assert ev.ratio(base, var, 0.95) == ev.recorded(cm)  # recorded: read, not recomputed
        if cmp["rounds"] < cm.floor:  # this file still wrote [min, max] of too few rounds as a CI
            assert r.below_floor and r.ci_low is None and r.ci_high is None
            below += 1
        else:
            for mine, theirs in [(r.ci_low, cmp["ci_low"]), (r.ci_high, cmp["ci_high"])]:
                assert math.isclose(mine, theirs, rel_tol=1e-9), (c.name, var.name, mine, theirs)
        seen += 1
    assert seen >= 40  # every experiment of a standard CPU run, work-normalised cases included
    assert below >= 1  # the file has comparisons from fewer rounds than the floor


def test_unpaired_ratio_below_the_floor_has_no_ci():
    """Variants of different cases: the fewer samples a side count as rounds."""
    a = {"name": "a", "samples": {"host_s": [1.0, 1.1, 0.9, 1.0, 1.05]}}
    b = {"name": "b", "samples": {"host_s": [0.5, 0.55, 0.45, 0.5, 0.52, 0.5, 0.51]}}

    def sides():
        e = Document(
            {
                "experiments": [
                    {"name": "e", "cases": [{"name": "c1", "variants": [a]}, {"name": "c2", "variants": [b]}]}
                ]
            }
        ).experiments[0]
        return e.cases[0].variants[0], e.cases[1].variants[0]

    r = ev.ratio(*sides(), 0.95)
    assert not r.paired and r.rounds == 5 and r.below_floor and r.ci_low is None
    a["samples"]["host_s"].append(1.0)
    r = ev.ratio(*sides(), 0.95)
    assert r.rounds == 6 and not r.below_floor and r.ci_low < r.speedup < r.ci_high


@pytest.mark.parametrize("n,k", [(5, 1), (6, 1), (10, 2), (20, 6), (100, 40)])
def test_median_ci_ranks(n, k):
    # Ranks of the 95% sign-test interval (k = largest with P(Binom(n, 1/2) <= k-1) <= 0.025).
    x = list(range(1, n + 1))
    med, lo, hi = median_ci(x)
    assert med == np.median(x)
    assert (lo, hi) == (k, n + 1 - k)
