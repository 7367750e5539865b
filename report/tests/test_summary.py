"""The first screen (issue #32, item 6; issue 38, items 1 and 4): the summary first, its
ranking the claims that were judged (decided, then inconclusive, each by the estimate)
with each claim's figures, the unjudged listed below it with why; no reference variant
in it; several runs side by side with what moved; no path of the measuring machine in
what is rendered. Checked on the render of every committed results file (results/, and
the GPU runs kept as fixtures) and on planted cases. The glossary: test_glossary.py."""

import gzip
import json
import re
from pathlib import Path

import pytest
import synth
from conftest import FIXTURES, REPO

from report.claims.judge import evaluate
from report.claims.verdicts import DRAWN, INCONCLUSIVE, NOT_MEASURABLE
from report.load.results import load_inputs
from report.load.versions import TABLE
from report.render.command import render
from report.render.machine_paths import paths_in, shown
from report.render.summary import RunClaims, summarize
from report.render.verdict_words import ONE_PROCESS, why_text

COMMITTED = (
    sorted((REPO / "results").glob("*.json"))
    + sorted((FIXTURES / "h100_2026-11-24").glob("*.json.gz"))
    + sorted((FIXTURES / "cpu_shared_2core").glob("*.json.gz"))
)
BREAKDOWN_RUN = REPO / "results" / "2026-11-25_cpu_amd-epyc-2core_libtorch-2.11_breakdown.json"
COUNTED_RUN = REPO / "results" / "2026-11-26_cpu_amd-epyc-2core_libtorch-2.11_breakdown.json"  # with counters


def _load(path: Path) -> dict:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def renders(tmp_path_factory):
    """{path: (results document, report.md, report.html, report_details.md)} of every committed optbench file."""
    out = {}
    for i, path in enumerate(COMMITTED):
        doc = _load(path)
        if "experiments" not in doc:  # a Google Benchmark file or a probe's: no claims
            continue
        d = tmp_path_factory.mktemp(f"r{i}")
        inputs = load_inputs([str(path)], allow_gbench=True)  # read as the report reads it (versions.py)
        written = render(inputs, d, plots=False)
        out[path] = (
            inputs[0].doc,
            written["markdown"].read_text(),
            written["html"].read_text(),
            written["details"].read_text(),
        )
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
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append(cells(row))
            out.append((heading, cells(line), rows))
    return out


