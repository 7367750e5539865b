"""The why text of one comparison's table row: a mechanism from the profiled windows
(why.py) only where the profile agrees with the timing (why_agree.py), stated per
step of the baseline's work (the speedup column's unit) against the timed
difference; otherwise the reason none is shown."""
from __future__ import annotations

from .fmt import is_num
from .why import explain, usable
from .why_agree import agreement


def timed_change_s(base: dict, speedup: float) -> float | None:
    """The timed step change per baseline step of work: t_base / speedup - t_base,
    negative when the variant is faster; t_base the baseline's timed median step."""
    t = (base.get("stats") or {}).get("median")
    if not (is_num(t) and t > 0 and is_num(speedup) and speedup > 0):
        return None
    return t / speedup - t


def why_text(cm: dict, base: dict, var: dict, base_work: float, var_work: float, below_floor: bool) -> str:
    bb, vb = base.get("breakdown"), var.get("breakdown")
    if not (usable(bb) and usable(vb)):
        return explain(bb, vb)["sentence"]  # 'no breakdown (reason)'
    ag = agreement(cm, base, var, base_work, var_work, below_floor)
    change = timed_change_s(base, cm.get("speedup"))
    if not ag.ok or change is None:
        return ag.reason or "no timed baseline step: not explained"
    return explain(bb, vb, base_work / var_work, change)["sentence"]
