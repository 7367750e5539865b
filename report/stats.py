"""Statistics, on SciPy: the report's one implementation of each estimator it computes
itself, for what a results file does not record (ratios the harness did not compare,
intervals at another confidence, changes between runs).

Speedups: the harness's paired estimator, the median of per-round ratios with its
order-statistic interval (median_ci, as harness/stats.cpp); a ratio of medians with a
percentile bootstrap interval, paired (whole rounds) or unpaired. Runs: the
Mann-Whitney U test (`scipy.stats.mannwhitneyu`) and percentile bootstrap
distributions (`scipy.stats.bootstrap`) of a run's log median, or of a paired log
ratio of medians. Two runs are independent, so the distribution of a change between
them is the difference of their two bootstrap distributions."""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy import stats

RESAMPLES = 2000
SEED = 12345


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


def _log_median(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.log(np.median(x, axis=axis))


def _log_ratio(b: np.ndarray, v: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.log(np.median(b, axis=axis)) - np.log(np.median(v, axis=axis))


@lru_cache(maxsize=4096)
def _boot(data: tuple[bytes, ...], paired: bool, resamples: int, seed: int) -> np.ndarray:
    # Keyed by the samples' bytes: a run compared twice (tests, several baselines)
    # is resampled once.
    arrays = tuple(np.frombuffer(d, dtype=float) for d in data)
    stat = _log_ratio if len(arrays) == 2 else _log_median
    res = stats.bootstrap(arrays, stat, n_resamples=resamples, paired=paired, vectorized=True,
                          method="percentile", random_state=seed)
    out = np.asarray(res.bootstrap_distribution, dtype=float)
    out.setflags(write=False)
    return out


def _as_bytes(x: list[float]) -> bytes:
    return np.ascontiguousarray(x, dtype=float).tobytes()


def log_median_boot(x: list[float], resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Bootstrap distribution (`resamples` values) of log(median(x)); x positive."""
    return _boot((_as_bytes(x),), False, resamples, seed)


def log_ratio_boot(b: list[float], v: list[float], resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Bootstrap distribution of log(median(b) / median(v)), resampling whole rounds
    (b[i] with v[i]): interleaved rounds share their drift, and pairing keeps that."""
    if len(b) != len(v):
        raise ValueError("paired samples must have equal lengths")
    return _boot((_as_bytes(b), _as_bytes(v)), True, resamples, seed)


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
    r = [a / b if b > 0 else float("inf") for a, b in zip(num[:n], den[:n])]
    return median_ci(r, confidence)


def paired_ratio_of_medians_ci(num: list[float], den: list[float], confidence: float) -> tuple[float, float]:
    """Percentile interval of median(num) / median(den), resampling whole rounds
    (log_ratio_boot): the estimator of files from before the per-round ratios."""
    tail = (1.0 - confidence) / 2.0 * 100.0
    lo, hi = np.exp(np.percentile(log_ratio_boot(num, den), [tail, 100.0 - tail]))
    return float(lo), float(hi)


def ratio_of_medians_ci(num: list[float], den: list[float], confidence: float = 0.95,
                        resamples: int = RESAMPLES, seed: int = SEED) -> tuple[float, float]:
    """Percentile bootstrap CI of median(num) / median(den), the two samples
    resampled independently (unpaired)."""
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    if len(a) == 0 or len(b) == 0:
        return float("nan"), float("nan")
    res = stats.bootstrap((a, b), lambda x, y, axis=-1: np.median(x, axis=axis) / np.median(y, axis=axis),
                          n_resamples=resamples, paired=False, vectorized=True, method="percentile",
                          confidence_level=confidence, random_state=seed)
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


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
