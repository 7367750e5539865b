import json

import pytest

from report.load.results import ResultsError, load_results


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_malformed_json_is_one_clear_error(tmp_path):
    p = write(tmp_path, "bad.json", "{not json")
    with pytest.raises(ResultsError, match="not valid JSON"):
        load_results(p)


def test_foreign_json_is_refused(tmp_path):
    p = write(tmp_path, "other.json", json.dumps({"benchmarks": []}))
    with pytest.raises(ResultsError, match="not an optbench results file"):
        load_results(p)


def test_other_schema_version_is_refused(tmp_path):
    p = write(tmp_path, "v2.json", json.dumps({"schema": "optbench-results", "schema_version": 2}))
    with pytest.raises(ResultsError, match="schema version 2"):
        load_results(p)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(ResultsError, match="no such file"):
        load_results(tmp_path / "nope.json")
    with pytest.raises(ResultsError, match="is a directory"):
        load_results(tmp_path)