def cells(line: str) -> list[str]:
    return [c.strip().replace("\\", "") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def figures(text: str) -> tuple[str, str, str] | None:
    """('1.64', '1.55', '1.69') of '1.64× [1.55, 1.69] ...' or 'confirmed: 1.64 [1.55, 1.69]';
    None for a cell with no speedup."""
    text = text.split(": ", 1)[1] if re.match(r"[a-z ]+: \d", text) else text
    m = re.match(r"([\d.e+-]+)×?", text)
    ci = re.search(r"\[([\d.e+-]+),\s*([\d.e+-]+)\]", text)
    if not m or text.startswith("—"):
        return None
    return (m.group(1), *(ci.groups() if ci else ("", "")))


def summary_tables(md: str):
    """The ranking table and the unjudged one under it ((heading, headers, rows) or None)."""
    section = "## Summary" + md.split("## Summary", 1)[1].split("\n## ", 1)[0]
    ranked, _, rest = section.partition("Not judged here")
    first = [t for t in tables(ranked) if t[0] == "## Summary"]
    second = tables("## Summary\n" + rest) if rest else []
    return (first[0] if first else None), (second[0] if second else None)


def test_the_summary_is_the_first_section_and_table(renders):
    for path, (_, md, html, _) in renders.items():
        assert re.findall(r"^## .*", md, re.M)[0] == "## Summary", path
        assert tables(md)[0][0] == "## Summary", path
        assert html.index("<h2>Summary</h2>") < html.index("<table")


def _sig_of(x, bounds=()) -> str:
    """As the summary prints a claim's figure: to 3 digits, or more where 3 would put it
    on or across a bound its verdict is drawn against."""
    from report.render.fmt import sig_apart

    return sig_apart(x, bounds)


def test_the_summary_ranks_what_was_judged_and_lists_the_rest(renders):
    """Every claim once: in the ranking where its verdict was drawn or inconclusive (decided
    first, then inconclusive, each by the estimate), in the unjudged table where it was
    not measurable but measured, else in the 'Not measured' list; each figure the claim's."""
    for path, (doc, md, _, _) in renders.items():
        results = {cr.claim["id"]: cr for cr in evaluate(doc)}
        ranking, unjudged = summary_tables(md)
        ranked = [r[0] for r in ranking[2]] if ranking else []
        listed = [r[0] for r in unjudged[2]] if unjudged else []
        judged = {c for c, cr in results.items() if cr.verdict.verdict in (*DRAWN, INCONCLUSIVE)}
        assert set(ranked) == judged, path
        assert set(listed) == {c for c, cr in results.items() if c not in judged and cr.m is not None}, path
        not_measured = md.split("Not measured:", 1)[1].split("##", 1)[0] if "Not measured:" in md else ""
        for c, cr in results.items():
            if c not in judged and cr.m is None:
                assert re.search(rf"^- [^:]*\b{c}\b", not_measured.replace("\\_", "_"), re.M), (path, c)
        for _, sh, rows in (t for t in (ranking, unjudged) if t):
            for r in rows:
                cr = results[r[0]]
                fig = figures(r[sh.index("speedup × [CI]")])
                assert fig[0] == _sig_of(cr.m.speedup, cr.bounds), (path, r)
                if cr.m.ci_low is not None:
                    assert fig[1:] == (_sig_of(cr.m.ci_low, cr.bounds), _sig_of(cr.m.ci_high, cr.bounds)), (path, r)
                verdict = r[sh.index("verdict")]
                assert verdict == cr.verdict.verdict or verdict.startswith(cr.verdict.verdict + ": "), (path, r)
        if ranking:
            decided = [results[c].verdict.verdict in DRAWN for c in ranked]
            assert decided == sorted(decided, reverse=True), path  # the decided first
            for group in (True, False):
                values = [results[c].m.speedup for c, d in zip(ranked, decided) if d == group]
                assert values == sorted(values, reverse=True), path
        for c in listed:
            assert results[c].verdict.verdict == NOT_MEASURABLE


def test_the_breakdown_run_summary(renders):
    """The committed CPU run with breakdowns: mechanisms where its whys have one, and the
    reference loops (the longest bar, workers_2_data_only 2.93×) nowhere in the summary."""
    doc, md, _, _ = renders[BREAKDOWN_RUN]
    (_, sh, srows), (_, uh, urows) = summary_tables(md)
    rows = {r[0]: r for r in srows}
    assert "mechanism" in sh and sum(bool(r[sh.index("mechanism")]) for r in srows) >= 3
    assert "mechanism" in uh and sum(bool(r[uh.index("mechanism")]) for r in urows) >= 3
    # its rows judged apart: the mechanism of the row the figure shows. One process: each row is
    # inconclusive for that (claims.ONE_PROCESS), so the figure is the first undecided row's (workers_0)
    r = next(x for x in evaluate(doc) if x.claim["id"] == "reduce_cpu_bottlenecks")
    assert r.verdict.verdict == INCONCLUSIVE and ONE_PROCESS in why_text(r.verdict)
    assert all(why_text(e.verdict) == ONE_PROCESS for e in r.evidence)
    assert r.decisive is r.evidence[0] and r.decisive.case == "workers_0"
    assert rows["reduce_cpu_bottlenecks"][sh.index("mechanism")].startswith("workers_0: outside operators -53%")
    assert figures(rows["num_workers"][sh.index("speedup × [CI]")])[0] == "1.64"  # workers_2, not its data-only loop
    references = {
        v["name"]
        for e in doc["experiments"]
        for c in e.get("cases") or []
        for v in c.get("variants") or []
        if v.get("role") == "reference"
    }
    assert "workers_2_data_only" in references
    summary_text = md.split("## Summary", 1)[1].split("\n## ", 1)[0]
    assert not [n for n in references if n in summary_text.replace("\\_", "_")]
    assert "2.93" not in summary_text


def _mechanisms(md: str) -> dict:
    out = {}
    for t in summary_tables(md):
        if t:
            out.update({r[0]: r[t[1].index("mechanism")] for r in t[2]})
    return out


def test_the_mechanism_leads_with_the_experiments_counter_as_its_why_does(renders):
    """Where an experiment names the counter that carries its claim and the why leads with
    it, the summary's mechanism is that count, not a time share after it."""
    mech = _mechanisms(renders[COUNTED_RUN][1])
    assert re.match(r"optimizer_step_mlp_depth32_w64: optimizer operator calls ", mech["kernel_fusion"])
    assert re.match(r"[a-z0-9_]+: fill operations ", mech["zero_grad_set_to_none"])


@pytest.mark.skipif(
    "eval_no_grad" not in TABLE,
    reason="eval_no_grad's variants declare no grad_mode yet (report/load/versions.py): the no_grad claim "
    "has no variant of its own",
)
def test_the_no_grad_claims_mechanism_is_its_own_variants(renders):
    mech = _mechanisms(renders[COUNTED_RUN][1])
    assert mech["no_grad_eval"].startswith("autograd nodes recorded ")
    assert mech["no_grad_eval"].endswith("-> 0 per step")


def test_a_reference_faster_than_every_option_is_never_the_summary_figure(tmp_path, cli):
    c = synth.case(
        "workers",
        [
            ("workers_0", synth.lognormal(4e-3, 0.01, 12, 1)),
            ("workers_2", synth.lognormal(2e-3, 0.01, 12, 2)),
            ("no_loader", synth.lognormal(1e-3, 0.01, 12, 3)),
        ],
        roles={"no_loader": "reference"},
    )
    for v, w in zip(c["variants"], (0, 2, None)):  # the reference is a training loop too
        v["params"] = {"loop": "train", "workers": w} if w is not None else {"loop": "train"}
    src = synth.write(
        tmp_path / "r.json", synth.document([synth.experiment("dataloader", [c], ["num_workers"])], gpu=None)
    )
    assert cli("render", src, "--out", tmp_path / "out", "--no-plots").rc == 0
    md = (tmp_path / "out" / "report.md").read_text()
    (_, sh, srows), _ = summary_tables(md)
    (row,) = srows
    assert row[0] == "num_workers" and 1.9 < float(figures(row[sh.index("speedup × [CI]")])[0]) < 2.1


def test_no_path_of_the_measuring_machine_is_rendered(renders):
    for path, (doc, md, html, details) in renders.items():
        text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]*", "", html)
        for out in (md, text, details):
            assert "/tmp/" not in out, path
            for p in paths_in(doc):
                assert p not in out, (path, p)


