"""The report's first table: per checklist claim this run measured, the speedup and its
CI, the verdict, the mechanism the profiler found, and whether the verdict was the same
in the report's other runs of this device; sorted by speedup, fastest first. The claims
with no measurement are named under it, by reason.

Every figure is the claims table's (claims.py's ClaimResult.text: one comparison's
estimate and interval, the row the verdict rests on among several judged apart, or a
pooled geometric mean), written without the unit, which the header states once. The mechanism is the first phrase of the why of the
comparison behind the claim (why_row.py), shown only where that why is a mechanism:
the profile agrees with the timing (why_agree.py). Reference variants are never a
claim's evidence (claims._matching), so they never appear here."""
from __future__ import annotations

from dataclasses import dataclass, field

from .claims import ClaimResult, Evidence
from .fmt import is_num, sig
from .rounds import rounds_text
from .verdicts import DRAWN, INCONCLUSIVE, NOT_MEASURABLE, outcome
from .why import usable
from .why_agree import agreement
from .why_row import leads_with_count, timed_change_s, why_text

HEADERS = ["claim", "optimization", "claimed", "speedup × [CI]", "verdict", "mechanism", "reproduced"]
UNIT_LINE = ("Speedup: the baseline's time over the optimization's for the same work (× baseline; 1.50 = 50% "
             "faster, below 1 = slower), in brackets its 95% CI unless the cell names another. "
             "Sorted by speedup. Terms: see the glossary under the table.")
ONE_RUN = "this run only"
NBSP = "\u00a0"


@dataclass
class SummaryRow:
    claim: str
    technique: str
    claimed: str
    estimate: float
    ci_low: float | None
    ci_high: float | None
    speedup: str  # the cell: "1.64 [1.55, 1.69] (between 3 processes)"
    verdict: str  # the claims table's verdict, with the reason where no verdict was drawn
    verdict_word: str
    mechanism: str
    reproduced: str = ONE_RUN

    def cells(self, with_mechanism: bool = True) -> list[str]:
        out = [self.claim, self.technique, self.claimed, self.speedup, self.verdict, self.mechanism,
               self.reproduced]
        return out if with_mechanism else out[:5] + out[6:]


@dataclass
class Summary:
    rows: list[SummaryRow]
    unmeasured: list[tuple[str, list[str]]] = field(default_factory=list)  # (reason, claim ids)
    has_mechanism: bool = False  # the run has profiler breakdowns

    @property
    def headers(self) -> list[str]:
        return HEADERS if self.has_mechanism else [h for h in HEADERS if h != "mechanism"]


def _speedup_cell(cr: ClaimResult) -> str:
    """The claims table's figure (ClaimResult.text), without the unit and shorter:
    '1.64 [1.55, 1.69] (between 3 processes)'."""
    rows = cr.pooled
    tags = []
    if len(rows) > 1 and cr.apart:
        tags.append(f"{cr.decisive.case}: {cr.decisive.variant}, {cr.decisive_role} of {len(rows)} judged apart, "
                    f"range {sig(cr.low)}–{sig(cr.high)}")
    elif len(rows) > 1:
        tags.append(f"geometric mean of {len(rows)} cases, range {sig(cr.low)}–{sig(cr.high)}")
    text = sig(cr.estimate)
    if is_num(cr.ci_low) and is_num(cr.ci_high):  # no-break spaces: the figure never splits over lines
        text += f"{NBSP}[{sig(cr.ci_low)},{NBSP}{sig(cr.ci_high)}]"
        if cr.processes > 1:
            tags.append(f"between {cr.processes} processes")
        if abs(cr.confidence - 0.95) > 1e-9:
            tags.append(f"{100 * cr.confidence:.3g}% CI")
    elif (cr.decisive or rows[0]).below_floor:
        tags.append(f"{rounds_text([e.rounds for e in rows if e.below_floor])}, no CI")
    else:
        tags.append("no CI")
    if cr.left_out:
        tags.append(f"{len(cr.left_out)} more below the rounds floor")
    return text + (f" ({'; '.join(tags)})" if tags else "")


def _verdict_cell(cr: ClaimResult) -> str:
    v = cr.verdict
    if v.verdict == NOT_MEASURABLE:
        return f"{v.verdict}: {first_clause(v.why)}"
    return v.verdict


def first_clause(text: str) -> str:
    """Text up to its first ';' outside parentheses."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == ";" and depth == 0:
            return text[:i].strip()
    return text.strip()


def first_phrase(why: str) -> str:
    """A why's first phrase without its parenthesised detail: 'matrix multiply -12% (1.55 ->
    1.37 ms/step) accounts for 99% of the 188 µs/step saved (timed, ...); outside operators
    ...' -> 'matrix multiply -12% accounts for 99% of the 188 µs/step saved'."""
    out, depth = [], 0
    for ch in first_clause(why):
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return " ".join("".join(out).split())


