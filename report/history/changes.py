"""Change points in a series (docs/report.md, "History"): candidates from ruptures
(PELT on the log estimates, one point per run), each confirmed by a two-sample test
between the segments it separates (Welch's t-test on the log estimates: deterministic,
as Hunter's, arXiv 2301.03034) and no smaller than the comparison's noise floor
(gate/noise.py, widened by the spread of runs of one commit in the series). A candidate
that fails is dropped and its neighbours tested again, the weakest first.

A change falls between two commits, never between runs of one commit. It is a
regression (a speedup or a claim's figure fell, a time rose) or an improvement when at least AGREE runs after it
agree (its segment), suspicious with fewer; a series of fewer than MIN_POINTS runs is
insufficient. A claim's verdict moving between commits is a change of its own."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from ..gate.compare import Settings
from ..gate.noise import floor_for
from .series import CLAIM, TIME, Series

MIN_POINTS = 4  # fewer runs than this: the series is insufficient
AGREE = 2  # runs after a change that make it a regression or an improvement
ALPHA = 0.05  # the t-test's level; the size's interval is (1 - ALPHA)
MIN_EFFECT = Settings().min_effect  # no floor below the gate's

REGRESSION, IMPROVEMENT, SUSPICIOUS = "regression", "improvement", "suspicious"


@dataclass(frozen=True)
class Change:
    at: int  # index of the first point after it
    before: str  # the last commit before it
    after: str  # the first commit after it
    size: float  # after / before, of the segments' geometric means
    ci_low: float
    ci_high: float
    p: float
    floor: float  # relative, e.g. 0.06
    runs_after: int
    status: str  # REGRESSION, IMPROVEMENT or SUSPICIOUS


@dataclass(frozen=True)
class VerdictMove:
    before: str  # commit
    after: str
    was: str
    now: str


@dataclass
class Finding:
    series: Series
    changes: list[Change] = field(default_factory=list)
    moves: list[VerdictMove] = field(default_factory=list)
    none_why: str | None = None  # why no change was found, where none was


def ruptures_or_none():
    try:
        import ruptures
    except ImportError:
        return None
    return ruptures


def _same_commit_logs(s: Series, lo: int = 0, hi: int | None = None) -> list[float]:
    """The log estimates of the most-run commit in points[lo:hi] (two or more runs): what
    runs of the same code spread over, for the floor's history term."""
    groups: dict[str, list[float]] = {}
    for p in s.points[lo:hi]:
        groups.setdefault(p.commit, []).append(p.log)
    best = max(groups.values(), key=len, default=[])
    return best if len(best) >= 2 else []


def floor_of(s: Series, lo: int = 0, hi: int | None = None) -> float:
    """The noise floor of the series' points[lo:hi] (gate/noise.py), relative."""
    pts = s.points[lo:hi]
    spreads = [p.spread for p in pts if p.spread > 0]
    what = "time" if s.what == TIME else "speedup"
    return floor_for(pts[0].noise_kind, what, spreads, _same_commit_logs(s, lo, hi), MIN_EFFECT).value


def _candidates(ruptures, s: Series, logs: np.ndarray) -> list[int]:
    """PELT's breakpoints, each moved to the nearest boundary between commits."""
    # A BIC-like penalty, 2 log n noise variances: the noise from successive differences
    # (MAD, robust to the steps themselves), never below half the floor, so that steps
    # within the floor cost more than they explain and the cuts stay few.
    diffs = np.diff(logs)
    sigma = float(np.median(np.abs(diffs - np.median(diffs)))) * 1.4826 / math.sqrt(2) if len(diffs) else 0.0
    scale = max(sigma, math.log1p(floor_of(s)) / 2.0)
    pen = 2.0 * math.log(len(logs)) * scale**2
    found = ruptures.Pelt(model="l2", min_size=1, jump=1).fit(logs.reshape(-1, 1)).predict(pen=pen)[:-1]
    bounds = [i for i in range(1, len(s.points)) if s.points[i].commit != s.points[i - 1].commit]
    return sorted({min(bounds, key=lambda b: (abs(b - i), b)) for i in found}) if bounds else []


