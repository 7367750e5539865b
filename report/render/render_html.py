"""Self-contained HTML report (report.html): no network needed (no script, font or style
from elsewhere), plots embedded as base64 PNGs. What report.md says, in its order (the
runs, the summary, the claims, a table and a plot per experiment), with what
report_details.md says folded under it (<details>): how each claim was tested under the
claims, each run's whole table, notes and times under its experiment, the runs'
environments at the end; then the glossary of every term the page uses. Every string
is escaped with the measuring machine's paths shortened (machine_paths.py)."""

from __future__ import annotations

import base64
import html

from ..claims.verdicts import CONFIRMED, EXCEEDED, INCONCLUSIVE, NO_EFFECT_VERDICT, NOT_MEASURABLE, SLOWER, SMALLER
from ..explanation.why import NOTE as WHY_NOTE
from ..explanation.why import NOTE_TERMS as WHY_NOTE_TERMS
from ..load.gbench import device as gbench_device
from . import glossary, side_by_side
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
from .facts import FactTable, value_text
from .glossary import note_headers, page, page_terms
from .machine_paths import shown
from .render_md import ran
from .summary import ORDER_LINE, UNIT_LINE
from .summary import note_terms as note_summary
from .tables import ExperimentTable
from .verdict_words import why_text

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;max-width:1400px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f0f0f0} td.num{text-align:right;white-space:nowrap}
tr.bad td{background:#fde8e8} tr.skip td{background:#f3f3f3;color:#666}
.v-confirmed{background:#dff3e4} .v-exceeded{background:#d0ecf7} .v-smaller{background:#fff4d6}
.v-notrep{background:#fde8e8} .v-na{color:#777} .v-few{background:#eee8f6}
.warn{background:#fff4d6;border:1px solid #e0c060;padding:0.5em 1em}
img{max-width:100%;border:1px solid #ddd;margin:0.3em 0 1em}
code{background:#f4f4f4;padding:0 3px} blockquote{color:#555;margin:0.2em 1em}
table.summary{font-size:14px;width:100%} table.summary td{overflow-wrap:anywhere}
table.summary td:nth-child(-n+3){overflow-wrap:break-word}
table.summary td:nth-child(2){max-width:12em} .moved{background:#fff4d6} p.run{color:#555;margin:0.2em 0}
table.claims td{overflow-wrap:anywhere} table.claims td:nth-child(2){max-width:45em}
details{margin:0.3em 0 1.2em} details>summary{cursor:pointer;color:#1f4e79}
details[open]>summary{margin-bottom:0.5em} ul.runs li{margin:0.2em 0}
dl.glossary{columns:2 30em;column-gap:2em;font-size:13px;margin:0.5em 0 1.5em}
dl.glossary dt{font-weight:bold;break-after:avoid} dl.glossary dd{margin:0 0 0.4em 1em;break-inside:avoid}
"""


def escape(s: object, quote: bool = True) -> str:
    return html.escape(shown(s), quote)


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
ROW_CLASS = {
    "SKIPPED": "skip",
    "NOT RUN": "skip",
    "FAILED": "bad",
    "OOM": "bad",
    "ERROR": "bad",
    "INTERRUPTED": "bad",
    "INCOMPLETE": "bad",
}


def table(
    headers: list[str],
    rows: list[list[str]],
    row_classes: list[str] | None = None,
    cell_classes: list[list[str]] | None = None,
) -> str:
    note_headers(headers)
    out = ["<table><thead><tr>", *(f"<th>{escape(h)}</th>" for h in headers), "</tr></thead><tbody>"]
    for i, row in enumerate(rows):
        rc = row_classes[i] if row_classes else ""
        out.append(f'<tr class="{rc}">' if rc else "<tr>")
        for j, c in enumerate(row):
            cc = cell_classes[i][j] if cell_classes else ""
            out.append(f'<td class="{cc}">{escape(str(c))}</td>' if cc else f"<td>{escape(str(c))}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _code(name: object) -> str:
    return f"<code>{escape(name)}</code>"


def _fact_table(t: FactTable) -> str:
    """Names from the results file as code; numbers right-aligned."""
    td = '<td class="num">' if t.numeric else "<td>"
    out = [
        f"<p>{_code(t.title)}:</p>" if t.title else "",
        "<table><thead><tr><th></th>",
        *(f"<th>{_code(c)}</th>" for c in t.columns),
        "</tr></thead><tbody>",
    ]
    for name, cells in t.rows:
        out.append(f"<tr><td>{_code(name)}</td>" + "".join(f"{td}{escape(c)}</td>" for c in cells) + "</tr>")
    return "".join(out) + "</tbody></table>"


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


def _summary(report) -> str:
    sm = report.summary
    note_summary(sm)
    out = ["<h2>Summary</h2>", f"<p>{escape(UNIT_LINE)} {escape(ORDER_LINE)}</p>"]
    if sm.rows:
        rows = [r.cells(sm.has_mechanism) for r in sm.rows]
        cc = _verdict_classes(sm, rows, sm.headers, sm.rows)
        out.append(table(sm.headers, rows, cell_classes=cc).replace("<table>", '<table class="summary">', 1))
    else:
        out.append("<p>No claim was judged.</p>")
    if sm.unjudged:
        rows = [r.unjudged_cells(sm.has_mechanism) for r in sm.unjudged]
        cc = _verdict_classes(sm, rows, sm.unjudged_headers, sm.unjudged)
        out.append(
            "<p>Not judged here, with what was measured:</p>"
            + table(sm.unjudged_headers, rows, cell_classes=cc).replace("<table>", '<table class="summary">', 1)
        )
    if sm.unmeasured:
        out.append(
            "<p>Not measured:</p><ul>"
            + "".join(f"<li>{escape(', '.join(ids))}: {escape(why)}</li>" for why, ids in sm.unmeasured)
            + "</ul>"
        )
    if not sm.has_mechanism:
        out.append(
            "<p>No mechanism column: "
            + ("no run recorded" if sm.several else "this run recorded no")
            + " profiler breakdowns.</p>"
        )
    return "\n".join(out)


def _glossary() -> str:
    """The terms the page noted while it was made (glossary.page)."""
    terms = page_terms()
    if not terms:
        return ""
    return (
        '<h2 id="glossary">Glossary</h2><dl class="glossary">'
        + "".join(f'<dt id="{t.slug}">{escape(t.name)}</dt><dd>{escape(t.definition)}</dd>' for t in terms)
        + "</dl>"
    )


def _img(path) -> str:
    try:
        data = base64.b64encode(path.read_bytes()).decode("ascii")
    except OSError:
        return ""
    return f'<img alt="{escape(path.name)}" src="data:image/png;base64,{data}">'


def _how_tested(report) -> str:
    several = report.several
    out = ["<details><summary>How each claim was tested</summary><ul>"]
    for i, cr in enumerate(report.runs[0].claims):
        d = claim_details(cr)
        glossary.note(*d["terms"])
        note = f" ({escape(d['note'])})" if d["note"] else ""
        items = [f"<li>why these cases: {escape(d['why'])}</li>"] if d["why"] else []
        for s in report.runs:
            c = s.claims[i]
            who = f"{s.label}: " if several else ""
            dd = claim_details(c)
            glossary.note(*dd["terms"])
            v, why = c.verdict, why_text(c.verdict)
            items.append(f"<li>{who}verdict: {escape(v.verdict)}" + (f": {escape(why)}" if why else "") + "</li>")
            if len(dd["used"]) > 1:
                items.append(
                    f"<li>{who}cases used:<ul>" + "".join(f"<li>{escape(u)}</li>" for u in dd["used"]) + "</ul></li>"
                )
            else:
                items.append(f"<li>{who}cases used: {escape(''.join(dd['used']) or 'none in these results')}</li>")
            items += [f"<li>{who}beside it: {escape(b)}</li>" for b in dd["beside"]]
            items += [f"<li>{who}note: {escape(n)}</li>" for n in c.notes]
        out.append(
            f"<li><b>{escape(d['id'])}</b>{note}: <blockquote>{escape(d['quote'])}</blockquote>"
            f"{escape(d['source'])}<ul>{''.join(items)}</ul></li>"
        )
    out.append("</ul></details>")
    return "".join(out)


def _claims(report) -> str:
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
    if rows:
        glossary.note("claim")
    listed = table(CLAIMS_HEADERS, rows).replace("<table>", '<table class="claims">', 1) if rows else ""
    return "\n".join(
        [
            "<h2>Claims</h2>",
            "<p>What each measured claim was tested on (the others are under Not measured):</p>" if rows else "",
            listed,
            _how_tested(report),
        ]
    )


def _run_table(t: ExperimentTable, plots: list) -> str:
    """One run's whole table of an experiment, its derived figures, notes, times and plots."""
    out = []
    if t.output_tail:
        out.append("<p>The last lines its process printed:</p><pre>" + escape("\n".join(t.output_tail)) + "</pre>")
    headers = experiment_headers(t)
    rows = [experiment_cells(t, r) for r in t.rows]
    num_cols = {i for i, h in enumerate(headers) if h in numeric_headers(t)}
    cc = [["num" if j in num_cols else "" for j in range(len(headers))] for _ in rows]
    out.append(table(headers, rows, [ROW_CLASS.get(r.marker or "", "") for r in t.rows], cc))
    if t.derived:
        glossary.note("derived figures")
        out.append("<p>Derived figures:</p>" + "".join(_fact_table(ft) for ft in t.derived))
    if t.notes:
        out.append(
            "<p>Notes:</p><ul>"
            + "".join(
                f"<li>{', '.join(_code(c) for c in cases)}:<ul>"
                + "".join(f"<li>{_code(k)}: {escape(value_text(v))}</li>" for k, v in items)
                + "</ul></li>"
                for cases, items in t.notes
            )
            + "</ul>"
        )
    if t.time:
        glossary.note("time per case")
        out.append(
            "<p>Time per case:</p><ul>"
            + "".join(f"<li>{escape(case)}: {escape(text)}</li>" for case, text in t.time)
            + "</ul>"
        )
    out += [_img(p.path) for p in plots if p.experiment == t.name]
    return "\n".join(out)


def _status_lines(report, name: object) -> str:
    out = []
    for s in report.runs:
        t = s.table(name)
        if t is not None and t.status != "ok":
            who = f" ({s.label})" if report.several else ""
            out.append(
                f'<p class="warn"><b>{escape(str(t.status).upper())}</b>{who}: '
                f"{escape(t.reason or 'no reason given')}</p>"
            )
    return "".join(out)


def _experiment(report, name: object) -> str:
    tables = [s.table(name) for s in report.runs]
    first = next(t for t in tables if t is not None)
    glossary.note_quoted(first.title)
    glossary.note("claim")
    intro = (
        f"Optimization: {escape(first.optimization)}. " if first.optimization else ""
    ) + f"Claims: {escape(', '.join(first.claims) or '—')}."
    out = [
        f'<h3 id="x-{escape(str(name))}">{escape(str(name))}: {escape(first.title)}</h3>',
        f"<p>{intro}</p>",
        _status_lines(report, name),
    ]
    if report.several:
        glossary.note("run", "speedup")
        rows = side_by_side.rows(tables, [s.processes for s in report.runs])
        headers = side_by_side.headers([s.label for s in report.runs])
        cc = [
            [
                "num"
                if 1 < j < len(headers) - 1
                else ("moved" if j == len(headers) - 1 and r.moved not in ("no", "—") else "")
                for j in range(len(headers))
            ]
            for r in rows
        ]
        out.append(table(headers, [r.all_cells for r in rows], cell_classes=cc))
    else:
        s = report.runs[0]
        rows = [main_cells(first, r, s.processes) for r in first.rows]
        headers = main_headers(first)
        num = {i for i, h in enumerate(headers) if h in numeric_headers(first)}
        cc = [["num" if j in num else "" for j in range(len(headers))] for _ in rows]
        out.append(table(headers, rows, [ROW_CLASS.get(r.marker or "", "") for r in first.rows], cc))
    if (p := report.plot(name)) is not None:
        out.append(_img(p.path))
    inner = []
    for s in report.runs:
        t = s.table(name)
        if t is None:
            continue
        if report.several:
            inner.append(f"<h4>{escape(s.label)}</h4>")
        inner.append(_run_table(t, s.plots))
    what = "each run's whole table" if report.several else "the whole table"
    glossary.note("run", "why", "derived figures", "time per case")
    out.append(
        f"<details><summary>Details: {what} (spread, why, memory, notes), derived figures, time per case"
        f"</summary>{''.join(inner)}</details>"
    )
    return "\n".join(x for x in out if x)


def render(report) -> str:
    with page():
        return _render(report)


def _render(report) -> str:
    head = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>optbench report</title>",
        f"<style>{CSS}</style></head><body>",
    ]
    out = ["<h1>optbench report</h1>", '<ul class="runs">']
    for s in report.sections:
        if s.kind == "gbench":
            out.append(f"<li>Google Benchmark: <code>{escape(str(s.path))}</code></li>")
            continue
        basis = f", every CI between {s.processes} processes" if s.processes else ""
        glossary.note("run", *(("CI", "between processes") if basis else ()))
        out.append(
            f"<li>{escape(s.label)}: <code>{escape(str(s.path))}</code>: {escape(short_run_line(s.doc) + basis)}</li>"
        )
    out.append("</ul>")
    for s in report.runs:
        if warn := run_warning(s.doc):
            out.append(f'<p class="warn"><b>Warning</b> ({escape(s.label)}): {escape(warn)}</p>')
    out += [f'<p class="warn">{escape(n)}</p>' for n in report.notices]
    if report.runs:
        if report.claims_plot is not None:
            out.append(_img(report.claims_plot.path))
        out.append(_summary(report))
        out.append(_claims(report))
        out.append("<h2>Experiments</h2>")
        if any(t.has_why for s in report.runs for t in s.tables):
            glossary.note(*WHY_NOTE_TERMS)
            out.append(f"<p>{escape(WHY_NOTE)}</p>")
        names = report.experiments()
        shown_names = [n for n in names if any((t := s.table(n)) is not None and ran(t) for s in report.runs)]
        skipped = [n for n in names if n not in shown_names]
        if skipped:
            parts = []
            for n in skipped:
                reasons = list(
                    dict.fromkeys(t.reason or str(t.status) for s in report.runs if (t := s.table(n)) is not None)
                )
                parts.append(f"{n} ({'; '.join(reasons)})")
            out.append(f"<p>Not run: {escape(', '.join(parts))}.</p>")
        out += [_experiment(report, n) for n in shown_names]
    for s in report.sections:
        if s.kind == "gbench":
            headers, rows = gbench_table(s.doc)
            out.append(
                f"<h2>Google Benchmark: <code>{escape(str(s.path))}</code> "
                f"(device: {escape(gbench_device(s.doc))})</h2>"
            )
            out.append(table(headers, rows, ["bad" if r[-1] != "ok" else "" for r in rows]))
    if report.runs:
        envs = "".join(
            f"<h3>{escape(s.label)}: <code>{escape(str(s.path))}</code></h3>"
            + table(["", ""], [[k, v] for k, v in environment_lines(s.doc)])
            for s in report.runs
        )
        out.append(f"<h2>Runs</h2><details><summary>Each run's environment</summary>{envs}</details>")
    out.append(_glossary())
    out.append("</body></html>")
    return "\n".join(head + out) + "\n"
