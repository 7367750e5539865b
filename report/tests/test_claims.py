import json
import os
import re
from pathlib import Path

import pytest
import synth
from conftest import REPO

from report.claims.judge import CLAIMS_PATH, evaluate, evaluate_claim, load_claims
from report.claims.verdicts import (
    ALL,
    CONFIRMED,
    DRAWN,
    EXCEEDED,
    INCONCLUSIVE,
    NO_EFFECT_VERDICT,
    NOT_MEASURABLE,
    SMALLER,
    decide,
)
from report.load.results import load_results
from report.render.claim_words import beside_text, claim_text, row_text
from report.render.verdict_words import ONE_PROCESS, why_text

SOURCES = Path(__file__).resolve().parents[1] / "sources.md"

REQUIRED = {
    "pin_memory": (1.10, 1.20),
    "num_workers": (1.20, 1.50),
    "batch_size": None,
    "cudnn_benchmark": (1.05, 1.15),
    "criterion_on_device": (1.01, 1.03),
    "no_grad_eval": None,
    "prefetch_factor": (1.10, 1.20),
    "torch_compile": (1.10, 1.40),
    "amp": (1.8, 2.2),
    "torchscript": (1.05, 1.15),
    "tensor_core_alignment": None,
    "ddp_scaling": None,
    "fp16_tensor_cores": (2.0, 4.0),
    "kernel_fusion": None,
    "persistent_workers": None,
    "reduce_cpu_bottlenecks": None,
}


def claim(cid):
    return next(c for c in load_claims() if c["id"] == cid)


def as_if_between(c: dict, e) -> str:
    """The verdict the row's interval would draw were it between processes: where a row is
    inconclusive for ONE_PROCESS, that the one-process rule, not its interval, held it back."""
    return decide(c["kind"], c.get("low"), c.get("high"), e.m.ci_low, e.m.ci_high, point=e.m.speedup).verdict


def one_process(v) -> bool:
    """A verdict held back by the one-process rule (claims.ONE_PROCESS)."""
    return v.verdict == INCONCLUSIVE and ONE_PROCESS in why_text(v)


def test_claims_file_lists_every_needed_claim():
    claims = {c["id"]: c for c in load_claims()}
    assert set(REQUIRED) <= set(claims)
    for cid, rng in REQUIRED.items():
        c = claims[cid]
        assert c["kind"] in ("speedup", "direction", "qualitative")
        assert c["quote"] and c["technique"] and c["why"]
        assert c["source"]["document"] and c["source"]["section"]
        if rng:
            assert c["kind"] == "speedup" and (c["low"], c["high"]) == pytest.approx(rng)
        else:
            assert c["kind"] != "speedup" and c["low"] is None and c["high"] is None


def _norm(text):
    return re.sub(r"\s+", " ", text).strip()


def _documents(text):
    """sources.md as {document: (its headings, its text)}."""
    docs = {}
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        title, _, body = part.partition("\n")
        docs[title.strip()] = ([h.strip() for h in re.findall(r"^### (.+)$", body, flags=re.M)], _norm(body))
    return docs


def test_quotes_come_from_documents_the_project_carries():
    docs = _documents(SOURCES.read_text(encoding="utf-8"))
    for c in load_claims():
        src = c["source"]
        assert src["document"] in docs, f"{c['id']}: no document {src['document']!r} in {SOURCES.name}"
        headings, body = docs[src["document"]]
        assert any(src["section"].startswith(h) for h in headings), f"{c['id']}: no section {src['section']!r}"
        # table cells are joined with ' | '
        for part in (p.strip() for p in _norm(c["quote"]).split("|")):
            assert part in body, f"{c['id']}: {part!r} not in {src['document']}"


def test_no_claim_names_a_path_outside_the_project():
    text = CLAIMS_PATH.read_text(encoding="utf-8") + SOURCES.read_text(encoding="utf-8")
    assert not re.search(r"(?<![\w.])/(work|home|tmp|usr|opt|root)/", text)
    assert "seeds/" not in text


