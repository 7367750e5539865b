"""A page (page.py) as self-contained HTML (report.html): no network needed (no script,
font or style from elsewhere), plots embedded as base64 PNGs. Every string is escaped,
with the measuring machine's paths shortened (machine_paths.py). A block starts a line
but one that runs on from the block before (Block.joined); the page ends with its
glossary."""

from __future__ import annotations

import base64
import html

from . import page as pg
from .machine_paths import shown

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;max-width:1400px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f0f0f0} td.num{text-align:right;white-space:nowrap}
tr.bad td{background:#fde8e8} tr.skip td{background:#f3f3f3;color:#666}
.v-confirmed{background:#dff3e4} .v-exceeded{background:#d0ecf7} .v-smaller{background:#fff4d6}
.v-notrep{background:#fde8e8} .v-na{color:#777} .v-few{background:#eee8f6}
.warn{background:#fff4d6;border:1px solid #e0c060;padding:0.5em 1em}
img{max-width:100%;border:1px solid #ddd;margin:0.3em 0 1em}
code{background:#f4f4f4;padding:0 3px} blockquote{color:#555;margin:0.2em 1em}
table.summary{font-size:14px;width:100%} table.summary td{overflow-wrap:anywhere}
table.summary td:nth-child(-n+3){overflow-wrap:break-word}
table.summary td:nth-child(2){max-width:12em} .moved{background:#fff4d6} p.run{color:#555;margin:0.2em 0}
table.claims td{overflow-wrap:anywhere} table.claims td:nth-child(2){max-width:45em}
details{margin:0.3em 0 1.2em} details>summary{cursor:pointer;color:#1f4e79}
details[open]>summary{margin-bottom:0.5em} ul.runs li{margin:0.2em 0}
dl.glossary{columns:2 30em;column-gap:2em;font-size:13px;margin:0.5em 0 1.5em}
dl.glossary dt{font-weight:bold;break-after:avoid} dl.glossary dd{margin:0 0 0.4em 1em;break-inside:avoid}
"""


def escape(s: object, quote: bool = True) -> str:
    return html.escape(shown(s), quote)


def _cls(cls: str) -> str:
    return f' class="{cls}"' if cls else ""


# How each kind of span is written; the others: escaped.
_WRITE = {
    pg.Own: lambda t: t,
    pg.Code: lambda t: f"<code>{escape(t)}</code>",
    pg.Strong: lambda t: f"<b>{escape(t)}</b>",
    pg.Quote: lambda t: f"<blockquote>{escape(t)}</blockquote>",
}


def _span(s: pg.Span) -> str:
    if isinstance(s, pg.Link):
        return f'<a href="{escape(s.href)}">{escape(s.text)}</a>'
    return _WRITE.get(type(s), escape)(s.text)


def _text(ss: pg.Spans) -> str:
    return "".join(_span(s) for s in ss)


def _items(items: list[pg.Item], sep: str = "") -> str:
    return sep.join(
        f"<li>{_text(it.spans)}" + (f"<ul>{_items(it.items)}</ul>" if it.items else "") + "</li>" for it in items
    )


def _list(b: pg.List) -> str:
    sep = "\n" if b.spread else ""
    return f"<ul{_cls(b.cls)}>{sep}{_items(b.items, sep)}{sep}</ul>"


def _table(b: pg.Table) -> str:
    out = [f"<table{_cls(b.cls)}><thead><tr>", *(f"<th>{escape(h)}</th>" for h in b.headers), "</tr></thead><tbody>"]
    for i, row in enumerate(b.rows):
        out.append(f"<tr{_cls(b.row_classes[i] if b.row_classes else '')}>")
        for j, c in enumerate(row):
            out.append(f"<td{_cls(b.cell_classes[i][j] if b.cell_classes else '')}>{escape(str(c))}</td>")
        out.append("</tr>")
    return "".join(out) + "</tbody></table>"


def _facts(t) -> str:
    """Names from the results file as code; numbers right-aligned."""
    td = '<td class="num">' if t.numeric else "<td>"
    out = [
        f"<p><code>{escape(t.title)}</code>:</p>" if t.title else "",
        "<table><thead><tr><th></th>",
        *(f"<th><code>{escape(c)}</code></th>" for c in t.columns),
        "</tr></thead><tbody>",
    ]
    for name, cells in t.rows:
        out.append(
            f"<tr><td><code>{escape(name)}</code></td>" + "".join(f"{td}{escape(c)}</td>" for c in cells) + "</tr>"
        )
    return "".join(out) + "</tbody></table>"


def _img(path) -> str:
    try:
        data = base64.b64encode(path.read_bytes()).decode("ascii")
    except OSError:
        return ""
    return f'<img alt="{escape(path.name)}" src="data:image/png;base64,{data}">'


def _block(b: pg.Block) -> str:
    if isinstance(b, pg.Heading):
        tag = f"h{b.level}"
        at = "" if b.id is None else f' id="{escape(b.id)}"'
        return f"<{tag}{at}>{_text(b.spans)}</{tag}>"
    if isinstance(b, pg.Paragraph):
        return f"<p{_cls('warn' if b.warn else '')}>{_text(b.spans)}</p>"
    if isinstance(b, pg.List):
        return _list(b)
    if isinstance(b, pg.Table):
        return _table(b)
    if isinstance(b, pg.Facts):
        return _facts(b.table)
    if isinstance(b, pg.CodeBlock):
        return "<pre>" + escape("\n".join(str(line) for line in b.lines)) + "</pre>"
    if isinstance(b, pg.Image):
        return _img(b.path)
    if isinstance(b, pg.Details):
        return f"<details><summary>{_text(b.summary)}</summary>{_blocks(b.blocks)}</details>"
    return ""


def _blocks(blocks: list[pg.Block]) -> str:
    return "".join(("" if i == 0 or b.joined else "\n") + _block(b) for i, b in enumerate(blocks))


def _glossary(page: pg.Page) -> str:
    terms = page.glossary
    if not terms:
        return ""
    return (
        '<h2 id="glossary">Glossary</h2><dl class="glossary">'
        + "".join(f'<dt id="{t.slug}">{escape(t.name)}</dt><dd>{escape(t.definition)}</dd>' for t in terms)
        + "</dl>"
    )


def write(page: pg.Page) -> str:
    head = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>optbench report</title>",
        f"<style>{CSS}</style></head><body>",
    ]
    return "\n".join([*head, _blocks(page.blocks), _glossary(page), "</body></html>"]) + "\n"
