"""The report's vocabulary, defined once: each term a rendered report may use, what it
means, and the exact spellings it is printed with. A page lists the terms it prints in
a glossary at its end: used() looks them up in the page's own words (page.Page.glossary:
its text and headers, not its code spans nor a results file's notes), quoted words
included (an experiment's title, claims.json's), and adds the terms their definitions use.

The list is data the printing code reads: a module that prints a term of its own takes
the words from here (spelling(), at import, so an undefined term fails on import, not
in a user's render), and the tests check the rest against it (report/tests/glossary_audit.py
reads rendered reports for them):
- every column header that is not a code span (a name from the results file) and every
  verdict cell names a term;
- each page's glossary lists exactly the terms its text uses, found by their spellings,
  and those its headers name; no term is printed with a spelling it has retired;
- every label the code can print for a profiler category or a counter is a term.
A spelling may hold '#' for a number ('between # processes' is 'between 3 processes')."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property

from ..claims import verdicts

NUMBER = r"\d[\d,.]*"


@dataclass(frozen=True)
class Term:
    name: str  # the term, as it is printed in running text
    # What it means; a function where the definition reads a constant it describes (the
    # no-effect band), so the words follow the constant.
    meaning: str | Callable[[], str]
    # Further printed forms of the same word (a plural, 'n = #'); the name is the first.
    forms: tuple[str, ...] = ()
    # The column headers that name it ('speedup × [CI]'); the name is one where it heads a column.
    headers: tuple[str, ...] = ()
    # Spellings it once had and must not be printed with again.
    retired: tuple[str, ...] = ()
    # What must follow the spelling for the text to use the term (a profiler category's
    # label is a term where a figure follows it: 'convolution -27%'); default: a word's end.
    after: str = ""

    @property
    def definition(self) -> str:
        return self.meaning() if callable(self.meaning) else self.meaning

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.name, *self.forms)

    @cached_property
    def regex(self) -> re.Pattern:
        return re.compile("|".join(_spelling_regex(s, self.after) for s in self.spellings))

    @cached_property
    def _cores(self) -> tuple[str, ...]:
        """Each spelling's longest literal run: a text without any of them cannot use the term."""
        return tuple(max(s.split("#"), key=len) for s in self.spellings)

    def in_text(self, text: str) -> bool:
        return any(c in text for c in self._cores) and self.regex.search(text) is not None

    @property
    def slug(self) -> str:
        return "g-" + re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")


def _spelling_regex(s: str, after: str = "") -> str:
    """A printed spelling as a pattern: '#' a number, a word's boundary where it starts or
    ends with a letter; case as printed."""
    body = "".join(NUMBER if ch == "#" else re.escape(ch) for ch in s)
    head = r"(?<![\w-])" if re.match(r"\w", s) else ""
    tail = after or (r"(?![\w-])" if re.search(r"\w$", s) else "")
    return head + body + tail


def _band() -> str:
    """The no-effect band's definition, from the constant the verdicts read."""
    b = verdicts.NO_EFFECT_BAND
    span = f"{1 / b:.3f}–{b:.2f}×"
    return f"Speedups from 1/{b:g} to {b:g} ({span}): within {100 * (b - 1):.3g}% of 1, too small to act on."


# A profiler category's label (why.LABELS) is the term where a change follows it.
CHANGE = r"(?= (?:[-+]\d|new\b|\d|\())"

