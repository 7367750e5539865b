"""The report's first tables: what each checklist claim's measurement says, per run.

The ranking table holds the claims that were judged: a verdict drawn from a CI in at
least one run (decided: slower, no effect, smaller than claimed, confirmed, exceeded),
sorted by the estimate, fastest first; then the claims every run found inconclusive,
sorted the same way. Inconclusive is a judgement of the data (the CI spans outcomes),
so it belongs with the judged and keeps its figure; but it is no outcome, and ranking
its point estimate among the outcomes would let a wide interval outrank a decided
claim, so it comes after them. The claims no run could judge ("not measurable here")
are not ranked: those with a figure (a GPU claim measured on a CPU, a claim with no
number) are listed below the ranking with it and why; those with none, by reason.

Every figure is the claims table's (claims.py's ClaimResult: one comparison's estimate
and interval, the row the verdict rests on among several judged apart, or a pooled
geometric mean), written without the unit, which the header line states once, and
without the basis of its CI where it is the run's own (stated once, in the runs list).

With several runs each run has a column (verdict: speedup [CI]) and "moved?" says
whether the verdict or the estimate moved between the runs of one device (moved()).
The mechanism is the headline of the why of the comparison behind the claim
(why_row.Why.headline: its movers or leading count, without the bracketed detail),
shown only where that why is a mechanism: the profile agrees with the timing
(why_agree.py), in the first run that has one. Reference variants are never a
claim's evidence (claims._matching), so they never appear here."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..claims.judge import NO_EXPERIMENT, ClaimResult, ClaimRow
from ..claims.verdicts import DRAWN, INCONCLUSIVE, NOT_MEASURABLE, outcome
from ..explanation.why_row import Why, why_of
from ..load.document import Document
from ..load.numbers import is_num
from ..statistics.measurement import PROCESS
from ..statistics.rounds import rounds_text
from .claim_words import claimed, decisive_role
from .fmt import intervals_apart, sig_apart
from .glossary import spelling
from .verdict_words import short_why

NBSP = "\u00a0"
DECIDED, UNDECIDED, UNJUDGED = "decided", "inconclusive", "unjudged"
MOVED = spelling("moved?")
JUDGED_APART = spelling("judged apart")
UNIT_LINE = (
    "Speedup: the baseline's time over the optimization's for the same work (1.50 = 50% faster, below 1 "
    "= slower), in brackets its CI."
)
ORDER_LINE = (
    "Ranked by the estimate, the decided claims first, then the inconclusive ones; terms are in the "
    "glossary at the end."
)


@dataclass
class RunCell:
    """One run's figure and verdict for a claim."""

    verdict: str  # the verdict word
    figure: str  # '1.64 [1.55, 1.69] (...)', or '—' without a measurement
    why: str  # the reason where no verdict was drawn (not measurable here)
    estimate: float | None

    @property
    def verdict_text(self) -> str:
        return f"{self.verdict}: {self.why}" if self.verdict == NOT_MEASURABLE and self.why else self.verdict

    @property
    def combined(self) -> str:
        """'confirmed: 1.58 [1.48, 1.68]' (a runs-side-by-side column); '—' for a run
        without an experiment that tests the claim (a run of other experiments)."""
        if self.estimate is None:
            return "—" if self.why == NO_EXPERIMENT else self.verdict_text
        return f"{self.verdict}: {self.figure}"


