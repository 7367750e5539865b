"""Markdown report (report.md); plots are PNG files referenced relative to it. Every
string from a results file goes through md_escape: inert text, code spans, fenced blocks,
with the measuring machine's paths shortened (machine_paths.py).

Order: per results file, the summary table (summary.py) first, then (once, after the
first summary) the glossary of the terms the report uses, the run's environment, the
claims table with how each claim was tested, and one section per experiment."""
from __future__ import annotations

import os
from pathlib import Path

from . import md_escape
from .cells import (CLAIM_HEADERS, claim_cells, claim_details, environment_lines, experiment_cells, experiment_headers,
                    gbench_table, run_line, run_warning)
from .facts import FactTable, value_text
from .gbench import device as gbench_device
from .glossary import used
from .machine_paths import shown
from .summary import UNIT_LINE
from .why import NOTE as WHY_NOTE

GLOSSARY_AT = "\x00glossary\x00"  # where the glossary goes, once the whole report's terms are known


def esc(text: object) -> str:
    return md_escape.inline(shown(text))


def code_span(text: object) -> str:
    return md_escape.code_span(shown(text))


def code_block(lines: list[object]) -> list[str]:
    return md_escape.code_block([shown(line) for line in lines])


def md_table(headers: list[str], rows: list[list[str]], code_headers: tuple[int, ...] = ()) -> list[str]:
    """code_headers: columns named by the file (a benchmark's counters), shown as code."""
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


def _summary(section) -> list[str]:
    sm = section.summary
    out = ["### Summary", "", UNIT_LINE, ""]
    if sm.rows:
        out += md_table(sm.headers, [r.cells(sm.has_mechanism) for r in sm.rows])
    else:
        out.append("No claim was measured in this run.")
    out.append("")
    if sm.unmeasured:
        out += ["Not measured in this run:", "", *(f"- {esc(', '.join(ids))}: {esc(why)}" for why, ids in sm.unmeasured),
                ""]
    if not sm.has_mechanism:
        out += ["No mechanism column: this run recorded no profiler breakdowns.", ""]
    return out


def _glossary(text: str) -> list[str]:
    terms = used(text)
    if not terms:
        return []
    return ["### Glossary", "", *(f"- **{esc(t.name)}**: {esc(t.definition)}" for t in terms), ""]


def _claims(section) -> list[str]:
    out = ["### Checklist claims", ""]
    out += md_table(CLAIM_HEADERS, [claim_cells(cr) for cr in section.claims])
    out += ["", "How each claim was tested:", ""]
    for cr in section.claims:
        d = claim_details(cr)
        # id, note, quote, source and why are the project's own Markdown (claims.json, quotes
        # as their sources wrote them); what names cases comes from the results file: escaped.
        note = f" ({d['note']})" if d["note"] else ""
        out.append(f"- **{d['id']}**{note}: “{d['quote']}” — {d['source']}")
        if len(d["used"]) > 1:
            out += ["  - cases used:", *(f"    - {esc(u)}" for u in d["used"])]
        else:
            out.append(f"  - cases used: {esc(''.join(d['used']) or 'none in these results')}")
        if d["why"]:
            out.append(f"  - why: {d['why']}")
        out += [f"  - beside it: {esc(b)}" for b in d["beside"]]
        out += [f"  - note: {esc(n)}" for n in cr.notes]
    return out + [""]


def _experiment(t: dict, plots: list, out_dir: Path) -> list[str]:
    out = [f"#### {esc(t['name'])}: {esc(t['title'])}", ""]
    if t["optimization"]:
        out.append(f"Optimization: {esc(t['optimization'])}. Claims: {esc(', '.join(t['claims']) or '—')}.")
    if t["status"] != "ok":
        out.append(f"**{esc(str(t['status']).upper())}**: {esc(t['reason'] or 'no reason given')}")
    if t.get("output_tail"):
        out += ["", "The last lines its process printed:", "", *code_block(t["output_tail"])]
    out.append("")
    out += md_table(experiment_headers(t), [experiment_cells(t, r) for r in t["rows"]])
    out.append("")
    if t["derived"]:
        out += ["Derived figures:", ""]
        for ft in t["derived"]:
            out += _fact_table(ft)
    if t["notes"]:
        out += ["Notes:", ""]
        for cases, items in t["notes"]:
            out.append(f"- {', '.join(code_span(c) for c in cases)}:")
            out += [f"  - {code_span(k)}: {esc(value_text(v))}" for k, v in items]
        out.append("")
    if t.get("time"):
        out += ["Where each case's time went:", ""]
        out += [f"- {esc(case)}: {esc(text)}" for case, text in t["time"]]
        out.append("")
    for p in plots:
        if p.experiment == t["name"]:
            rel = Path(os.path.relpath(p.path, out_dir)).as_posix()
            # A bracket in the alt text would end it early; rel is plots/ and a sanitised name (plots.py).
            alt = esc(p.title).replace("[", "\\[").replace("]", "\\]")
            out += [f"![{alt}]({rel})", ""]
    return out


def render(sections: list, out_dir: Path, notices: list[str]) -> str:
    out = ["# optbench report", ""]
    out += [f"- input {s.index}: {code_span(s.path)} ({'Google Benchmark' if s.kind == 'gbench' else 'optbench results'})"
            for s in sections]
    out.append("")
    out += [f"> {esc(n)}" for n in notices]
    if notices:
        out.append("")
    for s in sections:
        if s.kind == "gbench":
            headers, rows = gbench_table(s.doc)
            out += [f"## Google Benchmark: {code_span(s.path)} (device: {esc(gbench_device(s.doc))})", ""]
            out += md_table(headers, rows, tuple(range(4, len(headers) - 1))) + [""]
            continue
        out += [f"## Results: {code_span(s.path)}", "", esc(run_line(s.doc)), ""]
        warn = run_warning(s.doc)
        if warn:
            out += [f"> **Warning:** {esc(warn)}", ""]
        out += _summary(s)
        if GLOSSARY_AT not in out:
            out.append(GLOSSARY_AT)
        out += ["### Run", ""]
        out += md_table(["", ""], [[k, v] for k, v in environment_lines(s.doc)]) + [""]
        out += _claims(s)
        out += ["### Experiments", ""]
        if any(t.get("has_why") for t in s.tables):
            out += [WHY_NOTE, ""]
        for t in s.tables:
            out += _experiment(t, s.plots, out_dir)
    if GLOSSARY_AT in out:
        at = out.index(GLOSSARY_AT)
        out[at:at + 1] = _glossary("\n".join(out[:at] + out[at + 1:]))
    return "\n".join(out) + "\n"
