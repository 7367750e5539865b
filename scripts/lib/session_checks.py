"""The GPU session's verdict on itself (scripts/gpu-session): one row per fact a reviewer
needs before trusting what a short GPU lease produced, each pass or fail with the figure
it rests on, printed and saved as DIR/checks.tsv; any failed row fails the session.

    PYTHONPATH=REPO python3 scripts/lib/session_checks.py DIR [--rehearsal]

DIR holds what the session wrote: steps.tsv, matmul_check.json and the results files
of its run steps in DIR/runs. With --rehearsal (a session on the CPU) the rows a CPU cannot show
are "n/a" and every results file must say device cpu; without it, a session with no
results on a GPU fails its first row. A row is "wait" where the session had no time
for it (an unreserved step skipped), which does not fail the session; what a reserved
step's run left not run for time, or skipped on a GPU, fails it."""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from report.explanation.why import TRANSFERS
from report.load.document import Breakdown, Case, Document, Experiment, Variant
from report.load.results import ResultsError, load_results

# Device time is measured by events inside the host's timed region, so a device
# median above the host median is a measurement fault; the 2% allow for the two
# clocks' resolutions at the shortest steps.
DEVICE_OVER_HOST_MAX = 1.02
# Where a step is long enough (>= 1 ms on the device) the host's extra time is the
# launch and synchronisation alone, a few percent on an H100 (docs/results-history.md);
# anything inside the timed region (an NVML read) would widen it.
LONG_STEP_S = 1e-3
LONG_STEP_GAP_MAX = 0.10
# A replayed graph launches once per step; the batch's copy in may add launches.
GRAPH_LAUNCHES_MAX = 3.0
# A pinned copy is one copy per step on the device timeline.
COPIES_PER_STEP = (0.9, 1.5)
FAILED_STATUSES = {"failed", "crashed", "hung", "interrupted", "running"}


@dataclass
class Row:
    check: str
    subject: str
    result: str  # pass | fail | n/a | wait
    figure: str
    expected: str


def _median(xs: list) -> float | None:
    xs = [float(x) for x in xs if isinstance(x, (int, float))]
    return statistics.median(xs) if xs else None


def _variants(doc: Document):
    """(experiment, case, variant) for every variant of every case that ran."""
    for e, c in doc.ran_cases():
        for v in c.variants:
            yield e, c, v


def _where(e: Experiment, c: Case, v: Variant | None = None) -> str:
    return "/".join(str(x.name) for x in (e, c, v) if x is not None)


def _some(names: list[str], n: int = 3) -> str:
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


# --- the steps -----------------------------------------------------------------


def step_rows(steps: list[dict]) -> list[Row]:
    """Each step: exit 0, within its budget plus its overrun; a reserved step skipped
    fails, an unreserved one waits for a longer session. The set-up and the build are
    reserved steps with a budget of their own; the session's note on a step (why it
    was skipped, where the scratch folders went) ends its figure."""
    rows = []
    for s in steps:
        name, budget, rc = s["step"], s["budget_s"], s["exit"]
        note = f"; {s['note']}" if s.get("note") else ""
        if budget == "skipped":
            reserved = s.get("reserve") == "1"
            rows.append(
                Row(
                    "step",
                    name,
                    "fail" if reserved else "wait",
                    "skipped for time" + note,
                    "run (a reserved step)" if reserved else "run when the session has time",
                )
            )
            continue
        took = int(s["seconds"])
        overrun = s.get("overrun_s") or "0"
        limit = None if budget in ("-", "") else int(budget) + (int(overrun) if overrun.isdigit() else 0)
        ok = rc == "0" and (limit is None or took <= limit + 1)  # +1: whole seconds at both ends
        figure = f"exit {rc}, {took} s" + (f" of {budget} s" if limit is not None else "") + note
        rows.append(
            Row(
                "step",
                name,
                "pass" if ok else "fail",
                figure,
                "exit 0" + (f", at most {limit} s (budget + overrun)" if limit is not None else ""),
            )
        )
    return rows


# --- the machine ---------------------------------------------------------------


