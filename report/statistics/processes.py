"""A comparison in each process of a run (config.measure.processes;
harness/process_repeats.h records each further process's speedup beside the first's).

The process is the unit: a process's allocator history, page placement and clocks
move a ratio more than its own rounds scatter (fused AdamW over 16 MB tensors: 3.5x in
one process, 8.7x in the next, each with a CI a few percent wide). A comparison's one
estimate (measurement.py, experiments[].estimates) is the processes' geometric mean with
Student's t interval, which carries that disagreement; nothing here makes a second
interval for it. What is here: each process's figures (for the tables, the gate and a
pooled claim), and the intervals the report has to form itself from them, a pooled
claim's (pooled_between) and a ratio against a variant other than the baseline
(relative)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..load.numbers import is_num
from .measurement import Measurement, Source, t_interval


@dataclass
class Spread:
    """One comparison across the processes that measured it."""

    estimates: list[Measurement]  # every process asked for, the first first (`process`)

    @property
    def measured(self) -> list[Measurement]:
        return [e for e in self.estimates if is_num(e.speedup) and e.speedup > 0]

    @property
    def speedups(self) -> list[float]:
        return [float(e.speedup) for e in self.measured]

    def by_process(self) -> dict[int, float]:
        return {e.process: float(e.speedup) for e in self.measured}

    def interval(self, confidence: float) -> tuple[float, float, float] | None:
        """(geometric mean, low, high) across processes; None with fewer than two."""
        return t_interval(self.speedups, confidence)


def shared(per_case: list[Spread]) -> list[int]:
    """The processes that measured every one of the cases, in order."""
    common = None
    for sp in per_case:
        got = set(sp.by_process())
        common = got if common is None else common & got
    return sorted(common or ())


def pooled_between(per_case: list[Spread], confidence: float) -> tuple[float, float, float] | None:
    """A pooled claim's estimate: per process, the geometric mean over the cases of that
    process's speedups (only processes that measured every case), then the t interval
    across processes; None with fewer than two such processes."""
    procs = shared(per_case)
    if len(procs) < 2:
        return None
    pooled = [math.exp(sum(math.log(sp.by_process()[p]) for sp in per_case) / len(per_case)) for p in procs]
    return t_interval(pooled, confidence)


def case_points(per_case: list[Spread]) -> list[float]:
    """Each case's geometric mean over the processes pooled_between uses: the per-case
    figures whose geometric mean is the pooled point."""
    procs = shared(per_case)
    return [math.exp(sum(math.log(sp.by_process()[p]) for p in procs) / len(procs)) for sp in per_case]


def relative(variant: Spread, reference: Spread) -> Spread:
    """A variant against another variant of its case that is not the baseline (AMP against
    the default FP32 where that is TF32): per process, the ratio of their two recorded
    speedups over the baseline, each process's own rounds on both sides."""
    ref = reference.by_process()
    return Spread(
        [
            Measurement(e.speedup / ref[e.process], None, None, e.confidence, process=e.process, source=Source.DERIVED)
            for e in variant.measured
            if e.process in ref
        ]
    )
