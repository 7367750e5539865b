"""Estimate what a run of the experiments costs on an H100 under the rounds
floor and in several processes per experiment, from the per-case costs of
earlier results files (the H100 runs in ../shared/gpu-runs/2026-11-24/, which
predate the floor and the processes, and the 2026-11-23 one committed as
report/tests/fixtures/h100_full.json.gz); and, with --session, what
scripts/gpu-session's steps cost under its deadline. An estimate, and says so: it
cannot know what changed in an experiment since a file was written.

Each experiment is measured in P processes (harness/measure_config.cpp,
harness/suite_runner.cpp): the first does everything, each further one only
builds, warms up and samples under the profile's RepeatConfig. P is the
profile's min_processes (PROCESSES: quick 1, standard 5, full 10) unless
--processes says otherwise; a run starts more, up to MAX_PROCESSES, only while
some comparison's between-process interval is wider than its target, which no
earlier file can tell, so the figure is for P and says so.

The first process, per case: the time that was not sampling (builds, warm-up,
verification, process starts) is kept; the sampling is its cost per round times
the rounds the case would get now: at least the floor (6), the rounds it had
where it stopped on precision, and no more than the profile's cap allows
(CAP_S: quick 1.5 s of sampling, standard 2 s, full 10 s; never below the
floor). A case comes from files of the profile asked for where one has it, else
from any. The warm-up is kept as the file had it (full's longer one is not
modelled).

A further process, per case (repeat_case): its builds (the file's time_s.build
and .other where it splits the case's time; else everything outside sampling and
warm-up, an upper bound, or for the training checks fit_build_cost's bound),
each variant's warm-up as harness/warmup.cpp takes it in a fresh process (the
first step as the file's, then timed steps to the repeat's warm-up minimum, three
of them, and never past its maximum after the first timed one), and the
repeat's rounds at the case's cost per round: max(min rounds, rounds to its
min_time), capped at its max_time unless the floor's 6 rounds need more. A
process that has not met the repeat's precision target by then samples on to
the cap: not modelled, so for a noisy case the figure is low. Plus one
EXPERIMENT_PROCESS_S per process.

dataloader cases are rescaled to the current experiment's windows
(--dataloader-scale: the share of the old per-image cost one image costs now,
0.25 for a quarter of the pixels). Added to the first process, where a file
predates it:
- the training checks' fit: --fit-steps steps per variant at its timed step
  time (9, its most, by default: on a GPU nobody has yet seen where a
  baseline's fit ends), and the fresh build of the model each variant's fit
  starts from (fit_build_cost);
- the extra fresh processes a cold first step is taken in where a case derives
  from one (1 in quick, 2 in standard, 3 in full: the extra ones per variant);
- a cold AOTInductor compile (and export), which runs while the experiment
  makes its cases, outside every case's time, on a machine whose cache is
  empty: the figures are the case's own notes (printed apart as "of which
  once": a later run on that machine finds the packages in its cache);
- its child process (EXPERIMENT_PROCESS_S), as each further process pays its own;
- with --breakdown (or a session step that passes --breakdown on), the
  profiled windows.
Experiments no GPU file has (fused_optimizer, persistent_workers,
storage_reads) are bounded from a CPU file: see GPU_WORK_RATIO.

  python3 scripts/lib/estimate_wall.py FILE... [--profile quick|standard|full] [--processes N] [--skip REGEX]
  python3 scripts/lib/estimate_wall.py --session FILE... [--markdown]

--skip leaves out the cases ("experiment/case") and dataloader variants
("experiment/case/variant") a profile no longer runs; by default what the profile
leaves out (LEAVES_OUT).

Not modelled, so the figures are upper bounds for the current runner: further
processes repeat only the comparisons a claim's verdict reads (harness/
claimed_comparisons.h), here every case; the profiled windows run in a profiling
process of their own, here in the first (with --breakdown). --session reads the plan from `scripts/gpu-session --plan`,
gives each step the budget the session would (OPTBENCH_SESSION_S,
OPTBENCH_SESSION_EACH_ALONE) and prints per step min(budget, estimated cost)
(plus OVERRUN_S for a run step) and what it is expected to cover.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import math
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]


def optbench_binary() -> Path:
    """The optbench whose `model` is read: $OPTBENCH_BIN, else the build folder's."""
    if os.environ.get("OPTBENCH_BIN"):
        return Path(os.environ["OPTBENCH_BIN"])
    dirs = [os.environ["OPTBENCH_BUILD_DIR"]] if os.environ.get("OPTBENCH_BUILD_DIR") else []
    for d in dirs + [str(ROOT / "build" / "cuda"), str(ROOT / "build" / "cpu")]:
        if (Path(d) / "optbench").is_file():
            return Path(d) / "optbench"
    sys.exit(
        "estimate_wall: no optbench built here (build/cuda or build/cpu); build it (scripts/run, scripts/test) "
        "or name it in OPTBENCH_BIN: its `optbench model` is what this estimate plans by"
    )


