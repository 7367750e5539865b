"""Datasheet peaks (gpu_specs.json): the entry for a GPU's name, and the peak a measured
throughput is normalised to."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..load.document import Case, Variant

SPECS_PATH = Path(__file__).resolve().parent / "gpu_specs.json"
FLOP_KINDS = ("fp32", "tf32", "fp16", "bf16")


@functools.lru_cache(maxsize=1)
def load_specs() -> tuple:
    with open(SPECS_PATH, encoding="utf-8") as f:
        return tuple(json.load(f)["gpus"])


def match_gpu(name: str | None) -> dict | None:
    """The datasheet entry for a CUDA device name ('NVIDIA H100 80GB HBM3' -> H100 SXM5), or None."""
    if not name:
        return None
    for spec in load_specs():
        if re.search(spec["match"], name, re.IGNORECASE):
            return spec
    return None


def peak_kind(case: Case, variant: Variant, kind: str) -> str | None:
    """Which datasheet figure applies: fp32/tf32/fp16/bf16 for FLOP rates (from
    notes.peak_kind, else the variant's params.precision, else the case's), host_link
    or memory for bytes."""
    pk = case.noted_peak_kind
    if kind == "flops":
        if pk in FLOP_KINDS:
            return pk
        if variant.params.get("precision") in FLOP_KINDS:
            return variant.params["precision"]
        text = str(case.params.get("precision", "")).lower()  # the case's words: 'amp_bf16', 'fp32, TF32 off'
        for k in ("bf16", "fp16", "tf32"):
            if k in text:
                return k
        if "half" in text:
            return "fp16"
        return "fp32"
    if kind == "bytes":
        return "host_link" if pk == "host_link" else "memory"
    return None


def peak_for(case: Case, variant: Variant, kind: str, spec: dict | None) -> tuple[float, str] | None:
    """(peak in units per second, label) for this variant's throughput kind, or None.
    A peak the harness measured or read for the case (notes.peak_flops_per_s,
    notes.link_bytes_per_s) wins over the datasheet."""
    if kind == "flops" and _pos(case.noted_peak_flops_per_s):
        return float(case.noted_peak_flops_per_s), "device peak (notes)"
    if kind == "bytes" and _pos(case.noted_link_bytes_per_s):
        return float(case.noted_link_bytes_per_s), "link (notes)"
    if spec is None:
        return None
    pk = peak_kind(case, variant, kind)
    if pk in FLOP_KINDS:
        v = spec.get(f"{pk}_tflops")
        return (v * 1e12, f"{pk} {spec['name']}") if _pos(v) else None
    if pk == "host_link":
        v = spec.get("host_link_gb_per_s")
        return (v * 1e9, f"{spec.get('host_link', 'host link')}") if _pos(v) else None
    if pk == "memory":
        v = spec.get("memory_gb_per_s")
        return (v * 1e9, f"memory {spec['name']}") if _pos(v) else None
    return None


def _pos(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0
