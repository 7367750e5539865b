"""One optbench results document as the report reads it: typed views of the run, its
experiments, cases, variants and comparisons over the loaded JSON (results.py loads
and checks it; versions.py reads an older version as the current one).

Every key of a results file is read here (and by results.py's loader and versions.py),
once: the run's facts, a comparison's speedup, estimate, processes, rounds, floor and
verification, a variant's samples, statistics, throughput and profiled window. The
other modules read these views; the open mappings (params, derived figures, notes, a
window's categories, a case's time parts) are handed out whole and read by the names
claims.json, the sweeps and the category list give them
(report/tests/test_document_reads.py checks it as the committed files are rendered).
The report computes only what the file does not record, and the one such figure read
here is the work a step did (work_amount).

A view wraps its dict (`raw`, for what is only displayed) and is built once per
document, so two variants of the same Case view were sampled in the same interleaved
rounds. What a variant is comes from its params (the vocabulary in
harness/results.schema.json, variants[].params), never from its name: names are for
display."""

from __future__ import annotations

import statistics
from dataclasses import replace
from functools import cached_property
from typing import NamedTuple

import numpy as np

from ..statistics.measurement import PROCESS, ROUND, Measurement, from_processes
from ..statistics.multiplicity import rounds_floor
from ..statistics.processes import Spread
from .numbers import is_num

# A throughput kind -> its key in variants[].throughput.
KIND_KEYS = {"bytes": "bytes_per_s", "flops": "flops_per_s", "items": "items_per_s"}

DEFAULT_CONFIDENCE = 0.95  # the confidence of files that do not record theirs (every one ran at 95%)
RAN = ("ok", "interrupted")  # cases with samples

# The params that say what a variant is (harness/results.schema.json); the others are
# the settings a case sweeps (workers, batch...), which plots may draw lines over.
VARIANT_KINDS = (
    "parallelism",
    "devices",
    "precision",
    "default_fp32",
    "layout",
    "cudnn_benchmark",
    "jit",
    "loader",
    "runtime",
    "grad_mode",
)


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


def _field(key: str, default: object = None) -> property:
    """A view's figure as its file records it (`default` where it records none)."""
    return property(lambda self: self.raw.get(key, default))


def _mapping(key: str) -> property:
    """A view's sub-record as a dict (empty where the file has none)."""
    return property(lambda self: self.raw.get(key) if isinstance(self.raw.get(key), dict) else {})


class Stats:
    """A variant's robust statistics of its primary metric, per step
    (variants[].stats: harness/stats.cpp), as recorded; None where absent."""

    def __init__(self, raw: object):
        self._d = raw if isinstance(raw, dict) else {}

    @property
    def recorded(self) -> bool:
        return bool(self._d)

    median = _recorded("median")
    q1 = _recorded("q1")
    q3 = _recorded("q3")
    iqr = _recorded("iqr")
    min = _recorded("min")
    n = _recorded("n")


class NvidiaSmi:
    """What nvidia-smi would have shown while a variant was timed (variants[].nvidia_smi:
    per metric its median and min over the NVML samples). `of` takes the dict or one."""

    def __init__(self, raw: object):
        self.raw = raw if isinstance(raw, dict) else {}

    @classmethod
    def of(cls, x: object) -> NvidiaSmi:
        return x if isinstance(x, NvidiaSmi) else cls(x)

    def median(self, metric: str) -> float | None:
        return _num((self.raw.get(metric) or {}).get("median"))

    def min(self, metric: str) -> float | None:
        return _num((self.raw.get(metric) or {}).get("min"))


