"""The GPU session's verdict on itself (scripts/gpu-session): one row per fact a reviewer
needs before trusting what a short GPU lease produced, each pass or fail with the figure
it rests on, printed and saved as DIR/checks.tsv; any failed row fails the session.

    python -m report.session_checks DIR [--rehearsal]

DIR holds what the session wrote: steps.tsv, matmul_check.json and the results files
of its run steps in DIR/runs. With --rehearsal (a session on the CPU) the rows a CPU cannot show
are "n/a" and every results file must say device cpu; without it, a session with no
results on a GPU fails its first row. A row is "wait" where the session had no time
for it (an unreserved step skipped), which does not fail the session."""
from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from .document import Breakdown, breakdown_of
from .results import ResultsError, load_results

# Device time is measured by events inside the host's timed region, so a device
# median above the host median is a measurement fault; the 2% allow for the two
# clocks' resolutions at the shortest steps.
DEVICE_OVER_HOST_MAX = 1.02
# Where a step is long enough (>= 1 ms on the device) the host's extra time is the
# launch and synchronisation alone: the 2026-11-24 H100 files left at most 6%
# (0.94); anything inside the timed region (an NVML read) would widen it.
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


def _variants(doc: dict):
    """(experiment, case, variant) for every variant of every case that ran."""
    for e in doc.get("experiments") or []:
        for c in e.get("cases") or []:
            if c.get("status") in ("ok", "interrupted"):
                for v in c.get("variants") or []:
                    yield e, c, v


def _where(e: dict, c: dict, v: dict | None = None) -> str:
    return "/".join(str(x.get("name")) for x in (e, c, v) if x is not None)


def _some(names: list[str], n: int = 3) -> str:
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


# --- the steps -----------------------------------------------------------------

def step_rows(steps: list[dict]) -> list[Row]:
    """Each step: exit 0, within its budget plus its overrun; a reserved step skipped
    fails, an unreserved one waits for a longer session."""
    rows = []
    for s in steps:
        name, budget, rc = s["step"], s["budget_s"], s["exit"]
        if budget == "skipped":
            reserved = s.get("reserve") == "1"
            rows.append(Row("step", name, "fail" if reserved else "wait", "skipped for time",
                            "run (a reserved step)" if reserved else "run when the session has time"))
            continue
        took = int(s["seconds"])
        limit = None if budget in ("-", "") else int(budget) + int(s.get("overrun_s") or 0)
        ok = rc == "0" and (limit is None or took <= limit + 1)  # +1: whole seconds at both ends
        figure = f"exit {rc}, {took} s" + (f" of {budget} s" if limit is not None else "")
        rows.append(Row("step", name, "pass" if ok else "fail", figure,
                        "exit 0" + (f", at most {limit} s (budget + overrun)" if limit is not None else "")))
    return rows


# --- the machine ---------------------------------------------------------------

def gpu_row(docs: list[dict], rehearsal: bool) -> Row:
    """The GPU the session ran on, as the first results file's environment names it."""
    expected = "one CUDA GPU named, with its driver, clocks and power limit"
    if rehearsal:
        return Row("gpu", "machine", "n/a", "a rehearsal on the CPU", expected)
    for d in docs:
        env = d.get("environment") or {}
        gpus = (env.get("cuda") or {}).get("gpus") or []
        if env.get("device") == "cuda" and gpus:
            g = gpus[0]
            nv = g.get("nvml") or {}
            figure = (f"{g.get('name')}, driver {nv.get('driver_version') or '?'}, "
                      f"SM clock max {nv.get('sm_clock_max_mhz') or g.get('clock_rate_mhz') or '?'} MHz, "
                      f"power limit {nv.get('power_limit_w') or '?'} W")
            return Row("gpu", "machine", "pass", figure, expected)
    return Row("gpu", "machine", "fail", "no GPU: no results file ran on cuda" if docs else "no GPU: no results file",
               expected)


def gpu_name(doc: dict) -> str | None:
    gpus = ((doc.get("environment") or {}).get("cuda") or {}).get("gpus") or []
    return gpus[0].get("name") if gpus else None


# --- each results file ---------------------------------------------------------