@dataclass
class SummaryRow:
    claim: str
    technique: str
    claimed: str
    runs: list[RunCell]
    mechanism: str = ""
    moved: str = "—"
    group: str = DECIDED

    @property
    def estimate(self) -> float | None:
        """The sort key: the geometric mean of the runs' estimates."""
        xs = [c.estimate for c in self.runs if is_num(c.estimate) and c.estimate > 0]
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None

    @property
    def verdict_word(self) -> str:
        """The first run's verdict (one run: the verdict)."""
        return self.runs[0].verdict

    def cells(self, with_mechanism: bool = True) -> list[str]:
        """The ranking table's cells: one run as today's separate columns, several as a column each."""
        if len(self.runs) == 1:
            out = [self.claim, self.technique, self.claimed, self.runs[0].figure, self.runs[0].verdict_text]
        else:
            out = [self.claim, self.technique, self.claimed, *(c.combined for c in self.runs), self.moved]
        return out + [self.mechanism] if with_mechanism else out

    def unjudged_cells(self, with_mechanism: bool = True) -> list[str]:
        """The unjudged table's cells: each run's figure, moved? (several runs), why not
        judged, and the mechanism."""
        out = [self.claim, self.technique, self.claimed, *(c.figure for c in self.runs)]
        if len(self.runs) > 1:
            out.append(self.moved)
        whys = list(dict.fromkeys(c.verdict_text for c in self.runs if c.why != NO_EXPERIMENT)) or [
            self.runs[0].verdict_text
        ]
        return out + ["; ".join(whys)] + ([self.mechanism] if with_mechanism else [])


@dataclass
class Summary:
    labels: list[str]  # the runs', in order
    rows: list[SummaryRow]  # judged: decided first, then inconclusive, each by estimate
    unjudged: list[SummaryRow] = field(default_factory=list)  # not measurable anywhere, with a figure
    unmeasured: list[tuple[str, list[str]]] = field(default_factory=list)  # (reason, claim ids), no figure
    has_mechanism: bool = False  # a run has profiler breakdowns

    @property
    def several(self) -> bool:
        return len(self.labels) > 1

    @property
    def headers(self) -> list[str]:
        if self.several:
            out = ["claim", "optimization", "claimed", *self.labels, MOVED]
        else:
            out = ["claim", "optimization", "claimed", "speedup × [CI]", "verdict"]
        return out + ["mechanism"] if self.has_mechanism else out

    @property
    def unjudged_headers(self) -> list[str]:
        if self.several:
            out = [
                "claim",
                "optimization",
                "claimed",
                *(f"{lab} speedup × [CI]" for lab in self.labels),
                MOVED,
                "verdict",
            ]
        else:
            out = ["claim", "optimization", "claimed", "speedup × [CI]", "verdict"]
        return out + ["mechanism"] if self.has_mechanism else out


def common_processes(doc: Document) -> int | None:
    """K where every interval of the run is between K processes (said once, in the runs
    list, and left out of the summary's and the main tables' cells), else None."""
    ks = {
        (e.unit, e.n)
        for ex in doc.experiments
        for c in ex.cases
        for cm in c.comparisons
        if (e := cm.estimate) is not None and e.has_ci
    }
    if len(ks) == 1 and next(iter(ks))[0] == PROCESS:
        return next(iter(ks))[1]
    return None


def speedup_text(cr: ClaimResult, processes: int | None = None) -> str:
    """The claims table's figure (claim_words.claim_text), without the unit and shorter:
    '1.64 [1.55, 1.69] (between 3 processes)'; the basis left out where it is the run's
    own (`processes`)."""
    m = cr.m
    if m is None:
        return "—"
    rows = cr.pooled
    tags = []
    k = (m.n or 1) if m.unit == PROCESS else 1  # processes behind the interval
    if len(rows) > 1 and cr.apart:
        role = decisive_role(cr).removeprefix("the ")
        tags.append(
            f"{cr.decisive.case}: {cr.decisive.variant}; {role} of {len(rows)} {JUDGED_APART}, "
            f"{sig_apart(cr.low, cr.bounds)}–{sig_apart(cr.high, cr.bounds)}"
        )
    elif len(rows) > 1:
        tags.append(
            f"geometric mean of {len(rows)} cases, {sig_apart(cr.low, cr.bounds)}–{sig_apart(cr.high, cr.bounds)}"
        )
    text = sig_apart(m.speedup, cr.bounds)
    if is_num(m.ci_low) and is_num(m.ci_high):  # no-break spaces: the figure never splits over lines
        text += f"{NBSP}[{sig_apart(m.ci_low, cr.bounds)},{NBSP}{sig_apart(m.ci_high, cr.bounds)}]"
        if k > 1 and k != processes:
            tags.append(f"between {k} processes")
        elif k == 1 and (cr.decisive or rows[0]).alone:
            tags.append("one process")  # the run measured others in several: this one was left to one
        if abs(m.confidence - 0.95) > 1e-9:
            tags.append(f"{100 * m.confidence:.3g}% CI")
    elif (cr.decisive or rows[0]).m.below_floor:
        tags.append(f"{rounds_text([e.m.rounds for e in rows if e.m.below_floor])}, no CI")
    else:
        tags.append("no CI")
    if cr.left_out:
        tags.append(f"{len(cr.left_out)} more below the rounds floor")
    return text + (f" ({'; '.join(tags)})" if tags else "")


