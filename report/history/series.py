"""Series over history: per machine fingerprint and comparison, variant's time per
step or claim, one point per run, in the order of history (order.py). Each point is
what the report shows for it in that run: a comparison's one estimate and interval
(document.Comparison.estimate, as the gate reads it), a variant's median time per
step with the harness's order-statistic interval (statistics/stats.median_ci), a
claim's figure, interval and verdict (claims/judge.py). A point without an interval
is left out: a change of it says nothing."""

from __future__ import annotations

import math
import os
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from ..claims.judge import evaluate
from ..gate.compare import NotComputable
from ..gate.noise import kind
from ..gate.noise import spread as log_spread
from ..load.document import Document
from ..statistics.measurement import PROCESS
from ..statistics.stats import median_ci
from .fingerprint import Fingerprint
from .order import Ordering
from .runs import HistoryRun, Skipped

COMPARISON, TIME, CLAIM = "comparison", "time", "claim"


@dataclass(frozen=True)
class Point:
    run: HistoryRun = field(repr=False)
    commit: str
    value: float  # the speedup (a claim's figure), or the time per step in seconds
    ci_low: float
    ci_high: float
    noise_kind: str  # how it was timed, for its noise floor (gate/noise.py)
    spread: float = 0.0  # half the 10-90% range of its per-round log ratios; 0 where the interval is between processes
    verdict: str | None = None  # a claim's

    @property
    def log(self) -> float:
        return math.log(self.value)


@dataclass
class Series:
    fingerprint: Fingerprint
    what: str  # COMPARISON, TIME or CLAIM
    name: str  # "experiment/case: variant vs baseline", or the claim's id
    points: list[Point] = field(default_factory=list)
    claimed: tuple[float | None, float | None] = (None, None)  # a claim's range

    @property
    def label(self) -> str:
        """'speedup of NAME', 'time of NAME' or 'claim NAME'."""
        return {COMPARISON: "speedup of", TIME: "time of", CLAIM: "claim"}[self.what] + " " + self.name

    @property
    def lower_is_worse(self) -> bool:
        """A speedup or a claim's figure that falls is a regression; a time that rises is."""
        return self.what != TIME

    @property
    def commits(self) -> list[str]:
        """Its distinct commits in order."""
        return list(dict.fromkeys(p.commit for p in self.points))


def _usable(x: object) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and x > 0


def comparison_points(run: HistoryRun) -> dict[str, Point]:
    out = {}
    for key in run.gate.cms:
        try:
            est, why = run.gate.estimate(key)
        except NotComputable:
            continue
        if why or not all(_usable(x) for x in (est.speedup, est.ci_low, est.ci_high)):
            continue
        spread = 0.0
        if est.unit != PROCESS and (pair := run.gate.round_pairs(key)[0]) is not None:
            spread = log_spread(np.log(pair[0]) - np.log(pair[1]))
        e, c, v, b = key
        out[f"{e}/{c}: {v} vs {b}"] = Point(
            run, run.commit, est.speedup, est.ci_low, est.ci_high, kind(run.gate.cases[(e, c)]), spread
        )
    return out


def time_points(run: HistoryRun) -> dict[str, Point]:
    out = {}
    confidence = Document(run.doc).confidence
    for key in run.gate.times():
        samples, why = run.gate.time_samples(key)
        if why or len(samples) < 2:
            continue
        med, lo, hi = median_ci(list(samples), confidence)
        if not all(_usable(x) for x in (med, lo, hi)):
            continue
        e, c, v = key
        spread = log_spread(np.log(samples))
        out[f"{e}/{c}: {v}"] = Point(run, run.commit, med, lo, hi, kind(run.gate.cases[(e, c)]), spread)
    return out


def claim_points(run: HistoryRun) -> dict[str, tuple[Point, tuple]]:
    out = {}
    for res in evaluate(run.doc):
        m = res.m
        if m is None or not all(_usable(x) for x in (m.speedup, m.ci_low, m.ci_high)):
            continue
        ev = res.decisive or (res.evidence[0] if res.evidence else None)
        case = run.gate.cases.get((ev.experiment, ev.case)) if ev else None
        noise_kind = kind(case) if case is not None else ("cpu" if run.fingerprint.device == "cpu" else "device")
        verdict = res.verdict.verdict if res.verdict else None
        claim = res.claim
        point = Point(run, run.commit, m.speedup, m.ci_low, m.ci_high, noise_kind, verdict=verdict)
        out[str(claim.get("id"))] = (point, (claim.get("low"), claim.get("high")))
    return out


def _run_points(run: HistoryRun) -> list[tuple[str, str, Point, tuple]]:
    out = [(COMPARISON, n, p, (None, None)) for n, p in comparison_points(run).items()]
    out += [(TIME, n, p, (None, None)) for n, p in time_points(run).items()]
    return out + [(CLAIM, n, p, claimed) for n, (p, claimed) in claim_points(run).items()]


def build(runs: list[HistoryRun], order: Ordering, skipped: list[Skipped] | None = None) -> list[Series]:
    """Every series the runs make, by fingerprint, then claims, comparisons and times, then
    name. A run whose figures cannot be read is added to `skipped` with why, not fatal."""
    found: dict[tuple, Series] = {}
    by_key: dict[tuple, list[Point]] = defaultdict(list)
    for run in sorted(runs, key=order.key):
        fp = run.fingerprint
        try:
            points = _run_points(run)
        except Exception as e:  # one run's failure is its line, not a stop
            if os.environ.get("OPTBENCH_REPORT_DEBUG"):
                raise
            if skipped is not None:
                skipped.append(Skipped(run.path, f"unexpected {type(e).__name__}: {' '.join(str(e).split())}"))
            continue
        for what, name, point, claimed in points:
            found.setdefault((fp, what, name), Series(fp, what, name, claimed=claimed))
            by_key[(fp, what, name)].append(point)
    for key, s in found.items():
        s.points = by_key[key]
    rank = {CLAIM: 0, COMPARISON: 1, TIME: 2}
    return [found[k] for k in sorted(found, key=lambda k: (k[0], rank[k[1]], k[2]))]
