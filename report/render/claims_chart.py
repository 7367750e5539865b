"""The first screen's chart: every judged claim's figure and interval against its
claimed range (a band), the runs side by side, in the claims' order: what a reader
looks at before the table. A claim is here where some run drew a verdict on it
(verdicts.DRAWN) or found it inconclusive on an interval that spans outcomes; the
figure is the one the claims table shows (judge.ClaimResult: the decisive row's, or
the pooled one). A spanning interval is drawn hollow beside the others, so a pair
that split on a claim shows both runs, not one."""

from __future__ import annotations

from pathlib import Path

from ..claims.judge import ClaimResult
from ..claims.verdicts import DRAWN, INCONCLUSIVE, Verdict, Why
from ..load.numbers import is_num
from .plots import RUN_COLORS, RUN_MARKERS, _speedup_axis, _text, save_figure

BAND_COLOR = "#9ecae1"


ROWS = (Why.ROWS_UNDECIDED, Why.ROWS_EACH, Why.ROWS_WEAKEST)


def _has_ci(r: ClaimResult) -> bool:
    return r.m is not None and all(is_num(x) and x > 0 for x in (r.m.speedup, r.m.ci_low, r.m.ci_high))


def spans(v: Verdict | None) -> bool:
    """Inconclusive because its interval reaches into several outcomes (the decisive
    row's, where rows are judged apart); not for too few rounds, one process or a
    figure outside its own interval, whose intervals the table shows with that reason."""
    if v is None or v.verdict != INCONCLUSIVE:
        return False
    if v.why in ROWS:
        return v.row is not None and v.row is not v and spans(v.row)
    return v.why is Why.SPANS


def _charted(r: ClaimResult) -> bool:
    return _has_ci(r) and r.verdict is not None and (r.verdict.verdict in DRAWN or spans(r.verdict))


def judged_ids(runs: list[tuple[str, list[ClaimResult]]]) -> list[str]:
    """The claims some run judged or measured with an interval spanning outcomes, in
    the order the runs list them."""
    return list(dict.fromkeys(str(r.claim.get("id")) for _, rs in runs for r in rs if _charted(r)))


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
    hollow_drawn = False
    for j, (lab, rs) in enumerate(runs):
        by_id = {str(r.claim.get("id")): r for r in rs if _charted(r)}
        pts = [(y0[i] + 0.35 - step * (j + 0.5), by_id[c]) for i, c in enumerate(ids) if c in by_id]
        color = RUN_COLORS[j % len(RUN_COLORS)]
        for hollow in (False, True):
            sel = [(y, r) for y, r in pts if spans(r.verdict) == hollow]
            if not sel:
                continue
            ax.errorbar(
                [r.m.speedup for _, r in sel],
                [y for y, _ in sel],
                xerr=[[r.m.speedup - r.m.ci_low for _, r in sel], [r.m.ci_high - r.m.speedup for _, r in sel]],
                fmt=RUN_MARKERS[j % len(RUN_MARKERS)],
                color=color,
                markerfacecolor="white" if hollow else color,
                linestyle="none",
                markersize=4,
                capsize=2,
                alpha=0.8 if hollow else 1.0,
                label=_text(lab) if not hollow or not any(not spans(r.verdict) for _, r in pts) else None,
            )
            hollow_drawn |= hollow
        lows += [r.m.ci_low for _, r in pts]
        highs += [r.m.ci_high for _, r in pts]
    ax.axvline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_yticks(y0, [_text(c) for c in ids], fontsize=8)
    hollow_words = "; hollow: inconclusive" if hollow_drawn else ""
    ax.set_xlabel(f"speedup (×; whiskers: CI; band: the claimed range{hollow_words})")
    ax.set_title("Claims: measured against claimed", fontsize=10)
    _speedup_axis(ax, min(lows), max(highs))
    ax.legend(fontsize=7, loc="best")
    ax.grid(True, axis="x", alpha=0.3)
    save_figure(plt, fig, path)
    return True
