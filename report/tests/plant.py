"""Planting a change in a copy of a real results file, consistently: a variant's
time scaled by a factor moves its samples, its per-process medians, and every
recorded speedup it takes part in (the first process's ratio and interval, each
further process's, and a recorded estimate), so that what the gate reads (the
samples for a time, document.Comparison.estimate for a speedup) moves by the factor."""

from __future__ import annotations

import copy

RATIO_KEYS = ("speedup", "ci_low", "ci_high")


def _scale_ratio(rec: dict, by: float) -> None:
    for k in RATIO_KEYS:
        if isinstance(rec.get(k), (int, float)):
            rec[k] *= by


def scale_variant_in_place(experiment: dict, case: dict, variant: str, factor: float) -> None:
    """The variant's time times `factor` in this case of the experiment: samples, stats,
    each further process's median, and every comparison's ratio (divided by it where the
    variant is the optimization, multiplied where it is the baseline): the first
    process's, each further process's record of it and its estimate."""
    v = next(v for v in case["variants"] if v["name"] == variant)
    for metric in ("host_s", "device_s"):
        if (v.get("samples") or {}).get(metric):
            v["samples"][metric] = [x * factor for x in v["samples"][metric]]
    for k in ("median", "q1", "q3", "iqr", "min", "mean", "max"):
        if isinstance((v.get("stats") or {}).get(k), (int, float)):
            v["stats"][k] *= factor

    def by(cm: dict) -> float | None:
        return 1 / factor if cm.get("variant") == variant else factor if cm.get("baseline") == variant else None

    repeats = [r for r in experiment.get("repeats") or [] if r.get("case") == case["name"]]
    for r in repeats:
        rv = (r.get("variants") or {}).get(variant)
        if isinstance(rv, dict) and isinstance(rv.get("median_s"), (int, float)):
            rv["median_s"] *= factor
    records = [*(case.get("comparisons") or []), *(cm for r in repeats for cm in r.get("comparisons") or [])]
    records += [e for e in experiment.get("estimates") or [] if e.get("case") == case["name"]]
    for rec in records:
        if (f := by(rec)) is not None:
            _scale_ratio(rec, f)


def scaled(doc: dict, where: list[tuple[str, str, str]], factor: float) -> dict:
    """A copy of doc with each (experiment, case, variant) in `where` scaled."""
    out = copy.deepcopy(doc)
    for exp, case, variant in where:
        e = next(e for e in out["experiments"] if e["name"] == exp)
        scale_variant_in_place(e, next(c for c in e["cases"] if c["name"] == case), variant, factor)
    return out
