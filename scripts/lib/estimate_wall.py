"""Estimate what a run of every experiment costs under the rounds floor, from
the per-case costs of earlier results files (e.g. the H100 runs in
../shared/gpu-runs/2026-11-24/, which predate the floor).

Per case: the time that was not sampling (builds, warm-up, verification,
process starts) is kept; the sampling is its cost per round times the rounds the
case would get now: at least the floor (6), the rounds it had where it stopped
on precision. The quick profile's per-case cap is 1.5 s of sampling (never below
the floor), the standard's 8 s. dataloader cases are rescaled to the current
experiment's windows (--dataloader-scale: the share of the old per-image cost
one image costs now, 0.25 for a quarter of the pixels). The training checks'
fit (added after those files) is added: --fit-steps steps per variant at its
timed step time, for the experiments that run it (9, its most, by default: on
a GPU nobody has yet seen where a baseline's fit ends). So are the extra fresh
processes a cold first step is taken in where a case derives from one (1 in
quick, 2 in standard: one more per variant), each its first step and one more
plus PROCESS_START_S, an assumption for starting LibTorch, a CUDA context and a
build, which those files do not time apart. An estimate, and says
so: it cannot know what changed in an experiment since the file was written.

  python3 scripts/lib/estimate_wall.py FILE... [--profile quick|standard] [--skip REGEX]

--skip leaves out the cases ("experiment/case") and dataloader variants
("experiment/case/variant") a profile no longer runs.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict

FLOOR = 6
CAP_S = {"quick": 1.5, "standard": 8.0}
COLD_PROCESSES = {"quick": 1, "standard": 2}
PROCESS_START_S = 2.0
# Experiments verified by workloads/training/verify_losses.h, whose fit each
# variant runs once.
FIT_EXPERIMENTS = {"mixed_precision", "batch_size", "cudnn_benchmark"}


def fit_cost(case: dict, steps: int) -> float:
    """Seconds the fit adds to a case: `steps` steps of every variant that ran.
    The fit runs one batch, so where the timed steps change shape (and
    cudnn.benchmark autotunes each), every variant is counted at the case's
    fastest step."""
    step_s = [(v.get("stats") or {}).get("median", 0) / (v.get("iters_per_sample") or 1)
              for v in case.get("variants") or [] if v.get("status") == "ok" and (v.get("stats") or {}).get("median")]
    if "new" in str((case.get("params") or {}).get("shape", "")):
        step_s = [min(step_s)] * len(step_s) if step_s else []
    return steps * sum(step_s)


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
        first, median = v.get("first_run_s"), (v.get("stats") or {}).get("median")
        if v.get("status") == "ok" and first:
            per_process += PROCESS_START_S + first + (median or 0) / (v.get("iters_per_sample") or 1)
    return extra_processes * per_process


def estimate_case(e: str, c: dict, profile: str, images: int, scale: float, skip, fit_steps: int = 0) -> float | None:
    if skip(f"{e}/{c.get('name')}"):
        return None
    rounds, wall, sampling = c.get("rounds"), c.get("wall_s"), c.get("sampling_s")
    if not rounds or wall is None or sampling is None:
        return None
    other, per_round = wall - sampling, sampling / rounds
    if e in FIT_EXPERIMENTS and not any("fit_steps" in ((x.get("verification") or {}).get("details") or {})
                                        for x in c.get("comparisons") or []):
        other += fit_cost(c, fit_steps)
    other += cold_cost(c, COLD_PROCESSES[profile] - 1)
    if e == "dataloader":
        old, new = dataloader_round(c, images, scale, lambda v: not skip(f"{e}/{c.get('name')}/{v}"))
        if old > 0:
            other *= new / old
            per_round = new
    if c.get("stop_reason") == "precision":
        n = rounds if profile == "standard" else max(FLOOR, min(rounds, CAP_S[profile] / per_round))
    else:
        n = max(FLOOR, CAP_S[profile] / per_round)
    return other + n * per_round


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--profile", choices=sorted(CAP_S), default="standard")
    ap.add_argument("--dataloader-images", type=int, default=2048, help="images in a window now")
    ap.add_argument("--dataloader-scale", type=float, default=0.25)
    ap.add_argument("--skip", default=None, help="regex over experiment/case[/variant]: left out")
    ap.add_argument("--fit-steps", type=int, default=9, help="steps of the training checks' fit per variant")
    a = ap.parse_args(argv)
    skip = (lambda name: re.fullmatch(a.skip, name) is not None) if a.skip else (lambda name: False)
    # Per experiment, the cases of a file run in this profile where one has any
    # (the profiles run different cases), else of any file; the larger estimate
    # of a case seen twice.
    by_exp: dict[str, dict[bool, dict[str, float]]] = defaultdict(lambda: {True: {}, False: {}})
    for f in a.files:
        doc = json.load(open(f))
        same = (doc.get("config") or {}).get("profile") == a.profile
        for e in doc.get("experiments") or []:
            for c in e.get("cases") or []:
                est = estimate_case(e["name"], c, a.profile, a.dataloader_images, a.dataloader_scale, skip,
                                    a.fit_steps)
                if est is not None:
                    cases = by_exp[e["name"]][same]
                    cases[c["name"]] = max(est, cases.get(c["name"], 0.0))
    seen = {(e, c): s for e, d in by_exp.items() for c, s in (d[True] or d[False]).items()}
    per_exp: dict[str, float] = defaultdict(float)
    for (e, _), s in seen.items():
        per_exp[e] += s
    print(f"estimate, {a.profile} profile, from {len(seen)} cases in {len(a.files)} files")
    for e, s in sorted(per_exp.items(), key=lambda kv: -kv[1]):
        print(f"  {e:20s} {s:7.0f} s")
    print(f"  {'total':20s} {sum(per_exp.values()):7.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
