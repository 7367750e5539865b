"""Checklist claims (claims.json) against a results document: the experiments that
reference each claim, the measured effect, and the verdict (verdicts.py).

Measured effect of a claim: in every case of the referencing experiments, the
headline is the largest speedup among the comparisons that match the claim (the
best setting of the technique, e.g. the best worker count); verification failures
and reference variants (upper bounds) are left out. Over cases: the median
headline speedup, the range of headlines, and as CI the CI of the median case
(for an even number of cases, the mean of the two middle cases' CI ends; with
one case, exactly that case's CI)."""
from __future__ import annotations

import functools
import json
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from .fmt import is_num
from .verdicts import Verdict, claimed_text, decide

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
    ci_low: float
    ci_high: float


@dataclass
class ClaimResult:
    claim: dict
    experiments: list[str]
    evidence: list[Evidence] = field(default_factory=list)
    median: float | None = None
    low: float | None = None  # range of case headlines
    high: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    notes: list[str] = field(default_factory=list)
    verdict: Verdict | None = None

    @property
    def claimed(self) -> str:
        c = self.claim
        text = claimed_text(c.get("kind", "qualitative"), c.get("low"), c.get("high"))
        return f"{text} {c['condition']}" if c.get("condition") else text


def _matches(claim: dict, case: dict, variant: str) -> bool:
    rules = claim.get("match") or {}
    if "case" in rules and not re.search(rules["case"], str(case.get("name", ""))):
        return False
    if "variant" in rules and not re.search(rules["variant"], variant):
        return False
    return True


def _headline(claim: dict, e: dict, case: dict, notes: list[str]) -> Evidence | None:
    roles = {v.get("name"): v.get("role") for v in case.get("variants", []) or []}
    best = None
    for cm in case.get("comparisons", []) or []:
        name = str(cm.get("variant", ""))
        if roles.get(name) == "reference" or not _matches(claim, case, name) or not is_num(cm.get("speedup")):
            continue
        if (cm.get("verification") or {}).get("status") == "failed":
            notes.append(f"{e.get('name')}/{case.get('name')}/{name}: left out, verification failed")
            continue
        s = float(cm["speedup"])
        lo = float(cm["ci_low"]) if is_num(cm.get("ci_low")) else s
        hi = float(cm["ci_high"]) if is_num(cm.get("ci_high")) else s
        if best is None or s > best.speedup:
            best = Evidence(e.get("name"), case.get("name"), name, s, lo, hi)
    return best


def evaluate_claim(claim: dict, doc: dict) -> ClaimResult:
    exps = [e for e in doc.get("experiments", []) if claim["id"] in (e.get("claims") or [])]
    res = ClaimResult(claim, [e.get("name") for e in exps])
    why_none = []
    for e in exps:
        if e.get("status") in ("skipped", "failed"):
            why_none.append(f"{e.get('name')} {e.get('status')}: {e.get('reason') or 'no reason given'}")
            continue
        for c in e.get("cases", []) or []:
            if c.get("status") not in ("ok", "interrupted"):
                continue
            ev = _headline(claim, e, c, res.notes)
            if ev:
                res.evidence.append(ev)
                if c.get("status") == "interrupted":
                    res.notes.append(f"{e.get('name')}/{c.get('name')}: interrupted, partial samples")
    if res.evidence:
        speedups = [ev.speedup for ev in res.evidence]
        res.median = statistics.median(speedups)
        res.low, res.high = min(speedups), max(speedups)
        ranked = sorted(res.evidence, key=lambda ev: ev.speedup)
        mid = ranked[(len(ranked) - 1) // 2: len(ranked) // 2 + 1]
        res.ci_low = statistics.fmean(ev.ci_low for ev in mid)
        res.ci_high = statistics.fmean(ev.ci_high for ev in mid)
    unavailable = None
    if not exps:
        unavailable = "no experiment in these results tests it"
    elif claim.get("gpu_only") and doc.get("environment", {}).get("device") == "cpu":
        unavailable = "CPU run: no GPU"
    elif not res.evidence:
        if why_none:
            unavailable = "; ".join(why_none)
        elif res.notes:
            unavailable = "verification failed for every matching comparison"
        else:
            unavailable = "no matching comparison with a speedup in these results"
    res.verdict = decide(claim.get("kind", "qualitative"), claim.get("low"), claim.get("high"),
                         res.ci_low, res.ci_high, unavailable)
    return res


def evaluate(doc: dict) -> list[ClaimResult]:
    return [evaluate_claim(c, doc) for c in load_claims()]
