#!/usr/bin/env python3
"""Cross-check the harness against torch.utils.benchmark on a GPU machine.

Runs optbench_bench's matmul/fp16/4096 (harness timer, events, held stream) and
torch.utils.benchmark's blocked_autorange on the same torch.mm, and fails if the
two medians differ by more than --tolerance (default 2%). Needs Python torch
with CUDA; writes both numbers as JSON with --out.

    scripts/check_matmul.py build/cuda/benchmarks/optbench_bench --out check.json
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile


def optbench_median_s(bench: str, name: str) -> float:
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([bench, f"--benchmark_filter=^{name}/manual_time$", "--benchmark_repetitions=10",
                        "--benchmark_min_time=0.2", f"--benchmark_out={f.name}", "--benchmark_out_format=json"],
                       check=True, stdout=subprocess.DEVNULL)
        data = json.load(open(f.name))
    rows = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    if not rows:
        raise SystemExit(f"error: {bench} produced no median for {name}")
    # An iteration is one harness sample of several matmuls; per_step_s is one.
    return rows[0]["per_step_s"]


def torch_median_s(n: int) -> float:
    import torch
    import torch.utils.benchmark as tb

    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    m = tb.Timer("torch.mm(a, b)", globals={"a": a, "b": b, "torch": torch}).blocked_autorange(min_run_time=2.0)
    return m.median


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", help="path to optbench_bench (CUDA build)")
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--tolerance", type=float, default=0.02)
    ap.add_argument("--out")
    args = ap.parse_args()
    ours = optbench_median_s(args.bench, f"matmul/fp16/{args.n}")
    theirs = torch_median_s(args.n)
    diff = ours / theirs - 1.0
    result = {"n": args.n, "dtype": "fp16", "optbench_median_s": ours, "torch_utils_benchmark_median_s": theirs,
              "relative_difference": diff, "tolerance": args.tolerance, "passed": abs(diff) <= args.tolerance}
    print(json.dumps(result, indent=1))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
