"""The report's vocabulary, defined once: each term a rendered report may use, what it
means, and how to find it in the rendered text. A report lists the terms its own text
uses, after the summary table (render_md, render_html).

undefined() is the check that a report uses no term of its own it does not define:
every column header that is not a code span (a name from the results file) and every
verdict cell must name a term here. The tests run it over every committed results
file's render and over a planted header and verdict."""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    name: str
    definition: str
    # Other spellings a header or cell uses for it ("measured speedup", "speedup ×").
    aliases: tuple[str, ...] = ()
    # How the term is found in running text (case-sensitive); default: the name as a word.
    pattern: str = ""

    @property
    def regex(self) -> re.Pattern:
        return re.compile(self.pattern or rf"(?<![\w-]){re.escape(self.name)}(?![\w-])")

    @property
    def slug(self) -> str:
        return "g-" + re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")


TERMS: tuple[Term, ...] = (
    Term("claim", "A line of a PyTorch performance checklist (report/claims.json) with what it promises; "
         "the claims table gives its source.", aliases=("optimization", "technique")),
    Term("claimed", "The effect the checklist states, as a speedup range (1.10–1.20× is 10–20% faster), "
         "a direction (faster, no number) or no number at all."),
    Term("speedup", "The baseline's time over the variant's for the same work (per FLOP, byte or item where "
         "the two do different amounts): 1.50 is 50% faster, 0.80 is 20% slower. One process's figure is the "
         "median over rounds of each round's ratio; several processes' the geometric mean of theirs.",
         aliases=("measured speedup",), pattern=r"(?i)\bspeedups?\b"),
    Term("CI", "Confidence interval, 95% unless the cell says otherwise: one per comparison, everywhere it is "
         "shown. From several processes of the run, Student's t interval of their mean log speedup around their "
         "geometric mean (see between processes); from one process, the order-statistic interval of its median "
         "ratio, which speaks for that process only.", pattern=r"\bCIs?\b"),
    Term("between processes", "The process is the unit: each process of the run measured the comparison on its "
         "own, and the estimate is their geometric mean with Student's t interval (K - 1 degrees of freedom for K "
         "processes). A process's allocator history, page placement and clocks move a ratio more than its own "
         "rounds show, so their disagreement is in the interval: few or disagreeing processes make it wide.",
         pattern=r"\bbetween (\d+ )?processes\b|\b\d+ processes\b"),
    Term("judged apart", "A claim tested on unlike comparisons (sizes, precisions, models, script and trace) judges "
         "each on its own interval and never averages them. The claim's verdict is the weakest: inconclusive "
         "where any is, else the lowest outcome any reached; its figure is that row's, with the range of all.",
         pattern=r"\bjudged apart\b"),
    Term("geometric mean", "A claim whose cases are replicates of one shape (claims.json pool) gives the geometric "
         "mean of their speedups: per process over the cases, then Student's t across processes (one process: a "
         "bootstrap over the cases' rounds); the range of the same per-case figures stands beside it.",
         pattern=r"\bgeometric mean\b"),
    Term("rounds", "Interleaved rounds: each round times every variant of a case once, in a fresh random "
         "order, so drift hits all alike; a speedup is the median of the per-round ratios.",
         pattern=r"\brounds?\b"),
    Term("rounds floor", "The fewest rounds for which a CI exists at all (6 at 95%, 7 at 97.5–98.3%); a "
         "speedup from fewer is shown as 'n = 3, no CI' and no verdict rests on it.",
         pattern=r"\brounds floor\b"),
    Term("n", "Samples of a variant (one per round); 'n = 3' beside a speedup: the rounds behind it.",
         pattern=r"(?<![\w'’-])n(?![\w'’-])"),
    Term("case", "One workload at one size (a model, batch and shape) on which the variants are compared.",
         aliases=("case used",)),
    Term("variant", "One way of running a case's step: the baseline, an optimized variant, or a reference."),
    Term("baseline", "The variant every other variant of a case is compared with (speedup 1×).",
         pattern=r"\bbaseline\b"),
    Term("reference", "A variant that bounds the others rather than being an option to choose: a data-only "
         "loop, training with no loader, a copy or compute alone. Never a claim's evidence, never in the "
         "summary; hatched grey in the plots.", pattern=r"\breference\b"),
    Term("verdict", "What the measured CI says of the claim (report/verdicts.py): the outcome the whole CI lies "
         "in (slower, no effect, smaller than claimed, confirmed or exceeded), inconclusive where it reaches into "
         "more than one, or not measurable here."),
    Term("no-effect band", "Speedups from 1/1.02 to 1.02 (0.980–1.02×): within 2% of 1, too small to act on.",
         pattern=r"\bno-effect band\b"),
    Term("outcome", "What a user acts on: slower, no effect, smaller than claimed, or as claimed or more "
         "(confirmed and exceeded differ only in degree).", pattern=r"\bas claimed or more\b|\boutcomes?\b"),
    Term("confirmed", "The whole CI lies at or above the claim's low end, and its low end inside the claimed range "
         "(a claim of direction only: the whole CI lies above the no-effect band)."),
    Term("exceeded", "The whole CI lies above the claimed range."),
    Term("smaller than claimed", "Faster: the whole CI lies above the no-effect band but below the claim's low end."),
    Term("no effect", "The whole CI lies inside the no-effect band (1/1.02 to 1.02).", pattern=r"\bno effect\b"),
    Term("slower", "The whole CI lies below the no-effect band.", pattern=r"\bslower\b"),
    Term("inconclusive", "The CI reaches into more than one outcome, too wide to tell which (it names the outcomes it "
         "spans), or every ratio behind the claim is below its rounds floor: evidence neither way. An interval "
         "that includes 1 only because it is wide is this, never 'no effect'.", pattern=r"\binconclusive\b"),
    Term("not measurable here", "No verdict from this run, with the reason: a claim with no number, nothing in the "
         "run that tests it, or a GPU claim on a CPU run ('measured on a CPU': the figure is shown, but a CPU does "
         "not test the claim)."),
    Term("stress case", "A case whose baseline is code no user writes (the loss computed on the host over 8192-way "
         "logits): shown apart, never in the verdict.", pattern=r"\bstress case\b"),
    Term("reproduced", "Whether the other runs of this device the report was given (render several results files "
         "together) reach the same outcome with intervals that have a point in common: 'yes', else 'no' with why "
         "(inconclusive in a run, unstable, intervals apart); 'this run only' with one.",
         pattern=r"(?<!not )\breproduced\b"),
    Term("unstable", "Runs of one device reach different outcomes: each run's is listed, and neither is the claim's.",
         pattern=r"\bunstable\b"),
    Term("shown beside", "Measurements next to a verdict that are not in it (the raw mechanism, other "
         "settings, the claim's variant not as written, a stress case).", aliases=("shown beside (not in the verdict)",),
         pattern=r"\bbeside\b"),
    Term("step", "The experiment's timed unit: one training or inference step, one copy, or what its notes "
         "name (20 training steps in host_sync, an epoch of batches in the loaders); a sample times several "
         "back to back and divides.", pattern=r"/step\b|\bper step\b"),
    Term("median time per step", "A variant's median over its samples of the time per step.",
         aliases=("median time",), pattern=r"\bmedian time\b"),
    Term("IQR", "Interquartile range of the time per step over the samples: the spread of the middle half."),
    Term("throughput", "Work per second in the experiment's unit (FLOP/s, bytes/s, or items such as images, "
         "samples or tokens per second).", aliases=("items/s",)),
    Term("% of peak", "Throughput as a share of the device's datasheet peak for that kind of work "
         "(report/gpu_specs.json).", pattern=r"% of peak|\bof (?:fp16|fp32|tf32|bf16|PCIe|HBM)"),
    Term("verification", "The variant's output checked against the baseline's (or a float64 reference): "
         "passed, FAILED, not checked, or not judged (first loss only), where only the first loss could be "
         "judged, which sits near ln(classes) whatever the model computes."),
    Term("peak memory", "The most device memory the variant held while built and warmed up (— on a CPU, "
         "where none is recorded)."),
    Term("status / notes", "ok, or why a row is marked (SKIPPED, FAILED, OOM, NOT RUN...), with what the "
         "verification or nvidia-smi had to say.", pattern=r"\bstatus / notes\b"),
    Term("why", "The mechanism of a speedup from the profiler breakdown (see mechanism), or why none is shown."),
    Term("mechanism", "The profiler's account of a speedup: the operator categories (or counters) that moved "
         "with the timing and their share of the timed difference, shown only where the profiled windows "
         "agree with the timing; otherwise the why says 'profile disagrees with the timing: not explained'.",
         pattern=r"\bmechanism\b"),
    Term("profile disagrees with the timing", "The profiled windows' speedup lies on the other side of 1, or "
         "outside the timed CI widened by the windows' noise (the spread of their own profiled steps' times; the "
         "timed spread where a window recorded fewer than two): no mechanism is shown.",
         pattern=r"profile disagrees with the timing"),
    Term("per step of the baseline's work", "A why's times are per step of the baseline's work, the speedup's "
         "unit: a variant doing other work per step is scaled to the baseline's.",
         pattern=r"per (?:step of the baseline's work|baseline step of work)"),
    Term("outside operators", "On a CPU run, window time in which the stepping thread ran no recorded "
         "operator: plain C++ (image decoding, file reads), waiting for a loader or a lock, and compiled code "
         "no operator record wraps (AOTInductor's kernels).", pattern=r"\boutside operators\b"),
    Term("profiled", "The steps in each variant's profiled window and the profiler's overhead on each side "
         "(window step / timed step − 1); no profiled step is part of a timed sample.",
         pattern=r"\bprofiled: \d"),
    Term("minor page faults per step", "Fresh pages the kernel mapped for the step: many per step mean the "
         "allocator took new memory each step, so the time depends on the process's allocator history.",
         pattern=r"\bminor page faults per step\b"),
    Term("derived figures", "Figures an experiment computed from its variants (break-even steps, the share of "
         "a loop spent waiting for data, scaling efficiency), named as the results file names them.",
         pattern=r"\bDerived figures\b"),
    # A Google Benchmark file's table (gbench.py).
    Term("benchmark", "One Google Benchmark run, named with its arguments.", pattern=r"Google Benchmark:"),
    Term("real time", "Wall time per iteration, as Google Benchmark reports it.", pattern=r"Google Benchmark:"),
    Term("CPU time", "Process CPU time per iteration, as Google Benchmark reports it.",
         pattern=r"Google Benchmark:"),
    Term("iterations", "How many times Google Benchmark ran the benchmark's loop body for the row.",
         pattern=r"Google Benchmark:"),
    Term("status", "ok, or the error the benchmark reported.", pattern=r"Google Benchmark:"),
)
BY_NAME = {t.name.lower(): t for t in TERMS}
for _t in TERMS:
    for _a in _t.aliases:
        BY_NAME.setdefault(_a.lower(), _t)


