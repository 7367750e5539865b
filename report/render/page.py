"""A rendered page as data: blocks of inline spans, built once (pages.py) and written to
Markdown (write_md.py) or HTML (write_html.py). Escaping is the writers'; a span says
what its text is, so each writer knows how to show it and the glossary what to read.

Layout: a block `joined` to the one before it runs on from it: no blank line between in
Markdown, no line break in HTML. The builder sets it per page, as each page lays it out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import glossary


@dataclass(frozen=True)
class Span:
    text: str


class Text(Span):
    """The page's words or a results file's: escaped by both writers."""


class Own(Span):
    """The page's constant words, written as they are."""


class Authored(Span):
    """claims.json's Markdown: as it is in Markdown, escaped in HTML."""


class Code(Span):
    """A name from the results file: no word of the report's."""


class FileText(Span):
    """A results file's notes: its own words, where a word of the report's is plain English."""


class Strong(Span):
    pass


class Quote(Span):
    """A claim's quoted words (claims.json's Markdown)."""


@dataclass(frozen=True)
class Link(Span):
    href: str = ""


Spans = tuple[Span, ...]


def spans(*parts: Span | str) -> Spans:
    """A str is the page's own words (Own)."""
    return tuple(Own(p) if isinstance(p, str) else p for p in parts)


@dataclass
class Block:
    joined: bool = field(default=False, kw_only=True)


@dataclass
class Heading(Block):
    level: int
    spans: Spans
    id: str | None = None


@dataclass
class Paragraph(Block):
    spans: Spans
    warn: bool = False  # a warning: Markdown quotes it, HTML marks it


@dataclass
class Item:
    spans: Spans
    items: list[Item] = field(default_factory=list)


@dataclass
class List(Block):
    items: list[Item]
    cls: str = ""
    spread: bool = False  # HTML: an item a line


@dataclass
class Table(Block):
    headers: list[str]
    rows: list[list[str]]
    code_headers: tuple[int, ...] = ()  # columns the results file names (a benchmark's counters)
    cls: str = ""
    row_classes: list[str] | None = None  # HTML's colours and alignment
    cell_classes: list[list[str]] | None = None


@dataclass
class Facts(Block):
    """A results file's derived figures (facts.FactTable): its names as code."""

    table: object


@dataclass
class CodeBlock(Block):
    lines: list[object]


@dataclass
class Image(Block):
    path: Path
    title: str


@dataclass
class Details(Block):
    """Folded under its summary (HTML; Markdown writes its blocks)."""

    summary: Spans
    blocks: list[Block]


@dataclass
class Blank(Block):
    """An empty line (HTML): where report.html's claims have no table, the page keeps its lines."""


@dataclass
class Page:
    blocks: list[Block]

    @property
    def glossary(self) -> list[glossary.Term]:
        """The terms the page prints, found in its own words and headers: not in code (names
        from the results file) nor in a results file's notes."""
        words: list[str] = []
        headers: list[str] = []
        _read(self.blocks, words, headers)
        return glossary.used(words, headers)


def _said(ss: Spans) -> list[str]:
    return [s.text for s in ss if not isinstance(s, (Code, FileText))]


def _listed(items: list[Item]) -> list[str]:
    return [w for it in items for w in _said(it.spans) + _listed(it.items)]


def _read(blocks: list[Block], words: list[str], headers: list[str]) -> None:
    for b in blocks:
        if isinstance(b, Table):
            headers += [h for i, h in enumerate(b.headers) if i not in b.code_headers]
            words += [str(c) for row in b.rows for c in row]
        elif isinstance(b, Facts):
            words += [c for _, cells in b.table.rows for c in cells]
        elif isinstance(b, List):
            words += _listed(b.items)
        elif isinstance(b, Details):
            words += _said(b.summary)
            _read(b.blocks, words, headers)
        else:
            words += _said(getattr(b, "spans", ()))
