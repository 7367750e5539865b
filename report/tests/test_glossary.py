"""Every term defined (issue 38, item 3): the report's own vocabulary is data
(report/render/glossary.py: each term with the spellings it is printed with), the code prints
its terms from there, and every committed results file (results/*.json and every
fixture, gzipped ones included; each alone, and the runs of one device together) is
rendered to Markdown (report.md and report_details.md) and checked:

- every column header that is not a code span, and every verdict cell, names a term;
- each rendered file's glossary, looked up in the page's own words (page.py), lists
  exactly the terms its text uses and its headers name (and those their
  definitions use), found here by their printed spellings;
- no term is printed with a spelling it retired (one term, one spelling);
- the words the issue found undefined are terms now, or are no longer printed;
- no line of prose is longer than 200 characters.

Markdown and HTML, in this process, the files read without the schema check (other tests
check them): a few seconds."""

from __future__ import annotations

import html
import re

import pytest
from conftest import FIXTURES, REPO
from glossary_audit import header_terms, lookup, retired_in, undefined, used, without_quoted_notes

from report.load.results import Input, load_results
from report.render import pages, write_html, write_md
from report.render.command import build
from report.render.glossary import BY_NAME, HEADERS, TERMS, spelling

FILES = sorted((REPO / "results").glob("*.json")) + sorted(
    p for p in FIXTURES.rglob("*") if p.name.endswith((".json", ".json.gz"))
)
TOGETHER = [  # runs of one device rendered as one report: the vocabulary of several runs
    sorted((REPO / "results").glob("2026-11-26_cpu_amd-epyc-2core_libtorch-2.11_processes*.json")),
    sorted((FIXTURES / "cpu_shared_2core").glob("*.json.gz")),
    [FIXTURES / "h100_rest.json.gz", FIXTURES / "h100_again.json.gz"],
]


def reports() -> dict[str, object]:
    """{name: the report built}: every committed file alone, and TOGETHER."""
    docs = {p: load_results(p, validate=False) for p in FILES}
    names = [(p.name, [p]) for p in FILES] + [(" + ".join(p.name for p in ps), ps) for ps in TOGETHER]
    return {name: build([Input("optbench", p, docs[p]) for p in paths], None) for name, paths in names}


@pytest.fixture(scope="module")
def built() -> dict[str, object]:
    return reports()


@pytest.fixture(scope="module")
def rendered(built, tmp_path_factory) -> dict[str, tuple[str, str]]:
    """{name: (report.md, report_details.md)}: every committed file alone, and TOGETHER."""
    out = tmp_path_factory.mktemp("glossary")
    md = write_md.write
    return {name: (md(pages.main_page(r), out), md(pages.details_page(r), out)) for name, r in built.items()}


def _body_and_glossary(md: str) -> tuple[str, list[str]]:
    body, _, glossary = md.partition("\n## Glossary\n")
    return body, [n.replace("\\", "") for n in re.findall(r"^- \*\*(.+?)\*\*:", glossary, re.M)]


def test_every_committed_file_is_rendered(rendered):
    assert len(FILES) >= 30 and len(rendered) == len(FILES) + len(TOGETHER)


def test_every_header_and_verdict_names_a_term(rendered):
    for name, texts in rendered.items():
        for md in texts:
            assert undefined(md) == [], name


def test_each_glossary_lists_the_terms_its_text_uses(rendered):
    for name, texts in rendered.items():
        for md in texts:
            body, listed = _body_and_glossary(md)
            # what the page's look-up found: the terms its text uses, read back here
            # (less the results file's own notes), and those its headers name
            text = without_quoted_notes(body) + "\n" + "\n".join(header_terms(body))
            assert listed == [t.name for t in used(text)], name
            assert len(listed) == len(set(listed)), name
            # and a listed term's definition uses no term the glossary leaves out
            for t in listed:
                assert {u.name for u in used(BY_NAME[t.lower()].definition)} <= set(listed), (name, t)


def test_each_html_glossary_lists_the_terms_its_page_uses(built):
    """report.html holds both pages' parts, made by its own code: its glossary too."""
    for name, report in built.items():
        page = write_html.write(pages.html_page(report))
        body, _, glossary = page.partition('<h2 id="glossary">')
        body = re.sub(r"<p>Notes:</p>[^\n]*", "", body.split("<body>", 1)[-1])  # the file's own words
        text = html.unescape(re.sub(r"<[^>]*>", " ", body))
        listed = [html.unescape(n) for n in re.findall(r'<dt id="[^"]*">(.*?)</dt>', glossary)]
        expected = [t.name for t in used(text)]
        assert listed == expected, (name, set(listed) ^ set(expected))


