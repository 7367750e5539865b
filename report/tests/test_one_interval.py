"""One interval per comparison, everywhere (issue 41, item 2): every committed results
file (results/*.json and every fixture, gzipped ones included) rendered to Markdown and
CSV, and every speedup and interval printed for a comparison checked against that
comparison's one estimate (document.Comparison.estimate), to the digits printed.

- CSV: numbers, compared exactly (the writer writes floats as Python prints them),
  with the interval's basis (ci_unit, ci_n, ci_df, confidence).
- Markdown: each run's whole experiment table (report_details.md), matched to the tables' rows in order (the
  case and variant cells checked as well, so a misalignment fails), the speedup
  cell's point and every bracketed interval in it parsed and compared to the estimate
  at the precision printed; a cell without an interval only where the estimate has none.
- `report gpus`: the speedup cells of the H100 runs likewise.

The files are loaded without the schema check (other tests check them), which keeps
this to a few seconds on a 2-core runner."""

from __future__ import annotations

import csv
import re

import pytest
from conftest import FIXTURES, REPO

from report.load.document import Document
from report.load.results import Input, load_results
from report.render.command import render
from report.render.write_md import esc
from report.statistics.measurement import Measurement

FILES = sorted((REPO / "results").glob("*.json")) + sorted(
    p for p in FIXTURES.rglob("*") if p.name.endswith((".json", ".json.gz"))
)
NUM = r"[0-9]+(?:\.[0-9]+)?(?:e[+-][0-9]+)?"
POINT = re.compile(rf"^({NUM})×")
INTERVAL = re.compile(rf"\[({NUM}), ({NUM})\]")
CELL_SPLIT = re.compile(r"(?<!\\)\|")


def printed_as(text: str, value: float) -> bool:
    """text is value to the digits printed ('1.16' for 1.1584...; '1.23e+06')."""
    mant, _, exp = text.partition("e")
    decimals = len(mant.partition(".")[2])
    half_ulp = 0.5 * 10.0 ** (-decimals + (int(exp) if exp else 0))
    return abs(float(text) - value) <= half_ulp * (1 + 1e-9)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    docs = [load_results(p, validate=False) for p in FILES]
    out = tmp_path_factory.mktemp("one_interval")
    written = render([Input("optbench", p, d) for p, d in zip(FILES, docs)], out, plots=False)
    return docs, written


def _estimates(doc: dict, markers: bool = False) -> list[tuple[str, str, str | None, Measurement | None, bool]]:
    """Per variant row of the experiment tables, in their order: (experiment, case,
    variant, the estimate of the variant's comparison, whether it has a comparison);
    markers: a case without variants as its marker row (variant None), as tables.py lays out."""
    out = []
    for e in Document(doc).experiments:
        for c in e.cases:
            if markers and not c.raw.get("variants"):
                out.append((str(e.name), str(c.name), None, None, False))
            for v in c.variants:
                cm = c.comparison(v.name)
                out.append((str(e.name), str(c.name), str(v.name), cm.estimate if cm else None, cm is not None))
    return out


def test_every_committed_file_is_rendered(rendered):
    docs, written = rendered
    assert len(docs) == len(FILES) >= 30
    assert written["markdown"].is_file() and written["csv"].is_file()


def test_csv_speedups_and_intervals_are_the_estimates(rendered):
    docs, written = rendered
    with open(written["csv"], newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["variant"]]
    by_file: dict[str, list[dict]] = {}
    for r in rows:
        by_file.setdefault(r["file"], []).append(r)
    checked = 0
    for path, doc in zip(FILES, docs):
        got = by_file.get(str(path), [])
        want = _estimates(doc)
        assert [(r["experiment"], r["case"], r["variant"]) for r in got] == [w[:3] for w in want], path
        for r, (_, _, _, est, has_cm) in zip(got, want):
            where = (path.name, r["experiment"], r["case"], r["variant"])
            if not has_cm or est is None:
                assert r["ci_low"] == r["ci_high"] == "", where
                assert r["speedup"] in ("", "1.0") and (r["speedup"] == "" or r["role"] == "baseline"), where
                continue
            assert float(r["speedup"]) == est.speedup, where
            lo, hi = (float(r[k]) if r[k] else None for k in ("ci_low", "ci_high"))
            assert (lo, hi) == (est.ci_low, est.ci_high), where
            assert (r["ci_unit"], r["ci_n"], r["ci_df"]) == (
                est.unit,
                "" if est.n is None else str(est.n),
                "" if est.df is None else str(est.df),
            ), where
            assert float(r["confidence"]) == est.confidence, where
            checked += est.has_ci
    assert checked > 800, checked


