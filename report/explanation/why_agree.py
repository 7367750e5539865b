"""Whether a profiled window may explain a timed comparison: the rule of the README's
"Why a variant is faster". A mechanism is shown only where

  1. the timed speedup has a CI (enough rounds) and that CI excludes 1: a window's
     difference where the timing finds none is noise, not a cause. Two timings are
     read: the comparison's one estimate, printed beside the why (across processes),
     and the ratio of the process the windows ran in, which they are checked against
     below; both must show the difference, on the same side of 1, or the why says
     which does not (a why that explained a difference its row's interval does not
     show, or called "no clear difference" one it shows, would contradict its row);
  2. the two windows' speedup W (per unit of work, the unit of the speedup column)
     lies on the same side of 1 as the timed one: a window never explains time
     "added" when the timing says faster;
  3. W lies in the timed CI [L, H] widened by the windows' own noise,
     [L * exp(-t*u), H * exp(t*u)]: the windows agree with the timing within what
     their steps' spread and the timed interval allow. (The windows' own interval is
     not required to exclude 1: rule 1 already asks that of the timing, and on
     few-step windows that requirement would refuse most mechanisms.)

u = hypot(u_base, u_variant); each side's u is the standard error of its window's
mean step relative to that mean, from the window's own steps (`step_s`, recorded per
profiled step: sd / sqrt(n) / mean, n - 1 degrees of freedom), and t the 97.5%
quantile of Student's t at the two sides' Welch-Satterthwaite degrees of freedom (a
window of few steps knows its own spread poorly). A window without two recorded
steps (files from before `step_s`, one-step windows) falls back to the variant's
timed spread scaled to the window: IQR / 1.349 / median * sqrt(iters_per_sample /
steps), taken as known (infinite degrees of freedom). Either is never less than a
negative overhead shows: a profiler only adds time, so a window faster than the
timed median by x measured noise (or drift) of at least x.

The positive part of an overhead is not uncertainty: it is the profiler's cost,
and W / timed = (1 + o_base) / (1 + o_variant) by construction, so widening by the
overheads themselves would pass every window. Where that cost falls unevenly on
the two variants (more operators profiled in one) the windows' ratio moves away
from the timed one, and their per-category deltas carry the profiler's cost: that
is what this rule refuses to publish as a mechanism."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from scipy import stats

from ..load.document import Breakdown, Variant
from ..load.numbers import is_num
from ..render.fmt import fmt_speedup, sig
from ..statistics.measurement import Measurement
from .why import window_speedup

CONFIDENCE = 0.95
IQR_PER_SD = 1.349  # a normal distribution's IQR in standard deviations
NOT_EXPLAINED = "profile disagrees with the timing: not explained"


class Reason(Enum):
    """Why a window may not explain its comparison: a closed set, the report's words
    for each in `Agreement.text`."""

    AGREES = "agrees"
    NO_CI = "no_ci"  # rule 1: the timed speedup has no CI
    NO_DIFFERENCE = "no_difference"  # rule 1: its CI includes 1
    PROCESS_NO_CI = "process_no_ci"  # rule 1: the estimate shows a difference, the windows' process has no CI
    PROCESS_DIFFERS = "process_differs"  # rule 1: ... and the windows' process does not show it
    NO_WINDOW = "no_window"  # no window speedup to compare
    OTHER_DIRECTION = "other_direction"  # rule 2
    NO_NOISE = "no_noise"  # rule 3 cannot be applied: nothing bounds the windows' noise
    OUTSIDE_BAND = "outside_band"  # rule 3

    @property
    def disagrees(self) -> bool:
        """The windows were compared with the timing and disagree with it."""
        return self in (Reason.OTHER_DIRECTION, Reason.NO_NOISE, Reason.OUTSIDE_BAND)


PLAIN = {
    Reason.NO_CI: "no CI for the timed speedup: nothing to check the profile against",
    Reason.NO_DIFFERENCE: "timing finds no clear difference (CI includes 1): nothing to explain",
    Reason.NO_WINDOW: "no window speedup",
    Reason.PROCESS_NO_CI: "the process its windows ran in has no CI of its own: nothing to check them against",
}
NO_DIFFERENCE = PLAIN[Reason.NO_DIFFERENCE]


@dataclass(frozen=True)
class Agreement:
    reason: Reason
    window: float | None = None  # the windows' speedup per unit of work
    band: tuple[float, float] | None = None  # where it had to lie
    timed: tuple[float, float, float] | None = None  # the timed speedup and its CI

    @property
    def ok(self) -> bool:
        return self.reason is Reason.AGREES

    def detail(self) -> str:
        """What a disagreement is, in brackets: '(windows 2.3× vs timed 1.5× [1.4, 1.6], allowed 1.3–1.7)'."""
        if not self.reason.disagrees:
            return ""
        if self.reason is Reason.NO_NOISE:
            return "(no step times or timed spread recorded to bound the window's noise)"
        s, lo, hi = self.timed
        shown = f"windows {sig(self.window)}× vs their process's timed {fmt_speedup(s, lo, hi)}"
        if self.reason is Reason.OTHER_DIRECTION:
            return f"({shown}: the other direction)"
        return f"({shown}, allowed {sig(self.band[0])}–{sig(self.band[1])})"

    def text(self) -> str:
        """Why no mechanism is shown; '' where the window agrees."""
        if self.reason.disagrees:
            return f"{NOT_EXPLAINED} {self.detail()}"
        if self.reason is Reason.PROCESS_DIFFERS and self.timed is not None:
            return (
                f"the process its windows ran in timed {fmt_speedup(*self.timed)}, which does not show "
                "this difference: nothing its windows can explain"
            )
        return PLAIN.get(self.reason, "")


@dataclass(frozen=True)
class Noise:
    """A window's relative uncertainty of its mean step, and what it rests on."""

    u: float
    df: float  # degrees of freedom; math.inf where taken as known
    source: str  # "steps" (the window's own step_s) | "timed" (the variant's timed spread)