@pytest.mark.skipif(not os.environ.get("OPTBENCH_SEEDS_DIR"), reason="set OPTBENCH_SEEDS_DIR to the seed texts")
def test_seed_excerpts_are_verbatim():
    """Every line of an excerpt from seed NNN is a line of that seed (mojibake undone)."""
    seeds = Path(os.environ["OPTBENCH_SEEDS_DIR"])
    text = SOURCES.read_text(encoding="utf-8")
    checked = 0
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        m = re.search(r"optbench seed (\d{3})", part)
        if not m:
            continue
        raw = next(seeds.glob(f"{m.group(1)}_*.txt")).read_text(encoding="utf-8")
        lines = set()
        for line in raw.splitlines():
            try:
                line = line.encode("mac_roman").decode("utf-8")
            except (UnicodeEncodeError, UnicodeDecodeError):
                pass
            lines.add(line.rstrip())
        for section in re.split(r"^### .*$", part, flags=re.M)[1:]:
            for line in section.strip().splitlines():
                assert line.rstrip() in lines, f"seed {m.group(1)}: {line!r}"
                checked += 1
    assert checked > 20


def window_loops(case):
    """Variant params of the epoch-window dataloader, as the harness records them: which
    loop each variant is, and its workers, prefetch depth and pinning."""
    for v in case["variants"]:
        name = v["name"]
        v["params"] = {
            "loop": "no_loader" if name == "no_loader" else "data_only" if name.endswith("_data_only") else "train"
        }
        if name == "no_loader":
            continue
        setting = name.removesuffix("_data_only")
        workers, prefetch = (
            (int(setting.split("_")[1]), 2)
            if setting.startswith("workers_")
            else (4, int(setting.split("_")[1]))
            if setting.startswith("prefetch_")
            else (8, 2)
        )
        v["params"].update(workers=workers, prefetch=prefetch, pinned=setting == "pinned")
    return case


def loader_doc(
    pin=(1.15, 1.0),
    copies=(4.0, 6.0),
    workers=(3.0, 1.6, 1.05, 1.0),
    prefetch=(1.0, 1.0, 0.8, 0.7),
    gpu=synth.H100,
    processes=None,
):
    """A dataloader run (workers, prefetch, pin cases with data-only references) and raw copies;
    processes=K: every case measured in K processes (synth.in_processes)."""

    def loader_case(name, base, rest):
        vs = [(base[0], synth.lognormal(base[1], 0.01, 20, 1))]
        roles = {}
        for i, (vname, t) in enumerate(rest):
            vs.append((vname, synth.lognormal(t, 0.01, 20, 10 + i)))
            vs.append((vname + "_data_only", synth.lognormal(t * 0.5, 0.01, 20, 50 + i)))
            roles[vname + "_data_only"] = "reference"
        vs.append(("no_loader", synth.lognormal(0.1, 0.01, 20, 99)))
        roles["no_loader"] = "reference"
        return synth.case(name, vs, roles=roles)

    w = [(f"workers_{n}", t) for n, t in zip((1, 2, 4), workers[1:])]
    cases = [
        loader_case("workers", ("workers_0", workers[0]), w),
        loader_case(
            "prefetch_w4", ("prefetch_1", prefetch[0]), [(f"prefetch_{n}", t) for n, t in zip((2, 4, 8), prefetch[1:])]
        ),
    ]
    if pin:
        cases.append(loader_case("pin_w8", ("unpinned", pin[0]), [("pinned", pin[1])]))
    for c in cases:
        window_loops(c)
    cases[0]["derived"] = {"workers_0": {"data_wait_fraction": 0.62}, "fewest_workers_within_10pct_of_best": 4}
    copy_cases = [
        synth.case(
            f"h2d_{i}MiB",
            [("pageable", synth.lognormal(s, 0.01, 20, 200 + i)), ("pinned", synth.lognormal(1.0, 0.01, 20, 300 + i))],
            params={"direction": "h2d", "bytes": 2 ** (20 + i)},
        )
        for i, s in enumerate(copies)
    ]
    if processes:
        for c in cases + copy_cases:  # after window_loops: the comparisons are the same either way
            synth.in_processes(c, processes)
    return synth.document(
        [
            synth.experiment("dataloader", cases, ["num_workers", "prefetch_factor", "pin_memory"]),
            synth.experiment("pinned_memory", copy_cases, ["pin_memory"]),
        ],
        gpu=gpu,
    )


def test_pin_memory_verdict_comes_from_the_loader_with_copies_beside():
    r = evaluate_claim(claim("pin_memory"), loader_doc(processes=3))
    assert [(e.experiment, e.case, e.variant) for e in r.evidence] == [("dataloader", "pin_w8", "pinned")]
    assert r.evidence[0].baseline == "unpinned"
    assert r.m.speedup == pytest.approx(1.15, rel=0.03)
    assert r.verdict.verdict == CONFIRMED  # 1.15x, not pooled with the 4-6x copies
    beside = " ".join(f"{b.label} {beside_text(b)}" for b in r.beside)
    assert "mechanism" in beside and "4" in beside and "6" in beside and "2 comparisons" in beside


