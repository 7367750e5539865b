"""Issue 31, item 7: every string from a results file is escaped for where it lands. A
results file is data someone else wrote (a shared runner, a downloaded artifact): its
titles, reasons, names and crash output must not add structure to report.md or to a CI
job summary, run as HTML, close a code fence, run as a spreadsheet formula, or break a plot."""

import csv
import re

import synth

TITLE = "fine\n# Injected heading\n\n| x | y |\n|---|---|\n| 1 | 2 |"
HTML = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
TAIL = ["before the crash", "```", "# after the fence", "`````` six backticks, still inside", "a\rb"]
FORMULAS = {"case": '=HYPERLINK("http://evil")', "variant": "@SUM(1+1)", "error": "-2+3 cmd|' /C calc'!A0"}


def _hostile_doc(gpu: str | None = None) -> dict:
    c = synth.case(
        FORMULAS["case"],
        [
            ("base", synth.lognormal(1e-3, 0.01, 8, 1)),
            ("$\\frac$ " + FORMULAS["variant"], synth.lognormal(5e-4, 0.01, 8, 2)),
            ("oom", []),
        ],
        variant_status={"oom": "oom"},
        notes={"note": HTML + " ![t](http://evil/track.png)"},
    )
    c["variants"][2]["error"] = FORMULAS["error"]
    e = synth.experiment("eval_no_grad", [c], status="crashed", reason=HTML)
    e["title"], e["optimization"], e["output_tail"] = TITLE, "x\n- [ ] task\n> quote\n1. item", TAIL
    return synth.document([e], gpu=gpu)


OWN_TAGS = {"<details>", "</details>", "<summary>", "</summary>"}  # compare folds its tables


def _unescaped_html(text: str) -> list[str]:
    """Raw HTML tags as CommonMark would read them ('<' + a letter or '/', not backslash-escaped)
    other than the report's own."""
    return [t for t in re.findall(r"(?<!\\)<[A-Za-z/!?][^>]*>", text) if t not in OWN_TAGS]


def _fenced_block(lines: list[str], after: str) -> list[str]:
    """The lines of the fenced code block that follows the line `after`, closed where
    CommonMark closes it: the first line of as many backticks or more (up to 3 spaces before)."""
    i = lines.index(after) + 1
    while not lines[i].strip():
        i += 1
    fence = lines[i]
    assert re.fullmatch(r"`{3,}", fence), fence
    closing = re.compile(rf" {{0,3}}`{{{len(fence)},}}[ \t]*")
    end = next(j for j in range(i + 1, len(lines)) if closing.fullmatch(lines[j]))
    return lines[i + 1 : end]


def test_markdown_gets_no_structure_from_a_results_file(tmp_path, cli):
    src = synth.write(tmp_path / "r.json", _hostile_doc())
    out = tmp_path / "out"
    r = cli("render", src, "--out", out)
    assert r.rc == 0, r.err
    md, details = (out / "report.md").read_text(), (out / "report_details.md").read_text()
    for text in (md, details):
        lines = text.splitlines()
        # The title stays on its heading's line (or in its paragraph): no heading or table of its own.
        assert not any(line.lstrip().startswith("# Injected") for line in lines)
        assert not any(line.startswith(("| x | y |", "| 1 | 2 |")) for line in lines)
        # The optimization text opens no list, task box, quote or ordered list, wrapped or not.
        opt = " ".join(line for line in lines if "Optimization: " in line or line.startswith("  "))
        assert "[ ] task" in opt and "> quote" in opt
        assert not any(re.match(r"\s*(- \[ \]|> quote|1\. item)", line) for line in lines)
        # No raw HTML and no remote image reach the Markdown.
        assert _unescaped_html(text) == []
        assert "](http://evil" not in text
    assert any(line.startswith("### eval_no_grad: fine") and "Injected heading" in line for line in md.splitlines())
    # The crash output is one code block that no line of it can close.
    assert _fenced_block(details.splitlines(), "The last lines its process printed:") == [*TAIL[:-1], "a", "b"]


def test_html_escapes_what_markdown_escapes(tmp_path, cli):
    src = synth.write(tmp_path / "r.json", _hostile_doc())
    out = tmp_path / "out"
    assert cli("render", src, "--out", out, "--no-plots").rc == 0
    page = (out / "report.html").read_text()
    assert "<img src=x" not in page and "<script>alert" not in page
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in page
    assert "# after the fence" in page


def test_csv_cells_never_start_a_formula(tmp_path, cli):
    src = synth.write(tmp_path / "r.json", _hostile_doc())
    out = tmp_path / "out"
    assert cli("render", src, "--out", out, "--no-plots").rc == 0
    with open(out / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    cells = [v for row in rows for v in row.values()]
    assert not [v for v in cells if v[:1] in ("=", "+", "-", "@", "\t", "\r")], "a cell a spreadsheet would evaluate"
    assert {row["case"] for row in rows} == {"'" + FORMULAS["case"]}
    assert "'" + FORMULAS["error"] in {row["reason"] for row in rows}
    # Numbers stay numbers: a median is written as a number, not as text with a quote.
    assert all(float(row["median_s"]) > 0 for row in rows if row["variant_status"] == "ok")


def test_csv_numbers_stay_numbers():
    from report.render.render_csv import _cell

    assert _cell(-0.5) == -0.5 and _cell(3) == 3 and _cell("-0.5") == "'-0.5" and _cell("0.5") == "0.5"


def test_plot_labels_are_text_not_mathtext(tmp_path, cli):
    """A variant named "$\\frac$ ..." labels the speedup plot: as mathtext it would fail the
    whole render ('unexpected ValueError'); as text it is drawn."""
    src = synth.write(tmp_path / "r.json", _hostile_doc())
    r = cli("render", src, "--out", tmp_path / "out")
    assert r.rc == 0, r.err
    assert list((tmp_path / "out" / "plots").glob("*speedup*.png"))


def test_compare_and_gpus_markdown_escape_names(tmp_path, cli):
    """Their --markdown goes into a CI job summary: a GPU, case or variant name from the
    files must not inject HTML, headings or table rows there either."""
    gpu = "NVIDIA H100 " + HTML + "\n# Injected heading"
    a = synth.write(tmp_path / "a.json", _hostile_doc(gpu=gpu))
    b = synth.write(tmp_path / "b.json", _hostile_doc(gpu=gpu))
    for args in (["compare", a, b, "--markdown"], ["gpus", a, b, "--markdown"]):
        r = cli(*args)
        assert r.rc in (0, 1), r.err
        assert _unescaped_html(r.out) == [], args
        assert not any(line.lstrip().startswith("# Injected") for line in r.out.splitlines()), args


def test_paths_are_code_spans_that_hold(tmp_path, cli):
    """An input's path is shown as code: a backtick in it does not end the span (the
    machine's part of the path shortened, machine_paths.py)."""
    d = tmp_path / "a`b <i>"
    d.mkdir()
    src = synth.write(d / "r.json", synth.simple_doc([1e-3, 1.1e-3], [5e-4, 6e-4]))
    assert cli("render", src, "--out", tmp_path / "out", "--no-plots").rc == 0
    md = (tmp_path / "out" / "report.md").read_text()
    assert "``…/a`b <i>/r.json``" in md
    assert str(tmp_path) not in md
