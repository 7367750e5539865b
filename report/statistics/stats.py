"""Statistics, on SciPy: the report's one implementation of each estimator it computes
itself, for what a results file does not record (ratios the harness did not compare,
intervals at another confidence, changes between runs).

Speedups: the harness's paired estimator, the median of per-round ratios with its
order-statistic interval (median_ci, as harness/stats.cpp); a ratio of medians with a
percentile bootstrap interval, paired (whole rounds) or unpaired. Runs: the
Mann-Whitney U test (`scipy.stats.mannwhitneyu`) and percentile bootstrap
distributions of a run's log median, or of a paired log ratio of medians. Two runs are
independent, so the distribution of a change between them is the difference of their
two bootstrap distributions.

Every bootstrap is resample(): its memory and time do not grow with the samples (a
file may hold millions a variant), see MAX_RESAMPLED and BATCH_ELEMENTS."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy import stats

RESAMPLES = 2000
SEED = 12345
# The most samples (or rounds) a side one resample draws. Up to it, the ordinary bootstrap (n
# of n), draw for draw the one scipy.stats.bootstrap makes; committed files hold at most ~1,300
# a variant. Above it, the m-out-of-n bootstrap (Bickel, Goetze and van Zwet 1997, Statistica
# Sinica 7:1-31): m = MAX_RESAMPLED of the n, each statistic's deviation from the whole
# sample's shrunk by sqrt(m / n), which is consistent for a median and smooth functions of
# medians (their error falls as 1 / sqrt(n)); at m = 10,000 the interval differs from the full
# bootstrap's by about the Monte Carlo error of RESAMPLES (test_large_files.py). Time: RESAMPLES x m.
MAX_RESAMPLED = 10_000
# Resample indices drawn at once: memory is a few arrays of this many values (16 MB each),
# whatever RESAMPLES and the samples; drawing in batches leaves the draws as they were.
BATCH_ELEMENTS = 1 << 21


def median(values: list[float]) -> float:
    return float(np.median(np.asarray(values, dtype=float))) if len(values) else float("nan")


def mann_whitney_p(x: list[float], y: list[float]) -> float:
    """Two-sided p of SciPy's Mann-Whitney U test (exact for small samples without
    ties, else the normal approximation with tie and continuity correction); 1.0
    when a sample is empty or every value ties (the samples say nothing)."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(a) == 0 or len(b) == 0 or np.all(np.concatenate([a, b]) == a[0]):
        return 1.0
    p = float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)
    return min(1.0, p) if math.isfinite(p) else 1.0


def smallest_p(n1: int, n2: int) -> float:
    """The smallest two-sided p the exact U test can reach with n1 and n2 samples
    (complete separation): with alpha at or below it, no change can be significant."""
    if n1 < 1 or n2 < 1:
        return 1.0
    log_comb = math.lgamma(n1 + n2 + 1) - math.lgamma(n1 + 1) - math.lgamma(n2 + 1)
    return min(1.0, 2.0 * math.exp(-log_comb))


