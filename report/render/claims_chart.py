"""The first screen's chart: every judged claim's figure and interval against its
claimed range (a band), the runs side by side, in the claims' order: what a reader
looks at before the table. A claim is here where some run drew a verdict on it
(verdicts.DRAWN) with an interval; the figure is the one the claims table shows
(judge.ClaimResult: the decisive row's, or the pooled one)."""

from __future__ import annotations

from pathlib import Path

from ..claims.judge import ClaimResult
from ..claims.verdicts import DRAWN
from ..load.numbers import is_num
from .plots import RUN_COLORS, RUN_MARKERS, _speedup_axis, _text

BAND_COLOR = "#9ecae1"


def _judged(r: ClaimResult) -> bool:
    return (
        r.verdict is not None
        and r.verdict.verdict in DRAWN
        and all(is_num(x) and x > 0 for x in (r.estimate, r.ci_low, r.ci_high))
    )


def judged_ids(runs: list[tuple[str, list[ClaimResult]]]) -> list[str]:
    """The claims some run judged, in the order the runs list them."""
    return list(dict.fromkeys(str(r.claim.get("id")) for _, rs in runs for r in rs if _judged(r)))


def plot_claims(plt, runs: list[tuple[str, list[ClaimResult]]], path: Path) -> bool:
    """False (nothing drawn) where no run judged any claim."""
    ids = judged_ids(runs)
    if not ids:
        return False
    fig, ax = plt.subplots(figsize=(8, 1.4 + (0.22 + 0.16 * len(runs)) * len(ids)))
    y0 = list(range(len(ids)))[::-1]
    step = 0.7 / max(1, len(runs))
    lows, highs = [1.0], [1.0]
    claims = {str(r.claim.get("id")): r.claim for _, rs in runs for r in rs}
    for i, cid in enumerate(ids):
        low, high = claims[cid].get("low"), claims[cid].get("high")
        if is_num(low) and is_num(high):
            ax.fill_betweenx([y0[i] - 0.4, y0[i] + 0.4], low, high, color=BAND_COLOR, alpha=0.4, linewidth=0)
            lows.append(low)
            highs.append(high)
    for j, (lab, rs) in enumerate(runs):
        by_id = {str(r.claim.get("id")): r for r in rs if _judged(r)}
        pts = [(y0[i] + 0.35 - step * (j + 0.5), by_id[c]) for i, c in enumerate(ids) if c in by_id]
        if not pts:
            continue
        ax.errorbar(
            [r.estimate for _, r in pts],
            [y for y, _ in pts],
            xerr=[[r.estimate - r.ci_low for _, r in pts], [r.ci_high - r.estimate for _, r in pts]],
            fmt=RUN_MARKERS[j % len(RUN_MARKERS)],
            color=RUN_COLORS[j % len(RUN_COLORS)],
            markersize=4,
            capsize=2,
            label=_text(lab),
        )
        lows += [r.ci_low for _, r in pts]
        highs += [r.ci_high for _, r in pts]
    ax.axvline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_yticks(y0, [_text(c) for c in ids], fontsize=8)
    ax.set_xlabel("speedup (×; whiskers: CI; band: the claimed range)")
    ax.set_title("Judged claims: measured against claimed", fontsize=10)
    _speedup_axis(ax, min(lows), max(highs))
    ax.legend(fontsize=7, loc="best")
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
