"""No ratio without rounds: a speedup from fewer interleaved rounds than the floor
(rounds.py, 6 at 95%) is shown with its n and no CI in every output (Markdown,
HTML, CSV, plots, the gpus table), and no claim verdict or regression verdict
rests on it. Synthetic boundary (5 rounds: no CI; 6: a CI), then the real H100
files of 2026-11-24, whose budget runs left whole experiments at one round."""

import csv
import html
import re

import pytest
import synth
from conftest import REPO

from report.claims.judge import evaluate, evaluate_claim, load_claims
from report.claims.verdicts import CONFIRMED, DRAWN, INCONCLUSIVE, NOT_MEASURABLE
from report.gate.compare import NA, Settings, compare_docs
from report.gpu.gpus import build
from report.load.document import Document
from report.load.results import load_results
from report.render.fmt import sig
from report.render.plots import speedup_points
from report.render.verdict_words import ONE_PROCESS, why_text
from report.statistics.measurement import PROCESS
from report.statistics.multiplicity import rounds_floor
from report.statistics.stats import median_ci


def claim(cid):
    return next(c for c in load_claims() if c["id"] == cid)


def test_floor_is_where_a_95_percent_order_statistic_interval_first_exists():
    floor = rounds_floor(0.95)
    coverage = [1 - 2 * 0.5**n for n in (floor - 1, floor)]
    assert floor == 6 and coverage[0] < 0.95 <= coverage[1]
    assert median_ci([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])[1:] == (1.0, 6.0)  # at the floor: [min, max]


def zero_grad_doc(rounds_per_case, processes=None):
    """zero_grad cases (set_to_none 1.5x faster than zeroing), one per entry, with that many
    rounds; processes=K: the cases at or above the floor (6 rounds) measured in K processes,
    those below it in one (whose first process has no CI, as the floor is about)."""
    cases = [
        synth.case(
            f"r{n}",
            [("zeroing", synth.lognormal(1.5, 0.02, n, n)), ("set_to_none", synth.lognormal(1.0, 0.02, n, 100 + n))],
            processes=processes if n >= rounds_floor(0.95) else None,
        )
        for n in rounds_per_case
    ]
    return synth.document([synth.experiment("zero_grad", cases, ["zero_grad_set_to_none"])], gpu=synth.H100)


def _table_rows(lines: list[str]) -> list[list[str]]:
    return [[c.strip() for c in line.strip().strip("|").split(" | ")] for line in lines]


def md_speedups(md):
    """{(experiment, case, variant): speedup cell} from every run's whole table of each
    experiment (report_details.md: '### name', with several runs '#### name, run N')."""
    out = {}
    lines = md.splitlines()
    exp = None
    for i, line in enumerate(lines):
        if line.startswith(("### ", "#### ")):
            exp = line.split(" ", 1)[1].split(",")[0].split(":")[0]
        elif line.startswith("| ") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            head = _table_rows([line])[0]
            if "speedup [CI]" not in head:
                continue
            body = []
            for row in lines[i + 2 :]:
                if not row.startswith("| "):
                    break
                body.append(row)
            out.update({(exp, r[0], r[1]): r[head.index("speedup [CI]")] for r in _table_rows(body)})
    return out


def html_speedups(text):
    """The same from the HTML's tables (the main one of a single run, and the whole ones
    folded under each experiment)."""
    out = {}
    for section in text.split('<h3 id="x-')[1:]:
        exp = html.unescape(section.split('"', 1)[0])
        for tbl in section.split("</table>")[:-1]:
            rows = [
                [html.unescape(c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr)]
                for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", tbl)
            ]
            if rows and "speedup [CI]" in rows[0]:
                col = rows[0].index("speedup [CI]")
                out.update({(exp, r[0], r[1]): r[col] for r in rows[1:]})
    return out


def csv_rows(path):
    with open(path, newline="") as f:
        return {r["case"]: r for r in csv.DictReader(f) if r["variant"] == "set_to_none"}


