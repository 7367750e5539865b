import pytest

from report.verdicts import (CONFIRMED, EXCEEDED, NOT_MEASURABLE, NOT_REPRODUCED, SMALLER, claimed_text,
                             decide)

CASES = [
    # kind, low, high, ci_low, ci_high, unavailable, verdict
    ("speedup", 1.10, 1.20, 1.12, 1.18, None, CONFIRMED),
    ("speedup", 1.10, 1.20, 1.05, 1.12, None, CONFIRMED),       # overlaps the low end
    ("speedup", 1.10, 1.20, 1.18, 1.30, None, CONFIRMED),       # overlaps the high end
    ("speedup", 1.10, 1.20, 1.00001, 1.5, None, CONFIRMED),     # range inside a wide CI
    ("speedup", 1.10, 1.20, 1.25, 1.40, None, EXCEEDED),
    ("speedup", 1.10, 1.20, 1.02, 1.08, None, SMALLER),
    ("speedup", 1.10, 1.20, 0.98, 1.15, None, NOT_REPRODUCED),  # CI includes 1
    ("speedup", 1.10, 1.20, 1.00, 1.05, None, NOT_REPRODUCED),  # CI touches 1
    ("speedup", 1.10, 1.20, 0.70, 0.80, None, NOT_REPRODUCED),  # slower
    ("speedup", 1.80, 2.20, 17.0, 19.0, None, EXCEEDED),
    ("speedup", 1.10, 1.20, 1.12, 1.18, "CPU run: no GPU", NOT_MEASURABLE),
    ("speedup", 1.10, 1.20, None, None, None, NOT_MEASURABLE),    # nothing measured
    ("speedup", None, None, 1.2, 1.3, None, NOT_MEASURABLE),      # numeric kind without numbers
    ("qualitative", None, None, 1.2, 1.3, None, NOT_MEASURABLE),
    ("direction", None, None, 1.01, 1.05, None, CONFIRMED),
    ("direction", None, None, 0.99, 1.05, None, NOT_REPRODUCED),
    ("direction", None, None, 0.70, 0.75, None, NOT_REPRODUCED),
    ("speedup", 1.10, 1.20, 1.18, 1.12, None, CONFIRMED),       # CI ends swapped
]


@pytest.mark.parametrize("kind,low,high,lo,hi,unavailable,expected", CASES)
def test_verdict_table(kind, low, high, lo, hi, unavailable, expected):
    v = decide(kind, low, high, lo, hi, unavailable)
    assert v.verdict == expected
    assert v.why


def test_why_texts():
    assert decide("speedup", 1.1, 1.2, 1.1, 1.2, "CPU run: no GPU").why == "CPU run: no GPU"
    assert "no number" in decide("qualitative", None, None, 1.1, 1.2).why
    assert "below 1" in decide("speedup", 1.1, 1.2, 0.7, 0.8).why
    assert claimed_text("speedup", 1.1, 1.2) == "1.10–1.20×"
    assert claimed_text("direction", None, None).startswith("faster")
