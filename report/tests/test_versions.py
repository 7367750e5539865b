"""Older results files read as the current version (report/load/versions.py): each
generation told by its keys, upgraded one step at a time; variant params filled from
the names of their time, never over what a file records, valid under the schema, and
the same wiring of claims as the params a workload declares."""

import copy
import glob

import pytest
import synth
from conftest import REPO

from report.claims.judge import evaluate
from report.load.document import VARIANT_KINDS, Document
from report.load.results import load_results, load_schema, read_json, schema_errors
from report.load.versions import CURRENT, FIRST_NUMBERED, READABLE, TABLE, upgrade, version_of
from report.render.claim_words import beside_text

COMMITTED = sorted(
    glob.glob(str(REPO / "results" / "*.json"))
    + glob.glob(str(REPO / "report" / "tests" / "fixtures" / "**" / "*.json.gz"), recursive=True)
)


def variants(doc, experiment):
    for e in doc["experiments"]:
        if e["name"] == experiment:
            for c in e.get("cases") or []:
                for v in c.get("variants") or []:
                    yield c, v


def test_every_kind_is_in_the_schemas_vocabulary():
    vocabulary = load_schema()["$defs"]["variant_params"]["properties"]
    assert set(VARIANT_KINDS) <= set(vocabulary)
    assert {k for names in TABLE.values() for params in names.values() for k in params} <= set(VARIANT_KINDS)


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.split("/")[-1])
def test_committed_files_load_with_the_params_their_names_stood_for(path):
    before = read_json(path)
    doc = load_results(path)  # upgraded where loaded
    assert doc["schema_version"] == CURRENT
    assert not schema_errors({k: v for k, v in doc.items() if k != "_path"})
    filled = 0
    for experiment, table in TABLE.items():
        for c, v in variants(doc, experiment):
            for k, want in (table.get(v["name"]) or {}).items():
                assert v["params"][k] == want, (experiment, c["name"], v["name"], k)
                filled += 1
    for _, v in variants(doc, "mixed_precision"):
        assert isinstance(v["params"]["default_fp32"], bool)
    assert upgrade(copy.deepcopy(doc)) == doc  # a second pass changes nothing

    # nothing but variant params: cases, figures and names are as recorded
    def strip(d):
        return [
            [{**v, "params": None} for v in c.get("variants") or []]
            for e in d["experiments"]
            for c in e.get("cases") or []
        ]

    assert strip(before) == strip(doc)
    assert [c.get("params") for e in before["experiments"] for c in e.get("cases") or []] == [
        c.get("params") for e in doc["experiments"] for c in e.get("cases") or []
    ]
    if any(
        v
        for e in before["experiments"]
        if e["name"] in TABLE
        for c in e.get("cases") or []
        for v in c.get("variants") or []
    ):
        assert filled


def test_the_default_fp32_of_a_conv_net_is_tf32_and_of_a_transformer_fp32():
    doc = load_results(REPO / "report/tests/fixtures/h100_2026-11-24/h100_mixed_precision.json.gz")
    default = {
        c["name"]: [v["name"] for v in c["variants"] if v["params"]["default_fp32"]]
        for c, _ in variants(doc, "mixed_precision")
    }
    assert default == {"resnet50_b128_224": ["tf32"], "gpt_l6_h1024_s1024": ["fp32"]}
    cpu = load_results(REPO / "results" / "2026-11-25_cpu_amd-epyc-2core_libtorch-2.11.json")
    default = {
        c["name"]: [v["name"] for v in c["variants"] if v["params"]["default_fp32"]]
        for c, _ in variants(cpu, "mixed_precision")
    }
    assert default == {"resnet50_b8_32": [], "gpt_l2_h128_s64": ["fp32"]}  # no TF32 on a CPU


def test_ddp_ranks_come_from_what_the_case_derived_or_its_world_size():
    c = synth.case(
        "mlp_train_ws2",
        [("single_device", [1.0] * 8), ("data_parallel", [0.8] * 8), ("ddp", [0.6] * 8)],
        params={"world_size": 2},
    )
    c["derived"] = {"variants": {"data_parallel": {"devices": 2}}}
    doc = synth.document([synth.experiment("data_parallel", [c])])
    got = {v["name"]: v["params"] for v in doc["experiments"][0]["cases"][0]["variants"]}
    assert got == {
        "single_device": {"parallelism": "single", "devices": 1},
        "data_parallel": {"parallelism": "data_parallel", "devices": 2},
        "ddp": {"parallelism": "ddp", "devices": 2},
    }


def test_declared_params_are_never_overwritten():
    c = synth.case("gpt", [("fp32", [1.0] * 8), ("amp_bf16", [0.5] * 8)], params={"model": "gpt"})
    c["variants"][0]["params"] = {"precision": "tf32", "default_fp32": False}  # whatever the name says
    doc = synth.document([synth.experiment("mixed_precision", [c])])
    assert doc["experiments"][0]["cases"][0]["variants"][0]["params"] == {
        "precision": "tf32",
        "default_fp32": False,
        "layout": "contiguous",
    }


