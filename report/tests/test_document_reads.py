"""Every key of a results file is read through report/load/document.py (issue 39): the
report's other modules read typed views, never the loaded JSON. Checked as it
happens, not by names: the committed files are loaded as dicts that record which
module asks them for a key, then rendered, compared, tabulated per GPU and checked
as a GPU session's files are. Walking a whole mapping to print it is not a read of
any one key; copies are not followed. The open mappings (OPEN: a variant's params,
an experiment's derived figures and notes, a window's categories, a case's time
parts) are handed out whole by the document, and their entries are read by the
names claims.json, the plots' sweeps and the category list give them."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import REPO

from report.__main__ import main
from report.load import results

FILES = [
    str(REPO / f)
    for f in (
        "results/2026-11-27_cpu_amd-epyc-2core_libtorch-2.11_standard_share2.json",
        "results/2026-11-27_cpu_amd-epyc-2core_libtorch-2.11_standard_share2_second.json",
        "results/2026-11-26_cpu_amd-epyc-2core_libtorch-2.11_breakdown.json",
        "report/tests/fixtures/h100_full.json.gz",
        "report/tests/fixtures/h100_2026-11-24/h100_mixed_precision.json.gz",
    )
]
# The loader (its path, the schema version), the schema check, the migration of older files.
ALLOWED = {"report.load.document", "report.load.versions", "report.load.results", "report.load.number_arrays"}
OPEN = {"params", "derived", "notes", "categories_s", "time_s"}


class Tracked(dict):
    """A JSON object that notes the module of every caller that asks it for a key."""

    reads: set[tuple[str, str]] = set()
    open = False  # inside an open mapping (OPEN)

    def _note(self, key: object) -> None:
        if self.open:
            return
        module = sys._getframe(2).f_globals.get("__name__", "?")
        if module.startswith("report") and not module.startswith("report.tests"):
            Tracked.reads.add((module, str(key)))

    def __getitem__(self, key):
        self._note(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self._note(key)
        return super().get(key, default)

    def __contains__(self, key):
        self._note(key)
        return super().__contains__(key)


def track(x: object, key: object = None, inside_open: bool = False) -> object:
    """The loaded JSON with every object a Tracked one, those in OPEN mappings marked."""
    if isinstance(x, dict):
        is_open = inside_open or key in OPEN
        t = Tracked((k, track(v, k, is_open)) for k, v in x.items())
        t.open = is_open
        return t
    if isinstance(x, list) and any(isinstance(v, (dict, list)) for v in x[:1]):
        return [track(v, key, inside_open) for v in x]
    return x


@pytest.fixture
def tracked(monkeypatch):
    real = results.read_json

    def read_tracked(path):
        return track(real(path))

    monkeypatch.setattr(results, "read_json", read_tracked)
    Tracked.reads = set()
    yield Tracked


def outside(tracked) -> list[str]:
    return sorted(f"{m}: {k!r}" for m, k in tracked.reads if m not in ALLOWED)


def test_the_tracking_sees_a_read_outside_the_document(tracked):
    """The check can fail: a module that reads the loaded file itself is caught."""
    doc = results.load_results(FILES[0])
    assert isinstance(doc, Tracked)
    doc.get("environment")  # this test module is not counted; a report module would be
    assert not outside(tracked)
    from report.render import fmt

    fmt_globals = {"__name__": fmt.__name__, "doc": doc}
    exec("def read():\n    return doc.get('environment')\nread()", fmt_globals)
    assert outside(tracked) == ["report.render.fmt: 'environment'"]


def test_render_compare_and_gpus_read_the_files_through_the_document_only(tracked, tmp_path, capsys):
    files = FILES
    assert main(["render", "--plots", "all", "--out", str(tmp_path / "r"), *files]) == 0
    assert main(["compare", files[0], files[1], "--history", files[2]]) in (0, 1)
    assert main(["gpus", files[3], files[4]]) == 0
    capsys.readouterr()
    assert tracked.reads, "the tracking saw no read at all"
    assert not outside(tracked), "results keys read outside report/load/document.py:\n" + "\n".join(outside(tracked))


def test_a_gpu_sessions_checks_read_the_files_through_the_document_only(tracked, tmp_path):
    import session_checks

    runs = tmp_path / "runs"
    runs.mkdir()
    for f in FILES[3:]:
        (runs / f.split("/")[-1].removesuffix(".gz")).write_text(json.dumps(results.read_json(f)))
    Tracked.reads = set()
    session_checks.collect(tmp_path, rehearsal=False)
    assert tracked.reads
    assert not outside(tracked), "results keys read outside report/load/document.py:\n" + "\n".join(outside(tracked))
