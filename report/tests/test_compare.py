import pytest
import synth
from conftest import digest

from report.gate.compare import AMBIGUOUS, DOWN, SAME, UP, classify


def two_runs(tmp_path, base_med, cur_med, sigma=0.02, n=30, gpu_a=synth.H100, gpu_b=synth.H100):
    base = synth.simple_doc(
        synth.lognormal(base_med, sigma, n, 1), synth.lognormal(base_med * 0.8, sigma, n, 2), gpu=gpu_a
    )
    cur = synth.simple_doc(
        synth.lognormal(cur_med, sigma, n, 3), synth.lognormal(cur_med * 0.8, sigma, n, 4), gpu=gpu_b
    )
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


@pytest.mark.parametrize(
    "lo,hi,p,expected",
    [
        (0.15, 0.25, 1e-6, UP),
        (-0.25, -0.15, 1e-6, DOWN),
        (0.01, 0.40, 1e-3, AMBIGUOUS),  # significant, but the interval reaches inside the floor
        (0.06, 0.09, 0.05, AMBIGUOUS),  # beyond the floor, not significant at alpha
        (-0.02, 0.03, 0.5, SAME),
        (0.025, 0.035, 1e-9, SAME),  # significant, within the floor: run-to-run noise
        (-0.05, 0.049, 0.9, SAME),
    ],
)
def test_classify_table(lo, hi, p, expected):
    assert classify(lo, hi, p, floor=0.05, alpha=0.01) == expected


def test_bad_floor_options(tmp_path, cli):
    b, c = two_runs(tmp_path, 1e-3, 1e-3)
    for opt in ("--threshold", "--min-effect"):
        r = cli("compare", b, c, opt, "-0.1")
        assert r.rc == 2 and r.err.startswith("error:") and opt in r.err


def test_slower_variant_and_speedup_drop_reported_apart(tmp_path, cli):
    # The optimized variant 25% slower in the current run: its time is 'slower' and
    # its speedup 'lower', each named.
    base = synth.simple_doc(synth.lognormal(1e-3, 0.01, 40, 1), synth.lognormal(0.5e-3, 0.01, 40, 2))
    cur = synth.simple_doc(synth.lognormal(1e-3, 0.01, 40, 3), synth.lognormal(0.625e-3, 0.01, 40, 4))
    r = cli("compare", synth.write(tmp_path / "b.json", base), synth.write(tmp_path / "c.json", cur))
    assert r.rc == 1, r.out
    assert "REGRESSION: toy/c1/opt SLOWER +24.7% (interval [+23.9%, +25.7%], floor ±6.7%)" in r.out
    # The speedup's change is the estimates' (median of per-round ratios): 2.00x -> 1.60x.
    assert "REGRESSION: toy/c1 speedup opt vs base LOWER -20.3%" in r.out


def test_speedup_drop_alone_fails(tmp_path, cli):
    # The baseline variant got 25% faster, the optimized one did not: no time is
    # slower, but the optimization gains 20% less, and that fails the gate.
    base = synth.simple_doc(synth.lognormal(1e-3, 0.01, 40, 1), synth.lognormal(0.5e-3, 0.01, 40, 2))
    cur = synth.simple_doc(synth.lognormal(0.8e-3, 0.01, 40, 3), synth.lognormal(0.5e-3, 0.01, 40, 4))
    r = cli("compare", synth.write(tmp_path / "b.json", base), synth.write(tmp_path / "c.json", cur))
    assert r.rc == 1, r.out
    assert "SLOWER" not in r.out and " faster" in r.out
    assert "REGRESSION: toy/c1 speedup opt vs base LOWER -20" in r.out


def test_too_few_samples_are_not_judged(tmp_path, cli):
    b, c = two_runs(tmp_path, 1e-3, 2e-3, n=4)  # 2x slower, but 4 samples cannot reach p < 0.01
    r = cli("compare", b, c)
    assert r.rc == 0, r.out
    assert "too few samples for alpha 0.01" in r.out
    r = cli("compare", b, c, "--alpha", "0.05")
    assert r.rc == 1, r.out


def test_a_speedup_is_judged_on_its_recorded_estimate_not_on_round_pairs(tmp_path, cli):
    # 30 vs 29 samples cannot be paired round by round, but the gate reads each run's
    # recorded estimate and interval (the figure the tables show), so it judges anyway.
    base = synth.simple_doc(synth.lognormal(1e-3, 0.01, 30, 1), synth.lognormal(0.5e-3, 0.01, 30, 2))
    cur = synth.simple_doc(synth.lognormal(1e-3, 0.01, 30, 3), synth.lognormal(0.5e-3, 0.01, 29, 4))
    r = cli("compare", synth.write(tmp_path / "b.json", base), synth.write(tmp_path / "c.json", cur))
    assert r.rc == 0
    line = next(x for x in r.out.splitlines() if "opt vs base" in x)
    assert "30/29 rounds" in line and line.rstrip().endswith("same")


