"""The why audit (why_audit.py, beside these tests): no sentence the report prints over the committed
breakdown run contradicts its timing in sign or size, and planted contradictions, each
kind on its own, are caught."""

import json
from dataclasses import replace
from pathlib import Path

import synth
from why_audit import audit, audit_rows, report_rows

from report.explanation.why import explain
from report.explanation.why_row import Kind

BREAKDOWN_RUN = (
    Path(__file__).resolve().parents[2] / "results" / "2026-11-25_cpu_amd-epyc-2core_libtorch-2.11_breakdown.json"
)
COUNTED_RUNS = [
    BREAKDOWN_RUN.parent / f"2026-11-26_cpu_amd-epyc-2core_libtorch-2.11_{n}.json"
    for n in ("breakdown", "breakdown_second")
]  # with each profiled step's time (step_s)
MS = 1e-3


def _doc() -> dict:
    with open(BREAKDOWN_RUN, encoding="utf-8") as f:
        return json.load(f)


def test_the_committed_breakdown_run_has_no_contradicting_why():
    doc = _doc()
    a = audit(doc)
    assert a.findings == [], [(f.row, f.problem) for f in a.findings]
    assert a.mechanisms + a.unexplained == 57  # every comparison says something
    assert a.mechanisms >= 20  # a rule that explained nothing would pass the rest


def test_the_runs_with_step_times_have_no_contradicting_why_and_explain_four_in_five():
    """Issue 32's bar: at least 80% of the comparisons carry a mechanism, none contradicting."""
    for path in COUNTED_RUNS:
        a = audit(json.loads(path.read_text(encoding="utf-8")))
        assert a.findings == [], (path.name, [(f.row, f.problem) for f in a.findings])
        assert a.mechanisms + a.unexplained == 57 and a.mechanisms >= 0.8 * 57, (path.name, a.mechanisms)


def _planted(row: str, why) -> list[str]:
    doc = _doc()
    exp, case, variant = row.split("/")
    return [f.problem for f in audit_rows(doc, [(exp, case, variant, why)]).findings]


def _why(row: str):
    return [w for e, c, v, w in report_rows(_doc()) if f"{e}/{c}/{v}" == row][0]


def test_the_issues_whys_are_caught():
    """Issue 32's examples, the windows' own figures published as the mechanism."""
    tall = "aligned_dims/matmul_fp32_tall_k255_vs_256/512x512x256"
    w = _why(tall)
    assert not w.is_mechanism  # the rule refuses it: the windows go the other way
    bd = [v["breakdown"] for v in _case(tall)["variants"]]
    windows = explain(*bd)  # the windows' change, not the timed one
    got = _planted(tall, replace(w, kind=Kind.SHARES, shares=windows))
    assert {"direction", "window", "size"} <= set(got), got


def _case(row: str) -> dict:
    exp, case, _ = row.split("/")
    return [c for e in _doc()["experiments"] if e["name"] == exp for c in e["cases"] if c["name"] == case][0]


def test_each_kind_of_contradiction_is_caught_alone():
    row = "batch_size/resnet_1111_32px_fp32/batch_32"  # 1.97x, explained after the rule
    good = _why(row)
    sh = good.shares
    assert good.kind is Kind.SHARES and _planted(row, good) == []
    top = sh.top[0]
    over = replace(top, delta_s=4.97 * sh.change_s)
    assert _planted(row, replace(good, shares=replace(sh, top=(over,) + sh.top[1:], against=None))) == []  # covers all
    assert _planted(row, replace(good, shares=replace(sh, top=(replace(top, delta_s=-top.delta_s),) + sh.top[1:]))) == [
        "share"
    ]
    assert _planted(row, replace(good, shares=replace(sh, change_s=-sh.change_s))) == [
        "direction",
        "share",
    ]
    assert _planted(row, replace(good, shares=replace(sh, change_s=sh.change_s / 15))) == ["size"]
    assert _planted(row, replace(good, shares=replace(sh, timed=False))) == ["size"]
    no_diff = "torchscript/convnet_b8_32px/scripted"  # CI includes 1
    assert "no_difference" in _planted(no_diff, good)


def test_unrecorded_step_counts_are_caught():
    doc = _doc()
    row = "batch_size/resnet_1111_32px_fp32/batch_32"
    exp, case, variant = row.split("/")
    good = [w for e, c, v, w in report_rows(doc) if f"{e}/{c}/{v}" == row][0]
    c = [c for e in doc["experiments"] if e["name"] == exp for c in e["cases"] if c["name"] == case][0]
    for v in c["variants"]:
        v["breakdown"].pop("steps", None)
    assert [f.problem for f in audit_rows(doc, [(exp, case, variant, good)]).findings] == ["steps"]


def _contradicting_doc() -> dict:
    """Timed 1.25x faster, profiled windows slower: a breakdown the profile cannot explain."""
    c = synth.case(
        "c", [("base", synth.lognormal(10 * MS, 0.01, 12, 1)), ("fast", synth.lognormal(8 * MS, 0.01, 12, 2))]
    )
    c["variants"][0]["breakdown"] = synth.breakdown(
        {"gemm": 9 * MS}, 1 * MS, device="cpu", timed_step_s=c["variants"][0]["stats"]["median"]
    )
    c["variants"][1]["breakdown"] = synth.breakdown(
        {"gemm": 10 * MS}, 1 * MS, device="cpu", timed_step_s=c["variants"][1]["stats"]["median"]
    )
    return synth.document([synth.experiment("planted", [c])])


def test_a_planted_contradicting_breakdown_is_caught():
    doc = _contradicting_doc()
    printed = report_rows(doc)
    assert printed[0][3].text().startswith("profile disagrees with the timing: not explained"), printed
    assert audit(doc).findings == [] and audit(doc).unexplained == 1
    # The windows' own shares, published as the report did before the rule, are caught.
    bd = [v["breakdown"] for v in doc["experiments"][0]["cases"][0]["variants"]]
    why = replace(report_rows(doc)[0][3], kind=Kind.SHARES, shares=explain(*bd))
    problems = {f.problem for f in audit_rows(doc, [("planted", "c", "fast", why)]).findings}
    assert {"direction", "window", "size"} <= problems, (why.text(), problems)