def gpu_row(docs: list[Document], rehearsal: bool) -> Row:
    """The GPU the session ran on, as the first results file's environment names it."""
    expected = "one CUDA GPU named, with its driver, clocks and power limit"
    if rehearsal:
        return Row("gpu", "machine", "n/a", "a rehearsal on the CPU", expected)
    for d in docs:
        g = d.gpu
        if g is not None:
            figure = (
                f"{g.name}, driver {g.driver_version or '?'}, "
                f"SM clock max {g.sm_clock_max_mhz or g.clock_rate_mhz or '?'} MHz, "
                f"power limit {g.power_limit_w or '?'} W"
            )
            return Row("gpu", "machine", "pass", figure, expected)
    return Row(
        "gpu", "machine", "fail", "no GPU: no results file ran on cuda" if docs else "no GPU: no results file", expected
    )


# --- each results file ---------------------------------------------------------


def for_time(reason: object) -> bool:
    """The budget gate's reason (harness/budget_plan.cpp: "budget: ..."), as a case or
    experiment not run, or skipped (aot_inductor's compile refused), records it."""
    return str(reason or "").startswith("budget")


def file_rows(name: str, doc: Document, rehearsal: bool, gpu: str | None, reserved: bool = False) -> list[Row]:
    """The rows of one run's file. `reserved`: its step has reserved time (the plan's
    reserve 1), so what the budget left not run or skipped is a step starved, and fails;
    and so does what was skipped for another reason (storage_reads declining a scratch
    folder in RAM), except in a rehearsal, where a CPU skips what means nothing on it."""
    want = "cpu" if rehearsal else "cuda"
    dev = doc.device
    on = f"{dev}" + (f" ({doc.gpu_name})" if dev == "cuda" else "")
    same = rehearsal or doc.gpu_name == gpu
    rows = [
        Row(
            "device",
            name,
            "pass" if dev == want and same else "fail",
            on,
            f"{want}" + ("" if rehearsal else f" on {gpu}"),
        )
    ]
    rows.append(
        Row(
            "run",
            name,
            "pass" if doc.facts.status == "complete" else "fail",
            f"status {doc.facts.status}",
            "complete",
        )
    )
    bad, short, skipped, expected, n = [], [], [], [], 0

    def left_out(where: str, reason: object) -> None:
        if for_time(reason):
            short.append(where)
        else:
            skipped.append(f"{where} ({str(reason or 'no reason given')[:80]})")

    for e in doc.experiments:
        if e.status in FAILED_STATUSES:
            bad.append(f"{e.name} {e.status}")
        elif e.status in ("not_run", "skipped"):
            left_out(str(e.name), e.reason)
        for c in e.cases:
            n += 1
            if c.status in FAILED_STATUSES:
                bad.append(f"{_where(e, c)} {c.status}")
            elif c.status in ("not_run", "skipped"):
                left_out(_where(e, c), c.reason)
            for v in c.variants:
                if v.status == "oom" and c.oom_expected:
                    expected.append(_where(e, c, v))  # the case declares it: where its sweep ends
                elif v.status == "not_run" and c.status != "not_run":
                    left_out(_where(e, c, v), v.error)
                elif v.status not in ("ok", "not_run"):
                    bad.append(f"{_where(e, c, v)} {v.status}")
    figure = f"{n} cases" + (f"; not run for time: {len(short)} ({_some(short)})" if short else "")
    figure += f"; not run or skipped: {len(skipped)} ({_some(skipped)})" if skipped else ""
    figure += f"; out of memory as the case declares: {len(expected)} ({_some(expected)})" if expected else ""
    starved, unexcused = reserved and bool(short), reserved and bool(skipped) and not rehearsal
    expect = (
        "no experiment, case or variant failed, crashed, hung or stopped (an out-of-memory its case declares "
        "is an outcome)"
    )
    if reserved:
        expect += (
            "; nothing left not run for time" + ("" if rehearsal else " or skipped") + ": the step's time is reserved"
        )
    rows.append(
        Row(
            "experiments",
            name,
            "fail" if bad or starved or unexcused else "pass",
            figure
            + (f"; {_some(bad)}" if bad else "")
            + ("; a reserved step starved" if starved else "")
            + ("; skipped in a reserved step" if unexcused else ""),
            expect,
        )
    )
    checked, unchecked, failed = 0, 0, []
    for e in doc.experiments:
        for c in e.cases:
            for cm in c.comparisons if c.recorded_status == "ok" else []:
                status = cm.verification.status
                if status == "not_checked":  # outputs that differ by design (another batch size)
                    unchecked += 1
                    continue
                checked += 1
                if status != "passed":
                    failed.append(f"{_where(e, c)}/{cm.variant_name} {status}")
    figure = (
        f"{checked - len(failed)} of {checked} comparisons passed"
        + (f" ({unchecked} not checkable by design)" if unchecked else "")
        + (f": {_some(failed)}" if failed else "")
    )
    rows.append(
        Row(
            "verified",
            name,
            "fail" if failed else "pass" if checked else "wait",
            figure,
            "every comparison's outputs verified",
        )
    )
    rows += twin_rows(name, doc)
    if not rehearsal:
        rows += timing_rows(name, doc) + nvml_rows(name, doc)
    rows += cupti_rows(name, doc, rehearsal)
    return rows


