"""`compare BASELINE CURRENT`: the regression gate between two runs on one device.

Two kinds of pair, judged alike and reported apart:
- time: each variant's primary samples, paired by (experiment, case, variant);
  change = median(current) / median(baseline) - 1 (positive = slower), with a
  (1 - alpha) bootstrap interval (stats.py) and the Mann-Whitney U test of the samples.
- speedup: each comparison's one estimate (document.Comparison.estimate: the figure
  and interval the tables and the claims show), paired by (experiment, case, variant,
  baseline variant); change = estimate(current) / estimate(baseline) - 1 (negative =
  the optimization gains less). Its (1 - alpha) interval and p value come from the two
  estimates' own intervals (Welch's t on the log ratio): where each run measured the
  comparison in several processes, the between-process spread is inside the interval
  itself, so a comparison as noisy as fused AdamW's (3.3x-8.7x between processes) gets
  a wide interval, not a wide floor.

Each change is held to a noise floor (noise.py: the between-run change that same-code
runs show beyond what the interval holds). Verdict, in log units:
  beyond       the whole interval lies beyond the floor and p < alpha:
               'slower'/'faster', or speedup 'lower'/'higher'
  same         the interval lies within +-floor
  cannot tell  the interval's half-width plus the floor reaches past a change of
               Settings.detect (20%): even a change that large could hide in the
               noise, so nothing is said about it either way
  ambiguous    otherwise: it reaches past the floor without being beyond it
  n/a          not comparable (a failed case, an OOM variant, too few samples to reach
               alpha, a speedup without an interval in either run: rounds.py)
  not computable  the figures were there but a change could not be computed from them
               (a time or speedup that is not a finite positive number, a ratio that
               overflows): never a pass
A 'slower' time or a 'lower' speedup is a regression: exit status 1, and so is a pair
'not computable'. The summary counts the 'cannot tell' pairs, so a pass never hides
what the gate could not see."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps

from ..load.document import Case, Comparison, Document, Variant, device_name, run_facts
from ..load.numbers import is_num
from ..load.results import ResultsError
from ..statistics.measurement import PROCESS, Measurement
from ..statistics.rounds import rounds_text
from ..statistics.stats import diff_ci, log_median_boot, mann_whitney_p, smallest_p
from .noise import Floor, floor_for, kind
from .noise import spread as log_spread

SLOWER, FASTER, LOWER, HIGHER = "slower", "faster", "lower", "higher"
SAME, AMBIGUOUS, BLIND, NA = "same", "ambiguous", "cannot tell", "n/a"
NOT_COMPUTABLE = "not computable"
UP, DOWN = "up", "down"
REGRESSIONS = (SLOWER, LOWER)
FAILURES = REGRESSIONS + (NOT_COMPUTABLE,)  # what fails the gate


@dataclass
class Row:
    what: str  # "time" or "speedup"
    key: tuple[str, ...]  # (experiment, case, variant[, baseline variant])
    base: float | None = None  # median time (s) or speedup, baseline run
    cur: float | None = None  # the same, current run
    change: float | None = None  # relative change, current vs baseline
    ci_low: float | None = None
    ci_high: float | None = None
    floor: Floor | None = None
    p: float | None = None
    n: tuple[int, int] = (0, 0)
    unit: str = ""  # what n counts, where it is not samples: "processes" or "rounds"
    verdict: str = NA
    notes: list[str] = field(default_factory=list)

    @property
    def regression(self) -> bool:
        return self.verdict in REGRESSIONS

    @property
    def failed(self) -> bool:
        return self.verdict in FAILURES


class NotComputable(Exception):
    """A pair's figures give no finite change; the message says which and why."""


def _positive(name: str, x: float | None) -> float:
    """x, where it is a finite positive number: a time or a speedup a change can be taken of."""
    if not (is_num(x) and x > 0):
        raise NotComputable(f"{name} {x!r} is not a finite positive number")
    return float(x)


def _finite(name: str, *xs: float) -> None:
    if not all(is_num(x) for x in xs):
        raise NotComputable(f"{name} is not a finite number (an overflow)")


def classify(ci_low: float, ci_high: float, p: float, floor: float, alpha: float) -> str:
    """UP/DOWN when the whole interval lies beyond +-floor and p < alpha; SAME when it
    lies within; AMBIGUOUS otherwise. All in log units."""
    if p < alpha and ci_low > floor:
        return UP
    if p < alpha and ci_high < -floor:
        return DOWN
    if -floor <= ci_low and ci_high <= floor:
        return SAME
    return AMBIGUOUS


