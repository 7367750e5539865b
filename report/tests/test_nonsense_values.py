"""Issue 31, item 7: numbers and devices no run can produce are refused, by the loader and
by the schema (jsonschema; a non-finite number by the loader, also without it); a `hung`
experiment is accepted and shown like a crash."""

import csv
import json
import math
import sys

import pytest
import synth

from report.load.document import device_name
from report.load.results import load_results, load_schema, schema_errors
from report.render.verdict_words import why_text

BOTH = pytest.mark.parametrize("validator", ["jsonschema", "without jsonschema"])


def _use(validator: str, monkeypatch) -> None:
    if validator == "without jsonschema":
        monkeypatch.setitem(sys.modules, "jsonschema", None)


def one_error_line(r) -> str:
    lines = r.err.strip().splitlines()
    assert r.rc == 2 and len(lines) == 1 and lines[0].startswith("error:"), (r.rc, r.err)
    return lines[0]


def _doc() -> dict:
    return synth.simple_doc([1e-3, 1.1e-3, 1.2e-3], [5e-4, 6e-4, 7e-4])


def _variant(doc: dict) -> dict:
    return doc["experiments"][0]["cases"][0]["variants"][0]


def _write_text(tmp_path, name: str, doc: dict, token: str) -> object:
    """The document with its first sample written as a bare token (NaN, Infinity): what
    json.dumps cannot be asked for, and what Python's json.loads reads as a float."""
    _variant(doc)["samples"]["host_s"][0] = 123.25
    p = tmp_path / name
    p.write_text(json.dumps(doc).replace("123.25", token, 1))
    return p


@BOTH
@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_sample_is_refused(token, validator, tmp_path, cli, monkeypatch):
    _use(validator, monkeypatch)
    p = _write_text(tmp_path, "r.json", _doc(), token)
    for args in (
        ["validate", p],
        ["render", p, "--out", tmp_path / "o"],
        ["compare", p, p],
        ["gpus", p],
        ["baseline", p, tmp_path],
    ):
        line = one_error_line(cli(*args))
        assert "not a finite number at experiments/0/cases/0/variants/0/samples/host_s/0" in line, line
    assert not (tmp_path / "o" / "report.md").exists()


def test_non_finite_where_the_schema_is_open_is_refused(tmp_path, cli):
    """params, notes and derived take any JSON; a NaN there is refused all the same."""
    doc = _doc()
    doc["experiments"][0]["cases"][0]["derived"] = {"break_even_steps": 123.25}
    p = tmp_path / "r.json"
    p.write_text(json.dumps(doc).replace("123.25", "NaN"))
    assert "cases/0/derived/break_even_steps" in one_error_line(cli("render", p, "--out", tmp_path / "o"))


@pytest.mark.parametrize("where", ["samples", "median", "first_run_s", "wall_s", "speedup"])
def test_negative_time_is_refused(where, tmp_path, cli):
    doc = _doc()
    v, case = _variant(doc), doc["experiments"][0]["cases"][0]
    if where == "samples":
        v["samples"]["host_s"][1] = -0.5
    elif where == "median":
        v["stats"]["median"] = -0.5
    elif where == "first_run_s":
        v["first_run_s"] = -0.5
    elif where == "wall_s":
        case["wall_s"] = -0.5
    else:
        case["comparisons"][0]["speedup"] = -2.0
    p = synth.write(tmp_path / "r.json", doc)
    line = one_error_line(cli("validate", p))
    # the field itself, also inside a summary (null or an object: the object's median is named)
    field = {"samples": "samples/host_s/1", "median": "stats/median"}.get(where, where)
    assert f"{field}: -" in line and "is less than the minimum of" in line, line
    one_error_line(cli("render", p, "--out", tmp_path / "o"))
    assert not (tmp_path / "o" / "report.md").exists()  # never rendered as "-500 ms"