def load_model() -> dict:
    """Each profile's settings and the budget gate's constants, as the binary has them
    (`optbench model`, harness/cost_model.h): one fact, one place."""
    binary = optbench_binary()
    try:
        out = subprocess.run([str(binary), "model"], capture_output=True, text=True, check=True, timeout=120).stdout
        return json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        sys.exit(f"estimate_wall: cannot read `{binary} model`: {e}")


MODEL = load_model()
_MEASURE = {p: v["measure"] for p, v in MODEL["profiles"].items()}
# The rounds floor (harness/stats.cpp, min_samples_for the run's confidence).
FLOOR = MODEL["profiles"]["standard"]["rounds_floor"]
# The first process's sampling cap per case (MeasureConfig stopping.max_time_s).
CAP_S = {p: m["stopping"]["max_time_s"] for p, m in _MEASURE.items()}
COLD_PROCESSES = {p: m["cold_processes"] for p, m in _MEASURE.items()}
# Processes per experiment: min_processes, which a run always measures, and
# `processes`, the most it starts while a comparison's between-process interval
# is wider than process_target_rel_ci.
PROCESSES = {p: m["min_processes"] for p, m in _MEASURE.items()}
MAX_PROCESSES = {p: m["processes"] for p, m in _MEASURE.items()}
# MeasureConfig::process_time_share: the further processes together take at most
# this share of the first pass's time (an explicit `optbench run --processes N`,
# like this script's --processes, lifts it); None where a profile has no further
# process.
TIME_SHARE = {p: m["process_time_share"] if m["processes"] > 1 else None for p, m in _MEASURE.items()}


class Repeat(NamedTuple):
    """A further process's stopping and warm-up (MeasureConfig::repeat)."""

    min_rounds: int
    min_time_s: float
    max_time_s: float
    warmup_min_s: float
    warmup_max_s: float


REPEAT = {
    p: Repeat(
        m["repeat"]["stopping"]["min_samples"],
        m["repeat"]["stopping"]["min_time_s"],
        m["repeat"]["stopping"]["max_time_s"],
        m["repeat"]["warmup_min_s"],
        m["repeat"]["warmup_max_s"],
    )
    for p, m in _MEASURE.items()
}
# A fresh process on a GPU, as the budget gate counts one (a cold first step's
# process): a CUDA context made and cuDNN and cuBLAS opened (harness/budget_plan.cpp
# says from which measurements).
PROCESS_START_S = MODEL["budget"]["cuda_process_start_s"]
# Experiments verified by workloads/training/verify_losses.h, whose fit each
# variant runs once.
FIT_EXPERIMENTS = {"mixed_precision", "batch_size", "cudnn_benchmark"}
# Each experiment runs in a child `optbench run` (crash isolation, since
# e998cef; the H100 files predate it, and no file's case times hold it), and so
# does each of its further processes: LibTorch loaded, a CUDA context made and the
# experiment's libraries opened once more per process, a fresh process as above.
EXPERIMENT_PROCESS_S = PROCESS_START_S
# What --quick leaves out on a GPU, as "experiment/case[/variant]" (the sources
# say so: aligned_dims, aot_inductor, cudnn_benchmark, dataloader and
# pinned_memory's cases(); `optbench list`), for files of other profiles.
QUICK_LEAVES_OUT = (
    r"aligned_dims/matmul_\w+_(4097|4100)_vs_4096|aot_inductor/convnet_b1_224px|"
    r"cudnn_benchmark/(new_shape_every_step_b16|fixed_shape_b64_224)|dataloader/pin.*|"
    r"dataloader/workers/workers_(1|2|8)(_data_only)?|"
    r"dataloader/prefetch_w4/prefetch_(2|4)(_data_only)?|pinned_memory/(h2d|d2h)_(4|64)MiB"
)
# What the standard profile leaves out (workloads/cudnn_benchmark.cpp: no claim's
# verdict reads it, and its autotuning at every new shape was the largest share).
STANDARD_LEAVES_OUT = r"cudnn_benchmark/new_shape_every_step_b16"
LEAVES_OUT = {"quick": QUICK_LEAVES_OUT, "standard": STANDARD_LEAVES_OUT, "full": None}
# Experiments no GPU has run, bounded from a CPU file: its cases' time outside
# sampling and per round times how much more work the GPU configuration does
# (workloads/*.cpp), as if the H100 machine did each unit no faster than the
# 2-core CI VM: an upper bound, since its GPU does the device work far faster
# and its host has 16 cores. Keys: regexes over the CPU file's "experiment/case".
GPU_WORK_RATIO = {
    # Two 4096^2 tensors against the CPU's 2048^2: 4x the bytes, streamed from
    # HBM (~3 TB/s) rather than the VM's memory (23 GB/s in the CPU file).
    r"fused_optimizer/optimizer_step_two_linear.*": 1.0,
    # The MLP's 64 layers against 32: twice the tensors, each op a kernel launch
    # (~5 us) where the VM takes ~2 us (1.06 ms for 66 tensors x ~8 AdamW ops).
    r"fused_optimizer/.*": 8.0,
    # Host work only, the same on any device; 4 workers (cores, at most 4)
    # against the VM's 2: twice the starts per epoch.
    r"persistent_workers/.*": 2.0,
    # 1024 files against 256, and 4x the pixels to decode (128/112 px against
    # 64/56); ResNet-50's step per image on an H100 (~0.07 ms at 112 px: a quarter of
    # dataloader's no-loader 0.27 ms at 224 px) is below the VM's whole cost per
    # image (0.23 ms). From the H100 dataloader files instead, an epoch is about
    # 11x the CPU's (0.55 ms decode + 0.07 ms step per image).
    r"storage_reads/.*": 16.0,
}
# The product's own figures: CUPTI's set-up on a GPU, once per process, and a
# window budgeted at this factor times window_plan.cpp's estimate (no case of
# results/..._breakdown.json spent more than 1.82x it profiling).
CUPTI_SETUP_S = MODEL["budget"]["cupti_setup_s"]
PROFILE_COST_FACTOR = MODEL["budget"]["window_estimate_factor"]

