"""Checklist claims (claims.json) against a results document: the comparisons each
claim is judged on, the measured effect, what is shown beside it, and the verdict
(verdicts.py). Comparisons are picked by what their variants are (their params,
document.py), never by their names, and never by their results: what carries a
claim's verdict is fixed in claims.json before the data.

Every comparison is read as its one estimate and interval (document.Comparison.estimate,
measurement.py): with several processes, their geometric mean and t interval (the process
is the unit), else the one process's own. A claim is judged on that, never on a
re-derived or wider interval.

How a claim picks its evidence (claims.json, "method"):
  match            in every case of the experiments that list the claim (or of
                   match.experiment), every comparison that matches it; reference
                   variants (bounds, data-only loops) and failed verifications are
                   left out. "largest": PARAM keeps, per case, the one with the largest
                   value of that variant param (the most workers, the largest batch
                   that ran): a setting fixed by the run's design, not by its speed.
  vs_default_fp32  AMP against the FP32 a PyTorch user gets by default (the variant
                   with params default_fp32: cuDNN may use TF32 for convolutions,
                   matmul does not), per case; strict FP32 beside.
  ddp_vs_dp        DDP on N ranks against DataParallel on N devices, N >= 2 (params
                   parallelism and devices).
"stress": matches of cases whose baseline is code no user writes (the loss on the
host over 8192-way logits): shown apart, never in the verdict. "beside": other
measurements next to the verdict, never in it.

Over several comparisons (claims.json "pool"):
  judged apart (the default)  each comparison is its own row with its own estimate
        and verdict: unlike cases (sizes, precisions, models, script and trace) are
        never averaged. The claim's verdict is the weakest row's (verdicts.decide,
        docs/verdicts.md); its figure is the row that verdict rests on, with the
        range of all rows; with no verdict (not measurable), the first row as
        declared, the same row in every run.
  "pool": true  cases that test the claim in the same shape (replicates): their
        geometric mean. Measured in several processes: per process the geometric
        mean over the cases, then Student's t across processes (processes.py); the
        range printed is of the same per-case figures. One process: a bootstrap over
        the cases' rounds (pooled.py). A case with more than one matching comparison
        cannot pool; the claim is then judged apart, and says so.

The rounds floor (rounds.py): a ratio from fewer interleaved rounds has no CI. A
pooled claim pools the cases at or above the floor and names the others; judged
apart, such a row is inconclusive. Every row below the floor: inconclusive.

A claim about GPUs (gpu_only) measured on a CPU shows what was measured, its verdict
"not measurable here: measured on a CPU (the claim is about GPUs)"."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..load.document import DEFAULT_CONFIDENCE, Case, Comparison, Document, Experiment, Variant, params_hold
from ..load.numbers import is_num
from ..statistics import evidence as ev
from ..statistics.measurement import PROCESS, ROUND, Measurement, Source, t_interval
from ..statistics.pooled import geometric_mean, pooled_ci
from ..statistics.processes import Spread, case_points, pooled_between, relative, shared
from ..statistics.rounds import why_no_ci
from .judged import NOT_JUDGED
from .judged import status as judged_status
from .verdicts import DRAWN, NOT_MEASURABLE, Rounds, Verdict, bounds, decide

CLAIMS_PATH = Path(__file__).resolve().parent / "claims.json"
ON_CPU = "measured on a CPU (the claim is about GPUs)"
NO_EXPERIMENT = "no experiment in these results tests it"
STRESS = "stress case, not in the verdict"


@functools.lru_cache(maxsize=1)
def load_claims() -> tuple:
    with open(CLAIMS_PATH, encoding="utf-8") as f:
        return tuple(json.load(f)["claims"])


@dataclass
class ClaimRow:
    """One comparison that tests a claim, as the claim reads it."""

    experiment: str
    case: str
    variant: str
    m: Measurement  # the comparison's one estimate and interval, or the ratio computed for the claim
    baseline: str = ""  # what the variant was compared with
    unjudged: bool = False  # its verification judged nothing but the first loss (judged.py)
    # (reference variant, variant): what its ratio is resampled from (one process)
    sides: tuple | None = field(default=None, repr=False, compare=False)
    # The comparison in each process of the run (processes.py); None: one process.
    spread: Spread | None = field(default=None, repr=False, compare=False)
    verdict: Verdict | None = None  # its own, where the claim judges its rows apart
    # The speedups the claim's verdict is drawn against (verdicts.bounds): its figures
    # are printed on their own side of each.
    bounds: tuple = field(default=(), repr=False, compare=False)
    # Measured in one process where the run measured others in several: says so.
    alone: bool = False

    @property
    def label(self) -> str:
        vs = f" vs {self.baseline}" if self.baseline else ""
        return f"{self.experiment}/{self.case}: {self.variant}{vs}"


@dataclass
class Beside:
    """Figures shown next to a claim's verdict, never in it: the speedups of comparisons
    (rows), or one figure the harness recorded (value) in experiment/case `where`."""

    label: str
    rows: list[ClaimRow] = field(default_factory=list)
    # A recorded ratio against one device (a Measurement; `variant` names it), a scaling
    # efficiency (a Measurement), or a derived value as the file has it.
    value: Measurement | float | int | str | None = None
    where: str = ""
    variant: str = ""
    pct: bool = False  # claims.json's format "pct"


@dataclass
class ClaimResult:
    claim: dict
    experiments: list[str]
    evidence: list[ClaimRow] = field(default_factory=list)  # every comparison that tests the claim as written
    stress: list[ClaimRow] = field(default_factory=list)  # shown apart, never in the verdict
    # Its figure: the one row's or the decisive row's as it is; pooled, the geometric mean
    # with its t interval between processes (DERIVED) or its bootstrap (COMPUTED).
    m: Measurement | None = None
    low: float | None = None  # range of the figures behind it: not an interval
    high: float | None = None
    run_confidence: float = DEFAULT_CONFIDENCE  # every interval the harness recorded is at it
    notes: list[str] = field(default_factory=list)
    beside: list[Beside] = field(default_factory=list)
    verdict: Verdict | None = None
    apart: bool = True  # its rows judged apart (not pooled)
    decisive: ClaimRow | None = None  # judged apart: the row the verdict and figure rest on

    @property
    def bounds(self) -> tuple[float, ...]:
        """The speedups its verdict is drawn against (verdicts.bounds)."""
        return bounds(self.claim.get("kind", "qualitative"), self.claim.get("low"), self.claim.get("high"))

    @property
    def pooled(self) -> list[ClaimRow]:
        """The rows the figures come from: judged apart, all of them; pooled, those at or
        above the rounds floor, else (every case below it) all of them, as points."""
        if self.apart:
            return list(self.evidence)
        return [e for e in self.evidence if not e.m.below_floor] or list(self.evidence)

    @property
    def left_out(self) -> list[ClaimRow]:
        """Pooled cases below the rounds floor not pooled beside cases at or above it."""
        if self.apart or all(e.m.below_floor for e in self.evidence):
            return []
        return [e for e in self.evidence if e.m.below_floor]

    @property
    def why(self) -> str:
        """Why these cases test the claim as written (claims.json)."""
        return str(self.claim.get("why", ""))

    @property
    def source(self) -> str:
        s = self.claim.get("source") or {}
        if isinstance(s, dict):
            return ", ".join(x for x in (s.get("document"), s.get("section")) if x)
        return str(s)

    def intervals(self) -> dict[str, tuple[float, float]]:
        """The intervals the verdict rests on, by row (judged apart) or '' (one figure):
        what two runs must overlap in to reproduce it (summary.mark_reproduced)."""
        rows = self.evidence if self.apart and len(self.evidence) > 1 else []
        if rows:
            return {e.label: (e.m.ci_low, e.m.ci_high) for e in rows if e.m.has_ci}
        m = self.m
        return {"": (m.ci_low, m.ci_high)} if m is not None and is_num(m.ci_low) and is_num(m.ci_high) else {}


def _matches(rules: dict, case: Case, variant: Variant | None, baseline: Variant | None = None) -> bool:
    """claims.json's match: the experiment's name, and values the case's, the variant's
    and its baseline's params must hold (document.params_hold)."""
    if "experiment" in rules and case.experiment.name != rules["experiment"]:
        return False
    if "case_params" in rules and not params_hold(case.params, rules["case_params"]):
        return False
    for key, v in (("variant_params", variant), ("baseline_params", baseline)):
        if key in rules and (v is None or not v.holds(rules[key])):
            return False
    return True


