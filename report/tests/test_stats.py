import math

import numpy as np
import pytest

from report.statistics.stats import (
    diff_ci,
    log_median_boot,
    log_ratio_boot,
    mann_whitney_p,
    ratio_of_medians_ci,
    smallest_p,
)


def test_complete_separation():
    # 5 vs 5 without ties: SciPy's exact distribution, p = 2 / C(10, 5), the smallest possible.
    p = mann_whitney_p(list(range(5)), list(range(5, 10)))
    assert p == pytest.approx(2 / math.comb(10, 5))
    assert p == pytest.approx(smallest_p(5, 5))
    # 10 vs 10: the normal approximation with continuity correction (what the report's
    # hand-written test computed): U = 0, mu = 50, sigma^2 = 10*10*21/12 -> p = 1.83e-4.
    assert mann_whitney_p(list(range(10)), list(range(10, 20))) == pytest.approx(1.826e-4, rel=1e-2)


def test_symmetric_and_uninformative_samples():
    a, b = [1.0, 2.0, 3.5, 4.0], [2.5, 5.0, 6.0, 7.0]
    assert mann_whitney_p(a, b) == pytest.approx(mann_whitney_p(b, a))
    assert mann_whitney_p([1.0] * 5, [1.0] * 5) == 1.0
    assert mann_whitney_p([], [1.0]) == 1.0


def test_ties_use_the_corrected_normal_approximation():
    # What the report's hand-written test computed, now SciPy's: ranks of all 8 are
    # 1->1, 2->3 (x3), 3->6 (x3), 4->8; R1 = 13, U1 = 3, tie and continuity corrected.
    x, y = [1, 2, 2, 3], [2, 3, 3, 4]
    n1 = n2 = 4
    n = 8
    tie = (2 * (27 - 3)) / (n * (n - 1))
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie))
    z = (3 - 8 + 0.5) / sigma
    assert mann_whitney_p(x, y) == pytest.approx(math.erfc(abs(z) / math.sqrt(2)))


def test_smallest_p_limits_tiny_samples():
    assert smallest_p(4, 4) == pytest.approx(2 / 70)  # above alpha = 0.01: never significant
    assert smallest_p(5, 5) < 0.01
    assert smallest_p(0, 10) == 1.0
    assert smallest_p(2000, 2000) < 1e-100  # no overflow on large samples


def test_log_median_bootstrap_is_centred_and_repeatable():
    rng = np.random.default_rng(3)
    x = list(2.0 * np.exp(rng.normal(0, 0.05, 200)))
    d = log_median_boot(x)
    assert len(d) == 2000
    assert np.median(d) == pytest.approx(np.log(np.median(x)), abs=0.01)
    assert np.array_equal(d, log_median_boot(x))


def test_paired_bootstrap_keeps_rounds_together():
    # Every round's variant is exactly 1.2x faster than its baseline while the rounds
    # drift +-30%: pairing resamples whole rounds, so the ratio is known exactly.
    rng = np.random.default_rng(4)
    v = list(np.exp(rng.normal(0, 0.3, 50)))
    b = [1.2 * x for x in v]
    d = log_ratio_boot(b, v)
    assert np.allclose(d, math.log(1.2))
    with pytest.raises(ValueError):
        log_ratio_boot(b, v[:-1])


def test_difference_of_two_runs_is_not_paired_by_resample_index():
    # The same samples in both runs: the runs are independent, so the change still has
    # an interval around 0 (equal seeds must not cancel it to a point).
    rng = np.random.default_rng(5)
    x = list(np.exp(rng.normal(0, 0.05, 100)))
    lo, hi = diff_ci(log_median_boot(x), log_median_boot(x), 0.99)
    assert lo < -0.005 and hi > 0.005


def test_difference_interval_covers_a_known_change():
    rng = np.random.default_rng(6)
    base = list(np.exp(rng.normal(0, 0.02, 80)))
    cur = list(1.1 * np.exp(rng.normal(0, 0.02, 80)))
    lo, hi = diff_ci(log_median_boot(cur), log_median_boot(base), 0.99)
    assert lo < math.log(1.1) < hi
    assert hi - lo < 0.03


def test_ratio_ci_covers_truth():
    rng = np.random.default_rng(1)
    a = list(1.2 * np.exp(rng.normal(0, 0.02, 40)))
    b = list(1.0 * np.exp(rng.normal(0, 0.02, 40)))
    lo, hi = ratio_of_medians_ci(a, b)
    assert lo < 1.2 < hi
    assert hi - lo < 0.05