@dataclass
class Settings:
    alpha: float = 0.01
    min_effect: float = 0.02
    threshold: float | None = None  # a fixed floor for every pair instead of the per-case ones
    # The change the gate must be able to see: a pair whose interval half-width plus
    # floor reaches past it reads 'cannot tell', never 'same' (a gate that cannot
    # fail tells CI nothing, and must say so).
    detect: float = 0.20


def _cases(doc: Document) -> dict[tuple[str, str], Case]:
    return {(str(e.name), str(c.name)): c for e in doc.experiments for c in e.cases}


def _samples(variant: Variant) -> np.ndarray:
    """Primary-metric samples (document.Variant.primary_samples), positive only."""
    a = np.asarray(variant.primary_samples, dtype=float)
    return a[a > 0]


def _unusable(case: Case, variant: Variant | None) -> str | None:
    if not case.ran:
        return f"case {case.recorded_status}"
    if variant is None:
        return "variant missing"
    if not variant.ok:
        return f"variant {variant.recorded_status}"
    return None


class Run:
    """One results file as the gate reads it: each variant's usable samples, each
    comparison's samples round by round, and why not where they cannot be used."""

    def __init__(self, doc: dict):
        self.doc = doc
        self.cases = _cases(Document(doc))
        self.cms = self.comparisons()

    def times(self) -> dict[tuple[str, ...], Variant]:
        return {(e, c, str(v.name)): v for (e, c), case in self.cases.items() for v in case.variants}

    def comparisons(self) -> dict[tuple[str, ...], Comparison]:
        return {
            (e, c, str(cm.variant_name), str(cm.baseline_name)): cm
            for (e, c), case in self.cases.items()
            for cm in case.comparisons
        }

    def time_samples(self, key: tuple[str, ...]) -> tuple[np.ndarray | None, str | None]:
        case = self.cases.get(key[:2])
        if case is None:
            return None, "case missing"
        v = case.variant(key[2])
        why = _unusable(case, v)
        return (None, why) if why else (_samples(v), None)

    def round_pairs(self, key: tuple[str, ...]) -> tuple[tuple[np.ndarray, np.ndarray] | None, str | None]:
        """(baseline variant, variant) samples of one comparison, round by round."""
        b, why_b = self.time_samples(key[:2] + (key[3],))
        v, why_v = self.time_samples(key[:3])
        if why_b or why_v:
            return None, why_b or why_v
        if len(b) != len(v):
            return None, f"not paired by round ({len(b)} vs {len(v)} samples)"
        return (b, v), None

    def estimate(self, key: tuple[str, ...]) -> tuple[Measurement | None, str | None]:
        """The comparison's one estimate with an interval, or why there is none."""
        cm = self.cms.get(key)
        est = cm.estimate if cm is not None else None
        if est is None:
            if cm is not None and cm.recorded_speedup is not None:  # a figure, but none to take a change of
                _positive("the recorded speedup", cm.recorded_speedup)
            return None, "no speedup recorded"
        if est.has_ci:
            return est, None
        if est.below_floor and est.unit != PROCESS:  # its ratio is a point: a change against it says nothing
            return None, f"{rounds_text([est.rounds])}, below the rounds floor of {est.floor}"
        return None, "no interval recorded"

    def log_value(self, what: str, key: tuple[str, ...]) -> float | None:
        """log median time, or log estimated speedup; None where not usable (for history)."""
        if what == "time":
            x, why = self.time_samples(key)
            return float(np.log(np.median(x))) if not why and len(x) >= 2 else None
        try:
            est, why = self.estimate(key)
        except NotComputable:
            return None
        return None if why else math.log(est.speedup)


def _judge(row: Row, d: float, lo: float, hi: float, p: float, floor: Floor, st: Settings, up: str, down: str) -> None:
    """d, lo, hi: the change and its (1 - alpha) interval, in log units."""
    _finite("the change or its interval", d, lo, hi)
    _finite("the p value", p)
    _finite("the noise floor", floor.value)
    row.change, row.ci_low, row.ci_high = math.expm1(d), math.expm1(lo), math.expm1(hi)
    _finite("the relative change or its interval", row.change, row.ci_low, row.ci_high)
    row.p, row.floor = p, floor
    f = math.log1p(floor.value)
    v = classify(lo, hi, p, f, st.alpha)
    # What the pair can resolve: a true change of `detect` shifts the interval by that
    # much, and it reads beyond the floor only if half the interval plus the floor is less.
    resolution = max(d - lo, hi - d) + f
    if v not in (UP, DOWN) and resolution >= math.log1p(st.detect):
        row.verdict = BLIND
        row.notes.append(
            f"a {st.detect:.0%} change could hide here: interval ±{100 * math.expm1(resolution - f):.0f}%"
            f" and floor {100 * floor.value:.0f}%"
        )
        return
    row.verdict = {UP: up, DOWN: down}.get(v, v)


