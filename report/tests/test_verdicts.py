"""The verdict rule (report/claims/verdicts.py): outcomes along the speedup axis, decided only
where the whole CI lies in one; and, over thousands of random intervals, that it never
rewards uncertainty."""

import numpy as np
import pytest

from report.claims.verdicts import (
    CONFIRMED,
    DRAWN,
    EXCEEDED,
    INCONCLUSIVE,
    NO_EFFECT_BAND,
    NO_EFFECT_VERDICT,
    NOT_MEASURABLE,
    RANK,
    SLOWER,
    SMALLER,
    Rounds,
    decide,
    no_effect,
    outcome,
)
from report.render.glossary import BY_NAME
from report.render.verdict_words import ONE_PROCESS, claimed_text, why_text
from report.statistics.rounds import why_no_ci

THREE = Rounds((3,), (6,), 0.95)  # a ratio from 3 rounds, below the floor of 6

CASES = [
    # kind, low, high, ci_low, ci_high, unavailable, verdict
    ("speedup", 1.10, 1.20, 1.12, 1.18, None, CONFIRMED),
    ("speedup", 1.10, 1.20, 1.15, 1.40, None, CONFIRMED),  # low end inside, reaching above: still as claimed
    ("speedup", 1.10, 1.20, 1.10, 1.12, None, CONFIRMED),  # low end on the claim's low end
    ("speedup", 1.20, 1.50, 1.48, 1.68, None, CONFIRMED),  # num_workers' processes: a clear win
    ("speedup", 1.10, 1.20, 1.25, 1.40, None, EXCEEDED),
    ("speedup", 1.80, 2.20, 17.0, 19.0, None, EXCEEDED),
    ("speedup", 1.10, 1.20, 1.03, 1.08, None, SMALLER),
    ("speedup", 1.10, 1.20, 0.99, 1.015, None, NO_EFFECT_VERDICT),
    ("speedup", 1.10, 1.20, 0.70, 0.80, None, SLOWER),
    # An interval that overlaps the claim is no longer confirmed: it also reaches below it.
    ("speedup", 1.10, 1.20, 1.05, 1.12, None, INCONCLUSIVE),
    ("speedup", 1.10, 1.20, 1.00001, 1.5, None, INCONCLUSIVE),
    # An interval that includes 1 only because it is wide is not "no effect" (the twin's foreach).
    ("speedup", 1.10, 1.20, 0.394, 2.80, None, INCONCLUSIVE),
    ("speedup", 1.10, 1.20, 0.98, 1.15, None, INCONCLUSIVE),
    ("speedup", 1.10, 1.20, 1.04, 1.15, None, INCONCLUSIVE),  # prefetch 1.07 [1.04, 1.15]: not confirmed
    # A claim whose low end lies inside the band: as claimed wins the overlap.
    ("speedup", 1.01, 1.03, 1.012, 1.018, None, CONFIRMED),
    ("speedup", 1.01, 1.03, 0.99, 1.005, None, NO_EFFECT_VERDICT),
    ("speedup", 1.01, 1.03, 1.005, 1.02, None, INCONCLUSIVE),
    ("speedup", 1.10, 1.20, 1.12, 1.18, "CPU run: no GPU", NOT_MEASURABLE),
    ("speedup", 1.10, 1.20, None, None, None, NOT_MEASURABLE),  # nothing measured
    ("speedup", None, None, 1.2, 1.3, None, NOT_MEASURABLE),  # numeric kind without numbers
    ("qualitative", None, None, 1.2, 1.3, None, NOT_MEASURABLE),
    ("direction", None, None, 1.03, 1.05, None, CONFIRMED),
    ("direction", None, None, 1.01, 1.05, None, INCONCLUSIVE),  # reaches into the band
    ("direction", None, None, 0.99, 1.01, None, NO_EFFECT_VERDICT),
    ("direction", None, None, 0.70, 0.75, None, SLOWER),
    ("speedup", 1.10, 1.20, 1.18, 1.12, None, CONFIRMED),  # CI ends swapped
]


@pytest.mark.parametrize("kind,low,high,lo,hi,unavailable,expected", CASES)
def test_verdict_table(kind, low, high, lo, hi, unavailable, expected):
    v = decide(kind, low, high, lo, hi, unavailable)
    assert v.verdict == expected
    assert why_text(v)