class Verification:
    """A comparison's verification (comparisons[].verification: harness/case/verify_outputs.cpp,
    workloads/training/verify_losses.h) as recorded. `of` takes the dict or a Verification."""

    def __init__(self, raw: object):
        self.raw = raw if isinstance(raw, dict) else {}

    @classmethod
    def of(cls, x: object) -> Verification:
        return x if isinstance(x, Verification) else cls(x)

    status = _field("status")
    message = _field("message")
    details = _mapping("details")

    @property
    def note(self) -> object:
        """What a passed check could not judge (an ill-conditioned trace)."""
        return self.details.get("note")

    @property
    def fit_steps(self) -> int | None:
        n = self.details.get("fit_steps")
        return n if isinstance(n, int) and not isinstance(n, bool) else None

    @property
    def judged_names(self) -> list[str] | None:
        """The quantities a training check records as judged (details.judged); None where
        it records none."""
        d = self.details.get("judged")
        return [str(n) for n in d] if isinstance(d, list) else None


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
    def sized(self) -> bool:
        """Sized by the window rule (window_plan.cpp), which records `window`; older ones are not."""
        return isinstance(self._d.get("window"), dict)

    @property
    def stopped(self) -> object:
        """Why the sizing rule stopped adding steps (max_steps: before its target)."""
        w = self._d.get("window")
        return w.get("stopped") if isinstance(w, dict) else None

    def top_operator(self, category: str) -> str | None:
        """The operator that carries most of that category's time (the top list's first of it)."""
        for entry in self._d.get("top") or []:
            if isinstance(entry, dict) and entry.get("category") == category and entry.get("name"):
                return str(entry["name"])
        return None

    def counter(self, key: str) -> float | None:
        counters = self._d.get("counters")
        return _num(counters.get(key)) if isinstance(counters, dict) else None


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

    recorded_status = _field("status")  # as recorded (None where absent), for messages

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

    @cached_property
    def stats(self) -> Stats:
        return Stats(self.raw.get("stats"))

    @classmethod
    def of(cls, x: object) -> Variant:
        """A view of a variant dict handed alone (tests, a claim's own sides): its case,
        experiment and document are empty ones."""
        if isinstance(x, Variant):
            return x
        return cls(x if isinstance(x, dict) else {}, Case({}, Experiment({}, Document({}))))

    error = _field("error")
    iters_per_sample = _field("iters_per_sample")  # steps timed together as one sample
    process = _field("process")  # "fresh": the variant ran in a process of its own

    def rate(self, kind: str) -> object:
        """Its throughput in that kind (bytes, flops, items) per second, as recorded."""
        return (self.raw.get("throughput") or {}).get(KIND_KEYS[kind])

    @property
    def peak_allocated_bytes(self) -> object:
        return (self.raw.get("memory") or {}).get("peak_allocated_bytes")

    @property
    def peak_reserved_bytes(self) -> object:
        return (self.raw.get("memory") or {}).get("peak_reserved_bytes")

    @property
    def item_name(self) -> str:
        """What one item of its work is (images, samples...)."""
        return self.units.get("item_name") or "items"

    @property
    def nvidia_smi(self) -> object:
        return self.raw.get("nvidia_smi") or None

    @property
    def units(self) -> dict:
        """The work one step does: the variant's own units, else its case's."""
        own = self.raw.get("units")
        return own if isinstance(own, dict) and own else self.case.units

    def throttled_share(self, reason: str) -> float | None:
        """The share of its samples NVML saw throttled for that reason (thermal, power, other)."""
        return _num((self.raw.get("throttle") or {}).get(reason))

    @property
    def throttle_read_after_work(self) -> bool:
        """NVML's reasons were read just after each sample's work (a sync variant,
        harness ThrottleRead), not while it ran; False where not recorded."""
        return (self.raw.get("throttle") or {}).get("read") == "after_work"

    @property
    def throttle_shares(self) -> dict[str, float]:
        """Every throttle reason NVML recorded a share for (not the sample count)."""
        t = self.raw.get("throttle") or {}
        return {k: float(x) for k, x in t.items() if k != "samples" and is_num(x)}

    def series(self, metric: str) -> list:
        """A per-sample series as recorded (device_s, host_s, sm_clock_mhz...); [] where absent."""
        return (self.raw.get("samples") or {}).get(metric) or []

    @property
    def timing_mode(self) -> object:
        """How its samples were timed (batched, sync...): its own, else its case's."""
        return self.raw.get("timing_mode") or self.case.raw.get("timing_mode")

    @property
    def python_torch(self) -> object:
        """A Python twin's torch version (metrics.python_torch)."""
        return (self.raw.get("metrics") or {}).get("python_torch")

    @property
    def minor_faults_per_step(self) -> float | None:
        """The median of its samples' minor page faults per step; None where none were recorded."""
        xs = [x for x in (self.raw.get("samples") or {}).get("minor_faults") or [] if is_num(x)]
        return statistics.median(xs) if xs else None

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
        units = self.units
        for key in ("flops", "bytes", "items"):
            if is_num(units.get(key)) and units[key] > 0:
                return float(units[key])
        return 1.0

    @cached_property
    def per_unit_times(self) -> list[float]:
        return (np.asarray(self.primary_samples, dtype=float) / self.work).tolist()


