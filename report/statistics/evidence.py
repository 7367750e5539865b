"""Speedups the claims are judged on, between two variants of a results document, per
item of work (so variants that do different amounts compare fairly).

Where the harness compared the two (a variant against its case's baseline) the
ratio is the recorded comparison, at the confidence it was recorded at. Otherwise the
report computes it from the raw samples (stats.py): variants of one case were
sampled in the same interleaved rounds, so the harness's own estimator, the median
of per-round ratios with its order-statistic CI; variants of different cases have no
rounds in common, so a ratio of medians with an unpaired bootstrap CI. Either way a
ratio from fewer rounds (or, unpaired, samples a side) than the floor at its
confidence has no CI (rounds.py). The sites that compute: a reference that is not
the baseline (AMP against TF32), DDP against DataParallel, and a headline's CI
re-read at a corrected confidence (reestimate)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..load.document import Comparison, Variant
from .measurement import Measurement, Source
from .multiplicity import rounds_floor
from .stats import paired_ratio, paired_ratio_of_medians_ci, ratio_of_medians_ci


def _computed(
    s: float, lo: float | None, hi: float | None, n: int, confidence: float, paired: bool = True
) -> Measurement:
    """A ratio computed here from n rounds (unpaired: the fewer samples of the two sides):
    below the floor at its confidence, no CI."""
    floor = rounds_floor(confidence)
    below = n < floor
    return Measurement(
        s,
        None if below else lo,
        None if below else hi,
        confidence,
        n=n,
        rounds=n,
        floor=floor,
        below_floor=below,
        paired=paired,
        process=0,
        source=Source.COMPUTED,
    )


def recorded(cm: Comparison) -> Measurement | None:
    """The harness's comparison (its first process's ratio); below its floor, no CI
    (older files wrote [min, max] of too few rounds as one)."""
    t = cm.first_process
    if t.speedup is None:
        return None
    if t.below_floor:
        return replace(t, ci_low=None, ci_high=None)
    lo, hi = (t.speedup if x is None else x for x in (t.ci_low, t.ci_high))
    return replace(t, ci_low=lo, ci_high=hi)


def computed(ref: Variant, var: Variant, confidence: float) -> Measurement | None:
    """Speedup of `var` over `ref` per item from the samples, paired when both come from
    the same case's rounds, else from independent resamples, its CI at `confidence`
    (below that confidence's rounds floor, none). None without samples on both sides."""
    a, b = ref.per_unit_times, var.per_unit_times
    if not a or not b:
        return None
    n = min(len(a), len(b))
    if ref.case is var.case and len(a) == len(b):
        return _computed(*paired_ratio(a, b, confidence), n, confidence)
    lo, hi = ratio_of_medians_ci(a, b, confidence)
    return _computed(float(np.median(a) / np.median(b)), lo, hi, n, confidence, paired=False)


def ratio(ref: Variant, var: Variant, confidence: float) -> Measurement | None:
    """The recorded comparison of `var` against `ref` where the harness made it at this
    confidence, else computed from the samples."""
    cm = var.case.comparison(var.name, ref.name) if ref.case is var.case else None
    if cm is not None and cm.speedup is not None and abs(cm.confidence - confidence) < 1e-12:
        return recorded(cm)
    return computed(ref, var, confidence)


def reproduces(r: Measurement | None, speedup: float, rel: float = 1e-3) -> bool:
    return r is not None and abs(r.speedup / speedup - 1.0) <= rel


PER_ROUND, OF_MEDIANS = "median of per-round ratios", "ratio of medians over paired rounds"


def estimator_for(sides: tuple | None, speedup: float) -> str | None:
    """Which estimator gives the recorded speedup from the samples of sides (reference,
    variant): the harness's median of per-round ratios, or (older files) the ratio of
    medians of rounds taken together; None when neither does (no samples, or samples
    out of round order), and then the rounds cannot be re-read at another confidence or
    resampled."""
    if sides is None:
        return None
    ref, var = sides
    if reproduces(computed(ref, var, ref.case.experiment.document.confidence), speedup):
        return PER_ROUND
    a, b = ref.per_unit_times, var.per_unit_times
    if ref.case is var.case and len(a) == len(b) > 1 and abs(np.median(a) / np.median(b) / speedup - 1.0) <= 1e-3:
        return OF_MEDIANS
    return None


def reestimate(sides: tuple, speedup: float, confidence: float) -> Measurement | None:
    """The recorded speedup's CI at `confidence` (the file records it at the run's), by
    the estimator that gave it: the order-statistic interval of the per-round ratios, or
    a percentile bootstrap resampling whole rounds for a ratio of medians; None where
    neither gives it."""
    how = estimator_for(sides, speedup)
    if how == PER_ROUND:
        return computed(*sides, confidence)
    if how is None:
        return None
    a, b = sides[0].per_unit_times, sides[1].per_unit_times
    lo, hi = paired_ratio_of_medians_ci(a, b, confidence)
    return _computed(float(np.median(a) / np.median(b)), lo, hi, len(a), confidence)
