"""The comparisons a claim's verdict reads (claims/claimed.py), which the harness's
further processes alone repeat: on committed runs, a GPU claim reads comparisons on a
GPU and none on a CPU, a claim that states no number reads none, and every comparison
a drawn verdict rests on is among those named."""

import copy
import json

from conftest import REPO

from report.claims.claimed import claimed
from report.claims.judge import evaluate
from report.claims.verdicts import NOT_MEASURABLE
from report.load.results import load_results

INTEL = REPO / "results" / "2026-11-28_cpu_intel-xeon-2core_libtorch-2.11_standard.json"
H100 = REPO / "report" / "tests" / "fixtures" / "h100_2026-11-24" / "h100_mixed_precision.json.gz"


def first_pass(path):
    """The file as the harness asks about it: the first processes only."""
    d = copy.deepcopy(load_results(path))
    for e in d["experiments"]:
        for k in ("repeats", "estimates", "processes"):
            e.pop(k, None)
    return d


def test_a_cpu_run_repeats_what_its_verdicts_read_only():
    got = claimed(first_pass(INTEL))
    assert got["dataloader"]["workers"] == ["workers_0", "workers_2"]  # num_workers: the most workers vs 0
    assert set(got["fused_optimizer"]) == {"optimizer_step_mlp_depth32_w64"}
    # About GPUs (AMP, batch size) or stating no number (no_grad, checkpointing): no verdict on a CPU.
    for x in ("mixed_precision", "batch_size", "eval_no_grad", "grad_checkpointing", "grad_accumulation"):
        assert x not in got, x


def test_a_gpu_claim_reads_its_comparisons_on_a_gpu():
    got = claimed(first_pass(H100))
    assert "mixed_precision" in got and got["mixed_precision"], got


def test_every_comparison_a_drawn_verdict_reads_is_named():
    for path in (INTEL, H100):
        doc = first_pass(path)
        got = claimed(doc)
        for res in evaluate(doc):
            if res.verdict.verdict == NOT_MEASURABLE:
                continue
            for e in res.evidence:
                names = {s.name for s in e.sides} if e.sides else {e.baseline, e.variant}
                assert names <= set(got[e.experiment][e.case]), (res.claim["id"], e.label)


def test_the_command_prints_it(cli, tmp_path):
    f = tmp_path / "r.json"
    f.write_text(json.dumps(first_pass(INTEL)))
    r = cli("claimed", f)
    assert r.rc == 0 and json.loads(r.out) == claimed(first_pass(INTEL))
