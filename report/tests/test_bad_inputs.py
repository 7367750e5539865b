import json

import pytest

import synth
from conftest import digest, run_subprocess
from test_render import GBENCH


def one_error_line(r):
    lines = r.err.strip().splitlines()
    assert r.rc == 2, (r.rc, r.out, r.err)
    assert len(lines) == 1 and lines[0].startswith("error:"), r.err
    assert "Traceback" not in r.err
    return lines[0]


@pytest.fixture
def bad_files(tmp_path):
    files = {
        "malformed": ("{not json", "not valid JSON"),
        "empty": ("", "empty file"),
        "version": (json.dumps({"schema": "optbench-results", "schema_version": 2}), "schema version 2"),
        "foreign": (json.dumps({"name": "something else", "benchmarks": 3}), "not an optbench results file"),
        "list": ("[1, 2, 3]", "not an optbench results file"),
        "invalid": (json.dumps({"schema": "optbench-results", "schema_version": 1, "status": "complete"}),
                    "does not match the results schema"),
    }
    out = {}
    for name, (text, msg) in files.items():
        p = tmp_path / f"{name}.json"
        p.write_text(text)
        out[name] = (p, msg)
    return out


@pytest.mark.parametrize("command", ["render", "gpus", "validate"])
def test_each_bad_file_is_one_line(command, bad_files, cli, tmp_path):
    for name, (path, msg) in bad_files.items():
        before = digest(path)
        args = [command, path] + (["--out", tmp_path / "o"] if command == "render" else [])
        line = one_error_line(cli(*args))
        assert msg in line, (name, line)
        assert digest(path) == before


def test_compare_bad_inputs(bad_files, cli, tmp_path):
    good = synth.write(tmp_path / "good.json", synth.simple_doc([1.0, 1.1, 1.2], [0.5, 0.6, 0.7]))
    for name, (path, msg) in bad_files.items():
        assert msg in one_error_line(cli("compare", good, path))
        assert msg in one_error_line(cli("compare", path, good))
    gb = tmp_path / "gb.json"
    gb.write_text(json.dumps(GBENCH))
    assert "Google Benchmark" in one_error_line(cli("compare", good, gb))
    assert "Google Benchmark" in one_error_line(cli("gpus", gb))


def test_missing_file_empty_directory(tmp_path, cli):
    assert "no such file" in one_error_line(cli("render", tmp_path / "nope.json", "--out", tmp_path / "o"))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no .json files" in one_error_line(cli("render", empty, "--out", tmp_path / "o"))
    assert "no .json files" in one_error_line(cli("validate", empty))
    assert "no .json files" in one_error_line(cli("compare", empty, empty))


def test_directory_with_several_files_for_compare(tmp_path, cli):
    d = tmp_path / "d"
    d.mkdir()
    for n in ("a", "b"):
        synth.write(d / f"{n}.json", synth.simple_doc([1.0, 1.1, 1.2], [0.5, 0.6, 0.7]))
    assert "one results file" in one_error_line(cli("compare", d, d / "a.json"))
    r = cli("validate", d)
    assert r.rc == 0 and r.out.count(": valid") == 2


def test_bad_gbench_file(tmp_path, cli):
    p = tmp_path / "gb.json"
    p.write_text(json.dumps({"context": {}, "benchmarks": [{"no_name": 1}]}))
    assert "has no name" in one_error_line(cli("render", p, "--out", tmp_path / "o"))


def test_unwritable_output(tmp_path, cli):
    good = synth.write(tmp_path / "good.json", synth.simple_doc([1.0, 1.1, 1.2], [0.5, 0.6, 0.7]))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert "cannot create" in one_error_line(cli("render", good, "--out", blocker / "sub"))


def test_subprocess_has_no_traceback(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{nope")
    r = run_subprocess("render", p, "--out", tmp_path / "o")
    assert "not valid JSON" in one_error_line(r)
    r = run_subprocess("compare", "--help")
    assert r.rc == 0 and "Mann-Whitney" in r.out
    for sub in ("render", "gpus", "validate"):
        assert run_subprocess(sub, "--help").rc == 0


def test_gzip_results(tmp_path, cli):
    import gzip

    good = tmp_path / "good.json.gz"
    good.write_bytes(gzip.compress(json.dumps(synth.simple_doc([1.0, 1.1, 1.2], [0.5, 0.6, 0.7])).encode()))
    r = cli("validate", tmp_path)  # a directory stands for its .json and .json.gz files
    assert r.rc == 0 and f"{good}: valid" in r.out
    bad = tmp_path / "bad.json.gz"
    bad.write_text("{not gzip")
    before = digest(bad)
    assert "cannot read" in one_error_line(cli("compare", good, bad))
    truncated = tmp_path / "cut.json.gz"
    truncated.write_bytes(good.read_bytes()[:40])
    assert "cannot read" in one_error_line(cli("compare", truncated, good))
    assert digest(bad) == before
