"""Issue 31, item 4: `optbench report` runs the project's report package and the interpreter's
own packages, never code from the folder it is started in (a shared runner's workspace, a
downloaded artifact): `python -m report` put that folder first on sys.path."""

import os
import subprocess
from pathlib import Path

import pytest
import synth

PLANTED = ("numpy.py", "json.py", "runpy.py", "report/__init__.py")  # what the report imports first


@pytest.fixture
def binary():
    b = os.environ.get("OPTBENCH_BIN")
    if not b or not os.access(b, os.X_OK):
        pytest.skip("OPTBENCH_BIN is not set or not an executable file")
    return b


def _plant(cwd: Path, marker_dir: Path) -> None:
    """Modules that, if imported, leave a marker named after themselves and exit 99."""
    for rel in PLANTED:
        p = cwd / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        marker = marker_dir / rel.replace("/", "_")
        p.write_text(f"open({str(marker)!r}, 'w').close()\nraise SystemExit(99)\n")


@pytest.mark.parametrize("pythonpath", [None, ":.", "."])
def test_report_ignores_code_in_the_working_directory(binary, tmp_path, pythonpath):
    cwd, markers = tmp_path / "workspace", tmp_path / "markers"
    markers.mkdir()
    _plant(cwd, markers)
    src = synth.write(tmp_path / "r.json", synth.simple_doc([1e-3, 1.1e-3, 1.2e-3], [5e-4, 6e-4, 7e-4]))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:  # a blank entry or "." in the user's PYTHONPATH is the working directory too
        env["PYTHONPATH"] = pythonpath
    for args in (["validate", str(src)], ["render", str(src), "--out", str(tmp_path / "out"), "--no-plots"]):
        p = subprocess.run([binary, "report", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
        assert sorted(m.name for m in markers.iterdir()) == [], f"planted code ran: {p.stderr[-500:]}"
        assert p.returncode == 0, p.stderr[-2000:]
    assert (tmp_path / "out" / "report.md").is_file()