# Session steps that are not optbench runs, and the session's fixed parts.
# Set-up (python3 and torch checks, the bundle unpacked, CMake configure), at
# most: 2026-11-24's session took 352 s (its README), less its build (128 s),
# ctest (154.6 s, gpu_session_gpu_tests.log), the quick run's aligned_dims (9.7 s,
# gpu_session_quick_crashed.json) and the matmul check's 6 x 2 x 1 s of timing.
# (The checks alone, to where they stopped: 12 s, gpu_session_first_try.log.)
SETUP_S = 48
# Every target, 2026-11-24 (fe4aafa, 90 translation units). The session builds
# optbench, optbench_gpu_tests and optbench_bench only (85 units now): an upper
# bound if a unit costs what it did.
BUILD_S = 128
# ctest -L gpu -E each_alone_gpu: five tests took 5.71 s on 2026-11-24; the sixth
# (NvidiaSmiFiguresAreRecordedPerVariant, added since) at the slowest's 1.47 s; the
# seventh (AProfiledWindowLeavesLaunchBoundStepsAsFastAsBefore) at that plus CUPTI's
# set-up (the budget's cupti_setup_s, 1 s).
GPU_TESTS_S = 7.2 + 1.47 + 1.0
# each_alone_gpu: 148.9 s for 16 experiments on 2026-11-24; 19 now.
EACH_ALONE_S = 177
# check_matmul.py: 6 rounds x 2 timers x 1 s, and each round a fresh process
# per timer: a benchmark process (EXPERIMENT_PROCESS_S) and a Python importing
# torch and making a CUDA context (~5 s; a Python twin with CUDA starts in 3-5 s).
MATMUL_CHECK_S = 6 * 2 * 1.0 + 6 * EXPERIMENT_PROCESS_S + 6 * 5
# tests/libstdcxx_bindings.sh on three binaries: 4 s on the 2-core CI VM
# (gpu_session_cpu, 2026-11-27); LD_DEBUG's logging is host work, so no faster there.
BINDINGS_S = 4
STEP_COST_S = {
    "bindings": BINDINGS_S,
    "gpu_tests": GPU_TESTS_S,
    "each_alone": EACH_ALONE_S,
    "matmul_check": MATMUL_CHECK_S,
}
# What a run step may take past its --time-budget: one sample (the longest in
# these steps is a dataloader or storage_reads window, ~1.6 s at today's
# windows) and the run's own process start and exit (<= 1.7 s, as above).
OVERRUN_S = 4.0
# The session's rule that --plan does not print: each_alone runs, and is
# reserved, only with OPTBENCH_SESSION_EACH_ALONE=1.
EACH_ALONE_STEP = "each_alone"
GPU_SESSION = Path(__file__).resolve().parents[1] / "gpu-session"
SESSION_S = 540  # scripts/gpu-session's default OPTBENCH_SESSION_S


