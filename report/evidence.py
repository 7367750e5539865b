"""Measurements the claims are judged on, found in a results document: the
speedup of one variant over another with its CI, from the raw samples (per item
of work, so variants that do different amounts compare fairly). Variants of one
case were sampled in the same interleaved rounds: their speedup is the harness's
own estimator, the median of per-round ratios with its order-statistic CI, so a
claim and the case's comparison agree. Variants of different cases have no
rounds in common: a ratio of medians with an unpaired bootstrap CI. Either way a
ratio from fewer rounds (or, unpaired, samples a side) than the floor has no CI
(rounds.py): the order statistics cannot reach 95%, and a bootstrap that resamples
them cannot either."""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .fmt import is_num
from .multiplicity import rounds_floor
from .rounds import too_few
from .stats import log_ratio_boot, median_ci, ratio_of_medians_ci
from .tables import primary_samples, work_amount


@dataclass
class Ratio:
    speedup: float  # how many times faster `variant` is than `reference`
    ci_low: float | None  # None below the rounds floor: no CI
    ci_high: float | None
    paired: bool
    rounds: int  # paired: the rounds; unpaired: the fewer samples of the two sides
    confidence: float = 0.95  # of the CI (higher where a choice among settings is corrected for)

    @property
    def below_floor(self) -> bool:
        return too_few(self.rounds) or self.rounds < rounds_floor(self.confidence)


def per_unit_times(case: dict, variant: dict) -> list[float]:
    n = work_amount(case, variant)
    return [t / n for t in primary_samples(case, variant)]


def paired_ratio(num: list[float], den: list[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Median of the per-round ratios num[i] / den[i] with its order-statistic CI:
    sample i of both was taken in the same interleaved round, so the drift they
    shared cancels in each ratio."""
    n = min(len(num), len(den))
    r = [a / b if b > 0 else float("inf") for a, b in zip(num[:n], den[:n])]
    return median_ci(r, confidence)


def ratio(case_ref: dict, ref: dict, case_var: dict, var: dict, confidence: float = 0.95) -> Ratio | None:
    """Speedup of `var` over `ref` per item, paired when both come from the same case's
    rounds, else from independent resamples, its CI at `confidence` (below that
    confidence's rounds floor, none). None without samples on both sides."""
    a, b = per_unit_times(case_ref, ref), per_unit_times(case_var, var)
    if not a or not b:
        return None
    n = min(len(a), len(b))
    if case_ref is case_var and len(a) == len(b):
        r = Ratio(*paired_ratio(a, b, confidence), True, n, confidence)
    else:
        r = Ratio(float(np.median(a) / np.median(b)), *ratio_of_medians_ci(a, b, confidence), False, n, confidence)
    if r.below_floor:
        r.ci_low = r.ci_high = None
    return r


def reproduces(r: Ratio | None, speedup: float, rel: float = 1e-3) -> bool:
    return r is not None and abs(r.speedup / speedup - 1.0) <= rel


PER_ROUND, OF_MEDIANS = "median of per-round ratios", "ratio of medians over paired rounds"


def estimator_for(sides: tuple | None, speedup: float) -> str | None:
    """Which estimator gives the recorded speedup from the samples: the harness's median of
    per-round ratios, or (older files) the ratio of medians of rounds taken together; None
    when neither does (no samples, or samples out of round order), and then the rounds
    cannot be re-read at another confidence or resampled."""
    if sides is None:
        return None
    if reproduces(ratio(*sides), speedup):
        return PER_ROUND
    a, b = per_unit_times(sides[0], sides[1]), per_unit_times(sides[2], sides[3])
    if sides[0] is sides[2] and len(a) == len(b) > 1 and abs(np.median(a) / np.median(b) / speedup - 1.0) <= 1e-3:
        return OF_MEDIANS
    return None


def reestimate(sides: tuple, speedup: float, confidence: float) -> Ratio | None:
    """The recorded speedup's CI at `confidence`, by the estimator that gave it: the
    order-statistic interval of the per-round ratios, or a percentile bootstrap resampling
    whole rounds (stats.log_ratio_boot) for a ratio of medians; None where neither gives it."""
    how = estimator_for(sides, speedup)
    if how == PER_ROUND:
        return ratio(*sides, confidence=confidence)
    if how is None:
        return None
    a, b = per_unit_times(sides[0], sides[1]), per_unit_times(sides[2], sides[3])
    tail = (1.0 - confidence) / 2.0 * 100.0
    lo, hi = np.exp(np.percentile(log_ratio_boot(a, b), [tail, 100.0 - tail]))
    r = Ratio(float(np.median(a) / np.median(b)), float(lo), float(hi), True, len(a), confidence)
    if r.below_floor:
        r.ci_low = r.ci_high = None
    return r


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
