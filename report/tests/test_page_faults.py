"""Minor page faults per step (samples.minor_faults, recorded by the harness
around each sample): the report says so beside a variant that maps fresh memory
every step, and the CSV carries the median for every variant."""

import csv

import synth


def faulting_doc(base_faults: list[float], opt_faults: list[float]) -> dict:
    doc = synth.simple_doc(synth.lognormal(2e-3, 0.02, 20, 1), synth.lognormal(1e-3, 0.02, 20, 2), gpu=None)
    base, opt = doc["experiments"][0]["cases"][0]["variants"]
    base["samples"]["minor_faults"] = base_faults
    opt["samples"]["minor_faults"] = opt_faults
    return doc


def test_a_faulting_baseline_is_named_and_the_csv_has_every_median(tmp_path, cli):
    src = synth.write(tmp_path / "r.json", faulting_doc([16000.0, 15800.0, 16200.0], [0.0, 1.0, 0.0]))
    r = cli("validate", src)
    assert r.rc == 0, r.err
    r = cli("render", src, "--out", tmp_path / "out")
    assert r.rc == 0, r.err
    md = (tmp_path / "out" / "report_details.md").read_text()  # the notes are in the details
    assert "16,000 minor page faults per step" in md
    # the variant that reuses its memory says nothing; what a count means, the glossary says once
    assert md.count("minor page faults per step") == 2
    assert "- **minor page faults per step**:" in md
    rows = list(csv.DictReader(open(tmp_path / "out" / "results.csv")))
    assert [float(r["minor_faults_per_step"]) for r in rows] == [16000.0, 0.0]


def test_a_negative_count_is_refused(tmp_path, cli):
    r = cli("validate", synth.write(tmp_path / "r.json", faulting_doc([-1.0], [0.0])))
    assert r.rc != 0


def test_a_regime_that_differs_between_processes_is_named():
    from report.render.cells import faults_text

    text = faults_text(16320.0, [16320.0, 3.0, 16290.0])
    assert text == "minor page faults per step differ between the run's processes (16,320, 3, 16,290)"
    # The same regime in every process: the single figure, as for one process.
    assert faults_text(16320.0, [16320.0, 16100.0]).startswith("16,320 minor page faults per step")
    assert faults_text(2.0, [2.0, 0.0, 5.0]) == ""