def _negative_overhead(bd: Breakdown) -> float:
    return -bd.overhead if bd.overhead is not None and bd.overhead < 0 else 0.0


def _step_noise(bd: Breakdown) -> tuple[float, float] | None:
    """(sd / sqrt(n) / mean, n - 1) of the window's own step times; None under two steps."""
    steps = bd.step_s
    if not isinstance(steps, list) or len(steps) < 2 or not all(is_num(x) and x > 0 for x in steps):
        return None
    n = len(steps)
    mean = sum(steps) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in steps) / (n - 1))
    return sd / math.sqrt(n) / mean, n - 1.0


def _timed_noise(variant: Variant, bd: Breakdown) -> float | None:
    """The variant's timed per-step spread scaled to the window's steps (older files)."""
    med, iqr = variant.stats.median, variant.stats.iqr
    steps, ips = bd.steps, variant.iters_per_sample or 1
    if not (is_num(med) and med > 0 and is_num(iqr) and iqr >= 0 and is_num(steps) and steps >= 1 and is_num(ips)):
        return None
    return iqr / IQR_PER_SD / med * math.sqrt(max(ips, 1) / steps)


def window_noise(variant: Variant, bd: object) -> Noise | None:
    """The module's u for one side; None where neither the window's steps nor the
    variant's timed spread are recorded."""
    bd = Breakdown.of(bd)
    # On a GPU a window's step_s are each step's host time, its launches: the device
    # runs behind them, so their spread is not the spread of the mean step.
    own = _step_noise(bd) if bd.device != "cuda" else None
    if own is not None:
        neg = _negative_overhead(bd)
        return Noise(own[0], own[1], "steps") if own[0] >= neg else Noise(neg, math.inf, "steps")
    timed = _timed_noise(variant, bd)
    return None if timed is None else Noise(max(timed, _negative_overhead(bd)), math.inf, "timed")


def overhead_uncertainty(variant: Variant, bd: object) -> float | None:
    """window_noise's u alone."""
    n = window_noise(variant, bd)
    return None if n is None else n.u


def t_quantile(a: Noise, b: Noise) -> float:
    """Student's t at the Welch-Satterthwaite degrees of freedom of hypot(a.u, b.u)."""
    num = (a.u**2 + b.u**2) ** 2
    den = sum(x.u**4 / x.df for x in (a, b) if math.isfinite(x.df))
    df = num / den if den > 0 else math.inf
    q = 0.5 + CONFIDENCE / 2
    return float(stats.norm.ppf(q)) if not math.isfinite(df) else float(stats.t.ppf(q, df))


def _side(x: float) -> int:
    return (x > 1.0) - (x < 1.0)


def _ci(t: Measurement) -> tuple[float, float, float] | None:
    """(speedup, low, high) where the ratio has a CI."""
    return (t.speedup, t.ci_low, t.ci_high) if t.has_ci and is_num(t.speedup) else None


def agreement(timed: Measurement, base: Variant, var: Variant, shown: Measurement | None = None) -> Agreement:
    """Rules 1-3 for the ratio `timed` of variant `var` against `base`, as the process
    their windows were profiled in timed it; `shown`, the comparison's one estimate
    printed beside the why, where it is not that ratio (several processes)."""
    bb, vb = base.breakdown, var.breakdown
    if shown is not None:
        est = _ci(shown)
        if est is None:
            return Agreement(Reason.NO_CI)
        if est[1] <= 1.0 <= est[2]:
            return Agreement(Reason.NO_DIFFERENCE)
    own = _ci(timed)
    if own is None:
        return Agreement(Reason.PROCESS_NO_CI if shown is not None else Reason.NO_CI)
    s, lo, hi = own
    if shown is not None and (lo <= 1.0 <= hi or _side(s) != _side(shown.speedup)):
        return Agreement(Reason.PROCESS_DIFFERS, timed=own)
    if lo <= 1.0 <= hi:
        return Agreement(Reason.NO_DIFFERENCE)
    w = window_speedup(bb, vb, base.work, var.work)  # None unless both windows are usable
    if w is None:
        return Agreement(Reason.NO_WINDOW)
    interval = (s, lo, hi)
    if _side(w) != _side(s):
        return Agreement(Reason.OTHER_DIRECTION, w, timed=interval)
    nb, nv = window_noise(base, bb), window_noise(var, vb)
    if nb is None or nv is None:
        return Agreement(Reason.NO_NOISE, w, timed=interval)
    widen = math.exp(t_quantile(nb, nv) * math.hypot(nb.u, nv.u))
    band = (lo / widen, hi * widen)
    if not band[0] <= w <= band[1]:
        return Agreement(Reason.OUTSIDE_BAND, w, band, interval)
    return Agreement(Reason.AGREES, w, band, interval)