def estimate_record(rec: dict, confidence: float) -> Measurement | None:
    """experiments[].estimates' record (harness/two_level.h); None without a ratio."""
    s = _num(rec.get("speedup"))
    if s is None or s <= 0:
        return None
    n, df = rec.get("n"), rec.get("df")
    return Measurement(
        s,
        _num(rec.get("ci_low")),
        _num(rec.get("ci_high")),
        _num(rec.get("confidence")) or confidence,
        PROCESS if rec.get("unit") == PROCESS else ROUND,
        int(n) if is_num(n) else None,
        int(df) if is_num(df) else None,
    )


def spread_of(raw: dict, repeats: list[dict], confidence: float) -> Spread | None:
    """A comparison's ratio in each process: the first process's figures (its dict), then
    each further process's entry for it; None where it was measured in one process only."""
    if not repeats:
        return None
    first = "" if _num(raw.get("speedup")) is not None else "the first process recorded no ratio"
    out = [_process(raw, confidence, 0, first)]
    for r in repeats:
        if isinstance(r, dict):
            out.append(_process(r, confidence, int(r.get("process", len(out))), str(r.get("reason") or "")))
    return Spread(out)


def _process(r: dict, confidence: float, process: int, missing: str) -> Measurement:
    """One process's ratio and interval as it recorded them."""
    figures = (_num(r.get(k)) for k in ("speedup", "ci_low", "ci_high"))
    return Measurement(*figures, confidence, process=process, missing=missing)


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

    recorded_speedup = _field("speedup")  # as recorded, a number or not (the gate refuses nonsense)

    @cached_property
    def verification(self) -> Verification:
        return Verification(self.raw.get("verification"))

    @property
    def first_process(self) -> Measurement:
        """The ratio and within-process interval of the process that ran everything
        (the profiled windows' process), as recorded (below the floor, no CI: has_ci)."""
        n, first = self.rounds, _process(self.raw, self.confidence, 0, "")
        return replace(first, n=n, rounds=n, floor=self.floor, below_floor=self.below_floor)

    @property
    def failed(self) -> bool:
        return self.verification.status == "failed"

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
    def estimate(self) -> Measurement | None:
        """The comparison's one estimate and interval (measurement.py): what every table,
        plot, export, gate and verdict shows for it, with the first process's rounds
        and floor. None without a ratio."""
        rec = self.case.experiment.estimate_of(self.case.name, self.baseline_name, self.variant_name)
        if isinstance(rec, dict):
            est = estimate_record(rec, self.confidence)
        else:
            t = self.first_process
            within = (t.ci_low, t.ci_high) if t.has_ci else (None, None)
            further = [x for x in (_num(r.get("speedup")) for r in self._repeats) if x is not None]
            est = from_processes(t.speedup, further, self.confidence, within, self.rounds)
        if est is None:
            return None
        # Below the floor means no interval: an interval between processes stands.
        below = self.below_floor and not (is_num(est.ci_low) and is_num(est.ci_high))
        return replace(est, rounds=self.rounds, floor=self.floor, below_floor=below)

    @property
    def _repeats(self) -> list[dict]:
        """Its entry in each further process's record of its case, with the process."""
        out = []
        for r in self.case.repeats or []:
            entry = next(
                (
                    x
                    for x in r.get("comparisons") or []
                    if isinstance(x, dict)
                    and x.get("baseline") == self.baseline_name
                    and x.get("variant") == self.variant_name
                ),
                None,
            )
            if entry is not None:
                out.append({**entry, "process": r.get("process")})
        return out

    @cached_property
    def spread(self) -> Spread | None:
        """The comparison's ratio in each process (the first's, then each further one's);
        None where it was measured in one process only (older files, --processes 1)."""
        return spread_of(self.raw, self._repeats, self.confidence)


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

    recorded_status = _field("status")  # as recorded (None where absent), for messages

    @property
    def ran(self) -> bool:
        return self.raw.get("status") in RAN

    @property
    def oom_expected(self) -> bool:
        """Its variants may run out of memory by design (Case::oom_expected: the batch sweep)."""
        return self.raw.get("oom_expected") is True

    @property
    def params(self) -> dict:
        p = self.raw.get("params")
        return p if isinstance(p, dict) else {}

    derived = _mapping("derived")  # the experiment's own figures (break-even steps, ...)
    notes = _mapping("notes")  # how it was timed, what ran where
    units = _mapping("units")  # the work one step does
    reason = _field("reason")
    primary_metric = _field("primary_metric")
    wall_s = _field("wall_s")
    time_s = _field("time_s")  # where its wall time went: sampling, build, ...

    # Notes the report reads (which datasheet peak applies; a peak measured for the case).
    noted_peak_kind = property(lambda self: self.notes.get("peak_kind"))
    noted_peak_flops_per_s = property(lambda self: self.notes.get("peak_flops_per_s"))
    noted_link_bytes_per_s = property(lambda self: self.notes.get("link_bytes_per_s"))

    @property
    def recorded_variants(self) -> bool:
        """The file lists variants for it (a case skipped before it made them has none)."""
        return bool(self.raw.get("variants"))

    @property
    def repeats(self) -> list[dict] | None:
        """Its record in each further process (harness/process_repeats.h): process,
        status, variants' facts, comparisons; None where it ran in one process only."""
        return self.experiment.repeats_of(self.name) or None

    def repeat_faults(self, variant: object) -> list:
        """The named variant's minor page faults per step in each further process."""
        return [((r.get("variants") or {}).get(variant) or {}).get("minor_faults_per_step") for r in self.repeats or []]

    def variant(self, name: object) -> Variant | None:
        """The variant of that name: the one look-up by name, for display and for the
        names a comparison records."""
        return next((v for v in self.variants if v.name == name), None)

    def comparison(self, variant: object, baseline: object = None) -> Comparison | None:
        """The recorded comparison of the variant named (against that baseline, if named)."""
        return next(
            (
                cm
                for cm in self.comparisons
                if cm.variant_name == variant and (baseline is None or cm.baseline_name == baseline)
            ),
            None,
        )

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

    reason = _field("reason")
    title = _field("title", "")
    optimization = _field("optimization", "")
    description = _field("description", "")

    @property
    def output_tail(self) -> list:
        return self.raw.get("output_tail") or []

    @property
    def mechanism_counters(self) -> list:
        """The counters its why may lead with (harness/profiling/counters.cpp), in order."""
        return list(self.raw.get("mechanism_counters") or [])

    @property
    def measured_in_several(self) -> bool:
        """The run measured it in several processes (processes.max > 1): a comparison
        with one process's estimate there was left to one (no claim's verdict reads it)."""
        p = self.raw.get("processes")
        return isinstance(p, dict) and is_num(p.get("max")) and p["max"] > 1

    @property
    def recorded_cases(self) -> bool:
        """The file lists cases for it (one skipped or crashed before any has none)."""
        return bool(self.raw.get("cases"))

    @cached_property
    def _repeats_by_case(self) -> dict[object, list[dict]]:
        """experiments[].repeats (harness/process_repeats.h), each case's in process order."""
        out: dict[object, list[dict]] = {}
        for r in self.raw.get("repeats") or []:
            if isinstance(r, dict):
                out.setdefault(r.get("case"), []).append(r)
        return out

    def repeats_of(self, case: object) -> list[dict]:
        """What each further process recorded for the named case."""
        return self._repeats_by_case.get(case, [])

    @cached_property
    def _estimates(self) -> dict[tuple, dict]:
        return {
            (r.get("case"), r.get("baseline"), r.get("variant")): r
            for r in self.raw.get("estimates") or []
            if isinstance(r, dict)
        }

    def estimate_of(self, case: object, baseline: object, variant: object) -> dict | None:
        """experiments[].estimates' record of one comparison (harness/two_level.h)."""
        return self._estimates.get((case, baseline, variant))

    @property
    def throughput_kind(self) -> str | None:
        """The experiment's headline unit: bytes, else FLOPs, else items (samples, images...)."""
        seen = {k for c in self.cases for v in c.variants for k in KIND_KEYS if is_num(v.rate(k))}
        return next((k for k in ("bytes", "flops", "items") if k in seen), None)