def declared_doc():
    """A run as today's workloads write it: every variant declares what it is (the C++
    params), under names the report does not read."""

    def case(name, params, variants):
        c = synth.case(
            name, [(v, synth.lognormal(t, 0.005, 20, i)) for i, (v, t, _) in enumerate(variants)], params=params
        )
        for v, (_, _, p) in zip(c["variants"], variants):
            v["params"] = p
        return c

    mp = [
        case(
            "resnet50_b128_224",
            {"model": "resnet50"},
            [
                ("fp32", 4.8, {"precision": "fp32", "layout": "contiguous", "default_fp32": False}),
                ("tf32", 2.0, {"precision": "tf32", "layout": "contiguous", "default_fp32": True}),
                ("amp_fp16", 1.0, {"precision": "fp16", "layout": "contiguous", "default_fp32": False}),
                ("amp_bf16", 1.1, {"precision": "bf16", "layout": "contiguous", "default_fp32": False}),
                (
                    "amp_fp16_channels_last",
                    0.6,
                    {"precision": "fp16", "layout": "channels_last", "default_fp32": False},
                ),
            ],
        ),
        case(
            "gpt_l6_h1024_s1024",
            {"model": "gpt"},
            [
                ("fp32", 3.0, {"precision": "fp32", "layout": "contiguous", "default_fp32": True}),
                ("amp_bf16", 1.5, {"precision": "bf16", "layout": "contiguous", "default_fp32": False}),
            ],
        ),
    ]
    ts = [
        case(
            "convnet_b8_32px",
            {"batch": 8},
            [
                ("eager", 1.0, {"jit": "eager", "runtime": "cpp"}),
                ("scripted", 0.95, {"jit": "script", "runtime": "cpp"}),
                ("frozen_optimized", 0.7, {"jit": "frozen", "runtime": "cpp"}),
            ],
        )
    ]
    dp = [
        case(
            "mlp_train_ws1",
            {"world_size": 1},
            [
                ("single_device", 1.0, {"parallelism": "single", "devices": 1}),
                ("ddp", 1.2, {"parallelism": "ddp", "devices": 1}),
                ("ddp_bucket_view", 1.1, {"parallelism": "ddp", "devices": 1}),
            ],
        )
    ]
    pw = [
        case(
            "threads_w2",
            {"workers": 2},
            [
                ("new_workers", 1.3, {"persistent_workers": False, "loader": "libtorch"}),
                ("persistent_workers", 1.0, {"persistent_workers": True, "loader": "libtorch"}),
            ],
        ),
        case(
            "python_processes_w2",
            {"workers": 2},
            [
                ("python_new_workers", 6.0, {"persistent_workers": False, "loader": "python"}),
                ("python_persistent_workers", 1.0, {"persistent_workers": True, "loader": "python"}),
            ],
        ),
    ]
    cb = [
        case(
            "fixed_shape_b64_224",
            {"shape": "fixed"},
            [("benchmark_off", 1.1, {"cudnn_benchmark": False}), ("benchmark_on", 1.0, {"cudnn_benchmark": True})],
        ),
        case(
            "deterministic_cost_b64_224",
            {"shape": "fixed"},
            [("deterministic", 1.2, {"cudnn_benchmark": False}), ("nondeterministic", 1.0, {"cudnn_benchmark": False})],
        ),
    ]
    return synth.document(
        [
            synth.experiment("mixed_precision", mp, ["amp", "fp16_tensor_cores"]),
            synth.experiment("torchscript", ts, ["torchscript"]),
            synth.experiment("data_parallel", dp, ["ddp_scaling"]),
            synth.experiment("persistent_workers", pw, ["persistent_workers"]),
            synth.experiment("cudnn_benchmark", cb, ["cudnn_benchmark"]),
        ],
        gpu=synth.H100,
        migrate=False,
    )


def wiring(doc):
    """Per claim: the comparisons it picked, what it showed beside, its verdict."""
    return {
        r.claim["id"]: (
            [(e.experiment, e.case, e.variant, e.baseline, e.m.speedup) for e in r.evidence],
            [(b.label, beside_text(b)) for b in r.beside],
            r.verdict,
        )
        for r in evaluate(Document(doc))
    }


