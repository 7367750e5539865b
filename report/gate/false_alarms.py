"""How often the gate fails unchanged code: every ordered pair of runs of one commit
on one device (each run once the baseline, once the current) goes through `compare`
with the default settings, and every 'slower' time or 'lower' speedup is a false
alarm. Pairs of runs with different profiles are counted apart: they are not the
gate's case (CI compares a standard run with a standard baseline).

    python3 -m report.gate.false_alarms RUN RUN [RUN...]      (files or directories)

The pairs judged share their runs, so they are not independent; the exact
(Clopper-Pearson) 95% upper bound printed treats them as if they were, which makes
it optimistic: read it as an order of magnitude. A false-alarm rate means little
without power: pairs that read 'cannot tell' (too noisy to see a 20% change) are
counted beside it."""

from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass
from pathlib import Path

from scipy.stats import binomtest

from ..load.document import device_name, run_facts, source_path
from ..load.results import ResultsError, load_inputs
from .compare import BLIND, NA, Settings, compare_docs

DETECT = Settings().detect


@dataclass
class Tally:
    comparisons: int = 0  # ordered pairs of runs with a case in common
    failed: int = 0  # of them, those that would exit 1
    judged: int = 0  # pairs with a verdict (times and speedups)
    alarms: int = 0  # of them, 'slower' or 'lower'
    blind: int = 0  # of them, 'cannot tell': no alarm, but no power either

    def line(self, label: str) -> str:
        if not self.judged:
            return f"{label}: no pairs"
        runs = binomtest(self.failed, self.comparisons).proportion_ci(0.95, method="exact").high
        pairs = binomtest(self.alarms, self.judged).proportion_ci(0.95, method="exact").high
        return (
            f"{label}: {self.failed} of {self.comparisons} comparisons fail (95% upper bound {runs:.0%}); "
            f"{self.alarms} false alarms in {self.judged} judged pairs ({self.alarms / self.judged:.2%}, "
            f"95% upper bound {pairs:.2%}); {self.blind} could not see a {DETECT:.0%} change"
        )


def _group(doc: dict) -> tuple[str, str]:
    return device_name(doc), str(run_facts(doc).git_sha)


def estimate(docs: list[dict], st: Settings | None = None) -> tuple[dict[str, Tally], list[str]]:
    """Tallies keyed 'same profile' / 'different profiles', and one line per ordered pair."""
    st = st or Settings()
    tallies = {"same profile": Tally(), "different profiles": Tally()}
    lines = []
    for base, cur in itertools.permutations(docs, 2):
        if _group(base) != _group(cur):
            continue
        profiles = [run_facts(d).profile for d in (base, cur)]
        t = tallies["same profile" if profiles[0] == profiles[1] else "different profiles"]
        out = compare_docs(base, cur, st)
        rows = [r for r in out.times + out.speedups if r.verdict != NA]
        if not rows:  # no case in common (single-experiment runs)
            continue
        regs = out.regressions
        t.comparisons += 1
        t.failed += bool(regs)
        t.judged += len(rows)
        t.alarms += len(regs)
        t.blind += sum(r.verdict == BLIND for r in rows)
        names = "; ".join(f"{'/'.join(r.key[:3])} {r.what} {100 * r.change:+.1f}%" for r in regs)
        lines.append(
            f"{Path(source_path(base)).name} -> {Path(source_path(cur)).name} ({profiles[0]} -> {profiles[1]}): "
            f"{len(rows)} judged, {len(regs)} regressions" + (f": {names}" if names else "")
        )
    return tallies, lines


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        docs = [i.doc for i in load_inputs(argv)]
        if len(docs) < 2:
            raise ResultsError("need at least two runs to pair")
    except ResultsError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    tallies, lines = estimate(docs)
    print("\n".join(lines))
    for label, t in tallies.items():
        print(t.line(label))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
