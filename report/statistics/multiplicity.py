"""The rounds floor of an interval the report draws itself (the harness uses the same
floor, harness/stopping_rule.h, and records it per comparison): an order-statistic
interval at confidence c needs n rounds with 1 - 2 * 0.5^n >= c (6 at 95%, 7 at 97.5%,
8 at 99%); below that the ratio has no CI at that confidence and, like any ratio below
the floor, no verdict rests on it (rounds.py).

No interval is corrected for a choice: what carries a claim's verdict is fixed before
the data (claims.json), never the best of several settings, so there is no choice to
correct for."""

from __future__ import annotations

import math


def rounds_floor(confidence: float) -> int:
    """The fewest rounds whose widest interval, [min, max], reaches `confidence`."""
    return max(1, math.ceil(math.log2(2.0 / (1.0 - confidence)) - 1e-9))
