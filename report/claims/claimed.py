"""The comparisons a claim's verdict reads, as the harness asks for them between an
experiment's first process and its further ones (harness/claimed_comparisons.h): further
processes repeat only these, and every other comparison is measured in one process
(docs/method.md, "What further processes repeat"). The claims' own evaluation picks them
(judge.evaluate), so the harness and the report read the same comparisons by construction.

A claim whose verdict cannot be drawn here (qualitative, or about GPUs on a CPU run)
reads none: further processes would buy it nothing."""

from __future__ import annotations

from ..load.document import Document
from .judge import evaluate
from .verdicts import NOT_MEASURABLE


def claimed(doc: dict | Document) -> dict[str, dict[str, list[str]]]:
    """{experiment: {case: [variant names]}}: the variants each judged comparison reads,
    its reference (the baseline or another variant) included, in sorted order."""
    out: dict[str, dict[str, set[str]]] = {}
    for res in evaluate(doc):
        if res.verdict is None or res.verdict.verdict == NOT_MEASURABLE:
            continue
        for e in res.evidence:
            names = {str(s.name) for s in e.sides if s is not None} if e.sides else {e.baseline, e.variant}
            out.setdefault(e.experiment, {}).setdefault(e.case, set()).update(n for n in names if n)
    return {x: {c: sorted(v) for c, v in cases.items()} for x, cases in out.items()}
