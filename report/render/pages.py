"""The report's pages as data (page.py), built once from the tables and summary the report
computed, for the writers (write_md.py, write_html.py):

- report.md (main_page): what a reader finishes: the runs, the summary, the claims and
  one table per experiment;
- report_details.md (details_page): the rest: each run's environment, how each claim was
  tested, per experiment its plot and each run's whole table with its derived figures,
  notes and where its time went;
- report.html (html_page): what report.md says, in its order, with what the details say
  folded under it (Details): how each claim was tested under the claims, each run's
  whole table, notes and times under its experiment, the runs' environments at the end.

Each section is built by one function for every page; `html` says which layout it takes
(HTML runs some blocks on, folds the details and colours the tables). With several runs,
the summary has a column per run and each experiment's table shows the runs side by side
per comparison (side_by_side.py); the details give each run's own table under the
experiment."""

from __future__ import annotations

import re

from ..claims.verdicts import CONFIRMED, EXCEEDED, INCONCLUSIVE, NO_EFFECT_VERDICT, NOT_MEASURABLE, SLOWER, SMALLER
from ..explanation.why import NOTE as WHY_NOTE
from ..load.gbench import device as gbench_device
from . import page as pg
from . import side_by_side
from .cells import (
    CLAIMS_HEADERS,
    claim_details,
    environment_lines,
    experiment_cells,
    experiment_headers,
    gbench_table,
    main_cells,
    main_headers,
    numeric_headers,
    run_warning,
    short_run_line,
    tested_on,
)
from .facts import value_text
from .summary import ORDER_LINE, UNIT_LINE
from .tables import ExperimentTable
from .verdict_words import why_text

DETAILS = "report_details.md"

# Red only for a decided outcome against the claim (slower, no effect); grey-violet
# for "cannot tell", which is neither a pass nor a failure.
VERDICT_CLASS = {
    CONFIRMED: "v-confirmed",
    EXCEEDED: "v-exceeded",
    SMALLER: "v-smaller",
    SLOWER: "v-notrep",
    NO_EFFECT_VERDICT: "v-notrep",
    NOT_MEASURABLE: "v-na",
    INCONCLUSIVE: "v-few",
}
ROW_CLASS = dict.fromkeys(("SKIPPED", "NOT RUN"), "skip") | dict.fromkeys(
    ("FAILED", "OOM", "ERROR", "INTERRUPTED", "INCOMPLETE"), "bad"
)


def anchor(name: object) -> str | None:
    """The details' heading anchor of an experiment where its name is one (GitHub's slug of
    a plain name is the name); None for a name that would need escaping."""
    return str(name) if re.fullmatch(r"[a-z0-9_-]+", str(name)) else None


def ran(t: ExperimentTable) -> bool:
    """An experiment table with a case in it (not one marker row: skipped, no cases)."""
    return any(r.case is not None for r in t.rows)


def _first(report, name: object) -> ExperimentTable:
    """The experiment's table in the first run that has it."""
    return next(t for s in report.runs if (t := s.table(name)) is not None)


def _heading(level: int, *parts, **kw) -> pg.Heading:
    return pg.Heading(level, pg.spans(*parts), **kw)


def _para(*parts, **kw) -> pg.Paragraph:
    return pg.Paragraph(pg.spans(*parts), **kw)


def _item(*parts, items: list[pg.Item] | None = None) -> pg.Item:
    return pg.Item(pg.spans(*parts), items or [])


# ---------------------------------------------------------------- the sections


def _runs_list(report, html: bool) -> pg.List:
    items = []
    for s in report.sections:
        if s.kind == "gbench":
            items.append(_item("Google Benchmark: ", pg.Code(str(s.path))))
            continue
        basis = f", every CI between {s.processes} processes" if s.processes else ""
        items.append(_item(f"{s.label}: ", pg.Code(str(s.path)), ": ", pg.Text(short_run_line(s.doc)), pg.Text(basis)))
    return pg.List(items, cls="runs", spread=html)


def _warnings(report) -> list[pg.Block]:
    out = [
        _para(pg.Strong("Warning"), f" ({s.label}): ", pg.Text(warn), warn=True)
        for s in report.runs
        if (warn := run_warning(s.doc))
    ]
    return out + [_para(pg.Text(n), warn=True) for n in report.notices]


