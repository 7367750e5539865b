"""The rule that lets a profiled window explain a timed comparison (report/explanation/why_agree.py)
and the sentence's promises: never more than 100% (or a negative share) of the timed
difference, never 'added' where the timing says faster."""

import math

import numpy as np
import synth

from report.explanation.why import explain
from report.explanation.why_agree import (
    NOT_EXPLAINED,
    Noise,
    Reason,
    agreement,
    overhead_uncertainty,
    t_quantile,
    window_noise,
)
from report.load.document import Variant
from report.statistics.measurement import Measurement

MS = 1e-3


def side(
    window_s: float, timed_s: float, iqr_rel: float = 0.1349, steps: int = 4, step_s: list[float] | None = None
) -> Variant:
    """A variant with a timed median, its spread, and a one-category CPU window (with
    each profiled step's time where step_s is given)."""
    bd = synth.breakdown({"gemm": window_s}, 0.0, device="cpu", timed_step_s=timed_s)
    bd["steps"] = steps
    if step_s is not None:
        bd["step_s"], bd["steps"] = step_s, len(step_s)
    return Variant.of(
        {"name": "x", "stats": {"median": timed_s, "iqr": iqr_rel * timed_s}, "iters_per_sample": 1, "breakdown": bd}
    )


def cm(lo: float, hi: float, below_floor: bool = False) -> Measurement:
    return Measurement(math.sqrt(lo * hi), lo, hi, 0.95, below_floor=below_floor)


def test_the_band_is_the_ci_widened_by_both_windows_noise():
    # IQR / 1.349 = 10% per step, 4 steps: 5% per window; both sides: hypot = 7.07%.
    base = side(2.0 * MS, 2.0 * MS)
    assert abs(overhead_uncertainty(base, base.breakdown) - 0.05) < 1e-12
    widen = math.exp(1.959963984540054 * math.hypot(0.05, 0.05))
    for factor, ok in ((0.999, True), (1.001, False)):
        w = 2.0 * MS / (2.1 * widen * factor)  # the windows' speedup just inside / outside the band
        a = agreement(cm(1.9, 2.1), base, side(w, w))
        assert a.ok is ok and abs(a.band[1] - 2.1 * widen) < 1e-9
        assert ok or (a.reason is Reason.OUTSIDE_BAND and a.text().startswith(NOT_EXPLAINED + " (windows 2."))


def spread(mean_s: float, rel: float, n: int) -> list[float]:
    """n step times with mean mean_s and sample sd rel * mean_s (alternating about the mean)."""
    half = rel * mean_s * math.sqrt((n - 1) / n)
    return [mean_s + (half if i % 2 else -half) for i in range(n)]


def test_the_windows_own_step_spread_decides_agreement_both_ways():
    """The same windows (2.3x apart, +15% profiler cost on the baseline) against the same
    timed 2.0x [1.95, 2.05], and the same tight timed spread: steps that vary by 1%
    bound the windows' noise to about 0.4%, so 2.3x is outside what noise allows; steps
    that vary by 30% allow it. The timed spread (older files' rule) would refuse both."""
    base_s, var_s = 2.3 * MS, 1.0 * MS
    a = {}
    for rel in (0.01, 0.30):
        base = side(base_s, 2.0 * MS, 0.01, step_s=spread(base_s, rel, 10))
        var = side(var_s, 1.0 * MS, 0.01, step_s=spread(var_s, rel, 10))
        assert window_noise(base, base.breakdown).source == "steps"
        assert abs(overhead_uncertainty(base, base.breakdown) - rel / math.sqrt(10)) < 1e-9
        a[rel] = agreement(cm(1.95, 2.05), base, var)
    assert not a[0.01].ok and a[0.01].text().startswith(NOT_EXPLAINED + " (windows 2.3")
    assert a[0.30].ok and a[0.30].band[0] < 1.95 and a[0.30].band[1] > 2.3
    # Without step times the timed spread (1% per step, 10 steps) bounds the noise: refused.
    base, var = side(base_s, 2.0 * MS, 0.01, 10), side(var_s, 1.0 * MS, 0.01, 10)
    assert window_noise(base, base.breakdown).source == "timed"
    assert not agreement(cm(1.95, 2.05), base, var).ok