def test_machine_paths_are_cut_to_their_last_component():
    assert shown("--out /tmp/res/zero_grad.json --device cpu") == "--out …/zero_grad.json --device cpu"
    assert shown("cache = /root/.cache/optbench/aoti/6fc45e4c0f0935b0") == "cache = …/…"  # a key is no name
    assert shown("12.1 ms/step, 3 GB/s, results/x.json, a/b") == "12.1 ms/step, 3 GB/s, results/x.json, a/b"


def test_runs_whose_processes_disagree_are_inconclusive_not_a_flip(tmp_path, cli):
    """Two runs of the shared 2-core VM whose zero_grad once read 'confirmed' in one and
    'not reproduced' in the other: on the between-process interval both are inconclusive,
    and the one summary, a column per run, says so; nothing moved."""
    runs = [FIXTURES / "cpu_shared_2core" / f"cpu_{x}.json.gz" for x in "ab"]
    assert cli("render", *runs, "--out", tmp_path / "out", "--no-plots").rc == 0
    md = (tmp_path / "out" / "report.md").read_text()
    assert md.count("## Summary") == 1
    (_, sh, srows), _ = summary_tables(md)
    assert sh[:6] == ["claim", "optimization", "claimed", "run 1", "run 2", "moved?"]
    row = {r[0]: r for r in srows}["zero_grad_set_to_none"]
    assert row[3].startswith("inconclusive: ") and row[4].startswith("inconclusive: ")
    assert row[5] == "no"
    # one run alone: no column of runs, no moved?
    assert cli("render", runs[0], "--out", tmp_path / "one", "--no-plots").rc == 0
    (_, sh, _), _ = summary_tables((tmp_path / "one" / "report.md").read_text())
    assert "moved?" not in sh and "run 1" not in sh