def twin_rows(name: str, doc: Document) -> list[Row]:
    """The Python twins ran, on the run's device, with a torch of the LibTorch's version."""
    libtorch = doc.facts.libtorch_version
    twins, bad = 0, []
    for e, c, v in _variants(doc):
        if v.params.get("runtime") != "python":
            continue
        twins += 1
        torch = v.python_torch
        if v.recorded_status != "ok":
            bad.append(f"{_where(e, c, v)} {v.recorded_status}")
        elif not isinstance(torch, str) or torch.split("+")[0] != libtorch:
            bad.append(f"{_where(e, c, v)} torch {torch}")
    if not twins:
        return []
    return [
        Row(
            "twins",
            name,
            "fail" if bad else "pass",
            f"{twins - len(bad)} of {twins} ran" + (f": {_some(bad)}" if bad else f", torch {libtorch}"),
            f"every Python twin ran, its torch the LibTorch's ({libtorch})",
        )
    ]


def timing_rows(name: str, doc: Document) -> list[Row]:
    """CUDA events against the host clock that brackets them, per timing mode."""
    by_mode: dict[str, list[tuple[float, float, str]]] = {}
    for e, c, v in _variants(doc):
        dev, host = _median(v.series("device_s")), _median(v.series("host_s"))
        if v.recorded_status == "ok" and dev and host:
            mode = v.timing_mode or "?"
            by_mode.setdefault(mode, []).append((dev / host, dev, _where(e, c, v)))
    rows = []
    for mode, xs in sorted(by_mode.items()):
        over = [w for r, _, w in xs if r > DEVICE_OVER_HOST_MAX]
        long = [(r, w) for r, d, w in xs if d >= LONG_STEP_S]
        gap = [w for r, w in long if r < 1 - LONG_STEP_GAP_MAX]
        lo = min(xs)
        figure = f"{len(xs)} variants, device/host median {lo[0]:.3f} ({lo[2]}) to {max(xs)[0]:.3f}"
        if long:
            figure += f"; steps >= 1 ms: from {min(long)[0]:.3f}"
        if over or gap:
            figure += "; " + _some([f"{w} device above host" for w in over] + [f"{w} host gap" for w in gap])
        rows.append(
            Row(
                "events_vs_host",
                f"{name} {mode}",
                "fail" if over or gap else "pass",
                figure,
                f"device <= {DEVICE_OVER_HOST_MAX:g} x host; steps >= 1 ms: host gap <= {LONG_STEP_GAP_MAX:.0%}",
            )
        )
    return rows