def _md_tables(md: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every experiment table of the report: (header cells, row cells)."""
    lines = md.splitlines()
    out = []
    for i, line in enumerate(lines):
        cells = [c.strip() for c in CELL_SPLIT.split(line)[1:-1]]
        if line.startswith("| ") and ("speedup \\[CI\\]" in cells or "speedup [CI]" in cells):
            body = []
            for row in lines[i + 2 :]:
                if not row.startswith("| "):
                    break
                body.append([c.strip() for c in CELL_SPLIT.split(row)[1:-1]])
            out.append((cells, body))
    return out


def check_speedup_cell(cell: str, est: Measurement | None, where: tuple) -> bool:
    """The cell shows the estimate's point and, where it has one, its interval and no
    other; True if it showed an interval."""
    intervals = INTERVAL.findall(cell)
    if est is None:
        assert not intervals and not POINT.match(cell), (where, cell)
        return False
    m = POINT.match(cell)
    assert m and printed_as(m.group(1), est.speedup), (where, cell, est)
    if not est.has_ci:
        assert not intervals and "no CI" in cell, (where, cell, est)
        return False
    assert intervals, (where, cell, est)
    for lo, hi in intervals:  # every interval in the cell is the estimate's
        assert printed_as(lo, est.ci_low) and printed_as(hi, est.ci_high), (where, cell, est)
    if est.unit == "process":  # its basis is said where it is between processes
        assert f"({est.n} processes" in cell, (where, cell)
    return True


def test_markdown_experiment_tables_show_the_estimates(rendered):
    docs, written = rendered
    # each run's whole table of every experiment, in the details: experiment by experiment, run by run
    tables = _md_tables(written["details"].read_text(encoding="utf-8"))
    names = list(dict.fromkeys(ex.name for doc in docs for ex in Document(doc).experiments))
    expected = [(doc, ex) for name in names for doc in docs for ex in Document(doc).experiments[:] if ex.name == name]
    assert len(tables) == len(expected)
    checked = 0
    for (headers, body), (doc, ex) in zip(tables, expected):
        col = next(i for i, h in enumerate(headers) if h.replace("\\", "") == "speedup [CI]")
        want = [w for w in _estimates(doc, markers=True) if w[0] == str(ex.name)]
        if not want:  # an experiment without variant rows: one marker row, no speedup
            assert all(not INTERVAL.search(r[col]) for r in body)
            continue
        assert len(body) == len(want), ex.name
        for cells, (exp, case, variant, est, has_cm) in zip(body, want):
            assert cells[0] == esc(case) and cells[1].startswith(esc(variant or "—")), (exp, case, variant, cells[:2])
            if not has_cm:  # a baseline row: 1×, or nothing where it did not run
                assert cells[col] in ("1×", "—"), (exp, case, variant, cells[col])
                continue
            checked += check_speedup_cell(cells[col], est, (doc.get("_path"), exp, case, variant))
    assert checked > 800, checked


def test_gpus_table_shows_the_estimates():
    from report.gpu import gpus

    paths = [FIXTURES / f"h100_{n}.json.gz" for n in ("rest", "again")]
    docs = [load_results(p, validate=False) for p in paths]
    _, speed, _ = gpus.build(docs)
    cells = {(r[0], r[1], r[2]): r[3:] for r in speed}
    checked = 0
    for i, doc in enumerate(docs):
        for e in Document(doc).experiments:
            for c in e.cases:
                if not c.ran:
                    continue
                for cm in c.comparisons:
                    cell = cells[(e.name, c.name, f"{cm.raw.get('variant')} vs {cm.raw.get('baseline')}")][i]
                    checked += check_speedup_cell(cell, cm.estimate, (paths[i].name, e.name, c.name))
    assert checked > 50


def test_printed_as_reads_the_digits_printed():
    assert printed_as("1.16", 1.1584) and not printed_as("1.16", 1.1549)
    assert printed_as("0.599", 0.5991) and printed_as("1.23e+06", 1_234_000) and not printed_as("1.23e+06", 1_236_000)
    assert printed_as("17.9", 17.94) and not printed_as("17.9", 17.96)


def test_the_runs_side_by_side_show_each_runs_estimates(tmp_path):
    """report.md of the committed pair: each experiment's comparisons side by side, each
    run's cell that run's one estimate (its basis, every interval between 3 processes, said
    once in the runs list), and moved? 'no' exactly where the two intervals overlap."""
    pair = [
        REPO / "results" / f"2026-11-26_cpu_amd-epyc-2core_libtorch-2.11_processes{s}.json" for s in ("", "_second")
    ]
    docs = [load_results(p, validate=False) for p in pair]
    written = render([Input("optbench", p, d) for p, d in zip(pair, docs)], tmp_path, plots=False)
    md = written["markdown"].read_text(encoding="utf-8")
    assert " ".join(md.split()).count("every CI between 3 processes") == 2  # the prose is wrapped
    estimates = [
        {
            (str(e.name), str(c.name), str(cm.variant_name)): cm.estimate
            for e in Document(d).experiments
            for c in e.cases
            for cm in c.comparisons
        }
        for d in docs
    ]
    lines, exp, checked = md.splitlines(), None, 0
    for i, line in enumerate(lines):
        if line.startswith("### "):
            exp = line[4:].split(":", 1)[0].replace("\\", "")
        cells = [c.strip().replace("\\", "") for c in CELL_SPLIT.split(line)[1:-1]]
        if not (line.startswith("| ") and "run 1 speedup [CI]" in cells):
            continue
        assert cells == ["case", "variant", "run 1 speedup [CI]", "run 2 speedup [CI]", "moved?"], cells
        for row in lines[i + 2 :]:
            if not row.startswith("| "):
                break
            case, variant, *runs, moved = [c.strip().replace("\\", "") for c in CELL_SPLIT.split(row)[1:-1]]
            variant = variant.removesuffix(" (reference)")
            ests = [m.get((exp, case, variant)) for m in estimates]
            for cell, est in zip(runs, ests):
                if est is None:
                    assert not POINT.match(cell), (exp, case, variant, cell)
                    continue
                m = POINT.match(cell)
                assert m and printed_as(m.group(1), est.speedup), (exp, case, variant, cell)
                ((lo, hi),) = INTERVAL.findall(cell)
                assert printed_as(lo, est.ci_low) and printed_as(hi, est.ci_high) and "processes" not in cell
                checked += 1
            if all(e is not None and e.has_ci for e in ests):
                overlap = max(e.ci_low for e in ests) <= min(e.ci_high for e in ests)
                assert (moved == "no") == overlap and (overlap or moved.startswith("estimate: CIs apart")), moved
    assert checked == 2 * 67, checked
