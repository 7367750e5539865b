"""Noise floors: how far apart two runs of the same code on the same machine can
land, per pair, so that the gate calls only changes beyond that.

The noise that matters for a gate is between runs (clocks, memory placement, host
memcpy paths, other tenants), which no within-run CI shows. So the floor is a model
of the between-run change, built from what one results file holds and calibrated on
same-commit runs in report/tests/fixtures (three standard H100 runs minutes apart,
three CPU runs on a shared 2-core VM); docs/report.md ("The noise floor") gives the
measurements behind each constant.

  floor = max(min_effect, hypot(BASE[what][kind], SPREAD_FACTOR * spread), history)

- BASE: what even a steady case moves between runs, by how it was timed (kind) and
  whether the pair is a time or a speedup (what): 'device' (CUDA events) 2.5%,
  'host' (host clock on a GPU run) 6%, 'cpu' speedups 6% and times 140% (a shared
  CPU moves per-case times by up to 2.1x between runs while the speedups, both
  variants sampled in the same rounds, hold: there the speedups carry the gate).
- spread: half the 10-90% range of the log samples of each run (per-round log
  ratios for a speedup), the larger of the two runs: a case that scatters within a
  run lands in different places between runs too. The 10-90% range rather than the
  IQR, because a slow tail (a pageable copy's page faults) marks it first. A speedup
  whose interval is between processes brings none: its spread is in its interval.
- SPREAD_FACTOR = 2: the largest change between the H100 runs is then 0.82 of its
  floor (1.06 with 1.5); between the CPU runs 0.82 for times, 0.44 for speedups.
- history: with other runs of the same code on the same GPU (committed baselines),
  HISTORY_Z * sqrt(2) * s, where s is the standard deviation of the pair's log
  median (or log speedup) across them. History only widens a floor: two or three
  runs estimate a spread too loosely to narrow one (1-2 degrees of freedom), but a
  change that same-code runs showed must not fail the gate.

A change that makes a case noisier widens its own floor (the floor uses the noisier
run); the table shows every floor, so that is visible rather than hidden."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..load.document import Case

BASE = {"time": {"device": 0.025, "host": 0.06, "cpu": 1.40}, "speedup": {"device": 0.025, "host": 0.06, "cpu": 0.06}}
SPREAD_FACTOR = 2.0
HISTORY_Z = 3.0


def kind(case: Case) -> str:
    """'cpu' for a CPU run, else 'device' (CUDA-event timed) or 'host' (host clock)."""
    if case.experiment.document.device == "cpu":
        return "cpu"
    return "device" if case.primary_metric == "device_s" else "host"


def spread(log_values: np.ndarray) -> float:
    """Half the 10-90% range of log values (1.28 sigma for normal noise)."""
    if len(log_values) < 2:
        return 0.0
    lo, hi = np.percentile(log_values, [10, 90])
    return float(hi - lo) / 2.0


def history_floor(log_values: list[float]) -> float | None:
    """Relative floor from the pair's value (log) in several same-code runs; None with fewer than two."""
    if len(log_values) < 2:
        return None
    return math.expm1(HISTORY_Z * math.sqrt(2.0) * float(np.std(log_values, ddof=1)))


@dataclass
class Floor:
    value: float  # relative change, e.g. 0.04 = 4%
    source: str  # what set it: "model", "history", "min effect" or "fixed"


def floor_for(
    kind_name: str, what: str, spreads: list[float], history: list[float], min_effect: float, fixed: float | None = None
) -> Floor:
    """The floor a pair ('time' or 'speedup') is judged against; `fixed` (--threshold)
    replaces the model and history. spreads: none for a speedup whose interval is
    between processes (its spread is in the interval)."""
    if fixed is not None:
        return Floor(max(fixed, min_effect), "fixed")
    # In log units (spreads are of log samples); the base is a relative change.
    base = math.log1p(BASE[what][kind_name])
    model = math.expm1(math.hypot(base, SPREAD_FACTOR * max(spreads, default=0.0)))
    best = Floor(model, "model")
    hist = history_floor(history)
    if hist is not None and hist > best.value:
        best = Floor(hist, "history")
    if min_effect > best.value:
        best = Floor(min_effect, "min effect")
    return best