def nvml_rows(name: str, doc: Document) -> list[Row]:
    """An SM clock sample beside every device-timed sample, and the throttle shares."""
    timed, missing, clocks, shares = 0, [], [], {}
    for e, c, v in _variants(doc):
        if v.recorded_status != "ok" or not v.series("device_s"):
            continue
        timed += 1
        sm = [x for x in v.series("sm_clock_mhz") if isinstance(x, (int, float))]
        if len(sm) != len(v.series("device_s")):
            missing.append(_where(e, c, v))
        clocks += sm
        for k, x in v.throttle_shares.items():
            shares[k] = max(shares.get(k, 0.0), x)
    if not timed:
        return []
    figure = (
        f"{timed - len(missing)} of {timed} device-timed variants"
        + (f", SM clock median {statistics.median(clocks):.0f} MHz (min {min(clocks):.0f})" if clocks else "")
        + (
            ", largest throttle shares " + ", ".join(f"{k} {x:.0%}" for k, x in sorted(shares.items()))
            if shares
            else ""
        )
        + (f"; without: {_some(missing)}" if missing else "")
    )
    return [Row("nvml", name, "fail" if missing else "pass", figure, "an SM clock sample beside every device sample")]


def kernel_s(b: Breakdown) -> float:
    """Device time per step in kernels: every category but copies and memsets."""
    return sum(x for k, x in b.categories_s.items() if isinstance(x, (int, float)) and k not in TRANSFERS)


def cupti_rows(name: str, doc: Document, rehearsal: bool) -> list[Row]:
    """Every profiled window on the device saw device work, and the launches of its
    kernels (a window of copies only, pinned_memory's, launches none: cudaMemcpyAsync
    is not a launch); and the mechanisms the breakdown exists to show: ResNet-50's
    convolutions, one launch per replayed graph step, one copy per pinned copy step."""
    windows, host_windows, empty, errors, skipped = 0, 0, [], [], 0
    facts: list[Row] = []
    for e, c, v in _variants(doc):
        b = v.breakdown
        if not b.recorded or v.recorded_status != "ok":
            continue
        if b.status == "skipped":
            skipped += 1
        elif b.status != "ok":
            errors.append(f"{_where(e, c, v)}: {b.reason}")
        elif b.device != "cuda":
            host_windows += 1
        else:
            windows += 1
            events, launches = b.device_events or 0, b.launches_per_step or 0
            if not events or (kernel_s(b) > 0 and not launches):
                empty.append(f"{_where(e, c, v)} ({events} device events, {launches:g} launches per step)")
            facts += mechanism_rows(name, e, c, v, b, events / (b.steps or 1))
    if errors:
        return [Row("cupti", name, "fail", f"profiling failed: {_some(errors)}", "every profiled window ok")]
    if not (windows or host_windows or skipped):
        return []  # not a profiled run
    if rehearsal:
        return [Row("cupti", name, "n/a", f"{host_windows} windows on the CPU, which has no device timeline", "")]
    if not windows:
        return [
            Row(
                "cupti",
                name,
                "fail",
                f"no window profiled on the device ({host_windows} on the host, {skipped} skipped for time)",
                "device windows with kernels",
            )
        ]
    figure = (
        f"{windows - len(empty)} of {windows} windows with device events (and launches where kernels ran)"
        + (f" ({skipped} skipped for time)" if skipped else "")
        + (f"; empty: {_some(empty)}" if empty else "")
    )
    return [
        Row(
            "cupti",
            name,
            "fail" if empty else "pass",
            figure,
            "kernels, copies and launches recorded in every profiled window",
        )
    ] + facts


def mechanism_rows(name: str, e: Experiment, c: Case, v: Variant, b: Breakdown, events_per_step: float) -> list[Row]:
    where = f"{name} {_where(e, c, v)}"
    params = c.params
    if e.name == "mixed_precision" and params.get("model") == "resnet50":
        conv = b.categories_s.get("conv") or 0.0
        return [
            Row(
                "conv_time",
                where,
                "pass" if conv > 0 else "fail",
                f"{conv * 1e3:.2f} ms per step in conv kernels",
                "convolution kernels on the device",
            )
        ]
    if e.name == "cuda_graphs" and v.role == "optimized":
        n = b.launches_per_step or 0.0
        return [
            Row(
                "graph_launches",
                where,
                "pass" if 0 < n <= GRAPH_LAUNCHES_MAX else "fail",
                f"{n:g} launches per step",
                f"1 to {GRAPH_LAUNCHES_MAX:g} (the graph, the batch's copy in)",
            )
        ]
    if e.name == "pinned_memory" and "direction" in params and v.role == "optimized":
        lo, hi = COPIES_PER_STEP
        return [
            Row(
                "pinned_copies",
                where,
                "pass" if lo <= events_per_step <= hi else "fail",
                f"{events_per_step:.2f} device copies per step",
                "one copy per step",
            )
        ]
    return []


