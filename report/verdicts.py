"""Verdict on one claim from a measured speedup CI (pure logic, no I/O).

Claim kinds (see claims.json):
  speedup     -- a numeric range [low, high] of speedup (1.10-1.20 = "10-20% faster")
  direction   -- "faster", no magnitude (aligned dims, DDP vs DataParallel)
  qualitative -- no number at all ("High", "Small, but essential for memory")

Rules on the CI [lo, hi] of the measured speedup (speedup > 1 = faster):
  lo <= 1                           -> not reproduced (CI includes 1, or it is slower)
  numeric claim, lo > high          -> exceeded
  numeric claim, hi < low           -> smaller than claimed
  numeric claim, CI overlaps range  -> confirmed
  direction claim, lo > 1           -> confirmed
  no measurement / qualitative claim / unavailable -> not measurable here (with why)
  a number to test, but every ratio behind it from fewer rounds than the floor
  (rounds.py)                       -> inconclusive (too few rounds): such a ratio
                                       has no CI, and a point is no evidence either way
"""
from __future__ import annotations

import math
from dataclasses import dataclass

CONFIRMED = "confirmed"
EXCEEDED = "exceeded"
SMALLER = "smaller than claimed"
NOT_REPRODUCED = "not reproduced"
NOT_MEASURABLE = "not measurable here"
INCONCLUSIVE = "inconclusive (too few rounds)"
# The processes of one run, each judged on its own interval, disagree (claims.py):
# neither answer is the claim's.
UNSTABLE = "unstable between processes"
ALL = (CONFIRMED, EXCEEDED, SMALLER, NOT_REPRODUCED, NOT_MEASURABLE, INCONCLUSIVE, UNSTABLE)
DRAWN = (CONFIRMED, EXCEEDED, SMALLER, NOT_REPRODUCED)  # verdicts that rest on a measured CI


@dataclass(frozen=True)
class Verdict:
    verdict: str
    why: str


def _ok(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def claimed_text(kind: str, low: float | None, high: float | None) -> str:
    if kind == "speedup" and _ok(low) and _ok(high):
        if abs(low - high) < 1e-12:
            return f"{low:.2f}×"
        return f"{low:.2f}–{high:.2f}×"
    if kind == "direction":
        return "faster (no number)"
    return "no number"


def decide(kind: str, low: float | None, high: float | None,
           ci_low: float | None, ci_high: float | None, unavailable: str | None = None,
           too_few_rounds: str | None = None) -> Verdict:
    """The verdict for a claim of `kind` with range [low, high] given the measured CI.
    `unavailable` (e.g. 'CPU run: no GPU') overrides everything: not measurable here.
    `too_few_rounds` (why, naming the rounds) when every ratio behind the claim is below
    the rounds floor: inconclusive, whatever CI was passed. It comes after the claim's
    own testability: more rounds would not give a claim without a number a verdict."""
    if unavailable:
        return Verdict(NOT_MEASURABLE, unavailable)
    if kind == "qualitative" or (kind == "speedup" and not (_ok(low) and _ok(high))):
        return Verdict(NOT_MEASURABLE, "the claim states no number to test")
    if too_few_rounds:
        return Verdict(INCONCLUSIVE, too_few_rounds)
    if not (_ok(ci_low) and _ok(ci_high)):
        return Verdict(NOT_MEASURABLE, "no speedup with a confidence interval was measured")
    lo, hi = min(ci_low, ci_high), max(ci_low, ci_high)
    if lo <= 1.0:
        if hi < 1.0:
            return Verdict(NOT_REPRODUCED, f"slower: CI [{lo:.3g}, {hi:.3g}] lies below 1")
        return Verdict(NOT_REPRODUCED, f"CI [{lo:.3g}, {hi:.3g}] includes 1 (no clear effect)")
    if kind == "direction":
        return Verdict(CONFIRMED, f"faster: CI [{lo:.3g}, {hi:.3g}] lies above 1")
    if lo > high:
        return Verdict(EXCEEDED, f"CI [{lo:.3g}, {hi:.3g}] lies above the claimed {claimed_text(kind, low, high)}")
    if hi < low:
        return Verdict(SMALLER, f"faster, but CI [{lo:.3g}, {hi:.3g}] lies below the claimed "
                                f"{claimed_text(kind, low, high)}")
    return Verdict(CONFIRMED, f"CI [{lo:.3g}, {hi:.3g}] overlaps the claimed {claimed_text(kind, low, high)}")
