"""Why a variant is faster or slower, from the profiler breakdowns (variants[].breakdown)
of it and its baseline: a profiled window per variant, run after the timed rounds, so
its per-step times explain a speedup but are no part of it. explain() gives the
per-category change per step of the baseline's work and one sentence for the tables
("matrix multiply -61% (12.1 -> 4.70 ms/step) and convolution -55% account for 80% of
the 9.60 ms/step saved (timed); idle 4% -> 19%; launches 1,212 -> 1 per step;
profiled: 5 steps, overhead +3% / +2%"). Whether a window may explain a comparison at
all is why_agree.py's rule; why_row.py puts the two together for a table row."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..load.document import Breakdown
from ..load.numbers import is_num
from ..render.fmt import sig, time_scale
from ..render.glossary import spelling

# "compiled" last: a category's plot colour is its place here, and older files' plots keep theirs.
CATEGORIES = (
    "gemm",
    "conv",
    "attention",
    "elementwise",
    "reduction_norm",
    "optimizer",
    "memcpy_h2d",
    "memcpy_d2h",
    "memcpy_d2d",
    "memcpy_host",
    "memset",
    "collective",
    "other",
    "compiled",
)
# Copies and memsets: device work no kernel launch starts.
TRANSFERS = ("memcpy_h2d", "memcpy_d2h", "memcpy_d2d", "memcpy_host", "memset")
IDLE = "idle"
LABELS = {
    "gemm": "matrix multiply",
    "conv": "convolution",
    "attention": "attention",
    "elementwise": "elementwise",
    "reduction_norm": "reductions/norms",
    "optimizer": "optimizer",
    "memcpy_h2d": "copy H2D",
    "memcpy_d2h": "copy D2H",
    "memcpy_d2d": "copy D2D",
    "memcpy_host": "host copy/cast",
    "memset": "memset",
    "collective": "collectives",
    "other": "other",
    "compiled": "compiled code",
    IDLE: "idle",
}
NOTE = (
    "The why column comes from a profiled window per variant, run after the timed rounds; "
    "its terms are in the glossary."
)
PER_BASE = spelling("per step of the baseline's work")
NOT_SETTLED = spelling("mean not settled")
# A change this many times the category's own time reads better as the times themselves.
RELATIVE_UP_TO = 3.0
# A second category under a fifth of the first's change adds words, not an explanation.
SECOND_MIN = 0.2


def label(category: str, device: object = None) -> str:
    """Human name; on a CPU, idle is time the stepping thread ran no operator."""
    if category == IDLE and device == "cpu":
        return "outside operators"
    return LABELS.get(category, category)


NO_DEVICE_EVENTS = "no device activity recorded in the window (CUPTI unavailable, or nothing ran on the GPU)"


def usable(bd: object) -> bool:
    """A breakdown with a window; on a GPU, one with device activity in it (a CUDA window
    where CUPTI saw nothing would read as 100% idle)."""
    return Breakdown.of(bd).usable


def per_step(bd: Breakdown | dict | None) -> dict[str, float]:
    """Seconds per step by category, in display order, idle last; only non-zero ones."""
    bd = Breakdown.of(bd)
    cats = bd.categories_s
    order = list(CATEGORIES) + sorted(k for k in cats if k not in CATEGORIES)
    out = {k: float(cats[k]) for k in order if is_num(cats.get(k)) and cats[k] != 0}
    if bd.idle_s is not None and bd.idle_s != 0:
        out[IDLE] = bd.idle_s
    return out


def idle_share(bd: Breakdown | dict | None) -> float | None:
    bd = Breakdown.of(bd)
    if bd.idle_share is not None:
        return bd.idle_share
    idle, window = bd.idle_s, bd.window_step_s
    return idle / window if idle is not None and window is not None and window > 0 else None


def _why_not(base_bd: object, var_bd: object) -> str:
    """The reason in 'no breakdown (...)': the variant's, else the baseline's."""
    for bd, who in ((Breakdown.of(var_bd), ""), (Breakdown.of(base_bd), "baseline: ")):
        if bd.usable:
            continue
        if not bd.recorded:
            return f"{who}not profiled"
        if bd.status == "ok" and bd.no_device_events:
            return who + NO_DEVICE_EVENTS
        if bd.status == "ok":
            return f"{who}no profiled step time"
        return who + str(bd.reason or bd.status or "not profiled")
    return "not profiled"


def _pair(before: float, after: float) -> str:
    div, unit = time_scale([before, after])
    return f"{sig(before / div)} -> {sig(after / div)} {unit}/step"


def _amount(s: float) -> str:
    div, unit = time_scale([s])
    return f"{sig(abs(s) / div)} {unit}/step"


def _change(t: Mover, with_times: bool, detail: bool = True) -> str:
    """'matrix multiply -61% (12.1 -> 4.70 ms/step)'; 'copy H2D new (0 -> 1.20 ms/step)';
    'other (aten::x) -5%' with its detail, 'other -5%' without."""
    b, a = t.before_s, t.after_s
    name = f"{t.label} ({t.detail})" if detail and t.detail else t.label
    if b > 0 and a / b - 1 > RELATIVE_UP_TO:  # '+2497%' of almost nothing: the times say it
        return f"{name} {_pair(b, a)}"
    rel = f"{100 * (a / b - 1):+.0f}%" if b > 0 else "new"
    if with_times:
        return f"{name} {rel} ({_pair(b, a)})"
    return f"{name} {rel}" if b > 0 else f"{name} +{_amount(a)}"


# TorchScript records a scripted method's call as an operator named after the method;
# its self time is the graph's own work (fused or prepacked ops such as a frozen
# graph's oneDNN convolutions) that no ATen operator record covers.
GRAPH_CALLS = {"forward": ("TorchScript graph's own time", "forward")}


def _other_name(t: Mover, base_bd: Breakdown | dict, var_bd: Breakdown | dict) -> Mover:
    """'other (aten::x)': the operator that carries most of the other time, where one
    does; a TorchScript graph's call is named as the compiled code it is."""
    if t.category != "other":
        return t
    name = Breakdown.of(var_bd if t.delta_s > 0 else base_bd).top_operator("other")
    if name is None:
        return t
    label, detail = GRAPH_CALLS.get(name, (t.label, name))
    return replace(t, label=label, detail=detail)