# Every time per step a results file holds, and how to set it in _doc().
def _set_step_time(doc: dict, where: str, t: float) -> str:
    """Sets one time per step to t; returns the field's path as an error names it."""
    v = _variant(doc)
    if where == "host_s":
        v["samples"]["host_s"][1] = t
        return "variants/0/samples/host_s/1"
    if where == "device_s":
        v["samples"]["device_s"] = [1e-3, t, 1e-3]
        return "variants/0/samples/device_s/1"
    if where in ("median", "q1", "min", "mean"):
        v["stats"][where] = t
        return f"variants/0/stats/{where}"
    if where == "first_run_s":
        v["first_run_s"] = t
        return "variants/0/first_run_s"
    if where == "cold_first_runs_s":
        v["cold_first_runs_s"], v["cold_first_run_s"] = [t], 1e-3
        return "variants/0/cold_first_runs_s/0"
    if where == "breakdown/timed_step_s":
        v["breakdown"] = {**synth.breakdown({"gemm": 1e-3}, 1e-4), "timed_step_s": t}
        return "variants/0/breakdown/timed_step_s"
    if where == "breakdown/step_s":
        v["breakdown"] = {**synth.breakdown({"gemm": 1e-3}, 1e-4), "step_s": [1e-3, t]}
        return "variants/0/breakdown/step_s/1"
    record = {"process": 1, "status": "ok", "rounds": 3, "variants": {"base": {"median_s": t}}}
    if where == "older_repeats/median_s":  # a file from before further processes were records of their own
        doc["experiments"][0]["cases"][0]["repeats"] = [record]
        return "experiments/0/cases/0/repeats/0/variants/base/median_s"
    case = doc["experiments"][0]["cases"][0]["name"]
    doc["experiments"][0]["repeats"] = [{**record, "case": case, "comparisons": []}]
    return "experiments/0/repeats/0/variants/base/median_s"


STEP_TIMES = [
    "host_s",
    "device_s",
    "median",
    "q1",
    "min",
    "mean",
    "first_run_s",
    "cold_first_runs_s",
    "breakdown/timed_step_s",
    "breakdown/step_s",
    "repeats/median_s",
    "older_repeats/median_s",
]


@pytest.mark.parametrize("t", [0.0, 5e-324, 1e-13, 86400.5, 1e308])
@pytest.mark.parametrize("where", STEP_TIMES)
def test_a_time_no_clock_measures_is_refused(where, t, tmp_path, cli):
    """Zero, a subnormal, below a picosecond, above a day per step: refused by the schema
    (either validator) and so by the loader of every command, one line naming the file
    and the field."""
    doc = _doc()
    field = _set_step_time(doc, where, t)
    p = synth.write(tmp_path / "r.json", doc)
    for args in (["validate", p], ["render", p, "--out", tmp_path / "o"], ["compare", p, p]):
        line = one_error_line(cli(*args))
        assert str(p) in line and f"{field}: {t!r} is" in line, line
        assert ("less than the minimum of 1e-12" if t < 1 else "greater than the maximum of 86400") in line, line
    assert not (tmp_path / "o" / "report.md").exists()


def test_the_bounds_admit_what_a_clock_measures():
    """A nanosecond, exactly a day, and 0 where a time is a part of a step (a spread, a
    category, idle time) are measurements: accepted."""
    doc = _doc()
    v = _variant(doc)
    v["samples"]["host_s"] = [1e-9, 86400.0, 1e-3]
    v["stats"].update(iqr=0.0)
    v["breakdown"] = synth.breakdown({"gemm": 1e-3, "memcpy_host": 0.0}, 0.0)
    v["breakdown"]["busy_s"] = 0.0
    assert schema_errors(doc) == []


def test_all_zero_times_are_refused(tmp_path, cli):
    """A variant whose every time is 0 ("0 ns" beside 933 samples/s)."""
    doc = _doc()
    v = _variant(doc)
    v["samples"]["host_s"] = [0.0] * 3
    v["stats"] = {k: 0.0 for k in v["stats"]} | {"n": 3}
    v["throughput"] = {"items_per_s": 933.0}
    p = synth.write(tmp_path / "r.json", doc)
    line = one_error_line(cli("render", p, "--out", tmp_path / "o"))
    assert str(p) in line and "variants/0/samples/host_s/0: 0.0 is less than the minimum of 1e-12" in line, line


def _plain_jsonschema_errors(doc: dict) -> list[str]:
    """jsonschema's own item-by-item check, with results.py's finite numbers."""
    import jsonschema
    from jsonschema.exceptions import best_match

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine(
        "number", lambda chk, v: base.TYPE_CHECKER.is_type(v, "number") and math.isfinite(v)
    )
    schema = load_schema()
    validator = jsonschema.validators.extend(base, type_checker=checker)(schema)
    errors = [best_match([e]) for e in validator.iter_errors(doc)]
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
        for e in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path])
    ]


