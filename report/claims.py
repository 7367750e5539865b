"""Checklist claims (claims.json) against a results document: the cases each
claim is judged on, the measured effect, what is shown beside it, and the
verdict (verdicts.py). Comparisons are picked by what their variants are (their
params, document.py), never by their names.

How a claim picks its evidence (claims.json, "method"):
  best             in every case of the experiments that list the claim (or of
                   match.experiment), the largest speedup among the comparisons
                   that match it (the best setting of the technique); reference
                   variants (bounds, data-only loops) and failed verifications
                   are left out.
  vs_default_fp32  AMP against the FP32 a PyTorch user gets by default (the variant
                   with params default_fp32: cuDNN may use TF32 for convolutions,
                   matmul does not), per case; strict FP32 beside.
  ddp_vs_dp        DDP on N ranks against DataParallel on N devices, N >= 2 (params
                   parallelism and devices).
A case's headline picked as the best of m > 1 matching settings has its CI taken at
1 - alpha / m (multiplicity.py, Bonferroni; alpha from the run's confidence) and says
so ("best of 3, 98.3% CI").
Over cases: one case gives its own speedup and CI; several give their geometric
mean with a bootstrap CI over the cases' rounds (pooled.py), at the lowest
confidence any case was corrected to, and the range of headlines beside it.
"beside" entries are measurements shown next to the verdict, never pooled into it.

The rounds floor (rounds.py, recorded per comparison): a ratio from fewer interleaved
rounds has no CI. In a case, a headline with a CI is preferred to a larger one without.
Cases below the floor are shown but not pooled: the median, range and CI come from
the cases at or above it, and the verdict says what was left out. When every case is
below the floor the points are shown with no CI and the verdict is inconclusive.

Between processes (processes.py): where the run measured each comparison in more than
one process, the claim's interval is the wider of the within-process one above and
the between-process one (one case: its processes' t interval; several: per process
the geometric mean over the cases, then the t interval), each with its own point
estimate; and a one-case claim whose processes, each judged on its own interval,
disagree is unstable (verdicts.UNSTABLE), not either answer."""
from __future__ import annotations

import functools
import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from . import evidence as ev
from .document import DEFAULT_CONFIDENCE, Case, Document, Experiment, Variant, params_hold
from .fmt import fmt_no_ci, fmt_speedup, is_num, sig
from .judged import NOT_JUDGED
from .judged import status as judged_status
from .multiplicity import choice_text, confidence_for, rounds_floor
from .pooled import geometric_mean, pooled_ci
from .processes import WITHIN, Spread, pooled_between, spread, wider
from .rounds import rounds_text, why_no_ci
from .verdicts import DRAWN, UNSTABLE, Verdict, claimed_text, decide

CLAIMS_PATH = Path(__file__).resolve().parent / "claims.json"


@functools.lru_cache(maxsize=1)
def load_claims() -> tuple:
    with open(CLAIMS_PATH, encoding="utf-8") as f:
        return tuple(json.load(f)["claims"])


@dataclass
class Evidence:
    experiment: str
    case: str
    variant: str
    speedup: float
    ci_low: float | None  # None below the rounds floor
    ci_high: float | None
    baseline: str = ""  # what the variant was compared with
    rounds: int | None = None  # interleaved rounds behind the ratio
    below_floor: bool = False  # fewer rounds than the floor: no CI, not pooled
    unjudged: bool = False  # its verification judged nothing but the first loss (judged.py)
    # (reference variant, variant): what its ratio is re-estimated from
    sides: tuple | None = field(default=None, repr=False, compare=False)
    chosen_from: int = 1  # matching settings the headline was picked among
    confidence: float = DEFAULT_CONFIDENCE  # of its CI: the run's, corrected for chosen_from
    no_ci: str = ""  # why it has no CI although its rounds would hold one
    floor: int = rounds_floor(DEFAULT_CONFIDENCE)  # the rounds its ratio needed for a CI at the run's confidence
    # The comparison in each process of the run (processes.py); None: one process.
    spread: Spread | None = field(default=None, repr=False, compare=False)

    @property
    def label(self) -> str:
        vs = f" vs {self.baseline}" if self.baseline else ""
        return f"{self.experiment}/{self.case}: {self.variant}{vs}"

    @property
    def text(self) -> str:
        """'4.57× [4.21, 4.91]', or '7.13× (n = 1, no CI)' below the rounds floor."""
        choice = choice_text(self.chosen_from, self.confidence)
        if self.no_ci:
            return f"{sig(self.speedup)}× ({choice}: no CI, {self.no_ci})"
        if self.below_floor:
            text = fmt_no_ci(self.speedup, self.rounds)
            if self.chosen_from > 1:
                text += f" ({choice}: needs {rounds_floor(self.confidence)} rounds)"
            return text
        text = fmt_speedup(self.speedup, self.ci_low, self.ci_high) + (f" ({choice})" if choice else "")
        return text + (f"; {self.spread.text(self.confidence)}" if self.spread else "")