def median_stat(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.median(x, axis=axis)


def log_median_stat(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.log(np.median(x, axis=axis))


def _log_ratio(b: np.ndarray, v: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.log(np.median(b, axis=axis)) - np.log(np.median(v, axis=axis))


def resample(arrays: tuple[np.ndarray, ...], stat, draw, resamples: int = RESAMPLES) -> np.ndarray:
    """stat(*arrays) on each of `resamples` resamples with replacement, the arrays (equal
    lengths: one side, or paired rounds) sharing each resample's indices. draw(n, shape)
    gives indices in [0, n); drawn in batches of at most BATCH_ELEMENTS, in the order one
    draw of them all would give. Above MAX_RESAMPLED, m-out-of-n (see MAX_RESAMPLED)."""
    n = len(arrays[0])
    m = min(n, MAX_RESAMPLED)
    out = np.empty(resamples)
    per = max(1, BATCH_ELEMENTS // m)
    for k in range(0, resamples, per):
        idx = draw(n, (min(per, resamples - k), m))
        out[k : k + len(idx)] = stat(*(a[idx] for a in arrays), axis=-1)
    if m < n:
        whole = stat(*arrays, axis=-1)
        out = whole + math.sqrt(m / n) * (out - whole)
    return out


def _scipy_draw(seed: int):
    """The indices scipy.stats.bootstrap(random_state=seed) draws, in its order."""
    rng = np.random.RandomState(seed)
    return lambda n, shape: rng.randint(0, n, shape)


@lru_cache(maxsize=4096)
def _boot(data: tuple[bytes, ...], resamples: int, seed: int) -> np.ndarray:
    # Keyed by the samples' bytes: a run compared twice (tests, several baselines)
    # is resampled once. Two arrays are paired rounds.
    arrays = tuple(np.frombuffer(d, dtype=float) for d in data)
    stat = _log_ratio if len(arrays) == 2 else log_median_stat
    out = resample(arrays, stat, _scipy_draw(seed), resamples)
    out.setflags(write=False)
    return out


def _as_bytes(x: list[float]) -> bytes:
    return np.ascontiguousarray(x, dtype=float).tobytes()


def log_median_boot(x: list[float], resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Bootstrap distribution (`resamples` values) of log(median(x)); x positive."""
    return _boot((_as_bytes(x),), resamples, seed)


def log_ratio_boot(b: list[float], v: list[float], resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Bootstrap distribution of log(median(b) / median(v)), resampling whole rounds
    (b[i] with v[i]): interleaved rounds share their drift, and pairing keeps that."""
    if len(b) != len(v):
        raise ValueError("paired samples must have equal lengths")
    return _boot((_as_bytes(b), _as_bytes(v)), resamples, seed)


def diff_ci(cur: np.ndarray, base: np.ndarray, confidence: float, seed: int = SEED) -> tuple[float, float]:
    """Percentile interval of (cur - base) from two runs' independent bootstrap
    distributions. One is shuffled first: equal seeds gave both runs the same
    resample indices, which must not pair them."""
    base = np.random.default_rng(seed).permutation(base)
    d = cur - base
    d = d[np.isfinite(d)]
    if len(d) == 0:
        return float("nan"), float("nan")
    tail = (1.0 - confidence) / 2.0 * 100.0
    lo, hi = np.percentile(d, [tail, 100.0 - tail])
    return float(lo), float(hi)


def paired_ratio(num: list[float], den: list[float], confidence: float) -> tuple[float, float, float]:
    """Median of the per-round ratios num[i] / den[i] with its order-statistic CI (the
    harness's estimator): sample i of both was taken in the same interleaved round, so
    the drift they shared cancels in each ratio."""
    n = min(len(num), len(den))
    a, b = np.asarray(num[:n], dtype=float), np.asarray(den[:n], dtype=float)
    with np.errstate(divide="ignore"):  # a zero time's ratio is +inf, as it was
        r = np.where(b > 0, a / np.where(b > 0, b, 1.0), np.inf)
    return median_ci(r, confidence)


def paired_ratio_of_medians_ci(num: list[float], den: list[float], confidence: float) -> tuple[float, float]:
    """Percentile interval of median(num) / median(den), resampling whole rounds
    (log_ratio_boot): the estimator of files from before the per-round ratios."""
    tail = (1.0 - confidence) / 2.0 * 100.0
    lo, hi = np.exp(np.percentile(log_ratio_boot(num, den), [tail, 100.0 - tail]))
    return float(lo), float(hi)


def ratio_of_medians_ci(
    num: list[float], den: list[float], confidence: float = 0.95, resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[float, float]:
    """Percentile bootstrap CI of median(num) / median(den), the two samples
    resampled independently (unpaired): scipy.stats.bootstrap's draws (num's, then den's),
    a side at a time, as the statistic is a ratio of the two sides' medians."""
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    if len(a) == 0 or len(b) == 0:
        return float("nan"), float("nan")
    draw = _scipy_draw(seed)
    ratios = resample((a,), median_stat, draw, resamples) / resample((b,), median_stat, draw, resamples)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = stats.quantile(ratios, np.asarray([alpha, 1.0 - alpha]))  # scipy.stats.bootstrap's percentiles
    return float(lo), float(hi)


def median_ci(values: list[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Median with its order-statistic (sign-test) interval: the harness's own
    estimator (harness/stats.cpp, median_ci). [x_(k), x_(n+1-k)] with k the
    largest rank whose Binomial(n, 1/2) tail P(X <= k-1) is at most alpha/2
    (at least 1: [min, max]); its exact coverage is 1 - 2 P(X <= k-1)."""
    x = np.sort(np.asarray(values, dtype=float))
    n = len(x)
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    # The tail grows with the rank: k - 1 counts the ranks below the middle whose tail fits.
    k = 1 + int(np.sum(stats.binom.cdf(np.arange(1, (n + 1) // 2), n, 0.5) <= (1.0 - confidence) / 2.0))
    return float(np.median(x)), float(x[k - 1]), float(x[n - k])
