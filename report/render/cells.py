"""Table rows -> display text, shared by the Markdown and HTML writers."""

from __future__ import annotations

from ..claims.judge import ClaimResult
from ..gpu.gpu_specs import match_gpu
from ..load.document import NvidiaSmi, device_name, gpu_name, run_facts
from ..load.numbers import is_num
from ..statistics.measurement import PROCESS
from .claim_words import beside_text, row_text
from .fmt import DASH, fmt_bytes, fmt_items, fmt_no_ci, fmt_pct, fmt_rate, fmt_speedup, fmt_time, sig
from .glossary import spelling
from .tables import ExperimentTable, Row

VERIFICATION = {
    "passed": "passed",
    "failed": "FAILED",
    "not_checked": "not checked",
    "baseline": "baseline",
    "not_judged": "not judged (first loss only)",
}


def verification_cell(r: Row) -> str:
    """'passed (first loss, logits, 8-step fit)': what a pass judged, where the check says."""
    text = VERIFICATION.get(r.verification, r.verification or DASH)
    if r.verification == "passed" and r.verification_judged:
        text += f" ({r.verification_judged})"
    return text


def throughput_header(t: ExperimentTable) -> str:
    return f"throughput ({t.unit})" if t.unit else "throughput"


def numeric_headers(t: ExperimentTable) -> set[str]:
    """The columns of an experiment's tables that hold numbers (right-aligned in HTML)."""
    return {"median time per step", "IQR", "n", throughput_header(t)}


def experiment_headers(t: ExperimentTable) -> list[str]:
    h = ["case", "variant", "median time per step", "IQR", "n", throughput_header(t)]
    if t.has_items:
        h.append("items/s")
    h.append("speedup [CI]")
    if t.has_why:
        h.append("why")
    if t.has_peak:
        h.append("% of peak")
    return h + ["verification", "peak memory", "status / notes"]


def smi_text(smi: NvidiaSmi | dict | None) -> str:
    """Checklist row 12 beside a GPU variant: what nvidia-smi would have shown
    while it was timed ('nvidia-smi: GPU 97% (min 92%), memory 41%, 1980 MHz, 690 W')."""
    smi = NvidiaSmi.of(smi)
    med = smi.median
    parts = []
    if (g := med("gpu_util_pct")) is not None:
        lo = smi.min("gpu_util_pct")
        parts.append(f"GPU {g:.0f}%" + (f" (min {lo:.0f}%)" if lo is not None and lo < g else ""))
    if (m := med("memory_util_pct")) is not None:
        parts.append(f"memory {m:.0f}%")
    if (c := med("sm_clock_mhz")) is not None:
        parts.append(f"{c:.0f} MHz")
    if (p := med("power_w")) is not None:
        parts.append(f"{p:.0f} W")
    return "nvidia-smi: " + ", ".join(parts) if parts else ""


# A step that faults in this many fresh pages per step (400 kB of 4 kB pages)
# pays the kernel for memory its allocator mapped anew: its time then depends on
# the process's allocator history, not only on the optimization (glibc serves a
# temporary above its mmap threshold by a fresh mmap each time).
FAULTS_WORTH_SAYING = 100
FAULTS = spelling("minor page faults per step")


def faults_text(per_step: float | None, across: list[float] | None = None) -> str:
    """`across`: the variant's faults per step in each process of the run (the first's
    first), where it ran in several: a count that differs between them is said. What
    a count means is the glossary's (minor page faults per step), said once there."""
    seen = [x for x in across or [] if is_num(x)]
    if len(seen) > 1 and max(seen) >= FAULTS_WORTH_SAYING and min(seen) < max(seen) / 2:
        each = ", ".join(f"{x:,.0f}" for x in seen)
        return f"{FAULTS} differ between the run's processes ({each})"
    if per_step is None or per_step < FAULTS_WORTH_SAYING:
        return ""
    return f"{per_step:,.0f} {FAULTS}"


def status_text(r: Row) -> tuple[str | None, str]:
    """(marker or None, note text) for the last column."""
    note = r.reason or ""
    if r.verification in ("failed", "passed", "not_judged") and r.verification_message:
        note = f"verification: {r.verification_message}" + (f"; {note}" if note else "")
    for extra in (smi_text(r.nvidia_smi), faults_text(r.minor_faults_per_step, r.process_faults)):
        if extra:
            note = f"{note}; {extra}" if note else extra
    return r.marker, note