def _verdict_classes(sm, rows: list[list[str]], headers: list[str], summary_rows) -> list[list[str]]:
    """Each verdict cell's colour; a runs-side-by-side column's by its verdict word."""
    cc = [["" for _ in r] for r in rows]
    for cells, row in zip(cc, summary_rows):
        if "verdict" in headers:
            cells[headers.index("verdict")] = VERDICT_CLASS.get(row.runs[0].verdict, "")
        for j, lab in enumerate(sm.labels):
            if lab in headers:
                cells[headers.index(lab)] = VERDICT_CLASS.get(row.runs[j].verdict, "")
        if "moved?" in headers:
            cells[headers.index("moved?")] = "moved" if row.moved not in ("no", "—") else ""
    return cc


def _summary(report, html: bool) -> list[pg.Block]:
    sm = report.summary
    out: list[pg.Block] = [_heading(2, "Summary")]
    if html:
        out.append(_para(pg.Text(UNIT_LINE), " ", pg.Text(ORDER_LINE)))
    else:
        out += [_para(pg.Text(UNIT_LINE)), _para(pg.Text(ORDER_LINE), joined=True)]
    if sm.rows:
        rows = [r.cells(sm.has_mechanism) for r in sm.rows]
        cc = _verdict_classes(sm, rows, sm.headers, sm.rows)
        out.append(pg.Table(sm.headers, rows, cls="summary", cell_classes=cc))
    else:
        out.append(
            _para("No claim was judged" + ("." if html else " in these runs." if sm.several else " in this run."))
        )
    if sm.unjudged:
        rows = [r.unjudged_cells(sm.has_mechanism) for r in sm.unjudged]
        cc = _verdict_classes(sm, rows, sm.unjudged_headers, sm.unjudged)
        out += [
            _para("Not judged here, with what was measured:"),
            pg.Table(sm.unjudged_headers, rows, cls="summary", cell_classes=cc, joined=html),
        ]
    if sm.unmeasured:
        items = [_item(pg.Text(", ".join(ids)), ": ", pg.Text(why)) for why, ids in sm.unmeasured]
        out += [_para("Not measured:"), pg.List(items, joined=html)]
    if not sm.has_mechanism:
        out.append(
            _para(
                "No mechanism column: "
                + ("no run recorded" if sm.several else "this run recorded no")
                + " profiler breakdowns."
            )
        )
    return out


def _claims(report, html: bool) -> list[pg.Block]:
    """What tested each claim (the union over the runs, in order), and its source; in HTML
    how each claim was tested, folded under it."""
    rows = []
    for cr in report.runs[0].claims:
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
    listed: list[pg.Block] = []
    if rows:
        listed = [
            _para("What each measured claim was tested on (the others are under Not measured):"),
            pg.Table(CLAIMS_HEADERS, rows, cls="claims"),
        ]
    if not html:
        return [_heading(2, "Claims"), *listed] if rows else []
    folded = pg.Details(pg.spans("How each claim was tested"), [_how_tested(report)])
    return [_heading(2, "Claims"), *(listed or [pg.Blank(), pg.Blank()]), folded]


def _how_tested(report) -> pg.List:
    """Each claim: its quote and source (claims.json's own Markdown), why these cases, and
    per run its verdict, the cases used (the results file's names), what is beside it."""
    items = []
    for i, cr in enumerate(report.runs[0].claims):
        d = claim_details(cr)
        sub = [_item("why these cases: ", pg.Authored(d["why"]))] if d["why"] else []
        for s in report.runs:
            c = s.claims[i]
            who = f"{s.label}: " if report.several else ""
            dd = claim_details(c)
            why = why_text(c.verdict)
            sub.append(_item(f"{who}verdict: ", pg.Text(c.verdict.verdict), *((": ", pg.Text(why)) if why else ())))
            if len(dd["used"]) > 1:
                sub.append(_item(f"{who}cases used:", items=[_item(pg.Text(u)) for u in dd["used"]]))
            else:
                sub.append(_item(f"{who}cases used: ", pg.Text("".join(dd["used"]) or "none in these results")))
            sub += [_item(f"{who}beside it: ", pg.Text(b)) for b in dd["beside"]]
            sub += [_item(f"{who}note: ", pg.Text(n)) for n in c.notes]
        note = (" (", pg.Authored(d["note"]), ")") if d["note"] else ()
        items.append(_item(pg.Strong(d["id"]), *note, ": ", pg.Quote(d["quote"]), pg.Authored(d["source"]), items=sub))
    return pg.List(items)


def _not_run(report, names: list) -> list[pg.Block]:
    """Experiments no run ran (skipped, not run here), with their reasons, in one line."""
    parts: list = []
    for name in names:
        reasons = list(
            dict.fromkeys(t.reason or str(t.status) for s in report.runs if (t := s.table(name)) is not None)
        )
        parts += [", " if parts else "", pg.Text(str(name)), " (", pg.Text("; ".join(reasons)), ")"]
    return [_para("Not run: ", *parts, ".")] if parts else []


