"""Paths of the machine that measured (or rendered) in report text: shortened to their last
component, cache keys left out. A path names a file on one machine (/tmp/optbench-aoti-x/
model.pt2, a venv's python, an AOTInductor cache entry): a reader elsewhere can open
none of them, and a cache key is no fact about the measurement. The results file keeps
them whole; only what the report shows is shortened, at the one place text is written
(write_md's and write_html's escaping)."""

from __future__ import annotations

import re

# An absolute path of two or more components, where a path can start: not inside a word,
# a unit ("ms/step", "GB/s") or a relative path ("results/x.json").
ABSOLUTE = re.compile(r"(?<![\w.~/-])/(?:[\w.+@%-]+/)+[\w.+@%-]*")
# A cache key or content hash: 12 or more hex digits in a row (short git SHAs outside paths stay).
KEY = re.compile(r"[0-9a-fA-F]{12,}")
ELIDED = "…"


def _short(m: re.Match) -> str:
    last = m.group(0).rstrip("/").rsplit("/", 1)[-1]
    return f"{ELIDED}/{KEY.sub(ELIDED, last)}"


def shown(text: object) -> str:
    """The text with each absolute path cut to '…/last' (a key in it elided)."""
    return ABSOLUTE.sub(_short, str(text))


def is_machine_path(value: object) -> bool:
    """A value that is one absolute path and nothing else: a fact of one machine."""
    return isinstance(value, str) and ABSOLUTE.fullmatch(value.strip()) is not None


def paths_in(value: object) -> set[str]:
    """Every absolute path in the strings of a JSON value (for tests: none may be shown)."""
    if isinstance(value, str):
        return set(ABSOLUTE.findall(value))
    if isinstance(value, dict):
        return {p for v in value.values() for p in paths_in(v)}
    if isinstance(value, list):
        return {p for v in value for p in paths_in(v)}
    return set()