def test_pin_memory_without_the_loader_case_is_not_judged_on_raw_copies():
    r = evaluate_claim(claim("pin_memory"), loader_doc(pin=None))
    assert r.verdict.verdict == NOT_MEASURABLE and not r.evidence
    assert "end-to-end loader case" in why_text(r.verdict)
    assert r.beside  # the copies are still shown


def test_num_workers_and_prefetch_from_the_rebuilt_experiment():
    doc = loader_doc(processes=3)
    r = evaluate_claim(claim("num_workers"), doc)
    # the most workers the run built vs 0 workers, whatever their speeds; the data-only loops
    # (3.0 / 0.5 = 6x) are references, left out
    assert [e.variant for e in r.evidence] == ["workers_4"]
    assert r.m.speedup == pytest.approx(3.0, rel=0.03)
    assert r.verdict.verdict == EXCEEDED
    texts = [beside_text(b) for b in r.beside]
    assert any(t.startswith("62%") for t in texts) and any(t.startswith("4 ") for t in texts)
    assert any("over 3 comparisons" in t for t in texts)  # every worker count beside, none picked
    assert "best of" not in row_text(r.evidence[0]) and r.evidence[0].m.confidence == 0.95
    p = evaluate_claim(claim("prefetch_factor"), doc)
    # the depth the claim names (prefetch_factor=2), not the best of 2, 4 and 8 (1.43x, prefetch_8)
    assert [e.variant for e in p.evidence] == ["prefetch_2"] and p.verdict.verdict == NO_EFFECT_VERDICT
    beside = {b.label: beside_text(b) for b in p.beside}
    assert any("prefetch_factor=8" in k and v.startswith("1.4") for k, v in beside.items()), beside


def mp_doc(cases, processes=None):
    """mixed_precision cases: {name: (params, {variant: median time})}; fp32 first;
    processes=K: measured in K processes."""
    out = []
    for i, (name, (params, times)) in enumerate(cases.items()):
        out.append(
            synth.case(
                name,
                [(v, synth.lognormal(t, 0.005, 20, 10 * i + j)) for j, (v, t) in enumerate(times.items())],
                params=params,
                processes=processes,
            )
        )
    return synth.document([synth.experiment("mixed_precision", out, ["amp", "fp16_tensor_cores"])], gpu=synth.H100)


def test_amp_is_judged_against_default_fp32_with_strict_beside():
    doc = mp_doc(
        {
            "resnet50_b128_224": (
                {"model": "resnet50"},
                {"fp32": 4.8, "tf32": 2.0, "amp_fp16": 1.0, "amp_bf16": 1.2, "amp_fp16_channels_last": 0.6},
            ),
            "gpt": ({"model": "gpt"}, {"fp32": 3.0, "tf32": 1.2, "amp_fp16": 1.5, "amp_bf16": 1.6}),
        },
        processes=3,
    )
    r = evaluate_claim(claim("amp"), doc)
    rows = {(e.case, e.variant): e for e in r.evidence}
    # fp16 and bf16 each their own row (channels_last is another technique)
    assert set(rows) == {(c, v) for c in ("resnet50_b128_224", "gpt") for v in ("amp_fp16", "amp_bf16")}
    # conv net: against tf32 (cuDNN TF32 is the default); transformer: against fp32 (matmul TF32 off by default)
    assert rows["resnet50_b128_224", "amp_fp16"].baseline.startswith("tf32")
    assert rows["resnet50_b128_224", "amp_fp16"].m.speedup == pytest.approx(2.0, rel=0.02)
    assert rows["gpt", "amp_fp16"].baseline.startswith("fp32")
    assert rows["gpt", "amp_fp16"].m.speedup == pytest.approx(2.0, rel=0.02)
    assert all(e.m.unit == "process" and e.m.n == 3 for e in rows.values())  # per process, against tf32 too
    assert [rows[k].verdict.verdict for k in sorted(rows)] == [CONFIRMED, CONFIRMED, SMALLER, CONFIRMED]
    # the weakest row carries the claim: bf16 on the conv net, 2.0 / 1.2
    assert r.verdict.verdict == SMALLER and r.decisive is rows["resnet50_b128_224", "amp_bf16"]
    assert r.m.speedup == pytest.approx(2.0 / 1.2, rel=0.02)
    strict = [b for b in r.beside if "strict FP32" in b.label]
    assert strict and "–4.80× over 4 comparisons" in beside_text(strict[0])


