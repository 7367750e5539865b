"""The gate's output: a short summary first (pass/fail, counts, what the floors
rest on), then the regressions, then every pair with its change, interval, floor
and verdict. Plain text for a terminal, Markdown for a CI job summary."""
from __future__ import annotations

from pathlib import Path

from .compare import (AMBIGUOUS, FASTER, HIGHER, LOWER, NA, SAME, SLOWER, Outcome, Row, Settings,
                      check_devices, check_settings, compare_docs, warnings_for)
from .fmt import DASH, fmt_change, fmt_time, is_num, sig
from .gpu_specs import device_name
from .noise import BASE
from .results import ResultsError
from .textable import table


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
    v = r.verdict.upper() if r.regression else r.verdict
    return v + (f" ({'; '.join(r.notes)})" if r.notes else "")


def _speedup(x: float | None) -> str:
    return f"{sig(x)}×" if is_num(x) else DASH


def _name(r: Row) -> tuple[str, str]:
    if r.what == "time":
        return f"{r.key[0]}/{r.key[1]}", r.key[2]
    return f"{r.key[0]}/{r.key[1]}", f"{r.key[2]} vs {r.key[3]}"


def _table(rows: list[Row], markdown: bool) -> str:
    fmt = fmt_time if rows and rows[0].what == "time" else _speedup
    headers = ["experiment/case", "variant" if fmt is fmt_time else "comparison", "baseline", "current",
               "change", "interval", "floor", "p", "n", "verdict"]
    body = [[*_name(r), fmt(r.base), fmt(r.cur), fmt_change(r.change), _ci(r), _floor(r),
             f"{r.p:.2g}" if is_num(r.p) else DASH, f"{r.n[0]}/{r.n[1]}", _verdict(r)] for r in rows]
    return table(headers, body, markdown)


def _regression_line(r: Row) -> str:
    what = "/".join(r.key[:3]) if r.what == "time" else f"{r.key[0]}/{r.key[1]} speedup {r.key[2]} vs {r.key[3]}"
    return f"{what} {fmt_change(r.change)} (interval {_ci(r)}, floor {_floor(r)})"


def summary(out: Outcome, st: Settings, n_history: int) -> list[str]:
    regs = out.regressions
    head = ("FAIL: " + f"{len(regs)} regression{'s' * (len(regs) != 1)} beyond noise" if regs
            else "PASS: no slowdown beyond noise")
    counts = (f"{len(out.times)} times: {_counts(out.times, (SLOWER, FASTER, SAME, AMBIGUOUS, NA))}; "
              f"{len(out.speedups)} speedups: {_counts(out.speedups, (LOWER, HIGHER, SAME, AMBIGUOUS, NA))}")
    if st.threshold is not None:
        floors = f"one fixed floor of {st.threshold:.1%} (--threshold)"
    else:
        floors = ("per pair from the runs' own 10-90% spread, at least "
                  f"{BASE['device']:.1%} device-timed and {BASE['host']:.0%} host-timed")
        floors += (f", widened to cover {n_history} runs of this device" if n_history > 1
                   else "; no other runs of this device given (--history)")
    settings = f"Floors: {floors}; intervals {1 - st.alpha:.0%}, U test at alpha {st.alpha:g}."
    lines = [head + ". " + counts + ".", settings]
    lines += ["REGRESSION: " + r for r in map(_regression_line, regs)]
    return lines


def report_text(out: Outcome, st: Settings, base: dict, cur: dict, warnings: list[str], n_history: int,
                markdown: bool = False) -> str:
    title = (f"Regression gate on {device_name(cur)}: {Path(cur.get('_path', 'current')).name} "
             f"vs baseline {Path(base.get('_path', 'baseline')).name}")
    lines = [f"### {title}" if markdown else title, ""]
    lines += [(f"**{s}**" if markdown and i == 0 else s) for i, s in enumerate(summary(out, st, n_history))]
    lines += [f"warning: {w}" for w in warnings]
    sections = [("Regressions", out.regressions, False),
                ("Time per step (primary metric), current vs baseline", out.times, True),
                ("Speedups (paired, within each run), current vs baseline", out.speedups, True)]
    for title, rows, fold in sections:
        if not rows:
            continue
        groups = [[r for r in rows if r.what == w] for w in ("time", "speedup")]
        tables = "\n\n".join(_table(g, markdown) for g in groups if g)
        if markdown and fold:
            lines += ["", f"<details><summary>{title} ({len(rows)})</summary>", "", tables, "", "</details>"]
        else:
            lines += ["", f"{title}:", tables]
    for name, keys in (("baseline", out.only_base), ("current run", out.only_cur)):
        if keys:
            lines += ["", f"Only in the {name} ({len(keys)}): " + ", ".join("/".join(k) for k in keys)]
    return "\n".join(lines)


def run(base: dict, cur: dict, st: Settings, history: list[dict] | None = None,
        allow_different: bool = False, markdown: bool = False) -> tuple[int, str]:
    """(exit status, text). history: other runs of the same code on this device.
    Raises ResultsError on unusable input."""
    check_settings(st)
    warning = check_devices(base, cur, allow_different)
    out = compare_docs(base, cur, st, history)
    if not out.times:
        raise ResultsError("no (experiment, case, variant) is present in both files: nothing to compare")
    warnings = ([warning] if warning else []) + warnings_for(base, cur)
    text = report_text(out, st, base, cur, warnings, 1 + len(history or []), markdown)
    return (1 if out.regressions else 0), text
