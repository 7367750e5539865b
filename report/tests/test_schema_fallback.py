import copy
import sys

import synth

from report.load.results import load_schema, schema_errors
from report.load.schema_check import structural_errors


def test_synthetic_documents_are_schema_valid():
    doc = synth.document(
        [synth.experiment("e", [synth.case("c", [("a", [1.0, 2.0]), ("b", [1.0, 1.5])])])], gpu=synth.H100
    )
    assert schema_errors(doc) == []
    assert structural_errors(doc, load_schema()) == []


def test_builtin_check_finds_structural_errors():
    doc = synth.simple_doc([1.0, 2.0], [1.0, 1.5])
    schema = load_schema()
    broken = copy.deepcopy(doc)
    del broken["environment"]["cpu"]["model"]
    broken["status"] = "bogus"
    broken["experiments"][0]["cases"][0]["variants"][0]["iters_per_sample"] = "many"
    broken["experiments"][0]["cases"][0]["variants"][0]["throughput"]["extra"] = 1
    errs = structural_errors(broken, schema)
    text = "\n".join(errs)
    assert "'model' is a required property" in text
    assert "status" in text and "bogus" in text
    assert "iters_per_sample" in text
    assert "additional property 'extra'" in text
    ok_case = copy.deepcopy(doc)
    del ok_case["experiments"][0]["cases"][0]["variants"]  # if status ok then variants are required
    assert any("'variants' is a required property" in e for e in structural_errors(ok_case, schema))


def test_validate_without_jsonschema(tmp_path, cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    good = synth.write(tmp_path / "good.json", synth.simple_doc([1.0, 2.0], [1.0, 1.5]))
    r = cli("validate", good)
    assert r.rc == 0
    assert "built-in structural check" in r.out and "valid" in r.out
    bad_doc = synth.simple_doc([1.0, 2.0], [1.0, 1.5])
    del bad_doc["config"]
    bad = synth.write(tmp_path / "bad.json", bad_doc)
    r = cli("validate", bad)
    assert r.rc == 2 and "'config' is a required property" in r.err


def test_real_results_pass_the_builtin_check(real_results):
    import json

    assert structural_errors(json.loads(real_results.read_text()), load_schema()) == []
