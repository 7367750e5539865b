"""A verdict (claims/verdicts.py, a value) in words: the reason the report prints beside
it, and a claim's claimed range. The rule itself is docs/verdicts.md's prose."""

from __future__ import annotations

import math

from ..claims.verdicts import CONFIRMED, RANK, Verdict, Why, no_effect
from ..statistics.rounds import rounds_text, why_no_ci
from .fmt import sig_apart

_SPAN_NAMES = ("slower", "no effect", "smaller than claimed", "as claimed", "above the claim")

# Why an interval from one process decides nothing (Why.ONE_PROCESS).
ONE_PROCESS = (
    "measured in one process: its interval cannot show the spread between processes "
    "(run the standard profile, or --processes N)"
)
NO_NUMBER = "the claim states no number to test"
NO_CI = "no speedup with a confidence interval was measured"


def claimed_text(kind: str, low: float | None, high: float | None) -> str:
    """'1.10–1.20×', 'faster (no number)' or 'no number'."""
    nums = all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in (low, high))
    if kind == "speedup" and nums:
        if abs(low - high) < 1e-12:
            return f"{low:.2f}×"
        return f"{low:.2f}–{high:.2f}×"
    if kind == "direction":
        return "faster (no number)"
    return "no number"


def _span(r: int, kind: str) -> str:
    return "faster" if kind == "direction" and r >= RANK[CONFIRMED] else _SPAN_NAMES[r]


def _rounds(r) -> str:
    text = why_no_ci(list(r.rounds), list(r.floors), r.confidence)
    if r.cases > 1:
        return f"every one of its {r.cases} cases has {text}"
    return f"{r.label}: {text}" if r.label else text


def _reason(v: Verdict) -> str:
    w = v.why
    if w is Why.UNAVAILABLE:
        return "; ".join(v.reasons)
    if w is Why.NO_NUMBER:
        return NO_NUMBER
    if w is Why.TOO_FEW_ROUNDS:
        return _rounds(v.rounds)
    if w is Why.ONE_PROCESS:
        return ONE_PROCESS
    if w is Why.NO_CI:
        return NO_CI
    if w is Why.ROWS_UNDECIDED:
        return f"{v.undecided} of {v.rows} rows judged apart undecided; {v.label}: {why_text(v.row)}"
    if w is Why.ROWS_EACH:
        return f"{v.verdict} in each of its {v.rows} rows judged apart; the weakest, {v.label}: {why_text(v.row)}"
    if w is Why.ROWS_WEAKEST:
        each = ", ".join(f"{o} {n}" for o, n in v.counts)
        return f"the weakest of {v.rows} rows judged apart ({each}); {v.label}: {why_text(v.row)}"
    b = v.bounds
    ci = f"CI [{sig_apart(v.ci[0], b, g=True)}, {sig_apart(v.ci[1], b, g=True)}]"
    claimed = claimed_text(v.kind, v.low, v.high)
    if w is Why.OUTSIDE_OWN_CI:
        return f"bug: the estimate {v.point:.4g} lies outside its own {ci}"
    if w is Why.ABOVE_BAND:
        return f"faster: {ci} lies above the no-effect band"
    if w is Why.IN_CLAIM:
        return f"{ci} lies at or above the claimed {claimed}, its low end inside it"
    if w is Why.ABOVE_CLAIM:
        return f"{ci} lies above the claimed {claimed}"
    if w is Why.SPANS:
        return f"{ci} spans {_span(v.ranks[0], v.kind)} to {_span(v.ranks[1], v.kind)}: too wide to tell"
    if w is Why.BELOW_BAND:
        return f"{ci} lies below the no-effect band"
    if w is Why.IN_BAND:
        band = no_effect()
        return f"{ci} lies inside the no-effect band [{band[0]:.3f}, {band[1]:.2f}]"
    if w is Why.BELOW_CLAIM:
        return f"faster, but {ci} lies below the claimed {claimed}"
    raise ValueError(f"no words for {w}")


def why_text(v: Verdict) -> str:
    """The verdict's reason as the details print it, with what it left out and what
    was verified no further than the first loss."""
    text = _reason(v)
    if n := len(v.left_out):
        text += f"; left out, below the rounds floor: {n} case{'s' * (n > 1)} ({rounds_text(list(v.left_out))})"
    if v.unjudged:
        text += "; not verified beyond the first loss (which sits near ln(classes) whatever the logits): " + ", ".join(
            v.unjudged
        )
    return text


def short_why(v: Verdict) -> str:
    """The reason the summary's one-line cell shows: of several, the first."""
    return v.reasons[0] if v.why is Why.UNAVAILABLE and v.reasons else why_text(v)
