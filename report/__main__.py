"""python3 -m report {validate,render,compare,baseline,gpus,claimed,history} -- see --help of each.

Exit status: 0 success, 1 a regression or a pair not computable (compare), 2 bad input or usage,
3 no committed run of CURRENT's device (baseline).
Errors are one line on stderr starting with 'error:'. Input files are never modified."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .load.results import ResultsError, expand_paths, have_jsonschema, load_inputs, load_results, validator_name

EXIT_BAD_INPUT = 2
EXIT_NO_BASELINE = 3
COMPARE_HELP = """\
The regression gate. Pairs each variant's time per step (experiment, case,
variant) and each optimization's paired speedup (its comparison within one run)
and judges every change against a noise floor: the between-run change that runs of
the same code on the same device show, which a single run's sample count cannot.
Floors come per pair from the runs' own 10-90% spread (at least 2.5% for CUDA-event
timed cases, 6% for host-timed ones; report/gate/noise.py says why), widened to cover
the spread of --history runs (other runs of the baseline's commit on this device).
change = current / baseline - 1, with a (1 - alpha) bootstrap interval
(scipy.stats.bootstrap's draws, of a bounded number of samples per run:
report/statistics/stats.py).
  slower / faster   the whole interval lies beyond the floor and the Mann-Whitney
                    U test (scipy) of the samples gives p < alpha
  lower / higher    the same for a speedup (U test of the per-round log ratios)
  same              the interval lies within +-floor
  ambiguous         otherwise
  not computable    a median or speedup that is no finite positive number, or a
                    change that overflows: never a pass
Runs from different GPUs (environment.cuda.gpus[0].name, or the CPU model) are
refused unless --allow-different-gpus. Exit status: 1 if a time is 'slower', a
speedup 'lower' or a pair 'not computable', 0 otherwise, 2 on bad input."""


def _validate_one(path: Path) -> str | None:
    """None where the file is valid, else its one-line error. Whatever goes wrong with one
    file is that file's line: the others are still checked."""
    try:
        load_results(path)
        return None
    except ResultsError as e:
        return str(e)
    except Exception as e:  # one file's failure is its line, not a stop
        if os.environ.get("OPTBENCH_REPORT_DEBUG"):
            raise
        return f"{path}: {unexpected(e)}"


def cmd_validate(args: argparse.Namespace) -> int:
    """Every file given, or in a directory given, gets its line; exit 2 if any is bad."""
    print(f"validator: {validator_name()}")
    bad = 0
    for raw in args.files:
        try:
            paths = expand_paths([raw])
        except ResultsError as e:
            print(f"error: {e}", file=sys.stderr)
            bad += 1
            continue
        for path in paths:
            if (err := _validate_one(path)) is None:
                print(f"{path}: valid" if have_jsonschema() else f"{path}: readable (not schema-checked)")
            else:
                print(f"error: {err}", file=sys.stderr)
                bad += 1
    return EXIT_BAD_INPUT if bad else 0


def cmd_render(args: argparse.Namespace) -> int:
    from .render.command import render

    inputs = load_inputs(args.files, allow_gbench=True)
    written = render(inputs, Path(args.out), plots="none" if args.no_plots else args.plots)
    print(f"report: {written['markdown']}")
    print(f"report: {written['details']}")
    print(f"report: {written['html']}")
    print(f"csv:    {written['csv']}")
    if written.get("gbench_csv"):
        print(f"csv:    {written['gbench_csv']}")
    if written["plots"]:
        print(f"plots:  {len(written['plots'])} in {Path(args.out) / 'plots'}")
    return 0


def _one(path: str, what: str) -> dict:
    inputs = load_inputs([path])
    if len(inputs) != 1:
        raise ResultsError(f"{path}: {what} must be one results file, found {len(inputs)} .json files")
    return inputs[0].doc


def cmd_compare(args: argparse.Namespace) -> int:
    try:
        from .gate.baseline import history_runs
        from .gate.compare import Settings
        from .gate.compare_text import run
    except ImportError as e:
        raise ResultsError(f"compare needs numpy and scipy ({e}); install python3-numpy python3-scipy") from None

    base, cur = _one(args.baseline, "BASELINE"), _one(args.current, "CURRENT")
    history = history_runs(cur, base, args.history) if args.history else []
    st = Settings(alpha=args.alpha, min_effect=args.min_effect, threshold=args.threshold)
    code, text = run(base, cur, st, history, allow_different=args.allow_different_gpus, markdown=args.markdown)
    print(text)
    return code


def cmd_baseline(args: argparse.Namespace) -> int:
    from .gate.baseline import NoBaseline, find_baseline

    current = _one(args.current, "CURRENT")
    try:
        path = find_baseline(current, args.dirs)
    except NoBaseline as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_NO_BASELINE
    print(path)
    return 0


def cmd_gpus(args: argparse.Namespace) -> int:
    from .gpu.gpus import compute, plot, text

    v = compute(args.files)
    if not v.columns:  # one line, as every command's bad input: the one file's reason, or each
        why = "; ".join(f"{s.path}: {s.reason}" for s in v.skipped)
        print(f"error: no results file to show{': ' + why if why else ''}", file=sys.stderr)
        return 2
    for s in v.skipped:
        print(f"skipped: {s.path}: {s.reason}", file=sys.stderr)
    print(text(v, markdown=args.markdown))
    if args.plot:
        drawn = plot(v, Path(args.plot))
        print(f"plot: {args.plot}" if drawn else "plot: none (no claim judged, or matplotlib is not installed)")
    return 0


def cmd_claimed(args: argparse.Namespace) -> int:
    import json

    from .claims.claimed import claimed

    print(json.dumps(claimed(load_results(args.file))))
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    from .history.command import NO_RUPTURES, compute, write_history
    from .history.page import summary_lines

    h = compute(args.files, like=Path(args.like) if args.like else None)
    for s in h.skipped:
        print(f"skipped: {s.path}: {s.reason}", file=sys.stderr)
    if not h.searched:
        print(f"warning: {NO_RUPTURES}", file=sys.stderr)
    written = write_history(h, Path(args.out))
    print(f"history: {h.runs} runs, ordered by {h.order_how}")
    print("\n".join(summary_lines(h.findings)))
    print(f"report: {written['markdown']}")
    if written["plots"]:
        print(f"plots:  {len(written['plots'])} in {Path(args.out) / 'plots'}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python3 -m report", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="command", required=True)

    v = sub.add_parser(
        "validate",
        help="check results files against the JSON schema",
        description="Check results files (or directories of them) against "
        "harness/results.schema.json with jsonschema; without it, files are only read "
        "(and it says so). Exit 2 if any file is bad.",
    )
    v.add_argument("files", nargs="+", metavar="RESULTS", help="results .json files or directories")
    v.set_defaults(func=cmd_validate)

    r = sub.add_parser(
        "render",
        help="write report.md, report_details.md, report.html, results.csv and plots",
        description="Render results files (and Google Benchmark JSON from optbench_bench) "
        "into DIR/report.md (the summary, the claims, a table per experiment), "
        "DIR/report_details.md (each run's whole tables, notes, how each claim was "
        "tested), DIR/report.html (both, the details folded, plots embedded), "
        "DIR/results.csv (one row per case x variant) and DIR/plots/*.png. Several "
        "files make one report: a column per run and what moved between them. "
        "Directories stand for the .json files inside them.",
    )
    r.add_argument("files", nargs="+", metavar="RESULTS", help="results .json files or directories")
    r.add_argument(
        "--out", default="optbench-report", metavar="DIR", help="output directory (default: ./optbench-report)"
    )
    r.add_argument(
        "--plots",
        choices=("experiment", "all", "none"),
        default="experiment",
        help="experiment (default): one plot per experiment, its speedups in every run; all: each "
        "run's throughput sweeps and profiler breakdowns too, in the details; none: no plots",
    )
    r.add_argument("--no-plots", action="store_true", help="skip the PNG plots (--plots none)")
    r.set_defaults(func=cmd_render)

    c = sub.add_parser(
        "compare",
        help="regression check of CURRENT against BASELINE",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=COMPARE_HELP,
    )
    c.add_argument("baseline", metavar="BASELINE", help="results file of the reference run")
    c.add_argument("current", metavar="CURRENT", help="results file of the run to check")
    c.add_argument(
        "--history",
        nargs="+",
        metavar="PATH",
        help="files or directories (e.g. results/) with more runs of the baseline's commit on this "
        "device: floors widen to cover their spread; other commits and devices are passed over",
    )
    c.add_argument(
        "--min-effect", type=float, default=0.02, help="no floor is below this relative change (default 0.02 = 2%%)"
    )
    c.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="one fixed floor for every pair instead of the per-pair floors (e.g. 0.05)",
    )
    c.add_argument(
        "--alpha",
        type=float,
        default=0.01,
        help="significance level of the U test; the intervals are (1 - alpha) (default 0.01)",
    )
    c.add_argument(
        "--allow-different-gpus",
        action="store_true",
        help="compare runs from different GPUs (or CPU models) instead of refusing",
    )
    c.add_argument("--markdown", action="store_true", help="print Markdown tables")
    c.set_defaults(func=cmd_compare)

    b = sub.add_parser(
        "baseline",
        help="print the committed results file to compare CURRENT with",
        description="Print the path of the newest complete results file in DIR... that ran on "
        "the same device as CURRENT (GPU name, or CPU model). Exit 3 if there is none (nothing to gate "
        "against yet), 2 on bad input.",
    )
    b.add_argument("current", metavar="CURRENT", help="results file of the new run")
    b.add_argument("dirs", nargs="+", metavar="DIR", help="directories (or files) holding committed results")
    b.set_defaults(func=cmd_baseline)

    g = sub.add_parser(
        "gpus",
        help="the machines side by side: claims, speedups and throughputs, a column per machine",
        description="Read every results file given (directories stand for the .json files inside) as "
        "history does, group the runs by machine fingerprint (GPU or CPU model, count, driver, CUDA, "
        "cuDNN, torch, profile, malloc and numerics settings) and show each machine's newest commit "
        "(both runs of a pair) as a column, CPUs first: every claim's verdict and figure, every "
        "comparison's speedup, every variant's throughput normalised to the datasheet peaks in "
        "report/gpu/gpu_specs.json. Files that are not results files are named and skipped.",
    )
    g.add_argument("files", nargs="+", metavar="RESULTS", help="results .json files or directories")
    g.add_argument("--markdown", action="store_true", help="print Markdown tables")
    g.add_argument("--plot", metavar="PNG", help="also draw every claim's figure per machine against its claimed range")
    g.set_defaults(func=cmd_gpus)

    cl = sub.add_parser(
        "claimed",
        help="print, as JSON, the comparisons a claim's verdict reads",
        description="Print {experiment: {case: [variant names]}}: the variants of each comparison some "
        "claim's verdict reads in RESULTS (claims that can draw no verdict there read none). The run asks "
        "this after its first processes: further processes repeat only these.",
    )
    cl.add_argument("file", metavar="RESULTS", help="a results .json file (a run in progress is fine)")
    cl.set_defaults(func=cmd_claimed)

    h = sub.add_parser(
        "history",
        help="series over commits per machine, and the changes in them",
        description="Read every results file given (directories stand for the .json files inside) as "
        "series over history: per machine fingerprint (GPU or CPU model, count, driver, CUDA, cuDNN), "
        "torch version and profile, one per comparison and one per claim, ordered by git ancestry "
        "where the repository is at hand, else by date. Change points (ruptures) confirmed by "
        "Welch's t-test and beyond the noise floor are listed in DIR/history.md, regressions and "
        "improvements first, with one plot per claim and machine in DIR/plots. Files that are not "
        "results files are named and skipped. docs/report.md (History) says how it decides.",
    )
    h.add_argument("files", nargs="+", metavar="RESULTS", help="results .json files or directories")
    h.add_argument(
        "--out", default="optbench-history", metavar="DIR", help="output directory (default: ./optbench-history)"
    )
    h.add_argument(
        "--like",
        metavar="RESULTS",
        help="only the runs of this results file's machine fingerprint (a CI job: its own GPU's history)",
    )
    h.set_defaults(func=cmd_history)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ResultsError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # never a traceback for the user; OPTBENCH_REPORT_DEBUG=1 shows it
        if os.environ.get("OPTBENCH_REPORT_DEBUG"):
            raise
        print(f"error: {unexpected(e)}", file=sys.stderr)
        return EXIT_BAD_INPUT


def unexpected(e: BaseException) -> str:
    """An error no check foresaw, on one line."""
    msg = " ".join(str(e).split())
    return f"unexpected {type(e).__name__}: {msg} (set OPTBENCH_REPORT_DEBUG=1 for details)"


if __name__ == "__main__":
    sys.exit(main())
