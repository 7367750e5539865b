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
        "invalid": (
            json.dumps({"schema": "optbench-results", "schema_version": 1, "status": "complete"}),
            "does not match the results schema",
        ),
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
        assert msg in one_error_line(cli("compare", good, path)), name
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


def test_validate_reports_every_file(bad_files, tmp_path, cli):
    """A folder: one line for each bad file, whatever is wrong with it (a 5000-digit
    integer, which Python's int parsing refuses with a ValueError, included), the valid
    ones named valid, then exit 2; before, it stopped at the 5000-digit file."""
    d = tmp_path / "folder"
    d.mkdir()
    doc = synth.simple_doc([1e-3, 1.1e-3, 1.2e-3], [5e-4, 6e-4, 7e-4])
    synth.write(d / "a_good.json", doc)
    version = f'"schema_version": {doc["schema_version"]}'
    (d / "b_digits.json").write_text(json.dumps(doc).replace(version, version + "0" * 5000))
    (d / "c_zero.json").write_text(json.dumps(doc).replace("0.0005", "0.0", 1))
    for name, (path, _) in bad_files.items():
        (d / f"d_{name}.json").write_bytes(path.read_bytes())
    synth.write(d / "z_good.json", doc)
    r = cli("validate", d, tmp_path / "missing.json")
    assert r.rc == 2
    errors = r.err.strip().splitlines()
    assert len(errors) == 2 + len(bad_files) + 1 and all(x.startswith("error: ") for x in errors), r.err
    assert f"error: {d / 'b_digits.json'}: not usable JSON (Exceeds the limit (4300 digits)" in errors[0]
    assert f"{d / 'c_zero.json'}: does not match the results schema" in errors[1] and "host_s/0" in errors[1]
    assert [f"{d / f'd_{n}.json'}: " in x for n, x in zip(sorted(bad_files), errors[2:])] == [True] * len(bad_files)
    assert errors[-1] == f"error: {tmp_path / 'missing.json'}: no such file"
    assert f"{d / 'a_good.json'}: valid" in r.out and f"{d / 'z_good.json'}: valid" in r.out
