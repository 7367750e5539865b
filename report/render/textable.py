"""Plain-text (aligned columns) and Markdown tables for terminal output."""

from __future__ import annotations

from .md_escape import inline


def text_table(headers: list[str], rows: list[list[str]]) -> str:
    cells = [[str(c) for c in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(inline(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(inline(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def table(headers: list[str], rows: list[list[str]], markdown: bool = False) -> str:
    return markdown_table(headers, rows) if markdown else text_table(headers, rows)
