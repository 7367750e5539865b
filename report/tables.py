"""Results document -> per-experiment table rows (numbers, not text), shared by the
Markdown, HTML and CSV writers. Every case x variant gives a row; skipped, failed
and interrupted experiments/cases and oom/error variants give marked rows. What the
rows hold is read through document.py; this module only lays it out."""
from __future__ import annotations

import statistics

from .document import Case, Comparison, Document, Experiment, Variant
from .estimate import PROCESS
from .facts import derived_tables
from .processes import spread
from .fmt import KIND_KEYS, is_num, rate_scale, sig
from .gpu_specs import gpu_name, match_gpu, peak_for
from .judged import judged_text
from .judged import status as judged_status
from .machine_paths import is_machine_path
from .why import document_has_breakdowns
from .why_row import why_of

BAD_CASE = {"skipped": "SKIPPED", "failed": "FAILED", "interrupted": "INTERRUPTED", "running": "INCOMPLETE",
            "not_run": "NOT RUN", "crashed": "CRASHED", "hung": "HUNG"}  # hung: killed at its deadline
BAD_VARIANT = {"oom": "OOM", "error": "ERROR", "not_run": "NOT RUN"}


def _median(xs: list | None) -> float | None:
    """The median of a recorded per-sample series, None where none was recorded."""
    xs = [x for x in xs or [] if is_num(x)]
    return statistics.median(xs) if xs else None


def _row(**kw) -> dict:
    base = dict.fromkeys([
        "experiment", "experiment_status", "case", "case_status", "variant", "role", "variant_status",
        "marker", "reason", "primary_metric", "median_s", "q1_s", "q3_s", "iqr_s", "min_s", "n",
        "bytes_per_s", "flops_per_s", "items_per_s", "item_name", "throughput", "speedup", "ci_low",
        "ci_high", "why", "verification", "verification_judged", "verification_message", "pct_peak", "peak_label",
        "peak_allocated_bytes", "peak_reserved_bytes", "params", "rounds", "below_floor", "nvidia_smi",
        "minor_faults_per_step", "process_faults", "confidence", "ci_unit", "ci_n", "ci_df", "process_speedups",
        "basis_text", "why_of",
    ])
    base.update(kw)
    return base


def experiment_rows(experiment: Experiment, spec: dict | None, why: bool = False) -> list[dict]:
    """why: give each comparison's row the profiler breakdown's why text (why.py)."""
    kind = experiment.throughput_kind
    e_status = experiment.raw.get("status", "ok")
    common = {"experiment": experiment.name, "experiment_status": e_status}
    if not experiment.raw.get("cases"):
        marker = BAD_CASE.get(e_status, "NO CASES")
        return [_row(**common, marker=marker, reason=experiment.raw.get("reason") or "no cases recorded")]
    rows = []
    for c in experiment.cases:
        c_status = c.raw.get("status", "ok")
        ccommon = dict(common, case=c.name, case_status=c_status, params=c.raw.get("params") or {},
                       primary_metric=c.raw.get("primary_metric"))
        if not c.raw.get("variants"):
            rows.append(_row(**ccommon, marker=BAD_CASE.get(c_status, "NO VARIANTS"),
                             reason=c.raw.get("reason") or "no variants recorded"))
            continue
        for v in c.variants:
            rows.append(_variant_row(c, v, ccommon, kind, spec, why, experiment.raw.get("mechanism_counters") or ()))
    return rows


def _variant_row(c: Case, var: Variant, ccommon: dict, kind: str | None, spec: dict | None, why: bool,
                 counters: object = ()) -> dict:
    v = var.raw
    stats = v.get("stats") or {}
    thr = v.get("throughput") or {}
    mem = v.get("memory") or {}
    units = v.get("units") or c.raw.get("units") or {}
    v_status = v.get("status", "ok")
    marker = BAD_VARIANT.get(v_status) or BAD_CASE.get(c.raw.get("status", "ok"))
    reason = v.get("error") or (c.raw.get("reason") if c.raw.get("status") in BAD_CASE else None)
    row = _row(**ccommon, variant=v.get("name"), role=v.get("role"), variant_status=v_status,
               marker=marker, reason=reason,
               median_s=stats.get("median"), q1_s=stats.get("q1"), q3_s=stats.get("q3"),
               iqr_s=stats.get("iqr"), min_s=stats.get("min"), n=stats.get("n"),
               bytes_per_s=thr.get("bytes_per_s"), flops_per_s=thr.get("flops_per_s"),
               items_per_s=thr.get("items_per_s"), item_name=units.get("item_name") or "items",
               peak_allocated_bytes=mem.get("peak_allocated_bytes"),
               peak_reserved_bytes=mem.get("peak_reserved_bytes"),
               nvidia_smi=v.get("nvidia_smi") or None,
               minor_faults_per_step=_median((v.get("samples") or {}).get("minor_faults")))
    if isinstance(c.raw.get("repeats"), list):  # the same variant in the run's further processes
        row["process_faults"] = [row["minor_faults_per_step"]] + [
            ((r.get("variants") or {}).get(v.get("name")) or {}).get("minor_faults_per_step")
            for r in c.raw["repeats"] if isinstance(r, dict)]
    if kind:
        row["throughput"] = thr.get(KIND_KEYS[kind])
        peak = peak_for(c, var, kind, spec) if kind != "items" else None
        if peak and is_num(row["throughput"]):
            row["pct_peak"] = row["throughput"] / peak[0]
            row["peak_label"] = peak[1]
    if v.get("role") == "baseline":
        row["speedup"] = 1.0 if v_status == "ok" and stats else None
        row["verification"] = "baseline"
    cm = c.comparison(var.name)
    if cm:
        raw = cm.raw
        row.update(_estimate_fields(cm))
        if why:  # a mechanism only where the profile agrees with the timing (why_row.py)
            base = cm.baseline or Variant({}, c)
            row["why_of"] = why_of(raw, base.raw, v, base.work, var.work, cm.below_floor, counters)
            row["why"] = row["why_of"].text()
        if row["speedup"] is not None:  # rounds behind the first process's ratio; no ratio, nothing to count
            row.update(rounds=cm.rounds, below_floor=cm.below_floor)
        ver = cm.verification
        if v_status == "ok":
            row["verification"] = judged_status(ver)
            row["verification_judged"] = judged_text(ver) or None
            # A passed check can still say what it could not judge (an ill-conditioned trace).
            row["verification_message"] = ver.get("message") or (ver.get("details") or {}).get("note")
    return row


