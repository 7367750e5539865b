"""scripts/gpu-session's checks (scripts/lib/session_checks.py), each shown to fail on what it
exists to catch: a window in which CUPTI recorded nothing, device time above the host
time around it, a replayed graph launching op by op, no GPU, a CUDA file in a CPU
rehearsal, a twin on another torch, a reserved step skipped or past its deadline (the
build included), a reserved step starved or skipping an experiment, an out-of-memory its
case does not declare, a calibration missing, a scratch folder in RAM, a file that is not
results. The unplanted H100 files of 2026-11-24 pass."""

import copy
import csv
import gzip
import json
from pathlib import Path

import pytest
import session_checks as sc
import synth

FIXTURES = Path(__file__).resolve().parent / "fixtures"
H100 = FIXTURES / "h100_2026-11-24"
STEPS = (
    "step\tstart_s\tseconds\tbudget_s\texit\treserve\toverrun_s\n"
    "setup\t0\t40\t-\t0\t-\t-\nbuild\t40\t120\t-\t0\t-\t-\n"
    "new\t160\t100\t110\t0\t1\t5\nverified\t260\t0\tskipped\t-\t0\t5\n"
)


def h100(name: str) -> dict:
    return json.loads(gzip.open(H100 / f"{name}.json.gz").read())


def cuda_breakdown(events: int, launches: float, categories: dict | None = None, steps: int = 5) -> dict:
    b = synth.breakdown(categories or {"gemm": 1e-3, "conv": 2e-3}, 1e-4, launches=launches)
    b.update(steps=steps, device_events=events)
    return b


def session(tmp_path: Path, docs: dict, steps: str = STEPS, rehearsal: bool = False) -> tuple[int, dict]:
    """Run the checks on a folder holding these files; (exit, {(check, subject): row})."""
    folder = tmp_path / "s"
    (folder / "runs").mkdir(parents=True)
    (folder / "steps.tsv").write_text(steps)
    for name, doc in docs.items():
        (folder / "runs" / name).write_text(doc if isinstance(doc, str) else json.dumps(doc))
    rc = sc.main([str(folder)] + (["--rehearsal"] if rehearsal else []))
    rows = {(r["check"], r["subject"]): r for r in csv.DictReader((folder / "checks.tsv").open(), delimiter="\t")}
    return rc, rows


def failed(rows: dict) -> set:
    return {k for k, r in rows.items() if r["result"] == "fail"}


def profiled_mixed_precision(events: int = 900, launches: float = 180.0, conv: float = 2e-3) -> dict:
    doc = h100("h100_mixed_precision")
    for c in doc["experiments"][0]["cases"]:
        for v in c["variants"]:
            v["breakdown"] = cuda_breakdown(events, launches, {"gemm": 1e-3, "conv": conv})
    return doc


def test_the_h100_files_pass(tmp_path):
    rc, rows = session(
        tmp_path, {"breakdown.json": profiled_mixed_precision(), "verified.json": h100("h100_pinned_aligned")}
    )
    assert rc == 0 and not failed(rows), failed(rows)
    assert rows[("gpu", "machine")]["figure"].startswith("NVIDIA H100 80GB HBM3, driver 580.159.04")
    assert rows[("step", "verified")]["result"] == "wait"  # unreserved, skipped for time: not a failure
    assert rows[("cupti", "breakdown.json")]["result"] == "pass"
    assert any(k[0] == "conv_time" for k in rows) and any(k[0] == "nvml" for k in rows)
    assert {"events_vs_host"} <= {k[0] for k in rows}


def test_a_window_without_device_events_fails(tmp_path):
    rc, rows = session(tmp_path, {"breakdown.json": profiled_mixed_precision(events=0)})
    assert rc == 1 and ("cupti", "breakdown.json") in failed(rows)
    assert "0 device events" in rows[("cupti", "breakdown.json")]["figure"]


def test_a_profiling_error_fails(tmp_path):
    doc = profiled_mixed_precision()
    doc["experiments"][0]["cases"][0]["variants"][0]["breakdown"] = {"status": "error", "reason": "CUPTI_ERROR_X"}
    rc, rows = session(tmp_path, {"breakdown.json": doc})
    assert rc == 1 and "CUPTI_ERROR_X" in rows[("cupti", "breakdown.json")]["figure"]


def test_resnet_without_conv_time_fails(tmp_path):
    rc, rows = session(tmp_path, {"breakdown.json": profiled_mixed_precision(conv=0.0)})
    assert rc == 1 and any(k[0] == "conv_time" and "resnet50" in k[1] for k in failed(rows)), failed(rows)


