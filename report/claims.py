"""Checklist claims (claims.json) against a results document: the cases each
claim is judged on, the measured effect, what is shown beside it, and the
verdict (verdicts.py).

How a claim picks its evidence (claims.json, "method"):
  best             in every case of the experiments that list the claim (or of
                   match.experiment), the largest speedup among the comparisons
                   that match it (the best setting of the technique); reference
                   variants (bounds, data-only loops) and failed verifications
                   are left out.
  vs_default_fp32  AMP against the FP32 a PyTorch user gets by default (cuDNN may
                   use TF32 for convolutions, matmul does not), per case.
  ddp_vs_dp        DDP on N ranks against DataParallel on N devices, N >= 2.
A case's headline picked as the best of m > 1 matching settings has its CI taken at
1 - 0.05 / m (multiplicity.py, Bonferroni) and says so ("best of 3, 98.3% CI").
Over cases: one case gives its own speedup and CI; several give their geometric
mean with a bootstrap CI over the cases' rounds (pooled.py), at the lowest
confidence any case was corrected to, and the range of headlines beside it.
"beside" entries are measurements shown next to the verdict, never pooled into it.

The rounds floor (rounds.py): a ratio from fewer interleaved rounds has no CI. In
a case, a headline with a CI is preferred to a larger one without. Cases below the
floor are shown but not pooled: the median, range and CI come from the cases at or
above it, and the verdict says what was left out. When every case is below the
floor the points are shown with no CI and the verdict is inconclusive."""
from __future__ import annotations

import functools
import json
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from . import evidence as ev
from .fmt import fmt_no_ci, fmt_speedup, is_num, sig
from .judged import NOT_JUDGED
from .multiplicity import choice_text, confidence_for, rounds_floor
from .pooled import geometric_mean, pooled_ci
from .judged import status as judged_status
from .rounds import rounds_text, why_no_ci
from .tables import below_floor, comparison_rounds
from .verdicts import DRAWN, Verdict, claimed_text, decide

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
    # (reference case, reference variant, case, variant): what its ratio is re-estimated from
    sides: tuple | None = field(default=None, repr=False, compare=False)
    chosen_from: int = 1  # matching settings the headline was picked among
    confidence: float = 0.95  # of its CI: 1 - 0.05 / chosen_from
    no_ci: str = ""  # why it has no CI although its rounds would hold one

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
        return fmt_speedup(self.speedup, self.ci_low, self.ci_high) + (f" ({choice})" if choice else "")


def _better(item: Evidence, best: Evidence | None) -> bool:
    """Whether `item` beats `best` as a case's headline: one with a CI beats any without
    (a point from too few rounds cannot stand for the technique's best setting), then
    the larger speedup."""
    return best is None or (not item.below_floor, item.speedup) > (not best.below_floor, best.speedup)


def _from_ratio(e: dict, c: dict, name: str, r: ev.Ratio, baseline: str, sides: tuple) -> Evidence:
    return Evidence(e.get("name"), c.get("name"), name, r.speedup, r.ci_low, r.ci_high, baseline,
                    r.rounds, r.below_floor, sides=sides)


NOT_REREAD = "its samples do not give its recorded speedup, so no CI can be re-read"


def _chosen(best: Evidence | None, choices: int) -> Evidence | None:
    """The best of `choices` matching settings, its CI re-estimated at 1 - 0.05 / choices
    from its rounds; with too few rounds for that, or no samples, no CI."""
    if best is None or choices <= 1:
        return best
    best.chosen_from, best.confidence = choices, confidence_for(choices)
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
    confidence: float = 0.95  # of the CI
    notes: list[str] = field(default_factory=list)
    beside: list[Beside] = field(default_factory=list)
    verdict: Verdict | None = None

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


def _matches(rules: dict, exp: dict, case: dict, variant: str) -> bool:
    if "experiment" in rules and not re.search(rules["experiment"], str(exp.get("name", ""))):
        return False
    if "case" in rules and not re.search(rules["case"], str(case.get("name", ""))):
        return False
    if "variant" in rules and not re.search(rules["variant"], variant):
        return False
    if "params" in rules:  # the variant's params must hold these values
        v = next((x for x in case.get("variants", []) or [] if x.get("name") == variant), {})
        params = v.get("params") or {}
        if any(params.get(k) != want for k, want in rules["params"].items()):
            return False
    return True


