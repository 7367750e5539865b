"""Verdict on one claim from a measured speedup and its CI (pure logic, no I/O).

Claim kinds (see claims.json):
  speedup     -- a numeric range [low, high] of speedup (1.10-1.20 = "10-20% faster")
  direction   -- "faster", no magnitude (aligned dims, DDP vs DataParallel)
  qualitative -- no number at all ("High", "Small, but essential for memory")

The speedup axis is cut into outcomes a user acts on, lowest first:
  slower               below the no-effect band
  no effect            inside the band NO_EFFECT = [1/1.02, 1.02]
  smaller than claimed faster than the band, below the claim's low end
  as claimed or more   at or above the claim's low end (a direction claim: above the
                       band); by degree, "confirmed" (up to the claim's high end) or
                       "exceeded" (above it)
A claim whose low end lies inside the band (1.01-1.03) takes the overlap as claimed.

A verdict is drawn only where the whole CI lies in one outcome; it is then that
outcome, and within "as claimed or more", confirmed where the CI's low end lies in the
claimed range, exceeded where it lies above. A CI that reaches into two outcomes is
"inconclusive", naming what it spans: a wider interval can only reach into more of
them, so less information never gives an easier verdict (tests/test_verdicts.py checks
that and that raising the interval never lowers the outcomes a verdict allows).

Besides:
  no measurement / qualitative claim / unavailable -> not measurable here (with why)
  a number to test, but every ratio behind it from fewer rounds than the floor
  (rounds.py)                       -> inconclusive: such a ratio has no CI, and a
                                       point is no evidence either way
  a point outside its own interval  -> inconclusive, named as the bug it is
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..render.fmt import sig_apart

# A speedup within 2% of 1 is "no effect": below what a user would act on, and about
# the run-to-run spread of a step on a shared machine.
NO_EFFECT = (1.0 / 1.02, 1.02)

SLOWER = "slower"
NO_EFFECT_VERDICT = "no effect"
SMALLER = "smaller than claimed"
CONFIRMED = "confirmed"
EXCEEDED = "exceeded"
INCONCLUSIVE = "inconclusive"
NOT_MEASURABLE = "not measurable here"
ALL = (CONFIRMED, EXCEEDED, SMALLER, NO_EFFECT_VERDICT, SLOWER, INCONCLUSIVE, NOT_MEASURABLE)
DRAWN = (CONFIRMED, EXCEEDED, SMALLER, NO_EFFECT_VERDICT, SLOWER)  # verdicts that rest on a whole CI

# Ranks along the speedup axis (RANK[verdict]); the outcome a user acts on merges the top two.
RANK = {SLOWER: 0, NO_EFFECT_VERDICT: 1, SMALLER: 2, CONFIRMED: 3, EXCEEDED: 4}
AS_CLAIMED = "as claimed or more"
_SPAN_NAMES = ("slower", "no effect", "smaller than claimed", "as claimed", "above the claim")


@dataclass(frozen=True)
class Verdict:
    verdict: str
    why: str
    # The outcome ranks (RANK) the CI touches, lowest and highest; None without a CI.
    ranks: tuple[int, int] | None = None
    # Where `why` joins several reasons (each experiment's, why none measured): the first,
    # which the summary's one-line cell shows.
    first_why: str | None = None

    @property
    def short_why(self) -> str:
        return self.why if self.first_why is None else self.first_why


def outcome(verdict: str) -> str:
    """The outcome a user acts on: confirmed and exceeded are one (as claimed or more)."""
    return AS_CLAIMED if verdict in (CONFIRMED, EXCEEDED) else verdict


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


def rank(s: float, kind: str, low: float | None, high: float | None) -> int:
    """The outcome rank of one speedup. Non-decreasing in s, so a CI [lo, hi] touches
    exactly the ranks from rank(lo) to rank(hi)."""
    if kind == "direction":
        low, high = math.nextafter(NO_EFFECT[1], math.inf), math.inf
    if s >= low:
        return RANK[CONFIRMED] if s <= high else RANK[EXCEEDED]
    if s < NO_EFFECT[0]:
        return RANK[SLOWER]
    return RANK[NO_EFFECT_VERDICT] if s <= NO_EFFECT[1] else RANK[SMALLER]


def bounds(kind: str, low: float | None, high: float | None) -> tuple[float, ...]:
    """The speedups a verdict of `kind` is drawn against: the no-effect band's ends and,
    for a numeric claim, its range. A figure printed beside the verdict keeps its side of
    each (render/fmt.py, sig_apart)."""
    if kind == "direction":
        return NO_EFFECT
    if kind == "speedup" and _ok(low) and _ok(high):
        return (*NO_EFFECT, low, high)
    return ()


def _span(r: int, kind: str) -> str:
    return "faster" if kind == "direction" and r >= RANK[CONFIRMED] else _SPAN_NAMES[r]


def decide(
    kind: str,
    low: float | None,
    high: float | None,
    ci_low: float | None,
    ci_high: float | None,
    unavailable: str | list[str] | None = None,
    too_few_rounds: str | None = None,
    point: float | None = None,
    one_process: str | None = None,
) -> Verdict:
    """The verdict for a claim of `kind` with range [low, high] given the measured CI.
    `unavailable` (e.g. 'CPU run: no GPU', or a list of reasons) overrides everything: not
    measurable here.
    `too_few_rounds` (why, naming the rounds) when every ratio behind the claim is below
    the rounds floor: inconclusive, whatever CI was passed. It comes after the claim's
    own testability: more rounds would not give a claim without a number a verdict.
    `point`, where given, must lie inside [ci_low, ci_high]. `one_process` (why) when the
    interval is one process's rounds: it cannot show the spread between processes, which
    moves a ratio more than a process's own rounds scatter, so it decides nothing; a
    verdict from it would be easier with less information than one between processes."""
    if isinstance(unavailable, list):  # several reasons: all in the details, the first in the summary
        return (
            Verdict(NOT_MEASURABLE, "; ".join(unavailable), first_why=unavailable[0])
            if unavailable
            else decide(kind, low, high, ci_low, ci_high, None, too_few_rounds, point, one_process)
        )
    if unavailable:
        return Verdict(NOT_MEASURABLE, unavailable)
    if kind == "qualitative" or (kind == "speedup" and not (_ok(low) and _ok(high))):
        return Verdict(NOT_MEASURABLE, "the claim states no number to test")
    if too_few_rounds:
        return Verdict(INCONCLUSIVE, too_few_rounds)
    if one_process:
        return Verdict(INCONCLUSIVE, one_process)
    if not (_ok(ci_low) and _ok(ci_high)):
        return Verdict(NOT_MEASURABLE, "no speedup with a confidence interval was measured")
    lo, hi = min(ci_low, ci_high), max(ci_low, ci_high)
    b = bounds(kind, low, high)
    ci = f"CI [{sig_apart(lo, b, g=True)}, {sig_apart(hi, b, g=True)}]"
    if point is not None and not (_ok(point) and lo * (1 - 1e-9) <= point <= hi * (1 + 1e-9)):
        return Verdict(INCONCLUSIVE, f"bug: the estimate {point:.4g} lies outside its own {ci}")
    r_lo, r_hi = rank(lo, kind, low, high), rank(hi, kind, low, high)
    ranks = (r_lo, r_hi)
    claimed = claimed_text(kind, low, high)
    if r_lo >= RANK[CONFIRMED]:
        if kind == "direction":
            return Verdict(CONFIRMED, f"faster: {ci} lies above the no-effect band", ranks)
        if r_lo == RANK[CONFIRMED]:
            return Verdict(CONFIRMED, f"{ci} lies at or above the claimed {claimed}, its low end inside it", ranks)
        return Verdict(EXCEEDED, f"{ci} lies above the claimed {claimed}", ranks)
    if r_lo != r_hi:
        return Verdict(INCONCLUSIVE, f"{ci} spans {_span(r_lo, kind)} to {_span(r_hi, kind)}: too wide to tell", ranks)
    if r_lo == RANK[SLOWER]:
        return Verdict(SLOWER, f"{ci} lies below the no-effect band", ranks)
    if r_lo == RANK[NO_EFFECT_VERDICT]:
        return Verdict(
            NO_EFFECT_VERDICT, f"{ci} lies inside the no-effect band [{NO_EFFECT[0]:.3f}, {NO_EFFECT[1]:.2f}]", ranks
        )
    return Verdict(SMALLER, f"faster, but {ci} lies below the claimed {claimed}", ranks)
