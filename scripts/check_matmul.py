#!/usr/bin/env python3
"""Cross-check the harness against torch.utils.benchmark on a GPU machine.

Times the same torch.mm of two 4096x4096 fp16 matrices with both timers, like
with like: the same inputs (both processes draw them as their first two
randn calls from CUDA's default generator, unseeded, so the values are
identical), the same thermal state (the two timers alternate, ABBA, over
--rounds rounds, so drift and heat hit both alike), and each timer's median per
round. Fails if the medians over rounds differ by more than --tolerance
(default 2%); both spreads are reported, so a failure can be read against the
noise. Needs Python torch with CUDA; --out writes the JSON.

    scripts/check_matmul.py build/cuda/benchmarks/optbench_bench --out check.json
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def optbench_median_s(bench: str, name: str, min_time: float) -> float:
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([bench, f"--benchmark_filter=^{name}/manual_time$", "--benchmark_repetitions=5",
                        f"--benchmark_min_time={min_time}", f"--benchmark_out={f.name}",
                        "--benchmark_out_format=json"],
                       check=True, stdout=subprocess.DEVNULL, env={**os.environ, "OPTBENCH_DEVICE": "cuda"})
        data = json.load(open(f.name))
    rows = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    if not rows:
        raise SystemExit(f"error: {bench} produced no median for {name}")
    # An iteration is one harness sample of several matmuls; per_step_s is one.
    return rows[0]["per_step_s"]


def spread(xs: list[float]) -> dict:
    q = statistics.quantiles(xs, n=4) if len(xs) >= 2 else [xs[0]] * 3
    return {"median_s": statistics.median(xs), "min_s": min(xs), "max_s": max(xs), "iqr_s": q[2] - q[0],
            "rounds_s": xs}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", help="path to optbench_bench (CUDA build)")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--rounds", type=int, default=6, help="alternations of the two timers (ABBA order)")
    ap.add_argument("--min-time", type=float, default=1.0, help="seconds each timer runs per round")
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--out")
    args = ap.parse_args()

    import torch
    import torch.utils.benchmark as tb

    # The bench's inputs are its first two at::randn calls on CUDA's unseeded
    # default generator; these are Python's, in a fresh process: the same values.
    a = torch.randn(args.n, args.n, device="cuda", dtype=torch.float16)
    b = torch.randn(args.n, args.n, device="cuda", dtype=torch.float16)
    timer = tb.Timer("torch.mm(a, b)", globals={"a": a, "b": b, "torch": torch})
    ours, theirs = [], []
    for r in range(args.rounds):
        order = ("optbench", "torch") if r % 4 in (0, 3) else ("torch", "optbench")
        for who in order:
            if who == "optbench":
                ours.append(optbench_median_s(args.bench, f"matmul/fp16/{args.n}", args.min_time / 5))
            else:
                theirs.append(timer.blocked_autorange(min_run_time=args.min_time).median)
    med_ours, med_theirs = statistics.median(ours), statistics.median(theirs)
    diff = med_ours / med_theirs - 1.0
    result = {"n": args.n, "dtype": "fp16", "rounds": args.rounds, "order": "ABBA",
              "optbench": spread(ours), "torch_utils_benchmark": spread(theirs),
              "optbench_median_s": med_ours, "torch_utils_benchmark_median_s": med_theirs,
              "relative_difference": diff, "tolerance": args.tolerance, "passed": abs(diff) <= args.tolerance}
    print(json.dumps(result, indent=1))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