def _headline(rules: dict, e: dict, case: dict, notes: list[str] | None) -> Evidence | None:
    """The largest matching speedup of one case against its baseline, corrected for
    the choice where several matched."""
    roles = {v.get("name"): v.get("role") for v in case.get("variants", []) or []}
    best, choices = None, 0
    for cm in case.get("comparisons", []) or []:
        name = str(cm.get("variant", ""))
        if roles.get(name) == "reference" or not _matches(rules, e, case, name) or not is_num(cm.get("speedup")):
            continue
        if (cm.get("verification") or {}).get("status") == "failed":
            if notes is not None:
                notes.append(f"{e.get('name')}/{case.get('name')}/{name}: left out, verification failed")
            continue
        s = float(cm["speedup"])
        below = below_floor(case, cm)
        lo = hi = None  # below the floor: no CI, whatever an older file wrote as one
        if not below:
            lo = float(cm["ci_low"]) if is_num(cm.get("ci_low")) else s
            hi = float(cm["ci_high"]) if is_num(cm.get("ci_high")) else s
        sides = (case, _named(case, cm.get("baseline")), case, _named(case, name))
        item = Evidence(e.get("name"), case.get("name"), name, s, lo, hi, str(cm.get("baseline", "")),
                        comparison_rounds(case, cm), below, judged_status(cm.get("verification")) == NOT_JUDGED,
                        sides=sides if all(x is not None for x in sides) else None)
        choices += 1
        if _better(item, best):
            best = item
    return _chosen(best, choices)


def _named(case: dict, name: object) -> dict | None:
    return next((v for v in case.get("variants", []) or [] if v.get("name") == name), None)


def _summarize(res: ClaimResult) -> None:
    """Estimate, range and CI over the pooled cases. A case below the rounds floor adds
    neither a CI nor a point: its point would move the estimate the CI stands beside."""
    pooled = res.pooled
    if not pooled:
        return
    speedups = [e.speedup for e in pooled]
    res.low, res.high = min(speedups), max(speedups)
    res.notes += [f"{e.label}: left out of the pooled figures, {why_no_ci([e.rounds])}" for e in res.left_out]
    if len(pooled) == 1:
        e = pooled[0]
        res.estimate, res.ci_low, res.ci_high, res.confidence = e.speedup, e.ci_low, e.ci_high, e.confidence
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
    rounds = why_no_ci([e.rounds for e in res.evidence])
    most = max(e.chosen_from for e in res.evidence)
    if most > 1:
        rounds += f"; picked among {most} settings, its CI needs {rounds_floor(confidence_for(most))}"
    if len(res.evidence) == 1:
        return f"{res.evidence[0].label}: {rounds}"
    return f"every one of its {len(res.evidence)} cases has {rounds}"


def _unjudged(case: dict, name: str) -> bool:
    """The variant's comparison with its case's baseline judged nothing but the first loss."""
    return any(cm.get("variant") == name and judged_status(cm.get("verification")) == NOT_JUDGED
               for cm in case.get("comparisons", []) or [])


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


def _derived_value(case: dict, key: str) -> object:
    v: object = case.get("derived") or {}
    for part in key.split("."):
        if not isinstance(v, dict):
            return None
        v = v.get(part)
    return v


def _beside(spec: dict, doc: dict) -> Beside | None:
    """One 'beside' entry of claims.json: headlines of other comparisons, or a derived figure."""
    label = spec.get("label", "")
    rules = spec.get("match")
    if rules is not None:
        found = [h for e, c in ev.ok_cases(doc) if (h := _headline(rules, e, c, None))]
        return Beside(label, speedups_text(found)) if found else None
    d = spec.get("derived") or {}
    for e, c in ev.ok_cases(doc, d.get("experiment")):
        if d.get("case") and not re.search(d["case"], str(c.get("name", ""))):
            continue
        v = _derived_value(c, d.get("key", ""))
        if v is None:
            continue
        if spec.get("format") == "pct" and is_num(v):
            text = f"{100 * v:.0f}%"
        else:
            text = str(v) if isinstance(v, (int, str)) else sig(v)
        return Beside(label, f"{text} ({e.get('name')}/{c.get('name')})")
    return None


