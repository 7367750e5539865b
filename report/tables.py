"""Results document -> per-experiment table rows (numbers, not text), shared by the
Markdown, HTML and CSV writers. Every case x variant gives a row; skipped, failed
and interrupted experiments/cases and oom/error variants give marked rows."""
from __future__ import annotations

import statistics

from .fmt import KIND_KEYS, is_num, rate_scale, sig
from .gpu_specs import gpu_name, match_gpu, peak_for
from .judged import judged_text
from .judged import status as judged_status
from .rounds import too_few
from .why import document_has_breakdowns
from .why_row import why_text

BAD_CASE = {"skipped": "SKIPPED", "failed": "FAILED", "interrupted": "INTERRUPTED", "running": "INCOMPLETE",
            "not_run": "NOT RUN", "crashed": "CRASHED", "hung": "HUNG"}  # hung: killed at its deadline
BAD_VARIANT = {"oom": "OOM", "error": "ERROR", "not_run": "NOT RUN"}


def throughput_kind(experiment: dict) -> str | None:
    """The experiment's headline unit: bytes, else FLOPs, else items (samples, images...)."""
    seen = set()
    for c in experiment.get("cases", []):
        for v in c.get("variants", []) or []:
            seen.update(k for k, key in KIND_KEYS.items() if is_num((v.get("throughput") or {}).get(key)))
    for k in ("bytes", "flops", "items"):
        if k in seen:
            return k
    return None


def primary_samples(case: dict, variant: dict) -> list[float]:
    """Raw samples of the primary metric: the variant's own where it has one (a pinned
    copy timed with events beside a pageable one timed on the host), else the case's;
    device_s falls back to host_s when absent."""
    samples = variant.get("samples") or {}
    metric = variant.get("primary_metric") or case.get("primary_metric") or "host_s"
    vals = samples.get(metric)
    if not vals:
        vals = samples.get("host_s") or []
    return [float(x) for x in vals if is_num(x)]


def _variant_named(case: dict, name: object) -> dict | None:
    return next((v for v in case.get("variants", []) or [] if v.get("name") == name), None)


def comparison_rounds(case: dict, cm: dict) -> int | None:
    """The interleaved rounds behind a comparison's ratio: its own "rounds", else (files
    from before it had one) the case's, else the fewer samples of its two variants,
    one per round; None when none of these is there."""
    for n in (cm.get("rounds"), case.get("rounds")):
        if is_num(n):
            return int(n)
    sides = [_variant_named(case, cm.get(k)) for k in ("baseline", "variant")]
    if any(v is None for v in sides):
        return None
    return min(len(primary_samples(case, v)) for v in sides)


def below_floor(case: dict, cm: dict) -> bool:
    """The comparison has fewer rounds than the floor (rounds.py), or the harness says
    so (below_floor: a floor of its own, e.g. at a higher confidence): no CI."""
    return cm.get("below_floor") is True or too_few(comparison_rounds(case, cm))


def _comparison(case: dict, name: str) -> dict | None:
    for cm in case.get("comparisons", []) or []:
        if cm.get("variant") == name:
            return cm
    return None


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
        "minor_faults_per_step",
    ])
    base.update(kw)
    return base


def experiment_rows(experiment: dict, spec: dict | None, why: bool = False) -> list[dict]:
    """why: give each comparison's row the profiler breakdown's why text (why.py)."""
    kind = throughput_kind(experiment)
    e_status = experiment.get("status", "ok")
    common = {"experiment": experiment.get("name"), "experiment_status": e_status}
    cases = experiment.get("cases", []) or []
    if not cases:
        marker = BAD_CASE.get(e_status, "NO CASES")
        return [_row(**common, marker=marker, reason=experiment.get("reason") or "no cases recorded")]
    rows = []
    for c in cases:
        c_status = c.get("status", "ok")
        ccommon = dict(common, case=c.get("name"), case_status=c_status, params=c.get("params") or {},
                       primary_metric=c.get("primary_metric"))
        variants = c.get("variants") or []
        if not variants:
            rows.append(_row(**ccommon, marker=BAD_CASE.get(c_status, "NO VARIANTS"),
                             reason=c.get("reason") or "no variants recorded"))
            continue
        for v in variants:
            rows.append(_variant_row(c, v, ccommon, kind, spec, why, experiment.get("mechanism_counters") or ()))
    return rows


