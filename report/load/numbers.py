"""What a results file's value is: a number is a finite int or float, never a bool (which
Python counts as an int) nor NaN or an infinity (which Python's json reads)."""

from __future__ import annotations

import math


def is_num(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