def step_s(v: dict) -> float:
    """A variant's median step: stats are per iteration (a round costs the sum
    of median x iters_per_sample)."""
    return (v.get("stats") or {}).get("median") or 0.0


def ok_variants(case: dict) -> list[dict]:
    return [v for v in case.get("variants") or [] if v.get("status") == "ok" and step_s(v)]


def fit_cost(case: dict, steps: int) -> float:
    """Seconds the fit adds to a case: `steps` steps of every variant that ran.
    The fit runs one batch, so where the timed steps change shape (and
    cudnn.benchmark autotunes each), every variant is counted at the case's
    fastest step."""
    steps_s = [step_s(v) for v in ok_variants(case)]
    if "new" in str((case.get("params") or {}).get("shape", "")):
        steps_s = [min(steps_s)] * len(steps_s) if steps_s else []
    return steps * sum(steps_s)


def fit_build_cost(case: dict) -> float:
    """The fresh model each variant's fit starts from (TrainStep::run_fresh
    builds one per call). Before the fit, a training case built 2n+1 models
    (each variant's timed one and its trace's, and the float64 reference), so
    its time outside sampling and warm-up bounds one build at 1/(2n+1) of it."""
    vs = ok_variants(case)
    if not vs or case.get("wall_s") is None or case.get("sampling_s") is None:
        return 0.0
    warmup = sum((v.get("warmup") or {}).get("seconds") or 0.0 for v in case.get("variants") or [])
    rest = max(0.0, case["wall_s"] - case["sampling_s"] - warmup)
    return len(vs) * rest / (2 * len(vs) + 1)


def dataloader_round(case: dict, images: int, scale: float, kept) -> tuple[float, float]:
    """(old, new) cost of one round: every variant's window, old as timed, new as
    `images` images at `scale` of the old per-image time (the variants `kept`)."""
    old = new = 0.0
    for v in case.get("variants") or []:
        rate = (v.get("throughput") or {}).get("items_per_s")
        window = (v.get("metrics") or {}).get("window_batches")
        batch = (v.get("metrics") or {}).get("batch") or (case.get("params") or {}).get("batch")
        if not rate or not window or not batch:
            continue
        old += window * batch / rate
        if kept(v.get("name", "")):
            new += images * scale / rate
    return old, new


def cold_cost(case: dict, extra_processes: int) -> float:
    """Seconds the extra cold-first-step processes add to a case that derives from
    its cold first steps (derived.first_steps 'cold...'), where the file took none."""
    derived = case.get("derived") or {}
    if not str(derived.get("first_steps", "")).startswith("cold") or "first_step_processes" in derived:
        return 0.0
    per_process = 0.0
    for v in case.get("variants") or []:
        first = v.get("first_run_s")
        if v.get("status") == "ok" and first:
            per_process += PROCESS_START_S + first + step_s(v)
    return extra_processes * per_process


def first_run_only(e: str, case: dict) -> float:
    """What of a case's first-process cost only a machine's first run pays: an
    AOTInductor case's cold compile and export; 0 for every other case."""
    return aoti_compile_cost(case) if e == "aot_inductor" else 0.0


def aoti_compile_cost(case: dict) -> float:
    """A cold AOTInductor compile and export (the case's notes), made while the
    experiment builds its cases: in no case's wall. A package the cache had
    costs nothing; a bare machine's cache is empty."""
    notes = case.get("notes") or {}
    if notes.get("cache") == "hit":
        return 0.0
    return (notes.get("compile_s") or 0.0) + (notes.get("export_s") or 0.0)


def window_cost(step: float) -> float:
    """One variant's profiled window as harness/profiling/window_plan.cpp plans it
    under --breakdown on: ~50 ms of steps (1 to 20), a warm step before a short one."""
    step = max(step, 1e-7)
    steps = min(max(math.ceil(0.05 / step), 1), 20)
    return (steps + (1 if step < 0.05 else 0)) * step * 1.5 + 0.02


def breakdown_cost(case: dict) -> float:
    """Every variant profiled for a window sized on the case's slowest step."""
    vs = ok_variants(case)
    if not vs:
        return 0.0
    return PROFILE_COST_FACTOR * len(vs) * window_cost(max(step_s(v) for v in vs))


