"""The why text of one comparison's table row: a mechanism from the profiled windows
(why.py) only where the profile agrees with the timing (why_agree.py), stated per
step of the baseline's work (the speedup column's unit) against the timed
difference; otherwise the reason none is shown. Where the experiment names a
mechanism counter (why_counters.py) that moved the way the timing did, the
sentence leads with it: a count holds even where the windows' times do not."""
from __future__ import annotations

from .fmt import is_num
from .why import explain, usable
from .why_agree import NOT_EXPLAINED, agreement
from .why_counters import LABELS, named_count

# Where a counter carries the mechanism but the windows' times disagree with the timing.
TIMES_NOT_USED = "the windows' times disagree with the timing, so no time shares"


def timed_change_s(base: dict, speedup: float) -> float | None:
    """The timed step change per baseline step of work: t_base / speedup - t_base,
    negative when the variant is faster; t_base the baseline's timed median step."""
    t = (base.get("stats") or {}).get("median")
    if not (is_num(t) and t > 0 and is_num(speedup) and speedup > 0):
        return None
    return t / speedup - t


def why_text(cm: dict, base: dict, var: dict, base_work: float, var_work: float, below_floor: bool,
             counters: object = ()) -> str:
    """counters: the experiment's mechanism_counters (absent in older files)."""
    bb, vb = base.get("breakdown"), var.get("breakdown")
    if not (usable(bb) and usable(vb)):
        return explain(bb, vb)["sentence"]  # 'no breakdown (reason)'
    ag = agreement(cm, base, var, base_work, var_work, below_floor)
    change = timed_change_s(base, cm.get("speedup"))
    count = named_count(counters, bb, vb, base_work / var_work)
    # A count leads only where the timing has a direction (the CI excludes 1) and it moved that way.
    leads = count is not None and count.moved_with(cm.get("speedup")) and \
        (ag.ok or ag.reason.startswith(NOT_EXPLAINED))
    if ag.ok and change is not None:
        sentence = explain(bb, vb, base_work / var_work, change,
                           launches=not (leads and count.key == "kernel_launches_per_step"))["sentence"]
        return f"{count.text()}; {sentence}" if leads else _with_count(sentence, count)
    if leads and not ag.ok:
        detail = ag.reason[len(NOT_EXPLAINED):].strip()
        return f"{count.text()}; {TIMES_NOT_USED}{' ' + detail if detail else ''}"
    reason = ag.reason or "no timed baseline step: not explained"
    return _with_count(reason, count)


def leads_with_count(text: str) -> bool:
    """Whether a why leads with the experiment's mechanism counter (why_text's
    'fill operations 53 -> 19 per step; ...'): a count that moved with the timing,
    which stands whether or not the windows' times could be used."""
    return any(text.startswith(label + " ") for label in LABELS.values())


def _with_count(text: str, count) -> str:
    """What was counted, in brackets where it is no mechanism (it did not move the
    way the timing did, or the timing has no direction)."""
    if count is None:
        return text
    return f"{text} (counted: {count.text()})"