def _unjudged(row: Row, why_base: str | None, why_cur: str | None) -> bool:
    """Notes why a run's side cannot be compared; True if either cannot."""
    for run, why in (("baseline", why_base), ("current", why_cur)):
        if why:
            row.notes.append(f"{run}: {why}")
    return bool(why_base or why_cur)


def _enough(row: Row, n1: int, n2: int, alpha: float) -> bool:
    row.n = (n1, n2)
    if smallest_p(n1, n2) >= alpha:
        row.notes.append(f"too few samples for alpha {alpha:g}")
        return False
    return True


def _guarded(judge, row: Row, *args) -> Row:
    """judge(row, *args) fills the row; a pair it cannot compute is 'not computable' with
    the reason, whatever raised it, never a pass. numpy's warnings are silenced: the
    non-finite figures they warn of are caught (_finite), and the row says why."""
    try:
        with np.errstate(all="ignore"):
            judge(row, *args)
    except NotComputable as e:
        row.verdict = NOT_COMPUTABLE
        row.notes.append(str(e))
    except (ArithmeticError, ValueError) as e:  # math's OverflowError, a log of 0...
        row.verdict = NOT_COMPUTABLE
        row.notes.append(f"{type(e).__name__}: {e}")
    return row


def _judge_time(row: Row, key, base: Run, cur: Run, history: list[Run], st: Settings) -> None:
    xb, why_b = base.time_samples(key)
    xc, why_c = cur.time_samples(key)
    if _unjudged(row, why_b, why_c):
        return
    row.base = float(np.median(xb)) if len(xb) else None
    row.cur = float(np.median(xc)) if len(xc) else None
    if not _enough(row, len(xb), len(xc), st.alpha):
        return
    _positive("the baseline's median time", row.base)
    _positive("the current median time", row.cur)
    cb, cc = base.cases[key[:2]], cur.cases[key[:2]]
    if cb.primary_metric != cc.primary_metric:
        row.notes.append(f"primary metric differs ({cb.primary_metric} vs {cc.primary_metric})")
    lb, lc = np.log(xb), np.log(xc)
    floor = floor_for(
        kind(cc),
        "time",
        [log_spread(lb), log_spread(lc)],
        _history(history, "time", key),
        st.min_effect,
        st.threshold,
    )
    d = float(np.log(row.cur) - np.log(row.base))
    lo, hi = diff_ci(log_median_boot(xc), log_median_boot(xb), 1.0 - st.alpha)
    _judge(row, d, lo, hi, mann_whitney_p(xb, xc), floor, st, SLOWER, FASTER)


def compare_time(key, base: Run, cur: Run, history: list[Run], st: Settings) -> Row:
    return _guarded(_judge_time, Row("time", key), key, base, cur, history, st)


def _log_se(est: Measurement) -> tuple[float, float]:
    """(standard error of the log speedup, degrees of freedom) read back from the
    estimate's interval: Student's t with its df between processes; the normal within
    one process (an order-statistic interval over many rounds), df infinite."""
    df = float(est.df) if est.unit == PROCESS and est.df else math.inf
    q = float(sps.t.ppf(0.5 + est.confidence / 2.0, df))
    return math.log(est.ci_high / est.ci_low) / (2.0 * q), df


def change_interval(base: Measurement, cur: Measurement, alpha: float) -> tuple[float, float, float, float]:
    """(d, low, high, p) of d = log(cur / base): Welch's t interval at 1 - alpha from the
    two estimates' intervals (Welch-Satterthwaite df), and its two-sided p value."""
    (sb, fb), (sc, fc) = _log_se(base), _log_se(cur)
    d = math.log(cur.speedup / base.speedup)
    se = math.hypot(sb, sc)
    if se == 0.0:  # two intervals of zero width: only a change of zero is 'no change'
        return d, d, d, (1.0 if d == 0.0 else 0.0)
    finite = sum(s**4 / f for s, f in ((sb, fb), (sc, fc)) if math.isfinite(f))
    df = se**4 / finite if finite > 0 else math.inf
    half = float(sps.t.ppf(1.0 - alpha / 2.0, df)) * se
    return d, d - half, d + half, float(2.0 * sps.t.sf(abs(d) / se, df))