def test_boundary_5_rounds_no_ci_6_rounds_ci(tmp_path, cli):
    doc = zero_grad_doc([5, 6])
    s5 = doc["experiments"][0]["cases"][0]["comparisons"][0]
    assert s5["ci_low"] < s5["ci_high"]  # synth writes a CI for 5 rounds, as older files did
    out = tmp_path / "out"
    assert cli("render", synth.write(tmp_path / "r.json", doc), "--out", out).rc == 0
    md, page = (out / "report_details.md").read_text(), (out / "report.html").read_text()
    for cells in (md_speedups(md), md_speedups((out / "report.md").read_text()), html_speedups(page)):
        assert cells[("zero_grad", "r5", "set_to_none")] == f"{sig(s5['speedup'])}× (n = 5, no CI)"
        assert re.fullmatch(r"1\.\d+× \[1\.\d+, 1\.\d+\]", cells[("zero_grad", "r6", "set_to_none")])
    for text in (md, page, (out / "report.md").read_text()):
        assert f"[{sig(s5['ci_low'])}, {sig(s5['ci_high'])}]" not in text
    rows = csv_rows(out / "results.csv")
    assert (rows["r5"]["ci_low"], rows["r5"]["ci_high"], rows["r5"]["rounds"], rows["r5"]["below_floor"]) == (
        "",
        "",
        "5",
        "True",
    )
    assert rows["r6"]["ci_low"] and rows["r6"]["ci_high"] and rows["r6"]["rounds"] == "6"
    assert rows["r6"]["below_floor"] == "False"
    points = {label.split(":")[0]: (m.ci_low, m.ci_high) for label, m in speedup_points(Document(doc).experiments[0])}
    assert points["r5"] == (None, None) and None not in points["r6"]


def test_boundary_verdicts():
    r5 = evaluate_claim(claim("zero_grad_set_to_none"), zero_grad_doc([5]))
    assert r5.verdict.verdict == INCONCLUSIVE and "n = 5" in why_text(r5.verdict)
    assert r5.m.speedup == pytest.approx(1.5, rel=0.05) and r5.m.ci_low is None
    # the floor's reason comes first: below it, the rounds are named, not the one process
    assert ONE_PROCESS not in why_text(r5.verdict)
    # at the floor, one process: a CI, but no verdict from one process's interval
    r6 = evaluate_claim(claim("zero_grad_set_to_none"), zero_grad_doc([6]))
    assert r6.m.ci_low > 1 and r6.verdict.verdict == INCONCLUSIVE and why_text(r6.verdict) == ONE_PROCESS
    # at the floor, in 3 processes: the interval decides
    r6 = evaluate_claim(claim("zero_grad_set_to_none"), zero_grad_doc([6], processes=3))
    assert r6.verdict.verdict == CONFIRMED and r6.m.ci_low > 1


def test_pooled_claim_leaves_cases_below_the_floor_out():
    doc = zero_grad_doc([3, 6, 20], processes=3)  # r3 in one process, below the floor
    doc["experiments"][0]["cases"][0]["variants"][1]["samples"]["host_s"] = [0.1] * 3  # 15x, 3 rounds
    doc["experiments"][0]["cases"][0]["comparisons"][0]["speedup"] = 15.0
    pooled = {**claim("zero_grad_set_to_none"), "pool": True}  # replicate cases (claims.json pool)
    r = evaluate_claim(pooled, doc)
    assert len(r.evidence) == 3 and [e.case for e in r.left_out] == ["r3"]
    assert r.high < 2  # the 15x point moves neither the range nor the median
    assert r.verdict.verdict == CONFIRMED and "left out, below the rounds floor: 1 case (n = 3)" in why_text(r.verdict)
    assert r.m.unit == PROCESS and r.m.n == 3  # pooled per process over r6 and r20
    assert any("r3" in n and "rounds floor" in n for n in r.notes)
    every = evaluate_claim(pooled, zero_grad_doc([1, 3, 5]))
    assert every.verdict.verdict == INCONCLUSIVE and "n = 1–5" in why_text(every.verdict)
    assert every.m.ci_low is None and every.m.ci_high is None
    # judged apart (the default), a row below the floor is inconclusive, and so is the claim
    apart = evaluate_claim(claim("zero_grad_set_to_none"), doc)
    assert [e.verdict.verdict for e in apart.evidence] == [INCONCLUSIVE, CONFIRMED, CONFIRMED]
    assert apart.verdict.verdict == INCONCLUSIVE and apart.decisive.case == "r3" and "n = 3" in why_text(apart.verdict)


