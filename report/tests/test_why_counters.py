"""Why sentences that lead with the experiment's mechanism counter (report/explanation/why_counters.py,
why_row.py): only where the timing has a direction and the count moved that way, per
step of the baseline's work, and the audit (why_audit.py) catches a counter sentence
that contradicts its timing or its windows."""

import json
from dataclasses import replace
from pathlib import Path

import synth
from why_audit import audit, audit_rows, report_rows

from report.explanation.why_counters import LABELS, Count, count_text, named_count
from report.explanation.why_row import Kind
from report.render.tables import document_tables

MS = 1e-3
SCHEMA = Path(__file__).resolve().parents[2] / "harness" / "results.schema.json"


def _counters(**kw) -> dict:
    c = {k: 0.0 for k in LABELS}
    c["kernel_launches_per_step"] = None  # a CPU window
    c.update(kw)
    return c


def _doc(
    base_fills: float,
    var_fills: float,
    var_ms: float = 8.0,
    var_window_ms: float | None = None,
    named: list | None = None,
    var_units: dict | None = None,
) -> dict:
    """Baseline 10 ms, variant var_ms (tight samples); CPU windows that agree with the
    timing unless var_window_ms says otherwise; fills per step as given."""
    c = synth.case(
        "c",
        [
            ("zeroing", synth.lognormal(10 * MS, 0.01, 12, 1)),
            ("set_to_none", synth.lognormal(var_ms * MS, 0.01, 12, 2)),
        ],
    )
    for v, fills, window in ((c["variants"][0], base_fills, None), (c["variants"][1], var_fills, var_window_ms)):
        med = v["stats"]["median"]
        step = med if window is None else window * MS
        v["breakdown"] = synth.breakdown(
            {"elementwise": 0.3 * step, "gemm": 0.7 * step}, 0.0, device="cpu", timed_step_s=med
        )
        v["breakdown"]["counters"] = _counters(fills_per_step=fills, op_calls_per_step=1000.0)
    if var_units:
        c["variants"][1]["units"] = var_units
    e = synth.experiment("zero_grad", [c])
    e["mechanism_counters"] = ["fills_per_step"] if named is None else named
    return synth.document([e])


def _why(doc: dict) -> str:
    return report_rows(doc)[0][3].text()


def test_the_counter_leads_where_it_moved_with_the_timing():
    doc = _doc(34, 0)
    text = _why(doc)
    assert text.startswith("fill operations 34 -> 0 per step; "), text
    assert "ms/step saved (timed" in text, text  # the windows agree: time shares follow
    a = audit(doc)
    assert a.findings == [] and a.mechanisms == 1


def test_a_count_holds_where_the_windows_times_do_not():
    doc = _doc(34, 0, var_window_ms=16.0)  # windows say slower, timing says faster
    text = _why(doc)
    assert text.startswith("fill operations 34 -> 0 per step; the windows' times disagree with the timing"), text
    assert "ms/step saved" not in text
    a = audit(doc)
    assert a.findings == [] and a.mechanisms == 1


def test_a_count_that_did_not_move_with_the_timing_is_only_shown_as_counted():
    doc = _doc(34, 34)
    text = _why(doc)
    assert not text.startswith("fill operations") and text.endswith("(counted: fill operations 34 -> 34 per step)")
    against = _why(_doc(0, 34))  # faster, yet more fills
    assert against.endswith("(counted: fill operations 0 -> 34 per step)"), against
    no_diff = _why(_doc(34, 0, var_ms=10.0))  # CI includes 1
    assert no_diff.startswith("timing finds no clear difference") and "(counted: fill operations 34 -> 0" in no_diff
    a = audit(_doc(34, 0, var_ms=10.0))
    assert a.findings == [] and a.unexplained == 1 and a.mechanisms == 0


def test_counts_are_per_step_of_the_baselines_work():
    # The variant does twice the baseline's work per step: its 40 fills are 20 per baseline step.
    doc = _doc(34, 40, var_ms=16.0, var_units={"bytes": 0.0, "flops": 0.0, "items": 64.0, "item_name": "samples"})
    cm = doc["experiments"][0]["cases"][0]["comparisons"][0]
    for k in ("speedup", "ci_low", "ci_high"):  # the harness's speedup is per unit of work
        cm[k] *= 2
    text = _why(doc)
    assert text.startswith("fill operations 34 -> 20 per step of the baseline's work; "), text
    assert audit(doc).findings == []


def test_the_first_measured_counter_is_used_and_older_files_say_what_they_said():
    base = {"counters": _counters(op_calls_per_step=500.0)}
    var = {"counters": _counters(op_calls_per_step=50.0)}
    c = named_count(["kernel_launches_per_step", "op_calls_per_step"], base, var)
    assert c.key == "op_calls_per_step" and c.text() == "operator calls 500 -> 50 per step"
    assert named_count(["fills_per_step"], {}, var) is None  # a breakdown from before the counters
    older = _doc(34, 0)
    older["experiments"][0].pop("mechanism_counters")
    assert not _why(older).startswith("fill operations") and "counted" not in _why(older)


def test_count_text():
    assert [count_text(x) for x in (0, 34, 1234, 2.5, 0.05, 123.4)] == ["0", "34", "1,234", "2.50", "0.0500", "123"]


def _planted(doc: dict, why) -> list[str]:
    return [f.problem for f in audit_rows(doc, [("zero_grad", "c", "set_to_none", why)]).findings]


def test_the_audit_catches_counter_whys_that_contradict():
    doc = _doc(34, 0)
    good = report_rows(doc)[0][3]
    assert good.count_leads and _planted(doc, good) == []
    count = good.count
    assert _planted(doc, replace(good, count=replace(count, before=0.0, after=34.0))) == [
        "count_direction",
        "count_value",
    ]
    assert _planted(doc, replace(good, count=replace(count, after=2.0))) == ["count_value"]
    assert _planted(doc, replace(good, count=replace(count, scaled=True))) == ["count_value"]
    assert _planted(doc, replace(good, count=Count("op_calls_per_step", 1000.0, 900.0, False))) == [
        "count_value",
        "count_unnamed",
    ]
    no_diff = _doc(34, 0, var_ms=10.0)
    assert "no_difference" in _planted(no_diff, replace(good, kind=Kind.COUNT))


def test_labels_cover_every_counter_the_schema_describes():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    variant = schema["$defs"]["variant"]["properties"]
    keys = set(variant["breakdown"]["properties"]["counters"]["properties"])
    assert keys == set(LABELS)


def test_the_table_row_carries_the_counter_sentence():
    doc = _doc(34, 0)
    rows = [r for t in document_tables(doc) for r in t.rows if r.why]
    assert rows[0].why.startswith("fill operations 34 -> 0 per step")
