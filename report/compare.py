"""`compare BASELINE CURRENT`: the regression gate between two runs on one device.

Two kinds of pair, judged alike and reported apart:
- time: each variant's primary samples, paired by (experiment, case, variant);
  change = median(current) / median(baseline) - 1 (positive = slower).
- speedup: each optimization's paired speedup, median(baseline variant) /
  median(variant) within one run (interleaved rounds), paired by (experiment, case,
  variant, baseline variant); change = speedup(current) / speedup(baseline) - 1
  (negative = the optimization gains less).

Each change gets a (1 - alpha) bootstrap interval (the two runs' bootstrap
distributions, stats.py) and a noise floor (noise.py: the between-run change that
same-code runs show, which the within-run interval cannot). Verdict, in log units:
  beyond     the whole interval lies beyond the floor and the Mann-Whitney U test of
             the samples (per-round log ratios for a speedup) gives p < alpha:
             'slower'/'faster', or speedup 'lower'/'higher'
  same       the interval lies within +-floor
  ambiguous  otherwise: it reaches past the floor without being beyond it
  n/a        not comparable (a failed case, an OOM variant, too few samples to reach alpha,
             a speedup from fewer rounds than the floor in either run: rounds.py)
A 'slower' time or a 'lower' speedup is a regression: exit status 1."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .document import Case, Comparison, Document, Variant
from .fmt import is_num
from .gpu_specs import device_name
from .noise import Floor, floor_for, kind
from .noise import spread as log_spread
from .processes import spread
from .results import ResultsError
from .rounds import rounds_text
from .stats import diff_ci, log_median_boot, log_ratio_boot, mann_whitney_p, smallest_p

SLOWER, FASTER, LOWER, HIGHER = "slower", "faster", "lower", "higher"
SAME, AMBIGUOUS, NA = "same", "ambiguous", "n/a"
UP, DOWN = "up", "down"
REGRESSIONS = (SLOWER, LOWER)


@dataclass
class Row:
    what: str                   # "time" or "speedup"
    key: tuple[str, ...]        # (experiment, case, variant[, baseline variant])
    base: float | None = None   # median time (s) or speedup, baseline run
    cur: float | None = None    # the same, current run
    change: float | None = None  # relative change, current vs baseline
    ci_low: float | None = None
    ci_high: float | None = None
    floor: Floor | None = None
    p: float | None = None
    n: tuple[int, int] = (0, 0)
    verdict: str = NA
    notes: list[str] = field(default_factory=list)

    @property
    def regression(self) -> bool:
        return self.verdict in REGRESSIONS


def classify(ci_low: float, ci_high: float, p: float, floor: float, alpha: float) -> str:
    """UP/DOWN when the whole interval lies beyond +-floor and p < alpha; SAME when it
    lies within; AMBIGUOUS otherwise. All in log units."""
    if p < alpha and ci_low > floor:
        return UP
    if p < alpha and ci_high < -floor:
        return DOWN
    if -floor <= ci_low and ci_high <= floor:
        return SAME
    return AMBIGUOUS


@dataclass
class Settings:
    alpha: float = 0.01
    min_effect: float = 0.02
    threshold: float | None = None  # a fixed floor for every pair instead of the per-case ones


def _cases(doc: Document) -> dict[tuple[str, str], Case]:
    return {(str(e.name), str(c.name)): c for e in doc.experiments for c in e.cases}


def _samples(variant: Variant) -> np.ndarray:
    """Primary-metric samples (document.Variant.primary_samples), positive only."""
    a = np.asarray(variant.primary_samples, dtype=float)
    return a[a > 0]


def _unusable(case: Case, variant: Variant | None) -> str | None:
    if not case.ran:
        return f"case {case.raw.get('status')}"
    if variant is None:
        return "variant missing"
    if not variant.ok:
        return f"variant {variant.raw.get('status')}"
    return None


class Run:
    """One results file as the gate reads it: each variant's usable samples, each
    comparison's samples round by round, and why not where they cannot be used."""

    def __init__(self, doc: dict):
        self.doc = doc
        self.cases = _cases(Document(doc))
        self.cms = self.comparisons()

    def times(self) -> dict[tuple[str, ...], Variant]:
        return {(e, c, str(v.name)): v for (e, c), case in self.cases.items() for v in case.variants}

    def comparisons(self) -> dict[tuple[str, ...], Comparison]:
        return {(e, c, str(cm.raw.get("variant")), str(cm.raw.get("baseline"))): cm
                for (e, c), case in self.cases.items() for cm in case.comparisons}

    def time_samples(self, key: tuple[str, ...]) -> tuple[np.ndarray | None, str | None]:
        case = self.cases.get(key[:2])
        if case is None:
            return None, "case missing"
        v = case.variant(key[2])
        why = _unusable(case, v)
        return (None, why) if why else (_samples(v), None)

    def round_pairs(self, key: tuple[str, ...]) -> tuple[tuple[np.ndarray, np.ndarray] | None, str | None]:
        """(baseline variant, variant) samples of one comparison, round by round."""
        b, why_b = self.time_samples(key[:2] + (key[3],))
        v, why_v = self.time_samples(key[:3])
        if why_b or why_v:
            return None, why_b or why_v
        if len(b) != len(v):
            return None, f"not paired by round ({len(b)} vs {len(v)} samples)"
        return (b, v), None

    def too_few_rounds(self, key: tuple[str, ...]) -> str | None:
        """Why a speedup cannot be judged: fewer rounds than the floor. Its ratio has no CI
        in this run, so a change against it is a change of a point; the U test alone
        would still call 5 rounds against 5 significant at alpha 0.01."""
        cm = self.cms.get(key)
        if cm is None or not cm.below_floor:
            return None
        return f"{rounds_text([cm.rounds])}, below the rounds floor of {cm.floor}"

    def log_value(self, what: str, key: tuple[str, ...]) -> float | None:
        """log median time, or log raw speedup; None where not usable (for history)."""
        if what == "time":
            x, why = self.time_samples(key)
            return float(np.log(np.median(x))) if not why and len(x) >= 2 else None
        bv, why = self.round_pairs(key)
        if why or len(bv[0]) < 2:
            return None
        return float(np.log(np.median(bv[0])) - np.log(np.median(bv[1])))


