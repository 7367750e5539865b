"""One optbench results document as the report reads it: typed views of the run, its
experiments, cases, variants and comparisons over the loaded JSON (results.py loads
and checks it; migrate.py fills the variant params older files lack).

Every figure the harness recorded is read here, once: a comparison's speedup, rounds,
rounds floor and confidence, the confidence the run used, a variant's primary samples.
The report computes only what the file does not record, and the one such figure read
here is the work a step did (work_amount).

A view wraps its dict (`raw`, for what is only displayed) and is built once per
document, so two variants of the same Case view were sampled in the same interleaved
rounds. What a variant is comes from its params (the vocabulary in
harness/results.schema.json, variants[].params), never from its name: names are for
display."""
from __future__ import annotations

from functools import cached_property

import numpy as np

from .estimate import Estimate, derived, from_record
from .fmt import KIND_KEYS, is_num
from .multiplicity import rounds_floor

DEFAULT_CONFIDENCE = 0.95  # the confidence of files that do not record theirs (every one ran at 95%)
RAN = ("ok", "interrupted")  # cases with samples

# The params that say what a variant is (harness/results.schema.json); the others are
# the settings a case sweeps (workers, batch...), which plots may draw lines over.
VARIANT_KINDS = ("parallelism", "devices", "precision", "default_fp32", "layout", "cudnn_benchmark", "jit",
                 "loader", "runtime", "grad_mode")


def _same(have: object, want: object) -> bool:
    """JSON equality: true is not 1."""
    return isinstance(have, bool) == isinstance(want, bool) and have == want


def params_hold(params: dict, want: dict) -> bool:
    """Each wanted key holds its value, or one of them where a list is wanted."""
    for k, w in want.items():
        options = w if isinstance(w, list) else [w]
        if k not in params or not any(_same(params[k], o) for o in options):
            return False
    return True


def _num(x: object) -> float | None:
    return float(x) if is_num(x) else None


def _recorded(key: str) -> property:
    """A breakdown's figure as the file has it (None where it has none)."""
    return property(lambda self: self._d.get(key))


def _number(key: str) -> property:
    """A breakdown's figure as a float, None where it is not a number."""
    return property(lambda self: _num(self._d.get(key)))


class Breakdown:
    """A variant's profiled window (variants[].breakdown: harness/profiling/breakdown.cpp)
    as the why reads it: each recorded figure, None (or empty) where the file has none.
    `of` takes the dict, a Breakdown, or nothing (not profiled)."""

    def __init__(self, raw: object):
        self.raw = raw if isinstance(raw, dict) else None
        self._d = self.raw or {}

    @classmethod
    def of(cls, x: object) -> Breakdown:
        return x if isinstance(x, Breakdown) else cls(x)

    @property
    def recorded(self) -> bool:
        return self.raw is not None

    # Figures as recorded, and numbers (None where not a number).
    status = _recorded("status")
    reason = _recorded("reason")
    device = _recorded("device")
    device_events = _recorded("device_events")
    launches_per_step = _recorded("launches_per_step")
    steps = _recorded("steps")
    agrees = _recorded("agrees")
    step_s = _recorded("step_s")  # each profiled step's time
    window_step_s = _number("window_step_s")
    timed_step_s = _number("timed_step_s")
    idle_s = _number("idle_s")
    overhead = _number("overhead")
    tolerance = _number("tolerance")

    @property
    def no_device_events(self) -> bool:
        """A CUDA window where CUPTI saw nothing (it would read as 100% idle)."""
        return self.device == "cuda" and self.device_events == 0

    @property
    def usable(self) -> bool:
        """A window with a step time; on a GPU, with device activity in it."""
        return self.status == "ok" and self.window_step_s is not None and not self.no_device_events

    @property
    def categories_s(self) -> dict:
        return self._d.get("categories_s") or {}

    @property
    def idle_share(self) -> float | None:
        return _num((self._d.get("shares") or {}).get("idle"))

    @property
    def window(self) -> dict | None:
        """The window-sizing rule's record (windows sized by it; older ones have none)."""
        w = self._d.get("window")
        return w if isinstance(w, dict) else None

    @property
    def top(self) -> list:
        return self._d.get("top") or []

    def counter(self, key: str) -> float | None:
        counters = self._d.get("counters")
        return _num(counters.get(key)) if isinstance(counters, dict) else None