def window_speedup(
    base_bd: Breakdown | dict | None, var_bd: Breakdown | dict | None, base_work: float = 1.0, var_work: float = 1.0
) -> float | None:
    """The speedup the two profiled windows show, per unit of work like the timed one."""
    base_bd, var_bd = Breakdown.of(base_bd), Breakdown.of(var_bd)
    if not (base_bd.usable and var_bd.usable) or not (base_work > 0 and var_work > 0):
        return None
    b, v = base_bd.window_step_s / base_work, var_bd.window_step_s / var_work
    return b / v if v > 0 else None


def _launches(x: float) -> str:
    return f"{x:,.0f}" if x >= 10 or float(x).is_integer() else f"{x:.1f}"


def _profiled(base_bd: Breakdown, var_bd: Breakdown) -> str:
    """'profiled: 20 steps, overhead +44% / +31%': what stands behind the shares."""
    steps = (base_bd.steps, var_bd.steps)
    text = (
        f"profiled: {steps[0]} step{'s' * (steps[0] != 1)}"
        if steps[0] == steps[1] and is_num(steps[0])
        else f"profiled: {steps[0]} / {steps[1]} steps"
    )
    over = (base_bd.overhead, var_bd.overhead)
    if all(o is not None for o in over):
        text += f", overhead {100 * over[0]:+.0f}% / {100 * over[1]:+.0f}%"
        marks = _beyond(base_bd, var_bd)
        text += f" ({'; '.join(marks)})" if marks else ""
    return text


