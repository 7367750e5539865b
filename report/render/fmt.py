"""Number formatting shared by the tables: times, rates, speedups, bytes."""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..load.numbers import is_num
from ..statistics.rounds import rounds_text

DASH = "—"

# (divisor, unit) from largest to smallest, per throughput kind.
RATE_UNITS = {
    "bytes": [(1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s"), (1e3, "kB/s"), (1.0, "B/s")],
    "flops": [(1e15, "PFLOP/s"), (1e12, "TFLOP/s"), (1e9, "GFLOP/s"), (1e6, "MFLOP/s"), (1.0, "FLOP/s")],
    "items": [(1e6, "M items/s"), (1e3, "k items/s"), (1.0, "items/s")],
}


def sig(v: float, digits: int = 3) -> str:
    """v with `digits` significant figures, without exponent for everyday magnitudes."""
    if not is_num(v):
        return DASH
    if v == 0:
        return "0"
    mag = math.floor(math.log10(abs(float(f"{v:.{digits - 1}e}"))))  # after rounding: 0.9996 -> 1.00
    if mag >= 6 or mag < -4:
        return f"{v:.{digits - 1}e}"
    decimals = max(0, digits - 1 - mag)
    return f"{v:.{decimals}f}"


def sig_apart(v: float, bounds: Iterable[float] = (), digits: int = 3, g: bool = False) -> str:
    """v as sig() prints it (or '%g' at `digits`, g=True), with more digits, up to 6, where
    fewer would print it on or across a bound it is judged against: a CI's low end 1.0487
    beside a claim of 1.05-1.15 prints '1.049', since '1.05' would read as inside the claim
    that the verdict beside it says the interval leaves."""
    if not is_num(v):
        return DASH
    v = float(v)
    bounds = [float(b) for b in bounds if is_num(b) and float(b) != v]  # never a bound of itself

    def text(d: int) -> str:
        return f"{v:.{d}g}" if g else sig(v, d)

    def side(x: float, b: float) -> int:
        return int(x > b) - int(x < b)

    out = text(digits)
    while digits < 6 and any(side(float(out), b) != side(v, b) for b in bounds):
        digits += 1
        out = text(digits)
    return out


def sig_distinct(values: list[float], digits: int = 3) -> list[str]:
    """The values as sig() prints them, all to the fewest digits (at least `digits`, at
    most 6) at which they keep their order and values that differ print differently: two
    runs' intervals named as apart, [1.25, 1.2996] and [1.3004, 1.35], never print as
    touching ('[1.25, 1.30], [1.30, 1.35]')."""
    vs = [float(v) for v in values]
    for d in range(digits, 7):
        out = [sig(v, d) for v in vs]
        ps = [float(x) for x in out]
        if all((ps[i] < ps[j]) == (vs[i] < vs[j]) for i in range(len(vs)) for j in range(len(vs))):
            return out
    return out


def intervals_apart(cis: list[tuple[float, float]]) -> list[str]:
    """'[lo, hi]' of intervals named as apart, every end to sig_distinct's common digits."""
    ends = iter(sig_distinct([x for ci in cis for x in ci]))
    return [f"[{a}, {b}]" for a, b in zip(ends, ends)]


def fmt_time(s: object) -> str:
    if not is_num(s):
        return DASH
    for div, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")):
        if abs(s) >= div or unit == "ns":
            return f"{sig(s / div)} {unit}"
    return DASH


def time_scale(values: list[object]) -> tuple[float, str]:
    """One (divisor, unit) for times shown side by side (12.1 -> 4.70 ms): the largest
    unit in which the biggest value is >= 1, so a pair never mixes units."""
    vals = [abs(v) for v in values if is_num(v) and v != 0]
    top = max(vals, default=0.0)
    for div, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if top >= div:
            return div, unit
    return 1e-9, "ns"


def rate_scale(kind: str, values: list[float]) -> tuple[float, str]:
    """One (divisor, unit) for a column: the largest unit in which the biggest value is >= 1."""
    units = RATE_UNITS[kind]
    vals = [abs(v) for v in values if is_num(v) and v != 0]
    if not vals:
        return {"bytes": (1e9, "GB/s"), "flops": (1e12, "TFLOP/s")}.get(kind, units[-1])
    top = max(vals)
    for div, unit in units:
        if top >= div:
            return div, unit
    return units[-1]


def fmt_rate(v: object, div: float) -> str:
    return sig(v / div) if is_num(v) else DASH


def fmt_items(v: object, item_name: str = "items") -> str:
    if not is_num(v):
        return DASH
    for div, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")):
        if abs(v) >= div or div == 1.0:
            return f"{sig(v / div)}{prefix} {item_name}/s"
    return DASH


def fmt_speedup(s: object, lo: object = None, hi: object = None, bounds: Iterable[float] = ()) -> str:
    """'1.07× [1.049, 1.09]': the point and interval, each to 3 digits or as many more as
    keep it on its own side of the `bounds` a verdict on it is drawn against."""
    if not is_num(s):
        return DASH
    out = f"{sig_apart(s, bounds)}×"
    if is_num(lo) and is_num(hi):
        out += f" [{sig_apart(lo, bounds)}, {sig_apart(hi, bounds)}]"
    return out


def fmt_no_ci(s: object, rounds: int | None, bounds: Iterable[float] = ()) -> str:
    """A speedup from fewer rounds than the floor: the point and its n, saying there is
    no CI, so that it never reads like a measured interval ('7.13× (n = 1, no CI)')."""
    if not is_num(s):
        return DASH
    return f"{sig_apart(s, bounds)}× ({rounds_text([rounds])}, no CI)"


def fmt_pct(frac: object) -> str:
    if not is_num(frac):
        return DASH
    pct = 100 * frac
    return f"{pct:.1f}%" if pct < 10 else f"{pct:.0f}%"


def fmt_bytes(n: object) -> str:
    if not is_num(n):
        return DASH
    for div, unit in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if abs(n) >= div:
            return f"{sig(n / div)} {unit}"
    return f"{int(n)} B"


def fmt_change(rel: object) -> str:
    """Relative change of time, +5.0% = slower."""
    if not is_num(rel):
        return DASH
    return f"{100 * rel:+.1f}%"