def test_device_time_above_the_host_time_around_it_fails(tmp_path):
    doc = h100("h100_pinned_aligned")
    v = doc["experiments"][0]["cases"][0]["variants"][0]
    v["samples"]["device_s"] = [h * 1.5 for h in v["samples"]["host_s"]]
    rc, rows = session(tmp_path, {"verified.json": doc})
    assert rc == 1 and ("events_vs_host", "verified.json batched") in failed(rows)


def test_a_long_step_with_a_host_gap_fails(tmp_path):
    """What an NVML read inside the timed region would show: the host 30% above the events."""
    doc = h100("h100_mixed_precision")
    v = doc["experiments"][0]["cases"][0]["variants"][0]
    v["samples"]["host_s"] = [d * 1.3 for d in v["samples"]["device_s"]]
    rc, rows = session(tmp_path, {"mp.json": doc})
    assert rc == 1 and "host gap" in rows[("events_vs_host", "mp.json batched")]["figure"]


def test_missing_clock_samples_fail(tmp_path):
    doc = h100("h100_mixed_precision")
    doc["experiments"][0]["cases"][0]["variants"][0]["samples"]["sm_clock_mhz"] = None
    rc, rows = session(tmp_path, {"mp.json": doc})
    assert rc == 1 and ("nvml", "mp.json") in failed(rows)


@pytest.mark.parametrize("launches, ok", [(1.0, True), (2.0, True), (40.0, False)])
def test_a_replayed_graph_launches_once_per_step(tmp_path, launches, ok):
    base, graph = synth.variant("eager", [1e-3] * 6, role="baseline"), synth.variant("graph_replay", [5e-4] * 6)
    c = synth.case("mlp", [("eager", [1e-3] * 6), ("graph_replay", [5e-4] * 6)])
    c["variants"] = [base, graph]
    base["breakdown"], graph["breakdown"] = cuda_breakdown(400, 40.0), cuda_breakdown(400, launches)
    doc = synth.document([synth.experiment("cuda_graphs", [c])], gpu="NVIDIA H100 80GB HBM3")
    rc, rows = session(tmp_path, {"breakdown.json": doc})
    row = rows[("graph_launches", "breakdown.json cuda_graphs/mlp/graph_replay")]
    assert (row["result"] == "pass") == ok and (rc == 0) == ok, row


def test_no_gpu_fails_the_first_row(tmp_path):
    steps = "step\tstart_s\tseconds\tbudget_s\texit\treserve\toverrun_s\nsetup\t0\t12\t-\t3\t-\t-\n"
    rc, rows = session(tmp_path, {}, steps)
    assert rc == 1 and {("gpu", "machine"), ("step", "setup")} <= failed(rows)
    assert rows[("gpu", "machine")]["figure"].startswith("no GPU")


def test_a_rehearsal_passes_on_the_cpu_and_refuses_a_cuda_file(tmp_path):
    cpu = synth.simple_doc([1e-3] * 6, [5e-4] * 6, gpu=None)
    rc, rows = session(tmp_path / "a", {"new.json": cpu}, rehearsal=True)
    assert rc == 0 and rows[("gpu", "machine")]["result"] == "n/a"
    rc, rows = session(tmp_path / "b", {"new.json": synth.simple_doc([1e-3] * 6, [5e-4] * 6)}, rehearsal=True)
    assert rc == 1 and ("device", "new.json") in failed(rows)


def test_a_twin_on_another_torch_or_dead_fails(tmp_path):
    doc = synth.simple_doc([1e-3] * 6, [5e-4] * 6, gpu=None)
    v = doc["experiments"][0]["cases"][0]["variants"][1]
    v["params"] = dict(v.get("params") or {}, runtime="python")
    v["metrics"] = {"python_torch": "2.4.0+cu124"}  # the synthetic LibTorch is 2.4.0
    rc, rows = session(tmp_path / "a", {"new.json": doc}, rehearsal=True)
    assert rc == 0 and rows[("twins", "new.json")]["result"] == "pass"
    v["metrics"] = {"python_torch": "2.3.1"}
    rc, rows = session(tmp_path / "b", {"new.json": doc}, rehearsal=True)
    assert rc == 1 and "torch 2.3.1" in rows[("twins", "new.json")]["figure"]