def _beyond(base_bd: Breakdown, var_bd: Breakdown) -> list[str]:
    """What the window-sizing rule (windows sized by it record `window`;
    older ones are not marked) could not promise: an overhead beyond `tolerance` ('over
    the ±25% bound'), a mean whose standard error stayed above target."""
    marks = []
    sized = [bd for bd in (base_bd, var_bd) if bd.sized]
    bounds = [bd.tolerance for bd in sized if bd.agrees is False and bd.tolerance is not None]
    if bounds:
        marks.append(f"over the ±{100 * max(bounds):.0f}% bound")
    if any(bd.stopped == "max_steps" for bd in sized):
        marks.append(NOT_SETTLED)
    return marks


def _ranked(cats: list[str], deltas: dict[str, float], sign: float) -> list[str]:
    """Categories that moved in direction `sign`, largest first; a second under a fifth
    of the first adds words, not an explanation."""
    moved = sorted((k for k in cats if deltas[k] * sign > 0), key=lambda k: -abs(deltas[k]))
    if len(moved) > 1 and abs(deltas[moved[1]]) < SECOND_MIN * abs(deltas[moved[0]]):
        moved = moved[:1]
    return moved[:2]


@dataclass(frozen=True)
class Mover:
    """One category's change per step, baseline to variant (the variant's per step of the baseline's work)."""

    category: str
    label: str
    before_s: float
    after_s: float
    delta_s: float
    share_of_change: float | None  # delta_s / the change explained
    detail: str = ""  # what the label's category holds here, in brackets with the times: 'aten::x'


@dataclass(frozen=True)
class Shares:
    """explain()'s result: what the two windows say moved, per step of the baseline's work.
    ok False: a breakdown is missing or unusable, `reason` says which."""

    ok: bool
    reason: str = ""  # why there is no breakdown to explain with
    device: object = None
    before_s: dict = field(default_factory=dict)
    after_s: dict = field(default_factory=dict)
    deltas_s: dict = field(default_factory=dict)
    step_s: tuple = (None, None)  # the windows' step times (the variant's scaled)
    change_s: float | None = None  # the change explained: the timed one where given, else the windows'
    timed: bool = False  # change_s is the timed change
    per_base: bool = False  # the variant's times were scaled to the baseline's work
    launches: tuple = (None, None)  # launches per step, shown where `show_launches`
    show_launches: bool = True
    idle_share: tuple = (None, None)
    top: tuple = ()  # the one or two Movers with the change
    against: Mover | None = None  # the largest Mover against it
    profiled: str = ""  # 'profiled: 5 steps, overhead +3% / +2%'

    @property
    def moved_s(self) -> float:
        return sum(t.delta_s for t in self.top)

    @property
    def covers_all(self) -> bool:
        """The movers moved more than the change (or it is none): they 'cover all of' it."""
        return bool(self.top) and (not self.change_s or self.moved_s / self.change_s > 1.0)

    def movers(self, detail: bool = True) -> str:
        """'A -61% (12.1 -> 4.70 ms/step) and B -55% account for 91% of the 10.6 ms/step saved
        (timed)'; detail False: without the bracketed times and basis (the summary's phrase)."""
        return _movers(self, detail)

    @property
    def sentence(self) -> str:
        if not self.ok:
            return f"no breakdown ({self.reason})"
        parts = [self.movers()]
        if all(is_num(x) for x in self.idle_share):
            parts.append(
                f"{label(IDLE, self.device)} {100 * self.idle_share[0]:.0f}% -> {100 * self.idle_share[1]:.0f}%"
            )
        if self.show_launches and all(is_num(x) for x in self.launches):
            parts.append(f"launches {_launches(self.launches[0])} -> {_launches(self.launches[1])} per step")
        parts.append(self.profiled)
        return "; ".join(parts)