def test_harness_style_and_older_files_read_alike():
    """Today's harness writes no CI and below_floor below the floor; older files a
    [min, max] 'CI' with rounds only on the case, or no rounds at all."""
    docs = [zero_grad_doc([4]) for _ in range(3)]
    harness, case_only, samples_only = (d["experiments"][0]["cases"][0] for d in docs)
    harness["comparisons"][0].update(ci_low=None, ci_high=None, rounds_floor=6, below_floor=True)
    del case_only["comparisons"][0]["rounds"]
    del samples_only["comparisons"][0]["rounds"], samples_only["rounds"]
    for d in docs:
        r = evaluate_claim(claim("zero_grad_set_to_none"), d)
        assert r.verdict.verdict == INCONCLUSIVE and "n = 4" in why_text(r.verdict)
        assert build([d])[1][0][-1].endswith("× (n = 4, no CI)")  # the gpus table


def test_harness_floor_at_another_confidence_is_honoured():
    doc = zero_grad_doc([7])
    doc["experiments"][0]["cases"][0]["comparisons"][0].update(rounds_floor=8, below_floor=True)  # 99%
    r = evaluate_claim(claim("zero_grad_set_to_none"), doc)
    assert r.verdict.verdict == INCONCLUSIVE and "n = 7" in why_text(r.verdict)


@pytest.mark.parametrize("rounds,judged", [(5, False), (6, True)])
def test_compare_does_not_judge_a_speedup_below_the_floor(rounds, judged):
    """5 rounds a side would pass the U test's reach at alpha 0.01 (p >= 2/252): only
    the floor keeps the gate from judging a change of two points."""
    base, cur = zero_grad_doc([rounds]), zero_grad_doc([rounds])
    for v in cur["experiments"][0]["cases"][0]["variants"]:
        v["samples"]["host_s"] = [x * 1.01 for x in v["samples"]["host_s"]]
    out = compare_docs(base, cur, Settings())
    (row,) = out.speedups
    assert (row.verdict != NA) == judged
    if not judged:
        assert row.notes == [f"{run}: n = 5, below the rounds floor of 6" for run in ("baseline", "current")]
    assert all(r.verdict != NA for r in out.times)  # times are not ratios: still judged


GPU_RUNS = REPO / ".." / "shared" / "gpu-runs" / "2026-11-24"
REAL = ("h100_rest_budget300.json", "h100_dataloader.json")


@pytest.fixture(scope="module")
def real_report(tmp_path_factory):
    """The two H100 files rendered once (read in place, never written)."""
    missing = [n for n in REAL if not (GPU_RUNS / n).is_file()]
    if missing:
        pytest.skip(f"the H100 runs of 2026-11-24 are not here ({GPU_RUNS.resolve()}: no {', '.join(missing)})")
    from report.__main__ import main

    out = tmp_path_factory.mktemp("h100") / "out"
    assert main(["render", *(str(GPU_RUNS / n) for n in REAL), "--out", str(out)]) == 0
    docs = {n: load_results(GPU_RUNS / n) for n in REAL}
    return docs, out


def below_floor_comparisons(doc):
    for e in doc["experiments"]:
        for c in e.get("cases") or []:
            for cm in c.get("comparisons") or []:
                if isinstance(cm.get("speedup"), float) and cm["rounds"] < cm.get("rounds_floor", rounds_floor(0.95)):
                    yield e, c, cm


