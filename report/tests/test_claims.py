import re
from pathlib import Path

import pytest

import synth
from report.claims import evaluate, evaluate_claim, load_claims
from report.verdicts import ALL, CONFIRMED, EXCEEDED, NOT_MEASURABLE, NOT_REPRODUCED

REQUIRED = {
    "pin_memory": (1.10, 1.20), "num_workers": (1.20, 1.50), "batch_size": None, "cudnn_benchmark": (1.05, 1.15),
    "criterion_on_device": (1.01, 1.03), "no_grad_eval": None, "prefetch_factor": (1.10, 1.20),
    "torch_compile": (1.10, 1.40), "amp": (1.8, 2.2), "torchscript": (1.05, 1.15),
    "tensor_core_alignment": None, "ddp_scaling": None, "fp16_tensor_cores": (2.0, 4.0),
}


def claim(cid):
    return next(c for c in load_claims() if c["id"] == cid)


def test_claims_file_lists_every_needed_claim():
    claims = {c["id"]: c for c in load_claims()}
    assert set(REQUIRED) <= set(claims)
    for cid, rng in REQUIRED.items():
        c = claims[cid]
        assert c["kind"] in ("speedup", "direction", "qualitative")
        assert c["quote"] and c["source"] and c["technique"]
        if rng:
            assert c["kind"] == "speedup" and (c["low"], c["high"]) == pytest.approx(rng)
        else:
            assert c["kind"] != "speedup" and c["low"] is None and c["high"] is None


def _norm(text):
    return re.sub(r"\s+", " ", text).strip()


def test_quotes_come_from_their_sources():
    checked = 0
    for c in load_claims():
        src = Path(c["source"].split(" ")[0])
        if not src.is_file():
            continue
        text = _norm(src.read_text(encoding="utf-8", errors="replace"))
        quote = _norm(c["quote"])
        # the 001 seed has mojibake for the en dash; table cells are joined with ' | '
        parts = [p.strip() for p in re.split(r"\s*\|\s*|–", quote) if p.strip()]
        for part in parts:
            assert part in text, f"{c['id']}: {part!r} not in {src}"
        checked += 1
    if not checked:
        pytest.skip("source files not on this machine")


def gpu_doc(speedup_case_pairs, exp="pinned_memory", claims=("pin_memory",), gpu=synth.H100, **case_kw):
    cases = []
    for i, (base, opt, vname) in enumerate(speedup_case_pairs):
        cases.append(synth.case(f"c{i}", [("pageable", synth.lognormal(base, 0.01, 20, i)),
                                          (vname, synth.lognormal(opt, 0.01, 20, 100 + i))], **case_kw))
    return synth.document([synth.experiment(exp, cases, list(claims))], gpu=gpu)


def test_confirmed_and_range_over_cases():
    doc = gpu_doc([(1.15, 1.0, "pinned"), (1.14, 1.0, "pinned"), (1.16, 1.0, "pinned")])
    r = evaluate_claim(claim("pin_memory"), doc)
    assert r.verdict.verdict == CONFIRMED
    assert len(r.evidence) == 3
    assert r.low <= r.median <= r.high
    assert r.median == pytest.approx(1.15, rel=0.03)


def test_exceeded_and_not_reproduced():
    assert evaluate_claim(claim("pin_memory"), gpu_doc([(2.0, 1.0, "pinned")])).verdict.verdict == EXCEEDED
    assert evaluate_claim(claim("pin_memory"), gpu_doc([(1.0, 1.0, "pinned")])).verdict.verdict == NOT_REPRODUCED


def test_cpu_run_is_not_measurable_for_gpu_claims():
    doc = gpu_doc([(1.15, 1.0, "pinned")], gpu=None)
    r = evaluate_claim(claim("pin_memory"), doc)
    assert r.verdict.verdict == NOT_MEASURABLE
    assert "CPU run: no GPU" in r.verdict.why
    assert r.median is not None  # the measurement is still shown


def test_match_rules_pick_the_right_comparisons():
    # the variant does not match ^pinned: nothing counts
    r = evaluate_claim(claim("pin_memory"), gpu_doc([(1.5, 1.0, "other")]))
    assert r.verdict.verdict == NOT_MEASURABLE and not r.evidence


def test_verification_failures_are_left_out():
    doc = gpu_doc([(1.15, 1.0, "pinned")], verification="failed")
    r = evaluate_claim(claim("pin_memory"), doc)
    assert r.verdict.verdict == NOT_MEASURABLE
    assert "verification failed" in r.verdict.why
    assert r.notes


def test_skipped_experiment_and_no_experiment():
    doc = synth.document([synth.experiment("pinned_memory", [], ["pin_memory"], status="skipped",
                                           reason="host-to-device copies need a GPU")], gpu=synth.H100)
    results = {r.claim["id"]: r for r in evaluate(doc)}
    assert results["pin_memory"].verdict.verdict == NOT_MEASURABLE
    assert "need a GPU" in results["pin_memory"].verdict.why
    assert results["torch_compile"].verdict.why == "no experiment in these results tests it"
    assert all(r.verdict.verdict in ALL for r in results.values())


def test_qualitative_claim_shows_measurement_but_no_verdict():
    doc = synth.document([synth.experiment("eval_no_grad", [synth.case("m", [
        ("grad_enabled", synth.lognormal(1.1, 0.01, 20, 1)), ("no_grad", synth.lognormal(1.0, 0.01, 20, 2))])],
        ["no_grad_eval"])], gpu=synth.H100)
    r = evaluate_claim(claim("no_grad_eval"), doc)
    assert r.verdict.verdict == NOT_MEASURABLE and "no number" in r.verdict.why
    assert r.median == pytest.approx(1.1, rel=0.03)
