"""Schema-valid synthetic results documents for tests, built from given samples. Like
a file the report loads, a document gets the variant params its variants' names stood
for in the harness's earlier versions (report/load/versions.py), unless migrate=False."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
from scipy import stats as sp_stats

from report.load.versions import upgrade
from report.statistics.stats import median_ci

H100 = "NVIDIA H100 80GB HBM3"
A100 = "NVIDIA A100-SXM4-80GB"


def lognormal(median: float, sigma: float, n: int, seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    return [float(x) for x in median * np.exp(rng.normal(0.0, sigma, n))]


def summary(xs: list[float]) -> dict | None:
    if not xs:
        return None
    a = np.asarray(xs, dtype=float)
    q1, med, q3 = (float(v) for v in np.percentile(a, [25, 50, 75]))
    return {
        "n": len(xs),
        "median": med,
        "q1": q1,
        "q3": q3,
        "iqr": q3 - q1,
        "min": float(a.min()),
        "max": float(a.max()),
        "mean": float(a.mean()),
    }


def variant(
    name: str,
    samples: list[float],
    role: str = "optimized",
    status: str = "ok",
    units: dict | None = None,
    memory: int | None = None,
) -> dict:
    stats = summary(samples) if status == "ok" else None
    thr = {}
    if stats and units:
        for unit, key in (("bytes", "bytes_per_s"), ("flops", "flops_per_s"), ("items", "items_per_s")):
            if units.get(unit):
                thr[key] = units[unit] / stats["median"]
    v = {
        "name": name,
        "role": role,
        "status": status,
        "first_run_s": 0.01,
        "warmup": {"iters": 3, "seconds": 0.01, "stable": True},
        "iters_per_sample": 1,
        "samples": {"host_s": list(samples) if status == "ok" else [], "device_s": None, "sm_clock_mhz": None},
        "stats": stats,
        "throughput": thr,
        "memory": {"peak_allocated_bytes": memory, "peak_reserved_bytes": memory} if memory else None,
    }
    if status != "ok":
        v["error"] = "CUDA out of memory" if status == "oom" else "something broke"
    return v


def case(
    name: str,
    variants: list[tuple],
    params: dict | None = None,
    units: dict | None = None,
    notes: dict | None = None,
    status: str = "ok",
    verification: str = "passed",
    roles: dict | None = None,
    variant_status: dict | None = None,
    processes: int | None = None,
) -> dict:
    """variants: [(name, samples), ...]; the first is the baseline. processes=K (K >= 3):
    measured in K processes, as the standard profile records it (in_processes)."""
    if status in ("skipped", "failed"):
        return {"name": name, "params": params or {}, "status": status, "reason": f"case {status} on purpose"}
    units = units or {"bytes": 0.0, "flops": 0.0, "items": 32.0, "item_name": "samples"}
    roles = roles or {}
    variant_status = variant_status or {}
    vs = []
    for i, (vname, samples) in enumerate(variants):
        role = "baseline" if i == 0 else roles.get(vname, "optimized")
        vs.append(variant(vname, samples, role, variant_status.get(vname, "ok"), units))
    comps = []
    base = vs[0]
    for v in vs[1:]:
        cm = {
            "baseline": base["name"],
            "variant": v["name"],
            "speedup": None,
            "ci_low": None,
            "ci_high": None,
            "confidence": 0.95,
            "paired": False,
            "verification": {"status": verification},
        }
        if v["status"] == "ok" and base["status"] == "ok":
            b, x = base["samples"]["host_s"], v["samples"]["host_s"]
            cm["rounds"] = min(len(b), len(x))
            # The harness's estimator: the median of per-round ratios with its order-statistic CI,
            # whatever the rounds, as files from before the rounds floor wrote one (one round:
            # [min, max] is the point itself).
            cm["speedup"], cm["ci_low"], cm["ci_high"] = median_ci([p / q for p, q in zip(b, x)])
            cm.update(paired=True, estimator="median of per-round ratios, order-statistic CI")
        comps.append(cm)
    # One sample per variant per round: the rounds are the fewest samples of a variant that ran.
    rounds = min((len(v["samples"]["host_s"]) for v in vs if v["status"] == "ok"), default=0)
    c = {
        "name": name,
        "params": params or {},
        "status": status,
        "timing_mode": "sync",
        "primary_metric": "host_s",
        "units": units,
        "stop_reason": "precision",
        "rounds": rounds,
        "variants": vs,
        "comparisons": comps,
    }
    if notes:
        c["notes"] = notes
    if status == "interrupted":
        c["reason"] = "interrupted by the user"
    if processes is not None:
        in_processes(c, processes)
    return c


def in_processes(c: dict, processes: int) -> dict:
    """The case as a run of `processes` processes records it (harness/two_level.h): each
    comparison with a ratio gets the further processes' ratios ("repeats") and its one
    estimate ("estimate", unit process: their geometric mean and Student's t interval,
    df = processes - 1). The figures a test intends stay: the first process is the
    comparison's own ratio and the geometric mean, and the further ones scatter about it
    in log by zero-mean offsets (0, -d, +d, -2d, +2d, ...; the signs flipped from one
    comparison to the next) sized so the t interval is as wide, in log, as the first
    process's own interval. Rewrites the case in place and returns it."""
    if processes < 3:
        raise ValueError("in_processes: at least 3 processes (the standard profile's least)")
    # zero-mean offsets in log, the first process's 0 (an even count: a second 0)
    steps = [0.0] * (1 + (processes % 2 == 0))
    for j in range(1, (processes - 1) // 2 + 1):
        steps += [-float(j), float(j)]
    sd = math.sqrt(sum(x * x for x in steps) / (processes - 1))
    z = [x / sd for x in steps]
    for i, cm in enumerate(c.get("comparisons") or []):
        s, lo, hi = cm.get("speedup"), cm.get("ci_low"), cm.get("ci_high")
        if s is None:
            continue
        half = (math.log(hi) - math.log(lo)) / 2.0 if lo and hi else 0.0
        conf = cm.get("confidence") or 0.95
        t = float(sp_stats.t.ppf(0.5 + conf / 2.0, processes - 1))
        sigma = half * math.sqrt(processes) / t
        sign = -1.0 if i % 2 else 1.0
        ratios = [s * math.exp(sign * sigma * x) for x in z]
        cm["repeats"] = [
            {
                "process": k,
                "rounds": cm.get("rounds"),
                "speedup": r,
                **({"ci_low": lo * r / s, "ci_high": hi * r / s} if lo and hi else {}),
            }
            for k, r in enumerate(ratios[1:], start=1)
        ]
        logs = [math.log(r) for r in ratios]
        g = math.exp(sum(logs) / processes)
        h = t * math.sqrt(sum((x - math.log(g)) ** 2 for x in logs) / (processes - 1)) / math.sqrt(processes)
        cm["estimate"] = {
            "speedup": g,
            "ci_low": g * math.exp(-h),
            "ci_high": g * math.exp(h),
            "confidence": conf,
            "unit": "process",
            "n": processes,
            "df": processes - 1,
        }
    return c


def experiment(
    name: str, cases: list[dict], claims: list[str] | None = None, status: str = "ok", reason: str | None = None
) -> dict:
    e = {
        "name": name,
        "title": f"{name} title",
        "optimization": f"{name} optimization",
        "claims": claims or [],
        "description": "synthetic",
        "devices": ["cpu", "cuda"],
        "status": status,
        "cases": cases,
    }
    if reason:
        e["reason"] = reason
    return e


def document(
    experiments: list[dict],
    gpu: str | None = None,
    cpu_model: str = "Test CPU 9000",
    status: str = "complete",
    migrate: bool = True,
) -> dict:
    device = "cuda" if gpu else "cpu"
    cuda = None
    if gpu:
        cuda = {
            "cuda_runtime": "12.4",
            "cuda_driver_api": "12.4",
            "cudnn": "9.1",
            "nccl": "2.21",
            "device_count": 1,
            "gpus": [
                {
                    "index": 0,
                    "name": gpu,
                    "compute_capability": "9.0",
                    "sm_count": 132,
                    "memory_bytes": 85899345920,
                    "l2_cache_bytes": 52428800,
                    "nvml": {"available": False},
                }
            ],
        }
    doc = {
        "schema": "optbench-results",
        "schema_version": 1,
        "status": status,
        "environment": {
            "date": "2025-01-01T00:00:00Z",
            "optbench_version": "0.1.0",
            "git": {"sha": "0123456789abcdef", "dirty": False},
            "command_line": "optbench run --synthetic",
            "host": "testhost",
            "os": {"name": "Debian", "kernel": "Linux", "arch": "x86_64"},
            "cpu": {"model": cpu_model, "logical_cores": 2, "torch_threads": 1},
            "libtorch": {"version": "2.4.0", "cuda": bool(gpu)},
            "device": device,
            "numerics": {
                "tf32_matmul": False,
                "tf32_cudnn": True,
                "cudnn_benchmark": False,
                "cudnn_deterministic": False,
                "deterministic_algorithms": False,
            },
            "cuda": cuda,
            "nvml": {"available": False},
        },
        "config": {
            "device": device,
            "profile": "quick",
            "filter": ".*",
            "time_budget_s": None,
            "measure": {
                "warmup_min_s": 0.05,
                "warmup_max_s": 0.5,
                "target_sample_s": 0.001,
                "interleave": "random",
                "seed": 42,
                "bootstrap_resamples": 2000,
                "stopping": {
                    "min_samples": 5,
                    "min_time_s": 0.1,
                    "max_time_s": 1.5,
                    "max_samples": 100000,
                    "target_rel_ci": 0.05,
                    "confidence": 0.95,
                },
            },
        },
        "experiments": experiments,
    }
    return upgrade(doc) if migrate else doc


def simple_doc(samples_base: list[float], samples_opt: list[float], gpu: str | None = H100) -> dict:
    """One experiment, one case, baseline + one optimized variant."""
    return document([experiment("toy", [case("c1", [("base", samples_base), ("opt", samples_opt)])])], gpu=gpu)


def write(path: Path, doc: dict) -> Path:
    path.write_text(json.dumps(doc, indent=1))
    return path


def breakdown(
    categories_s: dict,
    idle_s: float,
    device: str = "cuda",
    timed_step_s: float | None = None,
    launches: float | None = None,
    tolerance: float = 0.25,
    status: str = "ok",
    reason: str | None = None,
) -> dict:
    """A variant's profiler breakdown (variants[].breakdown); per-step seconds."""
    if status != "ok":
        return {"status": status, "reason": reason or f"{status} on purpose"}
    busy = sum(categories_s.values())
    window = busy + idle_s
    timed = window if timed_step_s is None else timed_step_s
    overhead = window / timed - 1
    cuda = device == "cuda"
    compute = sum(v for k, v in categories_s.items() if not k.startswith(("memcpy", "memset")))
    return {
        "status": "ok",
        "device": device,
        "steps": 5,
        "basis": "device time of kernels, copies and memsets"
        if cuda
        else "self time of CPU operators on the stepping thread",
        "window_step_s": window,
        "timed_step_s": timed,
        "overhead": overhead,
        "tolerance": tolerance,
        "agrees": abs(overhead) <= tolerance,
        "categories_s": dict(categories_s),
        "busy_s": busy,
        "idle_s": idle_s,
        "shares": {"compute": compute / window, "non_compute": (busy - compute) / window, "idle": idle_s / window},
        "copy_overlap": None,
        "launches_per_step": launches if cuda else None,
        "host_s_per_launch": 5e-6 if cuda and launches else None,
        "host_ops_while_idle_s": idle_s / 2 if cuda else None,
        "top": [{"name": k, "category": k, "s": v, "share": v / window} for k, v in categories_s.items()],
        "other_names": [],
    }


def tile_samples(doc: dict, experiment: str, case: str, times: int, variants: list[str] | None = None) -> dict:
    """The case's variants (or those named) with each sample list repeated `times` over, in
    place: round i of every copy is round i again, so the per-round ratios and so the recorded
    speedups are the same, and a valid file of millions of samples is made from a real one."""
    c = next(c for e in doc["experiments"] if e["name"] == experiment for c in e["cases"] if c["name"] == case)
    for v in c["variants"]:
        if variants is None or v["name"] in variants:
            for key in ("host_s", "device_s"):
                if v["samples"].get(key):
                    v["samples"][key] = v["samples"][key] * times
    return doc
