#!/usr/bin/env python3
"""Cross-check the harness against torch.utils.benchmark, on a GPU or a CPU.

Times the same matmul with both timers, like with like: the same shapes and
dtype, the same inputs on the GPU (both processes draw them as their first two
randn calls from CUDA's default generator, unseeded, so the values are
identical; on the CPU the values differ, the distribution does not), one thread
on the CPU in both (torch.utils.benchmark's default; the harness's process gets
OMP_NUM_THREADS=1), the same thermal state (the two timers alternate, ABBA,
over --rounds rounds, so drift and heat hit both alike), each timer's median
per round, and a fresh process for each timer in every round. The last is what
makes the spreads comparable: where a process is born (its buffers' addresses,
its pages, the core it lands on) moves a CPU matmul by several percent for the
life of the process. Timed in one long Python process, torch.utils.benchmark's
rounds would all share one such draw while the harness drew six: its spread would
understate its uncertainty, and one lucky draw could fail the check.

The bar: the two medians over rounds may differ by --tolerance, or by what the
measured noise explains where that is more: --noise-k (3) times the combined
spread of the two timers' round medians (each a robust relative standard
deviation, 1.4826 x MAD / median). The tolerance is 2% on a GPU, whose rounds
agree closely, and 5% on a CPU, where the noise term mostly sets the bar. One
thread per timer: a two-thread GEMM waits for whichever thread lost its core.
The figures these were set from are in docs/method.md ("Checking the harness").
Both figures, both spreads and the bar are printed; --out writes the JSON.

    scripts/check_matmul.py build/cuda/benchmarks/optbench_bench --out check.json             # GPU: fp16 4096
    scripts/check_matmul.py build/cuda/benchmarks/optbench_bench --device cpu                  # CPU: fp32 512
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def optbench_median_s(bench: str, name: str, min_time: float, device: str, threads: int) -> float:
    env = {**os.environ, "OPTBENCH_DEVICE": device, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run(
            [
                bench,
                f"--benchmark_filter=^{name}/manual_time$",
                "--benchmark_repetitions=5",
                f"--benchmark_min_time={min_time}",
                f"--benchmark_out={f.name}",
                "--benchmark_out_format=json",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        data = json.load(open(f.name))
    rows = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    if not rows:
        raise SystemExit(f"error: {bench} produced no median for {name}")
    # An iteration is one harness sample of several matmuls; per_step_s is one.
    return rows[0]["per_step_s"]


def torch_median_s(device: str, n: int, dtype_name: str, threads: int, min_time: float) -> float:
    """One round of torch.utils.benchmark in a process of its own (see above)."""
    out = subprocess.run(
        [sys.executable, __file__, "--one-torch-round", device, str(n), dtype_name, str(threads), str(min_time)],
        check=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    return float(out.stdout.split()[-1])


def one_torch_round(device: str, n: int, dtype_name: str, threads: int, min_time: float) -> float:
    import torch
    import torch.utils.benchmark as tb

    # The bench's inputs are its first two at::randn calls on CUDA's unseeded
    # default generator; these are Python's, in a fresh process: the same values.
    dtype = {"fp16": torch.float16, "fp32": torch.float32}[dtype_name]
    a = torch.randn(n, n, device=device, dtype=dtype)
    b = torch.randn(n, n, device=device, dtype=dtype)
    c = torch.empty(n, n, device=device, dtype=dtype)
    # The harness times at::mm_out into a preallocated output: the same here.
    timer = tb.Timer("torch.mm(a, b, out=c)", globals={"a": a, "b": b, "c": c, "torch": torch}, num_threads=threads)
    return timer.blocked_autorange(min_run_time=min_time).median


def rel_sd(xs: list[float]) -> float:
    """Robust relative standard deviation: 1.4826 x MAD / median."""
    med = statistics.median(xs)
    return 1.4826 * statistics.median(abs(x - med) for x in xs) / med


def spread(xs: list[float]) -> dict:
    q = statistics.quantiles(xs, n=4) if len(xs) >= 2 else [xs[0]] * 3
    return {
        "median_s": statistics.median(xs),
        "min_s": min(xs),
        "max_s": max(xs),
        "iqr_s": q[2] - q[0],
        "rel_sd": rel_sd(xs),
        "rounds_s": xs,
    }


def main() -> int:
    if len(sys.argv) == 7 and sys.argv[1] == "--one-torch-round":
        dev, n, dtype_name, threads, min_time = sys.argv[2:]
        print(one_torch_round(dev, int(n), dtype_name, int(threads), float(min_time)))
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", help="path to optbench_bench")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--n", type=int, help="matrix size (default 4096 on cuda, 512 on cpu)")
    ap.add_argument("--rounds", type=int, default=6, help="alternations of the two timers (ABBA order)")
    ap.add_argument("--min-time", type=float, default=1.0, help="seconds each timer runs per round")
    ap.add_argument("--tolerance", type=float, help="default 0.02 on cuda, 0.05 on cpu (see above)")
    ap.add_argument("--noise-k", type=float, default=3.0, help="bar = max(tolerance, k x combined spread)")
    ap.add_argument("--threads", type=int, default=1, help="CPU threads of both timers (default 1)")
    ap.add_argument("--out")
    args = ap.parse_args()
    gpu = args.device == "cuda"
    n = args.n or (4096 if gpu else 512)
    if args.tolerance is None:
        args.tolerance = 0.02 if gpu else 0.05
    dtype_name = "fp16" if gpu else "fp32"

    threads = args.threads
    if gpu:
        import torch  # the thread count a GPU process would default to

        threads = torch.get_num_threads()
    ours, theirs = [], []
    for r in range(args.rounds):
        order = ("optbench", "torch") if r % 4 in (0, 3) else ("torch", "optbench")
        for who in order:
            if who == "optbench":
                ours.append(
                    optbench_median_s(args.bench, f"matmul/{dtype_name}/{n}", args.min_time / 5, args.device, threads)
                )
            else:
                theirs.append(torch_median_s(args.device, n, dtype_name, threads, args.min_time))
    med_ours, med_theirs = statistics.median(ours), statistics.median(theirs)
    diff = med_ours / med_theirs - 1.0
    noise = (rel_sd(ours) ** 2 + rel_sd(theirs) ** 2) ** 0.5
    bar = max(args.tolerance, args.noise_k * noise)
    result = {
        "device": args.device,
        "n": n,
        "dtype": dtype_name,
        "threads": threads,
        "rounds": args.rounds,
        "order": "ABBA",
        "optbench": spread(ours),
        "torch_utils_benchmark": spread(theirs),
        "optbench_median_s": med_ours,
        "torch_utils_benchmark_median_s": med_theirs,
        "relative_difference": diff,
        "tolerance": args.tolerance,
        "noise_k": args.noise_k,
        "combined_rel_sd": noise,
        "bar": bar,
        "passed": abs(diff) <= bar,
    }
    print(
        f"optbench {med_ours * 1e6:.1f} us (rel. sd {rel_sd(ours):.1%}), torch.utils.benchmark "
        f"{med_theirs * 1e6:.1f} us (rel. sd {rel_sd(theirs):.1%}): {diff:+.2%}, bar {bar:.1%} "
        f"({'passed' if result['passed'] else 'FAILED'})",
        file=sys.stderr,
    )
    print(json.dumps(result, indent=1))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
