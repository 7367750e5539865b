"""The first screen (issue #32, item 6): the summary table first, its rows the claims
table's figures, no reference variant in it; a glossary for every term the report uses;
no path of the measuring machine in what is rendered. Checked on the render of every
committed results file (results/, and the GPU runs kept as fixtures) and on planted cases."""
import gzip
import json
import re
from pathlib import Path

import pytest
import synth
from conftest import FIXTURES, REPO

from report.glossary import TERMS, lookup, undefined, used
from report.migrate import TABLE
from report.machine_paths import paths_in, shown
from report.render import render
from report.results import load_inputs
from report.summary import first_phrase
from report.verdicts import ALL as VERDICTS

COMMITTED = sorted((REPO / "results").glob("*.json")) + sorted((FIXTURES / "h100_2026-11-24").glob("*.json.gz")) \
    + sorted((FIXTURES / "cpu_shared_2core").glob("*.json.gz"))
BREAKDOWN_RUN = REPO / "results" / "2026-11-25_cpu_amd-epyc-2core_libtorch-2.11_breakdown.json"
COUNTED_RUN = REPO / "results" / "2026-11-26_cpu_amd-epyc-2core_libtorch-2.11_breakdown.json"  # with counters


def _load(path: Path) -> dict:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def renders(tmp_path_factory):
    """{path: (results document, report.md, report.html)} of every committed optbench file."""
    out = {}
    for i, path in enumerate(COMMITTED):
        doc = _load(path)
        if "experiments" not in doc:  # a Google Benchmark file or a probe's: no claims
            continue
        d = tmp_path_factory.mktemp(f"r{i}")
        written = render(load_inputs([str(path)], allow_gbench=True), d, plots=False)
        out[path] = (doc, written["markdown"].read_text(), written["html"].read_text())
    assert BREAKDOWN_RUN in out
    return out


def tables(md: str) -> list[tuple[str, list[str], list[list[str]]]]:
    """(the heading above it, headers, rows) of every Markdown table."""
    out, heading, lines = [], "", md.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("#"):
            heading = line
        if line.startswith("|") and i + 1 < len(lines) and re.fullmatch(r"\|(?:-+\|)+", lines[i + 1]):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(cells(row))
            out.append((heading, cells(line), rows))
    return out


