"""Markdown: report.md, what a reader finishes (the runs, the summary, the claims and one
table per experiment), and report_details.md, the rest (each run's environment, how
each claim was tested, per experiment its plot and each run's whole table with its
derived figures, notes and where its time went). Each ends with a glossary of the terms
its own text uses. Prose is wrapped (no line of it longer than WIDTH + a word); tables
are not. Every string from a results file goes through md_escape: inert text, code
spans, fenced blocks, with the measuring machine's paths shortened (machine_paths.py).

With several runs, the summary has a column per run and each experiment's table shows
the runs side by side per comparison (side_by_side.py); the details give each run's own
table under the experiment."""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

from ..explanation.why import NOTE as WHY_NOTE
from ..explanation.why import NOTE_TERMS as WHY_NOTE_TERMS
from ..load.gbench import device as gbench_device
from . import glossary, md_escape, side_by_side
from .cells import (
    CLAIMS_HEADERS,
    claim_details,
    environment_lines,
    experiment_cells,
    experiment_headers,
    gbench_table,
    main_cells,
    main_headers,
    run_warning,
    short_run_line,
    tested_on,
)
from .facts import FactTable, value_text
from .glossary import note_headers, page, page_terms
from .machine_paths import shown
from .summary import ORDER_LINE, UNIT_LINE
from .summary import note_terms as note_summary
from .tables import ExperimentTable
from .verdict_words import why_text

WIDTH = 150  # prose is wrapped here: a reader's line, and a diff's
DETAILS = "report_details.md"


def esc(text: object) -> str:
    return md_escape.inline(shown(text))


def code_span(text: object) -> str:
    return md_escape.code_span(shown(text))


def code_block(lines: list[object]) -> list[str]:
    return md_escape.code_block([shown(line) for line in lines])


_SPAN = re.compile(r"(`+)(.+?)\1")
_KEEP = "\x01"  # a space inside a code span while wrapping: a span is never broken


def prose(text: str, first: str = "", indent: str = "") -> list[str]:
    """Markdown text (already escaped) wrapped at WIDTH: `first` opens it ('- '), `indent`
    each further line; a further line's start never opens a block (md_escape.lead)."""
    guarded = _SPAN.sub(lambda m: m.group(1) + m.group(2).replace(" ", _KEEP) + m.group(1), text)
    lines = textwrap.wrap(
        guarded, WIDTH, initial_indent=first, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    ) or [first.rstrip()]
    out = [lines[0]] + [indent + _lead(line[len(indent) :]) for line in lines[1:]]
    return [line.replace(_KEEP, " ") for line in out]


def _lead(line: str) -> str:
    """md_escape.lead, but a link of the report's own ('[Details](...)') may open a line:
    only '[label]:' would read as a link definition."""
    if line.startswith("[") and not re.match(r"\[[^\]]*\]:", line):
        return line
    return md_escape.lead(line)


def item(text: str, depth: int = 0) -> list[str]:
    """A list item, wrapped."""
    pad = "  " * depth
    return prose(text, pad + "- ", pad + "  ")


def md_table(headers: list[str], rows: list[list[str]], code_headers: tuple[int, ...] = ()) -> list[str]:
    """code_headers: columns named by the file (a benchmark's counters), shown as code."""
    note_headers(h for i, h in enumerate(headers) if i not in code_headers)
    heads = [code_span(h) if i in code_headers else esc(h) for i, h in enumerate(headers)]
    out = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return out


def _fact_table(t: FactTable) -> list[str]:
    """Names from the file as code: a header in code is the file's, not a term of the report."""
    out = [f"{code_span(t.title)}:", ""] if t.title else []
    out += ["| | " + " | ".join(code_span(c) for c in t.columns) + " |", "|" + "---|" * (len(t.columns) + 1)]
    out += ["| " + code_span(name) + " | " + " | ".join(esc(c) for c in cells) + " |" for name, cells in t.rows]
    return out + [""]


def _with_glossary(out: list[str]) -> str:
    """The page, and the glossary of the terms it noted while it was made (glossary.page)."""
    terms = page_terms()
    text = "\n".join(out) + "\n"
    if not terms:
        return text
    gl = ["## Glossary", ""]
    for t in terms:
        gl += item(f"**{esc(t.name)}**: {esc(t.definition)}")
    return text + "\n".join([*gl, ""]) + "\n"


def anchor(name: object) -> str | None:
    """The details' heading anchor of an experiment where its name is one (GitHub's slug of
    a plain name is the name); None for a name that would need escaping."""
    return str(name) if re.fullmatch(r"[a-z0-9_-]+", str(name)) else None


def ran(t: ExperimentTable) -> bool:
    """An experiment table with a case in it (not one marker row: skipped, no cases)."""
    return any(r.case is not None for r in t.rows)


# ---------------------------------------------------------------- report.md


def _runs_list(report) -> list[str]:
    out = []
    for s in report.sections:
        if s.kind == "gbench":
            out += item(f"Google Benchmark: {code_span(s.path)}")
            continue
        basis = f", every CI between {s.processes} processes" if s.processes else ""
        glossary.note("run", *(("CI", "between processes") if basis else ()))
        out += item(f"{s.label}: {code_span(s.path)}: {esc(short_run_line(s.doc))}{esc(basis)}")
    return out


