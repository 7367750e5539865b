"""Why a variant is faster or slower, from the profiler breakdowns (variants[].breakdown)
of it and its baseline: a profiled window per variant, run after the timed rounds, so
its per-step times explain a speedup but are no part of it. explain() gives the
per-category change per step and one sentence for the tables ("matrix multiply -61%
(12.1 -> 4.70 ms/step) and convolution -55% account for 80% of the 9.60 ms/step saved;
idle 4% -> 19%; launches 1,212 -> 1 per step")."""
from __future__ import annotations

from .fmt import is_num, sig, time_scale

CATEGORIES = ("gemm", "conv", "attention", "elementwise", "reduction_norm", "optimizer", "memcpy_h2d",
              "memcpy_d2h", "memcpy_d2d", "memcpy_host", "memset", "collective", "other")
IDLE = "idle"
LABELS = {"gemm": "matrix multiply", "conv": "convolution", "attention": "attention", "elementwise": "elementwise",
          "reduction_norm": "reductions/norms", "optimizer": "optimizer", "memcpy_h2d": "copy H2D",
          "memcpy_d2h": "copy D2H", "memcpy_d2d": "copy D2D", "memcpy_host": "host copy/cast", "memset": "memset",
          "collective": "collectives", "other": "other", IDLE: "idle"}
CAVEAT = "shares indicative only"
NOTE = ("The why column and the stacked bars come from a profiled window per variant (PyTorch profiler/Kineto) "
        "run after the timed rounds; no profiled step is part of a timed sample.")
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
    return (isinstance(bd, dict) and bd.get("status") == "ok" and is_num(bd.get("window_step_s"))
            and not (bd.get("device") == "cuda" and bd.get("device_events") == 0))


def per_step(bd: dict) -> dict[str, float]:
    """Seconds per step by category, in display order, idle last; only non-zero ones."""
    cats = bd.get("categories_s") or {}
    order = list(CATEGORIES) + sorted(k for k in cats if k not in CATEGORIES)
    out = {k: float(cats[k]) for k in order if is_num(cats.get(k)) and cats[k] != 0}
    if is_num(bd.get("idle_s")) and bd["idle_s"] != 0:
        out[IDLE] = float(bd["idle_s"])
    return out


def idle_share(bd: dict) -> float | None:
    share = (bd.get("shares") or {}).get(IDLE)
    if is_num(share):
        return float(share)
    idle, window = bd.get("idle_s"), bd.get("window_step_s")
    return idle / window if is_num(idle) and is_num(window) and window > 0 else None


def _why_not(base_bd: object, var_bd: object) -> str:
    """The reason in 'no breakdown (...)': the variant's, else the baseline's."""
    for bd, who in ((var_bd, ""), (base_bd, "baseline: ")):
        if usable(bd):
            continue
        if not isinstance(bd, dict):
            return f"{who}not profiled"
        if bd.get("status") == "ok" and bd.get("device") == "cuda" and bd.get("device_events") == 0:
            return who + NO_DEVICE_EVENTS
        if bd.get("status") == "ok":
            return f"{who}no profiled step time"
        return who + str(bd.get("reason") or bd.get("status") or "not profiled")
    return "not profiled"


def _pair(before: float, after: float) -> str:
    div, unit = time_scale([before, after])
    return f"{sig(before / div)} -> {sig(after / div)} {unit}/step"


def _amount(s: float) -> str:
    div, unit = time_scale([s])
    return f"{sig(abs(s) / div)} {unit}/step"


def _change(t: dict, with_times: bool) -> str:
    """'matrix multiply -61% (12.1 -> 4.70 ms/step)'; 'copy H2D new (0 -> 1.20 ms/step)'."""
    b, a = t["before_s"], t["after_s"]
    rel = f"{100 * (a / b - 1):+.0f}%" if b > 0 else "new"
    if with_times:
        return f"{t['label']} {rel} ({_pair(b, a)})"
    return f"{t['label']} {rel}" if b > 0 else f"{t['label']} +{_amount(a)}"


def _other_name(t: dict, base_bd: dict, var_bd: dict) -> None:
    """'other (forward)': the operator that carries most of the other time, where one does
    (a frozen TorchScript graph runs its convolutions inside 'forward')."""
    if t["category"] != "other":
        return
    bd = var_bd if t["delta_s"] > 0 else base_bd
    for entry in bd.get("top") or []:
        if entry.get("category") == "other" and entry.get("name"):
            t["label"] = f"other ({entry['name']})"
            return


def window_speedup(base_bd: dict, var_bd: dict, base_work: float = 1.0, var_work: float = 1.0) -> float | None:
    """The speedup the two profiled windows show, per unit of work like the timed one."""
    if not (usable(base_bd) and usable(var_bd)) or not (base_work > 0 and var_work > 0):
        return None
    b, v = float(base_bd["window_step_s"]) / base_work, float(var_bd["window_step_s"]) / var_work
    return b / v if v > 0 else None


