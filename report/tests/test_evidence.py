"""The claims' speedups use the harness's own estimator: for a pair of one case,
the report's figure and CI are the case's comparison, to rounding."""
import json
import math

import numpy as np
import pytest

from report import evidence as ev
from report.rounds import ROUNDS_FLOOR
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
    seen = below = 0
    for c, base, var, cmp in comparisons(doc):
        r = ev.ratio(c, base, c, var)
        assert r.paired and r.rounds == cmp["rounds"]
        assert math.isclose(r.speedup, cmp["speedup"], rel_tol=1e-9), (c["name"], var["name"])
        if cmp["rounds"] < ROUNDS_FLOOR:  # this file still wrote [min, max] of too few rounds as a CI
            assert r.below_floor and r.ci_low is None and r.ci_high is None
            below += 1
        else:
            for mine, theirs in [(r.ci_low, cmp["ci_low"]), (r.ci_high, cmp["ci_high"])]:
                assert math.isclose(mine, theirs, rel_tol=1e-9), (c["name"], var["name"], mine, theirs)
        seen += 1
    assert seen >= 40  # every experiment of a standard CPU run, work-normalised cases included
    assert below >= 1  # the file has comparisons from fewer rounds than the floor


def test_unpaired_ratio_below_the_floor_has_no_ci():
    """Variants of different cases: the fewer samples a side count as rounds."""
    a = {"name": "a", "samples": {"host_s": [1.0, 1.1, 0.9, 1.0, 1.05]}}
    b = {"name": "b", "samples": {"host_s": [0.5, 0.55, 0.45, 0.5, 0.52, 0.5, 0.51]}}
    r = ev.ratio({"name": "c1"}, a, {"name": "c2"}, b)
    assert not r.paired and r.rounds == 5 and r.below_floor and r.ci_low is None
    a["samples"]["host_s"].append(1.0)
    r = ev.ratio({"name": "c1"}, a, {"name": "c2"}, b)
    assert r.rounds == 6 and not r.below_floor and r.ci_low < r.speedup < r.ci_high


@pytest.mark.parametrize("n,k", [(5, 1), (6, 1), (10, 2), (20, 6), (100, 40)])
def test_median_ci_ranks(n, k):
    # Ranks of the 95% sign-test interval (k = largest with P(Binom(n, 1/2) <= k-1) <= 0.025).
    x = list(range(1, n + 1))
    med, lo, hi = median_ci(x)
    assert med == np.median(x)
    assert (lo, hi) == (k, n + 1 - k)