def test_amp_prefers_the_variant_that_declares_itself_the_default():
    doc = mp_doc({"r": ({"model": "resnet50"}, {"fp32": 4.0, "fp32_default": 2.5, "tf32": 2.0, "amp_fp16": 1.0})})
    variants = {v["name"]: v for v in doc["experiments"][0]["cases"][0]["variants"]}
    variants["tf32"]["params"]["default_fp32"] = False  # a run with a variant for PyTorch's exact flags
    variants["fp32_default"]["params"] = {"default_fp32": True}
    r = evaluate_claim(claim("amp"), doc)
    assert r.evidence[0].baseline.startswith("fp32_default") and r.evidence[0].m.speedup == pytest.approx(2.5, rel=0.02)


def ddp_doc(cases, gpu=synth.H100):
    return synth.document([synth.experiment("data_parallel", cases, ["ddp_scaling"])], gpu=gpu)


def test_ddp_at_world_size_one_needs_two_gpus():
    doc = ddp_doc(
        [
            synth.case(
                "mlp_train_ws1",
                [("single_device", synth.lognormal(1.0, 0.01, 20, 1)), ("ddp", synth.lognormal(1.3, 0.01, 20, 2))],
                params={"world_size": 1},
            ),
            synth.case(
                "data_parallel_1gpu",
                [
                    ("single_device", synth.lognormal(1.0, 0.01, 20, 3)),
                    ("data_parallel", synth.lognormal(1.0, 0.01, 20, 4)),
                ],
                params={"gpus_used": 1, "world_size": 1},
            ),
        ]
    )
    r = evaluate_claim(claim("ddp_scaling"), doc)
    assert r.verdict.verdict == NOT_MEASURABLE
    assert why_text(r.verdict).startswith("needs 2+ GPUs")
    assert any("world size 1" in b.label and "0.77" in beside_text(b) for b in r.beside)


def test_ddp_against_data_parallel_on_two_gpus_in_todays_layout():
    doc = ddp_doc(
        [
            synth.case(
                "mlp_train_ws2",
                [("single_device", synth.lognormal(1.0, 0.01, 20, 1)), ("ddp", synth.lognormal(1.1, 0.01, 20, 2))],
                params={"world_size": 2},
            ),
            synth.case(
                "data_parallel_2gpu",
                [
                    ("single_device", synth.lognormal(1.0, 0.01, 20, 3)),
                    ("data_parallel", synth.lognormal(0.8, 0.01, 20, 4)),
                ],
                params={"gpus_used": 2, "world_size": 2},
            ),
        ]
    )
    # DDP's step does 2 x the items (a batch per rank); DataParallel splits one batch over both GPUs.
    doc["experiments"][0]["cases"][0]["variants"][1]["units"] = {"items": 64.0}
    # what workloads/ddp.cpp derives: (64 / 1.1) / (2 x 32 / 1.0)
    doc["experiments"][0]["cases"][0]["derived"] = {
        "variants": {"ddp": {"devices": 2, "scaling_efficiency": 0.909, "scaling_efficiency_ci": [0.9, 0.92]}}
    }
    r = evaluate_claim(claim("ddp_scaling"), doc)
    # DDP against DataParallel is read off one process's samples (claims._ddp_vs_dp): no verdict
    e = r.evidence[0]
    assert one_process(r.verdict) and e.m.unit == "round" and as_if_between(claim("ddp_scaling"), e) == CONFIRMED
    assert "2 ranks" in e.variant and "2 devices" in e.baseline
    # DDP: 64 items / 1.1 s; DataParallel: 32 items / 0.8 s
    assert e.m.speedup == pytest.approx((64 / 1.1) / (32 / 0.8), rel=0.03)
    eff = [b for b in r.beside if b.label.startswith("DDP on 2")]
    assert eff and beside_text(eff[0]) == "0.909 [0.900, 0.920] (data_parallel/mlp_train_ws2)"  # read, not recomputed