def work_amount(case: dict, variant: dict) -> float:
    """Work one step of the variant does (its own units, else the case's): FLOPs,
    else bytes, else items, the harness's order (case_runner.cpp, work_amount)."""
    units = variant.get("units") if isinstance(variant.get("units"), dict) else case.get("units")
    if isinstance(units, dict):
        for key in ("flops", "bytes", "items"):
            if is_num(units.get(key)) and units[key] > 0:
                return float(units[key])
    return 1.0


def _variant_row(c: dict, v: dict, ccommon: dict, kind: str | None, spec: dict | None, why: bool,
                 counters: object = ()) -> dict:
    stats = v.get("stats") or {}
    thr = v.get("throughput") or {}
    mem = v.get("memory") or {}
    units = v.get("units") or c.get("units") or {}
    v_status = v.get("status", "ok")
    marker = BAD_VARIANT.get(v_status) or BAD_CASE.get(c.get("status", "ok"))
    reason = v.get("error") or (c.get("reason") if c.get("status") in BAD_CASE else None)
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
    if kind:
        row["throughput"] = thr.get(KIND_KEYS[kind])
        peak = peak_for(c, v, kind, spec) if kind != "items" else None
        if peak and is_num(row["throughput"]):
            row["pct_peak"] = row["throughput"] / peak[0]
            row["peak_label"] = peak[1]
    if v.get("role") == "baseline":
        row["speedup"] = 1.0 if v_status == "ok" and stats else None
        row["verification"] = "baseline"
    cm = _comparison(c, v.get("name"))
    if cm:
        row.update(speedup=cm.get("speedup"), ci_low=cm.get("ci_low"), ci_high=cm.get("ci_high"))
        if why:  # a mechanism only where the profile agrees with the timing (why_row.py)
            base = _variant_named(c, cm.get("baseline")) or {}
            row["why"] = why_text(cm, base, v, work_amount(c, base), work_amount(c, v), below_floor(c, cm), counters)
        if is_num(cm.get("speedup")):  # rounds behind a ratio; no ratio, nothing to count
            row.update(rounds=comparison_rounds(c, cm), below_floor=below_floor(c, cm))
        if row["below_floor"]:  # older files wrote [min, max] of too few rounds as a CI
            row.update(ci_low=None, ci_high=None)
        ver = cm.get("verification") or {}
        if v_status == "ok":
            row["verification"] = judged_status(ver)
            row["verification_judged"] = judged_text(ver) or None
            # A passed check can still say what it could not judge (an ill-conditioned trace).
            row["verification_message"] = ver.get("message") or (ver.get("details") or {}).get("note")
    return row


def document_tables(doc: dict) -> list[dict]:
    """Per experiment: name, title, status, claims, the throughput unit, flags for
    optional columns, and the rows. The why column is the whole document's or none:
    files from before the profiler breakdown have no variant with one."""
    spec = match_gpu(gpu_name(doc)) if doc.get("environment", {}).get("device") == "cuda" else None
    has_why = document_has_breakdowns(doc)
    out = []
    for e in doc.get("experiments", []):
        rows = experiment_rows(e, spec, has_why)
        kind = throughput_kind(e)
        div, unit = rate_scale(kind, [r["throughput"] for r in rows]) if kind in ("bytes", "flops") else (1.0, "")
        out.append({
            "name": e.get("name"), "title": e.get("title", ""), "optimization": e.get("optimization", ""),
            "description": e.get("description", ""), "status": e.get("status"), "reason": e.get("reason"),
            "output_tail": e.get("output_tail") or [],
            "claims": e.get("claims", []), "kind": kind, "divisor": div, "unit": unit,
            "has_items": kind != "items" and any(is_num(r["items_per_s"]) for r in rows),
            "has_peak": any(is_num(r["pct_peak"]) for r in rows),
            "has_why": has_why,
            "rows": rows,
            "derived": [(str(c.get("name")), flat) for c in e.get("cases", []) or []
                        if (flat := flatten_derived(c.get("derived")))],
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


def case_notes(experiment: dict) -> list[tuple[str, list[tuple[str, object]]]]:
    """Each case's notes (how it was timed, what ran where, the PCIe link, cold or
    warm, throttling...) as (case names, items); cases with the same notes share one entry."""
    out: list[tuple[str, list]] = []
    for c in experiment.get("cases", []) or []:
        items = [(k, v) for k, v in flatten_derived(c.get("notes")) if k not in MACHINE_NOTES]
        items += measurement_facts(c)
        if not items:
            continue
        name = str(c.get("name"))
        same = next((i for i, (_, it) in enumerate(out) if it == items), None)
        if same is None:
            out.append((name, items))
        else:
            out[same] = (f"{out[same][0]}, {name}", items)
    return out
