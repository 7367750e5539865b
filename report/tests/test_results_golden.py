"""What the report computes from every committed results file, pinned: each claim's
verdict, estimate and interval, each comparison's estimate and interval, and the
summary's cells (verdict, figure, reason) as printed. A file the report cannot read is
pinned by its error line. The goldens are compact JSON in report/tests/golden/, one per
input; a refactor that changes none of these keeps them green.

A deliberate change regenerates them (and the diff is then reviewed):
    python -m report.tests.test_results_golden"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from report.load.results import ResultsError, load_inputs
from report.render.command import build
from report.render.verdict_words import why_text
from report.statistics.measurement import PROCESS

ROOT = Path(__file__).resolve().parents[2]
GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def inputs() -> list[Path]:
    """Every committed results file, and the report's results fixtures."""
    files = sorted((ROOT / "results").glob("*.json"))
    files += sorted(q for q in FIXTURES.rglob("*.json*") if q.suffix in (".json", ".gz"))
    return files


def golden_name(p: Path) -> str:
    rel = p.relative_to(ROOT).as_posix()
    return rel.replace("/", "__").removesuffix(".gz").removesuffix(".json") + ".json"


def _num(v: object) -> object:
    """A float as JSON keeps it (repr round-trips); a non-finite one as text."""
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v


def _fields(obj, names) -> dict:
    """The named fields that hold a value (an absent one is None)."""
    return {f: _num(getattr(obj, f)) for f in names if getattr(obj, f) is not None}


def _row_key(r) -> str:
    return f"{r.experiment}/{r.case}/{r.variant}"


COMPARISON_FIELDS = ("median_s", "speedup", "ci_low", "ci_high", "confidence", "ci_unit", "ci_n", "ci_df")
COMPARISON_FIELDS += ("process_speedups", "rounds", "below_floor", "marker", "variant_status")


def _claim_fields(c) -> dict:
    """A claim's figure (its Measurement) by the keys the goldens were first pinned with."""
    m = c.m
    between = m is not None and m.unit == PROCESS
    rec = {
        "estimate": m and m.speedup,
        "low": c.low,
        "high": c.high,
        "ci_low": m and m.ci_low,
        "ci_high": m and m.ci_high,
        "confidence": m.confidence if m else c.run_confidence,
        "basis": "between processes" if between else "within one process",
        "processes": (m.n or 1) if between else 1,
        "apart": c.apart,
    }
    return {k: _num(v) for k, v in rec.items() if v is not None}


def _evidence(e) -> list:
    """A comparison a claim rests on: where, its figures, and its own verdict where judged apart."""
    own = e.verdict.verdict if e.verdict else None
    return [f"{e.experiment}/{e.case}/{e.variant}", *(_num(x) for x in (e.m.speedup, e.m.ci_low, e.m.ci_high)), own]


def computed(p: Path) -> dict:
    """The compact record of what the report computes from one file."""
    try:
        [inp] = load_inputs([p])
    except ResultsError as e:
        return {"error": str(e).replace(str(p), p.name)}
    report = build([inp], None, "none")
    [s] = report.runs
    comparisons = {}
    for t in s.tables:
        for r in t.rows:
            if r.variant is None:
                continue
            comparisons[_row_key(r)] = _fields(r, COMPARISON_FIELDS)
    claims = {}
    for c in s.claims:
        rec = _claim_fields(c)
        rec["verdict"] = c.verdict.verdict if c.verdict else None
        rec["why"] = why_text(c.verdict) if c.verdict else None
        if c.evidence:
            rec["evidence"] = [_evidence(e) for e in c.evidence]
        claims[str(c.claim.get("id"))] = rec
    summary = {}
    sm = report.summary
    for row in [*sm.rows, *sm.unjudged]:
        [cell] = row.runs
        summary[row.claim] = {"verdict": cell.verdict, "figure": cell.figure, "why": cell.why, "group": row.group}
    unmeasured = [[reason, list(ids)] for reason, ids in sm.unmeasured]
    return {"claims": claims, "comparisons": comparisons, "summary": summary, "unmeasured": unmeasured}


def _flat(v: object, at: str, out: dict) -> dict:
    if isinstance(v, dict):
        for k, x in v.items():
            _flat(x, f"{at}/{k}" if at else str(k), out)
    else:
        out[at] = v
    return out


def differences(want: dict, got: dict) -> list[str]:
    a, b = _flat(want, "", {}), _flat(got, "", {})
    return [
        f"{k}: was {a.get(k, '(absent)')!r}, now {b.get(k, '(absent)')!r}"
        for k in sorted(a.keys() | b.keys())
        if a.get(k, "(absent)") != b.get(k, "(absent)")
    ]


@pytest.mark.parametrize("path", inputs(), ids=lambda p: p.name)
def test_report_computes_what_it_did(path):
    golden = GOLDEN_DIR / golden_name(path)
    assert golden.is_file(), f"{path.name}: no golden {golden.name}; regenerate (module docstring)"
    diff = differences(json.loads(golden.read_text()), json.loads(json.dumps(computed(path))))
    assert not diff, f"{path.relative_to(ROOT)}: {len(diff)} figure(s) changed:\n" + "\n".join(diff[:40])


def test_every_golden_has_its_input():
    names = {golden_name(p) for p in inputs()}
    assert sorted(q.name for q in GOLDEN_DIR.glob("*.json") if q.name not in names) == []


def dumps(record: dict) -> str:
    """Compact and diffable: one line per claim, comparison and summary row."""
    if "error" in record:
        return json.dumps(record) + "\n"
    parts = []
    for key, group in record.items():
        if isinstance(group, dict):
            lines = [f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in group.items()]
            parts.append(f" {json.dumps(key)}: {{\n" + ",\n".join(lines) + "\n }")
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(group)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def regenerate() -> None:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for p in inputs():
        text = dumps(computed(p))
        (GOLDEN_DIR / golden_name(p)).write_text(text, encoding="utf-8")
        print(golden_name(p), file=sys.stderr)


if __name__ == "__main__":
    regenerate()
