"""Table rows -> display text, shared by the Markdown and HTML writers."""
from __future__ import annotations

from .claims import ClaimResult
from .fmt import DASH, fmt_bytes, fmt_items, fmt_no_ci, fmt_pct, fmt_rate, fmt_speedup, fmt_time, is_num, sig
from .gpu_specs import device_name, gpu_name, match_gpu
from .estimate import PROCESS

VERIFICATION = {"passed": "passed", "failed": "FAILED", "not_checked": "not checked", "baseline": "baseline",
                "not_judged": "not judged (first loss only)"}


def verification_cell(r: dict) -> str:
    """'passed (first loss, logits, 8-step fit)': what a pass judged, where the check says."""
    text = VERIFICATION.get(r["verification"], r["verification"] or DASH)
    if r["verification"] == "passed" and r.get("verification_judged"):
        text += f" ({r['verification_judged']})"
    return text


def experiment_headers(t: dict) -> list[str]:
    thr = f"throughput ({t['unit']})" if t["unit"] else "throughput"
    h = ["case", "variant", "median time per step", "IQR", "n", thr]
    if t["has_items"]:
        h.append("items/s")
    h.append("speedup [CI]")
    if t.get("has_why"):
        h.append("why")
    if t["has_peak"]:
        h.append("% of peak")
    return h + ["verification", "peak memory", "status / notes"]


def smi_text(smi: dict | None) -> str:
    """Checklist row 12 beside a GPU variant: what nvidia-smi would have shown
    while it was timed ('nvidia-smi: GPU 97% (min 92%), memory 41%, 1980 MHz, 690 W')."""
    if not smi:
        return ""

    def med(key: str) -> float | None:
        v = (smi.get(key) or {}).get("median")
        return v if is_num(v) else None

    parts = []
    if (g := med("gpu_util_pct")) is not None:
        lo = (smi.get("gpu_util_pct") or {}).get("min")
        parts.append(f"GPU {g:.0f}%" + (f" (min {lo:.0f}%)" if is_num(lo) and lo < g else ""))
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


def faults_text(per_step: float | None, across: list[float] | None = None) -> str:
    """`across`: the variant's faults per step in each process of the run (the first's
    first), where it ran in several: a regime that differs between them is said."""
    seen = [x for x in across or [] if is_num(x)]
    if len(seen) > 1 and max(seen) >= FAULTS_WORTH_SAYING and min(seen) < max(seen) / 2:
        each = ", ".join(f"{x:,.0f}" for x in seen)
        return (f"minor page faults per step differ between the run's processes ({each}): the allocator's "
                f"regime, not only the optimization, moved this variant's time (see README)")
    if per_step is None or per_step < FAULTS_WORTH_SAYING:
        return ""
    return f"{per_step:,.0f} minor page faults per step (fresh memory each step: an allocator regime, see README)"


def status_text(r: dict) -> tuple[str | None, str]:
    """(marker or None, note text) for the last column."""
    note = r.get("reason") or ""
    if r.get("verification") in ("failed", "passed", "not_judged") and r.get("verification_message"):
        note = f"verification: {r['verification_message']}" + (f"; {note}" if note else "")
    for extra in (smi_text(r.get("nvidia_smi")), faults_text(r.get("minor_faults_per_step"), r.get("process_faults"))):
        if extra:
            note = f"{note}; {extra}" if note else extra
    return r.get("marker"), note


def speedup_cell(r: dict, say_basis: bool) -> str:
    """The comparison's one estimate and interval (tables._estimate_fields): '3.5× [3.1,
    3.9] (8 processes: 3.2–3.8× each)'; a ratio without an interval says why (too few
    rounds, or none recorded). say_basis: name the basis of a within-process interval too."""
    if r.get("role") == "baseline" and r["speedup"] == 1.0:
        return "1×"
    if not is_num(r["speedup"]):
        return DASH
    if not (is_num(r["ci_low"]) and is_num(r["ci_high"])):
        if r.get("below_floor") and r.get("ci_unit") != PROCESS:
            return fmt_no_ci(r["speedup"], r["rounds"])
        return f"{fmt_speedup(r['speedup'])} ({r.get('basis_text') or 'one process'}, no CI)"
    text = fmt_speedup(r["speedup"], r["ci_low"], r["ci_high"])
    if r.get("ci_unit") == PROCESS or say_basis:
        text += f" ({r.get('basis_text') or 'one process'})"
    return text


def experiment_cells(t: dict, r: dict) -> list[str]:
    variant = r["variant"] or DASH
    if r.get("role") in ("baseline", "reference"):
        variant += f" ({r['role']})"
    if t["kind"] == "items":
        thr = fmt_items(r["throughput"], r["item_name"])
    else:
        thr = fmt_rate(r["throughput"], t["divisor"])
    cells = [r["case"] or DASH, variant, fmt_time(r["median_s"]), fmt_time(r["iqr_s"]),
             str(r["n"]) if is_num(r["n"]) else DASH, thr]
    if t["has_items"]:
        cells.append(fmt_items(r["items_per_s"], r["item_name"]))
    cells.append(speedup_cell(r, t.get("has_processes", False)))
    if t.get("has_why"):
        cells.append(r.get("why") or DASH)
    if t["has_peak"]:
        cells.append(f"{fmt_pct(r['pct_peak'])} of {r['peak_label']}" if is_num(r["pct_peak"]) else DASH)
    cells.append(verification_cell(r))
    mem = fmt_bytes(r["peak_allocated_bytes"])
    if is_num(r["peak_reserved_bytes"]) and r["peak_reserved_bytes"] != r["peak_allocated_bytes"]:
        mem += f" (reserved {fmt_bytes(r['peak_reserved_bytes'])})"
    cells.append(mem)
    marker, note = status_text(r)
    cells.append(f"{marker}: {note}" if marker and note else (marker or note or "ok"))
    return cells


