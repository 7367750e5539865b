"""A page (page.py) as Markdown: report.md and report_details.md. Prose is wrapped (no
line of it longer than WIDTH + a word); tables are not. Every string from a results file
goes through md_escape: inert text, code spans, fenced blocks, with the measuring
machine's paths shortened (machine_paths.py). A blank line ends each block but one that
the next runs on into (Block.joined); the page ends with its glossary."""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

from . import md_escape
from . import page as pg
from .machine_paths import shown

WIDTH = 150  # prose is wrapped here: a reader's line, and a diff's


def esc(text: object) -> str:
    return md_escape.inline(shown(text))


def code_span(text: object) -> str:
    return md_escape.code_span(shown(text))


_SPAN = re.compile(r"(`+)(.+?)\1")
_KEEP = "\x01"  # a space inside a code span while wrapping: a span is never broken


def prose(text: str, first: str = "", indent: str = "") -> list[str]:
    """Markdown text (already escaped) wrapped at WIDTH: `first` opens it ('- '), `indent`
    each further line; a further line's start never opens a block (md_escape.lead)."""
    guarded = _SPAN.sub(lambda m: m.group(1) + m.group(2).replace(" ", _KEEP) + m.group(1), text)
    lines = textwrap.wrap(
        guarded, WIDTH, initial_indent=first, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    ) or [first.rstrip()]
    out = [lines[0]] + [indent + _lead(line[len(indent) :]) for line in lines[1:]]
    return [line.replace(_KEEP, " ") for line in out]


def _lead(line: str) -> str:
    """md_escape.lead, but a link of the report's own ('[Details](...)') may open a line:
    only '[label]:' would read as a link definition."""
    if line.startswith("[") and not re.match(r"\[[^\]]*\]:", line):
        return line
    return md_escape.lead(line)


# How each kind of span is written; Text and FileText: escaped.
_WRITE = {
    pg.Own: lambda t: t,
    pg.Authored: lambda t: t,
    pg.Code: code_span,
    pg.Strong: lambda t: f"**{esc(t)}**",
    pg.Quote: lambda t: f"“{t}” — ",
}


def _span(s: pg.Span) -> str:
    return f"[{s.text}]({s.href})" if isinstance(s, pg.Link) else _WRITE.get(type(s), esc)(s.text)


def _text(ss: pg.Spans) -> str:
    return "".join(_span(s) for s in ss)


def _items(items: list[pg.Item], depth: int = 0) -> list[str]:
    out = []
    for it in items:
        pad = "  " * depth
        out += prose(_text(it.spans), pad + "- ", pad + "  ")
        out += _items(it.items, depth + 1)
    return out


def _table(b: pg.Table) -> list[str]:
    heads = [code_span(h) if i in b.code_headers else esc(h) for i, h in enumerate(b.headers)]
    out = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(b.headers)]
    return out + ["| " + " | ".join(esc(c) for c in row) + " |" for row in b.rows]


def _facts(t) -> list[str]:
    """Names from the file as code: a header in code is the file's, not a term of the report."""
    out = [f"{code_span(t.title)}:", ""] if t.title else []
    out += ["| | " + " | ".join(code_span(c) for c in t.columns) + " |", "|" + "---|" * (len(t.columns) + 1)]
    return out + ["| " + code_span(name) + " | " + " | ".join(esc(c) for c in cells) + " |" for name, cells in t.rows]


def _image(b: pg.Image, out_dir: Path) -> list[str]:
    rel = Path(os.path.relpath(b.path, out_dir)).as_posix()
    # A bracket in the alt text would end it early; rel is plots/ and a sanitised name (plots.py).
    alt = esc(b.title).replace("[", "\\[").replace("]", "\\]")
    return [f"![{alt}]({rel})"]


def _block(b: pg.Block, out_dir: Path) -> list[str]:
    if isinstance(b, pg.Heading):
        return ["#" * b.level + " " + _text(b.spans)]
    if isinstance(b, pg.Paragraph):
        return prose(("> " if b.warn else "") + _text(b.spans))
    if isinstance(b, pg.List):
        return _items(b.items)
    if isinstance(b, pg.Table):
        return _table(b)
    if isinstance(b, pg.Facts):
        return _facts(b.table)
    if isinstance(b, pg.CodeBlock):
        return md_escape.code_block([shown(line) for line in b.lines])
    if isinstance(b, pg.Image):
        return _image(b, out_dir)
    if isinstance(b, pg.Details):
        return _blocks(b.blocks, out_dir)
    return []


def _blocks(blocks: list[pg.Block], out_dir: Path) -> list[str]:
    out: list[str] = []
    for b in blocks:
        if out and not b.joined:
            out.append("")
        out += _block(b, out_dir)
    return out


def write(page: pg.Page, out_dir: Path) -> str:
    """The page's text; out_dir: where it is written (its images' paths are relative to it)."""
    blocks = list(page.blocks)
    if terms := page.glossary:
        items = [pg.Item((pg.Strong(t.name), pg.Own(": "), pg.Text(t.definition))) for t in terms]
        blocks += [pg.Heading(2, (pg.Own("Glossary"),)), pg.List(items)]
    return "\n".join([*_blocks(blocks, out_dir), ""]) + "\n"
