"""The history page (Markdown): regressions and improvements first, with their
commits, size and interval; then suspicious changes and claims whose verdict moved;
then per machine every series with what was found or why nothing was."""

from __future__ import annotations

import os
from pathlib import Path

from ..render.md_escape import inline
from .changes import AGREE, IMPROVEMENT, MIN_POINTS, REGRESSION, SUSPICIOUS, Finding
from .fingerprint import FIELDS, Fingerprint, splitting_fields
from .runs import Skipped
from .series import CLAIM
from .text import commit_range, short, size_text

CHANGE_HEAD = ["machine", "series", "commits", "size after/before [interval]", "floor", "runs after", "p"]


def _row(cells: list[object]) -> str:
    return "| " + " | ".join(inline(c) for c in cells) + " |"


def _table(head: list[str], rows: list[list[object]]) -> list[str]:
    return [_row(head), "| " + " | ".join("---" for _ in head) + " |", *(_row(r) for r in rows)]


def _changes(findings: list[Finding], status: str) -> list[list[object]]:
    return [
        [f.series.fingerprint.label, f.series.label, commit_range(c), size_text(c), f"±{100 * c.floor:.1f}%",
         c.runs_after, f"{c.p:.2g}"]
        for f in findings
        for c in f.changes
        if c.status == status
    ]  # fmt: skip


def _fingerprints(prints: list[Fingerprint]) -> list[str]:
    split = splitting_fields(prints)
    out = [
        "## Machines",
        "",
        "Runs whose fingerprints differ in any field are never one series. "
        + (f"These runs are split apart by: {', '.join(split)}." if split else "All runs share one fingerprint."),
        "",
    ]
    return out + _table(list(FIELDS), [list(p) for p in prints]) + [""]


def _finding_text(f: Finding) -> str:
    parts = [f"{c.status} at {commit_range(c)} {size_text(c)}" for c in f.changes]
    parts += [f"verdict {m.was} → {m.now} at {short(m.before)}..{short(m.after)}" for m in f.moves]
    if not f.changes:
        parts.append(f"none found: {f.none_why}")
    return "; ".join(parts)


def render_page(
    findings: list[Finding],
    skipped: list[Skipped],
    runs: int,
    order_how: str,
    plots: dict[int, Path] | None,
    out_dir: Path,
    searched: bool = True,
) -> str:
    regressions, improvements = _changes(findings, REGRESSION), _changes(findings, IMPROVEMENT)
    suspicious = _changes(findings, SUSPICIOUS)
    prints = list(dict.fromkeys(f.series.fingerprint for f in findings))
    lines = [
        "# History",
        "",
        f"{runs} runs, {len(prints)} machine fingerprints, ordered by {order_how}. A change is a regression or "
        f"an improvement where at least {AGREE} runs after it agree, suspicious with one; a series of fewer than "
        f"{MIN_POINTS} runs is insufficient (docs/report.md, History).",
        "",
    ]
    if not searched:
        lines += ["Change points were not searched: ruptures is not installed (pip install -r requirements.txt).", ""]
    if skipped:
        lines += ["Skipped files:", "", *(f"- {inline(s.path)}: {inline(s.reason)}" for s in skipped), ""]
    lines += ["## Regressions", ""]
    lines += _table(CHANGE_HEAD, regressions) if regressions else ["None found."]
    lines += ["", "## Improvements", ""]
    lines += _table(CHANGE_HEAD, improvements) if improvements else ["None found."]
    lines += ["", "## Suspicious (one run after the change)", ""]
    lines += _table(CHANGE_HEAD, suspicious) if suspicious else ["None found."]
    moves = [
        [f.series.fingerprint.label, f.series.name, f"{short(m.before)}..{short(m.after)}", m.was, m.now]
        for f in findings
        for m in f.moves
    ]
    lines += ["", "## Claims whose verdict moved", ""]
    lines += _table(["machine", "claim", "commits", "was", "now"], moves) if moves else ["None."]
    lines += [""] + _fingerprints(prints)
    if plots is None:
        lines += ["No plots: matplotlib is not installed.", ""]
    for fp in prints:
        mine = [f for f in findings if f.series.fingerprint == fp]
        lines += [f"### {inline(fp.label)}", ""]
        rows = [
            [f.series.what, f.series.name, len(f.series.points), len(f.series.commits), _finding_text(f)] for f in mine
        ]
        lines += _table(["series", "name", "runs", "commits", "found"], rows) + [""]
        for f in mine:
            if plots and id(f) in plots and f.series.what == CLAIM:
                rel = Path(os.path.relpath(plots[id(f)], out_dir)).as_posix()
                lines += [f"![{inline(f.series.name)}]({rel})", ""]
    return "\n".join(lines)


def _reason(why: str | None) -> str:
    """A none-found reason without its figures, to count series by: 'insufficient', 'inside the floor'."""
    head = (why or "").split(":")[0].split(" (")[0]
    return head.removeprefix("largest candidate ")


def summary_lines(findings: list[Finding]) -> list[str]:
    """Per machine: every change with its commits, then how many series found none and why."""
    out = []
    for fp in dict.fromkeys(f.series.fingerprint for f in findings):
        mine = [f for f in findings if f.series.fingerprint == fp]
        out.append(f"{fp.label}: {len(mine)} series")
        for f in mine:
            for c in f.changes:
                out.append(f"  {c.status}: {f.series.label} at {commit_range(c)} {size_text(c)}")
            for m in f.moves:
                out.append(
                    f"  verdict moved: {f.series.name} {m.was} -> {m.now} at {short(m.before)}..{short(m.after)}"
                )
        reasons: dict[str, int] = {}
        for f in mine:
            if not f.changes:
                reasons[_reason(f.none_why)] = reasons.get(_reason(f.none_why), 0) + 1
        for why, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
            out.append(f"  none found in {n} series: {why}")
    return out