def _summary(report) -> list[str]:
    sm = report.summary
    note_summary(sm)
    out = ["## Summary", "", *prose(esc(UNIT_LINE)), *prose(esc(ORDER_LINE)), ""]
    if sm.rows:
        out += md_table(sm.headers, [r.cells(sm.has_mechanism) for r in sm.rows])
    else:
        out.append("No claim was judged" + (" in these runs." if sm.several else " in this run."))
    out.append("")
    if sm.unjudged:
        out += ["Not judged here, with what was measured:", ""]
        out += md_table(sm.unjudged_headers, [r.unjudged_cells(sm.has_mechanism) for r in sm.unjudged]) + [""]
    if sm.unmeasured:
        out += ["Not measured:", ""]
        for why, ids in sm.unmeasured:
            out += item(f"{esc(', '.join(ids))}: {esc(why)}")
        out.append("")
    if not sm.has_mechanism:
        out += [
            "No mechanism column: "
            + ("no run recorded" if sm.several else "this run recorded no")
            + " profiler breakdowns.",
            "",
        ]
    return out


def _claims(report) -> list[str]:
    """What tested each claim (the union over the runs, in order), and its source."""
    rows = []
    first = report.runs[0]
    for cr in first.claims:
        tested = list(
            dict.fromkeys(
                t
                for s in report.runs
                for c in s.claims
                if c.claim["id"] == cr.claim["id"] and (t := tested_on(c)) != "—"
            )
        )
        if tested:
            rows.append([cr.claim["id"], "; ".join(tested), cr.source or "—"])
    if not rows:
        return []
    glossary.note("claim")
    return [
        "## Claims",
        "",
        "What each measured claim was tested on (the others are under Not measured):",
        "",
        *md_table(CLAIMS_HEADERS, rows),
        "",
    ]


def _not_run(report, names: list) -> list[str]:
    """Experiments no run ran (skipped, not run here), with their reasons, in one line."""
    parts = []
    for name in names:
        reasons = list(
            dict.fromkeys(t.reason or str(t.status) for s in report.runs if (t := s.table(name)) is not None)
        )
        parts.append(f"{esc(name)} ({esc('; '.join(reasons))})")
    return prose("Not run: " + ", ".join(parts) + ".") + [""] if parts else []


def _status_lines(report, name: object) -> list[str]:
    """An experiment that did not end ok, in each run where it did not: the status and reason."""
    out = []
    for s in report.runs:
        t = s.table(name)
        if t is not None and t.status != "ok":
            who = f" ({s.label})" if report.several else ""
            out += prose(f"**{esc(str(t.status).upper())}**{who}: {esc(t.reason or 'no reason given')}")
    return out


def _intro(t: ExperimentTable, details_link: bool = True) -> str:
    parts = []
    if t.optimization:
        parts.append(f"Optimization: {esc(t.optimization)}.")
    glossary.note("claim")
    parts.append(f"Claims: {esc(', '.join(t.claims) or '—')}.")
    if details_link:
        a = anchor(t.name)
        parts.append(f"[Details]({DETAILS}{'#' + a if a else ''}).")
    return " ".join(parts)


def _plot_line(p, out_dir: Path) -> list[str]:
    rel = Path(os.path.relpath(p.path, out_dir)).as_posix()
    # A bracket in the alt text would end it early; rel is plots/ and a sanitised name (plots.py).
    alt = esc(p.title).replace("[", "\\[").replace("]", "\\]")
    return [f"![{alt}]({rel})", ""]


def _experiment(report, name: object, out_dir: Path) -> list[str]:
    tables = [s.table(name) for s in report.runs]
    first = next(t for t in tables if t is not None)
    glossary.note_quoted(first.title)
    out = [f"### {esc(name)}: {esc(first.title)}", *prose(_intro(first)), *_status_lines(report, name), ""]
    if report.several:
        rows = side_by_side.rows(tables, [s.processes for s in report.runs])
        glossary.note("run", "speedup")
        out += md_table(side_by_side.headers([s.label for s in report.runs]), [r.all_cells for r in rows])
    else:
        s = report.runs[0]
        out += md_table(main_headers(first), [main_cells(first, r, s.processes) for r in first.rows])
    return out + [""]


def render_main(report, out_dir: Path) -> str:
    with page():
        return _with_glossary(_main(report, out_dir))


