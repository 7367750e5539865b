"""A measured comparison (torch.utils.benchmark's Measurement): a speedup, its interval,
what the interval is between (its basis) and where the figures come from. The report
makes one for every speedup it shows, gates or judges: document.py as it loads a
comparison (its one estimate, its first process's ratio, each process's), claims for a
ratio the harness did not record (evidence.py).

A comparison's one estimate is what the harness recorded (experiments[].estimates,
harness/two_level.h): its estimand is what a fresh process gets. With ratios from
K >= 2 processes the estimate is their geometric mean with Student's t interval on the
mean log ratio (K - 1 degrees of freedom): the process is the unit. With one process it
is that process's median of per-round ratios with its order-statistic interval (the
rounds are the unit), and the file says so ("unit").

Files from before the harness recorded it get the same figures here, from what they
do record (the first process's comparison and its further processes' records), by the same formulas;
tests/data/two_level_golden.json holds one input both implementations must agree on."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from scipy import stats

from ..load.numbers import is_num

PROCESS, ROUND = "process", "round"


class Source(Enum):
    """Where a measurement's figures come from."""

    RECORDED = "recorded"  # by the harness, as the file has them
    DERIVED = "derived"  # here, from recorded figures by the harness's formulas (an older file, a ratio of ratios)
    COMPUTED = "computed"  # here, from the raw samples


@dataclass(frozen=True)
class Measurement:
    """A speedup with its interval, the interval's basis and where it comes from."""

    speedup: float | None  # None: the process recorded no ratio (`missing` says why)
    ci_low: float | None  # None: no interval (one process below the rounds floor, ...)
    ci_high: float | None
    confidence: float
    # The basis: what the interval's spread is between (PROCESS or ROUND), how many of
    # them (processes, or interleaved rounds) and, between processes, the t's degrees of freedom.
    unit: str = ROUND
    n: int | None = None
    df: int | None = None
    rounds: int | None = None  # interleaved rounds behind the (first) process's ratio
    floor: int | None = None  # the rounds an interval at `confidence` needs
    below_floor: bool = False  # fewer rounds than the floor: no interval
    paired: bool = True  # False: medians of two cases' samples, no rounds in common
    process: int | None = None  # the one process it is from (0: the first); None: across processes
    source: Source = Source.RECORDED
    missing: str = ""  # why the process recorded no ratio

    @property
    def has_ci(self) -> bool:
        """An interval, at or above the rounds floor (older files wrote [min, max] of too
        few rounds as one)."""
        return not self.below_floor and is_num(self.ci_low) and is_num(self.ci_high)

    @property
    def rel_width(self) -> float | None:
        """(high - low) / estimate."""
        return (self.ci_high - self.ci_low) / self.speedup if self.has_ci and self.speedup > 0 else None

    @property
    def basis(self) -> str:
        """'7 processes' or '42 rounds in one process'."""
        if self.unit == PROCESS:
            return f"{self.n} processes"
        return f"{self.n} rounds in one process" if self.n else "one process"


def t_interval(speedups: list[float], confidence: float) -> tuple[float, float, float] | None:
    """Geometric mean of the speedups and Student's t interval of their mean log; None
    with fewer than two."""
    logs = [math.log(s) for s in speedups if is_num(s) and s > 0]
    k = len(logs)
    if k < 2:
        return None
    mean = sum(logs) / k
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (k - 1))
    half = float(stats.t.ppf(0.5 + confidence / 2.0, k - 1)) * sd / math.sqrt(k)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def from_processes(
    first: float | None,
    further: list[float],
    confidence: float,
    within_ci: tuple[float | None, float | None],
    rounds: int | None,
) -> Measurement | None:
    """For a file without experiments[].estimates: across its processes where it recorded
    further ones (the first process's ratio `first` and each further one's), else the
    first process's own ratio and interval (within_ci, None below the rounds floor)."""
    if first is None or first <= 0:
        return None
    per_process = [first] + [x for x in further if x > 0]
    if len(per_process) >= 2:
        g, lo, hi = t_interval(per_process, confidence)
        k = len(per_process)
        return Measurement(g, lo, hi, confidence, PROCESS, k, k - 1, source=Source.DERIVED)
    lo, hi = within_ci
    return Measurement(first, lo, hi, confidence, ROUND, rounds, source=Source.DERIVED)