def test_markdown_for_a_job_summary(tmp_path, cli):
    b, c = two_runs(tmp_path, 1.0e-3, 1.2e-3)
    r = cli("compare", b, c, "--markdown")
    assert r.rc == 1
    lines = r.out.splitlines()
    assert lines[0].startswith("### Regression gate on NVIDIA H100")
    assert lines[2].startswith("**FAIL: ")  # the verdict first
    assert "- REGRESSION: toy/c1/" in r.out  # each regression a list item
    assert "| experiment/case | variant | baseline | current | change | interval | floor |" in r.out
    assert "<details><summary>Time per step" in r.out


def test_history_widens_floors_and_passes_over_other_devices(tmp_path, cli):
    b, c = two_runs(tmp_path, 1.0e-3, 1.12e-3)
    assert cli("compare", b, c).rc == 1
    hist = tmp_path / "hist"
    hist.mkdir()
    # An earlier run of the same code 10% slower than the baseline: 12% is within what
    # same-code runs did, so the gate passes and says which floors history set.
    synth.write(
        hist / "old.json", synth.simple_doc(synth.lognormal(1.1e-3, 0.02, 30, 7), synth.lognormal(0.88e-3, 0.02, 30, 8))
    )
    # Passed over: another GPU, and older code (its change is real, not noise).
    synth.write(
        hist / "a100.json",
        synth.simple_doc(synth.lognormal(3e-3, 0.02, 30, 9), synth.lognormal(3e-3, 0.02, 30, 10), gpu=synth.A100),
    )
    older = synth.simple_doc(synth.lognormal(2e-3, 0.02, 30, 11), synth.lognormal(2e-3, 0.02, 30, 12))
    older["environment"]["git"]["sha"] = "fedcba9876543210"
    synth.write(hist / "older.json", older)
    r = cli("compare", b, c, "--history", hist, b, c)  # the baseline and current themselves are skipped
    assert r.rc == 0, r.out
    assert "(history)" in r.out
    assert "widened where 2 runs of the baseline's commit on this device spread wider" in r.out


def test_real_results_against_themselves(real_results, cli):
    r = cli("compare", real_results, real_results)
    assert r.rc == 0, r.out
    assert "SLOWER" not in r.out


def _extreme_runs(where: str, value: float) -> tuple[dict, dict]:
    """Two runs as dicts, the current one holding a figure the loader refuses (so the gate
    is called with them directly): its baseline variant's times, or its recorded speedup."""
    base = synth.simple_doc(synth.lognormal(1e-3, 0.02, 30, 1), synth.lognormal(8e-4, 0.02, 30, 2))
    cur = synth.simple_doc(synth.lognormal(1e-3, 0.02, 30, 3), synth.lognormal(8e-4, 0.02, 30, 4))
    case = cur["experiments"][0]["cases"][0]
    if where == "times":
        case["variants"][0]["samples"]["host_s"] = [value] * 30
    else:
        case["comparisons"][0]["speedup"] = value
    return base, cur


@pytest.mark.parametrize(
    "where,value,line",
    [
        ("times", 1e308, "NOT COMPUTABLE: toy/c1/base: the current median time inf is not a finite positive number"),
        ("times", 1.7e308, "NOT COMPUTABLE: toy/c1/base: the current median time inf is not a finite positive number"),
        (
            "speedup",
            0.0,
            "NOT COMPUTABLE: toy/c1 speedup opt vs base: the recorded speedup 0.0 is not a finite positive",
        ),
        ("speedup", float("inf"), "NOT COMPUTABLE: toy/c1 speedup opt vs base: the recorded speedup inf is not"),
    ],
)
def test_the_gate_never_passes_what_it_could_not_compute(where, value, line):
    """A median that overflows (times of 1e308 s), a speedup of 0 or of infinity: the pair
    is 'not computable', the gate fails with a line saying why, and nothing numpy warns
    of reaches the user (before: PASS, exit 0, with RuntimeWarnings)."""
    import warnings

    from report.gate.compare import Settings
    from report.gate.compare_text import run

    base, cur = _extreme_runs(where, value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning fails the test
        code, text = run(base, cur, Settings())
    assert code == 1, text
    lines = text.splitlines()
    assert lines[2].startswith("FAIL: 1 pair not computable."), lines[2]
    assert sum(x.startswith(line) for x in lines) == 1, text
    assert "PASS" not in text
