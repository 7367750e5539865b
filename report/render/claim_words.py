"""A claim's figures (claims/judge.py, values) in words: each row's speedup, the claim's
figure, what is shown beside it, and its claimed range. The claims return data; this
writes them (as verdict_words.py writes a verdict)."""

from __future__ import annotations

import statistics

from ..claims.judge import Beside, ClaimResult, ClaimRow
from ..claims.verdicts import DRAWN
from ..load.numbers import is_num
from ..statistics.measurement import PROCESS, Measurement
from ..statistics.rounds import rounds_text
from .fmt import fmt_no_ci, fmt_speedup, sig, sig_apart
from .verdict_words import claimed_text


def row_text(e: ClaimRow) -> str:
    """'4.57× [4.21, 4.91] (3 processes)', '4.57× [4.21, 4.91]' from one process's
    rounds, or '7.13× (n = 1, no CI)' below the rounds floor."""
    m = e.m
    if m.below_floor:
        return fmt_no_ci(m.speedup, m.rounds, e.bounds)
    if not m.has_ci:
        return f"{sig_apart(m.speedup, e.bounds)}× (no CI)"
    tags = [m.basis] if m.unit == PROCESS else ["one process"] if e.alone else []
    if abs(m.confidence - 0.95) > 1e-9:
        tags.append(f"{100 * m.confidence:.3g}% CI")
    return fmt_speedup(m.speedup, m.ci_low, m.ci_high, e.bounds) + (f" ({', '.join(tags)})" if tags else "")


def decisive_role(res: ClaimResult) -> str:
    """What the decisive row is among those judged apart."""
    v = res.decisive.verdict if res.decisive else None
    if v is None:
        return "the first"
    return "an inconclusive one" if v.verdict not in DRAWN else "the weakest"


def claim_text(res: ClaimResult) -> str:
    """The claim's printed estimate, the one every table shows: one row's estimate as
    it is; the decisive row of several judged apart, with the range of all; a pooled
    geometric mean with the range of the per-case figures it is the mean of."""
    m, b = res.m, res.bounds
    if m is None:
        return "—"
    rows = res.pooled
    if len(rows) == 1:
        return row_text(rows[0])
    rng = f"range {sig_apart(res.low, b)}–{sig_apart(res.high, b)}"
    if res.apart:
        e = res.decisive
        return f"{row_text(e)}, {e.case}: {e.variant}, {decisive_role(res)} of {len(rows)} judged apart ({rng})"
    text = f"{sig_apart(m.speedup, b)}× geometric mean of {len(rows)} cases ({rng})"
    if rows[0].m.below_floor:
        text += f"; {rounds_text([e.m.rounds for e in rows])}, no CI"
    elif is_num(m.ci_low) and is_num(m.ci_high):
        how = f"between {m.n} processes" if m.unit == PROCESS else "bootstrap"
        text += f"; {100 * m.confidence:.3g}% CI [{sig_apart(m.ci_low, b)}, {sig_apart(m.ci_high, b)}] {how}"
    else:
        text += "; no pooled CI"
    if out := res.left_out:
        text += (
            f"; not pooled, below the rounds floor: {len(out)} case"
            f"{'s' * (len(out) > 1)} ({rounds_text([e.m.rounds for e in out])}, no CI)"
        )
    return text


def claimed(res: ClaimResult) -> str:
    """What the claim states: its range, and the condition it holds under."""
    c = res.claim
    text = claimed_text(c.get("kind", "qualitative"), c.get("low"), c.get("high"))
    return f"{text} {c['condition']}" if c.get("condition") else text


def speedups_text(items: list[ClaimRow]) -> str:
    """'4.57× [4.21, 4.91] (exp/case)' for one, else the range and median over them."""
    if not items:
        return "not in these results"
    if len(items) == 1:
        e = items[0]
        return f"{row_text(e)} ({e.experiment}/{e.case})"
    s = [e.m.speedup for e in items]
    text = f"{sig(min(s))}–{sig(max(s))}× over {len(s)} comparisons (median {sig(statistics.median(s))}×)"
    if len({(e.experiment, e.case) for e in items}) == 1:
        text += f" ({items[0].experiment}/{items[0].case})"
    below = [e.m.rounds for e in items if e.m.below_floor]
    if below:
        text += f"; {len(below)} of them below the rounds floor ({rounds_text(below)}, no CI)"
    return text


def _ratio_text(m: Measurement, unit: str = "") -> str:
    """A recorded figure with its CI, or with its rounds and 'no CI' below the rounds floor."""
    head = f"{sig(m.speedup)}{unit}"
    if m.below_floor:
        return f"{head} ({rounds_text([m.rounds])}, no CI)"
    if is_num(m.ci_low) and is_num(m.ci_high):
        return f"{head} [{sig(m.ci_low)}, {sig(m.ci_high)}]"
    return head


def beside_text(b: Beside) -> str:
    """A 'beside' entry's figures, with where they are from."""
    v = b.value
    if b.rows:
        return speedups_text(b.rows)
    if isinstance(v, Measurement) and b.variant:  # a ratio against one device
        return f"{b.variant}: {_ratio_text(v, '×')} of one device ({b.where})"
    if isinstance(v, Measurement):
        return f"{_ratio_text(v)} ({b.where})"
    if b.pct and is_num(v):
        return f"{100 * v:.0f}% ({b.where})"
    return f"{v if isinstance(v, (int, str)) else sig(v)} ({b.where})"
