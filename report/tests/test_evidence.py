"""The claims' speedups use the harness's own estimator: for a pair of one case,
the report's figure and CI are the case's comparison, to rounding."""
import json
import math

import numpy as np
import pytest

from report import evidence as ev
from report.stats import median_ci

from conftest import REPO

RUN = REPO / "results" / "2026-11-23_cpu_amd-epyc-2core_libtorch-1.13.json"


def comparisons(doc):
    for e in doc["experiments"]:
        for c in e.get("cases") or []:
            vs = {v["name"]: v for v in c.get("variants") or []}
            for cmp in c.get("comparisons") or []:
                if cmp.get("estimator", "").startswith("median of per-round ratios") and cmp.get("speedup"):
                    yield c, vs[cmp["baseline"]], vs[cmp["variant"]], cmp


def test_paired_ratio_is_the_harness_comparison():
    doc = json.loads(RUN.read_text())
    seen = 0
    for c, base, var, cmp in comparisons(doc):
        r = ev.ratio(c, base, c, var)
        assert r.paired
        for mine, theirs in [(r.speedup, cmp["speedup"]), (r.ci_low, cmp["ci_low"]), (r.ci_high, cmp["ci_high"])]:
            assert math.isclose(mine, theirs, rel_tol=1e-9), (c["name"], var["name"], mine, theirs)
        seen += 1
    assert seen >= 40  # every experiment of a standard CPU run, work-normalised cases included


@pytest.mark.parametrize("n,k", [(5, 1), (6, 1), (10, 2), (20, 6), (100, 40)])
def test_median_ci_ranks(n, k):
    # Ranks of the 95% sign-test interval (k = largest with P(Binom(n, 1/2) <= k-1) <= 0.025).
    x = list(range(1, n + 1))
    med, lo, hi = median_ci(x)
    assert med == np.median(x)
    assert (lo, hi) == (k, n + 1 - k)
