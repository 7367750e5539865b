"""`compare BASELINE CURRENT`: regression check between two runs on the same device.

Variants are paired by (experiment, case, variant). Each pair's raw primary samples
(per-step times) are tested with Mann-Whitney U (stats.py); the relative change is
median(current)/median(baseline) - 1 (positive = slower) with a (1 - alpha)
bootstrap CI. Verdicts:
  slower    p < alpha, change > threshold and the CI's lower end > min_effect
  faster    p < alpha, change < -threshold and the CI's upper end < -min_effect
  ambiguous otherwise, when the CI reaches beyond +-threshold (cannot rule out a change)
  same      otherwise (the CI lies within +-threshold)
Exit status 1 only when some pair is 'slower'. The speedup ratios of the two runs'
comparisons are listed too (informational: 'higher'/'lower' when the CIs are disjoint)."""
from __future__ import annotations

from dataclasses import dataclass

from .fmt import DASH, fmt_change, fmt_speedup, fmt_time, is_num
from .gpu_specs import device_name
from .results import ResultsError
from .stats import mann_whitney_u, median, ratio_of_medians_ci
from .tables import primary_samples
from .textable import table

MIN_SAMPLES = 3
SLOWER, FASTER, SAME, AMBIGUOUS = "slower", "faster", "same", "ambiguous"


@dataclass
class Pair:
    key: tuple[str, str, str]
    base_median: float | None = None
    cur_median: float | None = None
    change: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p: float | None = None
    n: tuple[int, int] = (0, 0)
    verdict: str = "n/a"
    note: str = ""


def classify(change: float, ci_low: float, ci_high: float, p: float,
             threshold: float, min_effect: float, alpha: float) -> str:
    significant = p < alpha
    if significant and change > threshold and ci_low > min_effect:
        return SLOWER
    if significant and change < -threshold and ci_high < -min_effect:
        return FASTER
    if ci_low < -threshold or ci_high > threshold:
        return AMBIGUOUS
    return SAME


def _variants(doc: dict) -> dict[tuple[str, str, str], tuple[dict, dict]]:
    out = {}
    for e in doc.get("experiments", []):
        for c in e.get("cases", []) or []:
            for v in c.get("variants", []) or []:
                out[(str(e.get("name")), str(c.get("name")), str(v.get("name")))] = (c, v)
    return out


def _comparisons(doc: dict) -> dict[tuple[str, str, str, str], dict]:
    out = {}
    for e in doc.get("experiments", []):
        for c in e.get("cases", []) or []:
            for cm in c.get("comparisons", []) or []:
                out[(str(e.get("name")), str(c.get("name")), str(cm.get("baseline")), str(cm.get("variant")))] = cm
    return out


def _usable(c: dict, v: dict) -> str | None:
    """Why this variant cannot be compared, or None."""
    if c.get("status") not in ("ok", "interrupted"):
        return f"case {c.get('status')}"
    if v.get("status", "ok") != "ok":
        return f"variant {v.get('status')}"
    return None


def compare_pair(key, base: tuple[dict, dict], cur: tuple[dict, dict],
                 threshold: float, min_effect: float, alpha: float) -> Pair:
    pair = Pair(key)
    why = [f"baseline: {w}" for w in [_usable(*base)] if w] + [f"current: {w}" for w in [_usable(*cur)] if w]
    if why:
        pair.note = "; ".join(why)
        return pair
    b, c = primary_samples(*base), primary_samples(*cur)
    pair.n = (len(b), len(c))
    if b and c:
        pair.base_median, pair.cur_median = median(b), median(c)
    if len(b) < MIN_SAMPLES or len(c) < MIN_SAMPLES:
        pair.note = f"too few samples to test (need {MIN_SAMPLES} each)"
        return pair
    if not (pair.base_median and pair.base_median > 0):
        pair.note = "baseline median is not positive"
        return pair
    m_b, m_c = base[0].get("primary_metric"), cur[0].get("primary_metric")
    if m_b != m_c:
        pair.note = f"primary metric differs ({m_b} vs {m_c})"
    pair.change = pair.cur_median / pair.base_median - 1.0
    lo, hi = ratio_of_medians_ci(c, b, confidence=1.0 - alpha)
    pair.ci_low, pair.ci_high = lo - 1.0, hi - 1.0
    pair.p = mann_whitney_u(b, c).p
    pair.verdict = classify(pair.change, pair.ci_low, pair.ci_high, pair.p, threshold, min_effect, alpha)
    return pair