def run_cell(cr: ClaimResult, processes: int | None = None) -> RunCell:
    v = cr.verdict
    why = short_why(v) if v.verdict == NOT_MEASURABLE else ""
    est = cr.m.speedup if cr.m is not None and cr.pooled else None
    return RunCell(v.verdict, speedup_text(cr, processes) if est is not None else "—", why, est)


def mechanism(e: ClaimRow) -> Why | None:
    """The why (why_row.Why) of the comparison behind one case's figure, where it has a
    headline (Why.headline): the experiment's mechanism counter where it leads the why,
    else the time shares where the profile agrees with the timing; None otherwise. The
    comparison is the one the harness recorded (the experiment table's row) where there
    is one, else the ratio the claim computed (AMP against default FP32, DDP against
    DataParallel)."""
    if e.sides is None:
        return None
    base, var = e.sides
    if not (base.breakdown.usable and var.breakdown.usable):
        return None
    cm = var.case.comparison(var.name, base.name)
    timed = cm.first_process if cm is not None else e.m
    why = why_of(timed, base, var, var.case.experiment.mechanism_counters, e.m)
    return why if why.headline() else None


def _mechanism(cr: ClaimResult) -> str:
    """The mechanism of the row the figure shows (judged apart: that row's or none, since
    another row's time saved beside this row's figure, which may be a slowdown, would read
    as explaining it), else (pooled) of the first case with one, named where the claim has
    several."""
    rows = cr.pooled
    if cr.decisive in rows:
        rows = [cr.decisive]
    for e in rows:
        if why := mechanism(e):
            text = why.headline()
            return f"{e.case}: {text}" if len(cr.pooled) > 1 else text
    return ""


@dataclass
class RunClaims:
    """What summarize() reads of one run."""

    label: str
    claims: list[ClaimResult]
    has_breakdowns: bool = False
    device: str = ""
    processes: int | None = None  # the run's common basis (common_processes)