def _intro(t: ExperimentTable, details_link: bool) -> tuple:
    out: tuple = ("Optimization: ", pg.Text(t.optimization), ". ") if t.optimization else ()
    out += ("Claims: ", pg.Text(", ".join(t.claims) or "—"), ".")
    if details_link:
        a = anchor(t.name)
        out += (" ", pg.Link("Details", f"{DETAILS}{'#' + a if a else ''}"), ".")
    return out


def _status_lines(report, name: object, html: bool) -> list[pg.Block]:
    """An experiment that did not end ok, in each run where it did not: the status and reason."""
    out = []
    for s in report.runs:
        t = s.table(name)
        if t is not None and t.status != "ok":
            who = f" ({s.label})" if report.several else ""
            line = (pg.Strong(str(t.status).upper()), who, ": ", pg.Text(t.reason or "no reason given"))
            out.append(_para(*line, warn=html, joined=not html or bool(out)))
    return out


def _main_table(report, name: object, html: bool) -> pg.Table:
    """The experiment's table in report.md: the runs side by side, or the one run's."""
    tables = [s.table(name) for s in report.runs]
    first = next(t for t in tables if t is not None)
    if report.several:
        rows = side_by_side.rows(tables, [s.processes for s in report.runs])
        headers = side_by_side.headers([s.label for s in report.runs])
        nums = ["", ""] + ["num"] * (len(headers) - 3)  # case, variant, the runs' figures; then moved?
        cc = [nums + ["moved" if r.moved not in ("no", "—") else ""] for r in rows]
        return pg.Table(headers, [r.all_cells for r in rows], cell_classes=cc if html else None)
    rows = [main_cells(first, r, report.runs[0].processes) for r in first.rows]
    headers = main_headers(first)
    return pg.Table(headers, rows, row_classes=_row_classes(first), cell_classes=_num_classes(first, headers, rows))


def _row_classes(t: ExperimentTable) -> list[str]:
    return [ROW_CLASS.get(r.marker or "", "") for r in t.rows]


def _num_classes(t: ExperimentTable, headers: list[str], rows: list) -> list[list[str]]:
    num = {i for i, h in enumerate(headers) if h in numeric_headers(t)}
    return [["num" if j in num else "" for j in range(len(headers))] for _ in rows]


def _experiment(report, name: object, html: bool) -> list[pg.Block]:
    """An experiment in report.md, or in report.html with its details folded under it."""
    first = _first(report, name)
    out: list[pg.Block] = [
        _heading(3, pg.Text(str(name)), ": ", pg.Text(first.title), id=f"x-{name}" if html else None),
        _para(*_intro(first, not html), joined=not html),
        *_status_lines(report, name, html),
        _main_table(report, name, html),
    ]
    if not html:
        return out
    what = "each run's whole table" if report.several else "the whole table"
    summary = f"Details: {what} (spread, why, memory, notes), derived figures, time per case"
    return [*out, *_plot(report, name), pg.Details(pg.spans(summary), _run_tables(report, name, html))]


def _plot(report, name: object) -> list[pg.Block]:
    return [pg.Image(p.path, p.title)] if (p := report.plot(name)) is not None else []


def _run_tables(report, name: object, html: bool) -> list[pg.Block]:
    """Each run's whole table of the experiment, under the run's heading where there are several."""
    out: list[pg.Block] = []
    for s in report.runs:
        if (t := s.table(name)) is not None:
            if report.several:
                head = (pg.Text(s.label),) if html else (pg.Text(str(name)), f", {s.label}")
                out.append(_heading(4, *head, joined=html))
            out += _run_table(t, s.plots, html)
    return out


def _run_table(t: ExperimentTable, plots: list, html: bool) -> list[pg.Block]:
    """One run's whole table of an experiment, its derived figures, notes, times and plots."""
    out: list[pg.Block] = []
    if t.output_tail:
        out += [_para("The last lines its process printed:"), pg.CodeBlock(list(t.output_tail), joined=html)]
    headers = experiment_headers(t)
    rows = [experiment_cells(t, r) for r in t.rows]
    out.append(pg.Table(headers, rows, row_classes=_row_classes(t), cell_classes=_num_classes(t, headers, rows)))
    if t.derived:
        out += [_para("Derived figures:"), *(pg.Facts(ft, joined=html) for ft in t.derived)]
    if t.notes:
        items = [
            _item(
                *[x for i, c in enumerate(cases) for x in ((", " if i else ""), pg.Code(c))],
                ":",
                items=[_item(pg.Code(k), ": ", pg.FileText(value_text(v))) for k, v in kv],
            )
            for cases, kv in t.notes
        ]
        out += [_para("Notes:"), pg.List(items, joined=html)]
    if t.time:
        out += [
            _para("Time per case:"),
            pg.List([_item(pg.Text(case), ": ", pg.Text(text)) for case, text in t.time], joined=html),
        ]
    out += [pg.Image(p.path, p.title) for p in plots if p.experiment == t.name]
    out[0].joined = html  # in HTML, on from the run's heading inside the details
    return out