def _better(item: Evidence, best: Evidence | None) -> bool:
    """Whether `item` beats `best` as a case's headline: one with a CI beats any without
    (a point from too few rounds cannot stand for the technique's best setting), then
    the larger speedup."""
    return best is None or (not item.below_floor, item.speedup) > (not best.below_floor, best.speedup)


def _from_ratio(c: Case, name: str, r: ev.Ratio, baseline: str, sides: tuple) -> Evidence:
    return Evidence(c.experiment.name, c.name, name, r.speedup, r.ci_low, r.ci_high, baseline,
                    r.rounds, r.below_floor, sides=sides, confidence=r.confidence, floor=r.floor)


NOT_REREAD = "its samples do not give its recorded speedup, so no CI can be re-read"


def _chosen(best: Evidence | None, choices: int) -> Evidence | None:
    """The best of `choices` matching settings, its CI re-estimated at 1 - alpha / choices
    from its rounds; with too few rounds for that, or no samples, no CI."""
    if best is None or choices <= 1:
        return best
    best.chosen_from, best.confidence = choices, confidence_for(choices, best.confidence)
    r = ev.reestimate(best.sides, best.speedup, best.confidence) if best.sides else None
    if r is None:
        best.ci_low = best.ci_high = None
        best.no_ci = NOT_REREAD
    elif r.below_floor:
        best.ci_low = best.ci_high = None
        best.below_floor = True
    else:
        best.ci_low, best.ci_high = r.ci_low, r.ci_high
    return best


@dataclass
class Beside:
    label: str
    text: str


@dataclass
class ClaimResult:
    claim: dict
    experiments: list[str]
    evidence: list[Evidence] = field(default_factory=list)
    estimate: float | None = None  # one case's speedup, or the geometric mean over cases
    low: float | None = None  # range of case headlines
    high: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    confidence: float = DEFAULT_CONFIDENCE  # of the CI
    run_confidence: float = DEFAULT_CONFIDENCE  # every interval the harness recorded is at it
    notes: list[str] = field(default_factory=list)
    beside: list[Beside] = field(default_factory=list)
    verdict: Verdict | None = None
    basis: str = WITHIN  # whose interval ci_low/ci_high are (processes.py)
    processes: int = 1  # processes behind the between-process interval, where it is the basis

    @property
    def pooled(self) -> list[Evidence]:
        """The cases the median, range and CI come from: those at or above the rounds
        floor, else (every case below it) all of them, as points without a CI."""
        return [e for e in self.evidence if not e.below_floor] or list(self.evidence)

    @property
    def left_out(self) -> list[Evidence]:
        """Cases below the rounds floor not pooled beside cases at or above it."""
        if all(e.below_floor for e in self.evidence):
            return []
        return [e for e in self.evidence if e.below_floor]

    @property
    def claimed(self) -> str:
        c = self.claim
        text = claimed_text(c.get("kind", "qualitative"), c.get("low"), c.get("high"))
        return f"{text} {c['condition']}" if c.get("condition") else text

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


def _headline(rules: dict, case: Case, notes: list[str] | None) -> Evidence | None:
    """The largest matching speedup of one case against its baseline, corrected for
    the choice where several matched."""
    e = case.experiment
    best, choices = None, 0
    for cm in case.comparisons:
        name = str(cm.raw.get("variant", ""))
        var, base = cm.variant, cm.baseline
        if (var is not None and var.role == "reference") or not _matches(rules, case, var, base) \
                or cm.speedup is None:
            continue
        if cm.failed:
            if notes is not None:
                notes.append(f"{e.name}/{case.name}/{name}: left out, verification failed")
            continue
        r = ev.recorded(cm)
        sides = (base, var) if base is not None and var is not None else None
        item = Evidence(e.name, case.name, name, r.speedup, r.ci_low, r.ci_high, str(cm.raw.get("baseline", "")),
                        r.rounds, r.below_floor, judged_status(cm.verification) == NOT_JUDGED, sides=sides,
                        confidence=r.confidence, floor=r.floor, spread=spread(cm.raw))
        choices += 1
        if _better(item, best):
            best = item
    return _chosen(best, choices)


