"""`report history DIR|FILE...`: load, order, build the series, find their changes,
write DIR/history.md and its plots. Compute returns data; write_history writes words."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..load.results import load_results
from .changes import Finding, find, ruptures_or_none
from .fingerprint import fingerprint
from .order import ordering, repo_of
from .page import render_page
from .plots import write_plots
from .runs import Skipped, load_runs
from .series import build

NO_RUPTURES = "ruptures is not installed: change points are not searched (pip install -r requirements.txt)"


@dataclass
class History:
    findings: list[Finding]
    skipped: list[Skipped]
    runs: int
    order_how: str
    searched: bool  # ruptures was at hand


def compute(paths: list[str | Path], repo: Path | None = None, like: Path | None = None) -> History:
    """like: only the runs of that results file's machine fingerprint (a CI job's own GPU)."""
    runs, skipped = load_runs(paths)
    if like is not None:
        want = fingerprint(load_results(like))
        runs = [r for r in runs if r.fingerprint == want]
    order = ordering(runs, repo if repo is not None else repo_of(paths))
    rpt = ruptures_or_none()
    unreadable = len(skipped)
    findings = [find(s, rpt) for s in build(runs, order, skipped)]
    read = len(runs) - (len(skipped) - unreadable)
    return History(findings, skipped, read, order.how, rpt is not None)


def write_history(h: History, out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    plots = write_plots(h.findings, out / "plots")
    page = out / "history.md"
    page.write_text(
        render_page(h.findings, h.skipped, h.runs, h.order_how, plots, out, h.searched) + "\n", encoding="utf-8"
    )
    return {"markdown": page, "plots": list((plots or {}).values())}