def test_a_window_of_few_steps_is_widened_by_students_t():
    """Two steps know their spread poorly: t at 1 degree of freedom, not 1.96."""
    few, many = Noise(0.02, 1.0, "steps"), Noise(0.02, math.inf, "timed")
    assert abs(t_quantile(few, few) - 4.302652729911275) < 1e-9  # Welch: 2 degrees of freedom
    assert abs(t_quantile(many, many) - 1.959963984540054) < 1e-12
    assert 1.96 < t_quantile(few, many) < 4.31


def test_one_step_or_no_step_times_fall_back_to_the_timed_spread():
    one = side(2.0 * MS, 2.0 * MS, 0.1349, step_s=[2.0 * MS])
    assert window_noise(one, one.breakdown) == Noise(0.1, math.inf, "timed")


def test_a_gpu_windows_launch_times_are_not_its_steps_spread():
    """On CUDA a profiled step's host time is its launches (20 us here, steady) while the
    device takes 1 ms a step: their spread says nothing of the mean step's, so the
    variant's timed spread stands in (10% per step over 4 steps: 5%)."""
    v = side(1.0 * MS, 1.0 * MS, 0.1349, step_s=[20e-6] * 4)
    v.breakdown.raw["device"] = "cuda"
    assert window_noise(v, v.breakdown) == Noise(0.05, math.inf, "timed")


def test_a_profiler_cost_on_one_side_is_not_uncertainty():
    """+50% on the baseline only: the windows read 1.5x the timed speedup. Widening by the
    overheads themselves would pass this by construction; the rule refuses it."""
    tight = 0.01
    base = side(3.0 * MS, 2.0 * MS, tight, 20)
    var = side(1.0 * MS, 1.0 * MS, tight, 20)
    a = agreement(cm(1.98, 2.02), base, var)
    assert not a.ok and abs(a.window - 3.0) < 1e-9


def test_a_window_faster_than_its_timing_measured_that_much_noise():
    var = side(0.8 * MS, 1.0 * MS, 0.0, 20)  # overhead -20%, no timed spread
    assert abs(overhead_uncertainty(var, var.breakdown) - 0.2) < 1e-12
    steady = side(0.8 * MS, 1.0 * MS, 0.0, step_s=spread(0.8 * MS, 0.01, 20))  # and steady steps
    n = window_noise(steady, steady.breakdown)
    assert abs(n.u - 0.2) < 1e-12 and n.df == math.inf  # a measured distance, not a spread of few steps


def test_the_other_direction_is_never_explained_however_noisy():
    noisy = 2.0  # a band far wider than the distance to 1
    base = side(1.0 * MS, 1.0 * MS, noisy, 1)
    var = side(1.02 * MS, 0.9 * MS, noisy, 1)  # windows: slower; timing: faster
    a = agreement(cm(1.05, 1.2), base, var)
    assert a.reason is Reason.OTHER_DIRECTION and a.text().endswith(": the other direction)") and a.window < 1.0


def test_no_difference_and_no_ci_explain_nothing():
    base, var = side(2.0 * MS, 2.0 * MS), side(1.0 * MS, 1.0 * MS)
    assert (
        agreement(cm(0.95, 1.1), base, var).text()
        == "timing finds no clear difference (CI includes 1): nothing to explain"
    )
    assert agreement(cm(1.9, 2.1, True), base, var).reason is Reason.NO_CI
    assert agreement(cm(1.9, 2.1), base, var).ok


