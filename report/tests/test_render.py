import csv
import json
import re
import sys

import synth
from conftest import digest

from report.load.document import Document

MiB = 2**20


def rich_doc():
    copy_cases = []
    for i, direction in enumerate(("h2d", "d2h")):
        for j, mib in enumerate((1, 4, 16, 64)):
            b = mib * MiB
            copy_cases.append(
                synth.case(
                    f"{direction}_{mib}MiB",
                    [
                        ("pageable", synth.lognormal(b / 20e9, 0.02, 12, 10 * i + j)),
                        ("pinned", synth.lognormal(b / 50e9, 0.02, 12, 100 + 10 * i + j)),
                    ],
                    params={"direction": direction, "bytes": b},
                    units={"bytes": float(b), "flops": 0.0, "items": 0.0, "item_name": "bytes"},
                    notes={"peak_kind": "host_link"},
                )
            )
    flops_units = {"bytes": 0.0, "flops": 2 * 4096.0**3, "items": 0.0, "item_name": "samples"}
    mp_cases = [
        synth.case(
            "matmul_4096",
            [
                ("fp32", synth.lognormal(3e-3, 0.01, 10, 1)),
                ("amp_fp16", synth.lognormal(0.4e-3, 0.01, 10, 2)),
                ("amp_bf16", synth.lognormal(0.4e-3, 0.01, 10, 3)),
            ],
            units=flops_units,
            variant_status={"amp_bf16": "oom"},
        ),
        synth.case("broken", [], status="failed"),
        synth.case(
            "partial",
            [("fp32", synth.lognormal(3e-3, 0.01, 4, 4)), ("amp_fp16", synth.lognormal(1e-3, 0.01, 4, 5))],
            units=flops_units,
            status="interrupted",
        ),
    ]
    return synth.document(
        [
            synth.experiment("pinned_memory", copy_cases, ["pin_memory"]),
            synth.experiment("mixed_precision", mp_cases, ["amp", "fp16_tensor_cores"]),
            synth.experiment("cudnn_benchmark", [], ["cudnn_benchmark"], status="skipped", reason="not today"),
        ],
        gpu=synth.H100,
        status="interrupted",
    )


