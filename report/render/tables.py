"""Results document -> per-experiment table rows (numbers, not text), shared by the
Markdown, HTML and CSV writers. Every case x variant gives a row; skipped, failed
and interrupted experiments/cases and oom/error variants give marked rows. What the
rows hold is read through document.py; this module only lays it out."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from ..claims.judged import judged_text
from ..claims.judged import status as judged_status
from ..explanation.why_row import why_of
from ..gpu.gpu_specs import match_gpu, peak_for
from ..load.document import Case, Comparison, Document, Experiment, Variant
from ..load.numbers import is_num
from ..statistics.measurement import PROCESS
from .facts import derived_tables
from .fmt import rate_scale, sig
from .machine_paths import is_machine_path

BAD_CASE = {
    "skipped": "SKIPPED",
    "failed": "FAILED",
    "interrupted": "INTERRUPTED",
    "running": "INCOMPLETE",
    "not_run": "NOT RUN",
    "crashed": "CRASHED",
    "hung": "HUNG",
}  # hung: killed at its deadline
BAD_VARIANT = {"oom": "OOM", "error": "ERROR", "not_run": "NOT RUN"}


@dataclass
class Row:
    """One row of an experiment's table: a case x variant (or a case or an experiment
    with nothing to show, marked), numbers not text; the Markdown, HTML and CSV writers
    and the side-by-side tables read its fields (cells.py makes them text). The fields
    are results.csv's columns, in its order, but those marked csv=False (csv_columns)."""

    experiment: Any = None
    experiment_status: Any = None
    case: Any = None
    case_status: Any = None
    variant: Any = None
    role: Any = None
    variant_status: Any = None
    marker: Any = None
    reason: Any = None
    primary_metric: Any = None
    median_s: Any = None
    q1_s: Any = None
    q3_s: Any = None
    iqr_s: Any = None
    min_s: Any = None
    n: Any = None
    bytes_per_s: Any = None
    flops_per_s: Any = None
    items_per_s: Any = None
    item_name: Any = None
    speedup: Any = None
    ci_low: Any = None
    ci_high: Any = None
    confidence: Any = None
    ci_unit: Any = None
    ci_n: Any = None
    ci_df: Any = None
    process_speedups: Any = None
    rounds: Any = None
    below_floor: Any = None
    why: Any = None
    verification: Any = None
    verification_judged: Any = None
    verification_message: Any = None
    pct_peak: Any = None
    peak_label: Any = None
    peak_allocated_bytes: Any = None
    peak_reserved_bytes: Any = None
    params: Any = None
    nvidia_smi: Any = None
    minor_faults_per_step: Any = None
    # For the text tables only (results.csv has each figure raw, above).
    throughput: Any = field(default=None, metadata={"csv": False})
    process_faults: Any = field(default=None, metadata={"csv": False})
    basis_text: Any = field(default=None, metadata={"csv": False})
    why_of: Any = field(default=None, metadata={"csv": False})

    @staticmethod
    def csv_columns() -> list[str]:
        return [f.name for f in fields(Row) if f.metadata.get("csv", True)]

    def update(self, **kw) -> None:
        for k, v in kw.items():
            if not hasattr(self, k):
                raise AttributeError(f"Row has no field {k!r}")
            setattr(self, k, v)


def experiment_rows(experiment: Experiment, spec: dict | None, why: bool = False) -> list[Row]:
    """why: give each comparison's row the profiler breakdown's why text (why.py)."""
    kind = experiment.throughput_kind
    e_status = experiment.status or "ok"
    common = {"experiment": experiment.name, "experiment_status": e_status}
    if not experiment.recorded_cases:
        marker = BAD_CASE.get(e_status, "NO CASES")
        return [Row(**common, marker=marker, reason=experiment.reason or "no cases recorded")]
    rows = []
    for c in experiment.cases:
        ccommon = dict(common, case=c.name, case_status=c.status, params=c.params, primary_metric=c.primary_metric)
        if not c.recorded_variants:
            rows.append(
                Row(**ccommon, marker=BAD_CASE.get(c.status, "NO VARIANTS"), reason=c.reason or "no variants recorded")
            )
            continue
        for v in c.variants:
            rows.append(_variant_row(c, v, ccommon, kind, spec, why, experiment.mechanism_counters))
    return rows


