"""report history on series made from the committed runs: a planted step is found at
its commit, a step inside the floor and runs of one commit (A/A) give none, bad files
are named and skipped, runs of different fingerprints are never one series."""

from __future__ import annotations

import copy
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from report.history import changes, series
from report.history.command import compute
from report.history.fingerprint import fingerprint, splitting_fields
from report.history.order import BY_ANCESTRY, ordering
from report.history.runs import DIRTY, HistoryRun
from report.history.series import COMPARISON, TIME

sys.path.insert(0, str(Path(__file__).resolve().parent))
from plant import scaled  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "report" / "tests" / "fixtures"
INTEL = sorted((REPO / "results").glob("*intel-xeon*.json"))
# A comparison whose Intel series is flat (set_to_none against zeroing: 6% floor, the runs within 1%).
PLANT = ("zero_grad", "mlp_depth16_w64_b32", "set_to_none")
PLANT_NAME = "zero_grad/mlp_depth16_w64_b32: set_to_none vs zeroing"
PLANT_TIME = "zero_grad/mlp_depth16_w64_b32: set_to_none"
STEP_AT = "51a9077a37243ac6ac5fc192ad7adf87355b1bef"  # k: the first commit after the planted step
BEFORE = "ac2a1c5f431cc8a675c59c594305f08bbba46a77"


def _read(p: Path) -> dict:
    with gzip.open(p, "rt") if p.suffix == ".gz" else open(p) as f:
        return json.load(f)


def _write(dir_: Path, name: str, doc: dict) -> Path:
    p = dir_ / name
    p.write_text(json.dumps(doc))
    return p


def _sha(doc: dict) -> str:
    return doc["environment"]["git"]["sha"]


def _planted(tmp_path: Path, speedup_factor: float) -> Path:
    """The Intel runs with the comparison's speedup times the factor from commit k on."""
    order = [_sha(_read(p)) for p in INTEL]
    k = order.index(STEP_AT)
    for i, p in enumerate(INTEL):
        doc = _read(p)
        if i >= k:
            doc = scaled(doc, [PLANT], 1 / speedup_factor)  # a time 1/f makes the speedup f
        _write(tmp_path, p.name, doc)
    return tmp_path


def _finding(h, name: str):
    return next(f for f in h.findings if f.series.what == COMPARISON and f.series.name == name)


@pytest.fixture(scope="module")
def intel_runs() -> list[str]:
    assert [_sha(_read(p)) for p in INTEL].count(STEP_AT) == 1, "the committed Intel runs changed"
    return [str(p) for p in INTEL]


def test_planted_step_found_at_its_commit(tmp_path, intel_runs):
    pytest.importorskip("ruptures")
    clean = _finding(compute(intel_runs, REPO), PLANT_NAME)
    assert clean.changes == []  # the series as committed has none: the plant is what is found
    h = compute([_planted(tmp_path, 0.90)], REPO)  # by ancestry, or (a shallow clone) by date: the same order
    f = _finding(h, PLANT_NAME)
    assert len(f.changes) == 1, f.changes
    c = f.changes[0]
    pts = f.series.points
    assert c.after == STEP_AT and c.at == [p.commit for p in pts].index(STEP_AT)
    assert c.before == pts[c.at - 1].commit
    if h.order_how == BY_ANCESTRY:  # by date (a shallow clone) 8a36a2f, which ran later, comes before k
        assert c.before == BEFORE
    assert c.status == changes.REGRESSION and c.runs_after >= changes.AGREE
    assert c.size == pytest.approx(0.90, rel=0.02)
    assert c.ci_low < 0.90 < c.ci_high
    time = next(f for f in h.findings if f.series.what == TIME and f.series.name == PLANT_TIME)
    assert time.changes == []  # 11% slower: inside a shared CPU's time floor