def test_ddp_against_data_parallel_in_one_case_is_paired():
    """Whatever the variants are called: what they are is in their params."""
    c = synth.case(
        "mlp_train_ws4",
        [
            ("one", synth.lognormal(1.0, 0.01, 20, 1)),
            ("dp", synth.lognormal(0.5, 0.01, 20, 2)),
            ("dist", synth.lognormal(0.3, 0.01, 20, 3)),
        ],
        params={"world_size": 4},
    )
    for v, (how, n) in zip(c["variants"], (("single", 1), ("data_parallel", 4), ("ddp", 4))):
        v["params"] = {"parallelism": how, "devices": n}
    c["derived"] = {"variants": {"dp": {"scaling_efficiency": 0.5}, "dist": {"scaling_efficiency": 0.83}}}
    r = evaluate_claim(claim("ddp_scaling"), ddp_doc([c]))
    assert one_process(r.verdict) and as_if_between(claim("ddp_scaling"), r.evidence[0]) == CONFIRMED
    assert r.evidence[0].m.speedup == pytest.approx(0.5 / 0.3, rel=0.03)
    assert r.evidence[0].variant == "dist (4 ranks)"
    assert {b.label.split(":")[0] for b in r.beside} >= {"DDP on 4", "DataParallel on 4"}


def test_ddp_variants_of_one_n_rank_case_with_data_parallel_inside():
    """The layout being built for issue 14: one mlp_train_wsN case holds single_device,
    data_parallel (over N GPUs in rank 0) and the DDP variants; no gpus_used param."""
    c = synth.case(
        "mlp_train_ws2",
        [
            ("single_device", synth.lognormal(1.0, 0.01, 20, 1)),
            ("data_parallel", synth.lognormal(0.8, 0.01, 20, 2)),
            ("ddp", synth.lognormal(0.6, 0.01, 20, 3)),
            ("ddp_bucket_view", synth.lognormal(0.55, 0.01, 20, 4)),
        ],
        params={"world_size": 2, "processes": 2},
    )
    c["derived"] = {"variants": {"data_parallel": {"devices": 2}, "ddp": {"devices": 2}}}
    r = evaluate_claim(claim("ddp_scaling"), ddp_doc([c]))
    assert one_process(r.verdict) and all(one_process(e.verdict) for e in r.evidence)
    assert [as_if_between(claim("ddp_scaling"), e) for e in r.evidence] == [CONFIRMED, CONFIRMED]
    # each DDP variant its own row; the first undecided one carries the claim (ddp, also the weaker)
    assert [e.variant.split(" ")[0] for e in r.evidence] == ["ddp", "ddp_bucket_view"]
    assert [e.m.speedup for e in r.evidence] == pytest.approx([0.8 / 0.6, 0.8 / 0.55], rel=0.03)
    assert r.decisive is r.evidence[0]


def test_confirmed_and_range_over_cases():
    cases = [
        window_loops(
            synth.case(
                f"pin_w{i}",
                [("unpinned", synth.lognormal(b, 0.01, 20, i)), ("pinned", synth.lognormal(1.0, 0.01, 20, 100 + i))],
                processes=3,
            )
        )
        for i, b in enumerate((1.15, 1.14, 1.16))
    ]
    doc = synth.document([synth.experiment("dataloader", cases, ["pin_memory"])], gpu=synth.H100)
    r = evaluate_claim(claim("pin_memory"), doc)
    assert r.verdict.verdict == CONFIRMED
    assert len(r.evidence) == 3
    assert r.low <= r.m.speedup <= r.high
    assert r.m.speedup == pytest.approx(1.15, rel=0.03)


def test_exceeded_and_no_effect():
    for speedup, verdict in ((2.0, EXCEEDED), (1.0, NO_EFFECT_VERDICT)):
        c = window_loops(
            synth.case(
                "workers",
                [
                    ("workers_0", synth.lognormal(speedup, 0.01, 20, 0)),
                    ("workers_2", synth.lognormal(1.0, 0.01, 20, 100)),
                ],
                processes=3,
            )
        )
        doc = synth.document([synth.experiment("dataloader", [c], ["num_workers"])], gpu=synth.H100)
        assert evaluate_claim(claim("num_workers"), doc).verdict.verdict == verdict


def test_loader_results_sampled_one_batch_at_a_time_are_not_evidence():
    """Files from before the epoch windows (no loop param): their queue filled between
    samples, so 1 worker read 30x; the loader claims refuse them and say why."""
    doc = loader_doc()
    for c in doc["experiments"][0]["cases"]:
        for v in c["variants"]:
            v.pop("params", None)
    for cid in ("pin_memory", "num_workers", "prefetch_factor"):
        r = evaluate_claim(claim(cid), doc)
        assert r.verdict.verdict == NOT_MEASURABLE and not r.evidence
        assert "one batch per sample" in why_text(r.verdict)


