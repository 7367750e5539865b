import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from report.__main__ import main

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))  # for `import synth`
sys.path.insert(0, str(REPO / "scripts" / "lib"))  # for `import session_checks`, the tooling's


class CliResult:
    def __init__(self, rc, out, err):
        self.rc, self.out, self.err = rc, out, err


@pytest.fixture
def cli(capsys):
    """Run `python3 -m report ARGS` in-process; returns rc, stdout, stderr."""

    def run(*args):
        rc = main([str(a) for a in args])
        cap = capsys.readouterr()
        return CliResult(rc, cap.out, cap.err)

    return run


def run_subprocess(*args):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    p = subprocess.run(
        [sys.executable, "-m", "report", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(REPO),
        timeout=120,
    )
    return CliResult(p.returncode, p.stdout, p.stderr)


def digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="session")
def real_results(tmp_path_factory):
    """A real results file from $OPTBENCH_BIN (CPU, quick, the fast experiments); skip without it."""
    binary = os.environ.get("OPTBENCH_BIN")
    if not binary or not Path(binary).is_file() or not os.access(binary, os.X_OK):
        pytest.skip("OPTBENCH_BIN is not set or not an executable file")
    out = tmp_path_factory.mktemp("real") / "cpu.json"
    p = subprocess.run(
        [
            binary,
            "run",
            "--quick",
            "--device",
            "cpu",
            "--no-progress",
            "--max-time",
            "0.3",
            "--filter",
            "aligned_dims|dataloader|eval_no_grad|pinned_memory|cudnn_benchmark",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    # 1 = a verification failed; the file is still written.
    assert p.returncode in (0, 1), p.stderr[-2000:]
    assert out.is_file()
    return out


FIXTURES = Path(__file__).resolve().parent / "fixtures"
CPU_RUN = REPO / "results" / "2026-11-22_cpu_amd-epyc-2core_libtorch-1.13.json"


@pytest.fixture(scope="session")
def runs():
    """The real runs the gate is tested on, loaded (and schema-checked) once: three
    standard H100 runs of one commit minutes apart (the suite's own output, copied
    from the first GPU session), and the committed CPU run."""
    from report.load.results import load_results

    out = {name: load_results(FIXTURES / f"{name}.json.gz") for name in ("h100_rest", "h100_again", "h100_full")}
    out["cpu"] = load_results(CPU_RUN)
    return out


@pytest.fixture(scope="session")
def cpu_runs():
    """Three standard runs of one binary (five CPU experiments) on the 2-core CI-class
    VM, one after another while other jobs compiled (load average 6-8)."""
    from report.load.results import load_results

    return [load_results(FIXTURES / "cpu_shared_2core" / f"cpu_{r}.json.gz") for r in "abc"]