def compare_docs(base: dict, cur: dict, threshold: float, min_effect: float, alpha: float):
    bv, cv = _variants(base), _variants(cur)
    pairs = [compare_pair(k, bv[k], cv[k], threshold, min_effect, alpha) for k in bv if k in cv]
    only_base = [k for k in bv if k not in cv]
    only_cur = [k for k in cv if k not in bv]
    bc, cc = _comparisons(base), _comparisons(cur)
    speedups = []
    for k in bc:
        if k not in cc:
            continue
        b, c = bc[k], cc[k]
        if not (is_num(b.get("speedup")) and is_num(c.get("speedup"))):
            verdict = "n/a"
        elif all(is_num(x) for x in (b.get("ci_low"), b.get("ci_high"), c.get("ci_low"), c.get("ci_high"))):
            verdict = ("higher" if c["ci_low"] > b["ci_high"] else "lower" if c["ci_high"] < b["ci_low"]
                       else "same")
        else:
            verdict = "no CI"
        speedups.append((k, b, c, verdict))
    return pairs, speedups, only_base, only_cur


def _ci(lo: float | None, hi: float | None) -> str:
    if not (is_num(lo) and is_num(hi)):
        return DASH
    return f"[{fmt_change(lo)}, {fmt_change(hi)}]"


def report_text(pairs, speedups, only_base, only_cur, markdown: bool = False) -> str:
    headers = ["experiment/case", "variant", "baseline", "current", "change", "CI", "p", "n", "verdict"]
    rows = []
    for p in pairs:
        rows.append([f"{p.key[0]}/{p.key[1]}", p.key[2], fmt_time(p.base_median), fmt_time(p.cur_median),
                     fmt_change(p.change), _ci(p.ci_low, p.ci_high),
                     f"{p.p:.2g}" if is_num(p.p) else DASH, f"{p.n[0]}/{p.n[1]}",
                     p.verdict.upper() if p.verdict == SLOWER else p.verdict + (f" ({p.note})" if p.note else "")])
    out = ["Time per step (primary metric), current vs baseline:", table(headers, rows, markdown)]
    if speedups:
        srows = [[f"{k[0]}/{k[1]}", f"{k[3]} vs {k[2]}",
                  fmt_speedup(b.get("speedup"), b.get("ci_low"), b.get("ci_high")),
                  fmt_speedup(c.get("speedup"), c.get("ci_low"), c.get("ci_high")), v]
                 for k, b, c, v in speedups]
        out += ["", "Speedups (comparisons within each run):",
                table(["experiment/case", "comparison", "baseline run", "current run", "speedup change"], srows,
                      markdown)]
    if only_base:
        out += ["", f"Only in the baseline ({len(only_base)}): " + ", ".join("/".join(k) for k in only_base)]
    if only_cur:
        out += ["", f"Only in the current run ({len(only_cur)}): " + ", ".join("/".join(k) for k in only_cur)]
    return "\n".join(out)


def check_devices(base: dict, cur: dict, allow: bool) -> str | None:
    """None when both ran on the same device; else raise (or, when allowed, a warning)."""
    a, b = device_name(base), device_name(cur)
    if a == b:
        return None
    msg = f"different devices: baseline ran on {a!r}, current on {b!r}"
    if not allow:
        raise ResultsError(f"{msg}; pass --allow-different-gpus to compare anyway")
    return msg


def run(base: dict, cur: dict, threshold: float, min_effect: float, alpha: float,
        allow_different: bool = False, markdown: bool = False) -> tuple[int, str]:
    """(exit status, text). Raises ResultsError on unusable input."""
    for name, v in (("--threshold", threshold), ("--min-effect", min_effect)):
        if not (is_num(v) and v >= 0):
            raise ResultsError(f"{name} must be a non-negative number, got {v}")
    if not (is_num(alpha) and 0 < alpha < 1):
        raise ResultsError(f"--alpha must be between 0 and 1, got {alpha}")
    warning = check_devices(base, cur, allow_different)
    pairs, speedups, only_base, only_cur = compare_docs(base, cur, threshold, min_effect, alpha)
    if not pairs:
        raise ResultsError("no (experiment, case, variant) is present in both files: nothing to compare")
    text = report_text(pairs, speedups, only_base, only_cur, markdown)
    counts = {v: sum(1 for p in pairs if p.verdict == v) for v in (FASTER, SLOWER, SAME, AMBIGUOUS)}
    untested = sum(1 for p in pairs if p.verdict == "n/a")
    summary = (f"{len(pairs)} pairs: {counts[FASTER]} faster, {counts[SLOWER]} slower, {counts[SAME]} same, "
               f"{counts[AMBIGUOUS]} ambiguous, {untested} not tested "
               f"(threshold {threshold:.1%}, min effect {min_effect:.1%}, alpha {alpha})")
    lines = [f"warning: {warning}"] if warning else []
    lines += [text, "", summary]
    slower = [p for p in pairs if p.verdict == SLOWER]
    if slower:
        lines.append("REGRESSION: " + ", ".join(f"{'/'.join(p.key)} {fmt_change(p.change)}" for p in slower))
        return 1, "\n".join(lines)
    return 0, "\n".join(lines)
