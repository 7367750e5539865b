from pathlib import Path

import pytest
import synth

from report.claims.judge import evaluate
from report.gpu import gpus
from report.gpu.gpu_specs import load_specs, match_gpu

RESULTS = Path(__file__).resolve().parents[2] / "results"

NAMES = [
    ("NVIDIA H100 80GB HBM3", "H100 SXM5"),
    ("NVIDIA H100 PCIe", "H100 PCIe"),
    ("NVIDIA H200", "H200 SXM"),
    ("NVIDIA A100-SXM4-80GB", "A100 SXM 80GB"),
    ("NVIDIA A100 80GB PCIe", "A100 PCIe 80GB"),
    ("Tesla V100-SXM2-32GB", "V100 SXM2"),
    ("NVIDIA L4", "L4"),
    ("NVIDIA L40S", None),
    ("NVIDIA A100-PCIE-40GB", None),
    ("NVIDIA H100 NVL", None),
    ("NVIDIA GeForce RTX 4090", None),
]


@pytest.mark.parametrize("name,expected", NAMES)
def test_gpu_name_matching(name, expected):
    spec = match_gpu(name)
    assert (spec["name"] if spec else None) == expected


def test_spec_table_complete_and_sourced():
    for s in load_specs():
        assert s["source"].startswith("NVIDIA") and "Datasheet" in s["source"]
        assert s["fp32_tflops"] > 0 and s["fp16_tflops"] > 0 and s["memory_gb_per_s"] > 0
        assert s["host_link_gb_per_s"] > 0
    h100 = match_gpu("NVIDIA H100 80GB HBM3")
    assert (h100["fp32_tflops"], h100["tf32_tflops"], h100["fp16_tflops"], h100["memory_gb_per_s"]) == (
        66.9,
        494.7,
        989.4,
        3350,
    )


def _flops_doc(gpu, seconds):
    units = {"bytes": 0.0, "flops": 1e12, "items": 0.0, "item_name": "samples"}
    c = synth.case(
        "matmul",
        [("fp32", synth.lognormal(seconds * 8, 0.01, 10, 1)), ("amp_fp16", synth.lognormal(seconds, 0.01, 10, 2))],
        units=units,
    )
    return synth.document([synth.experiment("mixed_precision", [c], ["amp"])], gpu=gpu)


def test_gpus_table_has_a_column_per_gpu(tmp_path, cli):
    a = synth.write(tmp_path / "h100.json", _flops_doc(synth.H100, 1e12 / 500e12))  # 500 TFLOP/s fp16
    b = synth.write(tmp_path / "a100.json", _flops_doc(synth.A100, 1e12 / 156e12))  # 156 TFLOP/s fp16
    c = synth.write(tmp_path / "cpu.json", _flops_doc(None, 1.0))
    r = cli("gpus", a, b, c)
    assert r.rc == 0, r.err
    header = next(line for line in r.out.splitlines() if line.startswith("experiment"))
    assert "H100 SXM5" in header and "A100 SXM 80GB" in header and "Test CPU 9000 (2 cores)" in header
    assert header.index("Test CPU 9000") < header.index("A100") < header.index("H100")  # CPUs first
    assert "(51% of fp16 H100 SXM5)" in r.out
    assert "(50% of fp16 A100 SXM 80GB)" in r.out
    assert "8.0" in r.out  # speedup ~8x
    r = cli("gpus", a, b, "--markdown")
    assert r.rc == 0 and "| experiment |" in r.out


def test_two_runs_of_one_machine_and_commit_are_one_column(tmp_path, cli):
    a = synth.write(tmp_path / "1.json", _flops_doc(synth.H100, 0.002))
    b = synth.write(tmp_path / "2.json", _flops_doc(synth.H100, 0.002))
    r = cli("gpus", a, b)
    assert r.rc == 0, r.err
    header = next(line for line in r.out.splitlines() if line.startswith("experiment"))
    assert header.count("H100 SXM5") == 1 and "2 runs" in header
    row = next(line for line in r.out.splitlines() if "amp_fp16 vs fp32" in line)
    assert gpus.PAIR in row  # both runs' speedups in the one cell


def test_runs_that_differ_in_fingerprint_are_never_one_column(tmp_path, cli):
    docs = [_flops_doc(synth.H100, 0.002) for _ in range(3)]
    docs[1]["environment"]["cuda"]["gpus"][0]["nvml"] = {"available": True, "driver_version": "570.1"}
    docs[2]["environment"]["malloc"] = {"set_by": "optbench", "glibc_tunables": "glibc.malloc.mmap_threshold=1"}
    paths = [synth.write(tmp_path / f"{i}.json", d) for i, d in enumerate(docs)]
    v = gpus.compute(paths)
    assert len(v.columns) == 3 and all(len(c.runs) == 1 for c in v.columns)
    assert len({c.fingerprint for c in v.columns}) == 3
    assert len(set(v.labels)) == 3
    assert any("pinned malloc" in lab for lab in v.labels)