def _failed(case: Case, v: Variant) -> bool:
    """A comparison of the variant failed its verification."""
    return any(cm.variant_name == v.name and cm.failed for cm in case.comparisons)


def _claim_row(
    cm: Comparison,
    m: Measurement,
    variant: str | None = None,
    baseline: str | None = None,
    sides: tuple | None = None,
    sp: Spread | None = None,
) -> ClaimRow:
    """The row for comparison cm, its figures m (its estimate, or a ratio the claim formed)."""
    c = cm.case
    var, base = cm.variant, cm.baseline
    if sides is None and var is not None and base is not None:
        sides = (base, var)
    return ClaimRow(
        str(c.experiment.name),
        str(c.name),
        str(variant or cm.variant_name or ""),
        m,
        str(baseline if baseline is not None else cm.baseline_name or ""),
        judged_status(cm.verification) == NOT_JUDGED,
        sides=sides,
        spread=sp if sp is not None else cm.spread,
        alone=m.unit == ROUND and c.experiment.measured_in_several,
    )


def _largest(rules: dict, found: list[tuple[Comparison, Variant]]) -> list[tuple[Comparison, Variant]]:
    """match.largest: PARAM keeps the comparison whose variant has the largest value of it."""
    key = rules.get("largest")
    if not key:
        return found
    valued = [(cm, v) for cm, v in found if is_num(v.params.get(key))]
    return [max(valued, key=lambda x: x[1].params[key])] if valued else []