def test_why_texts():
    assert why_text(decide("speedup", 1.1, 1.2, 1.1, 1.2, "CPU run: no GPU")) == "CPU run: no GPU"
    assert "no number" in why_text(decide("qualitative", None, None, 1.1, 1.2))
    assert "below the no-effect band" in why_text(decide("speedup", 1.1, 1.2, 0.7, 0.8))
    assert (
        why_text(decide("speedup", 1.1, 1.2, 0.394, 2.80))
        == "CI [0.394, 2.8] spans slower to above the claim: too wide to tell"
    )
    assert (
        why_text(decide("speedup", 1.1, 1.2, 0.39, 1.15))
        == "CI [0.39, 1.15] spans slower to as claimed: too wide to tell"
    )
    assert (
        why_text(decide("direction", None, None, 1.0, 1.3)) == "CI [1, 1.3] spans no effect to faster: too wide to tell"
    )
    assert claimed_text("speedup", 1.1, 1.2) == "1.10–1.20×"
    assert claimed_text("direction", None, None).startswith("faster")
    assert decide("speedup", 1.1, 1.2, 1.0, 1.1, too_few_rounds=THREE).verdict == INCONCLUSIVE


def test_the_band_is_two_percent_either_side_of_one():
    assert no_effect() == pytest.approx((1 / 1.02, 1.02))


def test_a_point_outside_its_own_interval_is_a_bug_not_a_verdict():
    v = decide("speedup", 1.1, 1.2, 1.13, 1.24, point=1.11)  # "1.11x ... (range 1.13-1.24)"
    assert v.verdict == INCONCLUSIVE and why_text(v).startswith("bug: the estimate 1.11 lies outside")
    assert decide("speedup", 1.1, 1.2, 1.13, 1.24, point=1.15).verdict == CONFIRMED


def test_confirmed_and_exceeded_are_one_outcome():
    assert outcome(CONFIRMED) == outcome(EXCEEDED) != outcome(SMALLER)


# Property tests: random claims and intervals.
CLAIMS = [
    ("speedup", 1.10, 1.20),
    ("speedup", 1.01, 1.03),
    ("speedup", 1.8, 2.2),
    ("speedup", 0.5, 0.9),
    ("speedup", 1.2, 1.2),
    ("direction", None, None),
]


def _allowed(v, kind, low, high) -> tuple[int, int]:
    """The ranks a verdict leaves open: its CI's, since every drawn or inconclusive verdict
    here rests on one."""
    assert v.ranks is not None, v
    return v.ranks


def _intervals(rng: np.random.Generator, n: int):
    centre = np.exp(rng.normal(0.1, 0.4, n))
    half = np.exp(rng.uniform(-6, 0.5, n))  # relative half-widths from 0.25% to 165%
    skew = rng.uniform(0.2, 1.8, n)
    return centre, centre * np.exp(-half * skew), centre * np.exp(half * (2 - skew))


@pytest.mark.parametrize("kind,low,high", CLAIMS)
def test_widening_never_moves_a_verdict_towards_confirmed_or_exceeded(kind, low, high):
    rng = np.random.default_rng(41)
    centre, lo, hi = _intervals(rng, 4000)
    grow_lo, grow_hi = np.exp(rng.uniform(0, 1, 4000)), np.exp(rng.uniform(0, 1, 4000))
    for c, a, b, ga, gb in zip(centre, lo, hi, grow_lo, grow_hi):
        before = decide(kind, low, high, a, b, point=c)
        after = decide(kind, low, high, a / ga, b * gb, point=c)
        assert before.verdict in (*DRAWN, INCONCLUSIVE) and after.verdict in (*DRAWN, INCONCLUSIVE)
        # the same, inconclusive, or a lesser degree of the same outcome (exceeded -> confirmed)
        assert after.verdict in (before.verdict, INCONCLUSIVE) or (before.verdict, after.verdict) == (
            EXCEEDED,
            CONFIRMED,
        )
        # and what it allows only grows
        b0, b1 = _allowed(before, kind, low, high)
        a0, a1 = _allowed(after, kind, low, high)
        assert a0 <= b0 and a1 >= b1
        if before.verdict not in (CONFIRMED, EXCEEDED):
            assert after.verdict not in (CONFIRMED, EXCEEDED) or after.verdict == before.verdict


