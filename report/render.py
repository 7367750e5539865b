"""`render`: results files -> report.md, report.html, results.csv and plots in one directory."""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import render_csv, render_html, render_md
from .claims import ClaimResult, evaluate
from .document import Document
from .gpu_specs import device_name
from .plots import Plot, make_plots, matplotlib_or_none
from .results import Input, ResultsError
from .summary import Summary, mark_reproduced, summarize
from .tables import document_tables
from .why import document_has_breakdowns


@dataclass
class Section:
    index: int
    path: Path
    kind: str
    doc: dict
    tables: list = field(default_factory=list)
    claims: list[ClaimResult] = field(default_factory=list)
    summary: Summary | None = None
    plots: list[Plot] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"input {self.index}"


def build_sections(inputs: list[Input], plot_dir: Path | None) -> list[Section]:
    sections = []
    for i, inp in enumerate(inputs, start=1):
        s = Section(i, inp.path, inp.kind, inp.doc)
        if inp.kind == "optbench":
            doc = Document(inp.doc)
            s.tables = document_tables(doc)
            s.claims = evaluate(doc)
            s.summary = summarize(s.claims, document_has_breakdowns(inp.doc))
            if plot_dir is not None:
                prefix = f"{i}_" if len(inputs) > 1 else ""
                s.plots = make_plots(doc, plot_dir, prefix)
        sections.append(s)
    # Whether a verdict reproduced: against the other inputs measured on the same device.
    runs = [s for s in sections if s.summary is not None]
    for s in runs:
        mark_reproduced(s.summary, [(o.label, o.claims) for o in runs if device_name(o.doc) == device_name(s.doc)])
    return sections


def render(inputs: list[Input], out_dir: Path, plots: bool = True) -> dict[str, Path]:
    """Write the report files; returns {kind: path}. Raises ResultsError when out_dir is unusable."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ResultsError(f"{out_dir}: cannot create the output directory ({e.strerror or e})") from None
    if not out_dir.is_dir():
        raise ResultsError(f"{out_dir}: not a directory")
    notices = []
    plot_dir = out_dir / "plots"
    if not plots:
        plot_dir = None
        notices.append("Plots were not requested (--no-plots).")
    elif matplotlib_or_none() is None:
        plot_dir = None
        msg = "plots skipped: matplotlib is not installed (apt-get install python3-matplotlib)"
        notices.append(msg)
        print(f"note: {msg}", file=sys.stderr)
    input_paths = {p.path.resolve() for p in inputs}
    written = {}
    try:
        sections = build_sections(inputs, plot_dir)
        targets = {"markdown": out_dir / "report.md", "html": out_dir / "report.html",
                   "csv": out_dir / "results.csv"}
        for t in targets.values():
            if t.resolve() in input_paths:
                raise ResultsError(f"{t}: is one of the inputs; choose another --out")
        targets["markdown"].write_text(render_md.render(sections, out_dir, notices), encoding="utf-8")
        targets["html"].write_text(render_html.render(sections, notices), encoding="utf-8")
        render_csv.write_results_csv(sections, targets["csv"])
        written.update(targets)
        if render_csv.write_gbench_csv(sections, out_dir / "benchmarks.csv"):
            written["gbench_csv"] = out_dir / "benchmarks.csv"
    except OSError as e:
        raise ResultsError(f"{out_dir}: cannot write the report ({e.strerror or e})") from None
    written["plots"] = [p.path for s in sections for p in s.plots]
    return written
