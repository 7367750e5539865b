"""The why column and the stacked bars from the per-variant profiler breakdown."""

import csv
from html import escape

import pytest
import synth
from conftest import FIXTURES

from report.explanation.why import NOTE, explain, label
from report.load.document import Document
from report.load.results import schema_errors
from report.render.tables import document_tables

MS = 1e-3
# 19.1 ms/step -> 8.5 ms/step: matrix multiply and convolution do 9.6 of the 10.6 ms saved.
BASE = {"gemm": 12.1 * MS, "conv": 4.0 * MS, "elementwise": 2.0 * MS}
FAST = {"gemm": 4.7 * MS, "conv": 1.8 * MS, "elementwise": 1.0 * MS}


def test_sentence_names_the_dominant_categories_direction_and_magnitude():
    base = synth.breakdown(BASE, 1.0 * MS, launches=1212)
    fast = synth.breakdown(FAST, 1.0 * MS, launches=1)
    w = explain(base, fast)
    assert w.ok and [t.category for t in w.top] == ["gemm", "conv"]
    assert w.sentence == (
        "matrix multiply -61% (12.1 -> 4.70 ms/step) and convolution -55% account for 91% "
        "of the 10.6 ms/step saved (profiled windows); idle 5% -> 12%; launches 1,212 -> 1 "
        "per step; profiled: 5 steps, overhead +0% / +0%"
    )
    assert w.deltas_s["elementwise"] == pytest.approx(-1.0 * MS)
    assert w.deltas_s["idle"] == pytest.approx(0.0)
    assert w.launches == (1212, 1)
    assert w.top[0].share_of_change == pytest.approx(7.4 / 10.6)
    slower = explain(fast, base).sentence
    assert slower.startswith("matrix multiply +157% (4.70 -> 12.1 ms/step) and convolution +122%")
    assert "of the 10.6 ms/step added (profiled windows)" in slower


def test_one_mover_idle_and_small_units():
    base = synth.breakdown({"gemm": 120e-6, "elementwise": 30e-6}, 50e-6)
    var = synth.breakdown({"gemm": 40e-6, "elementwise": 30e-6}, 80e-6)
    w = explain(base, var)
    # idle's +30 µs went against the -50 µs: matrix multiply's -80 µs covers all of it, idle
    # offset the rest (never "160% of the change").
    assert w.sentence.startswith(
        "matrix multiply -67% (120 -> 40.0 µs/step) covers all of the 50.0 µs/step "
        "saved (profiled windows; they moved 80.0 µs/step, idle +60% offset the rest)"
    )
    assert "launches" not in w.sentence  # no launch counts recorded
    only = explain(base, synth.breakdown({"gemm": 40e-6, "elementwise": 30e-6}, 50e-6))
    assert only.sentence.startswith(
        "matrix multiply -67% (120 -> 40.0 µs/step) accounts for 100% of the "
        "80.0 µs/step saved (profiled windows); idle"
    )


def test_the_summary_phrase_is_the_movers_without_their_detail():
    """The summary's mechanism (Why.headline) is rendered from the same fields as the
    table's sentence, without the bracketed times and basis."""
    base = synth.breakdown(BASE, 1.0 * MS, launches=1212)
    w = explain(base, synth.breakdown(FAST, 1.0 * MS, launches=1))
    assert w.movers(detail=False) == (
        "matrix multiply -61% and convolution -55% account for 91% of the 10.6 ms/step saved"
    )
    covers = explain(
        synth.breakdown({"gemm": 120e-6, "elementwise": 30e-6}, 50e-6),
        synth.breakdown({"gemm": 40e-6, "elementwise": 30e-6}, 80e-6),
    )
    assert covers.covers_all
    assert covers.movers(detail=False) == "matrix multiply -67% covers all of the 50.0 µs/step saved"


