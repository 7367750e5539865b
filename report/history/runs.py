"""The runs a history reads: every optbench results file under the paths given.
A file that is not one (malformed, truncated, foreign, a Google Benchmark file) is
named with its reason and skipped, never fatal: a history folder collects files over
months, and one bad file must not hide the rest."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..load.document import run_facts
from ..load.results import ResultsError, check_results, expand_paths, is_gbench, read_json
from .fingerprint import Fingerprint, fingerprint


@dataclass
class HistoryRun:
    path: Path
    doc: dict = field(repr=False)

    @cached_property
    def fingerprint(self) -> Fingerprint:
        return fingerprint(self.doc)

    @property
    def commit(self) -> str:
        """The commit the run built, '+dirty' where its tree had changes; '-' where unrecorded."""
        facts = run_facts(self.doc)
        return f"{facts.git_sha or '-'}{'+dirty' if facts.git_dirty else ''}"

    @property
    def sha(self) -> str | None:
        sha = run_facts(self.doc).git_sha
        return str(sha) if sha else None

    @property
    def date(self) -> str:
        return str(run_facts(self.doc).date or "")

    @cached_property
    def gate(self):
        """The file as the gate reads it (gate/compare.py): its comparisons' estimates and samples."""
        from ..gate.compare import Run

        return Run(self.doc)


@dataclass
class Skipped:
    path: Path
    reason: str


def load_runs(paths: list[str | Path]) -> tuple[list[HistoryRun], list[Skipped]]:
    """Every readable results file under `paths`, and every other file with why it was skipped."""
    runs, skipped = [], []
    seen = set()
    for p in expand_paths(paths):
        if p.resolve() in seen:  # a file given twice (by name and in its folder) is one run
            continue
        seen.add(p.resolve())
        try:
            doc = read_json(p)
            if is_gbench(doc):
                skipped.append(Skipped(p, "a Google Benchmark file, not an optbench results file"))
                continue
            runs.append(HistoryRun(p, check_results(doc, p)))
        except ResultsError as e:
            skipped.append(Skipped(p, str(e).removeprefix(f"{p}: ")))
        except Exception as e:  # one file's failure is its line, not a stop
            if os.environ.get("OPTBENCH_REPORT_DEBUG"):
                raise
            skipped.append(Skipped(p, f"unexpected {type(e).__name__}: {' '.join(str(e).split())}"))
    return runs, skipped