def used(text: str) -> list[Term]:
    """The terms the text uses, in glossary order."""
    return [t for t in TERMS if t.regex.search(text)]


# A header's unit or qualifier: "(GFLOP/s)", "[CI]", "×".
_QUALIFIERS = re.compile(r"\([^)]*\)|\[[^\]]*\]|×")


def lookup(phrase: str) -> Term | None:
    """The term a header or cell names: as written, else without its parenthesised or
    bracketed qualifiers and unit."""
    p = phrase.strip().lower()
    if p in BY_NAME:
        return BY_NAME[p]
    return BY_NAME.get(" ".join(_QUALIFIERS.sub(" ", p).split()))


def _cells(line: str) -> list[str]:
    """A Markdown table row's cells (escaped pipes stay inside a cell)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def undefined(markdown: str) -> list[str]:
    """The report's own terms a rendered report.md uses without defining: column headers
    that are not code spans, and verdict cells (the verdict before any ': reason')."""
    out: list[str] = []
    lines = markdown.splitlines()
    for i, line in enumerate(lines[:-1]):
        if not (line.startswith("|") and re.fullmatch(r"\|(?:-+\|)+", lines[i + 1].strip())):
            continue
        headers = _cells(line)
        out += [h for h in headers if h and not h.startswith("`") and lookup(h) is None]
        if "verdict" in headers:
            col = headers.index("verdict")
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                cells = _cells(row)
                word = cells[col].split(":")[0].strip() if col < len(cells) else ""
                if word and lookup(word) is None:
                    out.append(word)
    return sorted(set(out))