def file_rows(name: str, doc: dict, rehearsal: bool, gpu: str | None) -> list[Row]:
    env = doc.get("environment") or {}
    want = "cpu" if rehearsal else "cuda"
    dev = env.get("device")
    on = f"{dev}" + (f" ({gpu_name(doc)})" if dev == "cuda" else "")
    same = rehearsal or gpu_name(doc) == gpu
    rows = [Row("device", name, "pass" if dev == want and same else "fail", on,
                f"{want}" + ("" if rehearsal else f" on {gpu}"))]
    rows.append(Row("run", name, "pass" if doc.get("status") == "complete" else "fail",
                    f"status {doc.get('status')}", "complete"))
    bad, short, n = [], [], 0
    for e in doc.get("experiments") or []:
        if e.get("status") in FAILED_STATUSES:
            bad.append(f"{e.get('name')} {e.get('status')}")
        for c in e.get("cases") or []:
            n += 1
            if c.get("status") in FAILED_STATUSES:
                bad.append(f"{_where(e, c)} {c.get('status')}")
            elif c.get("status") == "not_run":
                short.append(_where(e, c))
            for v in c.get("variants") or []:
                if v.get("status") not in (None, "ok", "not_run"):
                    bad.append(f"{_where(e, c, v)} {v.get('status')}")
    figure = f"{n} cases" + (f"; not run for time: {len(short)} ({_some(short)})" if short else "")
    rows.append(Row("experiments", name, "fail" if bad else "pass", figure + (f"; {_some(bad)}" if bad else ""),
                    "no experiment, case or variant failed, crashed, hung or stopped"))
    checked, unchecked, failed = 0, 0, []
    for e in doc.get("experiments") or []:
        for c in e.get("cases") or []:
            for cm in c.get("comparisons") or [] if c.get("status") == "ok" else []:
                status = (cm.get("verification") or {}).get("status")
                if status == "not_checked":  # outputs that differ by design (another batch size)
                    unchecked += 1
                    continue
                checked += 1
                if status != "passed":
                    failed.append(f"{_where(e, c)}/{cm.get('variant')} {status}")
    figure = f"{checked - len(failed)} of {checked} comparisons passed" + (
        f" ({unchecked} not checkable by design)" if unchecked else "") + (f": {_some(failed)}" if failed else "")
    rows.append(Row("verified", name, "fail" if failed else "pass" if checked else "wait", figure,
                    "every comparison's outputs verified"))
    rows += twin_rows(name, doc)
    if not rehearsal:
        rows += timing_rows(name, doc) + nvml_rows(name, doc)
    rows += cupti_rows(name, doc, rehearsal)
    return rows


def twin_rows(name: str, doc: dict) -> list[Row]:
    """The Python twins ran, on the run's device, with a torch of the LibTorch's version."""
    libtorch = ((doc.get("environment") or {}).get("libtorch") or {}).get("version")
    twins, bad = 0, []
    for e, c, v in _variants(doc):
        if (v.get("params") or {}).get("runtime") != "python":
            continue
        twins += 1
        torch = (v.get("metrics") or {}).get("python_torch")
        if v.get("status") != "ok":
            bad.append(f"{_where(e, c, v)} {v.get('status')}")
        elif not isinstance(torch, str) or torch.split("+")[0] != libtorch:
            bad.append(f"{_where(e, c, v)} torch {torch}")
    if not twins:
        return []
    return [Row("twins", name, "fail" if bad else "pass", f"{twins - len(bad)} of {twins} ran"
                + (f": {_some(bad)}" if bad else f", torch {libtorch}"),
                f"every Python twin ran, its torch the LibTorch's ({libtorch})")]


def timing_rows(name: str, doc: dict) -> list[Row]:
    """CUDA events against the host clock that brackets them, per timing mode."""
    by_mode: dict[str, list[tuple[float, float, str]]] = {}
    for e, c, v in _variants(doc):
        s = v.get("samples") or {}
        dev, host = _median(s.get("device_s") or []), _median(s.get("host_s") or [])
        if v.get("status") == "ok" and dev and host:
            mode = v.get("timing_mode") or c.get("timing_mode") or "?"
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
        rows.append(Row("events_vs_host", f"{name} {mode}", "fail" if over or gap else "pass", figure,
                        f"device <= {DEVICE_OVER_HOST_MAX:g} x host; steps >= 1 ms: host gap <= "
                        f"{LONG_STEP_GAP_MAX:.0%}"))
    return rows


def nvml_rows(name: str, doc: dict) -> list[Row]:
    """An SM clock sample beside every device-timed sample, and the throttle shares."""
    timed, missing, clocks, shares = 0, [], [], {}
    for e, c, v in _variants(doc):
        s = v.get("samples") or {}
        if v.get("status") != "ok" or not s.get("device_s"):
            continue
        timed += 1
        sm = [x for x in s.get("sm_clock_mhz") or [] if isinstance(x, (int, float))]
        if len(sm) != len(s["device_s"]):
            missing.append(_where(e, c, v))
        clocks += sm
        for k, x in (v.get("throttle") or {}).items():
            if k != "samples" and isinstance(x, (int, float)):
                shares[k] = max(shares.get(k, 0.0), float(x))
    if not timed:
        return []
    figure = (f"{timed - len(missing)} of {timed} device-timed variants"
              + (f", SM clock median {statistics.median(clocks):.0f} MHz (min {min(clocks):.0f})" if clocks else "")
              + (", largest throttle shares " + ", ".join(f"{k} {x:.0%}" for k, x in sorted(shares.items()))
                 if shares else "")
              + (f"; without: {_some(missing)}" if missing else ""))
    return [Row("nvml", name, "fail" if missing else "pass", figure, "an SM clock sample beside every device sample")]


