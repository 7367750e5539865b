"""Verdict on one claim from a measured speedup and its CI (pure logic, no I/O, no
words: report/render/verdict_words.py writes them; the rule's prose is docs/verdicts.md).

Claim kinds (see claims.json):
  speedup     -- a numeric range [low, high] of speedup (1.10-1.20 = "10-20% faster")
  direction   -- "faster", no magnitude (aligned dims, DDP vs DataParallel)
  qualitative -- no number at all ("High", "Small, but essential for memory")

The speedup axis is cut into outcomes a user acts on, lowest first: slower, no effect
(inside the band [1/NO_EFFECT_BAND, NO_EFFECT_BAND]), smaller than claimed, and as
claimed or more (confirmed or exceeded). A verdict is drawn only where the whole CI lies
in one outcome; a CI that reaches into two is inconclusive, so less information never
gives an easier verdict (tests/test_verdicts.py checks that).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

# A speedup within this factor of 1 either way is "no effect": below what a user would
# act on, and about the run-to-run spread of a step on a shared machine. The one
# constant the band, its glossary definition and every sentence about it read.
NO_EFFECT_BAND = 1.02


def no_effect() -> tuple[float, float]:
    """The no-effect band [1/NO_EFFECT_BAND, NO_EFFECT_BAND], read when asked (a test
    that changes the constant sees every verdict follow)."""
    return (1.0 / NO_EFFECT_BAND, NO_EFFECT_BAND)


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


class Why(Enum):
    """Why a verdict is what it is; the fields each reads are named beside it."""

    UNAVAILABLE = "unavailable"  # reasons: why nothing here tests the claim
    NO_NUMBER = "no number"  # the claim states none
    TOO_FEW_ROUNDS = "too few rounds"  # rounds: every ratio behind it below the floor
    ONE_PROCESS = "one process"  # its interval is one process's rounds
    NO_CI = "no CI"  # nothing with an interval was measured
    OUTSIDE_OWN_CI = "outside its own CI"  # point, ci: a bug
    ABOVE_BAND = "above the band"  # ci: a direction claim, faster
    IN_CLAIM = "in the claim"  # ci: low end in the claimed range
    ABOVE_CLAIM = "above the claim"  # ci
    SPANS = "spans"  # ci, ranks: reaches into several outcomes
    BELOW_BAND = "below the band"  # ci
    IN_BAND = "in the band"  # ci
    BELOW_CLAIM = "below the claim"  # ci
    ROWS_UNDECIDED = "rows undecided"  # rows judged apart: undecided of rows, label's row
    ROWS_EACH = "each row"  # rows judged apart, every one the same: label's row
    ROWS_WEAKEST = "weakest row"  # rows judged apart: counts, label's row


@dataclass(frozen=True)
class Rounds:
    """Rounds below the floor behind a verdict: each ratio's rounds and floor."""

    rounds: tuple[int | None, ...]
    floors: tuple[int, ...]
    confidence: float
    label: str = ""  # the one case of a claim it stands for
    cases: int = 1  # of a claim: how many cases, every one below the floor


@dataclass(frozen=True)
class Verdict:
    verdict: str  # the outcome word (ALL)
    why: Why
    # The outcome ranks (RANK) the CI touches, lowest and highest; None without a CI.
    ranks: tuple[int, int] | None = None
    ci: tuple[float, float] | None = None  # the interval it is drawn on, low end first
    point: float | None = None  # the estimate (OUTSIDE_OWN_CI)
    kind: str = "qualitative"  # the claim's kind and range it is drawn against
    low: float | None = None
    high: float | None = None
    reasons: tuple[str, ...] = ()  # UNAVAILABLE: the first is the summary's
    rounds: Rounds | None = None  # TOO_FEW_ROUNDS
    rests_on: tuple[str, ...] = ()  # the comparisons it rests on, by label
    row: Verdict | None = None  # ROWS_*: the decisive row's own verdict
    label: str = ""  # ROWS_*: the decisive row
    rows: int = 0  # ROWS_*: rows judged apart
    undecided: int = 0  # ROWS_UNDECIDED: how many of them
    counts: tuple[tuple[str, int], ...] = ()  # ROWS_WEAKEST: rows per verdict, lowest first
    left_out: tuple[int | None, ...] = ()  # pooled cases' rounds left out below the floor
    unjudged: tuple[str, ...] = ()  # rows verified no further than the first loss
    decisive: int | None = None  # ROWS_*: which of the rows it rests on, by index

    @property
    def bounds(self) -> tuple[float, ...]:
        return bounds(self.kind, self.low, self.high)


def outcome(verdict: str) -> str:
    """The outcome a user acts on: confirmed and exceeded are one (as claimed or more)."""
    return AS_CLAIMED if verdict in (CONFIRMED, EXCEEDED) else verdict