def breakdown_of(variant: dict) -> Breakdown:
    """A raw variant's profiled window (for code handed the variant's dict)."""
    return Breakdown(variant.get("breakdown"))


class Variant:
    def __init__(self, raw: dict, case: Case):
        self.raw, self.case = raw, case

    @property
    def name(self) -> object:
        return self.raw.get("name")

    @property
    def role(self) -> object:
        return self.raw.get("role")

    @property
    def status(self) -> str:
        return self.raw.get("status", "ok")

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def params(self) -> dict:
        p = self.raw.get("params")
        return p if isinstance(p, dict) else {}

    def holds(self, want: dict) -> bool:
        return params_hold(self.params, want)

    @cached_property
    def breakdown(self) -> Breakdown:
        """Its profiled window (not recorded: not profiled)."""
        return Breakdown(self.raw.get("breakdown"))

    @property
    def stats(self) -> dict:
        return self.raw.get("stats") or {}

    @cached_property
    def primary_samples(self) -> list[float]:
        """Raw samples of the primary metric: the variant's own where it has one (a pinned
        copy timed with events beside a pageable one timed on the host), else the case's;
        device_s falls back to host_s when absent. Read once per view (a file may hold
        millions; the document is never modified)."""
        samples = self.raw.get("samples") or {}
        metric = self.raw.get("primary_metric") or self.case.raw.get("primary_metric") or "host_s"
        vals = samples.get(metric) or samples.get("host_s") or []
        if all(type(x) is float for x in vals) and np.isfinite(np.asarray(vals, dtype=float)).all():
            return vals  # as a loaded file holds them (checked finite): not a second copy of millions
        return [float(x) for x in vals if is_num(x)]

    @property
    def work(self) -> float:
        """Work one step of the variant does (its own units, else the case's): FLOPs, else
        bytes, else items, the harness's order (harness/case/case_run.cpp, work_amount). The file
        records the units but not which one the harness divided by, so it is chosen here."""
        units = self.raw.get("units") if isinstance(self.raw.get("units"), dict) else self.case.raw.get("units")
        if isinstance(units, dict):
            for key in ("flops", "bytes", "items"):
                if is_num(units.get(key)) and units[key] > 0:
                    return float(units[key])
        return 1.0

    @cached_property
    def per_unit_times(self) -> list[float]:
        return (np.asarray(self.primary_samples, dtype=float) / self.work).tolist()


class Comparison:
    """A recorded comparison: the variant against its case's baseline."""

    def __init__(self, raw: dict, case: Case):
        self.raw, self.case = raw, case

    @property
    def variant_name(self) -> object:
        return self.raw.get("variant")

    @property
    def baseline_name(self) -> object:
        return self.raw.get("baseline")

    @property
    def variant(self) -> Variant | None:
        return self.case.variant(self.variant_name)

    @property
    def baseline(self) -> Variant | None:
        return self.case.variant(self.baseline_name)

    @property
    def speedup(self) -> float | None:
        s = self.raw.get("speedup")
        return float(s) if is_num(s) else None

    @property
    def verification(self) -> dict:
        return self.raw.get("verification") or {}

    @property
    def failed(self) -> bool:
        return self.verification.get("status") == "failed"

    @property
    def confidence(self) -> float:
        c = self.raw.get("confidence")
        return float(c) if is_num(c) and 0 < c < 1 else self.case.experiment.document.confidence

    @property
    def rounds(self) -> int | None:
        """The interleaved rounds behind the ratio: its own "rounds", else (files from before
        it had one) the case's, else the fewer samples of its two variants, one per round;
        None when none of these is there."""
        for n in (self.raw.get("rounds"), self.case.raw.get("rounds")):
            if is_num(n):
                return int(n)
        sides = (self.baseline, self.variant)
        if any(v is None for v in sides):
            return None
        return min(len(v.primary_samples) for v in sides)

    @property
    def floor(self) -> int:
        """The rounds floor the harness recorded; older files, the floor at their confidence."""
        f = self.raw.get("rounds_floor")
        return int(f) if is_num(f) and f >= 1 else rounds_floor(self.confidence)

    @property
    def below_floor(self) -> bool:
        """Fewer rounds than the floor (rounds.py), or the harness says so: no CI."""
        n = self.rounds
        return self.raw.get("below_floor") is True or (n is not None and n < self.floor)

    @property
    def estimate(self) -> Estimate | None:
        """The comparison's one estimate and interval (estimate.py): what every table,
        plot, export, gate and verdict shows for it. None without a ratio."""
        rec = self.raw.get("estimate")
        if isinstance(rec, dict):
            return from_record(rec, self.confidence)
        lo, hi = (self.raw.get(k) for k in ("ci_low", "ci_high"))
        within = (None, None) if self.below_floor or not (is_num(lo) and is_num(hi)) else (float(lo), float(hi))
        return derived(self.raw, self.confidence, within, self.rounds)