def _judge(row: Row, d: float, boot_cur: np.ndarray, boot_base: np.ndarray, p: float, floor: Floor,
           st: Settings, up: str, down: str) -> None:
    lo, hi = diff_ci(boot_cur, boot_base, 1.0 - st.alpha)
    row.change, row.ci_low, row.ci_high = math.expm1(d), math.expm1(lo), math.expm1(hi)
    row.p, row.floor = p, floor
    v = classify(lo, hi, p, math.log1p(floor.value), st.alpha)
    row.verdict = {UP: up, DOWN: down}.get(v, v)


def _unjudged(row: Row, why_base: str | None, why_cur: str | None) -> bool:
    """Notes why a run's side cannot be compared; True if either cannot."""
    for run, why in (("baseline", why_base), ("current", why_cur)):
        if why:
            row.notes.append(f"{run}: {why}")
    return bool(why_base or why_cur)


def _enough(row: Row, n1: int, n2: int, alpha: float) -> bool:
    row.n = (n1, n2)
    if smallest_p(n1, n2) >= alpha:
        row.notes.append(f"too few samples for alpha {alpha:g}")
        return False
    return True


def compare_time(key, base: Run, cur: Run, history: list[Run], st: Settings) -> Row:
    row = Row("time", key)
    xb, why_b = base.time_samples(key)
    xc, why_c = cur.time_samples(key)
    if _unjudged(row, why_b, why_c):
        return row
    row.base = float(np.median(xb)) if len(xb) else None
    row.cur = float(np.median(xc)) if len(xc) else None
    if not _enough(row, len(xb), len(xc), st.alpha):
        return row
    cb, cc = base.cases[key[:2]].raw, cur.cases[key[:2]].raw
    if cb.get("primary_metric") != cc.get("primary_metric"):
        row.notes.append(f"primary metric differs ({cb.get('primary_metric')} vs {cc.get('primary_metric')})")
    lb, lc = np.log(xb), np.log(xc)
    floor = floor_for(kind(cur.doc, cc), "time", [log_spread(lb), log_spread(lc)], _history(history, "time", key),
                      st.min_effect, st.threshold)
    d = float(np.log(row.cur) - np.log(row.base))
    _judge(row, d, log_median_boot(xc), log_median_boot(xb), mann_whitney_p(xb, xc), floor, st, SLOWER, FASTER)
    return row


def _recorded_norm(cm: Comparison, raw_log: float) -> float:
    """Recorded speedup / raw ratio of medians. The harness states the speedup of
    variants doing different work per unit of work (4095 vs 4096 matmuls: per FLOP);
    the factor is the same in both runs and cancels in the change, and with it the
    speedups shown are the harness's."""
    rec = cm.speedup
    return rec / math.exp(raw_log) if rec is not None and rec > 0 else 1.0


