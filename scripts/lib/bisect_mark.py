"""How scripts/bisect marks a commit it visits, from three runs: GOOD's, BAD's and the
commit's. Exit 1 (bad) where the regression gate fails the commit against GOOD, as
`report compare` would; 0 (good) where the gate fails BAD against the commit on a
pair that regressed from GOOD to BAD (the regression comes after it); else 125
(skip): the gate can place the commit on neither side, and marking it good would make
the bisect's answer easier with less information.
    bisect_mark.py GOOD_JSON BAD_JSON COMMIT_JSON"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from report.gate.compare import Settings, compare_docs  # noqa: E402
from report.load.results import ResultsError, load_results  # noqa: E402

GOOD, BAD, SKIP = 0, 1, 125


def mark(good: dict, bad: dict, commit: dict, st: Settings | None = None) -> tuple[int, str]:
    """The mark and why, in a line."""
    st = st or Settings()
    if compare_docs(good, commit, st).failed:
        return BAD, "the gate finds a regression against GOOD"
    regressed = {(r.what, r.key) for r in compare_docs(good, bad, st).regressions}
    later = [r for r in compare_docs(commit, bad, st).regressions if (r.what, r.key) in regressed]
    if later:
        return GOOD, f"the gate passes it against GOOD and finds BAD slower than it: {'/'.join(later[0].key)}"
    return SKIP, "the gate can place it on neither side: it passes against GOOD and passes BAD against it"


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return SKIP
    try:
        docs = [load_results(Path(p)) for p in argv]
    except ResultsError as e:
        print(f"error: {e}", file=sys.stderr)
        return SKIP
    code, why = mark(*docs)
    print(why)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