TERMS: tuple[Term, ...] = (
    Term(
        "claim",
        "A line of a PyTorch performance checklist (report/claims/claims.json) and what it promises.",
        forms=("claims",),
        headers=("claim",),
    ),
    Term(
        "optimization",
        "What the claim tells you to do, in the checklist's words.",
        headers=("optimization", "technique"),
    ),
    Term(
        "claimed",
        "The checklist's effect: a speedup range (1.10–1.20× is 10–20% faster), a direction "
        "(faster, no number) or no number at all.",
    ),
    Term(
        "run",
        "One results file given to report render, numbered in the order given: run 1, run 2...",
        forms=("run #", "runs"),
    ),
    Term(
        "speedup",
        "The baseline's time over the variant's for the same work: 1.50 is 50% faster, 0.80 is 20% slower.",
        forms=("speedups",),
        headers=("speedup × [CI]", "speedup [CI]", "measured speedup", "speedup"),
    ),
    Term(
        "estimate",
        "A comparison's one figure, shown everywhere: the processes' geometric mean, or one process's median ratio.",
        forms=("estimates",),
    ),
    Term(
        "CI",
        "The estimate's confidence interval (95% unless named): between processes, else over one process's rounds.",
        forms=("CIs",),
    ),
    Term(
        "between processes",
        "Each process measured the comparison on its own; the CI is Student's t over their log speedups.",
        forms=("between # processes", "# processes"),
    ),
    Term(
        "first process",
        "A run's first process, which records every figure; its further processes record their own ratios beside it.",
    ),
    Term(
        "judged apart",
        "Unlike comparisons of one claim, each judged on its own CI; the claim's verdict and figure are the weakest's.",
    ),
    Term(
        "geometric mean",
        "Of replicate cases of one shape (claims.json pool), per process, then Student's t across processes.",
    ),
    Term(
        "rounds",
        "Each round times every variant of a case once, in a fresh random order, so drift hits all alike.",
        forms=("round",),
    ),
    Term(
        "rounds floor",
        "The fewest rounds with a CI at all (6 at 95%); fewer: 'n = 3, no CI', and no verdict rests on it.",
    ),
    Term(
        "n",
        "Samples of a variant, one per round; 'n = 3' beside a speedup: the rounds behind it.",
        forms=("n = #",),
        headers=("n",),
    ),
    Term(
        "case",
        "One workload at one size (a model, batch and shape) on which the variants are compared.",
        forms=("cases",),
        headers=("case", "case used", "tested on"),
    ),
    Term(
        "variant",
        "One way of running a case's step: the baseline, an optimized variant, or a reference.",
        forms=("variants",),
        headers=("variant",),
    ),
    Term("baseline", "The variant every other variant of a case is compared with (speedup 1×)."),
    Term(
        "reference",
        "A variant that bounds the others, not an option (a data-only loop, a copy alone); never a claim's evidence.",
    ),
    Term(
        "verdict",
        "The outcome the whole CI lies in; inconclusive where it spans several; or not measurable here "
        "(the rule: docs/verdicts.md).",
        headers=("verdict",),
    ),
    Term("no-effect band", _band),
    Term(
        "outcome",
        "What a user acts on: slower, no effect, smaller than claimed, or as claimed or more "
        "(confirmed and exceeded differ only in degree).",
        forms=("outcomes", "as claimed or more"),
    ),
    Term(
        "confirmed",
        "The whole CI lies at or above the claim's low end, its low end in the claimed range (or "
        "above the no-effect band).",
    ),
    Term("exceeded", "The whole CI lies above the claimed range."),
    Term("smaller than claimed", "Faster: the whole CI lies above the no-effect band but below the claim's low end."),
    Term("no effect", "The whole CI lies inside the no-effect band."),
    Term("slower", "The whole CI lies below the no-effect band."),
    Term(
        "inconclusive",
        "The CI spans more than one outcome, or every ratio is below the rounds floor: evidence neither way.",
    ),
    Term(
        "not measurable here",
        "No verdict, with the reason: no number claimed, nothing tests it, or a GPU claim on a CPU.",
    ),
    Term(
        "moved?",
        "'no': the runs of a device agree on the verdict and their CIs overlap; else what moved "
        "(outcome, verdict, estimate).",
        headers=("moved?",),
    ),
    Term(
        "stress case",
        "A case whose baseline is code no user writes (the loss on the host over 8192-way "
        "logits): shown apart, never in the verdict.",
    ),
    Term(
        "shown beside",
        "Measurements next to a verdict that are not in it (other settings, the claim's variant "
        "not as written, a stress case).",
        headers=("shown beside (not in the verdict)",),
    ),
    Term("source", "Where the claim is quoted from; the excerpts are in report/sources.md.", headers=("source",)),
    Term(
        "step",
        "The experiment's timed unit: a training or inference step, a copy, or what its notes name "
        "(an epoch of batches in the loaders).",
        forms=("/step", "per step"),
    ),
    Term(
        "median time per step",
        "A variant's median over its samples of the time per step.",
        headers=("median time per step", "median time"),
    ),
    Term(
        "IQR",
        "Interquartile range of the time per step over the samples: the spread of the middle half.",
        headers=("IQR",),
    ),
    Term(
        "throughput",
        "Work per second in the experiment's unit (FLOP/s, bytes/s, or items such as images per second).",
        headers=("throughput", "items/s"),
    ),
    Term(
        "% of peak",
        "Throughput as a share of the device's datasheet peak for that work (report/gpu/gpu_specs.json).",
        forms=("of peak",),
        headers=("% of peak",),
    ),
    Term(
        "verification",
        "The output checked against the baseline's or float64: passed, FAILED, not checked, or not judged.",
        headers=("verification",),
    ),
    Term(
        "peak memory",
        "The most device memory the variant held while built and warmed up (— on a CPU).",
        headers=("peak memory",),
    ),
    Term(
        "status / notes",
        "ok, or the reason a row is marked (SKIPPED, FAILED, OOM, NOT RUN...), with what the "
        "verification or nvidia-smi had to say.",
        headers=("status / notes", "status"),
    ),
    Term("why", "The mechanism of a speedup from the profiled windows, or why none is shown.", headers=("why",)),
    Term(
        "mechanism",
        "What moved with the timing in the profiled windows (a counter, operator categories), where they agree.",
        headers=("mechanism",),
    ),
    Term(
        "profiled window",
        "Steps run under the PyTorch profiler after the timed rounds, per variant; no "
        "profiled step is part of a timed sample.",
        forms=("profiled windows", "windows"),
    ),
    Term(
        "profiled:",
        "The steps in each variant's profiled window and the profiler's overhead on each side "
        "(window step / timed step − 1).",
        forms=("profiled: #",),
    ),
    Term("mean not settled", "The window reached its step cap before its mean step settled: its times are less sure."),
    Term(
        "over the bound",
        "'over the ±25% bound': the window's step is further from the timed step than the tolerance.",
        forms=("over the ±#% bound",),
    ),
    Term(
        "profile disagrees with the timing",
        "The windows' speedup lies on the other side of 1, or outside the allowed band: no mechanism is shown.",
    ),
    Term("allowed", "The band the windows' speedup must lie in: the timed CI widened by the windows' own noise."),
    Term(
        "counted",
        "A mechanism counter the why shows in brackets: it did not move the way the timing did, or "
        "the timing has no direction.",
    ),
    Term(
        "per step of the baseline's work",
        "A variant doing other work per step, scaled to the baseline's.",
        retired=("per baseline step of work",),
    ),
    Term(
        "outside operators",
        "CPU window time in no recorded operator: plain C++ (decoding, reads), waiting for a loader.",
    ),
    Term(
        "minor page faults per step",
        "Fresh pages mapped per step: the time then depends on the process's allocator history.",
        retired=("allocator regime",),
    ),
    Term(
        "derived figures",
        "Figures an experiment computed in its first process (break-even steps, share of a loop waiting...), "
        "as the file names them: a ratio among them is that process's, not the speedup column's estimate "
        "across processes.",
        forms=("Derived figures",),
    ),
    Term(
        "time per case",
        "A case's wall time and its parts: sampling, verification, warm-up, build, profiling.",
        forms=("Time per case",),
    ),
    # The profiler's categories (why.LABELS), where a change follows the label.
    Term("matrix multiply", "Operator category: matrix multiplies (cuBLAS gemm, aten::mm/addmm/bmm).", after=CHANGE),
    Term("convolution", "Operator category: convolutions (cuDNN, aten::*convolution*).", after=CHANGE),
    Term("attention", "Operator category: fused attention (flash, memory-efficient, cuDNN SDPA).", after=CHANGE),
    Term("elementwise", "Operator category: pointwise kernels, casts, activations, fills.", after=CHANGE),
    Term("reductions/norms", "Operator category: sums, means, softmax, batch and layer norm, losses.", after=CHANGE),
    Term("optimizer", "Operator category: optimizer updates (foreach, fused or per-tensor AdamW, SGD).", after=CHANGE),
    Term("copy H2D", "Operator category: host-to-device copies on the device timeline.", after=CHANGE),
    Term("copy D2H", "Operator category: device-to-host copies on the device timeline.", after=CHANGE),
    Term("copy D2D", "Operator category: device-to-device copies.", after=CHANGE),
    Term(
        "host copy/cast",
        "Operator category: copies and dtype casts the CPU did (aten::copy_, to, clone, contiguous).",
        after=CHANGE,
    ),
    Term("memset", "Operator category: device memsets.", after=CHANGE),
    Term("collectives", "Operator category: NCCL kernels, c10d and Gloo collectives.", after=CHANGE),
    Term(
        "compiled code",
        "Operator category: time inside AOTInductor's run or a TorchScript graph that no recorded operator covers.",
        after=CHANGE,
    ),
    Term("other", "Operator category: operators no other category matches; the largest is named.", after=CHANGE),
    Term("idle", "On a GPU, window time with no kernel or copy running.", after=CHANGE),
    Term(
        "TorchScript graph's own time",
        "A scripted method's time not spent in a recorded ATen operator (older files).",
        after=CHANGE,
    ),
    # Mechanism counters (why_counters.LABELS), counted in the windows.
    Term("operator calls", "Counter: ATen operator calls per step.", after=CHANGE),
    Term("top-level operator calls", "Counter: operator calls not nested in another.", after=CHANGE),
    Term("autograd nodes recorded", "Counter: autograd graph nodes the forward pass recorded.", after=CHANGE),
    Term("autograd nodes run in backward", "Counter: autograd nodes the backward pass ran.", after=CHANGE),
    Term("fill operations", "Counter: fill_/zero_ calls (zero_grad's zeroing).", after=CHANGE),
    Term("host reads (.item())", "Counter: device-to-host reads of a scalar.", after=CHANGE),
    Term("optimizer steps", "Counter: optimizer.step() calls.", after=CHANGE),
    Term("optimizer operator calls", "Counter: operator calls inside the optimizer's step.", after=CHANGE),
    Term("kernel launches", "Counter: device kernel launches per step.", after=CHANGE),
    Term("launches", "Device kernel launches per step in the profiled windows.", after=CHANGE),
    # A Google Benchmark file's table (gbench.py).
    Term(
        "benchmark",
        "One Google Benchmark run, named with its arguments.",
        headers=("benchmark",),
        after=r"(?=\W+real time)",
    ),  # the table's header, not cudnn.benchmark
    Term("real time", "Wall time per iteration, as Google Benchmark reports it.", headers=("real time",)),
    Term("CPU time", "Process CPU time per iteration, as Google Benchmark reports it.", headers=("CPU time",)),
    Term(
        "iterations",
        "How many times Google Benchmark ran the benchmark's loop body for the row.",
        headers=("iterations",),
    ),
)
BY_NAME = {t.name.lower(): t for t in TERMS}
HEADERS = {}
for _t in TERMS:
    for _h in (_t.name, *_t.headers):
        HEADERS.setdefault(_h.lower(), _t)


def spelling(name: str) -> str:
    """The term's printed spelling; KeyError for a term the glossary does not define. The
    printing code calls it at import: a new term must be defined before it can be printed."""
    return BY_NAME[name.lower()].name


@cache
def _refers() -> dict[str, frozenset[str]]:
    """Each term's definition's terms: a glossary defines the terms it prints too."""
    return {t.name: frozenset(u.name for u in TERMS if u is not t and u.in_text(t.definition)) for t in TERMS}


def used(words: list[str], headers: list[str]) -> list[Term]:
    """The terms a page's words use (by their spellings) and its table headers name, and the
    terms their definitions use, in glossary order: the page's glossary."""
    text = "\n".join(words + headers)
    found = {t.name for t in TERMS if t.in_text(text)} | {t.name for h in headers if (t := HEADERS.get(h.lower()))}
    todo = list(found)
    while todo:
        for name in _refers()[todo.pop()] - found:
            found.add(name)
            todo.append(name)
    return [t for t in TERMS if t.name in found]
