"""results.csv: one row per file x experiment x case x variant (raw numbers, seconds
and per-second units); benchmarks.csv for Google Benchmark inputs.

speedup, ci_low and ci_high are the comparison's one estimate and interval
(document.Comparison.estimate), the figures every table, plot and the gate use, at
`confidence`; ci_unit says what the interval's spread is between ('process': ci_n
processes, Student's t with ci_df degrees of freedom; 'round': ci_n interleaved rounds
in one process) and process_speedups lists each process's own ratio (points, first
process first). rounds is the number of interleaved rounds behind the first process's
ratio; below_floor marks one from fewer rounds than the floor (rounds.py): with one
process its ci_low and ci_high stay empty, it has no CI. why is a comparison's
explanation from the profiler breakdowns (why.py), empty for files without any.

A text cell that a spreadsheet would read as a formula (it starts with = + - @, a tab, a
carriage return or a NUL: OWASP's CSV injection list) gets a leading ' so it opens as
text; numbers are written as numbers, so -0.5 stays a number."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from .tables import Row

COLUMNS = ["file", *Row.csv_columns()]  # the file, then each row's fields
GBENCH_COLUMNS = ["file", "name", "family", "real_s", "cpu_s", "iterations", "counters", "error"]


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\0")


def _cell(v: object) -> object:
    if v is None:
        return ""
    if isinstance(v, (dict, list)):
        return json.dumps(v, sort_keys=True)  # starts with { or [: never a formula
    if isinstance(v, str) and v.startswith(FORMULA_STARTS):
        return "'" + v
    return v


def write_results_csv(sections: list, path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for s in sections:
            if s.kind != "optbench":
                continue
            for t in s.tables:
                for r in t.rows:
                    # an item name only beside an items rate
                    values = {"file": str(s.path), "item_name": r.item_name if r.items_per_s is not None else None}
                    w.writerow([_cell(values[c] if c in values else getattr(r, c)) for c in COLUMNS])


def write_gbench_csv(sections: list, path: Path) -> bool:
    from ..load.gbench import rows

    gb = [s for s in sections if s.kind == "gbench"]
    if not gb:
        return False
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(GBENCH_COLUMNS)
        for s in gb:
            for r in rows(s.doc):
                w.writerow([_cell(dict(r, file=str(s.path)).get(c)) for c in GBENCH_COLUMNS])
    return True
