"""Measurements the claims are judged on, found in a results document: the
speedup of one variant over another with a bootstrap CI, from the raw samples
(per item of work, so variants that do different amounts compare fairly)."""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .fmt import is_num
from .stats import ratio_of_medians_ci
from .tables import primary_samples


@dataclass
class Ratio:
    speedup: float  # how many times faster `variant` is than `reference`
    ci_low: float
    ci_high: float
    paired: bool


def items(case: dict, variant: dict) -> float:
    """Items of work one step of the variant does (its own units, else the case's)."""
    for units in (variant.get("units"), case.get("units")):
        if isinstance(units, dict):
            for key in ("items", "flops", "bytes"):
                if is_num(units.get(key)) and units[key] > 0:
                    return float(units[key])
    return 1.0


def per_item_times(case: dict, variant: dict) -> list[float]:
    n = items(case, variant)
    return [t / n for t in primary_samples(case, variant)]


def paired_ratio_ci(num: list[float], den: list[float], confidence: float = 0.95, resamples: int = 2000,
                    seed: int = 12345) -> tuple[float, float]:
    """Percentile bootstrap CI of median(num) / median(den) resampling whole rounds
    (scipy.stats.bootstrap, paired): sample i of both was taken in the same
    interleaved round, so the drift they shared cancels."""
    def ratio_of_medians(a, b, axis=-1):
        return np.median(a, axis=axis) / np.median(b, axis=axis)

    if len(num) < 2 or len(num) != len(den):
        return float("nan"), float("nan")  # no spread to resample
    with warnings.catch_warnings():  # all resamples equal: a zero-width CI is the answer
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        res = stats.bootstrap((np.asarray(num, dtype=float), np.asarray(den, dtype=float)), ratio_of_medians,
                              paired=True, vectorized=True, confidence_level=confidence, n_resamples=resamples,
                              method="percentile", random_state=np.random.default_rng(seed))
    lo, hi = res.confidence_interval
    if not (np.isfinite(lo) and np.isfinite(hi)):
        est = float(ratio_of_medians(np.asarray(num), np.asarray(den)))
        lo = hi = est
    return float(lo), float(hi)


def ratio(case_ref: dict, ref: dict, case_var: dict, var: dict) -> Ratio | None:
    """Speedup of `var` over `ref` per item, paired when both come from the same case's
    rounds, else from independent resamples. None without samples on both sides."""
    a, b = per_item_times(case_ref, ref), per_item_times(case_var, var)
    if not a or not b:
        return None
    est = float(np.median(a) / np.median(b))
    paired = case_ref is case_var and len(a) == len(b)
    lo, hi = paired_ratio_ci(a, b) if paired else ratio_of_medians_ci(a, b)
    return Ratio(est, lo, hi, paired)


def variant_named(case: dict, pattern: str) -> dict | None:
    """The first variant of the case that ran and whose name matches the regular expression."""
    for v in case.get("variants", []) or []:
        if re.search(pattern, str(v.get("name", ""))) and v.get("status", "ok") == "ok":
            return v
    return None


def ok_cases(doc: dict, experiment_pattern: str | None = None):
    """(experiment, case) for every case that ran (ok or interrupted)."""
    for e in doc.get("experiments", []) or []:
        if experiment_pattern and not re.search(experiment_pattern, str(e.get("name", ""))):
            continue
        for c in e.get("cases", []) or []:
            if c.get("status") in ("ok", "interrupted"):
                yield e, c
