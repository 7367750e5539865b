"""A "passed" that can fail: a verification that judged nothing but the first loss is
shown as "not judged", in the experiment tables, the CSV and beside the claim
verdicts. The real case: the H100 mixed_precision run of 2026-11-24, where six of
the ResNet-50 comparisons passed on the first loss alone."""

import csv
import json

import pytest
from conftest import REPO

from report.claims.judge import evaluate
from report.claims.judged import NOT_JUDGED, judged, judged_text, status
from report.claims.verdicts import DRAWN
from report.load.results import load_results
from report.load.versions import upgrade
from report.render.verdict_words import why_text

H100_AMP = REPO / ".." / "shared" / "gpu-runs" / "2026-11-24" / "h100_mixed_precision.json"


def ver(st="passed", **details):
    return {"status": st, "details": details}


def older(verification: dict) -> dict:
    """An older file's verification (flags only) as the report reads it (load/versions.py)."""
    doc = {"schema_version": 1, "experiments": [{"cases": [{"comparisons": [{"verification": verification}]}]}]}
    return upgrade(doc)["experiments"][0]["cases"][0]["comparisons"][0]["verification"]


def test_first_loss_alone_is_not_judged():
    assert status(older(ver(first_loss_judged=True, first_logits_judged=False, trace_judged=False))) == NOT_JUDGED
    assert judged(older(ver(trace_judged=True, first_loss_judged=True))) == ["first_loss", "trace"]
    assert status(ver(judged=["first_loss"])) == NOT_JUDGED
    assert status(ver(judged=[])) == NOT_JUDGED


def test_what_was_judged_is_named_in_order():
    v = ver(judged=["fit", "first_loss", "first_logits"], fit_steps=8)
    assert status(v) == "passed"
    assert judged(v) == ["first_loss", "first_logits", "fit"]
    assert judged_text(v) == "first loss, logits, 8-step fit"


def test_checks_that_record_nothing_keep_their_status():
    assert status({"status": "passed", "details": {"max_abs_diff": 1e-6}}) == "passed"
    assert judged({"status": "passed"}) is None
    assert status(ver("failed", judged=["first_loss"])) == "failed"


@pytest.fixture(scope="module")
def h100_amp():
    if not H100_AMP.is_file():
        pytest.skip(f"the H100 runs of 2026-11-24 are not here ({H100_AMP.resolve()})")
    return load_results(H100_AMP)


def test_h100_first_loss_passes_render_as_not_judged(h100_amp, tmp_path):
    from report.__main__ import main

    assert main(["render", str(H100_AMP), "--out", str(tmp_path)]) == 0
    rows = list(csv.DictReader(open(tmp_path / "results.csv")))
    by = {(r["case"], r["variant"]): r for r in rows}
    weak = [k for k, r in by.items() if r["verification"] == NOT_JUDGED]
    assert len(weak) == 6, weak  # tf32, amp_fp16, amp_bf16 with and without channels_last
    assert ("resnet50_b128_224", "amp_fp16") in weak
    assert by[("resnet50_b128_224", "fp32_channels_last")]["verification"] == "passed"
    assert by[("gpt_l6_h1024_s1024", "amp_bf16")]["verification_judged"] == "first loss, logits, trace"
    details = (tmp_path / "report_details.md").read_text()  # each run's whole table
    assert "not judged (first loss only)" in details
    assert "passed (first loss, logits, trace)" in details


def test_h100_claim_verdicts_say_what_was_not_judged(h100_amp):
    for res in evaluate(h100_amp):
        if res.verdict.verdict not in DRAWN:
            continue
        for e in res.evidence:
            if e.unjudged:
                assert "not verified beyond the first loss" in why_text(res.verdict), (res.claim["id"], res.verdict)
                assert e.label in why_text(res.verdict)
    assert any(e.unjudged for res in evaluate(h100_amp) for e in res.evidence)


def test_nvidia_smi_figures_appear_beside_gpu_variants(tmp_path):
    """Checklist row 12: the variant's nvidia-smi figures in its notes and the CSV."""
    import synth

    from report.__main__ import main
    from report.render.cells import smi_text

    smi = {
        "gpu_util_pct": {"median": 97.0, "min": 92.0},
        "memory_util_pct": {"median": 41.0, "min": 40.0},
        "sm_clock_mhz": {"median": 1980.0, "min": 1755.0},
        "power_w": {"median": 690.4, "min": 650.0},
        "samples": 30,
    }
    assert smi_text(smi) == "nvidia-smi: GPU 97% (min 92%), memory 41%, 1980 MHz, 690 W"
    assert smi_text(None) == "" and smi_text({}) == ""
    c = synth.case(
        "c0", [("pageable", synth.lognormal(1.0, 0.01, 20, 1)), ("pinned", synth.lognormal(0.5, 0.01, 20, 2))]
    )
    c["variants"][1]["nvidia_smi"] = smi
    doc = synth.document([synth.experiment("pinned_memory", [c], claims=["pin_memory"])], gpu=synth.H100)
    src = tmp_path / "r.json"
    src.write_text(json.dumps(doc))
    assert main(["render", str(src), "--out", str(tmp_path / "out")]) == 0
    details = (tmp_path / "out" / "report_details.md").read_text()
    assert "nvidia-smi: GPU 97% (min 92%), memory 41%, 1980 MHz, 690 W" in details
    rows = list(csv.DictReader(open(tmp_path / "out" / "results.csv")))
    assert json.loads(next(r for r in rows if r["variant"] == "pinned")["nvidia_smi"])["power_w"]["median"] == 690.4
