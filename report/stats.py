"""Two-sample statistics for comparing runs: the Mann-Whitney U test (normal
approximation with tie and continuity correction, as in Google Benchmark's
compare.py / scipy's method='asymptotic') and a bootstrap CI of the ratio of medians."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class MannWhitney:
    u: float  # U statistic of the first sample
    z: float
    p: float  # two-sided


def rank_with_ties(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks (1-based) and the sizes of the tie groups."""
    order = np.argsort(values, kind="mergesort")
    sorted_v = values[order]
    n = len(values)
    ranks = np.empty(n, dtype=float)
    ties = []
    i = 0
    while i < n:
        j = i
        while j + 1 < n and sorted_v[j + 1] == sorted_v[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1.0
        ties.append(j - i + 1)
        i = j + 1
    return ranks, np.asarray(ties, dtype=float)


def mann_whitney_u(x: list[float], y: list[float]) -> MannWhitney:
    """Two-sided Mann-Whitney U test of x against y. p = 1 when the samples give no
    information (all values tied, or an empty sample)."""
    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    n1, n2 = len(a), len(b)
    if n1 == 0 or n2 == 0:
        return MannWhitney(float("nan"), 0.0, 1.0)
    ranks, ties = rank_with_ties(np.concatenate([a, b]))
    n = n1 + n2
    u1 = float(ranks[:n1].sum() - n1 * (n1 + 1) / 2.0)
    mu = n1 * n2 / 2.0
    tie_term = float(((ties ** 3) - ties).sum()) / (n * (n - 1)) if n > 1 else 0.0
    var = n1 * n2 / 12.0 * ((n + 1) - tie_term)
    if var <= 0:
        return MannWhitney(u1, 0.0, 1.0)
    d = u1 - mu
    d = math.copysign(max(abs(d) - 0.5, 0.0), d)  # continuity correction
    z = d / math.sqrt(var)
    p = math.erfc(abs(z) / math.sqrt(2.0))
    return MannWhitney(u1, z, min(1.0, p))


def median(values: list[float]) -> float:
    return float(np.median(np.asarray(values, dtype=float))) if len(values) else float("nan")


def ratio_of_medians_ci(num: list[float], den: list[float], confidence: float = 0.95,
                        resamples: int = 2000, seed: int = 12345) -> tuple[float, float]:
    """Percentile bootstrap CI of median(num) / median(den), resampling the two
    (independent, unpaired) samples separately."""
    a = np.asarray(num, dtype=float)
    b = np.asarray(den, dtype=float)
    if len(a) == 0 or len(b) == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    ma = np.median(a[rng.integers(0, len(a), size=(resamples, len(a)))], axis=1)
    mb = np.median(b[rng.integers(0, len(b), size=(resamples, len(b)))], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = ma / mb
    r = r[np.isfinite(r)]
    if len(r) == 0:
        return float("nan"), float("nan")
    tail = (1.0 - confidence) / 2.0 * 100.0
    lo, hi = np.percentile(r, [tail, 100.0 - tail])
    return float(lo), float(hi)