def _summarize(res: ClaimResult) -> None:
    """Estimate, range and CI over the pooled cases. A case below the rounds floor adds
    neither a CI nor a point: its point would move the estimate the CI stands beside."""
    pooled = res.pooled
    if not pooled:
        return
    speedups = [e.speedup for e in pooled]
    res.low, res.high = min(speedups), max(speedups)
    res.notes += [f"{e.label}: left out of the pooled figures, {why_no_ci([e.rounds], [e.floor], res.run_confidence)}"
                  for e in res.left_out]
    if len(pooled) == 1:
        e = pooled[0]
        res.estimate, res.ci_low, res.ci_high, res.confidence = e.speedup, e.ci_low, e.ci_high, e.confidence
        _widen(res, e.spread.interval(e.confidence) if e.spread else None,
               len(e.spread.speedups) if e.spread else 1)
        return
    res.estimate = geometric_mean(speedups)
    if pooled[0].below_floor:  # every case below the floor: points, no CI
        return
    res.confidence = min(e.confidence for e in pooled)
    how = [ev.estimator_for(e.sides, e.speedup) for e in pooled]
    ci = pooled_ci([(e.sides, h) for e, h in zip(pooled, how)], res.confidence) if all(how) else None
    if ci is None:
        res.notes.append("no pooled CI: a case's rounds are not in these results as its speedup was estimated "
                         "from (no samples, or samples that do not give its recorded speedup)")
        return
    res.ci_low, res.ci_high = ci
    spreads = [e.spread for e in pooled]
    if all(spreads):
        between = pooled_between(spreads, res.confidence)
        _widen(res, between, min(len(s.speedups) for s in spreads))


def _widen(res: ClaimResult, between: tuple[float, float, float] | None, processes: int) -> None:
    """The between-process interval in place of the within-process one where it is wider."""
    if res.estimate is None:
        return
    res.estimate, res.ci_low, res.ci_high, res.basis = wider((res.estimate, res.ci_low, res.ci_high), between)
    res.processes = processes if res.basis != WITHIN else 1


def _process_flip(res: ClaimResult, kind: str) -> Verdict | None:
    """The claim's cases measured in several processes whose own figures give different
    verdicts: unstable, with each process's answer. One case: each process judged on
    its own interval. Several: on its own pooled point (the geometric mean over the
    cases of that process's speedups), since no per-process pooled interval is recorded."""
    pooled = res.pooled
    spreads = [e.spread for e in pooled]
    if not spreads or not all(spreads) or res.verdict is None or res.verdict.verdict not in DRAWN:
        return None
    low, high = res.claim.get("low"), res.claim.get("high")
    seen = []  # (process number, verdict, figure)
    if len(spreads) == 1:
        for p in spreads[0].measured:
            if is_num(p.ci_low) and is_num(p.ci_high):
                seen.append((p.process + 1, decide(kind, low, high, p.ci_low, p.ci_high).verdict,
                             fmt_speedup(p.speedup, p.ci_low, p.ci_high)))
        how = "each on its own interval"
    else:
        shared = set.intersection(*({p.process for p in sp.measured} for sp in spreads))
        for k in sorted(shared):
            point = geometric_mean([next(p.speedup for p in sp.measured if p.process == k) for sp in spreads])
            seen.append((k + 1, decide(kind, low, high, point, point).verdict, f"{sig(point)}×"))
        how = f"each on its own geometric mean over the {len(spreads)} cases"
    if len({v for _, v, _ in seen}) < 2:
        return None
    each = "; ".join(f"process {n}: {v} ({fig})" for n, v, fig in seen)
    return Verdict(UNSTABLE, f"the processes of this run disagree, {how}: {each}")