def speedup_cell(r: Row, say_basis: bool) -> str:
    """The comparison's one estimate and interval (tables._estimate_fields): '3.5× [3.1,
    3.9] (8 processes: 3.2–3.8× each)'; a ratio without an interval says why (too few
    rounds, or none recorded). say_basis: name the basis of a within-process interval too."""
    if r.role == "baseline" and r.speedup == 1.0:
        return "1×"
    if not is_num(r.speedup):
        return DASH
    if not (is_num(r.ci_low) and is_num(r.ci_high)):
        if r.below_floor and r.ci_unit != PROCESS:
            return fmt_no_ci(r.speedup, r.rounds)
        return f"{fmt_speedup(r.speedup)} ({r.basis_text or 'one process'}, no CI)"
    text = fmt_speedup(r.speedup, r.ci_low, r.ci_high)
    if r.ci_unit == PROCESS or say_basis:
        text += f" ({r.basis_text or 'one process'})"
    return text


def experiment_cells(t: ExperimentTable, r: Row) -> list[str]:
    variant = r.variant or DASH
    if r.role in ("baseline", "reference"):
        variant += f" ({r.role})"
    if t.kind == "items":
        thr = fmt_items(r.throughput, r.item_name)
    else:
        thr = fmt_rate(r.throughput, t.divisor)
    cells = [
        r.case or DASH,
        variant,
        fmt_time(r.median_s),
        fmt_time(r.iqr_s),
        str(r.n) if is_num(r.n) else DASH,
        thr,
    ]
    if t.has_items:
        cells.append(fmt_items(r.items_per_s, r.item_name))
    cells.append(speedup_cell(r, t.has_processes))
    if t.has_why:
        cells.append(r.why or DASH)
    if t.has_peak:
        cells.append(f"{fmt_pct(r.pct_peak)} of {r.peak_label}" if is_num(r.pct_peak) else DASH)
    cells.append(verification_cell(r))
    mem = fmt_bytes(r.peak_allocated_bytes)
    if is_num(r.peak_reserved_bytes) and r.peak_reserved_bytes != r.peak_allocated_bytes:
        mem += f" (reserved {fmt_bytes(r.peak_reserved_bytes)})"
    cells.append(mem)
    marker, note = status_text(r)
    cells.append(f"{marker}: {note}" if marker and note else (marker or note or "ok"))
    return cells


def main_speedup_cell(r: Row, processes: int | None) -> str:
    """speedup_cell for the report's main tables: the basis only where it is not the
    run's own (every interval between `processes` processes, said once in the runs
    list), and without each process's figure (the details have them)."""
    if r.ci_unit == PROCESS and is_num(r.ci_low) and is_num(r.ci_high):
        text = fmt_speedup(r.speedup, r.ci_low, r.ci_high)
        return text if r.ci_n == processes else f"{text} ({r.ci_n} processes)"
    return speedup_cell(r, False)


def main_headers(t: ExperimentTable) -> list[str]:
    """One run's table in report.md: time, throughput, speedup, verification and status;
    the spread, the why, memory and notes are in the details."""
    h = ["case", "variant", "median time per step", throughput_header(t)]
    if t.has_items:
        h.append("items/s")
    h.append("speedup [CI]")
    if t.has_peak:
        h.append("% of peak")
    return h + ["verification", "status"]


def main_cells(t: ExperimentTable, r: Row, processes: int | None) -> list[str]:
    full = dict(zip(experiment_headers(t), experiment_cells(t, r)))  # the details' cells, some of them shown here
    cells = [full["case"], full["variant"], full["median time per step"], full[throughput_header(t)]]
    if t.has_items:
        cells.append(full["items/s"])
    cells.append(main_speedup_cell(r, processes) if r.role != "baseline" else full["speedup [CI]"])
    if t.has_peak:
        cells.append(full["% of peak"])
    marker = r.marker
    reason = r.reason or ""
    return cells + [
        VERIFICATION.get(r.verification, r.verification or DASH),
        f"{marker}: {reason}" if marker and reason else (marker or "ok"),
    ]


CLAIMS_HEADERS = ["claim", "tested on", "source"]
SOURCES_FILE = "report/sources.md"  # carries every quoted excerpt, inside the project


def short_run_line(doc: dict) -> str:
    """The run in a few words: 'CPU AMD EPYC, libtorch 2.11.0, profile standard, 2026-11-26T15:31:08Z'."""
    f = run_facts(doc)
    parts = [device_name(doc), f"libtorch {_or_unknown(f.libtorch_version)}", f"profile {_or_unknown(f.profile)}"]
    if f.filter not in (None, "", ".*"):
        parts.append(f"filter {f.filter!r}")
    if f.date:
        parts.append(str(f.date))
    return ", ".join(parts)