NO_GPU_NAMED = "CUDA device (no GPU named in the file)"


def _first_gpu(doc: dict) -> dict | None:
    """environment.cuda.gpus[0], where the document records one."""
    cuda = (doc.get("environment") or {}).get("cuda")
    return cuda["gpus"][0] if isinstance(cuda, dict) and cuda.get("gpus") else None


def gpu_name(doc: dict) -> str | None:
    """The first GPU's name a results document records (environment.cuda.gpus)."""
    g = _first_gpu(doc)
    return None if g is None else str(g.get("name") or "") or None


def device_name(doc: dict) -> str:
    """The GPU name for a CUDA run, 'CPU <model>' for a CPU run: what compare refuses to mix.
    A CUDA run that names no GPU (the schema refuses one) is never taken for a CPU run."""
    env = doc.get("environment") or {}
    if env.get("device") == "cuda":
        return gpu_name(doc) or NO_GPU_NAMED
    return f"CPU {(env.get('cpu') or {}).get('model', 'unknown')}"


def source_path(doc: dict, default: str = "") -> str:
    """The file a loaded document came from (results.py records it), else `default`."""
    return str(doc.get("_path", default))


class GpuFacts(NamedTuple):
    """The run's first GPU (environment.cuda.gpus[0], NVML's figures where it read them)."""

    name: object
    driver_version: object
    sm_clock_max_mhz: object
    clock_rate_mhz: object
    power_limit_w: object