def _experiments(report, html: bool) -> list[pg.Block]:
    names = report.experiments()
    shown_names = [n for n in names if any((t := s.table(n)) is not None and ran(t) for s in report.runs)]
    out: list[pg.Block] = [_heading(2, "Experiments")]
    if html:
        out += _why_note(report)
    out += _not_run(report, [n for n in names if n not in shown_names])
    for name in shown_names:
        out += _experiment(report, name, html)
    return out


def _why_note(report) -> list[pg.Block]:
    """What a why says, where a table has one."""
    return [_para(pg.Text(WHY_NOTE))] if any(t.has_why for s in report.runs for t in s.tables) else []


def _gbench(report, html: bool) -> list[pg.Block]:
    out: list[pg.Block] = []
    for s in report.sections:
        if s.kind == "gbench":
            headers, rows = gbench_table(s.doc)
            device = gbench_device(s.doc)
            out += [
                _heading(2, "Google Benchmark: ", pg.Code(str(s.path)), " (device: ", pg.Text(device), ")"),
                pg.Table(
                    headers,
                    rows,
                    code_headers=tuple(range(4, len(headers) - 1)),
                    row_classes=["bad" if r[-1] != "ok" else "" for r in rows] if html else None,
                ),
            ]
    return out


def _environments(report, html: bool) -> list[pg.Block]:
    """Each run's environment, one table a run."""
    out: list[pg.Block] = []
    for s in report.runs:
        out += [
            _heading(3, pg.Text(s.label), ": ", pg.Code(str(s.path)), joined=html),
            pg.Table(["", ""], [[k, v] for k, v in environment_lines(s.doc)], joined=html),
        ]
    return out


# ---------------------------------------------------------------- the pages


def main_page(report) -> pg.Page:
    """report.md."""
    out: list[pg.Block] = [_heading(1, "optbench report"), _runs_list(report, False)]
    if report.runs:
        out.append(
            _para(
                "Each run's environment, how each claim was tested, and each run's whole tables with their notes: ",
                pg.Link(DETAILS, DETAILS),
                ".",
            )
        )
    out += _warnings(report)
    if report.runs:
        if report.claims_plot is not None:
            out.append(pg.Image(report.claims_plot.path, report.claims_plot.title))
        out += _summary(report, False) + _claims(report, False) + _experiments(report, False)
    return pg.Page(out + _gbench(report, False))


def details_page(report) -> pg.Page:
    """report_details.md."""
    out: list[pg.Block] = [
        _heading(1, "optbench report: details"),
        _para(
            "The rest of ",
            pg.Link("report.md", "report.md"),
            ": each run's environment, how each claim was tested, and per experiment each run's whole table "
            "(spread, why, memory, notes), its derived figures and where its time went.",
        ),
    ]
    if not report.runs:
        return pg.Page(out)
    out += [_heading(2, "Runs"), *_environments(report, False)]
    out += [_heading(2, "How each claim was tested"), _how_tested(report), _heading(2, "Experiments")]
    out += _why_note(report)
    for name in report.experiments():
        first = _first(report, name)
        out += [
            _heading(3, pg.Text(str(name))),
            _para(pg.Text(first.title), ". ", *_intro(first, False)),
            *_status_lines(report, name, False),
        ]
        out += _plot(report, name) + _run_tables(report, name, False)
    return pg.Page(out)


def html_page(report) -> pg.Page:
    """report.html: report.md's page with report_details.md's folded into it."""
    out: list[pg.Block] = [_heading(1, "optbench report"), _runs_list(report, True), *_warnings(report)]
    if report.runs:
        if report.claims_plot is not None:
            out.append(pg.Image(report.claims_plot.path, report.claims_plot.title))
        out += _summary(report, True) + _claims(report, True) + _experiments(report, True)
    out += _gbench(report, True)
    if report.runs:
        folded = pg.Details(pg.spans("Each run's environment"), _environments(report, True), joined=True)
        out += [_heading(2, "Runs"), folded]
    return pg.Page(out)