def estimate_case(
    e: str, c: dict, profile: str, images: int, scale: float, skip, fit_steps: int = 0, breakdown: bool = False
) -> float | None:
    if skip(f"{e}/{c.get('name')}"):
        return None
    rounds, wall, sampling = c.get("rounds"), c.get("wall_s"), c.get("sampling_s")
    if not rounds or wall is None or sampling is None:
        return None
    other, per_round = wall - sampling, sampling / rounds
    if e in FIT_EXPERIMENTS and not any(
        "fit_steps" in ((x.get("verification") or {}).get("details") or {}) for x in c.get("comparisons") or []
    ):
        other += fit_cost(c, fit_steps) + fit_build_cost(c)
    other += cold_cost(c, COLD_PROCESSES[profile] - 1)
    other += first_run_only(e, c)
    if breakdown:
        other += breakdown_cost(c)
    if e == "dataloader":
        old, new = dataloader_round(c, images, scale, lambda v: not skip(f"{e}/{c.get('name')}/{v}"))
        if old > 0:
            other *= new / old
            per_round = new
    if c.get("stop_reason") == "precision":
        n = max(FLOOR, min(rounds, CAP_S[profile] / per_round))
    else:
        n = max(FLOOR, CAP_S[profile] / per_round)
    return other + n * per_round


def repeat_warmup(first: float, step: float, min_s: float, max_s: float) -> float:
    """harness/warmup.cpp's warm_up in a fresh process: the first step (as slow
    as the file's first, since the process is as fresh), then timed steps until
    min_s has passed and three of them agree, or max_s has passed after one."""
    return first + max(step, min(max(3 * step, min_s - first), max_s - first))


def repeat_sampling(per_round: float, r: Repeat) -> float:
    """A further process's rounds: max(min rounds, rounds to min_time), capped at
    max_time unless the floor's rounds need more (where the precision target is
    met by then; a process that misses it samples to the cap)."""
    if per_round <= 0:
        return 0.0
    s = max(r.min_rounds, math.ceil(r.min_time_s / per_round - 1e-9)) * per_round
    return s if s <= r.max_time_s else max(r.max_time_s, FLOOR * per_round)


def repeat_builds(c: dict, ratio: float = 1.0) -> float:
    """What a further process spends on a case outside its warm-up and rounds:
    the file's builds and other time where it splits them (time_s); else every
    second outside sampling and warm-up (verification included: an upper bound),
    or for the training checks (verify_losses.h, whose details carry the traces'
    deviation) fit_build_cost's bound on the n timed builds."""
    split = c.get("time_s")
    if isinstance(split, dict) and "build" in split:
        return ratio * ((split.get("build") or 0.0) + (split.get("other") or 0.0))
    if any(
        "baseline_trace_rel_dev" in ((x.get("verification") or {}).get("details") or {})
        for x in c.get("comparisons") or []
    ):
        return fit_build_cost(c)
    warmup = sum((v.get("warmup") or {}).get("seconds") or 0.0 for v in c.get("variants") or [])
    return max(0.0, (c.get("wall_s") or 0.0) - (c.get("sampling_s") or 0.0) - warmup)


def repeat_case(e: str, c: dict, profile: str, images: int, scale: float, skip, ratio: float = 1.0) -> float | None:
    """Seconds one further process spends on the case (its builds, every
    variant's warm-up, the repeat's rounds); None where the case is skipped or
    has no rounds. `ratio` scales a CPU file's per-variant times as
    GPU_WORK_RATIO does its wall and sampling (already scaled in `c`)."""
    if skip(f"{e}/{c.get('name')}"):
        return None
    rounds, wall, sampling = c.get("rounds"), c.get("wall_s"), c.get("sampling_s")
    if not rounds or wall is None or sampling is None:
        return None
    r = REPEAT[profile]
    builds, per_round = repeat_builds(c, ratio), sampling / rounds
    stretch = {}  # dataloader: a variant's new window over its old
    if e == "dataloader":
        old, new = dataloader_round(c, images, scale, lambda v: not skip(f"{e}/{c.get('name')}/{v}"))
        if old > 0:
            builds *= new / old
            per_round = new
            for v in c.get("variants") or []:
                window = (v.get("metrics") or {}).get("window_batches")
                batch = (v.get("metrics") or {}).get("batch") or (c.get("params") or {}).get("batch")
                kept = not skip(f"{e}/{c.get('name')}/{v.get('name', '')}")
                stretch[v.get("name")] = images * scale / (window * batch) if kept and window and batch else 0.0
    warmup = 0.0
    for v in ok_variants(c):
        k = ratio * stretch.get(v.get("name"), 1.0)
        if k > 0:
            warmup += repeat_warmup(k * (v.get("first_run_s") or 0.0), k * step_s(v), r.warmup_min_s, r.warmup_max_s)
    return builds + warmup + repeat_sampling(per_round, r)


def cpu_ratio(e: str, case: str) -> float | None:
    return next((r for k, r in GPU_WORK_RATIO.items() if re.fullmatch(k, f"{e}/{case}")), None)


def load(path: str) -> dict:
    with (gzip.open if str(path).endswith(".gz") else open)(path, "rt") as f:
        return json.load(f)