def test_cpu_run_is_not_measurable_for_gpu_claims():
    r = evaluate_claim(claim("pin_memory"), loader_doc(gpu=None))
    assert r.verdict.verdict == NOT_MEASURABLE
    assert why_text(r.verdict) == "measured on a CPU (the claim is about GPUs)"
    assert r.m is not None  # the measurement is still shown
    r = evaluate_claim(claim("pin_memory"), loader_doc(gpu=None, pin=None))
    assert why_text(r.verdict) == "CPU run: no GPU" and r.m is None  # nothing measured


def test_match_rules_pick_the_right_comparisons():
    # the variant does not match ^pinned$: nothing counts
    doc = loader_doc()
    doc["experiments"][0]["cases"][2]["comparisons"][0]["variant"] = "other"
    r = evaluate_claim(claim("pin_memory"), doc)
    assert r.verdict.verdict == NOT_MEASURABLE and not r.evidence


def test_verification_failures_are_left_out():
    doc = loader_doc()
    for cm in doc["experiments"][0]["cases"][2]["comparisons"]:
        cm["verification"] = {"status": "failed"}
    r = evaluate_claim(claim("pin_memory"), doc)
    assert r.verdict.verdict == NOT_MEASURABLE
    assert "verification failed" in why_text(r.verdict)
    assert r.notes


def test_skipped_experiment_and_no_experiment():
    doc = synth.document(
        [synth.experiment("dataloader", [], ["pin_memory"], status="skipped", reason="needs a GPU")], gpu=synth.H100
    )
    results = {r.claim["id"]: r for r in evaluate(doc)}
    assert results["pin_memory"].verdict.verdict == NOT_MEASURABLE
    assert "needs a GPU" in why_text(results["pin_memory"].verdict)
    assert why_text(results["torch_compile"].verdict) == "no experiment in these results tests it"
    assert all(r.verdict.verdict in ALL for r in results.values())


def test_qualitative_claim_shows_its_own_variant_but_no_verdict():
    c = synth.case(
        "m",
        [
            ("grad_enabled", synth.lognormal(1.1, 0.01, 20, 1)),
            ("no_grad", synth.lognormal(1.0, 0.01, 20, 2)),
            ("inference_mode", synth.lognormal(0.9, 0.01, 20, 3)),
        ],
    )
    for v, mode in zip(c["variants"], ("enabled", "no_grad", "inference_mode")):
        v["params"] = {"grad_mode": mode}
    doc = synth.document([synth.experiment("eval_no_grad", [c], ["no_grad_eval"])], gpu=synth.H100)
    r = evaluate_claim(claim("no_grad_eval"), doc)
    assert r.verdict.verdict == NOT_MEASURABLE and "no number" in why_text(r.verdict)
    # the claim's own variant, not the faster inference_mode, which stands beside
    assert [e.variant for e in r.evidence] == ["no_grad"] and r.m.speedup == pytest.approx(1.1, rel=0.03)
    assert any("inference_mode" in b.label and beside_text(b).startswith("1.2") for b in r.beside)


def test_claims_json_is_valid_json_with_known_methods():
    from report.claims.judge import METHODS

    d = json.loads(CLAIMS_PATH.read_text(encoding="utf-8"))
    for c in d["claims"]:
        assert c.get("method", "match") in METHODS
        for b in c.get("beside", []):
            assert b["label"] and ("match" in b or "derived" in b)


def test_render_shows_the_case_each_claim_used_and_why(tmp_path, cli):
    src = synth.write(tmp_path / "r.json", loader_doc())
    r = cli("render", src, "--out", tmp_path / "out", "--no-plots")
    assert r.rc == 0, r.err
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    details = (tmp_path / "out" / "report_details.md").read_text(encoding="utf-8")
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "| pin_memory | dataloader/pin_w8: pinned vs unpinned |" in md  # what tested it, in the claims table
    for text in (" ".join(details.split()), html):  # the Markdown's prose is wrapped
        assert "dataloader/pin_w8: pinned vs unpinned" in text
        assert "How each claim was tested" in text
        assert "why these cases: The claim is about pin_memory=True in the DataLoader" in text
        assert "Maximizing GPU Utilization in PyTorch, Checklist table, row 1 (excerpt in report/sources.md)" in text
        assert "mechanism: raw host-to-device copies" in text
    # no path of the machine that rendered it, apart from the input named on the command line
    for text in (md, details):
        assert not re.search(r"/(work|home|usr|opt)/|seeds/", text.replace(str(src), ""))


