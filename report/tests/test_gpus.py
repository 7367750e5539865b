import pytest
import synth

from report.gpu.gpu_specs import load_specs, match_gpu

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
    assert "H100 SXM5" in header and "A100 SXM 80GB" in header and "CPU Test CPU 9000" in header
    assert "(51% of fp16 H100 SXM5)" in r.out
    assert "(50% of fp16 A100 SXM 80GB)" in r.out
    assert "8.0" in r.out  # speedup ~8x
    r = cli("gpus", a, b, "--markdown")
    assert r.rc == 0 and "| experiment |" in r.out


def test_same_gpu_twice_gets_distinct_columns(tmp_path, cli):
    a = synth.write(tmp_path / "1.json", _flops_doc(synth.H100, 0.002))
    b = synth.write(tmp_path / "2.json", _flops_doc(synth.H100, 0.002))
    r = cli("gpus", a, b)
    assert "H100 SXM5 #1" in r.out and "H100 SXM5 #2" in r.out