def cells(line: str) -> list[str]:
    return [c.strip().replace("\\", "") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def figures(text: str) -> tuple[str, str, str] | None:
    """('1.64', '1.55', '1.69') of '1.64× [1.55, 1.69] ...', or of '1.18× geometric mean ...
    95% bootstrap CI [1.18, 1.19]'; None for a cell with no speedup."""
    m = re.match(r"([\d.e+-]+)×?", text)
    ci = re.search(r"\[([\d.e+-]+),\s*([\d.e+-]+)\]", text)
    if not m or text.startswith("—"):
        return None
    return (m.group(1), *(ci.groups() if ci else ("", "")))


def summary_and_claims(md: str):
    ts = tables(md)
    summary = next(t for t in ts if t[0] == "### Summary")
    claims = next(t for t in ts if t[0] == "### Checklist claims")
    return summary, claims


def test_the_summary_is_the_first_table_and_section(renders):
    for path, (_, md, html) in renders.items():
        after_results = md.split("## Results:", 1)[1]
        assert re.findall(r"^### .*", after_results, re.M)[0] == "### Summary", path
        assert tables(md)[0][0] == "### Summary", path
        assert html.index("<h3>Summary</h3>") < html.index("<table")


def test_summary_rows_are_the_claims_tables_figures_and_verdicts(renders):
    for path, (_, md, _) in renders.items():
        (_, sh, srows), (_, ch, crows) = summary_and_claims(md)
        claims = {r[0]: r for r in crows}
        measured = {cid for cid, r in claims.items() if figures(r[ch.index("measured speedup (one case, or geometric "
                                                                             "mean over cases)")])}
        assert {r[0] for r in srows} == measured, path
        for r in srows:
            c = claims[r[0]]
            speedup = c[[h.startswith("measured speedup") for h in ch].index(True)]
            assert figures(r[sh.index("speedup × [CI]")]) == figures(speedup), (path, r[0])
            verdict = r[sh.index("verdict")]
            assert verdict == c[ch.index("verdict")] or verdict.startswith(c[ch.index("verdict")] + ": "), (path, r)
        # sorted by effect, fastest first
        values = [float(figures(r[sh.index("speedup × [CI]")])[0]) for r in srows]
        assert values == sorted(values, reverse=True), path


def test_the_breakdown_run_summary(renders):
    """The committed CPU run with breakdowns: mechanisms where its whys have one, and the
    reference loops (the longest bar, workers_2_data_only 2.93×) nowhere in the summary."""
    doc, md, _ = renders[BREAKDOWN_RUN]
    (_, sh, srows), _ = summary_and_claims(md)
    rows = {r[0]: r for r in srows}
    assert "mechanism" in sh and sum(bool(r[sh.index("mechanism")]) for r in srows) >= 5
    # its rows judged apart: the mechanism of the row the figure shows, the weaker (2 workers)
    assert rows["reduce_cpu_bottlenecks"][sh.index("mechanism")].startswith("workers_2: outside operators -59%")
    assert figures(rows["num_workers"][sh.index("speedup × [CI]")])[0] == "1.64"  # workers_2, not its data-only loop
    references = {v["name"] for e in doc["experiments"] for c in e.get("cases") or []
                  for v in c.get("variants") or [] if v.get("role") == "reference"}
    assert "workers_2_data_only" in references
    summary_text = md.split("### Summary", 1)[1].split("###", 1)[0]
    assert not [n for n in references if n in summary_text.replace("\\_", "_")]
    assert "2.93" not in summary_text


def test_the_mechanism_leads_with_the_experiments_counter_as_its_why_does(renders):
    """Where an experiment names the counter that carries its claim and the why leads with
    it, the summary's mechanism is that count, not a time share after it."""
    _, md, _ = renders[COUNTED_RUN]
    (_, sh, srows), _ = summary_and_claims(md)
    mech = {r[0]: r[sh.index("mechanism")] for r in srows}
    assert re.match(r"optimizer_step_mlp_depth32_w64: optimizer operator calls ", mech["kernel_fusion"])
    assert re.match(r"[a-z0-9_]+: fill operations ", mech["zero_grad_set_to_none"])


@pytest.mark.skipif("eval_no_grad" not in TABLE, reason="eval_no_grad's variants declare no grad_mode yet "
                                                         "(report/migrate.py): the no_grad claim has no variant of its own")
def test_the_no_grad_claims_mechanism_is_its_own_variants(renders):
    _, md, _ = renders[COUNTED_RUN]
    (_, sh, srows), _ = summary_and_claims(md)
    mech = {r[0]: r[sh.index("mechanism")] for r in srows}
    assert mech["no_grad_eval"].startswith("autograd nodes recorded ") and mech["no_grad_eval"].endswith("-> 0 per step")


def test_a_reference_faster_than_every_option_is_never_the_summary_figure(tmp_path, cli):
    c = synth.case("workers", [("workers_0", synth.lognormal(4e-3, 0.01, 12, 1)),
                               ("workers_2", synth.lognormal(2e-3, 0.01, 12, 2)),
                               ("no_loader", synth.lognormal(1e-3, 0.01, 12, 3))], roles={"no_loader": "reference"})
    for v, w in zip(c["variants"], (0, 2, None)):  # the reference is a training loop too
        v["params"] = {"loop": "train", "workers": w} if w is not None else {"loop": "train"}
    src = synth.write(tmp_path / "r.json", synth.document([synth.experiment("dataloader", [c], ["num_workers"])],
                                                          gpu=None))
    assert cli("render", src, "--out", tmp_path / "out", "--no-plots").rc == 0
    md = (tmp_path / "out" / "report.md").read_text()
    (_, sh, srows), _ = summary_and_claims(md)
    row, = srows
    assert row[0] == "num_workers" and 1.9 < float(figures(row[sh.index("speedup × [CI]")])[0]) < 2.1


def test_no_path_of_the_measuring_machine_is_rendered(renders):
    for path, (doc, md, html) in renders.items():
        text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]*", "", html)
        for out in (md, text):
            assert "/tmp/" not in out, path
            for p in paths_in(doc):
                assert p not in out, (path, p)


def test_machine_paths_are_cut_to_their_last_component():
    assert shown("--out /tmp/res/zero_grad.json --device cpu") == "--out …/zero_grad.json --device cpu"
    assert shown("cache = /root/.cache/optbench/aoti/6fc45e4c0f0935b0") == "cache = …/…"  # a key is no name
    assert shown("12.1 ms/step, 3 GB/s, results/x.json, a/b") == "12.1 ms/step, 3 GB/s, results/x.json, a/b"


def test_every_term_the_report_uses_is_defined_once(renders):
    for path, (_, md, _) in renders.items():
        assert undefined(md) == [], path
        body, glossary = md.split("### Glossary", 1)[0], md.split("### Glossary", 1)[1].split("\n### ", 1)[0]
        body += md.split("### Glossary", 1)[1].split("\n### ", 1)[1]
        listed = re.findall(r"^- \*\*(.+?)\*\*:", glossary, re.M)
        assert len(listed) == len(set(listed)), path
        # each term found in the body is listed, and only those
        assert [t.name for t in TERMS if t.regex.search(body)] == [n.replace("\\", "") for n in listed], path