def _matching(rules: dict, case: Case, notes: list[str] | None) -> list[ClaimRow]:
    """Every comparison of the case that matches the rules, as evidence (file order)."""
    found = []
    for cm in case.comparisons:
        var, base = cm.variant, cm.baseline
        if var is None or var.role == "reference" or not _matches(rules, case, var, base) or cm.speedup is None:
            continue
        if cm.failed:
            if notes is not None:
                notes.append(f"{case.experiment.name}/{case.name}/{cm.variant_name}: left out, verification failed")
            continue
        if not var.ok or (base is not None and not base.ok):
            # Nothing unverified counts: a variant that errored (a dead twin, an OOM) has
            # a ratio from the rounds before it died and no verification.
            if notes is not None:
                notes.append(
                    f"{case.experiment.name}/{case.name}/{cm.variant_name}: left out, its variant "
                    f"{var.status if not var.ok else 'baseline ' + base.status}: unverified"
                )
            continue
        found.append((cm, var))
    out = []
    for cm, _ in _largest(rules, found):
        est = cm.estimate
        if est is not None:
            out.append(_claim_row(cm, est))
    return out


def _derived_value(case: Case, key: str) -> object:
    v: object = case.derived
    for part in key.split("."):
        if not isinstance(v, dict):
            return None
        v = v.get(part)
    return v


def _beside(spec: dict, doc: Document) -> Beside | None:
    """One 'beside' entry of claims.json: every comparison that matches, or a derived
    figure (the first case of the experiment that derived it)."""
    label = spec.get("label", "")
    rules = spec.get("match")
    if rules is not None:
        found = [e for _, c in doc.ran_cases() for e in _matching(rules, c, None)]
        return Beside(label, found) if found else None
    d = spec.get("derived") or {}
    for e, c in doc.ran_cases(d.get("experiment")):
        v = _derived_value(c, d.get("key", ""))
        if v is None:
            continue
        return Beside(label, value=v, where=f"{e.name}/{c.name}", pct=spec.get("format") == "pct")
    return None