@pytest.mark.parametrize("kind,low,high", CLAIMS)
def test_raising_the_interval_never_lowers_what_the_verdict_allows(kind, low, high):
    rng = np.random.default_rng(7)
    centre, lo, hi = _intervals(rng, 4000)
    shift = np.exp(rng.uniform(0, 0.5, 4000))
    for c, a, b, k in zip(centre, lo, hi, shift):
        before = decide(kind, low, high, a, b, point=c)
        after = decide(kind, low, high, a * k, b * k, point=c * k)
        b0, b1 = _allowed(before, kind, low, high)
        a0, a1 = _allowed(after, kind, low, high)
        assert a0 >= b0 and a1 >= b1
        if before.verdict in DRAWN and after.verdict in DRAWN:
            assert RANK[after.verdict] >= RANK[before.verdict]


def test_a_decided_verdict_is_the_outcome_its_whole_interval_lies_in():
    rng = np.random.default_rng(3)
    centre, lo, hi = _intervals(rng, 3000)
    band = no_effect()
    for c, a, b in zip(centre, lo, hi):
        v = decide("speedup", 1.1, 1.2, a, b, point=c)
        if v.verdict == INCONCLUSIVE:
            assert v.ranks[0] < v.ranks[1] and "too wide to tell" in why_text(v)
        elif v.verdict in (CONFIRMED, EXCEEDED):
            assert a >= 1.1 and (a <= 1.2) == (v.verdict == CONFIRMED)
        elif v.verdict == SMALLER:
            assert a > band[1] and b < 1.1
        elif v.verdict == NO_EFFECT_VERDICT:
            assert band[0] <= a and b <= band[1]
        else:
            assert v.verdict == SLOWER and b < band[0]


@pytest.mark.parametrize("kind,low,high", CLAIMS)
def test_an_interval_from_one_process_decides_nothing_however_narrow(kind, low, high):
    """One process's interval cannot show the spread between processes: whatever the
    interval (down to a point), the verdict is inconclusive with why, never drawn; so
    never easier than the same interval between processes, which may decide."""
    rng = np.random.default_rng(11)
    centre, lo, hi = _intervals(rng, 4000)
    narrow = np.exp(rng.uniform(-12, 0, 4000))  # shrunk towards the point, to 6e-6 of its width
    drawn = 0
    for c, a, b, k in zip(centre, lo, hi, narrow):
        for x, y in ((a, b), (c - (c - a) * k, c + (b - c) * k), (c, c)):
            between = decide(kind, low, high, x, y, point=c)
            one = decide(kind, low, high, x, y, point=c, one_process=True)
            assert (one.verdict, why_text(one), one.ranks) == (INCONCLUSIVE, ONE_PROCESS, None)
            assert between.verdict in (*DRAWN, INCONCLUSIVE)
            drawn += between.verdict in DRAWN
    assert drawn > 1000  # the same intervals between processes do decide, often
    # what no interval could change still comes first: not measurable, then the rounds floor
    assert decide(kind, low, high, 1.1, 1.2, "CPU run: no GPU", one_process=True).verdict == NOT_MEASURABLE
    assert decide(kind, low, high, None, None, too_few_rounds=THREE, one_process=True).rounds == THREE


def test_too_few_rounds_are_named_in_the_reason():
    v = decide("speedup", 1.1, 1.2, 1.0, 1.1, too_few_rounds=THREE)
    assert why_text(v) == why_no_ci([3], [6], 0.95) and "n = 3" in why_text(v)


def test_the_band_is_one_constant_the_verdicts_and_the_glossary_follow(monkeypatch):
    """Widening the no-effect band to 3% moves a CI of [1.021, 1.025] from smaller than
    claimed into no effect, and the glossary's definition and the reason say 3%."""
    band = BY_NAME["no-effect band"]
    assert band.definition == "Speedups from 1/1.02 to 1.02 (0.980–1.02×): within 2% of 1, too small to act on."
    assert decide("speedup", 1.1, 1.2, 1.021, 1.025).verdict == SMALLER
    assert decide("direction", None, None, 1.021, 1.025).verdict == CONFIRMED
    monkeypatch.setattr("report.claims.verdicts.NO_EFFECT_BAND", 1.03)
    assert NO_EFFECT_BAND == 1.02  # the import above is a copy; the rule reads the module's
    v = decide("speedup", 1.1, 1.2, 1.021, 1.025)
    assert v.verdict == NO_EFFECT_VERDICT
    assert why_text(v).endswith("lies inside the no-effect band [0.971, 1.03]")
    assert decide("direction", None, None, 1.021, 1.025).verdict == NO_EFFECT_VERDICT
    assert decide("speedup", 1.1, 1.2, 0.975, 0.99).verdict == NO_EFFECT_VERDICT  # was slower
    assert band.definition == "Speedups from 1/1.03 to 1.03 (0.971–1.03×): within 3% of 1, too small to act on."