def is_gpu(doc: dict) -> bool:
    return ((doc.get("config") or {}).get("device") or (doc.get("environment") or {}).get("device")) == "cuda"


def estimate(
    docs: list[dict],
    profile: str,
    skip,
    images: int = 2048,
    scale: float = 0.25,
    fit_steps: int = 9,
    breakdown: bool = False,
) -> dict[str, dict]:
    """Per experiment: {"cases": {name: seconds in the first process},
    "repeats": {name: seconds in each further process}, "basis": "gpu" | "cpu"}.
    The GPU files of the newest day that has the experiment (an older file's
    cases may no longer exist), else CPU files scaled by GPU_WORK_RATIO. Per
    case, files of this profile where one has the case, else any; of a case
    seen twice, the file whose first process costs more."""
    seen: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))  # e -> source -> case -> same -> s
    for doc in docs:
        gpu, same = is_gpu(doc), (doc.get("config") or {}).get("profile") == profile
        source = ("gpu", str((doc.get("environment") or {}).get("date", ""))[:10]) if gpu else ("cpu", "")
        for e in doc.get("experiments") or []:
            for c in e.get("cases") or []:
                r = 1.0
                if not gpu:
                    r = cpu_ratio(e["name"], c.get("name", ""))
                    if r is None:
                        continue
                    c = dict(c, wall_s=(c.get("wall_s") or 0) * r, sampling_s=(c.get("sampling_s") or 0) * r)
                est = estimate_case(e["name"], c, profile, images, scale, skip, fit_steps, breakdown)
                if est is not None:
                    again = repeat_case(e["name"], c, profile, images, scale, skip, r) or 0.0
                    once = first_run_only(e["name"], c)
                    cases = seen[e["name"]][source][c["name"]]
                    if est > cases.get(same, (0.0,))[0]:
                        cases[same] = (est, again, once)
    out = {}
    for e, by in seen.items():
        source = max(by)  # ("gpu", newest day) before ("cpu", "")
        chosen = {c: d.get(True, d.get(False)) for c, d in by[source].items()}
        out[e] = {
            "basis": source[0],
            "day": source[1],
            "cases": {c: v[0] for c, v in chosen.items()},
            "repeats": {c: v[1] for c, v in chosen.items()},
            "once": {c: v[2] for c, v in chosen.items()},
        }
    return out


def once_cost(ests: dict[str, dict]) -> float:
    """Seconds of the first process's cost that only a machine's first run pays:
    AOTInductor's compile and export, kept in the package cache (cache_root(),
    ~/.cache/optbench) for every later run on that machine."""
    return sum(sum((x.get("once") or {}).values()) for x in ests.values())


def first_process_cost(x: dict, breakdown: bool = False) -> float:
    return EXPERIMENT_PROCESS_S + (CUPTI_SETUP_S if breakdown else 0.0) + sum(x["cases"].values())


def further_process_cost(x: dict) -> float:
    """One further process of the experiment: its start, then every case's
    builds, warm-up and rounds (no verification, cold steps or profiling)."""
    return EXPERIMENT_PROCESS_S + sum((x.get("repeats") or {}).values())


def experiment_cost(x: dict, breakdown: bool = False, processes: int = 1) -> float:
    return first_process_cost(x, breakdown) + (processes - 1) * further_process_cost(x)


def basis_label(e: str, x: dict) -> str:
    if x["basis"] == "gpu":
        return f"H100 files of {x['day']}"
    ratios = sorted({cpu_ratio(e, c) for c in x["cases"]})
    return "CPU file x " + "/".join(f"{r:g}" for r in ratios) + " (bound)"


# --- the session -------------------------------------------------------------


def read_plan(gpu_session: Path = GPU_SESSION) -> list[dict]:
    """The steps as scripts/gpu-session --plan prints them: one fact, one place."""
    out = subprocess.run([str(gpu_session), "--plan"], capture_output=True, text=True, check=True).stdout
    return [
        {
            "step": r["step"],
            "min": int(r["min_s"]),
            "cap": int(r["cap_s"]),
            "reserve": r["reserve"] == "1",
            "overrun": int(r["overrun_s"]),
            "what": r["what"],
        }
        for r in csv.DictReader(io.StringIO(out), delimiter="\t")
    ]


def budget_for(plan: list[dict], i: int, elapsed: int, session_s: int, each_alone: bool) -> int | None:
    """scripts/gpu-session's budget_for: the step's cap, or less so that its own
    overrun and the reserved later steps' minimums and overruns still fit; None
    when its own minimum does not."""
    later = sum(
        p["min"] + p["overrun"] for p in plan[i + 1 :] if p["reserve"] and (p["step"] != EACH_ALONE_STEP or each_alone)
    )
    left = session_s - elapsed - later - plan[i]["overrun"]
    if left < plan[i]["min"]:
        return None
    return min(plan[i]["cap"], left)


