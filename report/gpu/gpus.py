"""`gpus RESULTS...`: one table, a column per GPU (per results file): every
comparison's speedup, and every variant's throughput with its share of that GPU's
datasheet peak (gpu_specs.json)."""

from __future__ import annotations

from ..load.document import Case, Comparison, Document, Variant, device_name, gpu_name
from ..load.numbers import is_num
from ..render.fmt import DASH, fmt_items, fmt_no_ci, fmt_pct, fmt_rate, fmt_speedup, rate_scale
from ..render.md_escape import inline
from ..render.textable import table
from ..statistics.measurement import PROCESS
from .gpu_specs import match_gpu, peak_for


def column_labels(docs: list[dict]) -> list[str]:
    labels = []
    for d in docs:
        spec = match_gpu(gpu_name(d)) if Document(d).device == "cuda" else None
        labels.append(spec["name"] if spec else device_name(d))
    counts = {lab: labels.count(lab) for lab in labels}
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


def build(docs: list[dict]) -> tuple[list[str], list[list[str]], list[list[str]]]:
    """Headers, speedup rows and throughput rows."""
    labels = column_labels(docs)
    speed: dict[tuple, list[str]] = {}
    thr: dict[tuple, list[str]] = {}
    for i, d in enumerate(docs):
        doc = Document(d)
        spec = match_gpu(doc.gpu_name) if doc.device == "cuda" else None
        for e in doc.experiments:
            kind = e.throughput_kind
            if not e.recorded_cases:
                key = (e.name, DASH, DASH)
                speed.setdefault(key, [DASH] * len(docs))[i] = str(e.status or "").upper()
                continue
            for c in e.cases:
                if not c.ran:
                    key = (e.name, c.name, DASH)
                    speed.setdefault(key, [DASH] * len(docs))[i] = str(c.recorded_status or "").upper()
                    continue
                for cm in c.comparisons:
                    key = (e.name, c.name, f"{cm.variant_name} vs {cm.baseline_name}")
                    speed.setdefault(key, [DASH] * len(docs))[i] = _speedup_cell(cm)
                for v in c.variants:
                    key = (e.name, c.name, v.name)
                    thr.setdefault(key, [DASH] * len(docs))[i] = _throughput_cell(c, v, kind, spec)
    headers = ["experiment", "case", "what", *labels]
    return (headers, [[*k, *cells] for k, cells in speed.items()], [[*k, *cells] for k, cells in thr.items()])


def describe(paths: list, docs: list[dict]) -> list[str]:
    lines = []
    for lab, p, d in zip(column_labels(docs), paths, docs):
        name = gpu_name(d) if Document(d).device == "cuda" else None
        spec = match_gpu(name) if name else None
        if spec:
            peaks = (
                f"FP32 {spec['fp32_tflops']}, TF32 {spec['tf32_tflops']}, FP16 {spec['fp16_tflops']} TFLOP/s; "
                f"memory {spec['memory_gb_per_s']} GB/s; {spec['host_link']} {spec['host_link_gb_per_s']} GB/s"
            )
            lines.append(f"{lab}: {p} ({name}; datasheet: {peaks}; {spec['source']})")
        elif name:
            lines.append(f"{lab}: {p} ({name}; not in gpu_specs.json, so no % of peak)")
        else:
            lines.append(f"{lab}: {p} (CPU run: no GPU peaks)")
    return lines


def run(paths: list, docs: list[dict], markdown: bool = False) -> str:
    headers, speed, thr = build(docs)
    cols = [f"  {inline(line) if markdown else line}" for line in describe(paths, docs)]  # names from the files
    out = [
        "Columns:",
        *cols,
        "",
        "Speedup (median baseline / median variant, [CI]):",
        table(headers, speed, markdown),
        "",
        "Throughput (share of the datasheet peak, dense):",
        table(headers, thr, markdown),
    ]
    return "\n".join(out)