def test_newest_commit_is_the_column_and_a_dirty_run_only_stands_in(tmp_path):
    old, new, dirty = (_flops_doc(synth.H100, 0.002) for _ in range(3))
    old["environment"]["git"]["sha"], old["environment"]["date"] = "a" * 40, "2025-01-01T00:00:00Z"
    new["environment"]["git"]["sha"], new["environment"]["date"] = "b" * 40, "2025-01-02T00:00:00Z"
    dirty["environment"]["git"] = {"sha": "c" * 40, "dirty": True}
    dirty["environment"]["date"] = "2025-01-03T00:00:00Z"
    for name, d in (("old", old), ("new", new), ("dirty", dirty)):
        synth.write(tmp_path / f"{name}.json", d)
    (col,) = gpus.compute([tmp_path]).columns
    assert [r.path.name for r in col.runs] == ["new.json"]
    (col,) = gpus.compute([tmp_path / "dirty.json"]).columns  # the machine's only run
    assert col.commit.endswith("+dirty") and "+dirty" in col.header


def test_a_malformed_file_in_the_folder_is_named_and_skipped(tmp_path, cli):
    synth.write(tmp_path / "gpu.json", _flops_doc(synth.H100, 0.002))
    (tmp_path / "malformed.json").write_text("{ not json")
    r = cli("gpus", tmp_path)
    assert r.rc == 0, r.err
    assert f"skipped: {tmp_path / 'malformed.json'}:" in r.err
    assert "Not read:" in r.out and "malformed.json" in r.out
    assert "H100 SXM5" in r.out
    (tmp_path / "gpu.json").unlink()
    assert cli("gpus", tmp_path).rc == 2  # nothing left to show


def _cell_of(r) -> str:
    return gpus.claim_cell(r)


def test_committed_pairs_are_the_first_columns_with_their_verdicts(tmp_path, cli):
    """`report gpus results/`: AMD's and Intel's committed pairs first, each cell both
    runs' verdicts and figures as each run alone judges them; a GPU run after the CPUs."""
    gpu = synth.write(tmp_path / "h100.json", _flops_doc(synth.H100, 1e12 / 500e12))
    v = gpus.compute([RESULTS, gpu])
    pairs = [
        "2026-11-27_cpu_amd-epyc-2core_libtorch-2.11_standard",
        "2026-12-06_cpu_amd-epyc-2core_libtorch-2.11_standard",  # AVX2 recorded: a machine of its own
        "2026-12-05_cpu_intel-xeon-2core_libtorch-2.11_standard_8proc",
        "2026-12-06_cpu_intel-xeon-2core_libtorch-2.11_standard",  # AMX recorded
    ]
    assert [[r.path.name for r in c.runs] for c in v.columns[: len(pairs)]] == [
        [f"{p}{s}.json" for s in ("", "_second")] for p in pairs
    ]
    amd, intel = v.columns[0], v.columns[2]
    assert all(c.fingerprint.device == "cpu" for c in v.columns[:-1]) and v.columns[-1].fingerprint.device == "cuda"
    rows = {row[0]: row[2:] for row in gpus.claim_rows(v.judged)}
    for col, i in ((amd, 0), (intel, 2)):
        want = gpus.PAIR.join(
            _cell_of(next(r for r in evaluate(run.doc) if r.claim.get("id") == "torch_compile")) for run in col.runs
        )
        assert rows["torch_compile"][i] == want and want.startswith("confirmed ")
    r = cli("gpus", RESULTS, gpu, "--markdown", "--plot", tmp_path / "claims.png")
    assert r.rc == 0, r.err
    claims = r.out[r.out.index("Claims") :]
    head = next(line for line in claims.splitlines() if line.startswith("| claim"))
    assert head.index("AMD EPYC (2 cores), torch 2.11.0, standard, 92935e6320, 2 runs") < head.index("Intel")
    assert "(51% of fp16 H100 SXM5)" in r.out
    assert (tmp_path / "claims.png").stat().st_size > 0


AMX = ["avx2", "avx512f", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8"]


def test_cpus_alike_but_for_their_isa_are_two_columns(tmp_path):
    """One model string ("Intel(R) Xeon(R) Processor"), other kernels: two machines."""
    docs = [_flops_doc(None, 1.0) for _ in range(2)]
    docs[0]["environment"]["cpu"].update(isa=AMX, torch_capability="AVX512")
    docs[1]["environment"]["cpu"].update(isa=["avx2"], torch_capability="AVX2")
    paths = [synth.write(tmp_path / f"{i}.json", d) for i, d in enumerate(docs)]
    v = gpus.compute(paths)
    assert len(v.columns) == 2 and len(set(v.labels)) == 2
    assert sorted(c.name for c in v.columns) == ["Test CPU 9000 (2 cores, AMX)", "Test CPU 9000 (2 cores, AVX2)"]
    described = "\n".join(gpus.describe(v.columns, v.labels))
    assert "kernels AVX512 (" + " ".join(AMX) + ")" in described and "kernels AVX2 (avx2)" in described