def _stress(claim: dict, case: Case) -> str | None:
    """Why the case is a stress case of the claim (claims.json "stress"), or None."""
    for s in claim.get("stress") or []:
        if s.get("match") and _matches(s["match"], case, None):
            return str(s.get("why", ""))
    return None


def _by_match(claim: dict, doc: Document, exps: list[Experiment], res: ClaimResult) -> str | list[str] | None:
    """Method 'match'; returns why nothing was measured, or None."""
    rules = claim.get("match") or {}
    why_none = []
    for e in exps:
        if "experiment" in rules and e.name != rules["experiment"]:
            continue
        if e.status in ("skipped", "failed", "crashed", "hung"):
            why_none.append(f"{e.name} {e.status}: {e.reason or 'no reason given'}")
            continue
        for c in e.cases:
            if not c.ran:
                continue
            found = _matching(rules, c, res.notes)
            if found and (why := _stress(claim, c)) is not None:
                res.stress += found
                res.beside.append(Beside(f"{STRESS}: {why}", found))
                continue
            res.evidence += found
            if found and c.status == "interrupted":
                res.notes.append(f"{e.name}/{c.name}: interrupted, partial samples")
    if res.evidence:
        return None
    if why_none:
        return why_none  # one reason per experiment
    if res.notes:
        return "verification failed for every matching comparison"
    if res.stress:
        return "only a stress case measured it"
    if claim.get("needs"):
        return f"needs {claim['needs']}, not in these results"
    return "no matching comparison with a speedup in these results"


DEFAULT_FP32, STRICT_FP32 = {"default_fp32": True}, {"precision": "fp32", "layout": "contiguous"}
DEFAULT_WHY = {
    "tf32": "TF32 on for cuDNN convolutions, the default",
    "fp32": "the default: no convolutions, matmul without TF32",
}


def default_fp32(case: Case) -> tuple[Variant | None, str]:
    """The variant that stands for PyTorch's default FP32 in a mixed_precision case
    (params default_fp32), and why."""
    v = case.find(DEFAULT_FP32)
    if v is None:
        return None, ""
    why = DEFAULT_WHY.get(v.params.get("precision"), "PyTorch's default flags")
    return v, f"{v.name} ({why})"


def _against(c: Case, ref: Variant, v: Variant, label: str, confidence: float) -> ClaimRow | None:
    """The variant against a reference of its case: the recorded comparison where the
    reference is its baseline; else, measured in several processes, per process the
    ratio of the two recorded speedups over the baseline with the t interval across
    processes (the process the unit, as the harness's own estimate); else the ratio of
    the samples of the one process (evidence.py)."""
    cm = c.comparison(v.name, ref.name)
    if cm is not None and cm.speedup is not None and (est := cm.estimate) is not None:
        return _claim_row(cm, est, baseline=label)
    cm_v, cm_ref = c.comparison(v.name), c.comparison(ref.name)
    sp_v, sp_ref = (x.spread if x is not None else None for x in (cm_v, cm_ref))
    if cm_v is not None and sp_v and sp_ref:
        sp = relative(sp_v, sp_ref)
        if (t := t_interval(sp.speedups, confidence)) is not None:
            k = len(sp.speedups)
            m = Measurement(*t, confidence, PROCESS, k, k - 1, cm_v.rounds, cm_v.floor, source=Source.DERIVED)
            return _claim_row(cm_v, m, baseline=label, sides=(ref, v), sp=sp)
    r = ev.ratio(ref, v, confidence)
    if r is None or cm_v is None:
        return None
    return _claim_row(cm_v, r, baseline=label, sides=(ref, v))