def test_real_one_round_comparisons_show_no_ci(real_report):
    docs, out = real_report
    md, page = (out / "report_details.md").read_text(), (out / "report.html").read_text()
    found = [x for d in docs.values() for x in below_floor_comparisons(d)]
    assert len(found) >= 30 and all(cm["rounds"] == 1 for _, _, cm in found)
    for cells in (md_speedups(md), html_speedups(page)):
        for e, c, cm in found:
            role = next(v["role"] for v in c["variants"] if v["name"] == cm["variant"])
            shown = cm["variant"] + (" (reference)" if role == "reference" else "")
            assert cells[(e["name"], c["name"], shown)] == f"{sig(cm['speedup'])}× (n = 1, no CI)"
    for text in (" ".join(md.split()), page):  # the claims' cases, where one was used (the Markdown wrapped)
        for r in (r for d in docs.values() for r in evaluate(d)):
            for ev in (ev for ev in r.evidence if ev.m.below_floor):
                assert f"{ev.label}: {sig(ev.m.speedup)}× (n = 1, no CI)" in html.unescape(text)
                assert f"{ev.label}: {sig(ev.m.speedup)}× [" not in html.unescape(text)
    main = (out / "report.md").read_text()
    assert "7.13× (n = 1, no CI)" in md and "7.13× [" not in md + main and "7.13× [" not in page
    batch = next(e for e in Document(docs["h100_rest_budget300.json"]).experiments if e.name == "batch_size")
    assert all(
        m.ci_low is None and m.ci_high is None and "(n = 1, no CI)" in label for label, m in speedup_points(batch)
    )
    assert (out / "plots" / "batch_size_speedup.png").is_file()  # both runs' in one plot


def test_real_csv_leaves_the_ci_empty(real_report):
    docs, out = real_report
    with open(out / "results.csv", newline="") as f:
        rows = {(r["experiment"], r["case"], r["variant"]): r for r in csv.DictReader(f)}
    for d in docs.values():
        for e, c, cm in below_floor_comparisons(d):
            r = rows[(e["name"], c["name"], cm["variant"])]
            assert (r["ci_low"], r["ci_high"], r["rounds"], r["below_floor"]) == ("", "", "1", "True")
    r = rows[("batch_size", "resnet50_224px_amp_bf16_channels_last", "batch_512")]
    assert r["speedup"].startswith("7.127")


def test_real_claims_draw_no_verdict_from_one_round(real_report):
    docs, out = real_report
    md = (out / "report.md").read_text()
    summary = [line for line in md.split("## Summary")[1].split("## Claims")[0].splitlines() if line.startswith("| ")]
    head = [c.strip() for c in summary[0].strip("|").split(" | ")]
    cells = {r[0]: r for r in ([c.strip() for c in line.strip().strip("|").split(" | ")] for line in summary[1:])}
    for name, doc in docs.items():
        for r in evaluate(doc):
            if r.verdict.verdict in DRAWN:  # drawn from pooled cases, none below the floor
                assert all(not e.m.below_floor for e in r.pooled), (name, r.claim["id"])
            if r.evidence and all(e.m.below_floor for e in r.evidence):
                assert r.m.ci_low is None and r.m.ci_high is None
                numeric = r.claim["kind"] == "direction" or r.claim.get("low") is not None
                assert r.verdict.verdict == (INCONCLUSIVE if numeric else NOT_MEASURABLE), (name, r.claim["id"])
    loader = {r.claim["id"]: r for r in evaluate(docs["h100_dataloader.json"])}
    for cid in ("pin_memory", "num_workers", "prefetch_factor"):
        assert loader[cid].verdict.verdict == INCONCLUSIVE and "n = 1 interleaved round" in why_text(
            loader[cid].verdict
        )
        cell = cells[cid][head.index("run 2")]  # the loader run's column of the summary
        assert cell.startswith("inconclusive: ") and "n = 1, no CI" in cell, cell
    rest = {r.claim["id"]: r for r in evaluate(docs["h100_rest_budget300.json"])}
    # judged apart: a row below the floor is inconclusive, and the claim with it
    for cid, case in (("host_sync", "gpt_l6_h768_s256_b8"), ("tensor_core_alignment", "linear_step_4095_vs_4096")):
        below = [e for e in rest[cid].evidence if e.m.below_floor]
        assert [e.case for e in below] == [case] * len(below) and below, cid
        assert all(e.verdict.verdict == INCONCLUSIVE for e in below) and rest[cid].verdict.verdict == INCONCLUSIVE