def explain(
    base_bd: Breakdown | dict | None,
    var_bd: Breakdown | dict | None,
    scale: float = 1.0,
    timed_change_s: float | None = None,
    launches: bool = True,
) -> Shares:
    """Per-category per-step change from baseline to variant (idle included), the
    variant's times scaled by `scale` (baseline work / variant work: the baseline's
    step of work, the speedup column's unit), launches and idle share before/after,
    the one or two categories that moved most in the direction of `timed_change_s`
    (the timed step change; without it, the windows'), the largest one against it,
    and the sentence (launches=False: without launches, where a counter already
    gave them). A share is of the timed change and lies in (0, 100%]. ok is
    False (and sentence 'no breakdown (reason)') when either breakdown is missing or
    not status ok."""
    base_bd, var_bd = Breakdown.of(base_bd), Breakdown.of(var_bd)
    if not (base_bd.usable and var_bd.usable):
        return Shares(False, _why_not(base_bd, var_bd))
    device = var_bd.device or base_bd.device
    before = per_step(base_bd)
    after = {k: v * scale for k, v in per_step(var_bd).items()}
    cats = [k for k in list(CATEGORIES) + [IDLE] if k in before or k in after]
    cats += [k for k in {**before, **after} if k not in cats]
    deltas = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in cats}
    step = (base_bd.window_step_s, var_bd.window_step_s * scale)
    timed = is_num(timed_change_s) and timed_change_s != 0
    change = timed_change_s if timed else step[1] - step[0]
    sign = -1.0 if change < 0 else 1.0

    def item(k: str) -> Mover:
        m = Mover(
            k,
            label(k, device),
            before.get(k, 0.0),
            after.get(k, 0.0),
            deltas[k],
            deltas[k] / change if change else None,
        )
        return _other_name(m, base_bd, var_bd)

    profiled = _profiled(base_bd, var_bd)
    top = tuple(item(k) for k in _ranked(cats, deltas, sign))
    against = _ranked(cats, deltas, -sign)[:1]
    against = (
        item(against[0]) if against and top and abs(deltas[against[0]]) >= SECOND_MIN * abs(top[0].delta_s) else None
    )
    return Shares(
        True,
        device=device,
        before_s=before,
        after_s=after,
        deltas_s=deltas,
        step_s=step,
        change_s=change,
        timed=timed,
        per_base=scale != 1.0,
        launches=(base_bd.launches_per_step, var_bd.launches_per_step),
        show_launches=launches,
        idle_share=(idle_share(base_bd), idle_share(var_bd)),
        top=top,
        against=against,
        profiled=profiled,
    )


def _movers(sh: Shares, detail: bool) -> str:
    """'A -61% (12.1 -> 4.70 ms/step) and B -55% account for 91% of the 10.6 ms/step saved
    (timed)'. A share over 100% is never printed: movers larger than the change 'cover
    all of' it, with what they moved and what offset the rest."""
    change, top, against = sh.change_s, sh.top, sh.against
    verb = "saved" if change < 0 else "added"
    basis = ("timed" if sh.timed else "profiled windows") + (f", {PER_BASE}" if sh.per_base else "")
    whole = f"the {_amount(change)} {verb}"
    if not top:
        return (
            f"no category moved with {whole} ({basis}); window step {_pair(*sh.step_s)}"
            if detail
            else f"no category moved with {whole}"
        )
    movers = " and ".join(_change(t, detail and i == 0, detail) for i, t in enumerate(top))
    if not sh.covers_all:
        verb_n = "accounts" if len(top) == 1 else "account"
        text = f"{movers} {verb_n} for {100 * sh.moved_s / change:.0f}% of {whole}"
        text += f" ({basis})" if detail else ""
        return text + (f", partly offset by {_change(against, False, detail)}" if against else "")
    verb_n = "covers" if len(top) == 1 else "cover"
    if not detail:
        return f"{movers} {verb_n} all of {whole}"
    excess = abs(sh.moved_s) - abs(change)  # what the movers moved beyond the change
    if against is None:
        rest = "other categories offset the rest"
    elif abs(abs(against.delta_s) - excess) <= 0.01 * abs(sh.moved_s):
        rest = f"{_change(against, False)} offset the rest"
    else:  # it moved more (or less) than the rest: other categories moved too
        rest = f"{_change(against, False)} against it"
    return f"{movers} {verb_n} all of {whole} ({basis}; they moved {_amount(sh.moved_s)}, {rest})"
