"""One experiment's comparisons in several runs, side by side (report.md's and the
HTML's table per experiment when a report renders several results files): a row per
comparison (case, variant) in the order the runs first list them, a cell per run (its
estimate and CI, the marker where the variant did not run, — where the run has no such
row), and "moved?": 'no' where the runs' CIs have a point in common, 'estimate: CIs
apart' where they have none, '—' where fewer than two runs have a CI for it. The
baseline rows (1×) are left out: they compare nothing. Each run's whole table (times,
spread, why, notes) is in the details."""

from __future__ import annotations

from dataclasses import dataclass

from ..load.numbers import is_num
from .cells import main_speedup_cell
from .fmt import DASH, intervals_apart
from .glossary import spelling
from .tables import Row as TableRow

MOVED = spelling("moved?")


@dataclass
class Row:
    case: str
    variant: str
    cells: list[str]
    moved: str

    @property
    def all_cells(self) -> list[str]:
        return [self.case, self.variant, *self.cells, self.moved]


def headers(labels: list[str]) -> list[str]:
    return ["case", "variant", *(f"{lab} speedup [CI]" for lab in labels), MOVED]


def _key(r: TableRow) -> tuple[str, str]:
    variant = str(r.variant) if r.variant is not None else DASH
    if r.role == "reference":
        variant += " (reference)"
    return (str(r.case) if r.case is not None else DASH, variant)


def _shown(r: TableRow) -> bool:
    """A comparison's row, or a marked one (a variant or case that did not run)."""
    if r.role == "baseline" and not r.marker:
        return False
    return r.speedup is not None or bool(r.marker)


def _cell(r: TableRow, processes: int | None) -> str:
    marker = r.marker
    if marker and r.speedup is None:
        return f"{marker}: {r.reason}" if r.reason else marker
    return main_speedup_cell(r, processes)


def moved(rows: list[TableRow | None]) -> str:
    """Whether the comparison's estimate moved between the runs: their CIs apart, or not."""
    cis = [(r.ci_low, r.ci_high) for r in rows if r is not None and is_num(r.ci_low) and is_num(r.ci_high)]
    if len(cis) < 2:
        return DASH
    lo, hi = max(c[0] for c in cis), min(c[1] for c in cis)
    if lo <= hi:
        return "no"
    return "estimate: CIs apart, " + ", ".join(intervals_apart(cis))


def rows(tables: list[dict | None], processes: list[int | None]) -> list[Row]:
    """The side-by-side rows of one experiment: tables[i] is run i's (None: not in it)."""
    per_run = [{_key(r): r for r in t.rows if _shown(r)} if t else {} for t in tables]
    keys = list(dict.fromkeys(k for m in per_run for k in m))
    out = []
    for k in keys:
        found = [m.get(k) for m in per_run]
        cells = [_cell(r, p) if r is not None else DASH for r, p in zip(found, processes)]
        out.append(Row(k[0], k[1], cells, moved(found)))
    return out
