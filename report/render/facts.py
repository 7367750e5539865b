"""An experiment's derived figures as tables, not lines: a case's figures, flattened to
dotted keys (tables.flatten_derived), become a table of figure by case, and figures
kept per member (per loop, per variant: "workers_0.data_wait_fraction",
"variants.ddp.buckets") a table of figure by member per case. A table has the
shorter of its two dimensions as columns, so it grows down, not sideways.

Names (cases, members, figures) are the results file's: the writers show them as code."""

from __future__ import annotations

from dataclasses import dataclass

from ..load.numbers import is_num
from .fmt import DASH, sig


def value_text(v: object) -> str:
    """A figure's value: integers whole, other numbers to 3 significant figures, lists bracketed."""
    if isinstance(v, list):
        return "[" + ", ".join(value_text(x) for x in v) + "]"
    if v is None:
        return DASH
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    return sig(v) if is_num(v) else str(v)


@dataclass
class FactTable:
    title: str  # whose figures: "" for the figures of the cases, else "case" or "case: parent"
    columns: list[str]  # names from the file
    rows: list[tuple[str, list[str]]]  # (name from the file, cells)
    numeric: bool  # every cell a number (right-aligned in HTML)


def _matrix(title: str, row_keys: list[str], col_keys: list[str], cells: dict[tuple[str, str], object]) -> FactTable:
    if len(col_keys) > len(row_keys):  # the shorter side across
        row_keys, col_keys = col_keys, row_keys
        cells = {(c, r): v for (r, c), v in cells.items()}
    rows = [(r, [value_text(cells[(r, c)]) if (r, c) in cells else DASH for c in col_keys]) for r in row_keys]
    numeric = all(is_num(v) for v in cells.values())
    return FactTable(title, col_keys, rows, numeric)


def _unique(xs: list[str]) -> list[str]:
    return list(dict.fromkeys(xs))


def derived_tables(cases: list[tuple[str, list[tuple[str, object]]]]) -> list[FactTable]:
    """cases: (case name, flattened derived figures). A key 'a.b.f' is figure f of member
    'a.b', whose parent is 'a'; members of one parent with two or more members in a case
    make that case's member table, every other key is a plain figure of its case."""
    plain: dict[tuple[str, str], object] = {}
    plain_keys: list[str] = []
    groups: list[FactTable] = []
    for case, items in cases:
        members: dict[str, dict[str, list[str]]] = {}  # parent -> member -> its keys
        for key, _ in items:
            if "." in key:
                member = key.rsplit(".", 1)[0]
                parent = member.rsplit(".", 1)[0] if "." in member else ""
                members.setdefault(parent, {}).setdefault(member, []).append(key)
        grouped = {k for ms in members.values() if len(ms) >= 2 for keys in ms.values() for k in keys}
        values = dict(items)
        for key, v in items:
            if key not in grouped:
                plain[(key, case)] = v
                plain_keys.append(key)
        for parent, ms in members.items():
            if len(ms) < 2:
                continue
            prefix = f"{parent}." if parent else ""
            cells = {(k.rsplit(".", 1)[1], m[len(prefix) :]): values[k] for m, keys in ms.items() for k in keys}
            fields = _unique([f for f, _ in cells])
            title = f"{case}: {parent}" if parent else case
            groups.append(_matrix(title, fields, [m[len(prefix) :] for m in ms], cells))
    out = []
    if plain:
        out.append(_matrix("", _unique(plain_keys), _unique([c for _, c in plain]), plain))
    return out + groups