def mechanism(e: Evidence) -> str:
    """The first phrase of the why of the comparison behind one case's headline: the
    experiment's mechanism counter where it leads the why, else the time shares where
    the profile agrees with the timing; '' otherwise. The comparison is the one the
    harness recorded (the experiment table's row) where there is one, else the ratio
    the claim computed (AMP against default FP32, DDP against DataParallel)."""
    if e.sides is None:
        return ""
    base, var = e.sides
    bb, vb = base.raw.get("breakdown"), var.raw.get("breakdown")
    if not (usable(bb) and usable(vb)):
        return ""
    cm = var.case.comparison(var.name, base.name)
    raw, below = (cm.raw, cm.below_floor) if cm is not None else (
        {"speedup": e.speedup, "ci_low": e.ci_low, "ci_high": e.ci_high}, e.below_floor)
    counters = var.case.experiment.raw.get("mechanism_counters") or ()
    text = why_text(raw, base.raw, var.raw, base.work, var.work, below, counters)
    if leads_with_count(text):  # the experiment's own counter, as the experiment table's why leads
        return first_phrase(text)
    if not agreement(raw, base.raw, var.raw, base.work, var.work, below).ok \
            or timed_change_s(base.raw, raw.get("speedup")) is None:
        return ""
    return first_phrase(text)


def _mechanism(cr: ClaimResult) -> str:
    """The mechanism of the row the figure shows (judged apart), else of the first case
    with one, named where the claim has several."""
    rows = cr.pooled
    if cr.decisive in rows:
        rows = [cr.decisive] + [e for e in rows if e is not cr.decisive]
    for e in rows:
        if text := mechanism(e):
            return f"{e.case}: {text}" if len(cr.pooled) > 1 else text
    return ""


def summarize(claims: list[ClaimResult], has_breakdowns: bool) -> Summary:
    rows, unmeasured = [], {}
    for cr in claims:
        if cr.estimate is None or not cr.pooled:
            reason = first_clause(cr.verdict.why) if cr.verdict.verdict in (NOT_MEASURABLE, INCONCLUSIVE) \
                else cr.verdict.verdict
            unmeasured.setdefault(reason, []).append(cr.claim["id"])
            continue
        rows.append(SummaryRow(cr.claim["id"], cr.claim.get("technique", ""), cr.claimed, cr.estimate,
                               cr.ci_low, cr.ci_high, _speedup_cell(cr), _verdict_cell(cr), cr.verdict.verdict,
                               _mechanism(cr) if has_breakdowns else ""))
    rows.sort(key=lambda r: -r.estimate)
    return Summary(rows, list(unmeasured.items()), has_breakdowns)


def _apart(intervals: list[tuple[str, dict]]) -> str:
    """Where the runs' intervals have no point in common: '' where every row's overlap."""
    for key in sorted(set.intersection(*(set(iv) for _, iv in intervals))):
        lo = max(iv[key][0] for _, iv in intervals)
        hi = min(iv[key][1] for _, iv in intervals)
        if lo > hi:
            where = f" ({key.split(': ')[0]})" if key else ""
            return "; ".join(f"{lab} [{sig(iv[key][0])}, {sig(iv[key][1])}]" for lab, iv in intervals) + where
    return ""


def mark_reproduced(summary: Summary, runs: list[tuple[str, list[ClaimResult]]]) -> None:
    """Fill each row's reproduced cell from the report's runs of the same device (label,
    claims), this one among them, in input order. Judged on the outcome a user acts on
    (slower / no effect / smaller than claimed / as claimed or more: confirmed against
    exceeded is no flip): 'yes' only where every run that judged the claim reached the
    same outcome and their intervals have a point in common (each row's, for rows
    judged apart); otherwise 'no', saying why. Runs that could not judge it (not
    measurable there) are not counted."""
    for row in summary.rows:
        if row.verdict_word not in (*DRAWN, INCONCLUSIVE):
            row.reproduced = "—"
            continue
        seen = [(lab, cr) for lab, crs in runs for cr in crs
                if cr.claim["id"] == row.claim and cr.verdict.verdict in (*DRAWN, INCONCLUSIVE)]
        if len(seen) <= 1:
            row.reproduced = ONE_RUN
            continue
        undecided = [lab for lab, cr in seen if cr.verdict.verdict == INCONCLUSIVE]
        outcomes = [(lab, outcome(cr.verdict.verdict)) for lab, cr in seen]
        if undecided:
            row.reproduced = f"no: {INCONCLUSIVE} in {', '.join(undecided)}"
        elif len({o for _, o in outcomes}) > 1:
            row.reproduced = "no, unstable: " + "; ".join(f"{lab} {o}" for lab, o in outcomes)
        elif apart := _apart([(lab, cr.intervals()) for lab, cr in seen]):
            row.reproduced = f"no: intervals apart, {apart}"
        else:
            row.reproduced = f"yes: {outcomes[0][1]} in {len(seen)} of {len(seen)} runs, intervals overlap"