def test_the_array_check_agrees_with_jsonschema_on_every_bound():
    """Arrays of numbers checked at once (number_arrays.py) find what jsonschema's own
    item-by-item check finds, in its words, for every bound the schema uses."""
    for t in (0.0, 5e-324, 86400.5, 1e308, 1e-3):
        for where in STEP_TIMES:
            doc = _doc()
            _set_step_time(doc, where, t)
            assert schema_errors(doc) == _plain_jsonschema_errors(doc), (where, t)
    doc = _doc()
    doc["config"]["measure"]["process_target_rel_ci"] = 0.0  # exclusiveMinimum
    assert schema_errors(doc) == _plain_jsonschema_errors(doc) != []


def test_the_schema_means_finite():
    """An in-memory document (not read from a file) holding NaN: refused, as "minimum": 0
    alone would not (NaN < 0 is false)."""
    doc = _doc()
    _variant(doc)["stats"]["median"] = float("nan")
    assert any("stats" in e for e in schema_errors(doc))


def _cuda_without_gpus(how: str) -> dict:
    doc = _doc()  # an H100 run
    cuda = doc["environment"]["cuda"]
    if how == "null":
        doc["environment"]["cuda"] = None
    elif how == "no_gpus":
        cuda.update(device_count=0, gpus=[])
    else:
        cuda["gpus"][0]["name"] = " "
    return doc


@pytest.mark.parametrize("how", ["null", "no_gpus", "blank_name"])
def test_cuda_run_without_a_gpu_is_refused(how, tmp_path, cli):
    bad = synth.write(tmp_path / "cuda.json", _cuda_without_gpus(how))
    assert "does not match the results schema" in one_error_line(cli("validate", bad))
    cpu = synth.write(tmp_path / "cpu.json", synth.simple_doc([1e-3, 1.1e-3], [5e-4, 6e-4], gpu=None))
    assert "does not match the results schema" in one_error_line(cli("compare", cpu, bad))


def test_a_cuda_run_is_never_named_a_cpu_run(tmp_path):
    """compare and baseline match runs by device_name: a CUDA file without a GPU, read
    without validation, must not pass for the CPU run on the same host."""
    doc = _cuda_without_gpus("null")
    cpu = synth.simple_doc([1e-3, 1.1e-3], [5e-4, 6e-4], gpu=None)
    assert device_name(cpu).startswith("CPU ")
    assert not device_name(doc).startswith("CPU ")
    assert device_name(doc) != device_name(cpu)
    p = synth.write(tmp_path / "cuda.json", doc)
    assert not device_name(load_results(p, validate=False)).startswith("CPU ")


def _hung_doc() -> dict:
    e = synth.experiment(
        "eval_no_grad",
        [
            synth.case(
                "kept", [("base", synth.lognormal(1e-3, 0.01, 12, 1)), ("no_grad", synth.lognormal(5e-4, 0.01, 12, 2))]
            )
        ],
        status="hung",
        reason="no output for 600 s: killed at the per-experiment deadline; the cases it finished are kept",
    )
    e["claims"] = ["no_grad_eval"]
    e["signal"] = "SIGKILL (Killed)"
    e["output_tail"] = ["[2/3] eval_no_grad/big ...", "the last line before it hung"]
    return synth.document([e])


@BOTH
def test_hung_experiment_is_valid_and_shown_like_a_crash(validator, tmp_path, cli, monkeypatch):
    _use(validator, monkeypatch)
    src = synth.write(tmp_path / "r.json", _hung_doc())
    assert cli("validate", src).rc == 0
    out = tmp_path / "out"
    r = cli("render", src, "--out", out, "--no-plots")
    assert r.rc == 0, r.err
    md, page = (out / "report.md").read_text(), (out / "report.html").read_text()
    details = (out / "report_details.md").read_text()
    assert "**HUNG**: no output for 600 s" in md and "<b>HUNG</b>: no output for 600 s" in page
    assert "| kept | no_grad |" in md  # its finished case
    for text in (details, page):
        assert "The last lines its process printed:" in text and "the last line before it hung" in text
        assert "| kept | no_grad |" in text or "<td>kept</td><td>no_grad</td>" in text
    with open(out / "results.csv", newline="") as f:
        assert {row["experiment_status"] for row in csv.DictReader(f)} == {"hung"}


def test_hung_experiment_is_not_evidence_for_a_claim():
    """Like a crashed one: the claim names it as why nothing was measured, and does not
    judge the checklist claim on what a hung process left."""
    from report.claims.judge import evaluate

    cr = next(cr for cr in evaluate(_hung_doc()) if cr.claim["id"] == "no_grad_eval")
    assert not cr.evidence
    assert "eval_no_grad hung: no output for 600 s" in why_text(cr.verdict)
