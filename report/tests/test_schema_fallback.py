"""jsonschema validates results files; where it cannot be imported, the report says so
once and reads the files without schema validation."""

import copy
import json
import sys

import synth

from report.load.results import schema_errors


def test_synthetic_documents_are_schema_valid():
    doc = synth.document(
        [synth.experiment("e", [synth.case("c", [("a", [1.0, 2.0]), ("b", [1.0, 1.5])])])], gpu=synth.H100
    )
    assert schema_errors(doc) == []


def test_jsonschema_finds_structural_errors():
    doc = synth.simple_doc([1.0, 2.0], [1.0, 1.5])
    broken = copy.deepcopy(doc)
    del broken["environment"]["cpu"]["model"]
    broken["status"] = "bogus"
    broken["experiments"][0]["cases"][0]["variants"][0]["iters_per_sample"] = "many"
    broken["experiments"][0]["cases"][0]["variants"][0]["throughput"]["extra"] = 1
    text = "\n".join(schema_errors(broken))
    assert "'model' is a required property" in text
    assert "status" in text and "bogus" in text
    assert "iters_per_sample" in text
    assert "'extra' was unexpected" in text
    ok_case = copy.deepcopy(doc)
    del ok_case["experiments"][0]["cases"][0]["variants"]  # if status ok then variants are required
    assert any("'variants' is a required property" in e for e in schema_errors(ok_case))


def test_without_jsonschema_the_report_says_so_and_goes_on(tmp_path, cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    monkeypatch.setattr("report.load.results._told", False)
    assert schema_errors(synth.simple_doc([1.0, 2.0], [1.0, 1.5])) is None
    good = synth.write(tmp_path / "good.json", synth.simple_doc([1.0, 2.0], [1.0, 1.5]))
    r = cli("validate", good)
    assert r.rc == 0
    assert "jsonschema is not installed" in r.out and f"{good}: readable (not schema-checked)" in r.out
    unchecked_doc = synth.simple_doc([1.0, 2.0], [1.0, 1.5])
    unchecked_doc["status"] = "bogus"  # the schema would refuse it; unchecked, it is read
    unchecked = synth.write(tmp_path / "unchecked.json", unchecked_doc)
    monkeypatch.setattr("report.load.results._told", False)  # a fresh process: one note per run
    r = cli("render", unchecked, unchecked, "--out", tmp_path / "o", "--no-plots")
    assert r.rc == 0, r.err
    assert r.err.count("jsonschema is not installed") == 1
    assert (tmp_path / "o" / "report.md").is_file()


def test_real_results_pass_jsonschema(real_results):
    assert schema_errors(json.loads(real_results.read_text())) == []
