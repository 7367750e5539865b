"""Between-process spread: a comparison measured in more than one process of the same
run (config.measure.processes; harness/process_repeats.h records each further
process's speedup beside the first's).

One process's interval speaks for that process only: its allocator history, page
placement and clock can move a ratio far more than its rounds scatter (fused AdamW
over 16 MB tensors gave 9.5x in one process and 3.8x in the next, each with a CI a
few percent wide). So each comparison measured in K >= 2 processes gets a second
interval, across processes: the mean of the processes' log speedups with Student's
t interval (K - 1 degrees of freedom), i.e. a random-effects estimate whose unit is
the process. The interval a verdict uses is the wider of the two, with the point
estimate that belongs to it (the first process's median ratio, or the processes'
geometric mean). A verdict that differs between processes, each judged on its own
interval, is shown as unstable (claims.py)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats

from .fmt import is_num, sig

WITHIN = "within one process"
BETWEEN = "between processes"


@dataclass
class ProcessEstimate:
    process: int  # 0: the first process, which recorded everything else
    speedup: float | None  # None: the process recorded no ratio (why says why)
    ci_low: float | None
    ci_high: float | None
    why: str = ""


@dataclass
class Spread:
    """One comparison across the processes that measured it."""
    estimates: list[ProcessEstimate]  # every process asked for, the first first

    @property
    def measured(self) -> list[ProcessEstimate]:
        return [e for e in self.estimates if is_num(e.speedup) and e.speedup > 0]

    @property
    def speedups(self) -> list[float]:
        return [float(e.speedup) for e in self.measured]

    def interval(self, confidence: float) -> tuple[float, float, float] | None:
        """(geometric mean, low, high) across processes; None with fewer than two."""
        return between_ci(self.speedups, confidence)

    def text(self, confidence: float) -> str:
        """'3 processes: 0.97–1.83×, 95% [0.62, 2.9]', or why there is no spread."""
        xs = self.speedups
        missing = [e for e in self.estimates if e not in self.measured]
        gone = f"; {len(missing)} without a ratio ({missing[0].why})" if missing else ""
        if len(xs) < 2:
            return f"{len(xs)} of {len(self.estimates)} processes measured it{gone}"
        g = self.interval(confidence)
        return (f"{len(xs)} processes: {sig(min(xs))}–{sig(max(xs))}×, geometric mean {sig(g[0])}× "
                f"[{sig(g[1])}, {sig(g[2])}]{gone}")


def between_ci(speedups: list[float], confidence: float) -> tuple[float, float, float] | None:
    """Geometric mean of the speedups and Student's t interval of their mean log."""
    logs = [math.log(s) for s in speedups if is_num(s) and s > 0]
    k = len(logs)
    if k < 2:
        return None
    mean = sum(logs) / k
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (k - 1))
    half = float(stats.t.ppf(0.5 + confidence / 2.0, k - 1)) * sd / math.sqrt(k)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def spread(raw: dict) -> Spread | None:
    """The comparison's estimate in each process (its own figures, then its "repeats");
    None where it was measured in one process only (older files, --processes 1)."""
    repeats = raw.get("repeats")
    if not isinstance(repeats, list) or not repeats:
        return None
    first = ProcessEstimate(0, raw.get("speedup") if is_num(raw.get("speedup")) else None,
                            raw.get("ci_low") if is_num(raw.get("ci_low")) else None,
                            raw.get("ci_high") if is_num(raw.get("ci_high")) else None,
                            "" if is_num(raw.get("speedup")) else "the first process recorded no ratio")
    out = [first]
    for r in repeats:
        if not isinstance(r, dict):
            continue
        s = r.get("speedup")
        out.append(ProcessEstimate(int(r.get("process", len(out))), float(s) if is_num(s) else None,
                                   r.get("ci_low") if is_num(r.get("ci_low")) else None,
                                   r.get("ci_high") if is_num(r.get("ci_high")) else None,
                                   str(r.get("reason") or "")))
    return Spread(out)


def wider(within: tuple[float, float | None, float | None],
          between: tuple[float, float, float] | None) -> tuple[float, float | None, float | None, str]:
    """(speedup, low, high, basis): the within-process estimate and interval, or the
    between-process one where that is wider (in log terms); no within interval (too few
    rounds) stays none, since the first process's own ratio then has no CI either."""
    s, lo, hi = within
    if between is None or not (is_num(lo) and is_num(hi)) or lo <= 0:
        return s, lo, hi, WITHIN
    g, blo, bhi = between
    if math.log(bhi / blo) > math.log(hi / lo):
        return g, blo, bhi, BETWEEN
    return s, lo, hi, WITHIN


def reported(raw: dict, confidence: float) -> tuple[float, float | None, float | None, str] | None:
    """A recorded comparison's (speedup, low, high, basis) as verdicts use it: the wider of
    its within-process interval and its between-process one; None without a ratio."""
    s = raw.get("speedup")
    if not is_num(s):
        return None
    lo, hi = raw.get("ci_low"), raw.get("ci_high")
    sp = spread(raw)
    return wider((float(s), lo if is_num(lo) else None, hi if is_num(hi) else None),
                 sp.interval(confidence) if sp else None)


def pooled_between(per_case: list[Spread], confidence: float) -> tuple[float, float, float] | None:
    """A pooled claim's between-process interval: per process, the geometric mean over
    the cases of that process's speedups (only processes that measured every case),
    then the t interval across processes."""
    if not per_case:
        return None
    shared = None
    for sp in per_case:
        got = {e.process: float(e.speedup) for e in sp.measured}
        shared = set(got) if shared is None else shared & set(got)
    if not shared or len(shared) < 2:
        return None
    pooled = []
    for p in sorted(shared):
        logs = [math.log(next(e.speedup for e in sp.measured if e.process == p)) for sp in per_case]
        pooled.append(math.exp(sum(logs) / len(logs)))
    return between_ci(pooled, confidence)
