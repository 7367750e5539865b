"""Text from a results file made inert where it lands in Markdown (report.md, compare and
gpus --markdown for a CI job summary): it reads as the characters it is, never as structure.

- inline(): one line of text. Line endings become spaces, so it cannot add a line; what
  CommonMark (and GitHub) reads inside a line is backslash-escaped, so it makes no raw HTML,
  inline link or image, emphasis, code span, table cell, strikethrough or math; and what it
  starts with cannot open a block where it starts a line or a list item (a heading, list,
  quote, break, link definition or code). Brackets stay: without "](" or a definition,
  "[1.1, 1.3]" is text.
- code_span(): a path shown as code, fenced longer than any backtick run inside it.
- code_block(): lines shown verbatim, fenced longer than any backtick run inside them."""

from __future__ import annotations

import re

# Line endings and other C0 controls (tab kept): a line ending would start a new block.
_CONTROLS = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
# Inside a line: \ (escapes), ` (code spans), * (emphasis), | (GFM table cells), ~ (GFM
# strikethrough), $ (GitHub math); < where it could open a tag, comment or autolink ("<= 1e-5"
# opens none); & where it would read as an entity; _ not between letters or digits (there it
# opens no emphasis: eval_no_grad stays as it is); ( after ] (an inline link or image); a
# heading's closing run of # at the end.
_ACTIVE = re.compile(
    r"[\\`*|~$]|<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]+;)|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"
    r"|(?<=\])\(|(?<=[ \t])#(?=#*[ \t]*$)"
)
_LINE_ENDS = re.compile(r"\r\n|\r|\n")
# At a line's start: # (a heading), [ (a link definition, a task box), > (a quote), "- " "+ "
# (lists), "--" (a break), "==" (a setext underline), "1. " "1) " (ordered lists), and leading
# blanks (indented code); "-0.5" or "1.2x" open nothing and stay as they are.
_LEADING = re.compile(r"^[ \t]*(?:([#\[>]|-(?=[ \t-]|$)|\+(?=[ \t]|$)|=(?=[ \t=]|$))|(\d{1,9})([.)])(?=[ \t]|$))?")


def _lead(m: re.Match) -> str:
    if m.group(1):
        return "\\" + m.group(1)
    return f"{m.group(2)}\\{m.group(3)}" if m.group(2) else ""


def inline(text: object) -> str:
    s = _ACTIVE.sub(lambda m: "\\" + m.group(0), _CONTROLS.sub(" ", str(text)))
    return _LEADING.sub(_lead, s, count=1)


def _fence_for(text: str, least: int) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(least, longest + 1)


def code_span(text: object) -> str:
    s = _CONTROLS.sub(" ", str(text))
    fence = _fence_for(s, 1)
    # CommonMark strips one space from each end when both are spaces: a padded span shows s exactly.
    pad = " " if s[:1] in ("`", " ") or s[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def code_block(lines: list[object]) -> list[str]:
    """A fenced block of the lines; a line holding a line ending shows as several lines
    (a bare carriage return would otherwise end the line and could close the fence)."""
    body = [part for line in lines for part in _LINE_ENDS.split(str(line))]
    fence = _fence_for("\n".join(body), 3)
    return [fence, *body, fence]


def lead(text: str) -> str:
    """Only what a line's start would open (a heading, list, quote, break...), escaped:
    for a line that continues a paragraph or list item of text already made inert."""
    return _LEADING.sub(_lead, text, count=1)
