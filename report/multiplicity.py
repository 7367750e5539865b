"""A verdict drawn from the best of several settings, corrected for the choice
(Bonferroni): where a case's headline is the largest of m matching speedups, each of
the m intervals is taken at confidence 1 - alpha / m (alpha = 0.05 at the harness's
95%), so all m cover their true speedups together with at least 1 - alpha, and so
does the one picked. Its rounds floor rises with it: an order-statistic interval at confidence c needs n rounds with
1 - 2 * 0.5^n >= c (6 at 95%, 7 at 97.5% and 98.3%, 8 at 99%); below that the ratio
has no CI at that confidence and, like any ratio below the floor, no verdict rests
on it (rounds.py). The harness uses the same floor (harness/stopping_rule.h) and
records it; this one is for the intervals the report draws itself."""
from __future__ import annotations

import math


def confidence_for(choices: int, confidence: float) -> float:
    """Each of `choices` intervals at this confidence, so that all hold together at
    `confidence` (the run's, document.Document.confidence)."""
    return 1.0 - (1.0 - confidence) / max(1, choices)


def rounds_floor(confidence: float) -> int:
    """The fewest rounds whose widest interval, [min, max], reaches `confidence`."""
    return max(1, math.ceil(math.log2(2.0 / (1.0 - confidence)) - 1e-9))


def choice_text(choices: int, confidence: float) -> str:
    """'best of 3, 98.3% CI' for a headline picked among several; '' for one."""
    return f"best of {choices}, {100 * confidence:.3g}% CI" if choices > 1 else ""