def test_render_synthetic(tmp_path, cli):
    src = synth.write(tmp_path / "r.json", rich_doc())
    before = digest(src)
    out = tmp_path / "out"
    r = cli("render", src, "--out", out)
    assert r.rc == 0, r.err
    assert str(out / "report.md") in r.out
    md = (out / "report.md").read_text()
    details = (out / "report_details.md").read_text()
    html = (out / "report.html").read_text()
    for marker in ("FAILED", "OOM", "INTERRUPTED", "interrupted"):
        assert marker in md, marker
    assert "SKIPPED" in details and "Not run: cudnn_benchmark (not today)." in md
    assert "of PCIe Gen5 x16" in md  # % of the host link for the copies
    assert "of fp16 H100 SXM5" in md  # % of the fp16 tensor peak
    assert "GB/s" in md and "TFLOP/s" in md
    assert "- pin_memory: needs the end-to-end loader case" in md  # raw copies cannot test it: not measured
    assert re.search(r"\| h2d_1MiB \| pinned \| [^|]+ \| [^|]+ \| 2\.\d+× \[", md)  # 2.5x, in its table
    assert "data:image/png;base64," in html and "<table>" in html
    # one plot per experiment, its speedups; the sweeps with --plots all
    names = sorted(p.name for p in (out / "plots").glob("*.png"))
    assert names == ["mixed_precision_speedup.png", "pinned_memory_speedup.png"]
    assert html.count("data:image/png;base64,") == 2
    # readable offline: nothing fetched from elsewhere (no script, stylesheet, font or remote image)
    assert not re.search(r"""(?:src|href)\s*=\s*(?!["']?(?:data:|#))""", html) and "<script" not in html
    assert "@import" not in html and "url(" not in html
    assert cli("render", src, "--out", out, "--plots", "all").rc == 0
    pngs = sorted((out / "plots").glob("*.png"))
    names = [p.name for p in pngs]
    assert "pinned_memory_speedup.png" in names
    assert "pinned_memory_bytes_throughput.png" in names
    assert all(p.stat().st_size > 1024 for p in pngs)
    assert "plots/pinned_memory_bytes_throughput.png" in (out / "report_details.md").read_text()
    with open(out / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    # 8 copy cases x 2 + 3 + 1 failed + 2 interrupted + 1 skipped experiment
    assert len(rows) == 16 + 3 + 1 + 2 + 1
    assert {r["marker"] for r in rows} >= {"OOM", "FAILED", "INTERRUPTED", "SKIPPED"}
    assert digest(src) == before


def test_render_without_matplotlib(tmp_path, cli, monkeypatch):
    for mod in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    src = synth.write(tmp_path / "r.json", rich_doc())
    r = cli("render", src, "--out", tmp_path / "out")
    assert r.rc == 0
    assert "matplotlib is not installed" in r.err
    assert "matplotlib is not installed" in (tmp_path / "out" / "report.md").read_text()
    assert not list((tmp_path / "out").glob("plots/*.png"))


def test_render_directory_and_several_files(tmp_path, cli):
    d = tmp_path / "in"
    d.mkdir()
    synth.write(d / "a.json", synth.simple_doc([1.0, 1.1, 1.2], [0.5, 0.6, 0.55]))
    synth.write(d / "b.json", synth.simple_doc([1.0, 1.1, 1.2], [0.5, 0.6, 0.55], gpu=None))
    r = cli("render", d, "--out", tmp_path / "out")
    assert r.rc == 0, r.err
    md = (tmp_path / "out" / "report.md").read_text()
    assert md.count("## Summary") == 1 and "- run 1: " in md and "- run 2: " in md  # one report, two runs


GBENCH = {
    "context": {
        "date": "2025-01-01",
        "host_name": "h",
        "executable": "optbench_bench",
        "num_cpus": 2,
        "library_build_type": "release",
        "optbench_device": "cuda",
    },
    "benchmarks": [
        {
            "name": "matmul/fp16/4096/manual_time",
            "run_name": "matmul/fp16/4096/manual_time",
            "run_type": "iteration",
            "iterations": 100,
            "real_time": 250.0,
            "cpu_time": 240.0,
            "time_unit": "us",
            "TFLOP/s": 550.0,
            "per_step_s": 2.5e-4,
        },
        {
            "name": "matmul/fp16/4095/manual_time",
            "run_type": "iteration",
            "iterations": 0,
            "real_time": 0,
            "cpu_time": 0,
            "time_unit": "us",
            "error_occurred": True,
            "error_message": "CUDA out of memory",
        },
    ],
}


def test_render_google_benchmark(tmp_path, cli):
    gb = tmp_path / "gb.json"
    gb.write_text(json.dumps(GBENCH))
    r = cli("render", gb, "--out", tmp_path / "out")
    assert r.rc == 0, r.err
    md = (tmp_path / "out" / "report.md").read_text()
    assert "Google Benchmark" in md and "matmul/fp16/4096/manual_time" in md
    assert "250 µs" in md and "550" in md and "ERROR: CUDA out of memory" in md
    assert (tmp_path / "out" / "benchmarks.csv").is_file()


def test_render_real_results(real_results, tmp_path, cli):
    before = digest(real_results)
    out = tmp_path / "out"
    r = cli("render", real_results, "--out", out)
    assert r.rc == 0, r.err
    md = (out / "report.md").read_text()
    assert "aligned_dims" in md
    # Experiments that did not run share one line, each with its reason.
    assert "Not run: cudnn_benchmark (not meaningful on cpu), pinned_memory (not meaningful on cpu)." in md
    assert "CPU run: no GPU" in md
    pngs = list((out / "plots").glob("*.png"))
    assert pngs and all(p.stat().st_size > 1024 for p in pngs)
    with open(out / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    doc = json.loads(real_results.read_text())
    expected = sum(max(1, sum(max(1, len(c.get("variants") or [])) for c in e["cases"])) for e in doc["experiments"])
    assert len(rows) == expected
    assert digest(real_results) == before


def test_validate_and_gpus_on_real_results(real_results, cli):
    r = cli("validate", real_results)
    assert r.rc == 0 and "valid" in r.out
    r = cli("gpus", real_results)
    assert r.rc == 0 and "CPU" in r.out


def experiment_view(raw: dict):
    return Document(synth.document([raw])).experiments[0]


def test_sweep_detection():
    from report.render.plots import find_sweeps

    doc = rich_doc()
    sweeps = dict(find_sweeps(Document(doc).experiments[0]))
    assert set(sweeps) == {"bytes"}
    assert set(sweeps["bytes"]) == {
        "direction=h2d: pageable",
        "direction=h2d: pinned",
        "direction=d2h: pageable",
        "direction=d2h: pinned",
    }
    assert [x for x, _ in sweeps["bytes"]["direction=h2d: pinned"]] == [MiB, 4 * MiB, 16 * MiB, 64 * MiB]
    # aligned_dims-like cases: each odd size has its own variant name -> not a sweep
    units = {"bytes": 0.0, "flops": 1e9, "items": 0.0, "item_name": "samples"}
    cases = [
        synth.case(
            f"m{o}",
            [(f"{o}x{o}", [1.0, 1.1]), ("4096x4096", [0.9, 1.0])],
            params={"odd": o, "aligned": 4096, "precision": "fp16"},
            units=units,
        )
        for o in (4095, 4097, 4100, 4104)
    ]
    assert find_sweeps(experiment_view(synth.experiment("aligned_dims", cases))) == []


def test_sweep_across_the_variants_of_a_case():
    from report.render.plots import find_sweeps

    c = synth.case(
        "workers",
        [
            ("workers_0", [4e-3, 4.1e-3]),
            ("workers_1", [2e-3, 2.1e-3]),
            ("workers_2", [1e-3, 1.1e-3]),
            ("on_device", [0.5e-3, 0.6e-3]),
        ],
        roles={"on_device": "reference"},
    )
    for v, w in zip(c["variants"], (0, 1, 2)):
        v["params"] = {"workers": w}
    sweeps = dict(find_sweeps(experiment_view(synth.experiment("dataloader", [c]))))
    assert set(sweeps) == {"workers"}
    pts = sweeps["workers"]["workers"]
    assert [x for x, _ in pts] == [0, 1, 2]  # the reference variant has no setting: not on the line
    assert pts[0][1] < pts[1][1] < pts[2][1]  # samples/s grows with the workers here


def test_train_and_data_only_loops_are_separate_lines():
    from report.render.plots import find_sweeps

    c = synth.case(
        "workers",
        [
            ("workers_0", [4e-3, 4.1e-3]),
            ("workers_0_data_only", [3e-3, 3.1e-3]),
            ("workers_1", [2e-3, 2.1e-3]),
            ("workers_1_data_only", [1e-3, 1.1e-3]),
        ],
        roles={"workers_0_data_only": "reference", "workers_1_data_only": "reference"},
    )
    for v, (w, loop) in zip(c["variants"], ((0, "train"), (0, "data_only"), (1, "train"), (1, "data_only"))):
        v["params"] = {"workers": w, "loop": loop}
    sweeps = dict(find_sweeps(experiment_view(synth.experiment("dataloader", [c]))))
    # the data-only loop is a reference: its line says so (and is drawn dashed grey)
    assert set(sweeps["workers"]) == {"workers (train)", "workers (data_only) (reference)"}
    assert [x for x, _ in sweeps["workers"]["workers (train)"]] == [0, 1]


def test_reference_bars_are_labelled_and_come_after_the_options():
    from report.render.plots import REFERENCE, speedup_points

    c = synth.case(
        "workers",
        [("workers_0", [4e-3, 4.1e-3]), ("no_loader", [1e-3, 1.1e-3]), ("workers_1", [2e-3, 2.1e-3])],
        roles={"no_loader": "reference"},
    )
    labels = [p[0] for p in speedup_points(experiment_view(synth.experiment("dataloader", [c])))]
    assert [lab.split(" ")[1] for lab in labels] == ["workers_1", "no_loader"]
    assert [lab.reference for lab in labels] == [False, True] and labels[1].endswith(REFERENCE)


def test_derived_figures_are_shown(tmp_path, cli):
    c = synth.case("fixed_b64", [("benchmark_off", [2e-3, 2.1e-3]), ("benchmark_on", [1.8e-3, 1.9e-3])])
    c["derived"] = {
        "break_even_steps": 12.345,
        "autotune_first_step_extra_s": 0.5,
        "per_variant": {"benchmark_on": {"saved_s": 2e-4}},
        "sizes": [1, 2],
    }
    doc = synth.document([synth.experiment("cudnn_benchmark", [c])])
    f = synth.write(tmp_path / "r.json", doc)
    r = cli("render", f, "--out", tmp_path / "out", "--no-plots")
    assert r.rc == 0, r.err
    md = (tmp_path / "out" / "report_details.md").read_text()
    # One table of the case's figures, one of its member's (per_variant.benchmark_on): no long line.
    assert "| | `fixed_b64` |" in md
    for line in (
        "| `break_even_steps` | 12.3 |",
        "| `autotune_first_step_extra_s` | 0.500 |",
        "| `per_variant.benchmark_on.saved_s` | 0.000200 |",
        "| `sizes` | \\[1, 2] |",
    ):
        assert line in md, line
    html = (tmp_path / "out" / "report.html").read_text()
    assert "<td><code>break_even_steps</code></td><td>12.3</td>" in html


def test_figures_per_member_are_a_table_of_figure_by_member():
    from report.render.facts import derived_tables

    items = [
        ("fewest", 1),
        ("w0.rate", 10.0),
        ("w0.bound", "loader"),
        ("w1.rate", 20.0),
        ("w1.bound", "gpu"),
        ("variants.ddp.buckets", 1),
        ("variants.ddp_b.buckets", 2),
    ]
    plain, members, variants = derived_tables([("c", items)])
    assert (plain.title, plain.columns, plain.rows) == ("", ["c"], [("fewest", ["1"])])
    assert (members.title, members.columns) == ("c", ["w0", "w1"])
    assert members.rows == [("rate", ["10.0", "20.0"]), ("bound", ["loader", "gpu"])]
    assert (variants.title, variants.columns, variants.rows) == (
        "c: variants",
        ["buckets"],
        [("ddp", ["1"]), ("ddp_b", ["2"])],
    )
    assert variants.numeric and not members.numeric


def test_case_notes_are_shown_once_per_distinct_text(tmp_path, cli):
    cases = [
        synth.case(
            n,
            [("a", [1e-3, 1.1e-3]), ("b", [0.9e-3, 1e-3])],
            notes={"timing": "20 steps per sample", "peak_kind": "host_link"},
        )
        for n in ("c1", "c2")
    ]
    f = synth.write(tmp_path / "r.json", synth.document([synth.experiment("host_sync", cases)]))
    r = cli("render", f, "--out", tmp_path / "out", "--no-plots")
    assert r.rc == 0, r.err
    md = (tmp_path / "out" / "report_details.md").read_text()
    assert "- `c1`, `c2`:\n  - `timing`: 20 steps per sample\n" in md
    assert "peak_kind" not in md


def test_case_notes_show_cold_processes_and_throttling():
    from report.render.tables import case_notes

    exp = {
        "cases": [
            {
                "name": "c",
                "notes": {},
                "variants": [
                    {
                        "name": "off",
                        "process": "fresh",
                        "throttle": {"thermal": 0.0, "power": 0.25, "other": 0.0, "samples": 4},
                    },
                    {
                        "name": "on",
                        "process": "fresh",
                        "throttle": {"thermal": 0.5, "power": 0.0, "other": 0.0, "samples": 4},
                    },
                ],
            }
        ]
    }
    ((names, items),) = case_notes(Document({"experiments": [exp]}).experiments[0])
    d = dict(items)
    assert names == ["c"]
    assert "fresh process" in d["process"]
    assert d["throttled samples"] == "off power 25%; on thermal 50%"
    assert "throttle read" not in d  # read while the work ran (or not recorded: older files)
    # A sync variant's reasons are read after its work: said, so 0% is not read as "never limited".
    exp["cases"][0]["variants"][1]["throttle"]["read"] = "after_work"
    exp["cases"][0]["variants"][0]["throttle"]["read"] = "during_work"
    ((_, items),) = case_notes(Document({"experiments": [exp]}).experiments[0])
    assert dict(items)["throttle read"].startswith("after each sample's work for on (timed in sync mode)")


def test_where_each_cases_time_went_is_shown_with_the_sampling_share_first(tmp_path, cli):
    c = synth.case("resnet", [("fp32", [2e-3, 2.1e-3]), ("bf16", [1.8e-3, 1.9e-3])])
    c["wall_s"] = 10.0
    c["time_s"] = {
        "build": 0.5,
        "warmup": 2.0,
        "sampling": 3.0,
        "verification": 4.4,
        "other": 0.05,
        "cold_first_steps": 0.05,
    }
    old = synth.case("older", [("fp32", [2e-3, 2.1e-3]), ("bf16", [1.8e-3, 1.9e-3])])  # no time_s: not listed
    f = synth.write(tmp_path / "r.json", synth.document([synth.experiment("mixed_precision", [c, old])]))
    r = cli("render", f, "--out", tmp_path / "out", "--no-plots")
    assert r.rc == 0, r.err
    md = (tmp_path / "out" / "report_details.md").read_text()
    assert "- resnet: 10.0 s: sampling 30%, verification 44%, warm-up 20%, build 5%\n" in md
    assert "- older:" not in md.split("Time per case:")[1]
    assert "sampling 30%" in (tmp_path / "out" / "report.html").read_text()


def test_verification_notes_of_passed_checks_are_shown(tmp_path, cli):
    c = synth.case("resnet50_b8_32", [("fp32", [2e-3, 2.1e-3]), ("amp_bf16", [1.8e-3, 1.9e-3])])
    c["comparisons"][0]["verification"] = {
        "status": "passed",
        "details": {"trace_judged": False, "note": "trace not judged: ill-conditioned"},
    }
    f = synth.write(tmp_path / "r.json", synth.document([synth.experiment("mixed_precision", [c])]))
    r = cli("render", f, "--out", tmp_path / "out", "--no-plots")
    assert r.rc == 0, r.err
    assert "verification: trace not judged: ill-conditioned" in (tmp_path / "out" / "report_details.md").read_text()


def test_crashed_experiment_shows_its_signal_tail_and_kept_cases(tmp_path, cli):
    """An experiment whose process died (the suite's crash isolation) is a marked
    section with the reason and the last lines it printed; its finished case is
    still tabled, and the file is schema-valid."""
    crashed = synth.experiment(
        "aligned_dims",
        [
            synth.case(
                "kept", [("base", synth.lognormal(1e-3, 0.01, 12, 1)), ("opt", synth.lognormal(5e-4, 0.01, 12, 2))]
            )
        ],
        status="crashed",
        reason="its process was killed by SIGSEGV (Segmentation fault); the cases it finished are kept",
    )
    crashed["signal"] = "SIGSEGV (Segmentation fault)"
    crashed["output_tail"] = ["[1/3] aligned_dims/kept ...", "the last line before the crash"]
    src = synth.write(tmp_path / "r.json", synth.document([crashed]))
    assert cli("validate", src).rc == 0
    out = tmp_path / "out"
    r = cli("render", src, "--out", out)
    assert r.rc == 0, r.err
    md = (out / "report.md").read_text()
    assert "**CRASHED**: its process was killed by SIGSEGV" in md
    assert "| kept | base (baseline) |" in md
    details = (out / "report_details.md").read_text()
    assert "the last line before the crash" in details and "| kept | base (baseline) |" in details
    assert "the last line before the crash" in (out / "report.html").read_text()