@pytest.mark.parametrize(
    "line, why",
    [
        ("aot_inductor\t300\t0\tskipped\t-\t1\t5\n", "skipped for time"),
        ("aot_inductor\t300\t140\t130\t124\t1\t5\n", "exit 124"),
        ("aot_inductor\t300\t142\t130\t0\t1\t5\n", "142 s of 130 s"),
    ],
)
def test_a_reserved_step_skipped_stopped_or_late_fails(tmp_path, line, why):
    rc, rows = session(tmp_path, {"verified.json": h100("h100_pinned_aligned")}, STEPS + line)
    assert rc == 1 and failed(rows) == {("step", "aot_inductor")}, failed(rows)
    assert why in rows[("step", "aot_inductor")]["figure"]


def test_a_file_that_is_not_results_fails_alone(tmp_path):
    rc, rows = session(tmp_path, {"verified.json": h100("h100_pinned_aligned"), "new.json": "{not json"})
    assert rc == 1 and failed(rows) == {("file", "new.json")}


def test_an_interrupted_or_crashed_run_fails(tmp_path):
    doc = copy.deepcopy(h100("h100_pinned_aligned"))
    doc["status"] = "interrupted"
    doc["experiments"][1]["status"] = "crashed"
    rc, rows = session(tmp_path, {"verified.json": doc})
    assert rc == 1 and {("run", "verified.json"), ("experiments", "verified.json")} <= failed(rows)


def test_a_window_of_copies_only_launches_nothing_and_passes(tmp_path):
    """pinned_memory's copy variants are cudaMemcpyAsync alone: device events, no launch."""
    doc = profiled_mixed_precision()
    for c in doc["experiments"][0]["cases"]:
        for v in c["variants"]:
            v["breakdown"] = cuda_breakdown(10, 0.0, {"memcpy_h2d": 1e-3})
    rc, rows = session(tmp_path, {"breakdown.json": doc})
    assert rows[("cupti", "breakdown.json")]["result"] == "pass", rows[("cupti", "breakdown.json")]
    # kernels that no launch started: CUPTI missed the runtime's callbacks
    for c in doc["experiments"][0]["cases"]:
        for v in c["variants"]:
            v["breakdown"] = cuda_breakdown(10, 0.0, {"gemm": 1e-3, "memcpy_h2d": 1e-3})
    rc, rows = session(tmp_path / "again", {"breakdown.json": doc})
    assert rc == 1 and ("cupti", "breakdown.json") in failed(rows)


def batch_sweep(declared: bool) -> dict:
    """A batch-size sweep whose largest batch ran out of memory, its case declaring that or not."""
    doc = copy.deepcopy(h100("h100_pinned_aligned"))
    c = doc["experiments"][0]["cases"][0]
    c["variants"][-1]["status"] = "oom"
    if declared:
        c["oom_expected"] = True
    else:
        c.pop("oom_expected", None)
    return doc


def test_an_out_of_memory_the_case_declares_passes_and_an_undeclared_one_fails(tmp_path):
    rc, rows = session(tmp_path, {"verified.json": batch_sweep(True)})
    row = rows[("experiments", "verified.json")]
    assert row["result"] == "pass" and "out of memory as the case declares: 1" in row["figure"], row
    rc, rows = session(tmp_path / "undeclared", {"verified.json": batch_sweep(False)})
    assert rc == 1 and ("experiments", "verified.json") in failed(rows)
    assert "oom" in rows[("experiments", "verified.json")]["figure"]