def _best(claim: dict, doc: dict, exps: list[dict], res: ClaimResult) -> str | None:
    """Method 'best'; returns why nothing was measured, or None."""
    rules = claim.get("match") or {}
    why_none = []
    for e in exps:
        if "experiment" in rules and not re.search(rules["experiment"], str(e.get("name", ""))):
            continue
        if e.get("status") in ("skipped", "failed", "crashed", "hung"):
            why_none.append(f"{e.get('name')} {e.get('status')}: {e.get('reason') or 'no reason given'}")
            continue
        for c in e.get("cases", []) or []:
            if c.get("status") not in ("ok", "interrupted"):
                continue
            h = _headline(rules, e, c, res.notes)
            if h:
                res.evidence.append(h)
                if c.get("status") == "interrupted":
                    res.notes.append(f"{e.get('name')}/{c.get('name')}: interrupted, partial samples")
    if res.evidence:
        return None
    if why_none:
        return "; ".join(why_none)
    if res.notes:
        return "verification failed for every matching comparison"
    if claim.get("needs"):
        return f"needs {claim['needs']}, not in these results"
    return "no matching comparison with a speedup in these results"


def _verified(case: dict, variant: str) -> bool:
    for cm in case.get("comparisons", []) or []:
        if cm.get("variant") == variant and (cm.get("verification") or {}).get("status") == "failed":
            return False
    return True


def default_fp32(case: dict) -> tuple[dict | None, str]:
    """The variant that stands for PyTorch's default FP32 in a mixed_precision case, and why."""
    v = ev.variant_named(case, r"^fp32_default$")
    if v:
        return v, "fp32_default (PyTorch's default flags)"
    model = str((case.get("params") or {}).get("model", ""))
    conv = re.search(r"resnet|conv|cnn", model, re.I) or any(
        "channels_last" in str(x.get("name", "")) for x in case.get("variants", []) or [])
    if conv:
        return ev.variant_named(case, r"^tf32$"), "tf32 (TF32 on for cuDNN convolutions, the default)"
    return ev.variant_named(case, r"^fp32$"), "fp32 (the default: no convolutions, matmul without TF32)"


def _vs_default_fp32(claim: dict, doc: dict, exps: list[dict], res: ClaimResult) -> str | None:
    rules = claim.get("match") or {}
    strict = []
    names = {e.get("name") for e in exps}
    for e, c in ev.ok_cases(doc, rules.get("experiment")):
        if e.get("name") not in names:
            continue
        ref, ref_label = default_fp32(c)
        plain = ev.variant_named(c, r"^fp32$")
        best = best_strict = None
        choices = [0, 0]  # AMP settings compared with each reference: the headline is the best of them
        for v in c.get("variants", []) or []:
            name = str(v.get("name", ""))
            if v.get("status", "ok") != "ok" or not _matches(rules, e, c, name):
                continue
            if not _verified(c, name):
                res.notes.append(f"{e.get('name')}/{c.get('name')}/{name}: left out, verification failed")
                continue
            for target, base, label in ((0, ref, ref_label), (1, plain, "fp32 (strict: TF32 off)")):
                r = ev.ratio(c, base, c, v) if base is not None else None
                if r is None:
                    continue
                item = _from_ratio(e, c, name, r, label, (c, base, c, v))
                item.unjudged = _unjudged(c, name)
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


def _count(case: dict, variant: dict, keys: tuple[str, ...]) -> int | None:
    """Ranks or devices a variant ran on, from the first of: its params, its name's _N
    suffix, what the case derived for it (derived.variants.NAME.devices), the case's params."""
    name = str(variant.get("name", ""))
    derived = ((case.get("derived") or {}).get("variants") or {}).get(name) or {}
    m = re.search(r"_(\d+)$", name)
    for source in (variant.get("params") or {}, {"n": int(m.group(1))} if m else {}, derived,
                   case.get("params") or {}):
        for k in (*keys, "n"):
            if is_num(source.get(k)):
                return int(source[k])
    return None