def _judge_speedup(row: Row, key, base: Run, cur: Run, history: list[Run], st: Settings) -> None:
    sides = []
    for run in (base, cur):
        _, why_b = run.time_samples(key[:2] + (key[3],))
        _, why_v = run.time_samples(key[:3])
        est, why_e = run.estimate(key)
        sides.append((est, why_b or why_v or why_e))
    (eb, why_base), (ec, why_cur) = sides
    if _unjudged(row, why_base, why_cur):
        return
    row.base, row.cur = eb.speedup, ec.speedup
    for run, est in (("the baseline's", eb), ("the current", ec)):
        for what, x in (
            ("speedup", est.speedup),
            ("interval's low end", est.ci_low),
            ("interval's high end", est.ci_high),
        ):
            _positive(f"{run} {what}", x)
    row.n = (eb.n or 0, ec.n or 0)
    both = eb.unit == PROCESS and ec.unit == PROCESS
    row.unit = "processes" if both else ("rounds" if eb.unit == ec.unit else "processes/rounds")
    # Between processes the spread of a noisy comparison is inside the interval; within
    # one process it is not, and the per-round spread widens the floor instead (noise.py).
    pairs = [] if both else [run.round_pairs(key)[0] for run in (base, cur)]
    spreads = [log_spread(np.log(bv[0]) - np.log(bv[1])) for bv in pairs if bv is not None]
    floor = floor_for(
        kind(cur.cases[key[:2]]),
        "speedup",
        spreads,
        _history(history, "speedup", key),
        st.min_effect,
        st.threshold,
    )
    d, lo, hi, p = change_interval(eb, ec, st.alpha)
    _judge(row, d, lo, hi, p, floor, st, HIGHER, LOWER)


def compare_speedup(key, base: Run, cur: Run, history: list[Run], st: Settings) -> Row:
    return _guarded(_judge_speedup, Row("speedup", key), key, base, cur, history, st)


def _history(history: list[Run], what: str, key: tuple[str, ...]) -> list[float]:
    return [x for x in (h.log_value(what, key) for h in history) if x is not None and math.isfinite(x)]


@dataclass
class Outcome:
    times: list[Row]
    speedups: list[Row]
    only_base: list[tuple[str, ...]]
    only_cur: list[tuple[str, ...]]

    @property
    def regressions(self) -> list[Row]:
        return [r for r in self.times + self.speedups if r.regression]

    @property
    def not_computable(self) -> list[Row]:
        return [r for r in self.times + self.speedups if r.verdict == NOT_COMPUTABLE]

    @property
    def failed(self) -> bool:
        return bool(self.regressions or self.not_computable)


def compare_docs(base: dict, cur: dict, st: Settings, history: list[dict] | None = None) -> Outcome:
    """history: runs of the same code on this device (the baseline is always one)."""
    b, c = Run(base), Run(cur)
    hist = [b] + [Run(h) for h in history or []]
    bt, ct = b.times(), c.times()
    times = [compare_time(k, b, c, hist, st) for k in bt if k in ct]
    bc, cc = b.comparisons(), c.comparisons()
    speedups = [compare_speedup(k, b, c, hist, st) for k in bc if k in cc]
    return Outcome(times, speedups, [k for k in bt if k not in ct], [k for k in ct if k not in bt])


def check_devices(base: dict, cur: dict, allow: bool) -> str | None:
    """None when both ran on the same device; else raise (or, when allowed, a warning)."""
    a, b = device_name(base), device_name(cur)
    if a == b:
        return None
    msg = f"different devices: baseline ran on {a!r}, current on {b!r}"
    if not allow:
        raise ResultsError(f"{msg}; pass --allow-different-gpus to compare anyway")
    return msg


def warnings_for(base: dict, cur: dict) -> list[str]:
    """What makes the floors less trustworthy for this pair of runs."""
    out = []
    pb, pc = (run_facts(d).profile for d in (base, cur))
    if pb != pc:
        out.append(
            f"profiles differ (baseline {pb}, current {pc}): the floors are calibrated on runs of one "
            "profile, and launch-bound cases shift with the process's history"
        )
    for name, d in (("baseline", base), ("current", cur)):
        if (status := run_facts(d).status) != "complete":
            out.append(f"the {name} run is {status}: only its finished cases are compared")
    return out


def check_settings(st: Settings) -> None:
    if not (is_num(st.min_effect) and st.min_effect >= 0):
        raise ResultsError(f"--min-effect must be a non-negative number, got {st.min_effect}")
    if st.threshold is not None and not (is_num(st.threshold) and st.threshold >= 0):
        raise ResultsError(f"--threshold must be a non-negative number, got {st.threshold}")
    if not (is_num(st.alpha) and 0 < st.alpha < 1):
        raise ResultsError(f"--alpha must be between 0 and 1, got {st.alpha}")
    if not (is_num(st.detect) and st.detect > 0):
        raise ResultsError(f"the change to detect must be a positive number, got {st.detect}")
