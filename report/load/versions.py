"""The results format's versions, and an older file read as the current one.

Each format generation has a number (CURRENT is what the harness writes:
kSchemaVersion in harness/results_writer.h, the schema's schema_version). upgrade()
takes a file one version at a time, each step a small function in STEPS, here and
nowhere else; the rest of the report reads the current version only.

The harness wrote "schema_version": 1 through generations 1 to 4, so a file saying 1
is told by its keys, the oldest generation whose trait it shows:
  1  a training check's verification.details has *_judged flags but no "judged" list
     (before 2026-11-25);
  2  a variant of an experiment in TABLE lacks a param its name stood for
     (variants[].params, before workloads declared what a variant is, 2026-11-26);
  3  a case or comparison holds "repeats", or a comparison its "estimate" (further
     processes' records inside the first process's case, before 2026-11-28);
  4  none of these (the last generation that said 1).
From FIRST_NUMBERED on, a file says its version; one saying a version from there to
CURRENT is upgraded from it, any other number is refused (READABLE, results.py). A step
fills only what is absent, so a file taken for older than it is passes through unchanged.

Steps:
  1 -> 2  details.judged listed from the flags (JUDGED_FLAGS, in that order): the
          quantities whose <name>_judged flag is true.
  2 -> 3  each variant's params filled from the names the harness's earlier versions
          gave their variants, per experiment, in one table (TABLE): the one place in the
          report where a name stands for a meaning. It never touches a case's params,
          notes or figures, which the report shows as they were recorded.
  3 -> 4  further processes' records move to experiments[].repeats, one per process
          and case, and each comparison's estimate to experiments[].estimates, where
          the harness now writes them; the case keeps what its first process recorded.
  4 -> 5  a further process's record may carry its case's time_s. An older file's
          records cannot be given one (where that time went was not recorded); the
          record stays without it, which the format reads as "recorded nothing".
  5 -> 6  environment.cpu may carry isa (the instruction-set extensions that choose
          CPU kernels) and torch_capability (the kernel level ATen dispatched to). An
          older file's machine cannot be told after the fact (its model string names no
          generation); both stay absent, and the history fingerprint reads that as
          unknown ("-"), a series of its own."""

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


# The quantities a training check flagged as judged or not (workloads/training/verify_losses.h).
JUDGED_FLAGS = ("first_loss", "first_logits", "trace", "fit")


def _verification_details(doc: dict):
    """Every comparison's verification details (a dict) in the first process's cases."""
    for e in doc.get("experiments") or []:
        for c in (e.get("cases") or []) if isinstance(e, dict) else []:
            for cm in (c.get("comparisons") or []) if isinstance(c, dict) else []:
                ver = cm.get("verification") if isinstance(cm, dict) else None
                details = ver.get("details") if isinstance(ver, dict) else None
                if isinstance(details, dict):
                    yield details


def _flags_only(details: dict) -> bool:
    return "judged" not in details and any(f"{k}_judged" in details for k in JUDGED_FLAGS)


def _judged_list(doc: dict) -> None:
    """1 -> 2: the judged quantities listed where only their flags are recorded."""
    for d in _verification_details(doc):
        if _flags_only(d):
            d["judged"] = [k for k in JUDGED_FLAGS if d.get(f"{k}_judged") is True]


def _named_params(doc: dict) -> None:
    """2 -> 3: every variant's params its name stood for, where the variant does not record them."""
    for e in doc.get("experiments") or []:
        table = TABLE.get(str(e.get("name"))) if isinstance(e, dict) else None
        if not table:
            continue
        for c in e.get("cases") or []:
            variants = [v for v in c.get("variants") or [] if isinstance(v, dict)]
            default = _default_fp32(c, variants) if e.get("name") == "mixed_precision" else None
            for v in variants:
                params = _stood_for(e, c, v, default)
                if params:
                    _fill(v, params)


def _stood_for(e: dict, c: dict, v: dict, default: str | None) -> dict:
    """The params variant v's name stood for in experiment e (empty: the name stood for none)."""
    params = dict(TABLE.get(str(e.get("name")), {}).get(str(v.get("name", ""))) or {})
    if not params:
        return params
    if e.get("name") == "mixed_precision":
        params["default_fp32"] = v.get("name") == default
    if e.get("name") == "data_parallel" and "devices" not in params:
        params["devices"] = _devices(c, v, params.get("parallelism"))
    return params


def _repeats_out_of_cases(doc: dict) -> None:
    """3 -> 4: further processes' records out of the first process's cases."""
    for e in doc.get("experiments") or []:
        if isinstance(e, dict) and "repeats" not in e and "estimates" not in e:
            _move_repeats(e)


def _nothing_to_fill(doc: dict) -> None:
    """4 -> 5: time_s in further processes' records is new and cannot be reconstructed."""


def _isa_unknown(doc: dict) -> None:
    """5 -> 6: environment.cpu's isa and torch_capability are new and cannot be reconstructed."""


CURRENT = 6
# STEPS[v] takes a document of version v to v + 1.
STEPS = {1: _judged_list, 2: _named_params, 3: _repeats_out_of_cases, 4: _nothing_to_fill, 5: _isa_unknown}
LAST_UNNUMBERED = 4  # the newest generation whose files say 1
FIRST_NUMBERED = 5  # the first version a file says (the harness wrote 4 for a day of commits only, as today's 5)
READABLE = (1, *range(FIRST_NUMBERED, CURRENT + 1))  # the versions a file may say


def _lacks_named_params(doc: dict) -> bool:
    for e in doc.get("experiments") or []:
        if not (isinstance(e, dict) and e.get("name") in TABLE):
            continue
        for c in e.get("cases") or []:
            variants = [v for v in (c.get("variants") or []) if isinstance(v, dict)] if isinstance(c, dict) else []
            default = _default_fp32(c, variants) if e.get("name") == "mixed_precision" else None
            for v in variants:
                have = v.get("params") if isinstance(v.get("params"), dict) else {}
                wanted = {k for k, x in _stood_for(e, c, v, default).items() if x is not None}
                if not wanted <= set(have):
                    return True
    return False


def _repeats_in_cases(doc: dict) -> bool:
    for e in doc.get("experiments") or []:
        for c in (e.get("cases") or []) if isinstance(e, dict) else []:
            if not isinstance(c, dict):
                continue
            if "repeats" in c:
                return True
            if any(isinstance(cm, dict) and ("repeats" in cm or "estimate" in cm) for cm in c.get("comparisons") or []):
                return True
    return False


def version_of(doc: dict) -> int:
    """The generation of a file: its schema_version, and for one saying 1 the rule above."""
    v = doc.get("schema_version")
    if v != 1:
        return v
    if any(_flags_only(d) for d in _verification_details(doc)):
        return 1
    if _lacks_named_params(doc):
        return 2
    if _repeats_in_cases(doc):
        return 3
    return LAST_UNNUMBERED


def upgrade(doc: dict) -> dict:
    """The document as the current version writes it, one version step at a time; a
    document of the current version passes through unchanged. Returns the same dict."""
    v = version_of(doc)
    while v in STEPS:
        STEPS[v](doc)
        v += 1
    doc["schema_version"] = v
    return doc