def test_missing_or_skipped_breakdown():
    ok = synth.breakdown(BASE, MS)
    assert explain(ok, None).sentence == "no breakdown (not profiled)"
    assert explain(None, ok).sentence == "no breakdown (baseline: not profiled)"
    skipped = synth.breakdown({}, 0, status="skipped", reason="profiler not built in")
    w = explain(ok, skipped)
    assert not w.ok and w.sentence == "no breakdown (profiler not built in)"
    assert (
        explain(synth.breakdown({}, 0, status="error", reason="trace unreadable"), ok).sentence
        == "no breakdown (baseline: trace unreadable)"
    )


def test_profiled_steps_and_overheads_are_shown():
    base = synth.breakdown(BASE, MS)
    slow_window = synth.breakdown(FAST, MS, timed_step_s=5.0 * MS)  # window 8.5 ms vs 5 ms timed
    assert explain(base, slow_window).sentence.endswith("; profiled: 5 steps, overhead +0% / +70%")
    slow_window["steps"] = 1
    assert explain(base, slow_window).sentence.endswith("; profiled: 5 / 1 steps, overhead +0% / +70%")


def test_cpu_idle_is_time_outside_operators():
    assert label("idle", "cpu") == "outside operators" and label("idle", "cuda") == "idle"
    base = synth.breakdown(BASE, MS, device="cpu")
    var = synth.breakdown(FAST, 3.0 * MS, device="cpu")
    s = explain(base, var).sentence
    assert "outside operators 5% -> 29%" in s and "idle" not in s and "launches" not in s


def doc_with_breakdowns():
    profiled = synth.case(
        "resnet",
        [
            ("fp32", synth.lognormal(19e-3, 0.01, 8, 1)),
            ("amp_bf16", synth.lognormal(8.5e-3, 0.01, 8, 2)),
            ("amp_fp16", synth.lognormal(8.4e-3, 0.01, 8, 3)),
        ],
    )
    profiled["variants"][0]["breakdown"] = synth.breakdown(BASE, MS, launches=1212)
    profiled["variants"][1]["breakdown"] = synth.breakdown(FAST, MS, launches=1)
    profiled["variants"][2]["breakdown"] = synth.breakdown({}, 0, status="skipped", reason="window too short")
    plain = synth.case(
        "matmul", [("fp32", synth.lognormal(3e-3, 0.01, 8, 4)), ("tf32", synth.lognormal(1e-3, 0.01, 8, 5))]
    )
    return synth.document([synth.experiment("mixed_precision", [profiled, plain])], gpu=synth.H100)


def test_documents_with_breakdowns_are_schema_valid():
    doc = doc_with_breakdowns()
    assert schema_errors(doc) == []


def test_why_column_in_markdown_html_and_csv(tmp_path, cli):
    src = synth.write(tmp_path / "r.json", doc_with_breakdowns())
    out = tmp_path / "out"
    r = cli("render", src, "--out", out, "--no-plots")
    assert r.rc == 0, r.err
    sentence = [r.why for t in document_tables(doc_with_breakdowns()) for r in t.rows if r.variant == "amp_bf16"][0]
    assert sentence.startswith("matrix multiply -61% (12.1 -> 4.70 ms/step) and convolution -55% account for"), sentence
    md = (out / "report_details.md").read_text()  # the why column is in each run's whole table
    html = (out / "report.html").read_text()
    assert "speedup [CI] | why |" in md and "| why |" not in (out / "report.md").read_text()
    assert sentence in md and "no breakdown (window too short)" in md and "no breakdown (not profiled)" in md
    assert NOTE in md and escape(NOTE) in html
    assert "<th>why</th>" in html and escape(sentence) in html
    with open(out / "results.csv", newline="") as f:
        rows = {(r["case"], r["variant"]): r for r in csv.DictReader(f)}
    assert rows[("resnet", "amp_bf16")]["why"] == sentence
    assert rows[("resnet", "fp32")]["why"] == ""  # the baseline row has no comparison
    assert rows[("matmul", "tf32")]["why"] == "no breakdown (not profiled)"


