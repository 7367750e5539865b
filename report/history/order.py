"""The order of runs along history: by commit ancestry where the repository holding
their commits is at hand (git rev-list --topo-order: a commit after every ancestor),
runs of one commit by date; else by the date each run recorded, and the page says so."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from .runs import HistoryRun

BY_ANCESTRY = "commit ancestry (git)"


@dataclass(frozen=True)
class Ordering:
    how: str  # BY_ANCESTRY, or why the runs are ordered by date
    rank: dict[str, int]  # commit sha -> its place along history (empty by date)

    def key(self, run: HistoryRun) -> tuple:
        return (self.rank.get(run.sha or "", -1), run.date, run.path.name)


def _git(repo: Path, args: list[str], stdin: str = "") -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), *args], input=stdin, capture_output=True, text=True, timeout=60, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout


def ordering(runs: list[HistoryRun], repo: Path | None) -> Ordering:
    shas = sorted({r.sha for r in runs if r.sha})
    if any(r.sha is None for r in runs):
        return Ordering("date: some runs record no commit", {})
    if repo is None or not shas:
        return Ordering("date: no git repository at hand", {})
    check = _git(repo, ["cat-file", "--batch-check"], "".join(f"{s}^{{commit}}\n" for s in shas))
    if check is None:
        return Ordering("date: no git repository at hand", {})
    missing = [s for s, line in zip(shas, check.splitlines()) if line.endswith("missing")]
    if missing:
        return Ordering(f"date: commit {missing[0][:10]} is not in {repo}", {})
    listed = _git(repo, ["rev-list", "--topo-order", "--reverse", *shas])
    if listed is None:
        return Ordering("date: git rev-list failed", {})
    rank = {sha: i for i, sha in enumerate(listed.split())}
    return Ordering(BY_ANCESTRY, {s: rank[s] for s in shas if s in rank})


def repo_of(paths: list[str | Path]) -> Path | None:
    """The git work tree holding the first path given, where there is one."""
    start = Path(paths[0]).resolve() if paths else Path.cwd()
    top = _git(start if start.is_dir() else start.parent, ["rev-parse", "--show-toplevel"])
    return Path(top.strip()) if top else None
