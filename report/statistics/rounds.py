"""The rounds floor: the fewest interleaved rounds behind a speedup for which the
harness's confidence interval of it exists at all.

A speedup is the median of per-round ratios with its distribution-free
order-statistic (sign-test) interval (stats.median_ci, harness/stats.cpp). With n
rounds the widest such interval, [min, max], covers the median with probability
1 - 2 * 0.5^n: 93.75% at n = 5, 96.9% at n = 6. So at 95% no interval exists below 6
rounds, and what one round gives as "[min, max]" is the point itself, a CI of width
zero that reads as certainty. Below the floor a ratio is shown as what it is, a point
from n rounds with no CI, and no verdict rests on it. The harness records the floor
of each comparison (rounds_floor, at its confidence: document.Comparison.floor);
the report computes one (multiplicity.rounds_floor) only for the ratios it computes.

Pure text, no imports: fmt, tables, claims and compare all read it."""

from __future__ import annotations


def rounds_text(rounds: list[int | None]) -> str:
    """'n = 1', 'n = 1–3' over several comparisons, 'n = ?' when no count is known."""
    known = sorted({r for r in rounds if r is not None})
    if not known:
        return "n = ?"
    return f"n = {known[0]}" if len(known) == 1 else f"n = {known[0]}–{known[-1]}"


def floor_text(floors: list[int]) -> str:
    """'6', or '6–7' where comparisons were held to different floors."""
    known = sorted(set(floors))
    return str(known[0]) if len(known) == 1 else f"{known[0]}–{known[-1]}"


def why_no_ci(rounds: list[int | None], floors: list[int], confidence: float) -> str:
    """Why ratios from these rounds have no CI, for a verdict's reason or a claim's note."""
    known = {r for r in rounds if r is not None}
    unit = "round" if known == {1} else "rounds"
    return (
        f"{rounds_text(rounds)} interleaved {unit}, below the rounds floor of {floor_text(floors)}: "
        f"no {100 * confidence:.3g}% CI of the median ratio exists with fewer"
    )