def run_args(what: str) -> tuple[list[str], str, bool, int | None]:
    """Experiments, profile, breakdown and --processes (None: the profile's) of a plan
    line `run NAME... --flags`."""
    words = what.split()[1:]
    names = words[: next((k for k, w in enumerate(words) if w.startswith("--")), len(words))]
    value = lambda flag: words[words.index(flag) + 1] if flag in words[:-1] else None  # noqa: E731
    processes = value("--processes")
    return (
        names,
        "quick" if "--quick" in words else "standard",
        value("--breakdown") == "on",
        int(processes) if processes else None,
    )


def cover(names: list[str], ests: dict, budget: float, breakdown: bool, processes: int = 1) -> tuple[float, str]:
    """(estimated cost, what is expected to fit the budget), in the suite's passes:
    every experiment's first process in (alphabetical) order, each case whole or
    not at all, then each experiment's further processes while the budget lasts;
    an experiment without H100 or CPU data costs the whole budget."""
    used, total, parts = 0.0, 0.0, {}
    for e in sorted(names):
        x = ests.get(e)
        if x is None:
            total = math.inf
            parts[e] = f"{e}: no data, counted at the whole budget"
            continue
        cost = first_process_cost(x, breakdown)
        total += cost
        tag = "" if x["basis"] == "gpu" else " (CPU bound)"
        if used + cost <= budget:
            used += cost
            parts[e] = f"{e} {cost:.0f} s{tag}"
            continue
        per_case = dict(x["cases"])
        fixed = cost - sum(per_case.values())
        fit = []
        if used + fixed < budget:
            used += fixed
            for c, s in per_case.items():
                if used + s <= budget:
                    used += s
                    fit.append(c)
        if fit:
            parts[e] = f"{e} {cost:.0f} s{tag}: partly ({len(fit)} of {len(x['cases'])} cases: {', '.join(fit)})"
        else:
            parts[e] = f"{e} {cost:.0f} s{tag}: not run (budget)"
    if processes > 1:
        for e in sorted(names):
            x = ests.get(e)
            if x is None or "not run" in parts[e]:
                continue
            further = (processes - 1) * further_process_cost(x)
            total += further
            if used + further <= budget:
                used += further
                parts[e] += f" + {processes - 1} more process{'es' if processes > 2 else ''} {further:.0f} s"
            else:
                parts[e] += ", one process only (budget)"
    return total, ("profiled: " if breakdown else "") + "; ".join(parts.values())


def session(docs: list[dict], session_s: int, each_alone: bool, plan: list[dict]) -> list[dict]:
    """Rows: step, budget (None: none given), seconds (None: not run), covers."""
    ests: dict = {}
    rows = [
        {
            "step": "setup",
            "budget": None,
            "seconds": SETUP_S,
            "covers": "python3 and torch checked, C++ bundle unpacked, CMake configure (at most)",
        },
        {
            "step": "build",
            "budget": None,
            "seconds": BUILD_S,
            "covers": "optbench, optbench_gpu_tests, optbench_bench (at most: every target took 128 s)",
        },
    ]
    t = SETUP_S + BUILD_S
    for i, p in enumerate(plan):
        row = {"step": p["step"], "budget": None, "seconds": None}
        if p["step"] == EACH_ALONE_STEP and not each_alone:
            rows.append(dict(row, covers="not in this session (OPTBENCH_SESSION_EACH_ALONE=1 adds it)"))
            continue
        budget = budget_for(plan, i, t, session_s, each_alone)
        if budget is None:
            rows.append(dict(row, covers=f"skipped: {session_s - t} s left, its minimum is {p['min']} s"))
            continue
        if p["what"].startswith("run "):
            names, profile, bd, processes = run_args(p["what"])
            key = (profile, bd)
            if key not in ests:
                skip_re = LEAVES_OUT[profile]
                ests[key] = estimate(
                    docs, profile, lambda name, r=skip_re: bool(r and re.fullmatch(r, name)), breakdown=bd
                )
            cost, covers = cover(names, ests[key], budget, bd, processes or PROCESSES[profile])
            seconds = math.ceil(min(budget, cost) + OVERRUN_S)
        else:
            cost = STEP_COST_S.get(p["step"], math.inf)
            covers = f"{p['what']}: {cost:.0f} s" if cost < math.inf else f"{p['what']}: no estimate, its budget"
            seconds = math.ceil(min(budget, cost))
        t += seconds
        rows.append(dict(row, budget=budget, seconds=seconds, covers=covers))
    rows.append({"step": "total", "budget": session_s, "seconds": t, "covers": ""})
    return rows