def cupti_rows(name: str, doc: dict, rehearsal: bool) -> list[Row]:
    """Every profiled window on the device saw kernels and launches; and the
    mechanisms the breakdown exists to show: ResNet-50's convolutions, one launch per
    replayed graph step, one copy per pinned copy step."""
    windows, host_windows, empty, errors, skipped = 0, 0, [], [], 0
    facts: list[Row] = []
    for e, c, v in _variants(doc):
        b = breakdown_of(v)
        if not b.recorded or v.get("status") != "ok":
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
            if not events or not launches:
                empty.append(f"{_where(e, c, v)} ({events} device events, {launches:g} launches per step)")
            facts += mechanism_rows(name, e, c, v, b, events / (b.steps or 1))
    if errors:
        return [Row("cupti", name, "fail", f"profiling failed: {_some(errors)}", "every profiled window ok")]
    if not (windows or host_windows or skipped):
        return []  # not a profiled run
    if rehearsal:
        return [Row("cupti", name, "n/a", f"{host_windows} windows on the CPU, which has no device timeline", "")]
    if not windows:
        return [Row("cupti", name, "fail", f"no window profiled on the device ({host_windows} on the host, "
                    f"{skipped} skipped for time)", "device windows with kernels")]
    figure = f"{windows - len(empty)} of {windows} windows with device events and launches" + (
        f" ({skipped} skipped for time)" if skipped else "") + (f"; empty: {_some(empty)}" if empty else "")
    return [Row("cupti", name, "fail" if empty else "pass", figure,
                "kernels, copies and launches recorded in every profiled window")] + facts


def mechanism_rows(name: str, e: dict, c: dict, v: dict, b: Breakdown, events_per_step: float) -> list[Row]:
    where = f"{name} {_where(e, c, v)}"
    params = c.get("params") or {}
    if e.get("name") == "mixed_precision" and params.get("model") == "resnet50":
        conv = b.categories_s.get("conv") or 0.0
        return [Row("conv_time", where, "pass" if conv > 0 else "fail", f"{conv * 1e3:.2f} ms per step in conv kernels",
                    "convolution kernels on the device")]
    if e.get("name") == "cuda_graphs" and v.get("role") == "optimized":
        n = b.launches_per_step or 0.0
        return [Row("graph_launches", where, "pass" if 0 < n <= GRAPH_LAUNCHES_MAX else "fail",
                    f"{n:g} launches per step", f"1 to {GRAPH_LAUNCHES_MAX:g} (the graph, the batch's copy in)")]
    if e.get("name") == "pinned_memory" and "direction" in params and v.get("role") == "optimized":
        lo, hi = COPIES_PER_STEP
        return [Row("pinned_copies", where, "pass" if lo <= events_per_step <= hi else "fail",
                    f"{events_per_step:.2f} device copies per step", "one copy per step")]
    return []


# --- the matmul cross-check ----------------------------------------------------

def matmul_row(path: Path) -> list[Row]:
    if not path.exists():
        return []
    try:
        r = json.loads(path.read_text())
        figure = (f"optbench {r['optbench']['median_s'] * 1e6:.1f} us, torch.utils.benchmark "
                  f"{r['torch_utils_benchmark']['median_s'] * 1e6:.1f} us")
        ok = bool(r["passed"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        return [Row("matmul_check", path.name, "fail", f"unreadable: {err}", "a check_matmul.py result")]
    return [Row("matmul_check", path.name, "pass" if ok else "fail", figure, "agree within the noise bar")]


# --- the whole -----------------------------------------------------------------

def collect(folder: Path, rehearsal: bool) -> list[Row]:
    steps_file = folder / "steps.tsv"
    steps = list(csv.DictReader(steps_file.open(), delimiter="\t")) if steps_file.exists() else []
    docs: dict[str, dict] = {}
    rows: list[Row] = []
    for p in sorted((folder / "runs").glob("*.json")):
        try:
            docs[p.name] = load_results(p)
        except ResultsError as err:
            rows.append(Row("file", p.name, "fail", str(err), "a valid optbench results file"))
    gpu = gpu_row(list(docs.values()), rehearsal)
    first_gpu = next((gpu_name(d) for d in docs.values() if gpu_name(d)), None)
    rows = [gpu] + step_rows(steps) + rows
    for n, d in docs.items():
        rows += file_rows(n, d, rehearsal, first_gpu)
    return rows + matmul_row(folder / "matmul_check.json")


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
    lines.append(f"checks: {len(failed)} failed of {len(rows)}"
                 + (": " + _some([f"{r.check} {r.subject}" for r in failed], 6) if failed else ""))
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