def _variant_row(
    c: Case, var: Variant, ccommon: dict, kind: str | None, spec: dict | None, why: bool, counters: object = ()
) -> Row:
    stats = var.stats
    v_status = var.status
    marker = BAD_VARIANT.get(v_status) or BAD_CASE.get(c.status)
    reason = var.error or (c.reason if c.status in BAD_CASE else None)
    row = Row(
        **ccommon,
        variant=var.name,
        role=var.role,
        variant_status=v_status,
        marker=marker,
        reason=reason,
        median_s=stats.median,
        q1_s=stats.q1,
        q3_s=stats.q3,
        iqr_s=stats.iqr,
        min_s=stats.min,
        n=stats.n,
        bytes_per_s=var.rate("bytes"),
        flops_per_s=var.rate("flops"),
        items_per_s=var.rate("items"),
        item_name=var.item_name,
        peak_allocated_bytes=var.peak_allocated_bytes,
        peak_reserved_bytes=var.peak_reserved_bytes,
        nvidia_smi=var.nvidia_smi,
        minor_faults_per_step=var.minor_faults_per_step,
    )
    if c.repeats is not None:  # the same variant in the run's further processes
        row.process_faults = [row.minor_faults_per_step] + c.repeat_faults(var.name)
    if kind:
        row.throughput = var.rate(kind)
        peak = peak_for(c, var, kind, spec) if kind != "items" else None
        if peak and is_num(row.throughput):
            row.pct_peak = row.throughput / peak[0]
            row.peak_label = peak[1]
    if var.role == "baseline":
        row.speedup = 1.0 if v_status == "ok" and stats.recorded else None
        row.verification = "baseline"
    cm = c.comparison(var.name)
    if cm:
        row.update(**_estimate_fields(cm))
        if why:  # a mechanism only where the profile agrees with the timing (why_row.py)
            row.why_of = why_of(cm.first_process, cm.baseline or Variant({}, c), var, counters, cm.estimate)
            row.why = row.why_of.text()
        if row.speedup is not None:  # rounds behind the first process's ratio; no ratio, nothing to count
            row.update(rounds=cm.rounds, below_floor=cm.below_floor)
        ver = cm.verification
        if v_status == "ok":
            row.verification = judged_status(ver)
            row.verification_judged = judged_text(ver) or None
            # A passed check can still say what it could not judge (an ill-conditioned trace).
            row.verification_message = ver.message or ver.note
    return row


def _estimate_fields(cm: Comparison) -> dict:
    """The comparison's one estimate and interval (cm.estimate: what every table, plot
    and export shows), its basis, and each process's own ratio beside it (points, no
    interval: the estimate's interval is the only one shown)."""
    est = cm.estimate
    if est is None:
        return dict.fromkeys(("speedup", "ci_low", "ci_high"))
    out = dict(
        speedup=est.speedup,
        ci_low=est.ci_low,
        ci_high=est.ci_high,
        confidence=est.confidence,
        ci_unit=est.unit,
        ci_n=est.n,
        ci_df=est.df,
    )
    sp = cm.spread
    if sp is not None:
        out["process_speedups"] = [e.speedup for e in sp.estimates]
    out["basis_text"] = basis_text(est.unit, est.n, out.get("process_speedups"))
    return out


def basis_text(unit: str, n: int | None, per_process: list | None) -> str:
    """'3 processes: 1.48–1.63× each' (the unit of the interval and what each gave), or
    'one process' (its rounds are the unit); a process without a ratio is counted."""
    if unit != PROCESS:
        return "one process"
    xs = [x for x in per_process or [] if is_num(x)]
    text = f"{n} processes"
    if len(xs) >= 2:
        text += f": {sig(min(xs))}–{sig(max(xs))}× each"
    if per_process and len(xs) < len(per_process):
        text += f"; {len(per_process) - len(xs)} of {len(per_process)} without a ratio"
    return text


@dataclass
class ExperimentTable:
    """One experiment's table as the writers lay it out: what it is, which optional
    columns it has, its rows and what is printed below them."""

    name: Any
    title: str
    optimization: str
    description: str
    status: Any
    reason: Any
    output_tail: list
    claims: list
    kind: Any  # throughput_kind: "items", "bytes", "flops" or none
    divisor: float  # a throughput in `unit` is the figure over this
    unit: str
    has_items: bool  # an items/s column beside a byte or FLOP throughput
    has_peak: bool
    has_why: bool
    # Say each speedup's basis where the interval is between processes anywhere in the
    # table: a reader comparing two rows must know they rest on different units.
    has_processes: bool
    rows: list[Row]
    derived: list
    notes: list
    time: list[tuple[str, str]]