def _process_logs(cm: Comparison | None) -> list[float]:
    sp = spread(cm.raw) if cm is not None else None
    return [math.log(s) for s in sp.speedups] if sp else []


def compare_speedup(key, base: Run, cur: Run, history: list[Run], st: Settings, base_cm: Comparison,
                    cur_cm: Comparison | None = None) -> Row:
    row = Row("speedup", key)
    pb, why_b = base.round_pairs(key)
    pc, why_c = cur.round_pairs(key)
    if _unjudged(row, why_b or base.too_few_rounds(key), why_c or cur.too_few_rounds(key)):
        return row
    if not _enough(row, len(pb[0]), len(pc[0]), st.alpha):
        return row
    rb, rc = np.log(pb[0]) - np.log(pb[1]), np.log(pc[0]) - np.log(pc[1])
    sb = float(np.log(np.median(pb[0])) - np.log(np.median(pb[1])))
    sc = float(np.log(np.median(pc[0])) - np.log(np.median(pc[1])))
    norm = _recorded_norm(base_cm, sb)
    row.base, row.cur = math.exp(sb) * norm, math.exp(sc) * norm
    floor = floor_for(kind(cur.doc, cur.cases[key[:2]].raw), "speedup", [log_spread(rb), log_spread(rc)],
                      _history(history, "speedup", key), st.min_effect, st.threshold,
                      [_process_logs(base_cm), _process_logs(cur_cm)])
    _judge(row, sc - sb, log_ratio_boot(*pc), log_ratio_boot(*pb), mann_whitney_p(rb, rc), floor, st,
           HIGHER, LOWER)
    return row


def _history(history: list[Run], what: str, key: tuple[str, ...]) -> list[float]:
    return [x for x in (h.log_value(what, key) for h in history) if x is not None]


@dataclass
class Outcome:
    times: list[Row]
    speedups: list[Row]
    only_base: list[tuple[str, ...]]
    only_cur: list[tuple[str, ...]]

    @property
    def regressions(self) -> list[Row]:
        return [r for r in self.times + self.speedups if r.regression]


def compare_docs(base: dict, cur: dict, st: Settings, history: list[dict] | None = None) -> Outcome:
    """history: runs of the same code on this device (the baseline is always one)."""
    b, c = Run(base), Run(cur)
    hist = [b] + [Run(h) for h in history or []]
    bt, ct = b.times(), c.times()
    times = [compare_time(k, b, c, hist, st) for k in bt if k in ct]
    bc, cc = b.comparisons(), c.comparisons()
    speedups = [compare_speedup(k, b, c, hist, st, bc[k], cc[k]) for k in bc if k in cc]
    return Outcome(times, speedups, [k for k in bt if k not in ct], [k for k in ct if k not in bt])


def check_devices(base: dict, cur: dict, allow: bool) -> str | None:
    """None when both ran on the same device; else raise (or, when allowed, a warning)."""
    a, b = device_name(base), device_name(cur)
    if a == b:
        return None
    msg = f"different devices: baseline ran on {a!r}, current on {b!r}"
    if not allow:
        raise ResultsError(f"{msg}; pass --allow-different-gpus to compare anyway")
    return msg


def warnings_for(base: dict, cur: dict) -> list[str]:
    """What makes the floors less trustworthy for this pair of runs."""
    out = []
    pb, pc = (d.get("config", {}).get("profile") for d in (base, cur))
    if pb != pc:
        out.append(f"profiles differ (baseline {pb}, current {pc}): the floors are calibrated on runs of one "
                   "profile, and launch-bound cases shift with the process's history")
    for name, d in (("baseline", base), ("current", cur)):
        if d.get("status") != "complete":
            out.append(f"the {name} run is {d.get('status')}: only its finished cases are compared")
    return out


def check_settings(st: Settings) -> None:
    if not (is_num(st.min_effect) and st.min_effect >= 0):
        raise ResultsError(f"--min-effect must be a non-negative number, got {st.min_effect}")
    if st.threshold is not None and not (is_num(st.threshold) and st.threshold >= 0):
        raise ResultsError(f"--threshold must be a non-negative number, got {st.threshold}")
    if not (is_num(st.alpha) and 0 < st.alpha < 1):
        raise ResultsError(f"--alpha must be between 0 and 1, got {st.alpha}")
