"""`render`: results files -> report.md (the answer, the claims, a table per experiment),
report_details.md (the rest), report.html (both, the details folded), results.csv and
plots in one directory.

Several results files make one report: the summary has a column per run and says what
moved between them, each experiment's table shows the runs side by side per comparison
(summary.py, side_by_side.py); each run's own tables, notes and times are in the details.

Plots: one per experiment (its speedups with CIs, every run's in one plot) unless
--plots all (each run's throughput sweeps and profiler breakdowns as well, in the
details) or none."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..claims.judge import ClaimResult, evaluate
from ..load.document import Document, device_name
from ..load.results import Input, ResultsError
from . import pages, render_csv, write_html, write_md
from .claims_chart import plot_claims
from .plots import Plot, make_plots, matplotlib_or_none
from .summary import RunClaims, Summary, common_processes, summarize
from .tables import ExperimentTable, document_tables

PLOT_MODES = ("experiment", "all", "none")
DETAILS = "report_details.md"


@dataclass
class Section:
    index: int  # the input's place among all inputs, from 1
    path: Path
    kind: str
    doc: dict
    run: int = 0  # the run's number among the optbench inputs, from 1
    tables: list = field(default_factory=list)
    claims: list[ClaimResult] = field(default_factory=list)
    document: Document | None = None
    processes: int | None = None  # K where every interval of the run is between K processes
    has_breakdowns: bool = False
    plots: list[Plot] = field(default_factory=list)  # the run's own (--plots all)

    @property
    def label(self) -> str:
        return f"run {self.run}"

    def table(self, experiment: object) -> ExperimentTable | None:
        return next((t for t in self.tables if t.name == experiment), None)


@dataclass
class Report:
    sections: list[Section]
    summary: Summary | None
    plots: list[Plot] = field(default_factory=list)  # one per experiment, every run's in it
    claims_plot: Plot | None = None  # the first screen's: every judged claim against its range (claims_chart.py)
    notices: list[str] = field(default_factory=list)
    plot_mode: str = "experiment"

    @property
    def runs(self) -> list[Section]:
        return [s for s in self.sections if s.kind == "optbench"]

    @property
    def several(self) -> bool:
        return len(self.runs) > 1

    def experiments(self) -> list[object]:
        """Every experiment name of the runs, in the order the runs first list them."""
        return list(dict.fromkeys(t.name for s in self.runs for t in s.tables))

    def plot(self, experiment: object) -> Plot | None:
        return next((p for p in self.plots if p.experiment == experiment), None)


def build(
    inputs: list[Input], plot_dir: Path | None, plot_mode: str = "experiment", notices: list[str] | None = None
) -> Report:
    sections = []
    run = 0
    for i, inp in enumerate(inputs, start=1):
        s = Section(i, inp.path, inp.kind, inp.doc)
        if inp.kind == "optbench":
            run += 1
            s.run = run
            s.document = Document(inp.doc)
            s.tables = document_tables(s.document)
            s.claims = evaluate(s.document)
            s.processes = common_processes(s.document)
            s.has_breakdowns = s.document.has_breakdowns
        sections.append(s)
    runs = [s for s in sections if s.kind == "optbench"]
    summary = (
        summarize([RunClaims(s.label, s.claims, s.has_breakdowns, device_name(s.doc), s.processes) for s in runs])
        if runs
        else None
    )
    report = Report(sections, summary, notices=list(notices or []), plot_mode=plot_mode)
    if plot_dir is not None and runs:
        report.plots, extra = make_plots([(s.label, s.document) for s in runs], plot_dir, every=plot_mode == "all")
        for s in runs:
            s.plots = extra.get(s.label, [])
        report.claims_plot = _claims_plot([(s.label, s.claims) for s in runs], plot_dir)
    return report


def _claims_plot(runs: list[tuple[str, list[ClaimResult]]], plot_dir: Path) -> Plot | None:
    plt = matplotlib_or_none()
    path = plot_dir / "claims.png"
    if plt is None or not plot_claims(plt, runs, path):
        return None
    return Plot("", "claims", "every judged claim against its claimed range", path)


def render(inputs: list[Input], out_dir: Path, plots: bool | str = True) -> dict[str, Path]:
    """Write the report files; returns {kind: path}. plots: a PLOT_MODES name (True is
    'experiment', False 'none'). Raises ResultsError when out_dir is unusable."""
    mode = plots if isinstance(plots, str) else ("experiment" if plots else "none")
    if mode not in PLOT_MODES:
        raise ResultsError(f"--plots {mode}: choose one of {', '.join(PLOT_MODES)}")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ResultsError(f"{out_dir}: cannot create the output directory ({e.strerror or e})") from None
    if not out_dir.is_dir():
        raise ResultsError(f"{out_dir}: not a directory")
    notices = []
    plot_dir = out_dir / "plots"
    if mode == "none":
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
        targets = {
            "markdown": out_dir / "report.md",
            "details": out_dir / DETAILS,
            "html": out_dir / "report.html",
            "csv": out_dir / "results.csv",
        }
        for t in targets.values():
            if t.resolve() in input_paths:
                raise ResultsError(f"{t}: is one of the inputs; choose another --out")
        report = build(inputs, plot_dir, mode, notices)
        targets["markdown"].write_text(write_md.write(pages.main_page(report), out_dir), encoding="utf-8")
        targets["details"].write_text(write_md.write(pages.details_page(report), out_dir), encoding="utf-8")
        targets["html"].write_text(write_html.write(pages.html_page(report)), encoding="utf-8")
        render_csv.write_results_csv(report.sections, targets["csv"])
        written.update(targets)
        if render_csv.write_gbench_csv(report.sections, out_dir / "benchmarks.csv"):
            written["gbench_csv"] = out_dir / "benchmarks.csv"
    except OSError as e:
        raise ResultsError(f"{out_dir}: cannot write the report ({e.strerror or e})") from None
    written["plots"] = [p.path for p in ([report.claims_plot] if report.claims_plot else []) + report.plots] + [
        p.path for s in report.runs for p in s.plots
    ]
    return written