def test_stacked_bars_only_for_cases_with_a_breakdown(tmp_path, cli):
    pytest.importorskip("matplotlib")
    src = synth.write(tmp_path / "r.json", doc_with_breakdowns())
    out = tmp_path / "out"
    r = cli("render", src, "--out", out, "--plots", "all")  # the stacked bars are no experiment's one plot
    assert r.rc == 0, r.err
    bars = out / "plots" / "mixed_precision_resnet_breakdown.png"
    assert bars.is_file() and bars.stat().st_size > 1024
    assert not (out / "plots" / "mixed_precision_matmul_breakdown.png").exists()
    assert "mixed_precision / resnet: where a step's time goes" in (out / "report_details.md").read_text()
    assert "breakdown" not in (out / "report.md").read_text()


def test_old_files_render_without_the_why_column(tmp_path, cli):
    out = tmp_path / "out"
    r = cli("render", FIXTURES / "h100_rest.json.gz", "--out", out, "--no-plots")
    assert r.rc == 0, r.err
    for md in ((out / "report.md").read_text(), (out / "report_details.md").read_text()):
        assert "speedup [CI] |" in md and "speedup [CI] | why" not in md
        assert "no breakdown" not in md and NOTE not in md
    with open(out / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and "why" in rows[0] and all(r["why"] == "" for r in rows)


def view(exp: dict):
    return Document({"experiments": [exp]}).experiments[0]


def test_why_says_when_the_timing_finds_no_difference():
    """A profiled difference beside a speedup whose CI includes 1 is flagged as such, so
    the table never explains an effect the timing did not find."""
    from report.render.tables import experiment_rows
    from report.tests import synth

    base = synth.breakdown({"gemm": 1.0e-3}, 0.1e-3)
    var = synth.breakdown({"gemm": 0.8e-3}, 0.1e-3)
    exp = {
        "name": "e",
        "cases": [
            {
                "name": "c",
                "status": "ok",
                "units": {},
                "variants": [
                    {
                        "name": "a",
                        "role": "baseline",
                        "status": "ok",
                        "stats": {"median": 1e-3, "n": 10},
                        "breakdown": base,
                    },
                    {
                        "name": "b",
                        "role": "optimized",
                        "status": "ok",
                        "stats": {"median": 1e-3, "n": 10},
                        "breakdown": var,
                    },
                ],
                "comparisons": [
                    {
                        "baseline": "a",
                        "variant": "b",
                        "speedup": 1.01,
                        "ci_low": 0.97,
                        "ci_high": 1.05,
                        "rounds": 10,
                        "verification": {"status": "passed"},
                    }
                ],
            }
        ],
    }
    row = next(r for r in experiment_rows(view(exp), None, why=True) if r.variant == "b")
    assert row.why == "timing finds no clear difference (CI includes 1): nothing to explain", row.why
    exp["cases"][0]["comparisons"][0].update(speedup=1.2, ci_low=1.15, ci_high=1.25)
    for v in exp["cases"][0]["variants"]:
        v["stats"]["iqr"] = 0.02e-3
    row = next(r for r in experiment_rows(view(exp), None, why=True) if r.variant == "b")
    assert row.why.startswith("matrix multiply"), row.why


def test_window_speedup_is_per_unit_of_work():
    """Variants doing different work compare per item, like the speedup column."""
    from report.explanation.why import window_speedup
    from report.tests import synth

    base = synth.breakdown({"gemm": 1.0e-3}, 0.0)
    var = synth.breakdown({"gemm": 2.0e-3}, 0.0)  # twice the time for four times the items
    assert abs(window_speedup(base, var, 16.0, 64.0) - 2.0) < 1e-9
    assert window_speedup(base, {"status": "skipped"}) is None


def test_a_category_against_the_change_offsets_the_rest_only_where_it_is_the_rest():
    """The movers cover all of the change and moved more; the category against it is said to
    'offset the rest' only where it moved that excess. The Intel pair's aot_inductor rows said
    'compiled code +243 µs/step offset the rest' of 346 - 234 = 112 µs: other categories had
    moved with the change too."""
    base = synth.breakdown({"conv": 300e-6, "gemm": 100e-6, "elementwise": 60e-6, "other": 10e-6}, 0.0)
    var = synth.breakdown({"conv": 0.0, "gemm": 100e-6, "elementwise": 0.0, "other": 210e-6}, 0.0)
    # saved 160: convolution and elementwise moved 360, other +200 is the 200 beyond it
    s = explain(base, var).sentence
    assert "they moved 360 µs/step, other (other) 10.0 -> 210 µs/step offset the rest)" in s, s
    base = synth.breakdown({"conv": 300e-6, "gemm": 100e-6, "other": 10e-6}, 0.0)
    var = synth.breakdown({"conv": 0.0, "gemm": 50e-6, "other": 150e-6}, 0.0)
    # saved 210: convolution moved 300, other +140 against it, not the 90 beyond (gemm -50 moved with)
    s = explain(base, var).sentence
    assert "they moved 300 µs/step, other (other) 10.0 -> 150 µs/step against it)" in s, s


def test_a_torchscript_graph_is_named_as_compiled_code_not_other():
    """A frozen graph runs its convolutions inside forward: its self time is the graph's
    own work, named so; any other operator keeps 'other (name)'."""
    from report.explanation.why import explain
    from report.tests import synth

    base = synth.breakdown({"conv": 1.0e-3}, 0.0)
    var = synth.breakdown({"other": 0.5e-3}, 0.0)
    var["top"] = [{"name": "forward", "category": "other", "s": 0.5e-3, "share": 1.0}]
    sentence = explain(base, var).sentence
    assert "TorchScript graph's own time (forward) +500 µs/step offset the rest" in sentence, sentence
    assert "other (forward)" not in sentence
    var["top"][0]["name"] = "aten::weird"
    assert "other (aten::weird)" in explain(base, var).sentence


def test_a_cuda_window_without_device_events_explains_nothing():
    """CUPTI that recorded nothing must not read as a GPU idle 100% of the time."""
    from report.explanation.why import explain, usable
    from report.tests import synth

    base = synth.breakdown({"gemm": 1.0e-3}, 0.1e-3, device="cuda")
    empty = synth.breakdown({}, 2.0e-3, device="cuda")
    empty["device_events"] = 0
    assert not usable(empty)
    assert explain(base, empty).sentence.startswith("no breakdown (no device activity recorded")
    cpu = synth.breakdown({}, 2.0e-3, device="cpu")
    cpu["device_events"] = 0
    assert usable(cpu)  # a CPU breakdown has no device to record


def test_a_window_sized_by_the_rule_says_where_it_broke_its_promise():
    """Windows that record `window` (sized by harness/profiling/window_plan.h's rule) mark
    an overhead beyond the ±25% bound and a mean that never settled; older windows, which
    no rule sized, are not marked."""
    window = {
        "min_steps": 5,
        "max_steps": 100,
        "target_se": 0.02,
        "grow": True,
        "warm_step": True,
        "stopped": "settled",
        "step_se": 0.01,
    }
    base = synth.breakdown(BASE, 1.0 * MS, device="cpu", timed_step_s=19.1 * MS / 1.4)  # overhead +40%
    fast = synth.breakdown(FAST, 1.0 * MS, device="cpu")
    assert explain(base, fast).sentence.endswith("profiled: 5 steps, overhead +40% / +0%")
    base["window"], fast["window"] = dict(window), dict(window, stopped="max_steps", step_se=0.03)
    assert explain(base, fast).sentence.endswith(
        "profiled: 5 steps, overhead +40% / +0% (over the ±25% bound; mean not settled)"
    )
    base = synth.breakdown(BASE, 1.0 * MS, device="cpu")
    base["window"], fast["window"] = dict(window), dict(window)
    assert explain(base, fast).sentence.endswith("overhead +0% / +0%")
    doc = doc_with_breakdowns()
    doc["experiments"][0]["cases"][0]["variants"][0]["breakdown"]["window"] = dict(window)
    assert schema_errors(doc) == []
    doc["experiments"][0]["cases"][0]["variants"][0]["breakdown"]["window"]["stopped"] = "tired"
    assert schema_errors(doc) != []