def test_the_estimate_printed_beside_must_show_the_difference_the_windows_process_timed():
    """Rule 1 reads both timings: the one estimate beside the why (across processes) and
    the ratio of the windows' own process. The Intel pair printed 'timing finds no clear
    difference (CI includes 1)' beside 0.990 [0.984, 0.995], and explained time added
    beside 0.993 [0.959, 1.03], each from the first process's interval alone."""
    base, var = side(2.0 * MS, 2.0 * MS), side(1.0 * MS, 1.0 * MS)
    own = cm(1.9, 2.1)
    assert agreement(own, base, var, shown=cm(1.8, 2.2)).ok
    beside_includes_1 = agreement(own, base, var, shown=cm(0.95, 2.2))
    assert beside_includes_1.reason is Reason.NO_DIFFERENCE and "CI includes 1" in beside_includes_1.text()
    a = agreement(cm(0.95, 1.1), base, var, shown=cm(1.1, 1.3))  # the estimate shows it, the process does not
    assert a.reason is Reason.PROCESS_DIFFERS and not a.ok
    assert a.text().startswith("the process its windows ran in timed 1.02× [0.950, 1.10], which does not show")
    other_side = agreement(cm(1.05, 1.2), base, var, shown=cm(0.8, 0.9))
    assert other_side.reason is Reason.PROCESS_DIFFERS
    no_ci = agreement(cm(1.9, 2.1, True), base, var, shown=cm(1.8, 2.2))
    assert no_ci.reason is Reason.PROCESS_NO_CI and "no CI of its own" in no_ci.text()
    assert agreement(own, base, var, shown=cm(1.8, 2.2, True)).reason is Reason.NO_CI


def test_no_sentence_exceeds_the_timed_difference_or_contradicts_its_sign():
    """Random windows against random timed changes: every share printed is in (0, 100%]
    and the verb follows the timing, whatever the windows did."""
    rng = np.random.default_rng(7)
    cats = ["gemm", "conv", "elementwise", "memcpy_host", "other"]
    printed = 0
    for _ in range(300):
        b = {k: float(x) for k, x in zip(cats, rng.uniform(0, 2e-3, len(cats)))}
        v = {k: float(x) for k, x in zip(cats, rng.uniform(0, 2e-3, len(cats)))}
        change = float(rng.uniform(-1e-3, 1e-3))
        sh = explain(
            synth.breakdown(b, rng.uniform(0, 1e-3), device="cpu"),
            synth.breakdown(v, rng.uniform(0, 1e-3), device="cpu"),
            1.0,
            change,
        )
        text = sh.sentence
        if not sh.top:
            assert text.startswith("no category moved with"), text
            continue
        printed += 1
        verb = "saved" if change < 0 else "added"
        assert (sh.change_s < 0) == (change < 0) and f"/step {verb}" in text, text
        if sh.covers_all:
            assert " all of the " in text, text  # a share over 100% is never printed
        else:
            assert 0 < sh.moved_s / sh.change_s <= 1.0 and f"for {100 * sh.moved_s / sh.change_s:.0f}% of" in text
        assert "(timed" in text
    assert printed > 250


def test_no_committed_table_explains_a_difference_its_rows_interval_does_not_show():
    """Every experiment-table row of every committed file whose why names a mechanism
    (time shares, or a count leading it) prints an interval that excludes 1, on the side
    of its process's timing; and a row whose interval excludes 1 never reads 'no clear
    difference (CI includes 1)'."""
    import gzip
    import json

    from conftest import FIXTURES, REPO

    from report.explanation.why_row import Kind
    from report.load.document import Document
    from report.render.tables import experiment_rows

    files = sorted((REPO / "results").glob("*.json")) + sorted(FIXTURES.rglob("*.json.gz"))
    explained = 0
    for path in files:
        with (gzip.open if path.suffix == ".gz" else open)(path, "rt", encoding="utf-8") as f:
            raw = json.load(f)
        if "experiments" not in raw:
            continue
        for e in Document(raw).experiments:
            for row in experiment_rows(e, None, why=True):
                w = row.why_of
                if w is None or row.speedup is None:
                    continue
                has_ci = row.ci_low is not None and row.ci_high is not None
                where = (path.name, row.case, row.variant, row.why)
                if w.kind is Kind.SHARES or (w.kind is Kind.COUNT and w.count_leads):
                    assert has_ci and not (row.ci_low <= 1.0 <= row.ci_high), where
                    assert (row.ci_low > 1.0) == (w.agreement.timed[0] > 1.0), where
                    explained += 1
                if has_ci and not (row.ci_low <= 1.0 <= row.ci_high):
                    assert "(CI includes 1)" not in (row.why or ""), where
    assert explained > 50
