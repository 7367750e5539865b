"""Whether a profiled window may explain a timed comparison: the rule of the README's
"Why a variant is faster". A mechanism is shown only where

  1. the timed speedup has a CI (enough rounds) and that CI excludes 1: a window's
     difference where the timing finds none is noise, not a cause;
  2. the two windows' speedup W (per unit of work, the unit of the speedup column)
     lies on the same side of 1 as the timed one: a window never explains time
     "added" when the timing says faster;
  3. W lies in the timed CI [L, H] widened by the uncertainty of the profiler's
     measured overheads: [L * exp(-z*u), H * exp(z*u)], z = 1.96 (the CI's 95%),
     u = hypot(u_base, u_variant).

Each side's u is the uncertainty of its recorded overhead (window step / timed
median step - 1). The timed median comes from many rounds; the window is the mean
of `steps` steps, so the overhead is uncertain by the window's own noise: the
variant's timed per-step spread, IQR / 1.349 / median scaled from a sample of
iters_per_sample steps to the window's steps (sqrt(iters_per_sample / steps)). It
is never less than a negative overhead shows: a profiler only adds time, so a
window faster than the timed median by x measured noise of at least x.

The positive part of an overhead is not uncertainty: it is the profiler's cost,
and W / timed = (1 + o_base) / (1 + o_variant) by construction, so widening by the
overheads themselves would pass every window. Where that cost falls unevenly on
the two variants (more operators profiled in one) the windows' ratio moves away
from the timed one, and their per-category deltas carry the profiler's cost: that
is what this rule refuses to publish as a mechanism."""
from __future__ import annotations

import math
from dataclasses import dataclass

from .fmt import is_num, sig
from .why import usable, window_speedup

Z95 = 1.959963984540054
IQR_PER_SD = 1.349  # a normal distribution's IQR in standard deviations
NOT_EXPLAINED = "profile disagrees with the timing: not explained"
NO_DIFFERENCE = "timing finds no clear difference (CI includes 1): nothing to explain"


@dataclass(frozen=True)
class Agreement:
    ok: bool
    reason: str  # why no mechanism is shown; "" when ok
    window: float | None = None  # the windows' speedup per unit of work
    band: tuple[float, float] | None = None  # where it had to lie


def overhead_uncertainty(variant: dict, bd: dict) -> float | None:
    """Relative uncertainty of a window's recorded overhead (see the module's rule);
    None where the variant's timed spread is not recorded."""
    stats = variant.get("stats") or {}
    med, iqr = stats.get("median"), stats.get("iqr")
    steps, ips = bd.get("steps"), variant.get("iters_per_sample") or 1
    if not (is_num(med) and med > 0 and is_num(iqr) and iqr >= 0 and is_num(steps) and steps >= 1 and is_num(ips)):
        return None
    noise = iqr / IQR_PER_SD / med * math.sqrt(max(ips, 1) / steps)
    shown = -bd["overhead"] if is_num(bd.get("overhead")) and bd["overhead"] < 0 else 0.0
    return max(noise, shown)


def _side(x: float) -> int:
    return (x > 1.0) - (x < 1.0)


def agreement(cm: dict, base: dict, var: dict, base_work: float, var_work: float,
              below_floor: bool) -> Agreement:
    """Rules 1-3 for one comparison `cm` of variant `var` against `base` (variant dicts
    with their breakdowns); base_work / var_work: work per step (document.Variant.work)."""
    bb, vb = base.get("breakdown"), var.get("breakdown")
    s, lo, hi = cm.get("speedup"), cm.get("ci_low"), cm.get("ci_high")
    if below_floor or not (is_num(s) and is_num(lo) and is_num(hi)):
        return Agreement(False, "no CI for the timed speedup: nothing to check the profile against")
    if lo <= 1.0 <= hi:
        return Agreement(False, NO_DIFFERENCE)
    w = window_speedup(bb, vb, base_work, var_work) if usable(bb) and usable(vb) else None
    if w is None:
        return Agreement(False, "no window speedup")
    shown = f"windows {sig(w)}× vs timed {sig(s)}× [{sig(lo)}, {sig(hi)}]"
    if _side(w) != _side(s):
        return Agreement(False, f"{NOT_EXPLAINED} ({shown}: the other direction)", w)
    ub, uv = overhead_uncertainty(base, bb), overhead_uncertainty(var, vb)
    if ub is None or uv is None:
        return Agreement(False, f"{NOT_EXPLAINED} (no timed spread recorded to bound the window's noise)", w)
    widen = math.exp(Z95 * math.hypot(ub, uv))
    band = (lo / widen, hi * widen)
    if not band[0] <= w <= band[1]:
        return Agreement(False, f"{NOT_EXPLAINED} ({shown}, allowed {sig(band[0])}–{sig(band[1])})", w, band)
    return Agreement(True, "", w, band)
