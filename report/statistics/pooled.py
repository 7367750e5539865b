"""One estimate for a claim tested on several cases: the geometric mean of the cases'
speedups, with a percentile bootstrap interval that resamples each case's own rounds
(whole rounds where its two sides share them, by the estimator that gave its speedup;
else each side's samples), so
the interval is of the pooled estimate itself, never an average of the cases' CI
ends. Cases are resampled independently: they ran apart."""

from __future__ import annotations

import math

import numpy as np

from . import evidence as ev
from .stats import RESAMPLES, SEED, log_median_stat, median_stat, resample


def _log_boot(sides: tuple, how: str, rng: np.random.Generator, resamples: int) -> np.ndarray | None:
    """Bootstrap distribution of one case's log speedup by the estimator that gave it
    (evidence.estimator_for), in bounded memory and time (stats.resample)."""
    ref, var = sides
    a, b = np.asarray(ref.per_unit_times), np.asarray(var.per_unit_times)
    if len(a) == 0 or len(b) == 0:
        return None

    def draw(n, shape):
        return rng.integers(0, n, shape)

    if ref.case is var.case and len(a) == len(b):  # paired rounds: resample whole rounds
        if how == ev.OF_MEDIANS:
            return resample((a, b), _log_ratio_of_medians, draw, resamples)
        return resample((a / b,), log_median_stat, draw, resamples)
    return np.log(resample((a,), median_stat, draw, resamples) / resample((b,), median_stat, draw, resamples))


def _log_ratio_of_medians(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.log(np.median(a, axis=axis) / np.median(b, axis=axis))


def geometric_mean(speedups: list[float]) -> float:
    return math.exp(sum(math.log(s) for s in speedups) / len(speedups))


def pooled_ci(
    cases: list[tuple[tuple, str]], confidence: float, resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[float, float] | None:
    """Percentile interval of the geometric mean over cases, each (sides, estimator),
    sides = (reference, variant);
    None where a case has no samples to resample."""
    rng = np.random.default_rng(seed)
    boots = [_log_boot(s, how, rng, resamples) for s, how in cases]
    if not boots or any(b is None for b in boots):
        return None
    mean = np.mean(np.vstack(boots), axis=0)
    tail = (1.0 - confidence) / 2.0 * 100.0
    lo, hi = np.percentile(mean, [tail, 100.0 - tail])
    return float(np.exp(lo)), float(np.exp(hi))