def _estimate_fields(cm: Comparison) -> dict:
    """The comparison's one estimate and interval (cm.estimate: what every table, plot
    and export shows), its basis, and each process's own ratio beside it (points, no
    interval: the estimate's interval is the only one shown)."""
    est = cm.estimate
    if est is None:
        return dict.fromkeys(("speedup", "ci_low", "ci_high"))
    out = dict(speedup=est.speedup, ci_low=est.ci_low, ci_high=est.ci_high, confidence=est.confidence,
               ci_unit=est.unit, ci_n=est.n, ci_df=est.df)
    sp = spread(cm.raw)
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


def document_tables(doc: dict | Document) -> list[dict]:
    """Per experiment: name, title, status, claims, the throughput unit, flags for
    optional columns, and the rows. The why column is the whole document's or none:
    files from before the profiler breakdown have no variant with one."""
    d = doc if isinstance(doc, Document) else Document(doc)
    spec = match_gpu(gpu_name(d.raw)) if d.device == "cuda" else None
    has_why = document_has_breakdowns(d.raw)
    out = []
    for ex in d.experiments:
        e = ex.raw
        rows = experiment_rows(ex, spec, has_why)
        kind = ex.throughput_kind
        div, unit = rate_scale(kind, [r["throughput"] for r in rows]) if kind in ("bytes", "flops") else (1.0, "")
        out.append({
            "name": e.get("name"), "title": e.get("title", ""), "optimization": e.get("optimization", ""),
            "description": e.get("description", ""), "status": e.get("status"), "reason": e.get("reason"),
            "output_tail": e.get("output_tail") or [],
            "claims": e.get("claims", []), "kind": kind, "divisor": div, "unit": unit,
            "has_items": kind != "items" and any(is_num(r["items_per_s"]) for r in rows),
            "has_peak": any(is_num(r["pct_peak"]) for r in rows),
            "has_why": has_why,
            # Say each speedup's basis where the interval is between processes anywhere in
            # the table: a reader comparing two rows must know they rest on different units.
            "has_processes": any(r["ci_unit"] == PROCESS for r in rows),
            "rows": rows,
            "derived": derived_tables([(str(c.get("name")), flat) for c in e.get("cases", []) or []
                                       if (flat := flatten_derived(c.get("derived")))]),
            "notes": case_notes(e),
            "time": case_times(e),
        })
    return out


TIME_PARTS = (("sampling", "sampling"), ("verification", "verification"), ("warmup", "warm-up"),
              ("build", "build"), ("profiling", "profiling"), ("cold_first_steps", "cold first steps"),
              ("other", "other"))


def case_times(experiment: dict) -> list[tuple[str, str]]:
    """Where each case's wall time went (time_s; files from before it have none):
    'name', '9.0 s: sampling 34%, verification 50%, ...', sampling first, then the
    rest by share; parts under 1% left out."""
    out = []
    for c in experiment.get("cases", []) or []:
        t, wall = c.get("time_s"), c.get("wall_s")
        if not isinstance(t, dict) or not is_num(wall) or wall <= 0:
            continue
        shares = [(label, t[k] / wall) for k, label in TIME_PARTS if is_num(t.get(k))]
        first = [s for s in shares if s[0] == "sampling"]
        rest = sorted((s for s in shares if s[0] != "sampling" and s[1] >= 0.01), key=lambda s: -s[1])
        out.append((str(c.get("name")), f"{sig(wall)} s: " + ", ".join(f"{label} {share:.0%}"
                                                                        for label, share in first + rest)))
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


def measurement_facts(case: dict) -> list[tuple[str, object]]:
    """What the harness recorded about how the case was measured: variants timed in
    fresh processes (cold first runs), and the share of samples each variant spent
    throttled, by NVML's clock-event reason."""
    variants = case.get("variants") or []
    out: list[tuple[str, object]] = []
    if any(v.get("process") == "fresh" for v in variants):
        out.append(("process", "each variant in a fresh process: first runs are cold, caches its own"))
    throttled = [f"{v.get('name')} {kind} {share:.0%}" for v in variants
                 for kind in ("thermal", "power", "other")
                 if is_num(share := (v.get("throttle") or {}).get(kind)) and share > 0]
    if throttled:
        out.append(("throttled samples", "; ".join(throttled)))
    return out


def case_notes(experiment: dict) -> list[tuple[list[str], list[tuple[str, object]]]]:
    """Each case's notes (how it was timed, what ran where, the PCIe link, cold or
    warm, throttling...) as (case names, items); cases with the same notes share one entry."""
    out: list[tuple[list[str], list]] = []
    for c in experiment.get("cases", []) or []:
        items = [(k, v) for k, v in flatten_derived(c.get("notes")) if _shown_note(k, v)]
        items += measurement_facts(c)
        if not items:
            continue
        name = str(c.get("name"))
        same = next((i for i, (_, it) in enumerate(out) if it == items), None)
        if same is None:
            out.append(([name], items))
        else:
            out[same][0].append(name)
    return out
