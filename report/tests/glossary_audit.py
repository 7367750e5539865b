"""Reading a rendered report for the glossary's tests (test_glossary.py): which terms its
text uses (the oracle for the glossary the page made from what it noted), which of the
report's own words name no term, and which retired spellings it still prints. These read
the report's text, so they live with the tests, not in the report."""

from __future__ import annotations

import re

from report.render.glossary import BY_NAME, HEADERS, TERMS, Term, _spelling_regex


def used(text: str) -> list[Term]:
    """The terms a rendered text uses (by their spellings), and the terms their definitions
    use, in glossary order: what the page's glossary, made from what it noted, must list."""
    found = {t.name for t in TERMS if t.in_text(text)}
    todo = list(found)
    while todo:
        d = BY_NAME[todo.pop().lower()].definition
        for t in TERMS:
            if t.name not in found and t.in_text(d):
                found.add(t.name)
                todo.append(t.name)
    return [t for t in TERMS if t.name in found]


def retired_in(text: str) -> list[str]:
    """Retired spellings the text prints (each term is printed one way)."""
    return [r for t in TERMS for r in t.retired if re.search(_spelling_regex(r), text)]


# A header's unit or qualifier: "(GFLOP/s)", "[CI]", "×"; a run's number before it: "run 2 verdict".
_QUALIFIERS = re.compile(r"\([^)]*\)|\[[^\]]*\]|×")
_RUN = re.compile(r"^run \d+:? ?")


def lookup(phrase: str) -> Term | None:
    """The term a header or cell names: as written, else without a run's number and its
    parenthesised or bracketed qualifiers and unit."""
    p = phrase.strip().lower()
    if p in HEADERS:
        return HEADERS[p]
    p = _RUN.sub("", p)
    if p in HEADERS:
        return HEADERS[p]
    if not p:  # a bare "run 2" column
        return HEADERS["run"]
    return HEADERS.get(" ".join(_QUALIFIERS.sub(" ", p).split()))


def _cells(line: str) -> list[str]:
    """A Markdown table row's cells (escaped pipes stay inside a cell)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def verdict_columns(headers: list[str]) -> list[int]:
    """The columns holding verdicts: 'verdict', or a run's column of a runs-side-by-side
    summary ('run 2': 'confirmed: 1.58 [1.48, 1.68]')."""
    return [i for i, h in enumerate(headers) if h == "verdict" or re.fullmatch(r"run \d+", h)]


def undefined(markdown: str) -> list[str]:
    """The report's own terms a rendered Markdown report uses without defining: column
    headers that are not code spans, and verdict cells (the verdict before any ': reason')."""
    from report.claims.verdicts import ALL

    out: list[str] = []
    lines = markdown.splitlines()
    for i, line in enumerate(lines[:-1]):
        if not (line.startswith("|") and re.fullmatch(r"\|(?:-+\|)+", lines[i + 1].strip())):
            continue
        headers = _cells(line)
        out += [h for h in headers if h and not h.startswith("`") and lookup(h) is None]
        for col in verdict_columns(headers):
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                cells = _cells(row)
                word = cells[col].split(":")[0].strip() if col < len(cells) else ""
                if word and word != "—" and (lookup(word) is None or (headers[col] != "verdict" and word not in ALL)):
                    out.append(word)
    return sorted(set(out))


def header_terms(markdown: str) -> list[str]:
    """The terms a rendered Markdown report's table headers name (a header may name a term
    without spelling it: 'status' names 'status / notes')."""
    lines = markdown.splitlines()
    out = []
    for i, line in enumerate(lines[:-1]):
        if line.startswith("|") and re.fullmatch(r"\|(?:-+\|)+", lines[i + 1].strip()):
            out += [t.name for h in _cells(line) if h and not h.startswith("`") and (t := lookup(h)) is not None]
    return out


def without_quoted_notes(markdown: str) -> str:
    """The text without the cases' notes (the results file's own words under 'Notes:'),
    where a word of the report's vocabulary ('idle') is plain English, not the term."""
    out, skipping = [], False
    for line in markdown.splitlines():
        if line == "Notes:":
            skipping = True
            continue
        if skipping and (line.startswith(("- ", "  ")) or not line):
            continue
        skipping = False
        out.append(line)
    return "\n".join(out)