def _workers_run(times: tuple[float, float], seed: int) -> list:
    """A num_workers claim (1.20-1.50x) measured at base / opt over 20 rounds, in 3 processes."""
    c = synth.case(
        "workers",
        [
            ("workers_0", synth.lognormal(times[0], 0.005, 20, seed)),
            ("workers_2", synth.lognormal(times[1], 0.005, 20, seed + 1)),
        ],
        processes=3,
    )
    for v, w in zip(c["variants"], (0, 2)):
        v["params"] = {"loop": "train", "workers": w, "prefetch": 2, "pinned": False}
    return evaluate(synth.document([synth.experiment("dataloader", [c], ["num_workers"])], gpu=None))


def _moved(*runs) -> str:
    sm = summarize([RunClaims(f"run {i + 1}", r, device="CPU x") for i, r in enumerate(runs)])
    return next(r for r in sm.rows if r.claim == "num_workers").moved


def test_moved_is_judged_on_the_verdict_and_on_overlapping_intervals():
    confirmed, exceeded = _workers_run((1.45, 1.0), 1), _workers_run((1.55, 1.0), 3)
    assert {r.claim["id"]: r.verdict.verdict for r in confirmed}["num_workers"] == "confirmed"
    assert {r.claim["id"]: r.verdict.verdict for r in exceeded}["num_workers"] == "exceeded"
    # confirmed against exceeded is the same outcome; but these intervals do not overlap
    assert _moved(confirmed, exceeded).startswith("estimate: CIs apart, run 1 [1.4")
    near = _workers_run((1.505, 1.0), 5)  # exceeded too, its interval reaching 1.5
    assert _moved(near, _workers_run((1.50, 1.0), 7)) == "no"
    # different outcomes: each run's named (and their intervals apart too)
    assert _moved(confirmed, _workers_run((1.0, 1.0), 9)).startswith(
        "outcome: run 1 as claimed or more, run 2 no effect; estimate: CIs apart"
    )
    # one run: nothing to compare
    sm = summarize(confirmed, False)
    assert sm.headers == ["claim", "optimization", "claimed", "speedup × [CI]", "verdict"]
    # runs of two devices are not compared with each other
    two = summarize([RunClaims("run 1", confirmed, device="CPU x"), RunClaims("run 2", exceeded, device="GPU y")])
    assert next(r for r in two.rows if r.claim == "num_workers").moved == "—"


def test_the_committed_pair_renders_as_one_report(tmp_path, cli):
    """Issue 38's pair: one summary with a column per run and moved?, every experiment's
    comparisons side by side, report.md short enough to finish, its prose in short lines."""
    pair = [
        REPO / "results" / f"2026-11-26_cpu_amd-epyc-2core_libtorch-2.11_processes{s}.json" for s in ("", "_second")
    ]
    out = tmp_path / "out"
    assert cli("render", *pair, "--out", out, "--no-plots").rc == 0
    md = (out / "report.md").read_text()
    lines = md.splitlines()
    assert len(lines) <= 300, len(lines)
    assert [line for line in lines if len(line) > 200 and not line.startswith("|")] == []
    assert md.count("## Summary") == 1 and md.count("## Experiments") == 1
    (_, sh, srows), (_, uh, urows) = summary_tables(md)
    assert sh == ["claim", "optimization", "claimed", "run 1", "run 2", "moved?", "mechanism"]
    assert {r[5] for r in srows} >= {"no"} and all(r[5] for r in srows)
    moved = {r[0]: r[5] for r in srows}
    assert moved["torch_compile"] == "verdict: inconclusive in run 1"
    for r in srows:  # each run's cell is that run's claim
        assert re.match(r"(confirmed|exceeded|smaller than claimed|no effect|slower|inconclusive): \d", r[3]), r
    # an experiment's comparisons side by side: a row per comparison, a column per run
    zero = next(t for t in tables(md) if t[0].startswith("### zero_grad"))
    assert zero[1] == ["case", "variant", "run 1 speedup [CI]", "run 2 speedup [CI]", "moved?"]
    assert [r[:2] for r in zero[2]] == [["gpt_l6_h32_s16_b2", "set_to_none"], ["mlp_depth16_w64_b32", "set_to_none"]]
    assert zero[2][1][4].startswith("estimate: CIs apart")
    details = (out / "report_details.md").read_text()
    assert "[report_details.md](report_details.md)" in md and "#### zero_grad, run 2" in details
    for name in ("Time per case:", "Notes:", "minor page faults per step", "profiled: "):
        assert name not in md and name in details, name