def test_an_undefined_header_or_verdict_is_caught(renders):
    _, md, _ = renders[BREAKDOWN_RUN]
    planted = md + "\n| case | wobble factor | `from_the_file` |\n|---|---|---|\n| a | b | c |\n"
    assert undefined(planted) == ["wobble factor"]
    planted = md.replace("| confirmed |", "| half-confirmed |", 1)
    assert undefined(planted) == ["half-confirmed"]


def test_every_verdict_and_header_the_code_can_write_is_defined():
    from report.cells import CLAIM_HEADERS, experiment_headers
    from report.summary import HEADERS

    t = {"unit": "GB/s", "has_items": True, "has_why": True, "has_peak": True}
    for phrase in [*VERDICTS, *CLAIM_HEADERS, *experiment_headers(t), *HEADERS]:
        assert lookup(phrase) is not None, phrase
    assert used("no effect") == [t for t in TERMS if t.name == "no effect"]
    assert not [t for t in TERMS if t.name in ("not reproduced", "unstable between processes", "best of m")]


def test_the_mechanism_is_the_whys_first_phrase_without_its_detail():
    why = ("matrix multiply -12% (1.55 -> 1.37 ms/step) accounts for 99% of the 188 µs/step saved (timed, per "
           "baseline step of work; they moved 2 ms/step); outside operators 0% -> 0%; profiled: 20 steps")
    assert first_phrase(why) == "matrix multiply -12% accounts for 99% of the 188 µs/step saved"


def test_runs_whose_processes_disagree_are_inconclusive_not_a_flip(tmp_path, cli):
    """Two runs of the shared 2-core VM whose zero_grad once read 'confirmed' in one and
    'not reproduced' in the other: on the between-process interval both are inconclusive,
    and the reproduced cell says so."""
    runs = [FIXTURES / "cpu_shared_2core" / f"cpu_{x}.json.gz" for x in "ab"]
    assert cli("render", *runs, "--out", tmp_path / "out", "--no-plots").rc == 0
    md = (tmp_path / "out" / "report.md").read_text()
    for s in md.split("## Results:")[1:]:
        (_, sh, srows), _ = summary_and_claims("### x\n" + s)
        cells_of = {r[0]: (r[sh.index("verdict")], r[sh.index("reproduced")]) for r in srows}
        assert cells_of["zero_grad_set_to_none"] == ("inconclusive", "no: inconclusive in input 1, input 2")
    # one run alone: no claim of reproduction either way
    assert cli("render", runs[0], "--out", tmp_path / "one", "--no-plots").rc == 0
    one = (tmp_path / "one" / "report.md").read_text()
    (_, sh, srows), _ = summary_and_claims(one)
    assert {r[sh.index("reproduced")] for r in srows} <= {"this run only", "—"}


def _workers_run(times: tuple[float, float], seed: int) -> list:
    """A num_workers claim (1.20-1.50x) measured at base / opt over 20 rounds."""
    from report.claims import evaluate
    c = synth.case("workers", [("workers_0", synth.lognormal(times[0], 0.005, 20, seed)),
                               ("workers_2", synth.lognormal(times[1], 0.005, 20, seed + 1))])
    for v, w in zip(c["variants"], (0, 2)):
        v["params"] = {"loop": "train", "workers": w, "prefetch": 2, "pinned": False}
    return evaluate(synth.document([synth.experiment("dataloader", [c], ["num_workers"])], gpu=None))


def _reproduced(*runs) -> str:
    from report.summary import mark_reproduced, summarize
    sm = summarize(runs[0], False)
    mark_reproduced(sm, [(f"input {i + 1}", r) for i, r in enumerate(runs)])
    return next(r for r in sm.rows if r.claim == "num_workers").reproduced


def test_reproduced_is_judged_on_the_outcome_and_on_overlapping_intervals():
    confirmed, exceeded = _workers_run((1.45, 1.0), 1), _workers_run((1.55, 1.0), 3)
    assert {r.claim["id"]: r.verdict.verdict for r in confirmed}["num_workers"] == "confirmed"
    assert {r.claim["id"]: r.verdict.verdict for r in exceeded}["num_workers"] == "exceeded"
    # confirmed against exceeded is the same outcome; but these intervals do not overlap
    assert _reproduced(confirmed, exceeded).startswith("no: intervals apart, input 1 [1.4")
    near = _workers_run((1.505, 1.0), 5)  # exceeded too, its interval reaching 1.5
    assert _reproduced(near, _workers_run((1.50, 1.0), 7)) == "yes: as claimed or more in 2 of 2 runs, intervals overlap"
    # different outcomes: unstable, each run's named
    assert _reproduced(confirmed, _workers_run((1.0, 1.0), 9)) == \
        "no, unstable: input 1 as claimed or more; input 2 no effect"