def _vs_default_fp32(claim: dict, doc: Document, exps: list[Experiment], res: ClaimResult) -> str | None:
    rules = claim.get("match") or {}
    strict = []
    names = {e.name for e in exps}
    for e, c in doc.ran_cases(rules.get("experiment")):
        if e.name not in names:
            continue
        ref, ref_label = default_fp32(c)
        plain = c.find(STRICT_FP32)
        for v in c.variants:
            if not v.ok or not _matches(rules, c, v):
                continue
            if _failed(c, v):
                res.notes.append(f"{e.name}/{c.name}/{v.name}: left out, verification failed")
                continue
            if ref is not None and (item := _against(c, ref, v, ref_label, doc.confidence)):
                res.evidence.append(item)
            if plain is not None and (
                item := _against(c, plain, v, f"{plain.name} (strict: TF32 off)", doc.confidence)
            ):
                strict.append(item)
    if strict:
        res.beside.append(Beside("against strict FP32 (TF32 off everywhere), not in the verdict", strict))
    if res.evidence:
        return None
    return "no AMP variant with a default-FP32 reference in these results"


def _parallel_runs(doc: Document, parallelism: str) -> list[tuple[int, Case, Variant]]:
    """Variants that ran with this parallelism, verified, with the devices (or ranks) they used."""
    out = []
    for _, c in doc.ran_cases():
        for v in c.variants:
            n = v.params.get("devices")
            if v.ok and v.params.get("parallelism") == parallelism and not _failed(c, v) and is_num(n) and n >= 1:
                out.append((int(n), c, v))
    return out


def _efficiency(n: int, c: Case, v: Variant, what: str) -> Beside | None:
    """What the harness recorded against one device: at world size 1 the throughput ratio
    (the comparison with the single-device baseline), on N its scaling efficiency
    (derived.variants.NAME, from workloads/ddp.cpp)."""
    single = c.find({"parallelism": "single"})
    cm = c.comparison(v.name, single.name) if single is not None else None
    if cm is None or cm.speedup is None or (est := cm.estimate) is None:
        return None
    where = f"{c.experiment.name}/{c.name}"
    if n == 1:
        return Beside(f"{what} at world size 1 (its overhead, not the claim)", value=est, where=where, variant=v.name)
    per_variant = c.derived.get("variants")
    d = per_variant.get(str(v.name)) if isinstance(per_variant, dict) else None
    d = d if isinstance(d, dict) else {}
    eff, ci = d.get("scaling_efficiency"), d.get("scaling_efficiency_ci")
    if not is_num(eff):
        return None
    lo, hi = ci if isinstance(ci, list) and len(ci) == 2 else (None, None)
    m = Measurement(eff, lo, hi, cm.confidence, rounds=cm.rounds, below_floor=cm.below_floor)
    return Beside(f"{what} on {n}: scaling efficiency (throughput / {n} x one device)", value=m, where=where)


def _ddp_vs_dp(claim: dict, doc: Document, exps: list[Experiment], res: ClaimResult) -> str | list[str] | None:
    # DDP variants count ranks, DataParallel ones devices (params devices).
    ddp = _parallel_runs(doc, "ddp")
    dp = _parallel_runs(doc, "data_parallel")
    for n, c, v in ddp:
        if b := _efficiency(n, c, v, "DDP"):
            res.beside.append(b)
    for n, c, v in dp:
        if n >= 2 and (b := _efficiency(n, c, v, "DataParallel")):
            res.beside.append(b)
    # Every DDP variant against DataParallel on as many devices, each its own row.
    for n, c, v in ddp:
        for m, dc, dv in dp:
            r = ev.ratio(dv, v, doc.confidence) if m == n >= 2 else None
            cm = c.comparison(v.name)
            if r is None or cm is None:
                continue
            item = _claim_row(
                cm, r, variant=f"{v.name} ({n} ranks)", baseline=f"{dc.name}/{dv.name} ({m} devices)", sides=(dv, v)
            )
            item.spread = None
            res.evidence.append(item)
    if res.evidence:
        return None
    most_ranks = max((n for n, *_ in ddp), default=0)
    most_devices = max((n for n, *_ in dp), default=0)
    if max(most_ranks, most_devices) < 2:
        return [
            "needs 2+ GPUs: DDP against DataParallel on the same N >= 2 devices",  # the summary's part
            f"this run had {most_ranks or 'no'} DDP rank(s) and DataParallel on {most_devices or 'no'} device(s)",
        ]
    return (
        f"needs DDP and DataParallel on the same number of devices: DDP ran on "
        f"{sorted({n for n, *_ in ddp}) or 'none'}, DataParallel on {sorted({n for n, *_ in dp}) or 'none'}"
    )