def summarize(runs: list[RunClaims] | list[ClaimResult], has_breakdowns: bool = False) -> Summary:
    """The summary of one run (its claims) or of several (RunClaims each, in order)."""
    if runs and isinstance(runs[0], ClaimResult):
        runs = [RunClaims("run 1", list(runs), has_breakdowns)]
    labels = [r.label for r in runs]
    by_id = [{cr.claim["id"]: cr for cr in r.claims} for r in runs]
    judged, unjudged, unmeasured = [], [], {}
    for cr0 in runs[0].claims if runs else []:
        cid = cr0.claim["id"]
        crs = [m.get(cid) for m in by_id]
        if any(cr is None for cr in crs):
            continue
        cells = [run_cell(cr, r.processes) for cr, r in zip(crs, runs)]
        row = SummaryRow(cid, cr0.claim.get("technique", ""), claimed(cr0), cells)
        verdicts = [cr.verdict.verdict for cr in crs]
        if any(v in DRAWN for v in verdicts) or INCONCLUSIVE in verdicts:
            row.group = DECIDED if any(v in DRAWN for v in verdicts) else UNDECIDED
            judged.append(row)
        elif any(c.estimate is not None for c in cells):
            row.group = UNJUDGED
            unjudged.append(row)
        else:
            reasons = list(dict.fromkeys(c.why or c.verdict for c in cells))
            unmeasured.setdefault("; ".join(reasons), []).append(cid)
            continue
        row.mechanism = next((m for cr, r in zip(crs, runs) if r.has_breakdowns and (m := _mechanism(cr))), "")
        if len(runs) > 1:
            row.moved = moved([(r.label, r.device, cr) for r, cr in zip(runs, crs)])
    key = lambda r: -(r.estimate or 0.0)  # noqa: E731
    judged = sorted((r for r in judged if r.group == DECIDED), key=key) + sorted(
        (r for r in judged if r.group == UNDECIDED), key=key
    )
    unjudged.sort(key=key)
    return Summary(labels, judged, unjudged, list(unmeasured.items()), any(r.has_breakdowns for r in runs))


def _apart(intervals: list[tuple[str, dict]]) -> str:
    """Where the runs' intervals have no point in common: '' where every row's overlap."""
    for key in sorted(set.intersection(*(set(iv) for _, iv in intervals))):
        lo = max(iv[key][0] for _, iv in intervals)
        hi = min(iv[key][1] for _, iv in intervals)
        if lo > hi:
            where = f" ({key.split(': ')[0]})" if key else ""
            printed = intervals_apart([iv[key] for _, iv in intervals])
            return "; ".join(f"{lab} {ci}" for (lab, _), ci in zip(intervals, printed)) + where
    return ""


def _moved_within(seen: list[tuple[str, ClaimResult]]) -> str | None:
    """moved? over runs of one device that measured the claim; None with fewer than two."""
    if len(seen) < 2:
        return None
    parts = []
    drawn = [(lab, outcome(cr.verdict.verdict)) for lab, cr in seen if cr.verdict.verdict in DRAWN]
    undecided = [lab for lab, cr in seen if cr.verdict.verdict == INCONCLUSIVE]
    if len({o for _, o in drawn}) > 1:
        parts.append("outcome: " + ", ".join(f"{lab} {o}" for lab, o in drawn))
    elif drawn and undecided:
        parts.append(f"verdict: {INCONCLUSIVE} in {', '.join(undecided)}")
    with_ci = [(lab, iv) for lab, cr in seen if (iv := cr.intervals())]
    if len(with_ci) >= 2 and (apart := _apart(with_ci)):
        parts.append(f"estimate: CIs apart, {apart}")
    elif len(with_ci) < 2 and not parts:
        return "—"
    return "; ".join(parts) or "no"


def moved(runs: list[tuple[str, str, ClaimResult]]) -> str:
    """Whether the claim's verdict or estimate moved between runs of one device (label,
    device, claim result; runs that measured nothing of it are passed over): 'no' where
    every run reached the same verdict (the outcome a user acts on: confirmed against
    exceeded is no move; inconclusive in every run is none either) and their intervals
    have a point in common (each row's, for rows judged apart); else what moved: the
    outcome (each run's named), the verdict (decided in one run, inconclusive in
    another) or the estimate (intervals apart, each run's named). '—' with fewer than
    two runs of a device to compare. Runs of several devices: each device's, named."""
    devices = list(dict.fromkeys(d for _, d, _ in runs))
    texts = []
    for dev in devices:
        seen = [(lab, cr) for lab, d, cr in runs if d == dev and cr.m is not None and cr.pooled]
        text = _moved_within(seen)
        if text is not None:
            texts.append((dev, text))
    if not texts:
        return "—"
    if len(texts) == 1:
        return texts[0][1]
    return "; ".join(f"{dev}: {text}" for dev, text in texts)
