"""`gpus DIR|FILE...`: the machines side by side. The runs are read as `report history`
reads them (history/runs.py: a bad file is named and skipped) and grouped by its
fingerprint (machine, LibTorch, profile, the settings that change what is measured);
each machine is a column of the runs of its newest commit (both runs where there is a
pair), CPUs first. Runs of uncommitted changes stand in only for a machine with no
committed run. Three tables: every claim's verdict and estimate per machine, every
comparison's speedup, and every variant's throughput with its share of the GPU's
datasheet peak (gpu_specs.json); with --plot, the claims in one chart (claims_chart.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..claims.judge import ClaimResult, evaluate
from ..history.fingerprint import Fingerprint
from ..history.order import ordering, repo_of
from ..history.runs import HistoryRun, Skipped, load_runs
from ..history.text import short
from ..load.document import Case, Comparison, Document, Variant
from ..load.numbers import is_num
from ..render.claim_words import claimed
from ..render.fmt import DASH, fmt_items, fmt_no_ci, fmt_pct, fmt_rate, fmt_speedup, rate_scale
from ..render.md_escape import inline
from ..render.textable import table
from ..statistics.measurement import PROCESS
from .gpu_specs import match_gpu, peak_for

PAIR = " / "  # between a pair's cells: each run judged and shown alone, as `report render A B` does


@dataclass
class Column:
    fingerprint: Fingerprint
    runs: list[HistoryRun]  # its newest commit's, in order

    @property
    def commit(self) -> str:
        return self.runs[-1].commit

    @property
    def spec(self) -> dict | None:
        return match_gpu(self.fingerprint.model) if self.fingerprint.device == "cuda" else None

    @property
    def name(self) -> str:
        """'H100 SXM5 (1 GPU)', 'AMD EPYC (2 cores)', 'Intel(R) Xeon(R) Processor (2 cores, AMX)'."""
        fp = self.fingerprint
        if fp.device == "cuda":
            model = self.spec["name"] if self.spec else fp.model
            return f"{model} ({fp.count} GPU{'' if fp.count == '1' else 's'})"
        return f"{fp.model} ({fp.cores})"

    @property
    def header(self) -> str:
        fp, n = self.fingerprint, len(self.runs)
        runs = f", {n} runs" if n > 1 else ""
        return f"{self.name}, torch {fp.torch}, {fp.profile}{fp.settings}, {short(self.commit)}{runs}"


def columns(runs: list[HistoryRun], repo: Path | None) -> list[Column]:
    """A column per fingerprint: its newest commit's runs (by history's order), CPUs
    first, then pairs before single runs, then by name."""
    order = ordering(runs, repo)
    by_fp: dict[Fingerprint, list[HistoryRun]] = {}
    for r in sorted(runs, key=order.key):
        by_fp.setdefault(r.fingerprint, []).append(r)
    cols = []
    for fp, rs in by_fp.items():
        committed = [r for r in rs if not r.dirty] or rs
        newest = committed[-1].commit
        cols.append(Column(fp, [r for r in committed if r.commit == newest]))
    return sorted(cols, key=lambda c: (c.fingerprint.device != "cpu", len(c.runs) < 2, c.header))


def headers(cols: list[Column]) -> list[str]:
    labels = [c.header for c in cols]
    counts = {lab: labels.count(lab) for lab in labels}  # names alike where fingerprints differ past the header
    return [f"{lab} #{i + 1}" if counts[lab] > 1 else lab for i, lab in enumerate(labels)]


def _throughput_cell(case: Case, var: Variant, kind: str | None, spec: dict | None) -> str:
    if not kind or not var.ok:
        return var.status.upper() if not var.ok else DASH
    val = var.rate(kind)
    if not is_num(val):
        return DASH
    if kind == "items":
        return fmt_items(val, var.item_name)
    div, unit = rate_scale(kind, [val])
    text = f"{fmt_rate(val, div)} {unit}"
    peak = peak_for(case, var, kind, spec)
    return f"{text} ({fmt_pct(val / peak[0])} of {peak[1]})" if peak else text


def _speedup_cell(cm: Comparison) -> str:
    """The comparison's one estimate and CI (cm.estimate), with its basis where it is
    between processes; its rounds and 'no CI' below the rounds floor."""
    est = cm.estimate
    if est is None:
        return DASH
    if est.below_floor and est.unit != PROCESS:
        return fmt_no_ci(est.speedup, est.rounds)
    if not est.has_ci:
        return f"{fmt_speedup(est.speedup)} (no CI)"
    text = fmt_speedup(est.speedup, est.ci_low, est.ci_high)
    return f"{text} ({est.basis})" if est.unit == PROCESS else text


def _run_cells(d: dict) -> tuple[dict[tuple, str], dict[tuple, str]]:
    """One run's speedup and throughput cells by (experiment, case, what)."""
    doc = Document(d)
    spec = match_gpu(doc.gpu_name) if doc.device == "cuda" else None
    speed: dict[tuple, str] = {}
    thr: dict[tuple, str] = {}
    for e in doc.experiments:
        kind = e.throughput_kind
        if not e.recorded_cases:
            speed[(e.name, DASH, DASH)] = str(e.status or "").upper()
            continue
        for c in e.cases:
            if not c.ran:
                speed[(e.name, c.name, DASH)] = str(c.recorded_status or "").upper()
                continue
            for cm in c.comparisons:
                speed[(e.name, c.name, f"{cm.variant_name} vs {cm.baseline_name}")] = _speedup_cell(cm)
            for v in c.variants:
                thr[(e.name, c.name, v.name)] = _throughput_cell(c, v, kind, spec)
    return speed, thr