METHODS = {"match": _by_match, "vs_default_fp32": _vs_default_fp32, "ddp_vs_dp": _ddp_vs_dp}


def _pool(res: ClaimResult) -> None:
    """A pooled claim's estimate, interval and range, over its cases at or above the floor."""
    rows = res.pooled
    res.notes += [
        f"{e.label}: left out of the pooled figures, {why_no_ci([e.m.rounds], [e.m.floor], res.run_confidence)}"
        for e in res.left_out
    ]
    if len(rows) == 1:
        _take(res, rows[0])
        return
    spreads = [e.spread for e in rows]
    conf = res.run_confidence
    if rows[0].m.below_floor:  # every case below the floor: points, no CI
        points = [e.m.speedup for e in rows]
        res.m = Measurement(geometric_mean(points), None, None, conf, below_floor=True, source=Source.DERIVED)
        res.low, res.high = min(points), max(points)
        return
    if all(spreads) and (between := pooled_between(spreads, conf)) is not None:
        points = case_points(spreads)
        k = len(shared(spreads))
        res.m = Measurement(*between, conf, PROCESS, k, k - 1, source=Source.DERIVED)
        res.low, res.high = min(points), max(points)
        if any(len(sp.measured) > k for sp in spreads):
            res.notes.append(f"pooled over the {k} processes that measured every case")
        return
    points = [e.m.speedup for e in rows]
    res.m = Measurement(geometric_mean(points), None, None, conf, source=Source.DERIVED)
    res.low, res.high = min(points), max(points)
    if any(spreads):
        res.notes.append(
            "no pooled CI: fewer than two processes measured every case"
            if all(spreads)
            else "no pooled CI: its cases were measured in different numbers of processes"
        )
        return
    how = [ev.estimator_for(e.sides, e.m.speedup) for e in rows]
    ci = pooled_ci([(e.sides, h) for e, h in zip(rows, how)], conf) if all(how) else None
    if ci is None:
        res.notes.append(
            "no pooled CI: a case's rounds are not in these results as its speedup was estimated "
            "from (no samples, or samples that do not give its recorded speedup)"
        )
        return
    res.m = replace(res.m, ci_low=ci[0], ci_high=ci[1], source=Source.COMPUTED)  # from the rounds' samples


def _take(res: ClaimResult, e: ClaimRow) -> None:
    """The claim's figures are this row's estimate, exactly."""
    res.m = e.m


def _row_verdict(claim: dict, e: ClaimRow, run_confidence: float) -> Verdict:
    kind = claim.get("kind", "qualitative")
    few = Rounds((e.m.rounds,), (e.m.floor,), run_confidence) if e.m.below_floor else None
    v = decide(
        kind,
        claim.get("low"),
        claim.get("high"),
        e.m.ci_low,
        e.m.ci_high,
        too_few_rounds=few,
        point=e.m.speedup,
        one_process=e.m.unit != PROCESS,
    )
    return replace(v, rests_on=(e.label,))


def _judge_apart(res: ClaimResult, measurable: bool) -> Verdict | None:
    """Each row's own verdict, and the claim's: the weakest (module docstring). Sets the
    decisive row, whose estimate is the claim's figure. None where the claim is not
    measurable (no verdicts): its figure is then the first row's, in the order claims.json
    and the experiment declare them, a row fixed before the data (the least speedup would
    be whichever row came out lowest, a different one in each run)."""
    rows = res.evidence
    if not measurable:
        res.decisive = rows[0]
    else:
        for e in rows:
            e.verdict = _row_verdict(res.claim, e, res.run_confidence)
        c, verdicts = res.claim, [e.verdict for e in rows]
        v = decide(c.get("kind", "qualitative"), c.get("low"), c.get("high"), None, None, rows=verdicts)
        res.decisive = rows[v.decisive or 0]
    _take(res, res.decisive)
    points = [e.m.speedup for e in rows]
    res.low, res.high = min(points), max(points)
    return v if measurable else None


