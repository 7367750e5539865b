"""`report baseline`: the newest complete results file from the same device."""

import json

import synth


def _doc(gpu, date, status="complete"):
    d = synth.simple_doc([1e-3] * 5, [0.8e-3] * 5, gpu=gpu)
    d["environment"]["date"] = date
    d["status"] = status
    return d


def test_picks_newest_same_gpu(tmp_path, cli):
    res = tmp_path / "results"
    res.mkdir()
    synth.write(res / "h100-old.json", _doc(synth.H100, "2026-01-01T00:00:00Z"))
    synth.write(res / "h100-new.json", _doc(synth.H100, "2026-06-01T00:00:00Z"))
    synth.write(res / "h100-partial.json", _doc(synth.H100, "2026-09-01T00:00:00Z", status="interrupted"))
    synth.write(res / "a100.json", _doc(synth.A100, "2026-12-01T00:00:00Z"))
    (res / "bench.json").write_text(json.dumps({"context": {}, "benchmarks": []}))  # passed over
    cur = synth.write(tmp_path / "cur.json", _doc(synth.H100, "2026-11-01T00:00:00Z"))
    r = cli("baseline", cur, res)
    assert r.rc == 0, r.err
    assert r.out.strip().endswith("h100-new.json")


def test_no_same_device_is_a_clear_error(tmp_path, cli):
    res = tmp_path / "results"
    res.mkdir()
    synth.write(res / "a100.json", _doc(synth.A100, "2026-01-01T00:00:00Z"))
    cur = synth.write(tmp_path / "cur.json", _doc(synth.H100, "2026-11-01T00:00:00Z"))
    r = cli("baseline", cur, res)
    assert r.rc == 3  # nothing to gate against yet: a workflow warns and passes on 3 alone
    assert r.err.startswith("error:") and "H100" in r.err


def test_current_file_inside_the_directory_is_not_its_own_baseline(tmp_path, cli):
    res = tmp_path / "results"
    res.mkdir()
    cur = synth.write(res / "cur.json", _doc(synth.H100, "2026-11-01T00:00:00Z"))
    r = cli("baseline", cur, res)
    assert r.rc == 3


def test_bad_input_is_not_read_as_no_baseline(tmp_path, cli):
    """A workflow passes with a warning on 3 (no run of this device yet); a current file
    that is missing or malformed must fail it instead (2), never pass as 'no baseline'."""
    res = tmp_path / "results"
    res.mkdir()
    synth.write(res / "h100.json", _doc(synth.H100, "2026-01-01T00:00:00Z"))
    bad = tmp_path / "cur.json"
    bad.write_text("{ not json")
    for current in (bad, tmp_path / "missing.json"):
        r = cli("baseline", current, res)
        assert r.rc == 2 and r.err.startswith("error:"), (current, r.rc, r.err)