def _no_ci(res: ClaimResult) -> str | None:
    """Why cases at or above the rounds floor still give no CI to judge on."""
    uncorrected = [e.label for e in res.pooled if e.no_ci]
    if uncorrected:
        return f"no CI corrected for picking the best setting: {'; '.join(uncorrected)}: {NOT_REREAD}"
    if len(res.pooled) > 1 and not res.pooled[0].below_floor:
        return "no pooled CI over its cases: their samples do not give their recorded speedups, so no rounds to resample"
    return None


def _too_few_rounds(res: ClaimResult) -> str | None:
    """Why no verdict can be drawn when every case behind the claim is below the rounds
    floor (naming the rounds); None when some case is at or above it."""
    if not res.evidence or not all(e.below_floor for e in res.evidence):
        return None
    rounds = why_no_ci([e.rounds for e in res.evidence], [e.floor for e in res.evidence], res.run_confidence)
    most = max(e.chosen_from for e in res.evidence)
    if most > 1:
        needs = rounds_floor(confidence_for(most, res.run_confidence))
        rounds += f"; picked among {most} settings, its CI needs {needs}"
    if len(res.evidence) == 1:
        return f"{res.evidence[0].label}: {rounds}"
    return f"every one of its {len(res.evidence)} cases has {rounds}"


def _unjudged(case: Case, v: Variant) -> bool:
    """The variant's comparison with its case's baseline judged nothing but the first loss."""
    return any(cm.variant_name == v.name and judged_status(cm.verification) == NOT_JUDGED for cm in case.comparisons)


def _say_unjudged(res: ClaimResult) -> None:
    """A verdict drawn from variants whose check judged only the first loss says so."""
    out = [e for e in res.evidence if e.unjudged]
    if out and res.verdict.verdict in DRAWN:
        res.verdict = Verdict(res.verdict.verdict, f"{res.verdict.why}; not verified beyond the first loss "
                                                   f"(which sits near ln(classes) whatever the logits): "
                                                   f"{', '.join(e.label for e in out)}")


def _say_left_out(res: ClaimResult) -> None:
    """A verdict drawn from some cases says which below-floor cases it left out."""
    out = res.left_out
    if out and res.verdict.verdict in DRAWN:
        res.verdict = Verdict(res.verdict.verdict, f"{res.verdict.why}; left out, below the rounds floor: "
                                                   f"{len(out)} case{'s' * (len(out) > 1)} "
                                                   f"({rounds_text([e.rounds for e in out])})")


def speedups_text(items: list[Evidence]) -> str:
    """'4.57× [4.21, 4.91] (exp/case)' for one, else the range and median over cases."""
    if not items:
        return "not in these results"
    if len(items) == 1:
        e = items[0]
        return f"{e.text} ({e.experiment}/{e.case})"
    s = [e.speedup for e in items]
    text = f"{sig(min(s))}–{sig(max(s))}× over {len(s)} cases (median {sig(statistics.median(s))}×)"
    below = [e.rounds for e in items if e.below_floor]
    if below:
        text += f"; {len(below)} of them below the rounds floor ({rounds_text(below)}, no CI)"
    return text


def _derived_value(case: Case, key: str) -> object:
    v: object = case.derived
    for part in key.split("."):
        if not isinstance(v, dict):
            return None
        v = v.get(part)
    return v


def _beside(spec: dict, doc: Document) -> Beside | None:
    """One 'beside' entry of claims.json: headlines of other comparisons, or a derived
    figure (the first case of the experiment that derived it)."""
    label = spec.get("label", "")
    rules = spec.get("match")
    if rules is not None:
        found = [h for _, c in doc.ran_cases() if (h := _headline(rules, c, None))]
        return Beside(label, speedups_text(found)) if found else None
    d = spec.get("derived") or {}
    for e, c in doc.ran_cases(d.get("experiment")):
        v = _derived_value(c, d.get("key", ""))
        if v is None:
            continue
        if spec.get("format") == "pct" and is_num(v):
            text = f"{100 * v:.0f}%"
        else:
            text = str(v) if isinstance(v, (int, str)) else sig(v)
        return Beside(label, f"{text} ({e.name}/{c.name})")
    return None