def _test(before: np.ndarray, after: np.ndarray) -> tuple[float, float, float, float] | None:
    """(log change, its interval, p) of after against before; None where neither side has two runs."""
    d = float(np.mean(after) - np.mean(before))
    if len(before) >= 2 and len(after) >= 2:
        if np.ptp(before) == 0 and np.ptp(after) == 0:  # no spread on either side: t is undefined
            return d, d, d, 0.0 if d else 1.0
        r = stats.ttest_ind(after, before, equal_var=False)
        ci = r.confidence_interval(1 - ALPHA)
        return d, float(ci.low), float(ci.high), float(r.pvalue)
    lone_after = len(before) >= 2
    many, one = (before, float(after[0])) if lone_after else (after, float(before[0]))
    if len(many) < 2:
        return None
    if np.ptp(many) == 0:
        return d, d, d, 0.0 if d else 1.0
    r = stats.ttest_1samp(many, one)
    ci = r.confidence_interval(1 - ALPHA)  # of the other side's mean
    if lone_after:
        return d, one - float(ci.high), one - float(ci.low), float(r.pvalue)
    return d, float(ci.low) - one, float(ci.high) - one, float(r.pvalue)


def _judge(s: Series, logs: np.ndarray, cuts: list[int]) -> tuple[list[Change], list[tuple[int, str]]]:
    """Each cut tested between its neighbours: (changes, [(cut, why not)])."""
    edges = [0, *cuts, len(logs)]
    kept, failed = [], []
    for k, b in enumerate(cuts):
        lo, hi = edges[k], edges[k + 2]
        t = _test(logs[lo:b], logs[b:hi])
        floor = floor_of(s, lo, hi)
        if t is None:
            failed.append((b, "one run on each side"))
            continue
        d, dlo, dhi, p = t
        if p >= ALPHA:
            failed.append((b, f"not confirmed (Welch's t-test p = {p:.2g})"))
        elif abs(math.expm1(d)) <= floor:
            failed.append((b, f"inside the floor ({math.expm1(d):+.1%} against ±{floor:.1%})"))
        else:
            runs_after = hi - b
            worse = d < 0 if s.lower_is_worse else d > 0
            status = SUSPICIOUS if runs_after < AGREE else (REGRESSION if worse else IMPROVEMENT)
            pts = s.points
            kept.append(
                Change(
                    b, pts[b - 1].commit, pts[b].commit, math.exp(d), math.exp(dlo), math.exp(dhi), p, floor,
                    runs_after, status,
                )
            )  # fmt: skip
    return kept, failed


def _weakest(failed: list[tuple[int, str]], logs: np.ndarray, cuts: list[int]) -> int:
    """The failed cut with the smallest step, dropped first."""
    edges = [0, *cuts, len(logs)]

    def step(b: int) -> float:
        k = cuts.index(b)
        return abs(float(np.mean(logs[b : edges[k + 2]]) - np.mean(logs[edges[k] : b])))

    return min((b for b, _ in failed), key=step)


def verdict_moves(s: Series) -> list[VerdictMove]:
    """Between consecutive commits whose runs each agree on one verdict, where it differs."""
    groups: dict[str, set] = {}
    for p in s.points:
        groups.setdefault(p.commit, set()).add(p.verdict)
    order = list(groups)
    out = []
    for a, b in zip(order, order[1:]):
        if len(groups[a]) == 1 and len(groups[b]) == 1 and groups[a] != groups[b]:
            out.append(VerdictMove(a, b, *(str(next(iter(groups[c]))) for c in (a, b))))
    return out


def find(s: Series, ruptures) -> Finding:
    """The series' confirmed changes, or why there are none. ruptures None: not searched."""
    out = Finding(s, moves=verdict_moves(s) if s.what == CLAIM else [])
    n = len(s.points)
    if n < MIN_POINTS:
        out.none_why = f"insufficient: {n} run{'' if n == 1 else 's'}, fewer than {MIN_POINTS}"
        return out
    if len(s.commits) < 2:
        out.none_why = f"every run is of one commit ({s.commits[0]})"
        return out
    if ruptures is None:
        out.none_why = "not searched: ruptures is not installed"
        return out
    logs = np.array([p.log for p in s.points])
    cuts = _candidates(ruptures, s, logs)
    last_why = None
    while cuts:
        kept, failed = _judge(s, logs, cuts)
        if not failed:
            out.changes = kept
            return out
        drop = _weakest(failed, logs, cuts)
        last_why = dict(failed)[drop]
        cuts.remove(drop)
    floor = floor_of(s)
    out.none_why = f"largest candidate {last_why}" if last_why else f"no step out of the noise (floor ±{floor:.1%})"
    return out
