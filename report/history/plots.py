"""One PNG per claim and machine: the claim's figure and interval in each run along
history, its claimed range as a band, each change point a vertical line (red a
regression, green an improvement, orange suspicious). House conventions as
render/plots.py: Agg, 110 dpi, names from files drawn as text, never mathtext."""

from __future__ import annotations

from pathlib import Path

from ..render.plots import _safe, _text, matplotlib_or_none, save_figure
from .changes import IMPROVEMENT, REGRESSION, Finding
from .series import CLAIM
from .text import short

COLORS = {REGRESSION: "#d62728", IMPROVEMENT: "#2ca02c"}
SUSPICIOUS_COLOR = "#ff7f0e"
BAND_COLOR = "#9ecae1"


def plot_finding(plt, f: Finding, path: Path) -> None:
    s = f.series
    x = list(range(len(s.points)))
    y = [p.value for p in s.points]
    err = [[p.value - p.ci_low for p in s.points], [p.ci_high - p.value for p in s.points]]
    fig, ax = plt.subplots(figsize=(8, 3.6))
    low, high = s.claimed
    if low is not None and high is not None:
        ax.axhspan(low, high, color=BAND_COLOR, alpha=0.35, label="claimed range")
    ax.errorbar(x, y, yerr=err, fmt="o", color="#1f77b4", capsize=3, label="estimate and interval")
    for c in f.changes:
        ax.axvline(c.at - 0.5, color=COLORS.get(c.status, SUSPICIOUS_COLOR), linestyle="--", label=c.status)
    ticks = [i for i in x if i == 0 or s.points[i].commit != s.points[i - 1].commit]
    ax.set_xticks(ticks, [short(s.points[i].commit) for i in ticks], rotation=45, ha="right", fontsize=7)
    ax.set_xlabel("run, at its commit (in the order of history)")
    ax.set_ylabel("speedup (×)")
    ax.set_title(_text(f"{s.name}: {s.fingerprint.label}"), fontsize=9)
    handles, labels = ax.get_legend_handles_labels()
    seen = dict(zip(labels, handles))
    ax.legend(seen.values(), seen.keys(), fontsize=7, loc="best")
    save_figure(plt, fig, path)


def write_plots(findings: list[Finding], out_dir: Path) -> dict[int, Path] | None:
    """{id(finding): its plot} for every claim series; None without matplotlib."""
    plt = matplotlib_or_none()
    if plt is None:
        return None
    out_dir.mkdir(parents=True, exist_ok=True)
    written = {}
    for f in findings:
        if f.series.what != CLAIM or not f.series.points:
            continue
        fp = f.series.fingerprint  # the number keeps apart machines that differ in a field the name leaves out
        path = out_dir / _safe(f"history_{len(written) + 1:03d}_{f.series.name}_{fp.model}_{fp.profile}.png")
        plot_finding(plt, f, path)
        written[id(f)] = path
    return written
