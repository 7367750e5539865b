"""An audit of the why column against the timing it sits beside: it reads the sentence
as printed (not the code that wrote it) and checks each claim it makes against the
comparison's timed speedup, CI and baseline step, and the two profiled windows.

A sentence that carries a mechanism ("... account(s) for P% of the X saved", "...
cover(s) all of the X added") contradicts its timing when:
  no_difference  the timed CI includes 1 (or there is none): nothing to explain;
  direction      it says "saved" where the timing is slower, or "added" where faster;
  share          P is not in (0, 100];
  size           X is not the timed difference per baseline step of work
                 (t_base / speedup - t_base, to the 3 figures printed);
  window         the windows' speedup lies on the other side of 1 from the timed one;
  offset         a category it names moved by more than X without saying what
                 offset the rest;
  steps          it does not show how many steps were profiled.
A sentence that leads with a mechanism counter ("fill operations 34 -> 0 per step;
...", why_counters.py) contradicts its timing when:
  no_difference  as above;
  count_direction  the count did not move the way the timing did (fewer where
                 faster, more where slower);
  count_value    the counts printed are not the two windows' (the variant's scaled
                 to the baseline's work, and said so where it is);
  count_unnamed  the experiment does not name that counter.
Rows that say why no mechanism is shown are counted, not checked."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .document import Case, Comparison, Document, Variant
from .fmt import is_num
from .tables import document_tables
from .why import window_speedup
from .why_counters import LABELS as COUNTER_LABELS
from .why_counters import PER_BASE

UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}
_NUM = r"([0-9][0-9,]*(?:\.[0-9]+)?)"
SHARE = re.compile(r"(?:accounts? for ([0-9]+)% of|covers? all of) the " + _NUM + r" (\S+)/step (saved|added)")
PAIR = re.compile(_NUM + r" -> " + _NUM + r" (\S+)/step")
STEPS = re.compile(r"profiled: [0-9]+(?: / [0-9]+)? steps?")
# The figures are printed to 3 significant digits: half a unit of the third, and a margin.
ROUNDING = 0.01
COUNT = re.compile("^(" + "|".join(re.escape(x) for x in COUNTER_LABELS.values()) + ") " + _NUM + " -> " + _NUM +
                   " (per step|" + re.escape(PER_BASE) + ")(?:;|$)")
COUNTER_KEYS = {label: key for key, label in COUNTER_LABELS.items()}


@dataclass
class Finding:
    row: str  # experiment/case/variant
    problem: str  # one of the module's names
    sentence: str


@dataclass
class Audit:
    mechanisms: int = 0  # sentences that name a mechanism
    unexplained: int = 0  # sentences that say why none is shown
    findings: list[Finding] = field(default_factory=list)

    @property
    def contradicting(self) -> int:
        return len({f.row for f in self.findings})


def _seconds(number: str, unit: str) -> float | None:
    scale = UNITS.get(unit)
    return float(number.replace(",", "")) * scale if scale else None


def _problems(text: str, comparison: Comparison, case: Case) -> list[str]:
    m = SHARE.search(text)
    cm = comparison.raw
    s, lo, hi = cm.get("speedup"), cm.get("ci_low"), cm.get("ci_high")
    base_v, var_v = comparison.baseline or Variant({}, case), comparison.variant or Variant({}, case)
    base, var = base_v.raw, var_v.raw
    out = []
    if not (is_num(s) and is_num(lo) and is_num(hi)) or lo <= 1.0 <= hi:
        out.append("no_difference")
    if is_num(s) and (m.group(4) == "saved") != (s > 1.0):
        out.append("direction")
    if m.group(1) is not None and not 0 < int(m.group(1)) <= 100:
        out.append("share")
    stated = _seconds(m.group(2), m.group(3))
    t = (base.get("stats") or {}).get("median")
    timed = abs(t / s - t) if is_num(t) and is_num(s) and s > 0 else None
    if stated is None or timed is None or abs(stated - timed) > ROUNDING * timed:
        out.append("size")
    w = window_speedup(base.get("breakdown"), var.get("breakdown"), base_v.work, var_v.work)
    if w is None or not is_num(s) or (w > 1.0) != (s > 1.0) or w == 1.0:
        out.append("window")
    pair = PAIR.search(text)
    moved = abs(_seconds(pair.group(2), pair.group(3)) - _seconds(pair.group(1), pair.group(3))) \
        if pair and pair.group(3) in UNITS else None
    if stated and moved and moved > (1 + ROUNDING) * stated and "offset" not in text:
        out.append("offset")
    if not STEPS.search(text):
        out.append("steps")
    return out


def _near(printed: str, actual: float | None) -> bool:
    """A count as printed (whole, with separators, or to 3 figures) against the window's."""
    if actual is None:
        return False
    p = float(printed.replace(",", ""))
    return abs(p - actual) <= max(0.51 if abs(actual) >= 100 else 0.0, ROUNDING * abs(actual), 1e-9)


def _count_of(bd: object, key: str) -> float | None:
    v = ((bd or {}).get("counters") or {}).get(key) if isinstance(bd, dict) else None
    return float(v) if is_num(v) else None


def _count_problems(m: re.Match, comparison: Comparison, case: Case, named: list) -> list[str]:
    cm = comparison.raw
    s, lo, hi = cm.get("speedup"), cm.get("ci_low"), cm.get("ci_high")
    base, var = comparison.baseline or Variant({}, case), comparison.variant or Variant({}, case)
    out = []
    if not (is_num(s) and is_num(lo) and is_num(hi)) or lo <= 1.0 <= hi:
        out.append("no_difference")
    before, after = float(m.group(2).replace(",", "")), float(m.group(3).replace(",", ""))
    if not is_num(s) or before == after or (after < before) != (s > 1.0):
        out.append("count_direction")
    key = COUNTER_KEYS[m.group(1)]
    scale = base.work / var.work
    b, v = _count_of(base.raw.get("breakdown"), key), _count_of(var.raw.get("breakdown"), key)
    if not (_near(m.group(2), b) and _near(m.group(3), None if v is None else v * scale)) or \
            (m.group(4) == PER_BASE) != (scale != 1.0):
        out.append("count_value")
    if key not in named:
        out.append("count_unnamed")
    return out


def audit_rows(doc: dict, rows: list[tuple[str, str, str, str]]) -> Audit:
    """rows: (experiment, case, variant, why text) as a report printed them."""
    experiments = Document(doc).experiments
    cases = {(e.name, c.name): c for e in experiments for c in e.cases}
    named = {e.name: list(e.raw.get("mechanism_counters") or []) for e in experiments}
    res = Audit()
    for exp, case_name, variant, text in rows:
        case = cases.get((exp, case_name))
        cm = case.comparison(variant) if case is not None else None
        if not text or cm is None:
            continue
        count = COUNT.match(text)
        if not SHARE.search(text) and not count:
            res.unexplained += 1
            continue
        res.mechanisms += 1
        problems = _problems(text, cm, case) if SHARE.search(text) else []
        if count:
            problems += [p for p in _count_problems(count, cm, case, named.get(exp, [])) if p not in problems]
        res.findings += [Finding(f"{exp}/{case_name}/{variant}", p, text) for p in problems]
    return res


def report_rows(doc: dict) -> list[tuple[str, str, str, str]]:
    """The why texts the report prints for a document (every renderer reads these rows)."""
    return [(t["name"], r["case"], r["variant"], r["why"]) for t in document_tables(doc) for r in t["rows"]
            if r.get("why")]


def audit(doc: dict) -> Audit:
    return audit_rows(doc, report_rows(doc))