CLAIM_HEADERS = ["claim", "technique", "claimed", "case used", "measured speedup (one case, or geometric mean over cases)",
                 "verdict", "why", "shown beside (not in the verdict)"]
SOURCES_FILE = "report/sources.md"  # carries every quoted excerpt, inside the project


def run_line(doc: dict) -> str:
    """The run in one line above the summary: device, LibTorch, profile, date (the
    environment table under 'Run' has the rest)."""
    env = dict(environment_lines(doc))
    return "; ".join(f"{k} {env[k]}" for k in ("device", "libtorch", "profile", "date") if env.get(k))


def _cases_used(cr: ClaimResult) -> str:
    if not cr.evidence:
        return DASH
    if len(cr.evidence) <= 2:
        return "; ".join(e.label for e in cr.evidence)
    names = [f"{e.experiment}/{e.case}" for e in cr.evidence]
    return f"{len(names)} cases: " + ", ".join(names[:3]) + (", …" if len(names) > 3 else "")


def _measured(cr: ClaimResult) -> str:
    """The claim's one printed estimate (ClaimResult.text: the figure and interval the
    summary, the verdict and the experiment tables show), never a second one."""
    return cr.text if cr.estimate is not None else DASH


def claim_cells(cr: ClaimResult) -> list[str]:
    measured = _measured(cr)
    beside = "; ".join(f"{b.label}: {b.text}" for b in cr.beside) or DASH
    return [cr.claim["id"], cr.claim.get("technique", ""), cr.claimed, _cases_used(cr), measured,
            cr.verdict.verdict, cr.verdict.why, beside]


def claim_details(cr: ClaimResult) -> dict:
    """What the report says under the table for one claim: every case used with its
    speedup, why those cases, what is shown beside, and the quote with its source
    (a document and section whose excerpt ships in SOURCES_FILE)."""
    c = cr.claim
    used = [f"{e.label}: {e.text}" for e in cr.evidence]
    return {"id": c["id"], "note": c.get("note", ""), "used": used, "why": cr.why,
            "beside": [f"{b.label}: {b.text}" for b in cr.beside], "quote": str(c.get("quote", "")).strip(),
            "source": f"{cr.source} (excerpt in {SOURCES_FILE})" if cr.source else ""}


def environment_lines(doc: dict) -> list[tuple[str, str]]:
    env = doc.get("environment", {})
    cfg = doc.get("config", {})
    dev = device_name(doc)
    spec = match_gpu(gpu_name(doc)) if env.get("device") == "cuda" else None
    if spec:
        dev += f" (datasheet: {spec['name']})"
    elif env.get("device") == "cuda":
        dev += " (no datasheet entry: no % of peak from the spec table)"
    git = env.get("git", {})
    sha = (git.get("sha") or "unknown")[:12] + (" (dirty)" if git.get("dirty") else "")
    lines = [
        ("run status", str(doc.get("status"))),
        ("date", str(env.get("date", ""))),
        ("device", f"{env.get('device', '?')}: {dev}"),
        ("optbench", f"{env.get('optbench_version', '?')}, git {sha}"),
        ("libtorch", str(env.get("libtorch", {}).get("version", "?"))),
        ("host", f"{env.get('host', '?')}, {env.get('os', {}).get('name', '?')}"),
        ("profile", f"{cfg.get('profile', '?')}, filter {cfg.get('filter', '')!r}"),
        ("command", str(env.get("command_line", ""))),
    ]
    cuda = env.get("cuda")
    if isinstance(cuda, dict):
        lines.insert(3, ("CUDA", f"runtime {cuda.get('cuda_runtime')}, cuDNN {cuda.get('cudnn')}, "
                                 f"{cuda.get('device_count')} device(s)"))
    return lines


def run_warning(doc: dict) -> str | None:
    st = doc.get("status")
    if st == "interrupted":
        return "This run was interrupted: some experiments or cases are missing or partial."
    if st == "running":
        return "This file was written while the run was still going (it did not finish): results are partial."
    return None


def gbench_table(doc: dict) -> tuple[list[str], list[list[str]]]:
    """Headers and cells for a Google Benchmark file: one row per benchmark run."""
    from .gbench import rows as gbench_rows

    rows = gbench_rows(doc)
    counters = sorted({k for r in rows for k in r["counters"]}, key=lambda k: (not k.endswith("/s"), k))
    headers = ["benchmark", "real time", "CPU time", "iterations", *counters, "status"]
    out = []
    for r in rows:
        its = r["iterations"]
        out.append([r["name"], fmt_time(r["real_s"]), fmt_time(r["cpu_s"]),
                    str(its) if is_num(its) else DASH,
                    *[sig(r["counters"][k]) if k in r["counters"] else DASH for k in counters],
                    f"ERROR: {r['error']}" if r["error"] else "ok"])
    return headers, out
