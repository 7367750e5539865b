"""The mechanism counter a why sentence leads with. An experiment names the
breakdown counters that carry its claim (its `mechanism_counters`, preferred first;
harness/profiling/counters.h defines them): set_to_none removes fill operations,
foreach/fused AdamW calls fewer optimizer operators, no_grad records no autograd
nodes. Counts, not times: the profiler's overhead does not change them.

The first named counter measured in both windows is used, per step of the
baseline's work (the variant's count scaled by baseline work / variant work, as
the times are). It leads the sentence as the mechanism only where the timed CI
excludes 1 and the count moved the way the timing did (fewer where faster, more
where slower); otherwise it is shown in brackets as what was counted."""

from __future__ import annotations

from dataclasses import dataclass

from ..load.document import Breakdown
from ..load.numbers import is_num
from ..render.fmt import sig
from ..render.glossary import spelling

LABELS = {
    "op_calls_per_step": "operator calls",
    "top_level_ops_per_step": "top-level operator calls",
    "autograd_nodes_per_step": "autograd nodes recorded",
    "backward_nodes_per_step": "autograd nodes run in backward",
    "fills_per_step": "fill operations",
    "host_reads_per_step": "host reads (.item())",
    "optimizer_steps_per_step": "optimizer steps",
    "optimizer_ops_per_step": "optimizer operator calls",
    "kernel_launches_per_step": "kernel launches",
}
PER_BASE = spelling("per step of the baseline's work")  # why.py's words for a scaled figure


@dataclass(frozen=True)
class Count:
    key: str
    before: float  # per step of the baseline
    after: float  # per step of the baseline's work
    scaled: bool  # the variant's count was scaled by baseline work / variant work

    @property
    def label(self) -> str:
        return LABELS.get(self.key, self.key)

    def moved_with(self, speedup: object) -> bool:
        """Fewer where the timing is faster, more where slower."""
        return (
            is_num(speedup)
            and speedup != 1.0
            and self.after != self.before
            and (self.after < self.before) == (speedup > 1.0)
        )

    def text(self) -> str:
        """'fill operations 34 -> 0 per step'."""
        unit = PER_BASE if self.scaled else "per step"
        return f"{self.label} {count_text(self.before)} -> {count_text(self.after)} {unit}"


def count_text(x: float) -> str:
    """Whole counts with thousands separators; a fraction (a count per step of a
    window of several) to 3 figures, or whole from 100 on."""
    if abs(x - round(x)) < 1e-9:
        return f"{round(x):,}"
    return f"{x:,.0f}" if abs(x) >= 100 else sig(x)


def named_count(keys: object, base_bd: object, var_bd: object, scale: float = 1.0) -> Count | None:
    """The first of the experiment's named counters that both windows measured."""
    for key in keys if isinstance(keys, (list, tuple)) else ():
        before, after = Breakdown.of(base_bd).counter(key), Breakdown.of(var_bd).counter(key)
        if before is not None and after is not None:
            return Count(str(key), before, after * scale, scale != 1.0)
    return None