def ts_doc(scripted: float, frozen: float, cases: int = 2, twin: dict | None = None, processes=None) -> dict:
    """torchscript cases: eager 1.0 against scripted and frozen_optimized (times, per case), C++
    only as files from before the Python twin; twin: {jit: speedup} adds the Python twin case;
    processes=K: every case measured in K processes."""
    out = [
        synth.case(
            f"convnet_b{i}",
            [
                ("eager", synth.lognormal(1.0, 0.005, 20, 10 * i)),
                ("scripted", synth.lognormal(1.0 / scripted, 0.005, 20, 10 * i + 1)),
                ("frozen_optimized", synth.lognormal(1.0 / frozen, 0.005, 20, 10 * i + 2)),
            ],
        )
        for i in range(cases)
    ]
    if twin:
        jits = ["eager", *twin]
        c = synth.case(
            "python_convnet_b1",
            [(f"python_{j}", synth.lognormal(1.0 / twin.get(j, 1.0), 0.005, 20, 90 + k)) for k, j in enumerate(jits)],
        )
        for v, j in zip(c["variants"], jits):  # declared, as the twin's variants do (no name stands for them)
            v["params"] = {"jit": j, "runtime": "python"}
        out.append(c)
    if processes:
        for c in out:
            synth.in_processes(c, processes)
    return synth.document([synth.experiment("torchscript", out, ["torchscript"])], gpu=synth.H100)


def test_torchscript_is_judged_on_the_python_twin_with_cpp_and_freeze_beside():
    """The claim is about Python users: its verdict comes from the Python twin's script / trace,
    however much faster freezing is, and the C++ figure stands beside it."""
    r = evaluate_claim(
        claim("torchscript"), ts_doc(1.01, 1.5, twin={"script": 1.10, "trace": 1.12, "frozen": 1.6}, processes=3)
    )
    # script and trace each their own row and verdict, neither picked for being faster
    assert [(e.case, e.variant) for e in r.evidence] == [
        ("python_convnet_b1", "python_script"),
        ("python_convnet_b1", "python_trace"),
    ]
    assert all(e.m.confidence == 0.95 and e.verdict.verdict == CONFIRMED for e in r.evidence)
    assert r.verdict.verdict == CONFIRMED
    beside = {b.label.split(":")[0]: beside_text(b) for b in r.beside}
    assert set(beside) == {"C++", "Python"}
    cpp = [beside_text(b) for b in r.beside if b.label.startswith("C++: a TorchScript module")]
    assert len(cpp) == 1 and "1.01" in cpp[0] and "2 comparisons" in cpp[0]
    assert any(b.label.startswith("Python: frozen") and "1.6" in beside_text(b) for b in r.beside)
    assert any(b.label.startswith("C++: frozen") and "1.5" in beside_text(b) for b in r.beside)


def test_a_file_without_the_python_twin_gives_no_torchscript_verdict_and_says_so():
    """Files from before the twin measured TorchScript from C++ only: no verdict from that (it
    cannot test a Python user's gain), the C++ figure shown beside."""
    r = evaluate_claim(claim("torchscript"), ts_doc(1.3, 1.5))
    assert not r.evidence
    assert r.verdict.verdict == NOT_MEASURABLE and "Python twin" in why_text(r.verdict)
    assert any(b.label.startswith("C++: a TorchScript module") and "1.3" in beside_text(b) for b in r.beside)


def test_the_committed_breakdown_run_has_no_python_twin_and_says_so():
    doc = load_results(REPO / "results" / "2026-11-26_cpu_amd-epyc-2core_libtorch-2.11_breakdown.json")
    r = evaluate_claim(claim("torchscript"), doc)
    assert r.verdict.verdict == NOT_MEASURABLE and "Python twin" in why_text(r.verdict)
    assert any(b.label.startswith("C++: a TorchScript module") for b in r.beside)


