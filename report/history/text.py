"""How the history page writes commits and changes."""

from __future__ import annotations

from ..render.fmt import fmt_speedup
from .changes import Change

SHORT = 10  # hex digits of a commit shown


def short(commit: str) -> str:
    """'30fa361600+dirty' from the full sha and its '+dirty' mark."""
    sha, plus, rest = commit.partition("+")
    return sha[:SHORT] + plus + rest


def commit_range(c: Change) -> str:
    return f"{short(c.before)}..{short(c.after)}"


def size_text(c: Change) -> str:
    """'×0.901 [0.85, 0.95] (−9.9%)': the ratio after/before with its interval."""
    return f"{fmt_speedup(c.size, c.ci_low, c.ci_high)} ({100 * (c.size - 1):+.1f}%)"
