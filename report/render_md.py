"""Markdown report (report.md); plots are PNG files referenced relative to it. Every
string from a results file goes through md_escape: inert text, code spans, fenced blocks."""
from __future__ import annotations

import os
from pathlib import Path

from .cells import (CLAIM_HEADERS, claim_cells, claim_details, derived_text, environment_lines, experiment_cells,
                    experiment_headers, gbench_table, run_warning)
from .gbench import device as gbench_device
from .md_escape import code_block, code_span
from .md_escape import inline as esc
from .why import NOTE as WHY_NOTE


def md_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(esc(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return out


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
        out.append(f"  - cases used: {esc('; '.join(d['used']) or 'none in these results')}")
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
        out += [f"- {esc(case)}: {esc(derived_text(items))}" for case, items in t["derived"]]
        out.append("")
    if t["notes"]:
        out += ["Notes:", ""]
        out += [f"- {esc(cases)}: {esc(derived_text(items))}" for cases, items in t["notes"]]
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
            out += md_table(headers, rows) + [""]
            continue
        out += [f"## Results: {code_span(s.path)}", ""]
        out += md_table(["", ""], [[k, v] for k, v in environment_lines(s.doc)]) + [""]
        warn = run_warning(s.doc)
        if warn:
            out += [f"> **Warning:** {esc(warn)}", ""]
        out += _claims(s)
        out += ["### Experiments", ""]
        if any(t.get("has_why") for t in s.tables):
            out += [WHY_NOTE, ""]
        for t in s.tables:
            out += _experiment(t, s.plots, out_dir)
    return "\n".join(out) + "\n"
