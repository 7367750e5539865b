import math

import numpy as np
import pytest

from report.stats import mann_whitney_u, rank_with_ties, ratio_of_medians_ci


def test_ranks_average_ties():
    ranks, ties = rank_with_ties(np.array([3.0, 1.0, 3.0, 2.0]))
    assert list(ranks) == [3.5, 1.0, 3.5, 2.0]
    assert sorted(ties) == [1, 1, 2]


def test_completely_separated_samples():
    # U = 0, mu = 50, sigma^2 = 10*10*21/12; z = (0 - 50 + 0.5)/sigma -> p = 1.83e-4
    r = mann_whitney_u(list(range(10)), list(range(10, 20)))
    assert r.u == 0
    assert r.p == pytest.approx(1.826e-4, rel=1e-2)
    assert r.z < 0


def test_symmetric_and_identical():
    a, b = [1.0, 2.0, 3.5, 4.0], [2.5, 5.0, 6.0, 7.0]
    assert mann_whitney_u(a, b).p == pytest.approx(mann_whitney_u(b, a).p)
    assert mann_whitney_u([1.0] * 5, [1.0] * 5).p == 1.0
    assert mann_whitney_u([], [1.0]).p == 1.0


def test_tie_correction_matches_hand_computation():
    x, y = [1, 2, 2, 3], [2, 3, 3, 4]
    # ranks of all 8: 1->1, 2->3 (x3), 3->6 (x3), 4->8; R1 = 1+3+3+6 = 13, U1 = 13 - 10 = 3
    n1 = n2 = 4
    n = 8
    tie = (2 * (27 - 3)) / (n * (n - 1))
    sigma = math.sqrt(n1 * n2 / 12 * ((n + 1) - tie))
    z = (3 - 8 + 0.5) / sigma
    r = mann_whitney_u(x, y)
    assert r.u == 3
    assert r.p == pytest.approx(math.erfc(abs(z) / math.sqrt(2)))


def test_ratio_ci_covers_truth():
    rng = np.random.default_rng(1)
    a = list(1.2 * np.exp(rng.normal(0, 0.02, 40)))
    b = list(1.0 * np.exp(rng.normal(0, 0.02, 40)))
    lo, hi = ratio_of_medians_ci(a, b)
    assert lo < 1.2 < hi
    assert hi - lo < 0.05