def print_session(rows: list[dict], markdown: bool) -> None:
    fmt = lambda v: "-" if v is None else str(v)  # noqa: E731
    if markdown:
        print("| step | budget (s) | estimate (s) | expected to cover |")
        print("| --- | ---: | ---: | --- |")
        for r in rows:
            step = f"**{r['step']}**" if r["step"] == "total" else f"`{r['step']}`"
            print(f"| {step} | {fmt(r['budget'])} | {fmt(r['seconds'])} | {r['covers']} |")
        return
    for r in rows:
        print(f"  {r['step']:13s} {fmt(r['budget']):>6s} {fmt(r['seconds']):>6s}  {r['covers']}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--profile", choices=sorted(CAP_S), default="standard")
    ap.add_argument(
        "--processes",
        type=int,
        default=None,
        help="processes per experiment (default: the profile's min_processes, PROCESSES)",
    )
    ap.add_argument("--dataloader-images", type=int, default=2048, help="images in a window now")
    ap.add_argument("--dataloader-scale", type=float, default=0.25)
    ap.add_argument(
        "--skip",
        default=None,
        help="regex over experiment/case[/variant]: left out (by default what the profile leaves out, LEAVES_OUT)",
    )
    ap.add_argument("--fit-steps", type=int, default=9, help="steps of the training checks' fit per variant")
    ap.add_argument("--breakdown", action="store_true", help="every case profiled (--breakdown on)")
    ap.add_argument("--session", action="store_true", help="scripts/gpu-session's steps under its deadline")
    ap.add_argument("--gpu-session", default=str(GPU_SESSION), help="the script whose --plan is read")
    ap.add_argument("--markdown", action="store_true", help="--session's table in Markdown")
    a = ap.parse_args(argv)
    docs = [load(f) for f in a.files]
    if a.session:
        session_s = int(os.environ.get("OPTBENCH_SESSION_S", str(SESSION_S)))
        each_alone = os.environ.get("OPTBENCH_SESSION_EACH_ALONE", "0") == "1"
        rows = session(docs, session_s, each_alone, read_plan(Path(a.gpu_session)))
        if not a.markdown:
            print(
                f"estimate (not a measurement): scripts/gpu-session on an H100, OPTBENCH_SESSION_S={session_s}, "
                f"from {len(a.files)} files; per step: budget s, estimated s, what it covers"
            )
        print_session(rows, a.markdown)
        return 0
    skip_re = a.skip if a.skip is not None else LEAVES_OUT[a.profile]
    skip = (lambda name: re.fullmatch(skip_re, name) is not None) if skip_re else (lambda name: False)
    processes = a.processes if a.processes is not None else PROCESSES[a.profile]
    if processes < 1:
        ap.error("--processes must be at least 1")
    ests = estimate(docs, a.profile, skip, a.dataloader_images, a.dataloader_scale, a.fit_steps, a.breakdown)
    rows = {e: (first_process_cost(x, a.breakdown), (processes - 1) * further_process_cost(x)) for e, x in ests.items()}
    n = sum(len(x["cases"]) for x in ests.values())
    print(
        f"estimate, {a.profile} profile, {processes} processes per experiment assumed "
        f"(min {PROCESSES[a.profile]}, max {MAX_PROCESSES[a.profile]}; --processes), "
        f"from {n} cases in {len(a.files)} files"
    )
    print(f"  {'':20s} {'first':>7s} {'further':>7s} {'total':>7s}  (s; further: {processes - 1} processes)")
    for e, (first, further) in sorted(rows.items(), key=lambda kv: -sum(kv[1])):
        print(f"  {e:20s} {first:7.0f} {further:7.0f} {first + further:7.0f} s  {basis_label(e, ests[e])}")
    first, further = sum(f for f, _ in rows.values()), sum(f for _, f in rows.values())
    print(f"  {'total':20s} {first:7.0f} {further:7.0f} {first + further:7.0f} s")
    once = once_cost(ests)
    if once > 0:
        print(
            f"  {'of which once':20s} {once:7.0f} {'':7s} {once:7.0f} s  (a machine's first run only: AOTInductor's "
            "compile and export, cached for later runs)"
        )
    share = TIME_SHARE[a.profile] if a.processes is None else None
    if share is not None and further > share * first:
        capped = share * first
        print(
            f"  {'total, time share':20s} {first:7.0f} {capped:7.0f} {first + capped:7.0f} s  "
            f"(further processes stop at {share:g} x the first pass: fewer than {processes} where they cost more)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
