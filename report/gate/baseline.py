"""Which committed results file a new run should be compared with: the newest
file in the given directories that ran on the same device (GPU name, or CPU
model) and completed. Used by the GPU regression workflow, so a runner with an
H100 gates against the H100 baseline and never against another GPU's."""

from __future__ import annotations

from pathlib import Path

from ..load.document import device_name, run_facts, source_path
from ..load.results import ResultsError, check_results, expand_paths, is_gbench, read_json


class NoBaseline(ResultsError):
    """No committed run of CURRENT's device: nothing to gate against yet, which a
    workflow tells apart from bad input (exit 3, not 2)."""


def candidates(paths: list[str | Path]) -> list[tuple[Path, dict]]:
    """Every readable optbench results file under `paths`; others are passed over
    (a results/ folder may hold Google Benchmark files or notes)."""
    out = []
    for p in expand_paths(paths):
        try:
            doc = read_json(p)
            if is_gbench(doc):
                continue
            out.append((p, check_results(doc, p)))
        except ResultsError:
            continue
    return out


def _same_run(a: dict, b: dict) -> bool:
    return Path(source_path(a)).resolve() == Path(source_path(b)).resolve()


def find_baseline(current: dict, paths: list[str | Path]) -> Path:
    want = device_name(current)
    same = [
        (p, d)
        for p, d in candidates(paths)
        if device_name(d) == want and run_facts(d).status == "complete" and not _same_run(d, current)
    ]
    if not same:
        raise NoBaseline(f"no complete results file from {want!r} among {', '.join(map(str, paths))}")
    # Newest run first: the date the run recorded, then the file name.
    same.sort(key=lambda pd: (str(run_facts(pd[1]).date or ""), pd[0].name))
    return same[-1][0]


def history_runs(current: dict, baseline: dict, paths: list[str | Path]) -> list[dict]:
    """Other runs of the baseline's code under `paths`, for the gate's noise floors:
    the same device as CURRENT and the same git commit as BASELINE (runs of older code
    differ by real changes, not noise), finished or not (each finished case counts);
    never CURRENT or BASELINE themselves."""
    want = device_name(current)
    return [
        d
        for _, d in candidates(paths)
        if device_name(d) == want
        and run_facts(d).git_sha == run_facts(baseline).git_sha
        and not _same_run(d, current)
        and not _same_run(d, baseline)
    ]
