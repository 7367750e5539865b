"""Older results files read as the current ones are written.

Variant params for files from before variants declared what they are (the
vocabulary in harness/results.schema.json, variants[].params): filled from the names
the harness's earlier versions gave their variants, per experiment, in one table.

This is the one place in the report where a name stands for a meaning. It fills only
params a variant does not record, so a file whose variants declare theirs passes
through unchanged; it never touches a case's params, notes or figures, which the
report shows as they were recorded.

Further processes' records for files from before they were records of their own
(2026-11-28): those files added them inside the first process's case ("repeats") and
comparisons ("repeats", "estimate"); they move to experiments[].repeats and
experiments[].estimates, where the harness now writes them.

Applied where files are loaded (results.py)."""

from __future__ import annotations

from .numbers import is_num

CONTIGUOUS, CHANNELS_LAST = "contiguous", "channels_last"

# experiment -> variant name -> the params that name stood for.
TABLE: dict[str, dict[str, dict]] = {
    "mixed_precision": {
        f"{name}{suffix}": {"precision": precision, "layout": layout}
        for name, precision in (("fp32", "fp32"), ("tf32", "tf32"), ("amp_fp16", "fp16"), ("amp_bf16", "bf16"))
        for suffix, layout in (("", CONTIGUOUS), ("_channels_last", CHANNELS_LAST))
    },
    "data_parallel": {
        "single_device": {"parallelism": "single", "devices": 1},
        "data_parallel": {"parallelism": "data_parallel"},
        "ddp": {"parallelism": "ddp"},
        "ddp_bucket_view": {"parallelism": "ddp"},
    },
    "cudnn_benchmark": {
        "benchmark_off": {"cudnn_benchmark": False},
        "benchmark_on": {"cudnn_benchmark": True},
        "deterministic": {"cudnn_benchmark": False},
        "nondeterministic": {"cudnn_benchmark": False},
    },
    # Every variant before the Python twins ran in optbench's C++ process.
    "torchscript": {
        "eager": {"jit": "eager", "runtime": "cpp"},
        "scripted": {"jit": "script", "runtime": "cpp"},
        "frozen_optimized": {"jit": "frozen", "runtime": "cpp"},
    },
    "fused_optimizer": {name: {"runtime": "cpp"} for name in ("per_tensor", "foreach", "fused")},
    "eval_no_grad": {
        name: {"grad_mode": name if name != "grad_enabled" else "enabled"}
        for name in ("grad_enabled", "no_grad", "inference_mode")
    },
    "persistent_workers": {
        "new_workers": {"loader": "libtorch"},
        "persistent_workers": {"loader": "libtorch"},
        "python_new_workers": {"loader": "python"},
        "python_persistent_workers": {"loader": "python"},
    },
}

CONV_MODELS = ("resnet", "conv", "cnn")  # model names of nets with convolutions


def _default_fp32(case: dict, variants: list[dict]) -> str | None:
    """The name of the variant with the FP32 a PyTorch user gets by default on a GPU:
    cuDNN may use TF32 for convolutions (the tf32 variant of a conv net), matmul may not
    (fp32 without convolutions); None where the case has no variant with those flags."""
    model = str((case.get("params") or {}).get("model", "")).lower()
    names = [str(v.get("name", "")) for v in variants]
    conv = any(w in model for w in CONV_MODELS) or any(n.endswith("_channels_last") for n in names)
    want = "tf32" if conv else "fp32"
    return want if want in names else None


def _devices(case: dict, variant: dict, parallelism: str | None) -> int | None:
    """Ranks (DDP) or devices (DataParallel) the variant ran on: what its case derived
    for it (derived.variants.NAME.devices), else the case's params (the launch's world
    size, or the GPUs DataParallel used)."""
    keys = {"ddp": ("world_size", "processes", "devices"), "data_parallel": ("gpus_used", "devices", "world_size")}.get(
        parallelism or ""
    )
    if not keys:
        return None
    derived = ((case.get("derived") or {}).get("variants") or {}).get(str(variant.get("name", ""))) or {}
    for source in (derived, case.get("params") or {}):
        for k in keys:
            if is_num(source.get(k)) and source[k] >= 1:
                return int(source[k])
    return None


def _fill(variant: dict, params: dict) -> None:
    have = variant.get("params")
    if not isinstance(have, dict):
        have = variant["params"] = {}
    for k, v in params.items():
        if k not in have and v is not None:
            have[k] = v


def _comparison_key(cm: dict) -> dict:
    return {"baseline": cm.get("baseline"), "variant": cm.get("variant")}


def _move_repeats(e: dict) -> None:
    """A file from before 2026-11-28: each case's and comparison's further processes
    become one record per process and case, and each comparison's estimate one record,
    at the experiment's level; the case keeps only what its first process recorded."""
    records: dict[tuple[int, int], dict] = {}  # (process, case's index) -> record
    estimates = []
    for i, c in enumerate(e.get("cases") or []):
        if not isinstance(c, dict):
            continue
        for r in c.pop("repeats", None) or []:
            if isinstance(r, dict) and is_num(r.get("process")):
                records[(int(r["process"]), i)] = {
                    **{k: v for k, v in r.items() if k != "process"},
                    "process": int(r["process"]),
                    "case": c.get("name"),
                    "comparisons": [],
                }
        for cm in c.get("comparisons") or []:
            if not isinstance(cm, dict):
                continue
            for r in cm.pop("repeats", None) or []:
                if not (isinstance(r, dict) and is_num(r.get("process"))):
                    continue
                key = (int(r["process"]), i)
                if key not in records:  # a process the case did not list: what its ratio says
                    ran = is_num(r.get("speedup"))
                    status = "ok" if ran else "not_run"
                    records[key] = {"process": key[0], "case": c.get("name"), "status": status, "comparisons": []}
                entry = {k: v for k, v in r.items() if k != "process"}
                records[key]["comparisons"].append({**_comparison_key(cm), **entry})
            if isinstance(cm.get("estimate"), dict):
                estimates.append({"case": c.get("name"), **_comparison_key(cm), **cm.pop("estimate")})
    if records:
        e["repeats"] = [records[k] for k in sorted(records)]
    if estimates:
        e["estimates"] = estimates


def migrate(doc: dict) -> dict:
    """Fill every variant's params its name stood for, where the variant does not record
    them, and move further processes' records out of older files' cases; returns the same
    document."""
    for e in doc.get("experiments") or []:
        if isinstance(e, dict) and "repeats" not in e and "estimates" not in e:
            _move_repeats(e)
        table = TABLE.get(str(e.get("name")))
        if not table:
            continue
        for c in e.get("cases") or []:
            variants = [v for v in c.get("variants") or [] if isinstance(v, dict)]
            default = _default_fp32(c, variants) if e.get("name") == "mixed_precision" else None
            for v in variants:
                params = dict(table.get(str(v.get("name", ""))) or {})
                if not params:
                    continue
                if e.get("name") == "mixed_precision":
                    params["default_fp32"] = v.get("name") == default
                if e.get("name") == "data_parallel" and "devices" not in params:
                    params["devices"] = _devices(c, v, params.get("parallelism"))
                _fill(v, params)
    return doc