def gpu_facts(doc: dict) -> GpuFacts | None:
    """The first GPU of a run on CUDA that names one; None otherwise."""
    g = _first_gpu(doc)
    if (doc.get("environment") or {}).get("device") != "cuda" or g is None:
        return None
    nv = g.get("nvml") or {}
    return GpuFacts(
        g.get("name"),
        nv.get("driver_version"),
        nv.get("sm_clock_max_mhz"),
        g.get("clock_rate_mhz"),
        nv.get("power_limit_w"),
    )


class CudaFacts(NamedTuple):
    runtime: object
    cudnn: object
    device_count: object


class RunFacts(NamedTuple):
    """What a results document records about its run (environment, config, status), as
    recorded: None where absent."""

    status: object
    date: object
    device: object
    optbench_version: object
    git_sha: object
    git_dirty: bool
    libtorch_version: object
    host: object
    os_name: object
    profile: object
    filter: object
    command_line: object
    cuda: CudaFacts | None  # where the run saw CUDA


def run_facts(doc: dict) -> RunFacts:
    env, cfg = doc.get("environment") or {}, doc.get("config") or {}
    git, cuda = env.get("git") or {}, env.get("cuda")
    return RunFacts(
        doc.get("status"),
        env.get("date"),
        env.get("device"),
        env.get("optbench_version"),
        git.get("sha"),
        bool(git.get("dirty")),
        (env.get("libtorch") or {}).get("version"),
        env.get("host"),
        (env.get("os") or {}).get("name"),
        cfg.get("profile"),
        cfg.get("filter"),
        env.get("command_line"),
        CudaFacts(cuda.get("cuda_runtime"), cuda.get("cudnn"), cuda.get("device_count"))
        if isinstance(cuda, dict)
        else None,
    )


class Document:
    def __init__(self, raw: dict):
        self.raw = raw
        self.experiments = [Experiment(e, self) for e in raw.get("experiments") or [] if isinstance(e, dict)]

    @property
    def gpu_name(self) -> str | None:
        return gpu_name(self.raw)

    @cached_property
    def facts(self) -> RunFacts:
        return run_facts(self.raw)

    @property
    def gpu(self) -> GpuFacts | None:
        return gpu_facts(self.raw)

    @property
    def device_name(self) -> str:
        return device_name(self.raw)

    @property
    def has_breakdowns(self) -> bool:
        """Any variant carries a profiled window (whatever its status): the why column is
        shown for the whole document, or (older files) not at all."""
        return any(v.breakdown.recorded for e in self.experiments for c in e.cases for v in c.variants)

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