def disagreement(window: float | None, timed: object, tolerance: float = 0.25) -> str:
    """A prefix where the windows' ratio is not the timed one: a short window's noise (or
    the profiler's overhead) then explains a difference the timing does not show."""
    if window is None or not is_num(timed) or timed <= 0:
        return ""
    if abs(window / timed - 1.0) <= tolerance:
        return ""
    return f"profiled windows {sig(window)}× vs timed {sig(timed)}× (read as indicative): "


def _launches(x: float) -> str:
    return f"{x:,.0f}" if x >= 10 or float(x).is_integer() else f"{x:.1f}"


def _caveat(base_bd: dict, var_bd: dict) -> str:
    """Where a window ran slower (or faster) than the timed steps beyond its tolerance."""
    off = [bd for bd in (base_bd, var_bd) if bd.get("agrees") is False]
    if not off:
        return ""
    over = [bd["overhead"] for bd in off if is_num(bd.get("overhead"))]
    if not over:
        return f"; profiler window disagrees with the timed step ({CAVEAT})"
    worst = max(over, key=abs)
    return f"; profiler overhead {100 * worst:+.0f}% ({CAVEAT})"


def explain(base_bd: dict | None, var_bd: dict | None) -> dict:
    """Per-category per-step change from baseline to variant (idle included), launches and
    idle share before/after, the one or two categories that moved most with their share of
    the change in window_step_s, and the sentence. ok is False (and sentence 'no
    breakdown (reason)') when either breakdown is missing or not status ok."""
    out = {"ok": False, "device": None, "before_s": {}, "after_s": {}, "deltas_s": {}, "step_s": (None, None),
           "change_s": None, "launches": (None, None), "idle_share": (None, None), "top": [],
           "indicative": False, "sentence": ""}
    if not (usable(base_bd) and usable(var_bd)):
        out["sentence"] = f"no breakdown ({_why_not(base_bd, var_bd)})"
        return out
    device = var_bd.get("device") or base_bd.get("device")
    before, after = per_step(base_bd), per_step(var_bd)
    cats = [k for k in list(CATEGORIES) + [IDLE] if k in before or k in after]
    cats += [k for k in {**before, **after} if k not in cats]
    deltas = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in cats}
    step = (float(base_bd["window_step_s"]), float(var_bd["window_step_s"]))
    change = step[1] - step[0]
    ranked = sorted((k for k in cats if deltas[k] != 0), key=lambda k: -abs(deltas[k]))
    if len(ranked) > 1 and abs(deltas[ranked[1]]) < SECOND_MIN * abs(deltas[ranked[0]]):
        ranked = ranked[:1]
    top = [{"category": k, "label": label(k, device), "before_s": before.get(k, 0.0), "after_s": after.get(k, 0.0),
            "delta_s": deltas[k], "share_of_change": deltas[k] / change if change else None} for k in ranked[:2]]
    for t in top:
        _other_name(t, base_bd, var_bd)
    launches = (base_bd.get("launches_per_step"), var_bd.get("launches_per_step"))
    idle = (idle_share(base_bd), idle_share(var_bd))
    out.update(ok=True, device=device, before_s=before, after_s=after, deltas_s=deltas, step_s=step,
               change_s=change, launches=launches, idle_share=idle, top=top,
               indicative=base_bd.get("agrees") is False or var_bd.get("agrees") is False)
    out["sentence"] = _sentence(top, step, change, launches, idle, device) + _caveat(base_bd, var_bd)
    return out


def _sentence(top: list[dict], step: tuple, change: float, launches: tuple, idle: tuple, device: object) -> str:
    parts = []
    verb = "saved" if change < 0 else "added"
    if top:
        movers = " and ".join(_change(t, i == 0) for i, t in enumerate(top))
        share = sum(t["delta_s"] for t in top) / change if change else None
        if share is not None and share > 0:
            verb_n = "accounts" if len(top) == 1 else "account"
            parts.append(f"{movers} {verb_n} for {100 * share:.0f}% of the {_amount(change)} {verb}")
        else:  # the movers offset each other, or the step did not change
            parts.append(f"{movers}; step {_pair(*step)}")
    else:
        parts.append(f"no category changed; step {_pair(*step)}")
    if all(is_num(x) for x in idle):
        parts.append(f"{label(IDLE, device)} {100 * idle[0]:.0f}% -> {100 * idle[1]:.0f}%")
    if all(is_num(x) for x in launches):
        parts.append(f"launches {_launches(launches[0])} -> {_launches(launches[1])} per step")
    return "; ".join(parts)


def case_breakdowns(case: dict) -> list[tuple[str, dict | None]]:
    """(variant name, its breakdown or None) for each variant of a case, in order."""
    return [(str(v.get("name")), v.get("breakdown") if isinstance(v.get("breakdown"), dict) else None)
            for v in case.get("variants", []) or []]


def document_has_breakdowns(doc: dict) -> bool:
    """Any variant in the document carries a breakdown (whatever its status): the why
    column is shown for the whole document, or (older files) not at all."""
    return any(bd is not None for e in doc.get("experiments", []) or [] for c in e.get("cases", []) or []
               for _, bd in case_breakdowns(c))