# --- the matmul cross-check ----------------------------------------------------


def matmul_row(path: Path, step: dict | None) -> list[Row]:
    """The calibration's verdict; its file missing fails where its step had reserved
    time, and waits where it ran only in what was left."""
    if not path.exists():
        if step is None:
            return []  # a plan without the calibration (the tests' planted ones)
        reserved = step.get("reserve") == "1"
        return [
            Row(
                "matmul_check",
                path.name,
                "fail" if reserved else "wait",
                f"no {path.name} (its step: exit {step.get('exit')}, budget {step.get('budget_s')})",
                "a check_matmul.py result" + (" (a reserved step)" if reserved else ""),
            )
        ]
    try:
        r = json.loads(path.read_text())
        figure = (
            f"optbench {r['optbench']['median_s'] * 1e6:.1f} us, torch.utils.benchmark "
            f"{r['torch_utils_benchmark']['median_s'] * 1e6:.1f} us"
        )
        ok = bool(r["passed"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        return [Row("matmul_check", path.name, "fail", f"unreadable: {err}", "a check_matmul.py result")]
    return [Row("matmul_check", path.name, "pass" if ok else "fail", figure, "agree within the noise bar")]


# --- the whole -----------------------------------------------------------------


def collect(folder: Path, rehearsal: bool) -> list[Row]:
    steps_file = folder / "steps.tsv"
    steps = list(csv.DictReader(steps_file.open(), delimiter="\t")) if steps_file.exists() else []
    docs: dict[str, Document] = {}
    rows: list[Row] = []
    for p in sorted((folder / "runs").glob("*.json")):
        try:
            docs[p.name] = Document(load_results(p))
        except ResultsError as err:
            rows.append(Row("file", p.name, "fail", str(err), "a valid optbench results file"))
    gpu = gpu_row(list(docs.values()), rehearsal)
    first_gpu = next((d.gpu_name for d in docs.values() if d.gpu_name), None)
    rows = [gpu] + step_rows(steps) + rows
    reserved = {s.get("step"): s.get("reserve") == "1" for s in steps}
    for n, d in docs.items():
        rows += file_rows(n, d, rehearsal, first_gpu, reserved.get(Path(n).stem, False))
    matmul_step = next((s for s in steps if s.get("step") == "matmul_check"), None)
    return rows + matmul_row(folder / "matmul_check.json", matmul_step)


def write(rows: list[Row], folder: Path) -> None:
    with (folder / "checks.tsv").open("w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["check", "subject", "result", "figure", "expected"])
        for r in rows:
            w.writerow([r.check, r.subject, r.result, r.figure.replace("\t", " "), r.expected])


def show(rows: list[Row]) -> str:
    width = max(len(f"{r.check} {r.subject}") for r in rows)
    lines = [f"{'check':{width}}  result  figure"]
    lines += [f"{r.check + ' ' + r.subject:{width}}  {r.result:6}  {r.figure}" for r in rows]
    failed = [r for r in rows if r.result == "fail"]
    lines.append(
        f"checks: {len(failed)} failed of {len(rows)}"
        + (": " + _some([f"{r.check} {r.subject}" for r in failed], 6) if failed else "")
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--rehearsal", action="store_true", help="the session ran on the CPU")
    a = ap.parse_args(argv)
    if not a.folder.is_dir():
        print(f"error: {a.folder}: no such folder", file=sys.stderr)
        return 2
    rows = collect(a.folder, a.rehearsal)
    write(rows, a.folder)
    print(show(rows))
    return 1 if any(r.result == "fail" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