def _best(claim: dict, doc: Document, exps: list[Experiment], res: ClaimResult) -> str | None:
    """Method 'best'; returns why nothing was measured, or None."""
    rules = claim.get("match") or {}
    why_none = []
    for e in exps:
        if "experiment" in rules and e.name != rules["experiment"]:
            continue
        if e.status in ("skipped", "failed", "crashed", "hung"):
            why_none.append(f"{e.name} {e.status}: {e.raw.get('reason') or 'no reason given'}")
            continue
        for c in e.cases:
            if not c.ran:
                continue
            h = _headline(rules, c, res.notes)
            if h:
                res.evidence.append(h)
                if c.raw.get("status") == "interrupted":
                    res.notes.append(f"{e.name}/{c.name}: interrupted, partial samples")
    if res.evidence:
        return None
    if why_none:
        return "; ".join(why_none)
    if res.notes:
        return "verification failed for every matching comparison"
    if claim.get("needs"):
        return f"needs {claim['needs']}, not in these results"
    return "no matching comparison with a speedup in these results"


DEFAULT_FP32, STRICT_FP32 = {"default_fp32": True}, {"precision": "fp32", "layout": "contiguous"}
DEFAULT_WHY = {"tf32": "TF32 on for cuDNN convolutions, the default",
               "fp32": "the default: no convolutions, matmul without TF32"}


def default_fp32(case: Case) -> tuple[Variant | None, str]:
    """The variant that stands for PyTorch's default FP32 in a mixed_precision case
    (params default_fp32), and why."""
    v = case.find(DEFAULT_FP32)
    if v is None:
        return None, ""
    why = DEFAULT_WHY.get(v.params.get("precision"), "PyTorch's default flags")
    return v, f"{v.name} ({why})"


def _vs_default_fp32(claim: dict, doc: Document, exps: list[Experiment], res: ClaimResult) -> str | None:
    rules = claim.get("match") or {}
    strict = []
    names = {e.name for e in exps}
    for e, c in doc.ran_cases(rules.get("experiment")):
        if e.name not in names:
            continue
        ref, ref_label = default_fp32(c)
        plain = c.find(STRICT_FP32)
        best = best_strict = None
        choices = [0, 0]  # AMP settings compared with each reference: the headline is the best of them
        for v in c.variants:
            if not v.ok or not _matches(rules, c, v):
                continue
            if _failed(c, v):
                res.notes.append(f"{e.name}/{c.name}/{v.name}: left out, verification failed")
                continue
            refs = ((0, ref, ref_label), (1, plain, f"{plain.name} (strict: TF32 off)" if plain else ""))
            for target, base, label in refs:
                r = ev.ratio(base, v, doc.confidence) if base is not None else None
                if r is None:
                    continue
                item = _from_ratio(c, str(v.name), r, label, (base, v))
                item.unjudged = _unjudged(c, v)
                choices[target] += 1
                if target == 0 and _better(item, best):
                    best = item
                if target == 1 and _better(item, best_strict):
                    best_strict = item
        if best:
            res.evidence.append(_chosen(best, choices[0]))
        if best_strict:
            strict.append(_chosen(best_strict, choices[1]))
    if strict:
        res.beside.append(Beside("against strict FP32 (TF32 off everywhere), not in the verdict",
                                 speedups_text(strict)))
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


def _ratio_text(s: float, lo: object, hi: object, below: bool, rounds: int | None, unit: str = "") -> str:
    """A recorded figure with its CI, or with its rounds and 'no CI' below the rounds floor."""
    head = f"{sig(s)}{unit}"
    if below:
        return f"{head} ({rounds_text([rounds])}, no CI)"
    if is_num(lo) and is_num(hi):
        return f"{head} [{sig(lo)}, {sig(hi)}]"
    return head