class Case:
    def __init__(self, raw: dict, experiment: Experiment):
        self.raw, self.experiment = raw, experiment
        self.variants = [Variant(v, self) for v in raw.get("variants") or [] if isinstance(v, dict)]
        self.comparisons = [Comparison(c, self) for c in raw.get("comparisons") or [] if isinstance(c, dict)]

    @property
    def name(self) -> object:
        return self.raw.get("name")

    @property
    def status(self) -> str:
        return self.raw.get("status", "ok")

    @property
    def ran(self) -> bool:
        return self.raw.get("status") in RAN

    @property
    def params(self) -> dict:
        p = self.raw.get("params")
        return p if isinstance(p, dict) else {}

    @property
    def derived(self) -> dict:
        d = self.raw.get("derived")
        return d if isinstance(d, dict) else {}

    def variant(self, name: object) -> Variant | None:
        """The variant of that name: the one look-up by name, for display and for the
        names a comparison records."""
        return next((v for v in self.variants if v.name == name), None)

    def comparison(self, variant: object, baseline: object = None) -> Comparison | None:
        """The recorded comparison of the variant named (against that baseline, if named)."""
        return next((cm for cm in self.comparisons if cm.variant_name == variant
                     and (baseline is None or cm.baseline_name == baseline)), None)

    def find(self, want: dict) -> Variant | None:
        """The first variant that ran whose params hold `want`."""
        return next((v for v in self.variants if v.ok and v.holds(want)), None)


class Experiment:
    def __init__(self, raw: dict, document: Document):
        self.raw, self.document = raw, document
        self.cases = [Case(c, self) for c in raw.get("cases") or [] if isinstance(c, dict)]

    @property
    def name(self) -> object:
        return self.raw.get("name")

    @property
    def status(self) -> object:
        return self.raw.get("status")

    @property
    def claims(self) -> list:
        return self.raw.get("claims") or []

    @property
    def throughput_kind(self) -> str | None:
        """The experiment's headline unit: bytes, else FLOPs, else items (samples, images...)."""
        seen = {k for c in self.cases for v in c.variants
                for k, key in KIND_KEYS.items() if is_num((v.raw.get("throughput") or {}).get(key))}
        return next((k for k in ("bytes", "flops", "items") if k in seen), None)


class Document:
    def __init__(self, raw: dict):
        self.raw = raw
        self.experiments = [Experiment(e, self) for e in raw.get("experiments") or [] if isinstance(e, dict)]

    @property
    def confidence(self) -> float:
        """The confidence the harness drew every interval at (config.measure.stopping)."""
        measure = (self.raw.get("config") or {}).get("measure") or {}
        c = (measure.get("stopping") or {}).get("confidence")
        return float(c) if is_num(c) and 0 < c < 1 else DEFAULT_CONFIDENCE

    @property
    def device(self) -> object:
        return (self.raw.get("environment") or {}).get("device")

    def ran_cases(self, experiment: str | None = None):
        """(experiment, case) for every case that ran, of the experiment named or of all."""
        for e in self.experiments:
            if experiment is None or e.name == experiment:
                for c in e.cases:
                    if c.ran:
                        yield e, c