def test_several_cases_pool_as_a_geometric_mean_with_a_bootstrap_ci():
    """A claim whose cases are replicates (pool: true) measured in one process: the
    geometric mean with a bootstrap over the cases' rounds, its range of the same figures."""
    doc = synth.document(
        [
            synth.experiment(
                "zero_grad",
                [
                    synth.case(
                        "a",
                        [
                            ("zeroing", synth.lognormal(1.2, 0.01, 30, 1)),
                            ("set_to_none", synth.lognormal(1.0, 0.01, 30, 2)),
                        ],
                    ),
                    synth.case(
                        "b",
                        [
                            ("zeroing", synth.lognormal(1.6, 0.01, 30, 3)),
                            ("set_to_none", synth.lognormal(1.0, 0.01, 30, 4)),
                        ],
                    ),
                ],
                ["zero_grad_set_to_none"],
            )
        ],
        gpu=synth.H100,
    )
    pooled = {**claim("zero_grad_set_to_none"), "pool": True}
    r = evaluate_claim(pooled, doc)
    s = [e.m.speedup for e in r.evidence]
    assert r.m.speedup == pytest.approx((s[0] * s[1]) ** 0.5)  # not their median (the mean of two)
    assert (r.low, r.high) == (min(s), max(s))
    assert r.m.ci_low < r.m.speedup < r.m.ci_high and r.m.confidence == 0.95
    # an interval of the pooled estimate, away from either case's own
    assert r.m.ci_high < s[1] * 0.95 and r.m.ci_low > s[0] * 1.05
    assert "geometric mean of 2 cases" in claim_text(r) and "bootstrap" in claim_text(r)
    # a bootstrap over one process's rounds decides nothing, however narrow (its interval as
    # if between processes would confirm: both cases are 1.2x or more)
    assert one_process(r.verdict) and why_text(r.verdict) == ONE_PROCESS
    assert (
        decide(
            pooled["kind"], pooled.get("low"), pooled.get("high"), r.m.ci_low, r.m.ci_high, point=r.m.speedup
        ).verdict
        == CONFIRMED
    )
    for c in doc["experiments"][0]["cases"]:
        for v in c["variants"]:
            v["samples"]["host_s"] = []
    r = evaluate_claim(pooled, doc)
    assert r.m.ci_low is None and any(n.startswith("no pooled CI") for n in r.notes)
    assert r.verdict.verdict == NOT_MEASURABLE
    # judged apart (the default), each case is its own row and the claim the weaker's (3 processes each)
    r = evaluate_claim(
        claim("zero_grad_set_to_none"),
        synth.document(
            [
                synth.experiment(
                    "zero_grad",
                    [
                        synth.case(
                            "a",
                            [
                                ("zeroing", synth.lognormal(1.2, 0.01, 30, 1)),
                                ("set_to_none", synth.lognormal(1.0, 0.01, 30, 2)),
                            ],
                            processes=3,
                        ),
                        synth.case(
                            "b",
                            [
                                ("zeroing", synth.lognormal(1.0, 0.01, 30, 3)),
                                ("set_to_none", synth.lognormal(1.0, 0.01, 30, 4)),
                            ],
                            processes=3,
                        ),
                    ],
                    ["zero_grad_set_to_none"],
                )
            ],
            gpu=synth.H100,
        ),
    )
    assert r.apart and [e.verdict.verdict for e in r.evidence] == [CONFIRMED, NO_EFFECT_VERDICT]
    assert r.verdict.verdict == NO_EFFECT_VERDICT and r.decisive.case == "b"


PYTHON_TWINS_RUN = REPO / "report/tests/fixtures/cpu_python_twins/torchscript_fused_optimizer_omp1.json.gz"


def test_a_real_run_with_the_python_twins_judges_torchscript_on_them_and_kernel_fusion_on_cpp():
    """A standard CPU run of torchscript and fused_optimizer with their Python twins
    (OMP_NUM_THREADS=1 on the shared 2-core VM): TorchScript's verdict rests on the
    twin's script / trace only, the C++ module's figure beside it; kernel fusion's on
    the C++ step with the twin beside."""
    doc = load_results(PYTHON_TWINS_RUN)
    ts = evaluate_claim(claim("torchscript"), doc)
    assert ts.evidence and all(
        e.case.startswith("python_") and e.variant in ("python_script", "python_trace") for e in ts.evidence
    )
    assert ts.verdict.verdict in (*DRAWN, INCONCLUSIVE)  # drawn from the twin
    labels = [b.label for b in ts.beside]
    assert any(lb.startswith("C++: a TorchScript module") for lb in labels)
    kf = evaluate_claim(claim("kernel_fusion"), doc)
    assert [(e.case, e.variant) for e in kf.evidence] == [
        ("optimizer_step_mlp_depth32_w64", "foreach"),
        ("optimizer_step_mlp_depth32_w64", "fused"),
    ]
    assert any(
        b.label.startswith("Python: torch.optim.AdamW") and "python_optimizer_step_mlp" in beside_text(b)
        for b in kf.beside
    )