def test_planted_slowdown_is_a_time_regression(tmp_path, intel_runs):
    pytest.importorskip("ruptures")
    # A shared CPU's time floor is 140% and more: six times slower clears it.
    h = compute([_planted(tmp_path, 1 / 6)], REPO)
    f = next(f for f in h.findings if f.series.what == TIME and f.series.name == PLANT_TIME)
    assert [(c.after, c.status) for c in f.changes] == [(STEP_AT, changes.REGRESSION)]
    assert f.changes[0].size > 1 + f.changes[0].floor


def test_step_inside_the_floor_is_not_reported(tmp_path, intel_runs):
    pytest.importorskip("ruptures")
    f = _finding(compute([_planted(tmp_path, 0.97)], REPO), PLANT_NAME)
    assert f.changes == []
    assert "floor" in f.none_why or "noise" in f.none_why or "not confirmed" in f.none_why


def test_runs_of_one_commit_give_no_change(tmp_path, monkeypatch):
    pytest.importorskip("ruptures")
    aa = sorted((FIXTURES / "cpu_shared_2core").glob("*.json.gz"))
    h = compute([str(p) for p in aa], REPO)
    assert h.findings and all(f.changes == [] for f in h.findings)
    # The same three runs as three commits (a history of no change), judged down to 3 runs.
    monkeypatch.setattr(changes, "MIN_POINTS", 3)
    for i, p in enumerate(aa):
        doc = _read(p)
        doc["environment"]["git"]["sha"] = f"{i + 1:040x}"
        _write(tmp_path, f"run{i}.json", doc)
    h = compute([tmp_path], None)
    assert h.order_how.startswith("date")
    searched = [f for f in h.findings if len(f.series.commits) == 3]
    assert searched and all(f.changes == [] for f in searched), [f.changes for f in searched if f.changes][:3]


def test_bad_files_are_named_and_skipped(tmp_path, cli, intel_runs):
    clean = [p for p in intel_runs if not _read(Path(p))["environment"]["git"]["dirty"]]
    good = [_write(tmp_path, Path(p).name, _read(Path(p))) for p in clean[:2]]
    truncated = tmp_path / "truncated.json"
    truncated.write_text(good[0].read_text()[:5000])
    (tmp_path / "malformed.json").write_text("{ not json")
    (tmp_path / "foreign.json").write_text('{"hello": "world"}')
    (tmp_path / "gbench.json").write_text('{"context": {}, "benchmarks": []}')
    r = cli("history", tmp_path, "--out", tmp_path / "out")
    assert r.rc == 0, r.err
    page = (tmp_path / "out" / "history.md").read_text()
    for name in ("truncated.json", "malformed.json", "foreign.json", "gbench.json"):
        assert f"skipped: {tmp_path / name}:" in r.err
        assert name in page
    assert "2 runs" in r.out


def test_a_run_whose_figures_fail_is_named_and_skipped(monkeypatch):
    aa = sorted((FIXTURES / "cpu_shared_2core").glob("*.json.gz"))
    real = series.comparison_points

    def failing(run):
        if run.path == aa[1]:
            raise ValueError("planted")
        return real(run)

    monkeypatch.setattr(series, "comparison_points", failing)
    h = compute([str(p) for p in aa], None)
    assert [(s.path, s.reason) for s in h.skipped] == [(aa[1], "unexpected ValueError: planted")]
    assert h.runs == 2
    assert h.findings and all(len(f.series.points) <= 2 for f in h.findings)


def test_fingerprints_that_differ_are_never_one_series(tmp_path):
    docs = [_read(FIXTURES / f"{n}.json.gz") for n in ("h100_rest", "h100_again", "h100_full")]
    other = copy.deepcopy(docs[2])
    nvml = other["environment"]["cuda"]["gpus"][0].setdefault("nvml", {})
    nvml["driver_version"] = "0.0-other"
    prints = [fingerprint(d) for d in (*docs[:2], other)]
    assert prints[0] == prints[1] != prints[2]
    assert splitting_fields(prints) == ["driver"]
    for i, d in enumerate((*docs[:2], other)):
        _write(tmp_path, f"h{i}.json", d)
    h = compute([tmp_path], None)
    for f in h.findings:
        assert len({p.run.fingerprint for p in f.series.points}) == 1
    apart = [f for f in h.findings if f.series.fingerprint == prints[2]]
    shared = {f.series.name for f in apart} & {f.series.name for f in h.findings if f.series.fingerprint == prints[0]}
    assert shared  # the same comparisons, measured under another driver: series of their own
    assert all(len(f.series.points) == 1 for f in apart)