def starved(doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    c = doc["experiments"][0]["cases"][0]
    c.update(status="not_run", reason="budget: the rounds floor does not fit")
    return doc


def test_a_reserved_step_whose_cases_the_budget_left_not_run_fails_naming_them(tmp_path):
    doc = starved(h100("h100_pinned_aligned"))
    name = f"{doc['experiments'][0]['name']}/{doc['experiments'][0]['cases'][0]['name']}"
    rc, rows = session(tmp_path, {"new.json": doc})  # STEPS: new is reserved
    row = rows[("experiments", "new.json")]
    assert rc == 1 and row["result"] == "fail" and name in row["figure"] and "starved" in row["figure"], row
    # A step that runs only in what is left (verified: reserve 0) may end short.
    rc, rows = session(tmp_path / "unreserved", {"verified.json": doc})
    assert rows[("experiments", "verified.json")]["result"] == "pass", rows[("experiments", "verified.json")]


def skipping(doc: dict, reason: str, case: bool = False) -> tuple[dict, str]:
    """The doc with its first experiment (or that experiment's first case) skipped for
    `reason`; and its name."""
    doc = copy.deepcopy(doc)
    e = doc["experiments"][0]
    target = e["cases"][0] if case else e
    target.update(status="skipped", reason=reason)
    if case:
        for k in ("variants", "comparisons"):
            target.pop(k, None)
    return doc, f"{e['name']}/{e['cases'][0]['name']}" if case else e["name"]


TMPFS = "its files would go to /tmp, a file system in RAM (tmpfs), where a read from storage is a memory read"


def test_an_experiment_skipped_in_a_reserved_step_fails_naming_it(tmp_path):
    """storage_reads declining a scratch folder in RAM: on a GPU, in a reserved step, a
    fact the session exists to show is missing; in a step that runs in what is left, or
    in a rehearsal (a CPU skips what means nothing on it), it is listed and passes."""
    doc, name = skipping(h100("h100_pinned_aligned"), TMPFS)
    rc, rows = session(tmp_path, {"new.json": doc})  # STEPS: new is reserved
    row = rows[("experiments", "new.json")]
    assert rc == 1 and row["result"] == "fail", row
    assert name in row["figure"] and "tmpfs" in row["figure"] and "skipped in a reserved step" in row["figure"], row
    rc, rows = session(tmp_path / "unreserved", {"verified.json": doc})
    row = rows[("experiments", "verified.json")]
    assert row["result"] == "pass" and name in row["figure"], row
    cpu, name = skipping(synth.simple_doc([1e-3] * 6, [5e-4] * 6, gpu=None), "not meaningful on cpu")
    rc, rows = session(tmp_path / "rehearsal", {"new.json": cpu}, rehearsal=True)
    assert rows[("experiments", "new.json")]["result"] == "pass", rows[("experiments", "new.json")]


def test_a_compile_the_budget_refused_starves_a_reserved_step(tmp_path):
    """aot_inductor records a cold compile its budget refuses as the case's skip, with the
    budget's reason: in its reserved step that is the step starved, in a rehearsal too."""
    doc, name = skipping(h100("h100_pinned_aligned"), "budget: the compile needs ~80 s, 12 s left", case=True)
    rc, rows = session(tmp_path, {"new.json": doc})
    row = rows[("experiments", "new.json")]
    assert rc == 1 and "not run for time: 1" in row["figure"] and name in row["figure"], row
    assert "starved" in row["figure"], row
    cpu, name = skipping(synth.simple_doc([1e-3] * 6, [5e-4] * 6, gpu=None), "budget: no room", case=True)
    rc, rows = session(tmp_path / "rehearsal", {"new.json": cpu}, rehearsal=True)
    assert rc == 1 and rows[("experiments", "new.json")]["result"] == "fail", rows[("experiments", "new.json")]


MATMUL = "matmul_check\t500\t70\t75\t1\t{reserve}\t5\n"


@pytest.mark.parametrize("reserve, result", [("1", "fail"), ("0", "wait")])
def test_a_missing_calibration_fails_where_its_time_was_reserved(tmp_path, reserve, result):
    steps = STEPS + MATMUL.format(reserve=reserve)
    rc, rows = session(tmp_path, {"verified.json": h100("h100_pinned_aligned")}, steps)
    row = rows[("matmul_check", "matmul_check.json")]
    assert row["result"] == result and "no matmul_check.json" in row["figure"], row
    # A plan without the calibration has no row for it.
    rc, rows = session(tmp_path / "none", {"verified.json": h100("h100_pinned_aligned")})
    assert not any(k[0] == "matmul_check" for k in rows)


@pytest.mark.parametrize(
    "line, why",
    [
        ("build\t40\t0\tskipped\t-\t1\t0\tits bound 1416 s (118 units); 200 s left for it\n", "its bound 1416 s"),
        ("build\t40\t205\t200\t124\t1\t0\t\n", "exit 124, 205 s of 200 s"),
        ("scratch\t160\t0\t-\t1\t1\t0\t/dev/shm/s on tmpfs\n", "on tmpfs"),
    ],
)
def test_a_build_refused_or_stopped_or_a_scratch_folder_in_ram_fails(tmp_path, line, why):
    head, *rest = STEPS.splitlines(keepends=True)
    steps = head.rstrip("\n") + "\tnote\n" + rest[0] + line + "".join(rest[2:])
    rc, rows = session(tmp_path, {"verified.json": h100("h100_pinned_aligned")}, steps)
    subject = line.split("\t")[0]
    assert rc == 1 and failed(rows) == {("step", subject)}, failed(rows)
    assert why in rows[("step", subject)]["figure"], rows[("step", subject)]
