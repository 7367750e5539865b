"""Self-contained HTML report (report.html): plots embedded as base64 PNGs. The same
order as the Markdown (render_md.py): per results file the summary first, the glossary
once after the first summary, then the run, the claims and the experiments. Every
string is escaped with the measuring machine's paths shortened (machine_paths.py)."""
from __future__ import annotations

import base64
import html
import re

from .cells import (CLAIM_HEADERS, claim_cells, claim_details, environment_lines, experiment_cells,
                    experiment_headers, gbench_table, run_line, run_warning)
from .facts import FactTable, value_text
from .gbench import device as gbench_device
from .glossary import used
from .machine_paths import shown
from .summary import UNIT_LINE
from .verdicts import CONFIRMED, EXCEEDED, INCONCLUSIVE, NO_EFFECT_VERDICT, NOT_MEASURABLE, SLOWER, SMALLER
from .why import NOTE as WHY_NOTE

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
table.summary{font-size:14px} table.summary td:nth-child(2){max-width:20em} table.summary td:nth-child(5){min-width:12em}
.unstable{background:#fde8e8} p.run{color:#555;margin:0.2em 0}
table.claims{table-layout:fixed;width:100%} table.claims td{overflow-wrap:anywhere}
table.claims th:nth-child(1){width:10%} table.claims th:nth-child(2){width:12%} table.claims th:nth-child(3){width:7%}
table.claims th:nth-child(4){width:16%} table.claims th:nth-child(5){width:13%} table.claims th:nth-child(6){width:8%}
table.claims th:nth-child(7){width:13%} table.claims th:nth-child(8){width:21%}
dl.glossary{columns:2 30em;column-gap:2em;font-size:13px;margin:0.5em 0 1.5em}
dl.glossary dt{font-weight:bold;break-after:avoid} dl.glossary dd{margin:0 0 0.4em 1em;break-inside:avoid}
"""
GLOSSARY_AT = "\x00glossary\x00"  # where the glossary goes, once the whole report's terms are known


def escape(s: object, quote: bool = True) -> str:
    return html.escape(shown(s), quote)
# Red only for a decided outcome against the claim (slower, no effect); grey-violet
# for "cannot tell", which is neither a pass nor a failure.
VERDICT_CLASS = {CONFIRMED: "v-confirmed", EXCEEDED: "v-exceeded", SMALLER: "v-smaller",
                 SLOWER: "v-notrep", NO_EFFECT_VERDICT: "v-notrep", NOT_MEASURABLE: "v-na", INCONCLUSIVE: "v-few"}
ROW_CLASS = {"SKIPPED": "skip", "NOT RUN": "skip", "FAILED": "bad", "OOM": "bad", "ERROR": "bad",
             "INTERRUPTED": "bad", "INCOMPLETE": "bad"}


def table(headers: list[str], rows: list[list[str]], row_classes: list[str] | None = None,
          cell_classes: list[list[str]] | None = None) -> str:
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
    out = [f"<p>{_code(t.title)}:</p>" if t.title else "", "<table><thead><tr><th></th>",
           *(f"<th>{_code(c)}</th>" for c in t.columns), "</tr></thead><tbody>"]
    for name, cells in t.rows:
        out.append(f"<tr><td>{_code(name)}</td>" + "".join(f"{td}{escape(c)}</td>" for c in cells) + "</tr>")
    return "".join(out) + "</tbody></table>"


def _summary(section) -> str:
    sm = section.summary
    out = ["<h3>Summary</h3>", f"<p>{escape(UNIT_LINE)}</p>"]
    if sm.rows:
        rows = [r.cells(sm.has_mechanism) for r in sm.rows]
        vcol, rcol = sm.headers.index("verdict"), sm.headers.index("reproduced")
        cc = [["" for _ in r] for r in rows]
        for cells, row in zip(cc, sm.rows):
            cells[vcol] = VERDICT_CLASS.get(row.verdict_word, "")
            # The runs disagree on the outcome or their intervals are apart.
            cells[rcol] = "unstable" if row.reproduced.startswith("no") else ""
        out.append(table(sm.headers, rows, cell_classes=cc).replace("<table>", '<table class="summary">', 1))
    else:
        out.append("<p>No claim was measured in this run.</p>")
    if sm.unmeasured:
        out.append("<p>Not measured in this run:</p><ul>"
                   + "".join(f"<li>{escape(', '.join(ids))}: {escape(why)}</li>" for why, ids in sm.unmeasured)
                   + "</ul>")
    if not sm.has_mechanism:
        out.append("<p>No mechanism column: this run recorded no profiler breakdowns.</p>")
    return "\n".join(out)


def _text(markup: str) -> str:
    """What a reader sees of the markup: tags dropped, entities read."""
    return html.unescape(re.sub(r"<[^>]*>", " ", markup))


def _glossary(markup: str) -> str:
    terms = used(_text(markup))
    if not terms:
        return ""
    return ('<h3 id="glossary">Glossary</h3><dl class="glossary">'
            + "".join(f'<dt id="{t.slug}">{escape(t.name)}</dt><dd>{escape(t.definition)}</dd>' for t in terms)
            + "</dl>")


def _img(path) -> str:
    try:
        data = base64.b64encode(path.read_bytes()).decode("ascii")
    except OSError:
        return ""
    return f'<img alt="{escape(path.name)}" src="data:image/png;base64,{data}">'


def _claims(section) -> str:
    rows = [claim_cells(cr) for cr in section.claims]
    verdict_col = CLAIM_HEADERS.index("verdict")
    cc = [["" if j != verdict_col else VERDICT_CLASS.get(r[verdict_col], "") for j in range(len(r))] for r in rows]
    # Fixed column widths: the eight columns fit the page, long case lists break anywhere.
    out = ["<h3>Checklist claims</h3>", table(CLAIM_HEADERS, rows, cell_classes=cc).replace(
        "<table>", '<table class="claims">', 1),
           "<details><summary>How each claim was tested</summary><ul>"]
    for cr in section.claims:
        d = claim_details(cr)
        note = f" ({escape(d['note'])})" if d["note"] else ""
        if len(d["used"]) > 1:
            items = ["<li>cases used:<ul>" + "".join(f"<li>{escape(u)}</li>" for u in d["used"]) + "</ul></li>"]
        else:
            items = [f"<li>cases used: {escape(''.join(d['used']) or 'none in these results')}</li>"]
        if d["why"]:
            items.append(f"<li>why: {escape(d['why'])}</li>")
        items += [f"<li>beside it: {escape(b)}</li>" for b in d["beside"]]
        items += [f"<li>note: {escape(n)}</li>" for n in cr.notes]
        out.append(f"<li><b>{escape(d['id'])}</b>{note}: <blockquote>{escape(d['quote'])}</blockquote>"
                   f"{escape(d['source'])}<ul>{''.join(items)}</ul></li>")
    out.append("</ul></details>")
    return "\n".join(out)


def _experiment(t: dict, plots: list) -> str:
    out = [f"<h4>{escape(str(t['name']))}: {escape(t['title'])}</h4>"]
    if t["optimization"]:
        out.append(f"<p>Optimization: {escape(t['optimization'])}. Claims: {escape(', '.join(t['claims']) or '—')}.</p>")
    if t["status"] != "ok":
        out.append(f'<p class="warn"><b>{escape(str(t["status"]).upper())}</b>: {escape(t["reason"] or "no reason given")}</p>')
    if t.get("output_tail"):
        out.append("<p>The last lines its process printed:</p><pre>" + escape("\n".join(t["output_tail"])) + "</pre>")
    headers = experiment_headers(t)
    rows = [experiment_cells(t, r) for r in t["rows"]]
    num_cols = {i for i, h in enumerate(headers) if h in ("median time per step", "IQR", "n") or h.startswith("throughput")}
    cc = [["num" if j in num_cols else "" for j in range(len(headers))] for _ in rows]
    out.append(table(headers, rows, [ROW_CLASS.get(r.get("marker") or "", "") for r in t["rows"]], cc))
    if t["derived"]:
        out.append("<p>Derived figures:</p>" + "".join(_fact_table(ft) for ft in t["derived"]))
    if t["notes"]:
        out.append("<p>Notes:</p><ul>" + "".join(
            f"<li>{', '.join(_code(c) for c in cases)}:<ul>"
            + "".join(f"<li>{_code(k)}: {escape(value_text(v))}</li>" for k, v in items) + "</ul></li>"
            for cases, items in t["notes"]) + "</ul>")
    if t.get("time"):
        out.append("<p>Where each case's time went:</p><ul>" + "".join(
            f"<li>{escape(case)}: {escape(text)}</li>" for case, text in t["time"]) + "</ul>")
    out += [_img(p.path) for p in plots if p.experiment == t["name"]]
    return "\n".join(out)


def render(sections: list, notices: list[str]) -> str:
    head = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>optbench report</title>",
            f"<style>{CSS}</style></head><body>"]
    out = ["<h1>optbench report</h1><ul>"]
    out += [f"<li>input {s.index}: <code>{escape(str(s.path))}</code></li>" for s in sections]
    out.append("</ul>")
    out += [f'<p class="warn">{escape(n)}</p>' for n in notices]
    for s in sections:
        if s.kind == "gbench":
            headers, rows = gbench_table(s.doc)
            out.append(f"<h2>Google Benchmark: <code>{escape(str(s.path))}</code> "
                       f"(device: {escape(gbench_device(s.doc))})</h2>")
            out.append(table(headers, rows, ["bad" if r[-1] != "ok" else "" for r in rows]))
            continue
        out.append(f"<h2>Results: <code>{escape(str(s.path))}</code></h2>")
        out.append(f'<p class="run">{escape(run_line(s.doc))}</p>')
        warn = run_warning(s.doc)
        if warn:
            out.append(f'<p class="warn"><b>Warning:</b> {escape(warn)}</p>')
        out.append(_summary(s))
        if GLOSSARY_AT not in out:
            out.append(GLOSSARY_AT)
        out.append("<h3>Run</h3>")
        out.append(table(["", ""], [[k, v] for k, v in environment_lines(s.doc)]))
        out.append(_claims(s))
        out.append("<h3>Experiments</h3>")
        if any(t.get("has_why") for t in s.tables):
            out.append(f"<p>{escape(WHY_NOTE)}</p>")
        out += [_experiment(t, s.plots) for t in s.tables]
    if GLOSSARY_AT in out:
        at = out.index(GLOSSARY_AT)
        out[at] = _glossary("\n".join(out[:at] + out[at + 1:]))
    out.append("</body></html>")
    return "\n".join(head + out) + "\n"