def _or_unknown(x: object) -> str:
    return "?" if x is None else str(x)


def tested_on(cr: ClaimResult) -> str:
    """What the claim was judged on, by case: 'dataloader/workers: workers_2 vs workers_0',
    'torchscript/python_b8: python_script, python_trace vs python_eager; ...'; past
    three cases, how many comparisons in all."""
    if not cr.evidence:
        return DASH
    groups: dict[tuple[str, str], list] = {}
    for e in cr.evidence:
        groups.setdefault((e.experiment, e.case), []).append((e.variant, e.baseline))
    parts = []
    for (x, c), vs in groups.items():
        bases = list(dict.fromkeys(b for _, b in vs))
        if len(bases) == 1:
            vs_text = ", ".join(v for v, _ in vs) + (f" vs {bases[0]}" if bases[0] else "")
        else:
            vs_text = ", ".join(f"{v} vs {b}" for v, b in vs)
        parts.append(f"{x}/{c}: {vs_text}")
    if len(parts) > 3:
        parts = parts[:3] + [f"… ({len(cr.evidence)} comparisons in all)"]
    return "; ".join(parts)


def claim_details(cr: ClaimResult) -> dict:
    """What the report says under the table for one claim: every case used with its
    speedup, why those cases, what is shown beside, and the quote with its source
    (a document and section whose excerpt ships in SOURCES_FILE)."""
    c = cr.claim
    used = [f"{e.label}: {row_text(e)}" for e in cr.evidence]
    return {
        "id": c["id"],
        "note": c.get("note", ""),
        "used": used,
        "why": cr.why,
        "beside": [f"{b.label}: {beside_text(b)}" for b in cr.beside],
        "quote": str(c.get("quote", "")).strip(),
        "source": f"{cr.source} (excerpt in {SOURCES_FILE})" if cr.source else "",
    }


def environment_lines(doc: dict) -> list[tuple[str, str]]:
    f = run_facts(doc)
    dev = device_name(doc)
    spec = match_gpu(gpu_name(doc)) if f.device == "cuda" else None
    if spec:
        dev += f" (datasheet: {spec['name']})"
    elif f.device == "cuda":
        dev += " (no datasheet entry: no % of peak from the spec table)"
    sha = (f.git_sha or "unknown")[:12] + (" (dirty)" if f.git_dirty else "")
    lines = [
        ("run status", str(f.status)),
        ("date", "" if f.date is None else str(f.date)),
        ("device", f"{_or_unknown(f.device)}: {dev}"),
        ("optbench", f"{_or_unknown(f.optbench_version)}, git {sha}"),
        ("libtorch", _or_unknown(f.libtorch_version)),
        ("host", f"{_or_unknown(f.host)}, {_or_unknown(f.os_name)}"),
        ("profile", f"{_or_unknown(f.profile)}, filter {('' if f.filter is None else f.filter)!r}"),
        ("command", "" if f.command_line is None else str(f.command_line)),
    ]
    if f.cuda is not None:
        lines.insert(3, ("CUDA", f"runtime {f.cuda.runtime}, cuDNN {f.cuda.cudnn}, {f.cuda.device_count} device(s)"))
    return lines


def run_warning(doc: dict) -> str | None:
    st = run_facts(doc).status
    if st == "interrupted":
        return "This run was interrupted: some experiments or cases are missing or partial."
    if st == "running":
        return "This file was written while the run was still going (it did not finish): results are partial."
    return None


def gbench_table(doc: dict) -> tuple[list[str], list[list[str]]]:
    """Headers and cells for a Google Benchmark file: one row per benchmark run."""
    from ..load.gbench import rows as gbench_rows

    rows = gbench_rows(doc)
    counters = sorted({k for r in rows for k in r["counters"]}, key=lambda k: (not k.endswith("/s"), k))
    headers = ["benchmark", "real time", "CPU time", "iterations", *counters, "status"]
    out = []
    for r in rows:
        its = r["iterations"]
        out.append(
            [
                r["name"],
                fmt_time(r["real_s"]),
                fmt_time(r["cpu_s"]),
                str(its) if is_num(its) else DASH,
                *[sig(r["counters"][k]) if k in r["counters"] else DASH for k in counters],
                f"ERROR: {r['error']}" if r["error"] else "ok",
            ]
        )
    return headers, out