def document_tables(doc: dict | Document) -> list[ExperimentTable]:
    """Per experiment: its table. The why column is the whole document's or none:
    files from before the profiler breakdown have no variant with one."""
    d = doc if isinstance(doc, Document) else Document(doc)
    spec = match_gpu(d.gpu_name) if d.device == "cuda" else None
    has_why = d.has_breakdowns
    out = []
    for ex in d.experiments:
        rows = experiment_rows(ex, spec, has_why)
        kind = ex.throughput_kind
        div, unit = rate_scale(kind, [r.throughput for r in rows]) if kind in ("bytes", "flops") else (1.0, "")
        out.append(
            ExperimentTable(
                name=ex.name,
                title=ex.title,
                optimization=ex.optimization,
                description=ex.description,
                status=ex.status,
                reason=ex.reason,
                output_tail=ex.output_tail,
                claims=ex.claims,
                kind=kind,
                divisor=div,
                unit=unit,
                has_items=kind != "items" and any(is_num(r.items_per_s) for r in rows),
                has_peak=any(is_num(r.pct_peak) for r in rows),
                has_why=has_why,
                has_processes=any(r.ci_unit == PROCESS for r in rows),
                rows=rows,
                derived=derived_tables([(str(c.name), flat) for c in ex.cases if (flat := flatten_derived(c.derived))]),
                notes=case_notes(ex),
                time=case_times(ex),
            )
        )
    return out


TIME_PARTS = (
    ("sampling", "sampling"),
    ("verification", "verification"),
    ("warmup", "warm-up"),
    ("build", "build"),
    ("profiling", "profiling"),
    ("cold_first_steps", "cold first steps"),
    ("other", "other"),
)


def case_times(experiment: Experiment) -> list[tuple[str, str]]:
    """Where each case's wall time went (time_s; files from before it have none):
    'name', '9.0 s: sampling 34%, verification 50%, ...', sampling first, then the
    rest by share; parts under 1% left out."""
    out = []
    for c in experiment.cases:
        t, wall = c.time_s, c.wall_s
        if not isinstance(t, dict) or not is_num(wall) or wall <= 0:
            continue
        shares = [(label, t[k] / wall) for k, label in TIME_PARTS if is_num(t.get(k))]
        first = [s for s in shares if s[0] == "sampling"]
        rest = sorted((s for s in shares if s[0] != "sampling" and s[1] >= 0.01), key=lambda s: -s[1])
        out.append(
            (
                str(c.name),
                f"{sig(wall)} s: " + ", ".join(f"{label} {share:.0%}" for label, share in first + rest),
            )
        )
    return out


def flatten_derived(derived: object, prefix: str = "") -> list[tuple[str, object]]:
    """A case's derived figures (break-even steps, share of a copy hidden, scaling
    efficiency...) as (dotted key, scalar) pairs, in the order the experiment wrote them."""
    if not isinstance(derived, dict):
        return []
    out: list[tuple[str, object]] = []
    for k, v in derived.items():
        if v is None:  # not measured here (memory on a CPU): nothing to show
            continue
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out += flatten_derived(v, key + ".")
        elif isinstance(v, list):
            if all(not isinstance(x, (dict, list)) for x in v):
                out.append((key, v))
        else:
            out.append((key, v))
    return out


# Notes the report itself reads (which datasheet peak applies), not facts for a reader.
MACHINE_NOTES = ("peak_kind",)


def _shown_note(key: str, value: object) -> bool:
    """A note for a reader: not one the report reads, nor a path of the measuring machine
    (a cache entry, a temporary package, a venv's python; the results file keeps them)."""
    return key not in MACHINE_NOTES and not is_machine_path(value)


def measurement_facts(case: Case) -> list[tuple[str, object]]:
    """What the harness recorded about how the case was measured: variants timed in
    fresh processes (cold first runs), and the share of samples each variant spent
    throttled, by NVML's clock-event reason."""
    out: list[tuple[str, object]] = []
    if any(v.process == "fresh" for v in case.variants):
        out.append(("process", "each variant in a fresh process: first runs are cold, caches its own"))
    throttled = [
        f"{v.name} {kind} {share:.0%}"
        for v in case.variants
        for kind in ("thermal", "power", "other")
        if (share := v.throttled_share(kind)) is not None and share > 0
    ]
    if throttled:
        out.append(("throttled samples", "; ".join(throttled)))
    after = [v.name for v in case.variants if v.throttle_read_after_work]
    if after:
        out.append(
            (
                "throttle read",
                f"after each sample's work for {', '.join(after)} (timed in sync mode): "
                "a limit that held only during the work may not show",
            )
        )
    return out


def case_notes(experiment: Experiment) -> list[tuple[list[str], list[tuple[str, object]]]]:
    """Each case's notes (how it was timed, what ran where, the PCIe link, cold or
    warm, throttling...) as (case names, items); cases with the same notes share one entry."""
    out: list[tuple[list[str], list]] = []
    for c in experiment.cases:
        items = [(k, v) for k, v in flatten_derived(c.notes) if _shown_note(k, v)]
        items += measurement_facts(c)
        if not items:
            continue
        name = str(c.name)
        same = next((i for i, (_, it) in enumerate(out) if it == items), None)
        if same is None:
            out.append(([name], items))
        else:
            out[same][0].append(name)
    return out
