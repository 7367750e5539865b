"""Lists the tests CTest skipped, each with the reason it printed (GoogleTest's
skip message, or a script's "SKIP: ..." line), from Testing/Temporary/LastTest.log.

    python3 scripts/lib/skipped_tests.py BUILD_DIR
"""

import re
import sys
from pathlib import Path


def skipped(log: str) -> list[tuple[str, str]]:
    out = []
    for block in log.split("\n----------------------------------------------------------\n\n"):
        m = re.search(r"^\d+/\d+ Testing: (.+)$", block, re.M)
        if not m:
            continue
        reason = re.search(r": Skipped\n(.+)\n", block) or re.search(r"^SKIP: (.+)$", block, re.M)
        if reason:
            out.append((m.group(1).split("  #")[0], reason.group(1).strip()))
    return out


def main() -> int:
    log = Path(sys.argv[1]) / "Testing" / "Temporary" / "LastTest.log"
    if not log.exists():
        return 0
    rows = skipped(log.read_text(errors="replace"))
    if rows:
        print(f"Skipped tests ({len(rows)}), with the reason each gave:")
        for name, reason in rows:
            print(f"  {name}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