def _rows(per_col: list[list[dict[tuple, str]]]) -> list[list[str]]:
    """Rows of (key..., a cell per column), the cells of a column's runs that have the
    key joined (runs of a filtered session each hold some experiments); keys in first-seen order."""
    keys = list(dict.fromkeys(k for col in per_col for run in col for k in run))
    return [[*k, *(PAIR.join(run[k] for run in col if k in run) or DASH for col in per_col)] for k in keys]


def build(docs: list[dict | list[dict]], labels: list[str] | None = None) -> tuple[list[str], list, list]:
    """Headers, speedup rows and throughput rows; a column per item of docs (a run, or a
    machine's runs as a list)."""
    cols = [d if isinstance(d, list) else [d] for d in docs]
    cells = [[_run_cells(d) for d in col] for col in cols]
    labels = labels or [str(i + 1) for i in range(len(cols))]
    heads = ["experiment", "case", "what", *labels]
    return heads, _rows([[s for s, _ in col] for col in cells]), _rows([[t for _, t in col] for col in cells])


def claim_cell(r: ClaimResult | None) -> str:
    """'confirmed 1.23× [1.10, 1.40]': a claim's verdict and figure in one run."""
    if r is None:
        return DASH
    verdict = r.verdict.verdict if r.verdict else "no verdict"
    m = r.m
    if m is None or not is_num(m.speedup):
        return verdict
    ci = (m.ci_low, m.ci_high) if is_num(m.ci_low) and is_num(m.ci_high) else (None, None)
    return f"{verdict} {fmt_speedup(m.speedup, *ci)}"


def claim_rows(judged: list[list[list[ClaimResult]]]) -> list[list[str]]:
    """A row per claim: its id, the claimed range, a cell per column (a pair's runs each)."""
    first: dict[str, ClaimResult] = {}
    for col in judged:
        for results in col:
            for r in results:
                first.setdefault(str(r.claim.get("id")), r)
    rows = []
    for cid, r0 in first.items():
        cells = []
        for col in judged:
            by_id = [{str(r.claim.get("id")): r for r in results} for results in col]
            cells.append(PAIR.join(claim_cell(b.get(cid)) for b in by_id))
        rows.append([cid, claimed(r0), *cells])
    return rows


def describe(cols: list[Column], labels: list[str]) -> list[str]:
    lines = []
    for lab, c in zip(labels, cols):
        files = ", ".join(str(r.path) for r in c.runs)
        what = f"commit {c.commit}, {len(c.runs)} run{'' if len(c.runs) == 1 else 's'}: {files}"
        spec = c.spec
        if spec:
            peaks = (
                f"FP32 {spec['fp32_tflops']}, TF32 {spec['tf32_tflops']}, FP16 {spec['fp16_tflops']} TFLOP/s; "
                f"memory {spec['memory_gb_per_s']} GB/s; {spec['host_link']} {spec['host_link_gb_per_s']} GB/s"
            )
            lines.append(f"{lab}: {what} (datasheet: {peaks}; {spec['source']})")
        elif c.fingerprint.device == "cuda":
            lines.append(f"{lab}: {what} (not in gpu_specs.json, so no % of peak)")
        else:
            isa = f"kernels {c.fingerprint.isa}; " if c.fingerprint.isa != "-" else ""
            lines.append(f"{lab}: {what} (CPU: {isa}no peaks)")
    return lines


@dataclass
class View:
    columns: list[Column]
    labels: list[str]
    judged: list[list[list[ClaimResult]]]  # per column, per run, its claims
    skipped: list[Skipped]


def compute(paths: list[str | Path]) -> View:
    runs, skipped = load_runs(paths, keep_dirty=True)
    cols = columns(runs, repo_of(paths))
    judged = [[evaluate(r.doc) for r in c.runs] for c in cols]
    return View(cols, headers(cols), judged, skipped)


def text(v: View, markdown: bool = False) -> str:
    heads, speed, thr = build([[r.doc for r in c.runs] for c in v.columns], v.labels)

    def esc(line: str) -> str:
        return inline(line) if markdown else line  # names from the files

    out = ["Columns (each machine's newest commit; a pair's cells are its two runs, each judged alone):"]
    out += [f"  {esc(line)}" for line in describe(v.columns, v.labels)]
    if v.skipped:
        out += ["", "Not read:", *(f"  {esc(f'{s.path}: {s.reason}')}" for s in v.skipped)]
    out += [
        "",
        "Claims (verdict, figure [CI]; the claimed range beside):",
        table(["claim", "claimed", *v.labels], claim_rows(v.judged), markdown),
        "",
        "Speedup (median baseline / median variant, [CI]):",
        table(heads, speed, markdown),
        "",
        "Throughput (share of the datasheet peak, dense):",
        table(heads, thr, markdown),
    ]
    return "\n".join(out)


def plot(v: View, path: Path) -> bool:
    """The claims chart (render/claims_chart.py) with a run per column, a pair's runs
    each; False where nothing was drawn or matplotlib is not installed."""
    from ..render.claims_chart import judged_ids, plot_claims
    from ..render.plots import matplotlib_or_none

    plt = matplotlib_or_none()
    if plt is None:
        return False
    runs = []
    for lab, col in zip(v.labels, v.judged):
        name = lab.rsplit(", ", 1)[0] if len(col) > 1 else lab
        runs += [(f"{name} run {i + 1}" if len(col) > 1 else name, results) for i, results in enumerate(col)]
    runs = [r for r in runs if judged_ids([r])]  # runs that draw nothing take no colour of the few
    path.parent.mkdir(parents=True, exist_ok=True)
    return plot_claims(plt, runs, path)