def _ok(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def rank(s: float, kind: str, low: float | None, high: float | None) -> int:
    """The outcome rank of one speedup. Non-decreasing in s, so a CI [lo, hi] touches
    exactly the ranks from rank(lo) to rank(hi)."""
    band = no_effect()
    if kind == "direction":
        low, high = math.nextafter(band[1], math.inf), math.inf
    if s >= low:
        return RANK[CONFIRMED] if s <= high else RANK[EXCEEDED]
    if s < band[0]:
        return RANK[SLOWER]
    return RANK[NO_EFFECT_VERDICT] if s <= band[1] else RANK[SMALLER]


def bounds(kind: str, low: float | None, high: float | None) -> tuple[float, ...]:
    """The speedups a verdict of `kind` is drawn against: the no-effect band's ends and,
    for a numeric claim, its range. A figure printed beside the verdict keeps its side of
    each (render/fmt.py, sig_apart)."""
    if kind == "direction":
        return no_effect()
    if kind == "speedup" and _ok(low) and _ok(high):
        return (*no_effect(), low, high)
    return ()


def decide(
    kind: str,
    low: float | None,
    high: float | None,
    ci_low: float | None,
    ci_high: float | None,
    unavailable: str | list[str] | None = None,
    too_few_rounds: Rounds | None = None,
    point: float | None = None,
    one_process: bool = False,
    rows: Sequence[Verdict] = (),
) -> Verdict:
    """The verdict for a claim of `kind` with range [low, high] given the measured CI.
    `unavailable` (e.g. 'CPU run: no GPU', or a list of reasons) overrides everything: not
    measurable here.
    `too_few_rounds` when every ratio behind the claim is below the rounds floor:
    inconclusive, whatever CI was passed. It comes after the claim's own testability:
    more rounds would not give a claim without a number a verdict.
    `point`, where given, must lie inside [ci_low, ci_high]. `one_process` where the
    interval is one process's rounds: it cannot show the spread between processes, which
    moves a ratio more than a process's own rounds scatter, so it decides nothing; a
    verdict from it would be easier with less information than one between processes.
    `rows`, where the claim's comparisons are judged apart, are their own verdicts (each
    from this function, naming its comparison in rests_on); the claim's is the weakest:
    inconclusive where any row is undecided, else the lowest outcome any row reached, its
    CI's low end breaking a tie. So it is as claimed only where every row is, and a wider
    interval anywhere can only make it inconclusive, never easier. `decisive` names the
    row it rests on (the first undecided one, else the weakest)."""
    claim = {"kind": kind, "low": low, "high": high}
    if unavailable:
        reasons = tuple(unavailable) if isinstance(unavailable, list) else (unavailable,)
        return Verdict(NOT_MEASURABLE, Why.UNAVAILABLE, reasons=reasons, **claim)
    if kind == "qualitative" or (kind == "speedup" and not (_ok(low) and _ok(high))):
        return Verdict(NOT_MEASURABLE, Why.NO_NUMBER, **claim)
    if len(rows) > 1:
        undecided = [i for i, r in enumerate(rows) if r.verdict not in DRAWN]
        at = undecided[0] if undecided else min(range(len(rows)), key=lambda i: (RANK[rows[i].verdict], rows[i].ci[0]))
        d = rows[at]
        counts: dict[str, int] = {}
        for r in rows:
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
        why = Why.ROWS_UNDECIDED if undecided else Why.ROWS_EACH if len(counts) == 1 else Why.ROWS_WEAKEST
        return Verdict(
            INCONCLUSIVE if undecided else d.verdict,
            why,
            d.ranks,
            row=d,
            label=d.rests_on[0] if d.rests_on else "",
            rows=len(rows),
            undecided=len(undecided),
            counts=() if undecided else tuple(sorted(counts.items(), key=lambda x: RANK[x[0]])),
            decisive=at,
            **claim,
        )
    if len(rows) == 1:
        return rows[0]
    if too_few_rounds:
        return Verdict(INCONCLUSIVE, Why.TOO_FEW_ROUNDS, rounds=too_few_rounds, **claim)
    if one_process:
        return Verdict(INCONCLUSIVE, Why.ONE_PROCESS, **claim)
    if not (_ok(ci_low) and _ok(ci_high)):
        return Verdict(NOT_MEASURABLE, Why.NO_CI, **claim)
    lo, hi = min(ci_low, ci_high), max(ci_low, ci_high)
    ci = (lo, hi)
    if point is not None and not (_ok(point) and lo * (1 - 1e-9) <= point <= hi * (1 + 1e-9)):
        return Verdict(INCONCLUSIVE, Why.OUTSIDE_OWN_CI, ci=ci, point=point, **claim)
    r_lo, r_hi = rank(lo, kind, low, high), rank(hi, kind, low, high)
    drawn = {"ranks": (r_lo, r_hi), "ci": ci, **claim}
    if r_lo >= RANK[CONFIRMED]:
        if kind == "direction":
            return Verdict(CONFIRMED, Why.ABOVE_BAND, **drawn)
        if r_lo == RANK[CONFIRMED]:
            return Verdict(CONFIRMED, Why.IN_CLAIM, **drawn)
        return Verdict(EXCEEDED, Why.ABOVE_CLAIM, **drawn)
    if r_lo != r_hi:
        return Verdict(INCONCLUSIVE, Why.SPANS, **drawn)
    if r_lo == RANK[SLOWER]:
        return Verdict(SLOWER, Why.BELOW_BAND, **drawn)
    if r_lo == RANK[NO_EFFECT_VERDICT]:
        return Verdict(NO_EFFECT_VERDICT, Why.IN_BAND, **drawn)
    return Verdict(SMALLER, Why.BELOW_CLAIM, **drawn)
