"""md_escape: what it escapes, and what it leaves as it is (so report.md stays readable)."""

import pytest

from report.render.md_escape import code_block, code_span, inline


@pytest.mark.parametrize(
    "text, want",
    [
        ("a\n# H", "a # H"),  # no new line, so no heading
        ("| x | y |", "\\| x \\| y \\|"),  # no table cell
        ("<img src=x>", "\\<img src=x>"),  # no raw HTML
        ("&lt;b&gt;", "\\&lt;b\\&gt;"),  # an entity shows as typed
        ("![t](http://e/x.png)", "![t]\\(http://e/x.png)"),  # no image, no link
        ("`code`", "\\`code\\`"),
        ("*b* _i_ ~~s~~ $m$", "\\*b\\* \\_i\\_ \\~\\~s\\~\\~ \\$m\\$"),
        ("- item", "\\- item"),
        ("+ item", "\\+ item"),
        ("1. item", "1\\. item"),
        ("2) item", "2\\) item"),
        ("# h", "\\# h"),
        ("> q", "\\> q"),
        ("[x]: http://e", "\\[x]: http://e"),
        ("---", "\\---"),
        ("===", "\\==="),
        ("    indented", "indented"),
        ("title ##", "title \\##"),  # not a heading's closing sequence
    ],
)
def test_inline_escapes(text, want):
    assert inline(text) == want


@pytest.mark.parametrize(
    "text", ["eval_no_grad", "1.2× [1.1, 1.3]", "-0.5", "+5.0%", "1.19 -> 0.091 ms", "<= 1e-05", "a & b", "issue #31"]
)
def test_inline_leaves_plain_text(text):
    assert inline(text) == text


def test_code_span_outlasts_backticks():
    assert code_span("a`b") == "``a`b``"
    assert code_span("`x") == "`` `x ``"
    assert code_span("p\nq") == "`p q`"


def test_code_block_outlasts_backticks_and_splits_line_endings():
    block = code_block(["ok", "```", "x ```` y", "a\rb\r\nc"])
    assert block == ["`````", "ok", "```", "x ```` y", "a", "b", "c", "`````"]
    assert code_block(["plain"]) == ["```", "plain", "```"]