def test_each_term_is_printed_one_way(rendered):
    for name, texts in rendered.items():
        for md in texts:
            assert retired_in(md) == [], name
    spellings = [s for t in TERMS for s in t.spellings]
    assert len(spellings) == len(set(spellings))  # no spelling names two terms
    assert not [r for t in TERMS for r in t.retired if r in spellings]


def test_the_words_issue_38_found_undefined_are_terms_or_gone(rendered):
    for word in (
        "mean not settled",
        "allowed",
        "over the bound",
        "first process",
        "counted",
        "per step of the baseline's work",
        "host copy/cast",
        "minor page faults per step",
    ):
        assert spelling(word) == BY_NAME[word].name
    seen = set()
    for name, texts in rendered.items():
        for md in texts:
            body, listed = _body_and_glossary(md)
            assert "allocator regime" not in md and "per baseline step of work" not in md, name
            assert not re.search(r"[-+]\d{4,}%", body), name  # '+2497%' of almost nothing: the times say it
            assert "(see README)" not in md, name
            for printed, term in (
                ("mean not settled", "mean not settled"),
                ("over the ±", "over the bound"),
                (", allowed ", "allowed"),
                ("(counted: ", "counted"),
                ("per step of the baseline's work", "per step of the baseline's work"),
            ):
                if printed in body:
                    seen.add(printed)
                    assert term in listed, (name, printed)
    assert {"mean not settled", "(counted: ", "per step of the baseline's work", ", allowed "} <= seen


def test_the_code_prints_its_vocabulary_from_the_glossary():
    """What the code can print of its own, as data: each a term (or a header naming one)."""
    from report.claims.verdicts import ALL
    from report.explanation import why, why_counters
    from report.render import side_by_side
    from report.render.cells import CLAIMS_HEADERS, experiment_headers, main_headers
    from report.render.summary import RunClaims, summarize
    from report.render.tables import ExperimentTable

    every = dict(unit="GB/s", has_items=True, has_why=True, has_peak=True, has_processes=True)
    t = ExperimentTable(**{f: every.get(f) for f in ExperimentTable.__dataclass_fields__})
    phrases = [
        *ALL,
        *CLAIMS_HEADERS,
        *experiment_headers(t),
        *main_headers(t),
        *side_by_side.headers(["run 1", "run 2"]),
    ]
    for runs in (1, 2):
        sm = summarize([RunClaims(f"run {i + 1}", [], True) for i in range(runs)])
        phrases += sm.headers + sm.unjudged_headers
    for phrase in phrases:
        assert lookup(phrase) is not None, phrase
    for label in list(why.LABELS.values()) + list(why_counters.LABELS.values()):
        assert label in HEADERS or label.lower() in BY_NAME or lookup(label) is not None, label
    for text in (
        "matrix multiply -61% (12.1 -> 4.70 ms/step)",
        "fill operations 34 -> 0 per step",
        "outside operators 3% -> 4%",
        "profiled: 3 steps, overhead +2% / +9% (mean not settled)",
        "host copy/cast 0.050 -> 1.30 ms/step",
    ):
        assert used(text), text
    assert why.PER_BASE == why_counters.PER_BASE == spelling("per step of the baseline's work")


def test_an_undefined_header_or_verdict_is_caught(rendered):
    md = rendered["2026-11-25_cpu_amd-epyc-2core_libtorch-2.11_breakdown.json"][0]
    planted = md + "\n| case | wobble factor | `from_the_file` |\n|---|---|---|\n| a | b | c |\n"
    assert undefined(planted) == ["wobble factor"]
    # a verdict cell (this one-process run's verdicts are all inconclusive: claims.ONE_PROCESS)
    planted = md.replace("| inconclusive |", "| half-confirmed |", 1)
    assert planted != md and undefined(planted) == ["half-confirmed"]
    pair = next(v for k, v in rendered.items() if "processes.json + " in k)[0]
    planted = pair.replace("| confirmed: ", "| half-confirmed: ", 1)  # a run's column of the summary
    assert undefined(planted) == ["half-confirmed"]


def _prose(md: str) -> list[str]:
    """The lines that are neither a table's nor a code block's."""
    out, fence = [], None
    for line in md.splitlines():
        if fence is None and re.match(r"`{3,}", line):
            fence = re.match(r"`+", line).group(0)
        elif fence is not None:
            if re.fullmatch(rf" {{0,3}}{fence}`*\s*", line):
                fence = None
        elif not line.startswith("|"):
            out.append(line)
    return out


def test_no_line_of_prose_is_longer_than_200_characters(rendered):
    for name, texts in rendered.items():
        for md in texts:
            long = [line for line in _prose(md) if len(line) > 200]
            assert long == [], (name, long[:1])
