"""Google Benchmark JSON (from optbench_bench --benchmark_out=...): checking and table rows."""

from __future__ import annotations

from pathlib import Path

from .results import ResultsError

_TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
# Keys Google Benchmark writes for every run; everything else numeric is a user counter.
_STANDARD = {
    "name",
    "family_index",
    "per_family_instance_index",
    "run_name",
    "run_type",
    "repetitions",
    "repetition_index",
    "threads",
    "iterations",
    "real_time",
    "cpu_time",
    "time_unit",
    "aggregate_name",
    "aggregate_unit",
    "error_occurred",
    "error_message",
    "label",
}


def check_gbench(doc: object, p: Path) -> dict:
    """A usable Google Benchmark document, or ResultsError naming what is wrong."""
    if not isinstance(doc, dict) or not isinstance(doc.get("context"), dict):
        raise ResultsError(f'{p}: not a Google Benchmark file ("context" is not an object)')
    benches = doc.get("benchmarks")
    if not isinstance(benches, list):
        raise ResultsError(f'{p}: not a Google Benchmark file ("benchmarks" is not a list)')
    for i, b in enumerate(benches):
        if not isinstance(b, dict) or not isinstance(b.get("name"), str):
            raise ResultsError(f"{p}: benchmarks[{i}] has no name")
    doc["_path"] = str(p)
    return doc


def _num(v: object) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def rows(doc: dict) -> list[dict]:
    """One row per benchmark run: name, family, time in seconds, iterations, counters, error."""
    out = []
    for b in doc["benchmarks"]:
        scale = _TIME_UNITS.get(b.get("time_unit", "ns"), 1e-9)
        real, cpu = _num(b.get("real_time")), _num(b.get("cpu_time"))
        name = b["name"]
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") and not name.endswith(b["aggregate_name"]):
            name = f"{name}_{b['aggregate_name']}"
        counters = {k: float(v) for k, v in b.items() if k not in _STANDARD and _num(v) is not None}
        error = b.get("error_message") or ("error" if b.get("error_occurred") else None)
        out.append(
            {
                "name": name,
                "family": name.split("/")[0],
                "real_s": real * scale if real is not None else None,
                "cpu_s": cpu * scale if cpu is not None else None,
                "iterations": b.get("iterations"),
                "counters": counters,
                "error": error,
                "aggregate": b.get("run_type") == "aggregate",
            }
        )
    return out


def device(doc: dict) -> str:
    ctx = doc.get("context", {})
    return str(ctx.get("optbench_device") or "unknown device")