def test_without_ruptures_it_says_so_and_goes_on(tmp_path, cli, monkeypatch, intel_runs):
    monkeypatch.setitem(sys.modules, "ruptures", None)  # import ruptures raises ImportError
    r = cli("history", *intel_runs[:5], "--out", tmp_path)  # four clean runs: searched
    assert r.rc == 0
    assert "ruptures is not installed" in r.err
    assert "Change points were not searched" in (tmp_path / "history.md").read_text()
    assert "not searched" in r.out


def _commit(repo: Path, msg: str) -> str:
    def run(*a):
        return subprocess.run(["git", "-C", str(repo), *a], check=True, capture_output=True, text=True)

    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", msg)
    return run("rev-parse", "HEAD").stdout.strip()


def test_like_keeps_one_machine(tmp_path, cli):
    amd = REPO / "results" / "2026-11-27_cpu_amd-epyc-2core_libtorch-2.11_standard.json"
    h = compute([str(p) for p in INTEL[:2]] + [str(amd), str(amd)], None, like=amd)
    assert (
        h.runs == 1
    )  # given twice, one run and {f.series.fingerprint for f in h.findings} == {fingerprint(_read(amd))}


def test_order_follows_ancestry_not_dates(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    old, new = _commit(tmp_path, "a"), _commit(tmp_path, "b")
    base = _read(FIXTURES / "cpu_shared_2core" / "cpu_a.json.gz")
    runs = []
    for sha, date in ((new, "2026-01-01T00:00:00Z"), (old, "2026-02-01T00:00:00Z")):
        doc = copy.deepcopy(base)
        doc["environment"]["git"]["sha"], doc["environment"]["date"] = sha, date
        runs.append(HistoryRun(tmp_path / f"{sha}.json", doc))
    o = ordering(runs, tmp_path)
    assert o.how == BY_ANCESTRY
    assert [r.sha for r in sorted(runs, key=o.key)] == [old, new]
    assert ordering(runs, None).how.startswith("date")


def test_every_committed_file_is_read(tmp_path, cli):
    r = cli("history", REPO / "results", "--out", tmp_path)
    assert r.rc == 0, r.err
    files = sorted((REPO / "results").glob("*.json"))
    dirty = [p for p in files if _read(p)["environment"]["git"]["dirty"]]
    assert dirty and [line for line in r.err.splitlines() if line.startswith("skipped:")] == [
        f"skipped: {p}: {DIRTY}" for p in dirty
    ]
    assert f"{len(files) - len(dirty)} runs" in r.out
    page = (tmp_path / "history.md").read_text()
    assert page.index("## Regressions") < page.index("## Machines")
    assert "none found" in page
    assert list((tmp_path / "plots").glob("*.png"))


AMD_STANDARD = "AMD EPYC (2 cores), torch 2.11.0, standard profile"
BF16 = REPO / "results" / "2026-11-27_cpu_amd-epyc-2core_libtorch-2.11_standard_bf16_emulated.json"


def test_a_dirty_run_is_skipped_with_its_reason(tmp_path):
    clean = _read(FIXTURES / "cpu_shared_2core" / "cpu_a.json.gz")
    dirty = copy.deepcopy(clean)
    dirty["environment"]["git"]["dirty"] = True
    _write(tmp_path, "clean.json", clean)
    _write(tmp_path, "dirty.json", dirty)
    h = compute([tmp_path], None)
    assert h.runs == 1
    assert [(s.path.name, s.reason) for s in h.skipped] == [("dirty.json", DIRTY)]
    assert all(not p.commit.endswith("+dirty") for f in h.findings for p in f.series.points)


def test_bf16_emulated_run_leaves_the_amd_series_and_its_false_regression_goes():
    """The bf16-emulated run (a dirty tree that ran AMP bf16 emulated, 0.05x) made the
    AMD amp claim 'regress' at its commit; kept out, the AMD series show no such change."""
    amd = sorted((REPO / "results").glob("*amd-epyc*libtorch-2.11*.json"))
    h = compute([str(p) for p in amd], REPO)
    assert (BF16, DIRTY) in [(s.path, s.reason) for s in h.skipped]
    mine = [f for f in h.findings if f.series.fingerprint.label == AMD_STANDARD]
    amp = next(f for f in mine if f.series.name == "amp")
    assert all(p.run.path != BF16 for p in amp.series.points)
    assert all(c.size > 0.5 for f in mine for c in f.changes), [(f.series.label, f.changes) for f in mine]


def test_pinned_malloc_splits_the_amd_series():
    """Runs that pinned malloc's thresholds measure other steps (no page faults): their own series."""
    names = ("standard", "standard_pinned-malloc")
    docs = [_read(REPO / "results" / f"2026-11-27_cpu_amd-epyc-2core_libtorch-2.11_{n}.json") for n in names]
    prints = [fingerprint(d) for d in docs]
    assert splitting_fields(prints) == ["malloc"]
    assert prints[0].label == AMD_STANDARD and prints[1].label == AMD_STANDARD + ", pinned malloc"
    # Settings that only change an interval's width (processes, their share of the run) do not split.
    same = [
        _read(REPO / "results" / f"2026-11-27_cpu_amd-epyc-2core_libtorch-2.11_{n}.json") for n in ("standard_share2",)
    ]
    assert fingerprint(same[0]) == prints[1]


AMX = ["avx2", "avx512f", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8"]


def test_cpus_alike_but_for_their_isa_are_never_one_series(tmp_path, cli):
    """The VM's model string names no generation: an AVX2 machine, an AMX one, and a file
    from before the ISA was recorded (unknown, so a series of its own) are three machines."""
    base = _read(FIXTURES / "cpu_shared_2core" / "cpu_a.json.gz")
    amx, avx2, old = (copy.deepcopy(base) for _ in range(3))
    amx["environment"]["cpu"].update(isa=AMX, torch_capability="AVX512")
    avx2["environment"]["cpu"].update(isa=["avx2"], torch_capability="AVX2")
    assert not {"isa", "torch_capability"} & set(old["environment"]["cpu"])  # as every file before version 6
    prints = [fingerprint(d) for d in (amx, avx2, old)]
    assert len(set(prints)) == 3 and splitting_fields(prints) == ["isa"]
    assert [p.isa for p in prints] == ["AVX512 (" + " ".join(AMX) + ")", "AVX2 (avx2)", "-"]
    assert [p.machine for p in prints] == [
        f"{prints[2].model} (2 cores, AMX)",
        f"{prints[2].model} (2 cores, AVX2)",
        f"{prints[2].model} (2 cores)",
    ]
    for name, doc in (("amx", amx), ("avx2", avx2), ("old", old)):
        _write(tmp_path, f"{name}.json", doc)
    h = compute([tmp_path], None)
    for f in h.findings:
        assert len({p.run.fingerprint for p in f.series.points}) == 1
    assert {f.series.fingerprint for f in h.findings} == set(prints)
    out = tmp_path / "page"
    r = cli("history", tmp_path, "--out", out)
    assert r.rc == 0, r.err
    assert "These runs are split apart by: isa." in (out / "history.md").read_text()


def test_an_unreadable_isa_is_said_so_not_dropped():
    doc = _read(FIXTURES / "cpu_shared_2core" / "cpu_a.json.gz")
    doc["environment"]["cpu"].update(isa=None, torch_capability="AVX2")
    assert fingerprint(doc).isa == "AVX2 (?)"
    doc["environment"]["cpu"].update(isa=[], torch_capability=None)
    assert fingerprint(doc).isa == "? (none)"