def _efficiency(n: int, c: Case, v: Variant, what: str) -> Beside | None:
    """What the harness recorded against one device: at world size 1 the throughput ratio
    (the comparison with the single-device baseline), on N its scaling efficiency
    (derived.variants.NAME, from workloads/ddp.cpp)."""
    single = c.find({"parallelism": "single"})
    cm = c.comparison(v.name, single.name) if single is not None else None
    if cm is None or cm.speedup is None:
        return None
    where = f"({c.experiment.name}/{c.name})"
    if n == 1:
        r = ev.recorded(cm)
        text = _ratio_text(r.speedup, r.ci_low, r.ci_high, r.below_floor, r.rounds, "×")
        return Beside(f"{what} at world size 1 (its overhead, not the claim)", f"{text} of one device {where}")
    per_variant = c.derived.get("variants")
    d = per_variant.get(str(v.name)) if isinstance(per_variant, dict) else None
    d = d if isinstance(d, dict) else {}
    eff, ci = d.get("scaling_efficiency"), d.get("scaling_efficiency_ci")
    if not is_num(eff):
        return None
    lo, hi = ci if isinstance(ci, list) and len(ci) == 2 else (None, None)
    return Beside(f"{what} on {n}: scaling efficiency (throughput / {n} x one device)",
                  f"{_ratio_text(eff, lo, hi, cm.below_floor, cm.rounds)} {where}")


def _ddp_vs_dp(claim: dict, doc: Document, exps: list[Experiment], res: ClaimResult) -> str | None:
    # DDP variants count ranks, DataParallel ones devices (params devices).
    ddp = _parallel_runs(doc, "ddp")
    dp = _parallel_runs(doc, "data_parallel")
    for n, c, v in ddp:
        if b := _efficiency(n, c, v, "DDP"):
            res.beside.append(b)
    for n, c, v in dp:
        if n >= 2 and (b := _efficiency(n, c, v, "DataParallel")):
            res.beside.append(b)
    best: dict[tuple[int, int], Evidence] = {}  # per DDP case and N: its best DDP variant
    choices: dict[tuple[int, int], int] = {}
    for n, c, v in ddp:
        for m, dc, dv in dp:
            r = ev.ratio(dv, v, doc.confidence) if m == n >= 2 else None
            if r is None:
                continue
            key = (id(c), n)
            item = _from_ratio(c, f"{v.name} ({n} ranks)", r, f"{dc.name}/{dv.name} ({m} devices)", (dv, v))
            choices[key] = choices.get(key, 0) + 1
            if _better(item, best.get(key)):
                best[key] = item
    res.evidence += [_chosen(item, choices[key]) for key, item in best.items()]
    if res.evidence:
        return None
    most_ranks = max((n for n, *_ in ddp), default=0)
    most_devices = max((n for n, *_ in dp), default=0)
    if max(most_ranks, most_devices) < 2:
        return (f"needs 2+ GPUs: DDP against DataParallel on the same N >= 2 devices; this run had "
                f"{most_ranks or 'no'} DDP rank(s) and DataParallel on {most_devices or 'no'} device(s)")
    return (f"needs DDP and DataParallel on the same number of devices: DDP ran on "
            f"{sorted({n for n, *_ in ddp}) or 'none'}, DataParallel on {sorted({n for n, *_ in dp}) or 'none'}")


METHODS = {"best": _best, "vs_default_fp32": _vs_default_fp32, "ddp_vs_dp": _ddp_vs_dp}


def evaluate_claim(claim: dict, doc: dict | Document) -> ClaimResult:
    doc = doc if isinstance(doc, Document) else Document(doc)
    exps = [e for e in doc.experiments if claim["id"] in e.claims]
    res = ClaimResult(claim, [e.name for e in exps], confidence=doc.confidence, run_confidence=doc.confidence)
    method = METHODS[claim.get("method", "best")]
    reason = method(claim, doc, exps, res) if exps else None
    for spec in claim.get("beside") or []:
        if b := _beside(spec, doc):
            res.beside.append(b)
    _summarize(res)
    unavailable = None
    if not exps:
        unavailable = "no experiment in these results tests it"
    elif claim.get("gpu_only") and doc.device == "cpu":
        unavailable = "CPU run: no GPU"
    elif not res.evidence:
        unavailable = reason or "no matching comparison with a speedup in these results"
    elif res.estimate is not None and res.ci_low is None and (why := _no_ci(res)):
        unavailable = why
    kind = claim.get("kind", "qualitative")
    res.verdict = decide(kind, claim.get("low"), claim.get("high"), res.ci_low, res.ci_high, unavailable,
                         _too_few_rounds(res))
    res.verdict = _process_flip(res, kind) or res.verdict
    _say_left_out(res)
    _say_unjudged(res)
    return res


def evaluate(doc: dict | Document) -> list[ClaimResult]:
    doc = doc if isinstance(doc, Document) else Document(doc)
    return [evaluate_claim(c, doc) for c in load_claims()]
