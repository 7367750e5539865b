"""Noise floors: how far apart two runs of the same code on the same machine can
land, per pair, so that the gate calls only changes beyond that.

The noise that matters for a gate is between runs (clocks, memory placement, host
memcpy paths, other tenants). One run does not show it: a case sampled 1000 times
pins its own median to 0.1%, while the next run of the same binary lands 5% away.
So the floor is not the within-run CI; it is a model of the between-run change,
built from what one results file holds and calibrated on same-commit runs in
report/tests/fixtures (three standard H100 runs minutes apart, three CPU runs):

  floor = max(min_effect, hypot(BASE[what][kind], SPREAD_FACTOR * spread), history)

- BASE: what even a steady case moves between runs, by how it was timed (kind) and
  whether the pair is a time or a speedup (what). 'device' (primary metric device_s,
  CUDA events): 2.5%. On the H100 runs, device-timed cases with a 10-90% spread
  under 1% (fp32 matmuls, ResNet-50 and GPT steps, cudnn steps) moved at most 0.8%;
  the rest of the 2.5% is margin for runs further apart than minutes, which these
  data do not cover. 'host' (host_s on a GPU run: synchronous copies, data loading,
  steps on the host clock): 6%. The pinned 1 MiB copy (spread 4-5%) moved 5.7%: host
  timing adds the host's own between-run state (frequency, scheduling, page
  placement). 'cpu' (a CPU run): speedups 6%, as host timing; times 140%. Three
  standard runs of one binary on the 2-core CI-class VM, 100 s apart while other
  jobs compiled (cpu_shared_2core fixtures), moved per-case times by up to 2.1x in
  either direction (a 513^3 matmul with a 5% spread by 34%), while every speedup,
  both variants sampled in the same rounds, stayed well within its floor (at most
  0.44 of it). So on a shared CPU the times gate only on gross changes and the
  speedups carry the gate; 140% puts the largest of those time changes at 0.82 of
  its floor, the margin the H100 runs got.
- spread: half the 10-90% range of the log samples of each run (per-round log
  ratios for a speedup), the larger of the two runs. A case that scatters within a
  run lands in different places between runs too: pageable copies (10-90% spread
  10-40%) moved up to 24%. The 10-90% range rather than the IQR, because a pageable
  copy's slow tail (page faults) marks it before its IQR does: the copy+compute step
  has an IQR of 4.5-7.6% but moved 14.5%.
- SPREAD_FACTOR = 2: with it the largest change between the H100 runs (a pageable
  1 MiB copy, 16%) is 0.82 of its floor; with 1.5 it would be 1.06, past the floor.
- processes: where a run measured the comparison in several processes
  (config.measure.processes, report/processes.py), each run's processes are
  same-code runs too: HISTORY_Z * sqrt(2) * s, s the standard deviation of their log
  speedups about each run's own mean, pooled over the two runs (a real change
  between the runs does not widen it). Like history, it only widens.
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

import numpy as np

BASE = {"time": {"device": 0.025, "host": 0.06, "cpu": 1.40},
        "speedup": {"device": 0.025, "host": 0.06, "cpu": 0.06}}
SPREAD_FACTOR = 2.0
HISTORY_Z = 3.0


def kind(doc: dict, case: dict) -> str:
    """'cpu' for a CPU run, else 'device' (CUDA-event timed) or 'host' (host clock)."""
    if (doc.get("environment") or {}).get("device") == "cpu":
        return "cpu"
    return "device" if case.get("primary_metric") == "device_s" else "host"


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


def process_floor(per_run: list[list[float]]) -> float | None:
    """Relative floor from each run's processes (log speedups), pooled about each run's
    own mean; None where no run has two."""
    squares, dof = 0.0, 0
    for logs in per_run:
        if len(logs) >= 2:
            m = sum(logs) / len(logs)
            squares += sum((x - m) ** 2 for x in logs)
            dof += len(logs) - 1
    if dof == 0:
        return None
    return math.expm1(HISTORY_Z * math.sqrt(2.0) * math.sqrt(squares / dof))


@dataclass
class Floor:
    value: float  # relative change, e.g. 0.04 = 4%
    source: str   # what set it: "model", "processes", "history", "min effect" or "fixed"


def floor_for(kind_name: str, what: str, spreads: list[float], history: list[float], min_effect: float,
              fixed: float | None = None, processes: list[list[float]] | None = None) -> Floor:
    """The floor a pair ('time' or 'speedup') is judged against; `fixed` (--threshold)
    replaces the model and history."""
    if fixed is not None:
        return Floor(max(fixed, min_effect), "fixed")
    # In log units (spreads are of log samples); the base is a relative change.
    base = math.log1p(BASE[what][kind_name])
    model = math.expm1(math.hypot(base, SPREAD_FACTOR * max(spreads, default=0.0)))
    best = Floor(model, "model")
    procs = process_floor(processes or [])
    if procs is not None and procs > best.value:
        best = Floor(procs, "processes")
    hist = history_floor(history)
    if hist is not None and hist > best.value:
        best = Floor(hist, "history")
    if min_effect > best.value:
        best = Floor(min_effect, "min effect")
    return best
