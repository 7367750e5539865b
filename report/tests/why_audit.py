"""An audit of the why column against the timing it sits beside: it takes each
comparison's `Why` (why_row.py), the object the report renders, and checks what it
states against the comparison's timed speedup, CI and baseline step, the two
profiled windows and their counters, recomputed here from the results file.

A why that carries time shares (Kind.SHARES) contradicts its timing when:
  no_difference  the timed CI includes 1 (or there is none), that of the process the
                 windows ran in or the one estimate printed beside it: nothing to explain;
  direction      its change is a saving where the timing is slower, or an addition
                 where faster;
  share          what its movers account for is not in (0, 100%] and they do not
                 cover all of the change;
  size           its change is not the timed difference per baseline step of work
                 (t_base / speedup - t_base);
  window         the windows' speedup lies on the other side of 1 from the timed one;
  steps          the windows' profiled step counts are not recorded.
A why that leads with a mechanism counter (why_counters.py) contradicts its timing when:
  no_difference  as above;
  count_direction  the count did not move the way the timing did (fewer where
                 faster, more where slower);
  count_value    its counts are not the two windows' (the variant's scaled to the
                 baseline's work, and marked so where it is);
  count_unnamed  the experiment does not name that counter.
Whys that say why no mechanism is shown are counted, not checked. (The sentence is
rendered from these fields alone, `Why.text`; test_why holds what it prints.)"""

from __future__ import annotations

from dataclasses import dataclass, field

from report.explanation.why import window_speedup
from report.explanation.why_row import Kind, Why
from report.load.document import Case, Comparison, Document, Variant
from report.load.numbers import is_num
from report.render.tables import document_tables
from report.statistics.measurement import Measurement

# The figures are printed to 3 significant digits: half a unit of the third, and a margin.
ROUNDING = 0.01


@dataclass
class Finding:
    row: str  # experiment/case/variant
    problem: str  # one of the module's names
    sentence: str  # the why as the report prints it


@dataclass
class Audit:
    mechanisms: int = 0  # sentences that name a mechanism
    unexplained: int = 0  # sentences that say why none is shown
    findings: list[Finding] = field(default_factory=list)

    @property
    def contradicting(self) -> int:
        return len({f.row for f in self.findings})


def _no_difference(t: Measurement) -> bool:
    s, lo, hi = t.speedup, t.ci_low, t.ci_high
    return not (is_num(s) and is_num(lo) and is_num(hi)) or lo <= 1.0 <= hi


def _nothing_to_explain(comparison: Comparison) -> bool:
    """Its process's timing, or the one estimate printed beside the why, shows no difference."""
    shown = comparison.estimate
    return _no_difference(comparison.first_process) or (shown is not None and _no_difference(shown))


def _problems(why: Why, comparison: Comparison, case: Case) -> list[str]:
    sh, t = why.shares, comparison.first_process
    s = t.speedup
    base_v, var_v = comparison.baseline or Variant({}, case), comparison.variant or Variant({}, case)
    out = ["no_difference"] if _nothing_to_explain(comparison) else []
    if not is_num(sh.change_s) or (is_num(s) and (sh.change_s < 0) != (s > 1.0)):
        out.append("direction")
    if is_num(sh.change_s) and sh.change_s and not sh.covers_all and not 0 < sh.moved_s / sh.change_s <= 1.0:
        out.append("share")
    step = base_v.stats.median
    timed = abs(step / s - step) if is_num(step) and is_num(s) and s > 0 else None
    if not sh.timed or timed is None or not is_num(sh.change_s) or abs(abs(sh.change_s) - timed) > ROUNDING * timed:
        out.append("size")
    w = window_speedup(base_v.breakdown, var_v.breakdown, base_v.work, var_v.work)
    if w is None or not is_num(s) or (w > 1.0) != (s > 1.0) or w == 1.0:
        out.append("window")
    if not all(is_num(v.breakdown.steps) for v in (base_v, var_v)):
        out.append("steps")
    return out


def _near(stated: float, actual: float | None) -> bool:
    return actual is not None and abs(stated - actual) <= max(ROUNDING * abs(actual), 1e-9)


def _count_problems(why: Why, comparison: Comparison, case: Case, named: list) -> list[str]:
    t, count = comparison.first_process, why.count
    s = t.speedup
    base, var = comparison.baseline or Variant({}, case), comparison.variant or Variant({}, case)
    out = ["no_difference"] if _nothing_to_explain(comparison) else []
    if not is_num(s) or count.before == count.after or (count.after < count.before) != (s > 1.0):
        out.append("count_direction")
    scale = base.work / var.work
    b, v = base.breakdown.counter(count.key), var.breakdown.counter(count.key)
    if not (_near(count.before, b) and _near(count.after, None if v is None else v * scale)) or count.scaled != (
        scale != 1.0
    ):
        out.append("count_value")
    if count.key not in named:
        out.append("count_unnamed")
    return out


def audit_rows(doc: dict, rows: list[tuple[str, str, str, Why]]) -> Audit:
    """rows: (experiment, case, variant, its Why) as a report renders them."""
    experiments = Document(doc).experiments
    cases = {(e.name, c.name): c for e in experiments for c in e.cases}
    named = {e.name: e.mechanism_counters for e in experiments}
    res = Audit()
    for exp, case_name, variant, why in rows:
        case = cases.get((exp, case_name))
        cm = case.comparison(variant) if case is not None else None
        if why is None or cm is None:
            continue
        if not why.is_mechanism:
            res.unexplained += 1
            continue
        res.mechanisms += 1
        problems = _problems(why, cm, case) if why.kind is Kind.SHARES else []
        if why.count_leads:
            problems += [p for p in _count_problems(why, cm, case, named.get(exp, [])) if p not in problems]
        res.findings += [Finding(f"{exp}/{case_name}/{variant}", p, why.text()) for p in problems]
    return res


def report_rows(doc: dict) -> list[tuple[str, str, str, Why]]:
    """The whys the report renders for a document (every renderer prints these rows' text)."""
    return [(t.name, r.case, r.variant, r.why_of) for t in document_tables(doc) for r in t.rows if r.why_of is not None]


def audit(doc: dict) -> Audit:
    return audit_rows(doc, report_rows(doc))
