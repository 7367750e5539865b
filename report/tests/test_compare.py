import pytest

import synth
from conftest import digest
from report.compare import AMBIGUOUS, FASTER, SAME, SLOWER, classify


def two_runs(tmp_path, base_med, cur_med, sigma=0.02, n=30, gpu_a=synth.H100, gpu_b=synth.H100):
    base = synth.simple_doc(synth.lognormal(base_med, sigma, n, 1), synth.lognormal(base_med * 0.8, sigma, n, 2),
                            gpu=gpu_a)
    cur = synth.simple_doc(synth.lognormal(cur_med, sigma, n, 3), synth.lognormal(cur_med * 0.8, sigma, n, 4),
                           gpu=gpu_b)
    return synth.write(tmp_path / "base.json", base), synth.write(tmp_path / "cur.json", cur)


def test_injected_20_percent_slowdown_fails(tmp_path, cli):
    b, c = two_runs(tmp_path, 1.0e-3, 1.2e-3)
    r = cli("compare", b, c)
    assert r.rc == 1, r.out
    assert "SLOWER" in r.out and "REGRESSION" in r.out


def test_run_to_run_noise_passes(tmp_path, cli):
    b, c = two_runs(tmp_path, 1.0e-3, 1.0e-3)
    r = cli("compare", b, c)
    assert r.rc == 0, r.out
    assert "SLOWER" not in r.out


def test_speedup_is_not_a_failure(tmp_path, cli):
    b, c = two_runs(tmp_path, 1.0e-3, 0.8e-3)
    r = cli("compare", b, c)
    assert r.rc == 0
    assert " faster" in r.out


def test_small_significant_slowdown_below_threshold_passes(tmp_path, cli):
    b, c = two_runs(tmp_path, 1.0e-3, 1.03e-3, sigma=0.005, n=60)
    r = cli("compare", b, c)
    assert r.rc == 0, r.out
    r = cli("compare", b, c, "--threshold", "0.01", "--min-effect", "0.005")
    assert r.rc == 1, r.out


def test_different_gpus_refused_unless_allowed(tmp_path, cli):
    b, c = two_runs(tmp_path, 1e-3, 1e-3, gpu_b=synth.A100)
    before = (digest(b), digest(c))
    r = cli("compare", b, c)
    assert r.rc == 2
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "different devices" in lines[0]
    r = cli("compare", b, c, "--allow-different-gpus")
    assert r.rc == 0 and "warning: different devices" in r.out
    assert (digest(b), digest(c)) == before


def test_cpu_vs_gpu_refused(tmp_path, cli):
    b, c = two_runs(tmp_path, 1e-3, 1e-3, gpu_b=None)
    assert cli("compare", b, c).rc == 2


def test_speedups_are_compared_too(tmp_path, cli):
    b, c = two_runs(tmp_path, 1e-3, 1e-3)
    r = cli("compare", b, c)
    assert "opt vs base" in r.out


def test_bad_options(tmp_path, cli):
    b, c = two_runs(tmp_path, 1e-3, 1e-3)
    r = cli("compare", b, c, "--alpha", "2")
    assert r.rc == 2 and r.err.startswith("error:")


@pytest.mark.parametrize("change,lo,hi,p,expected", [
    (0.20, 0.15, 0.25, 1e-6, SLOWER),
    (-0.20, -0.25, -0.15, 1e-6, FASTER),
    (0.20, 0.01, 0.40, 1e-3, AMBIGUOUS),   # significant, but the CI's low end is under min_effect
    (0.10, -0.05, 0.25, 0.2, AMBIGUOUS),   # not significant, wide CI
    (0.01, -0.02, 0.03, 0.5, SAME),
    (0.03, 0.025, 0.035, 1e-9, SAME),      # significant, below threshold
    (0.06, 0.03, 0.09, 0.05, AMBIGUOUS),   # beyond threshold, not significant at alpha
])
def test_classify_table(change, lo, hi, p, expected):
    assert classify(change, lo, hi, p, threshold=0.05, min_effect=0.02, alpha=0.01) == expected


def test_real_results_against_themselves(real_results, cli):
    r = cli("compare", real_results, real_results)
    assert r.rc == 0, r.out
    assert "SLOWER" not in r.out