def test_declared_params_and_migrated_names_wire_the_claims_alike():
    declared = declared_doc()
    stripped = copy.deepcopy(declared)
    for e in stripped["experiments"]:
        for c in e["cases"]:
            for v in c["variants"]:
                v["params"] = {k: x for k, x in v["params"].items() if k not in VARIANT_KINDS}
    assert version_of(stripped) == 2
    migrated = upgrade(copy.deepcopy(stripped))
    assert migrated == {**declared, "schema_version": CURRENT}  # the table gives what today's workloads declare
    ours, theirs, bare = wiring(declared), wiring(migrated), wiring(stripped)
    assert ours == theirs
    picked = {cid: [x[1:4] for x in w[0]] for cid, w in ours.items() if w[0]}
    # every AMP precision against the default FP32, each its own row (never the best of them)
    tf32 = "tf32 (TF32 on for cuDNN convolutions, the default)"
    fp32 = "fp32 (the default: no convolutions, matmul without TF32)"
    assert picked["amp"] == [
        ("resnet50_b128_224", "amp_fp16", tf32),
        ("resnet50_b128_224", "amp_bf16", tf32),
        ("gpt_l6_h1024_s1024", "amp_bf16", fp32),
    ]
    # the torchscript claim's verdict needs the Python twin, which no name stands for: C++ only beside
    assert "torchscript" not in picked
    assert any(
        label.startswith("C++: a TorchScript module") and "convnet_b8_32px" in text
        for label, text in ours["torchscript"][1]
    )
    assert picked["persistent_workers"] == [("threads_w2", "persistent_workers", "new_workers")]
    assert picked["cudnn_benchmark"] == [("fixed_shape_b64_224", "benchmark_on", "benchmark_off")]
    assert any("world size 1" in label for label, _ in ours["ddp_scaling"][1])
    # without params nothing says what a variant is: those claims find nothing
    for cid in ("amp", "torchscript", "persistent_workers", "cudnn_benchmark", "fp16_tensor_cores"):
        assert not bare[cid][0], cid


def _doc_with_repeats_in_the_case() -> dict:
    doc = synth.simple_doc([1.0, 2.0, 1.5], [0.5, 1.0, 0.7])
    case = doc["experiments"][0]["cases"][0]
    case["repeats"] = [{"process": 1, "status": "ok", "rounds": 3}]
    doc["schema_version"] = 1  # as every file of generation 2 says
    return doc


def test_each_generation_is_told_by_its_keys():
    plain = synth.simple_doc([1.0, 2.0, 1.5], [0.5, 1.0, 0.7])
    plain["schema_version"] = 1
    assert version_of(plain) == 4  # the last generation that said 1
    assert version_of(_doc_with_repeats_in_the_case()) == 3
    assert version_of({**declared_doc(), "schema_version": 1}) == 4  # its variants declare every param
    flagged = copy.deepcopy(plain)
    flagged["experiments"][0]["cases"][0]["comparisons"][0]["verification"] = {"details": {"fit_judged": True}}
    assert version_of(flagged) == 1
    assert upgrade(flagged)["experiments"][0]["cases"][0]["comparisons"][0]["verification"]["details"]["judged"] == [
        "fit"
    ]
    assert version_of({**plain, "schema_version": CURRENT}) == CURRENT


def test_upgrade_steps_one_version_at_a_time():
    out = upgrade(_doc_with_repeats_in_the_case())
    assert out["schema_version"] == CURRENT
    e = out["experiments"][0]
    assert "repeats" not in e["cases"][0]
    assert [r["process"] for r in e["repeats"]] == [1] and e["repeats"][0]["case"] == e["cases"][0]["name"]


def test_a_current_file_passes_unchanged():
    doc = _doc_with_repeats_in_the_case()
    doc["schema_version"] = CURRENT  # no step runs on the current version
    assert upgrade(copy.deepcopy(doc)) == doc


def test_the_harness_writes_the_current_version():
    """The version is written by the harness (kSchemaVersion) and allowed by the schema: all
    three say CURRENT, so a format change bumps them together."""
    import re

    header = (REPO / "harness" / "results_writer.h").read_text()
    assert re.search(r"kSchemaVersion = (\d+);", header).group(1) == str(CURRENT)
    assert load_schema()["properties"]["schema_version"]["enum"] == [1, *range(FIRST_NUMBERED, CURRENT + 1)]
    assert READABLE == (1, *range(FIRST_NUMBERED, CURRENT + 1))


def test_a_version_5_file_is_read_without_the_isa_it_could_not_know():
    """5 -> 6 adds environment.cpu's isa and torch_capability: an older file's machine is
    not known after the fact, so they stay absent (the fingerprint's "-"), never guessed."""
    path = REPO / "results" / "2026-12-05_cpu_intel-xeon-2core_libtorch-2.11_standard_8proc.json"
    before = read_json(path)
    assert before["schema_version"] == 5
    doc = load_results(path)
    assert doc["schema_version"] == CURRENT == 6
    assert not {"isa", "torch_capability"} & set(doc["environment"]["cpu"])
    assert {k: v for k, v in doc.items() if k not in ("_path", "schema_version")} == {
        k: v for k, v in before.items() if k != "schema_version"
    }
    recorded = copy.deepcopy(before)
    recorded["schema_version"] = CURRENT
    recorded["environment"]["cpu"].update(isa=["avx2", "avx512f"], torch_capability=None)
    assert not schema_errors(recorded)  # null: could not be read, said so
    recorded["environment"]["cpu"]["isa"] = "avx2"
    assert schema_errors(recorded)
