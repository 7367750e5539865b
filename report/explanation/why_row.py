"""The why of one comparison's table row: a mechanism from the profiled windows
(why.py) only where the profile agrees with the timing (why_agree.py), stated per
step of the baseline's work (the speedup column's unit) against the timed
difference; otherwise the reason none is shown. Where the experiment names a
mechanism counter (why_counters.py) that moved the way the timing did, it leads:
a count holds even where the windows' times do not.

`Why` is made once per comparison and rendered at the edge: the table prints
`text()`, the summary `headline()`, and the audit (report/tests/why_audit.py) checks its fields
against the timing."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..load.document import Variant
from ..load.numbers import is_num
from ..statistics.measurement import Measurement
from .why import Shares, explain, usable
from .why_agree import Agreement, agreement
from .why_counters import Count, named_count

# Where a counter carries the mechanism but the windows' times disagree with the timing.
TIMES_NOT_USED = "the windows' times disagree with the timing, so no time shares"
NO_TIMED_STEP = "no timed baseline step: not explained"


class Kind(Enum):
    """What a why says: a closed set."""

    SHARES = "shares"  # the windows' time shares explain the timed change (a count may lead)
    COUNT = "count"  # the experiment's counter leads; the windows' times disagree, so no shares
    NOT_EXPLAINED = "not_explained"  # no mechanism: `agreement` (or no timed baseline step) says why
    NO_BREAKDOWN = "no_breakdown"  # a window is missing or unusable: `shares.reason` says why


@dataclass(frozen=True)
class Why:
    kind: Kind
    shares: Shares | None  # SHARES: the shares shown; NO_BREAKDOWN: ok False, with the reason; else None
    agreement: Agreement | None = None  # None under NO_BREAKDOWN
    count: Count | None = None  # the experiment's named counter, where both windows measured it
    count_leads: bool = False  # it moved the way the timing did: the mechanism

    @property
    def is_mechanism(self) -> bool:
        """It names a mechanism (time shares, or a leading count), not why none is shown."""
        return self.kind in (Kind.SHARES, Kind.COUNT)

    def text(self) -> str:
        """The table's sentence."""
        if self.kind is Kind.NO_BREAKDOWN:
            return self.shares.sentence  # 'no breakdown (reason)'
        if self.kind is Kind.SHARES:
            if self.count_leads:
                return f"{self.count.text()}; {self.shares.sentence}"
            return self._with_count(self.shares.sentence)
        if self.kind is Kind.COUNT:
            detail = self.agreement.detail()
            return f"{self.count.text()}; {TIMES_NOT_USED}{' ' + detail if detail else ''}"
        return self._with_count(self.agreement.text() or NO_TIMED_STEP)

    def headline(self) -> str:
        """The summary's phrase: the leading count, else the movers without their
        bracketed detail; '' where no mechanism is shown."""
        if self.count_leads and self.is_mechanism:
            return self.count.text()
        return self.shares.movers(detail=False) if self.kind is Kind.SHARES else ""

    def _with_count(self, text: str) -> str:
        """What was counted, in brackets where it is no mechanism (it did not move the
        way the timing did, or the timing has no direction)."""
        return text if self.count is None else f"{text} (counted: {self.count.text()})"


def timed_change_s(base: Variant, speedup: float | None) -> float | None:
    """The timed step change per baseline step of work: t_base / speedup - t_base,
    negative when the variant is faster; t_base the baseline's timed median step."""
    t = base.stats.median
    if not (is_num(t) and t > 0 and is_num(speedup) and speedup > 0):
        return None
    return t / speedup - t


def why_of(
    timed: Measurement, base: Variant, var: Variant, counters: object = (), shown: Measurement | None = None
) -> Why:
    """The why of variant `var` against `base`, whose ratio the process their windows
    were profiled in timed as `timed`; counters: the experiment's mechanism_counters
    (absent in older files); shown: the comparison's one estimate printed beside it,
    where that is not `timed` (why_agree.agreement, rule 1)."""
    bb, vb = base.breakdown, var.breakdown
    if not (usable(bb) and usable(vb)):
        return Why(Kind.NO_BREAKDOWN, explain(bb, vb))
    ag = agreement(timed, base, var, shown)
    change = timed_change_s(base, timed.speedup)
    scale = base.work / var.work
    count = named_count(counters, bb, vb, scale)
    # A count leads only where the timing has a direction (the CI excludes 1) and it moved that way.
    leads = count is not None and count.moved_with(timed.speedup) and (ag.ok or ag.reason.disagrees)
    if ag.ok and change is not None:
        shares = explain(bb, vb, scale, change, launches=not (leads and count.key == "kernel_launches_per_step"))
        return Why(Kind.SHARES, shares, ag, count, leads)
    kind = Kind.COUNT if leads and not ag.ok else Kind.NOT_EXPLAINED
    return Why(kind, None, ag, count, leads and kind is Kind.COUNT)
