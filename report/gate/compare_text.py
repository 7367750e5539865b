"""The gate's output: a short summary first (pass/fail, counts, what the floors
rest on, one line per regression), then every pair with its change, interval,
floor and verdict. Plain text for a terminal, Markdown for a CI job summary."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..load.document import device_name, source_path
from ..load.numbers import is_num
from ..load.results import ResultsError
from ..render.fmt import DASH, fmt_change, fmt_time, sig
from ..render.md_escape import inline
from ..render.textable import table
from .compare import (
    AMBIGUOUS,
    BLIND,
    FASTER,
    HIGHER,
    LOWER,
    NA,
    NOT_COMPUTABLE,
    SAME,
    SLOWER,
    Outcome,
    Row,
    Settings,
    check_devices,
    check_settings,
    compare_docs,
    warnings_for,
)
from .noise import BASE


def _counts(rows: list[Row], verdicts: tuple[str, ...]) -> str:
    return ", ".join(f"{sum(r.verdict == v for r in rows)} {v}" for v in verdicts)


def _ci(r: Row) -> str:
    if not (is_num(r.ci_low) and is_num(r.ci_high)):
        return DASH
    return f"[{fmt_change(r.ci_low)}, {fmt_change(r.ci_high)}]"


def _floor(r: Row) -> str:
    if r.floor is None:
        return DASH
    text = f"±{100 * r.floor.value:.1f}%"
    return text if r.floor.source == "model" else f"{text} ({r.floor.source})"


def _verdict(r: Row) -> str:
    v = r.verdict.upper() if r.failed else r.verdict
    return v + (f" ({'; '.join(r.notes)})" if r.notes else "")


def _speedup(x: float | None) -> str:
    return f"{sig(x)}×" if is_num(x) else DASH


def _name(r: Row) -> tuple[str, str]:
    if r.what == "time":
        return f"{r.key[0]}/{r.key[1]}", r.key[2]
    return f"{r.key[0]}/{r.key[1]}", f"{r.key[2]} vs {r.key[3]}"


def _table(rows: list[Row], markdown: bool) -> str:
    fmt = fmt_time if rows and rows[0].what == "time" else _speedup
    headers = [
        "experiment/case",
        "variant" if fmt is fmt_time else "comparison",
        "baseline",
        "current",
        "change",
        "interval",
        "floor",
        "p",
        "n",
        "verdict",
    ]
    body = [
        [
            *_name(r),
            fmt(r.base),
            fmt(r.cur),
            fmt_change(r.change),
            _ci(r),
            _floor(r),
            f"{r.p:.2g}" if is_num(r.p) else DASH,
            f"{r.n[0]}/{r.n[1]}" + (f" {r.unit}" if r.unit else ""),
            _verdict(r),
        ]
        for r in rows
    ]
    return table(headers, body, markdown)


def _what(r: Row) -> str:
    return "/".join(r.key[:3]) if r.what == "time" else f"{r.key[0]}/{r.key[1]} speedup {r.key[2]} vs {r.key[3]}"


def _regression_line(r: Row) -> str:
    return f"{_what(r)} {r.verdict.upper()} {fmt_change(r.change)} (interval {_ci(r)}, floor {_floor(r)})"


def _head(out: Outcome) -> str:
    regs, broken = len(out.regressions), len(out.not_computable)
    if not (regs or broken):
        return "PASS: no slowdown beyond noise"
    parts = ([f"{regs} regression{'s' * (regs != 1)} beyond noise"] if regs else []) + (
        [f"{broken} pair{'s' * (broken != 1)} not computable"] if broken else []
    )
    return "FAIL: " + ", ".join(parts)


@dataclass(frozen=True)
class Summary:
    head: str  # the verdict with the counts
    settings: str  # what the floors rest on
    blind: list[str]  # what a pass could not see
    failing: list[str]  # one line per regression and per pair that could not be computed


def summary(out: Outcome, st: Settings, n_history: int) -> Summary:
    """The verdict with the counts, what the floors rest on, and one line per regression
    and per pair that could not be computed (a gate never passes what it could not see)."""
    regs = out.regressions
    head = _head(out)
    broken = (NOT_COMPUTABLE,) if out.not_computable else ()  # counted where there is one
    counts = (
        f"{len(out.times)} times: {_counts(out.times, (SLOWER, FASTER, SAME, AMBIGUOUS, BLIND, NA, *broken))}; "
        f"{len(out.speedups)} speedups: "
        f"{_counts(out.speedups, (LOWER, HIGHER, SAME, AMBIGUOUS, BLIND, NA, *broken))}"
    )
    if st.threshold is not None:
        floors = f"one fixed floor of {st.threshold:.1%} (--threshold)"
    else:
        b, sp = BASE["time"], BASE["speedup"]
        floors = (
            "per pair from the runs' own 10-90% spread, at least "
            f"{b['device']:.1%} device-timed, {b['host']:.0%} host-timed, {b['cpu']:.0%} for CPU-run times; "
            f"speedups measured in several processes: {sp['device']:.1%} device-timed, {sp['host']:.0%} "
            "otherwise, for drift between runs (their spread is in the interval)"
        )
        floors += (
            f", widened where {n_history} runs of the baseline's commit on this device spread wider"
            if n_history > 1
            else "; no other run of the baseline's commit on this device (--history)"
        )
    settings = (
        f"Floors: {floors}; intervals {1 - st.alpha:.0%} (a speedup's from the two runs' estimates), "
        f"times' U test at alpha {st.alpha:g}."
    )
    lines = []
    blind = [r for r in out.times + out.speedups if r.verdict == BLIND]
    if blind:  # a pass says what it could not see
        n_t, n_s = sum(r.what == "time" for r in blind), sum(r.what == "speedup" for r in blind)
        lines.append(
            f"Cannot tell: {n_s} speedup{'s' * (n_s != 1)} and {n_t} time{'s' * (n_t != 1)} are too "
            f"noisy for this gate to see a {st.detect:.0%} change (interval half-width plus floor past "
            f"{st.detect:.0%}); they neither pass nor fail."
        )
    return Summary(
        head + ". " + counts + ".",
        settings,
        lines,
        ["REGRESSION: " + _regression_line(r) for r in regs]
        + [f"NOT COMPUTABLE: {_what(r)}: {'; '.join(r.notes)}" for r in out.not_computable],
    )


def report_text(
    out: Outcome, st: Settings, base: dict, cur: dict, warnings: list[str], n_history: int, markdown: bool = False
) -> str:
    title = (
        f"Regression gate on {device_name(cur)}: {Path(source_path(cur, 'current')).name} "
        f"vs baseline {Path(source_path(base, 'baseline')).name}"
    )
    sm = summary(out, st, n_history)
    head, settings, blind = sm.head, sm.settings, sm.blind
    notes = sm.failing + [f"warning: {w}" for w in warnings]
    if markdown:  # one paragraph each, the regressions and warnings as a list; names from the files made inert
        lines = [f"### {inline(title)}", "", f"**{inline(head)}**", "", inline(settings)]
        lines += [x for b in blind for x in ("", f"**{inline(b)}**")]
        if notes:
            lines += [""] + [f"- {inline(n)}" for n in notes]
    else:
        lines = [title, "", head, settings] + blind + notes
    for caption, rows in (
        ("Time per step (primary metric), current vs baseline", out.times),
        ("Speedups (each run's one estimate and interval), current vs baseline", out.speedups),
    ):
        if not rows:
            continue
        if markdown:  # folded: the job summary shows the verdict and the regressions
            lines += [
                "",
                f"<details><summary>{caption} ({len(rows)})</summary>",
                "",
                _table(rows, True),
                "",
                "</details>",
            ]
        else:
            lines += ["", f"{caption}:", _table(rows, False)]
    for name, keys in (("baseline", out.only_base), ("current run", out.only_cur)):
        if keys:
            only = f"Only in the {name} ({len(keys)}): " + ", ".join("/".join(k) for k in keys)
            lines += ["", inline(only) if markdown else only]
    return "\n".join(lines)


def run(
    base: dict,
    cur: dict,
    st: Settings,
    history: list[dict] | None = None,
    allow_different: bool = False,
    markdown: bool = False,
) -> tuple[int, str]:
    """(exit status, text). history: other runs of the baseline's commit on this device.
    Raises ResultsError on unusable input."""
    check_settings(st)
    warning = check_devices(base, cur, allow_different)
    out = compare_docs(base, cur, st, history)
    if not out.times:
        raise ResultsError("no (experiment, case, variant) is present in both files: nothing to compare")
    warnings = ([warning] if warning else []) + warnings_for(base, cur)
    text = report_text(out, st, base, cur, warnings, 1 + len(history or []), markdown)
    return (1 if out.failed else 0), text