def _parallel_runs(doc: dict, pattern: str, keys: tuple[str, ...]) -> list[tuple[int, dict, dict, dict]]:
    out = []
    for e, c in ev.ok_cases(doc):
        for v in c.get("variants", []) or []:
            if re.search(pattern, str(v.get("name", ""))) and v.get("status", "ok") == "ok" and _verified(c, v["name"]):
                n = _count(c, v, keys)
                if n:
                    out.append((n, e, c, v))
    return out


def _ratio_text(r: ev.Ratio, n: int = 1, unit: str = "") -> str:
    """r / n with its CI, or with its rounds and 'no CI' below the rounds floor."""
    head = f"{sig(r.speedup / n)}{unit}"
    if r.below_floor:
        return f"{head} ({rounds_text([r.rounds])}, no CI)"
    return f"{head} [{sig(r.ci_low / n)}, {sig(r.ci_high / n)}]"


def _efficiency(n: int, e: dict, c: dict, v: dict, what: str) -> Beside | None:
    single = ev.variant_named(c, r"^single(_device)?$")
    r = ev.ratio(c, single, c, v) if single else None
    if r is None:
        return None
    if n == 1:
        return Beside(f"{what} at world size 1 (its overhead, not the claim)",
                      f"{_ratio_text(r, 1, '×')} of one device ({e.get('name')}/{c.get('name')})")
    return Beside(f"{what} on {n}: scaling efficiency (throughput / {n} x one device)",
                  f"{_ratio_text(r, n)} ({e.get('name')}/{c.get('name')})")


def _ddp_vs_dp(claim: dict, doc: dict, exps: list[dict], res: ClaimResult) -> str | None:
    # DDP variants (ddp, ddp_4, ddp_bucket_view) count ranks; DataParallel ones count
    # devices, falling back to the launch's world size when it ran inside the N-rank case.
    ddp = _parallel_runs(doc, r"^ddp(_|$)", ("world_size", "processes", "devices"))
    dp = _parallel_runs(doc, r"^(dp_\d+|data_parallel)$", ("gpus_used", "devices", "world_size"))
    for n, e, c, v in ddp:
        if b := _efficiency(n, e, c, v, "DDP"):
            res.beside.append(b)
    for n, e, c, v in dp:
        if n >= 2 and (b := _efficiency(n, e, c, v, "DataParallel")):
            res.beside.append(b)
    best: dict[tuple[int, int], Evidence] = {}  # per DDP case and N: its best DDP variant
    choices: dict[tuple[int, int], int] = {}
    for n, e, c, v in ddp:
        for m, de, dc, dv in dp:
            r = ev.ratio(dc, dv, c, v) if m == n >= 2 else None
            if r is None:
                continue
            key = (id(c), n)
            item = _from_ratio(e, c, f"{v['name']} ({n} ranks)", r, f"{dc.get('name')}/{dv['name']} ({m} devices)",
                               (dc, dv, c, v))
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


def evaluate_claim(claim: dict, doc: dict) -> ClaimResult:
    exps = [e for e in doc.get("experiments", []) if claim["id"] in (e.get("claims") or [])]
    res = ClaimResult(claim, [e.get("name") for e in exps])
    method = METHODS[claim.get("method", "best")]
    reason = method(claim, doc, exps, res) if exps else None
    for spec in claim.get("beside") or []:
        if b := _beside(spec, doc):
            res.beside.append(b)
    _summarize(res)
    unavailable = None
    if not exps:
        unavailable = "no experiment in these results tests it"
    elif claim.get("gpu_only") and doc.get("environment", {}).get("device") == "cpu":
        unavailable = "CPU run: no GPU"
    elif not res.evidence:
        unavailable = reason or "no matching comparison with a speedup in these results"
    elif res.estimate is not None and res.ci_low is None and (why := _no_ci(res)):
        unavailable = why
    res.verdict = decide(claim.get("kind", "qualitative"), claim.get("low"), claim.get("high"),
                         res.ci_low, res.ci_high, unavailable, _too_few_rounds(res))
    _say_left_out(res)
    _say_unjudged(res)
    return res


def evaluate(doc: dict) -> list[ClaimResult]:
    return [evaluate_claim(c, doc) for c in load_claims()]
