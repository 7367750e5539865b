"""The README's claims table is the summary the committed pair renders to, row for row
(README "What it found"): a number in the README comes from a committed run."""

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAIR = [
    REPO / "results" / f"2026-11-27_cpu_amd-epyc-2core_libtorch-2.11_standard_share2{s}.json" for s in ("", "_second")
]


def _rows(md: str, header: str) -> list[str]:
    at = md.index(header)
    rows = []
    for line in md[at:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_the_readme_table_is_the_pair_s_summary(tmp_path):
    readme = (REPO / "README.md").read_text()
    names = re.search(r"Regenerated from `results/([^`]+)`", readme).group(1)
    assert names == "2026-11-27_cpu_amd-epyc-2core_libtorch-2.11_standard_share2{,_second}.json", names
    subprocess.run(
        [sys.executable, "-m", "report", "render", *map(str, PAIR), "--out", str(tmp_path), "--plots", "none"],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    md = (tmp_path / "report.md").read_text()
    for header in (
        "| claim | optimization | claimed | run 1 | run 2 | moved? | mechanism |",
        "| claim | optimization | claimed | run 1 speedup × [CI] | run 2 speedup × [CI] |",
    ):
        assert _rows(readme, header) == _rows(md, header), header