def _too_few_rounds(res: ClaimResult) -> Rounds | None:
    """The rounds when every case behind the claim is below the rounds floor (no
    verdict can be drawn); None when some case is at or above it."""
    if not res.evidence or not all(e.m.below_floor for e in res.evidence):
        return None
    rounds = tuple(e.m.rounds for e in res.evidence)
    floors = tuple(e.m.floor for e in res.evidence)
    if len(res.evidence) == 1:
        return Rounds(rounds, floors, res.run_confidence, label=res.evidence[0].label)
    return Rounds(rounds, floors, res.run_confidence, cases=len(res.evidence))


def _annotate(res: ClaimResult) -> None:
    """A drawn verdict names the below-floor cases it left out and the variants whose
    check judged only the first loss; it names the comparisons it rests on."""
    v = res.verdict
    drawn = v.verdict in DRAWN
    res.verdict = replace(
        v,
        rests_on=tuple(e.label for e in res.pooled) if v.verdict != NOT_MEASURABLE else (),
        left_out=tuple(e.m.rounds for e in res.left_out) if drawn else (),
        unjudged=tuple(e.label for e in res.evidence if e.unjudged) if drawn else (),
    )


def _one_per_case(res: ClaimResult) -> bool:
    """Whether every case gave one row: a case with several cannot pool."""
    seen = [(e.experiment, e.case) for e in res.evidence]
    many = sorted({f"{x}/{c}" for x, c in seen if seen.count((x, c)) > 1})
    if many:
        res.notes.append(
            f"claims.json pools this claim, but it matches several comparisons in {', '.join(many)}: "
            f"judged apart instead"
        )
    return not many


def evaluate_claim(claim: dict, doc: dict | Document) -> ClaimResult:
    doc = doc if isinstance(doc, Document) else Document(doc)
    exps = [e for e in doc.experiments if claim["id"] in e.claims]
    res = ClaimResult(claim, [e.name for e in exps], run_confidence=doc.confidence)
    method = METHODS[claim.get("method", "match")]
    reason = method(claim, doc, exps, res) if exps else None
    for spec in claim.get("beside") or []:
        if b := _beside(spec, doc):
            res.beside.append(b)
    res.apart = not (claim.get("pool") is True and _one_per_case(res))
    unavailable = None
    if not exps:
        unavailable = NO_EXPERIMENT
    elif claim.get("gpu_only") and doc.device == "cpu":
        unavailable = ON_CPU if res.evidence else "CPU run: no GPU"
    elif not res.evidence:
        unavailable = reason or "no matching comparison with a speedup in these results"
    kind = claim.get("kind", "qualitative")
    low, high = claim.get("low"), claim.get("high")
    for e in res.evidence + res.stress:
        e.bounds = bounds(kind, low, high)
    testable = kind == "direction" or (kind == "speedup" and is_num(low) and is_num(high))
    if res.evidence and res.apart:
        res.verdict = _judge_apart(res, testable and not unavailable)
    elif res.evidence:
        _pool(res)
        if not unavailable and res.m.ci_low is None and not res.pooled[0].m.below_floor:
            unavailable = (
                "no pooled CI over its cases"
                if len(res.pooled) > 1
                else "no speedup with a confidence interval was measured"
            )
    if res.verdict is None:
        m = res.m or Measurement(None, None, None, res.run_confidence)
        ci = m.ci_low, m.ci_high
        point = m.speedup if m.ci_low is not None else None
        few = _too_few_rounds(res)
        res.verdict = decide(kind, low, high, *ci, unavailable, few, point=point, one_process=m.unit != PROCESS)
    _annotate(res)
    return res


def evaluate(doc: dict | Document) -> list[ClaimResult]:
    doc = doc if isinstance(doc, Document) else Document(doc)
    return [evaluate_claim(c, doc) for c in load_claims()]
