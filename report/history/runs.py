"""The runs a history reads: every optbench results file under the paths given.
A file that is not one (malformed, truncated, foreign, a Google Benchmark file) is
named with its reason and skipped, never fatal: a history folder collects files over
months, and one bad file must not hide the rest.

A run built from uncommitted changes (environment.git.dirty) is named and kept out
too (unless asked for, as `report gpus` does): its code is no commit's, so a change
it shows would be put on a commit that never ran it (the committed
..._bf16_emulated.json, of a tree that emulated AMP bf16, made the amp claim "regress"
at its commit)."""

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
    def dirty(self) -> bool:
        return run_facts(self.doc).git_dirty

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


DIRTY = "built from uncommitted changes (environment.git.dirty): no commit's code, so it joins no series"


def load_runs(paths: list[str | Path], keep_dirty: bool = False) -> tuple[list[HistoryRun], list[Skipped]]:
    """Every readable results file under `paths`, and every other file with why it was
    skipped; runs of uncommitted changes among the skipped unless keep_dirty."""
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
            run = HistoryRun(p, check_results(doc, p))
            if run.dirty and not keep_dirty:
                skipped.append(Skipped(p, DIRTY))
                continue
            runs.append(run)
        except ResultsError as e:
            skipped.append(Skipped(p, str(e).removeprefix(f"{p}: ")))
        except Exception as e:  # one file's failure is its line, not a stop
            if os.environ.get("OPTBENCH_REPORT_DEBUG"):
                raise
            skipped.append(Skipped(p, f"unexpected {type(e).__name__}: {' '.join(str(e).split())}"))
    return runs, skipped