def _main(report, out_dir: Path) -> list[str]:
    out = ["# optbench report", "", *_runs_list(report), ""]
    if report.runs:
        out += prose(
            f"Each run's environment, how each claim was tested, and each run's whole tables with their "
            f"notes: [{DETAILS}]({DETAILS})."
        ) + [""]
    for s in report.runs:
        if warn := run_warning(s.doc):
            out += prose(f"> **Warning** ({s.label}): {esc(warn)}") + [""]
    for n in report.notices:
        out += prose(f"> {esc(n)}") + [""]
    if report.runs:
        if report.claims_plot is not None:
            out += _plot_line(report.claims_plot, out_dir)
        out += _summary(report)
        out += _claims(report)
        names = report.experiments()
        shown_names = [n for n in names if any((t := s.table(n)) is not None and ran(t) for s in report.runs)]
        out += ["## Experiments", ""]
        out += _not_run(report, [n for n in names if n not in shown_names])
        for name in shown_names:
            out += _experiment(report, name, out_dir)
    for s in report.sections:
        if s.kind == "gbench":
            headers, rows = gbench_table(s.doc)
            out += [f"## Google Benchmark: {code_span(s.path)} (device: {esc(gbench_device(s.doc))})", ""]
            out += md_table(headers, rows, tuple(range(4, len(headers) - 1))) + [""]
    return out


# ---------------------------------------------------------------- report_details.md


def _how_tested(report) -> list[str]:
    out = ["## How each claim was tested", ""]
    several = report.several
    for i, cr in enumerate(report.runs[0].claims):
        d = claim_details(cr)
        glossary.note(*d["terms"])
        # id, note, quote, source and why are the project's own Markdown (claims.json, quotes
        # as their sources wrote them); what names cases comes from the results file: escaped.
        note = f" ({d['note']})" if d["note"] else ""
        out += item(f"**{d['id']}**{note}: “{d['quote']}” — {d['source']}")
        if d["why"]:
            out += item(f"why these cases: {d['why']}", 1)
        for s in report.runs:
            c = s.claims[i]
            who = f"{s.label}: " if several else ""
            dd = claim_details(c)
            glossary.note(*dd["terms"])
            v, why = c.verdict, why_text(c.verdict)
            out += item(f"{who}verdict: {esc(v.verdict)}" + (f": {esc(why)}" if why else ""), 1)
            if len(dd["used"]) > 1:
                out += item(f"{who}cases used:", 1)
                for u in dd["used"]:
                    out += item(esc(u), 2)
            else:
                out += item(f"{who}cases used: {esc(''.join(dd['used']) or 'none in these results')}", 1)
            for b in dd["beside"]:
                out += item(f"{who}beside it: {esc(b)}", 1)
            for n in c.notes:
                out += item(f"{who}note: {esc(n)}", 1)
    return out + [""]


def _run_table(t: ExperimentTable, plots: list, out_dir: Path) -> list[str]:
    """One run's whole table of an experiment, its derived figures, notes, times and plots."""
    out = []
    if t.output_tail:
        out += ["The last lines its process printed:", "", *code_block(t.output_tail), ""]
    out += md_table(experiment_headers(t), [experiment_cells(t, r) for r in t.rows]) + [""]
    if t.derived:
        glossary.note("derived figures")
        out += ["Derived figures:", ""]
        for ft in t.derived:
            out += _fact_table(ft)
    if t.notes:
        out += ["Notes:", ""]
        for cases, items in t.notes:
            out += item(f"{', '.join(code_span(c) for c in cases)}:")
            for k, v in items:
                out += item(f"{code_span(k)}: {esc(value_text(v))}", 1)
        out.append("")
    if t.time:
        glossary.note("time per case")
        out += ["Time per case:", ""]
        for case, text in t.time:
            out += item(f"{esc(case)}: {esc(text)}")
        out.append("")
    for p in plots:
        if p.experiment == t.name:
            out += _plot_line(p, out_dir)
    return out


def render_details(report, out_dir: Path) -> str:
    with page():
        return _with_glossary(_details(report, out_dir))


def _details(report, out_dir: Path) -> list[str]:
    out = ["# optbench report: details", ""]
    glossary.note("run", "claim", "why", "derived figures")
    out += prose(
        "The rest of [report.md](report.md): each run's environment, how each claim was tested, and per "
        "experiment each run's whole table (spread, why, memory, notes), its derived figures and where "
        "its time went."
    ) + [""]
    if not report.runs:
        return out
    out += ["## Runs", ""]
    for s in report.runs:
        out += [f"### {s.label}: {code_span(s.path)}", ""]
        glossary.note("run")
        out += md_table(["", ""], [[k, v] for k, v in environment_lines(s.doc)]) + [""]
    out += _how_tested(report)
    out += ["## Experiments", ""]
    if any(t.has_why for s in report.runs for t in s.tables):
        glossary.note(*WHY_NOTE_TERMS)
        out += prose(esc(WHY_NOTE)) + [""]
    for name in report.experiments():
        first = next(t for s in report.runs if (t := s.table(name)) is not None)
        glossary.note_quoted(first.title)
        out += [
            f"### {esc(name)}",
            "",
            *prose(f"{esc(first.title)}. {_intro(first, False)}"),
            *_status_lines(report, name),
            "",
        ]
        if (p := report.plot(name)) is not None:
            out += _plot_line(p, out_dir)
        for s in report.runs:
            t = s.table(name)
            if t is None:
                continue
            if report.several:
                out += [f"#### {esc(name)}, {s.label}", ""]
            out += _run_table(t, s.plots, out_dir)
    return out


def render(report, out_dir: Path) -> tuple[str, str]:
    """(report.md, report_details.md)."""
    return render_main(report, out_dir), render_details(report, out_dir)
