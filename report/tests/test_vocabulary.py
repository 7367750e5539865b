"""The report's labels name what the binary records (`optbench vocabulary`): every
profiler category the harness sorts time into has its label and plot colour here
(report/explanation/why.py), every mechanism counter its label (report/explanation/why_counters.py) and its
field in the results schema; and nothing here labels a name the harness never writes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

from report.explanation.why import CATEGORIES, IDLE, LABELS
from report.explanation.why_counters import LABELS as COUNTER_LABELS


def binary() -> Path:
    if os.environ.get("OPTBENCH_BIN"):
        return Path(os.environ["OPTBENCH_BIN"])
    for d in ("cuda", "cpu"):
        if (REPO / "build" / d / "optbench").is_file():
            return REPO / "build" / d / "optbench"
    pytest.skip("no optbench built (OPTBENCH_BIN, build/cuda or build/cpu); ctest sets OPTBENCH_BIN")


@pytest.fixture(scope="module")
def vocabulary() -> dict:
    out = subprocess.run([str(binary()), "vocabulary"], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


def test_every_category_the_harness_writes_has_its_label_and_colour(vocabulary):
    assert vocabulary["categories"], "the binary names no category"
    assert set(CATEGORIES) == set(vocabulary["categories"])
    assert set(LABELS) == set(vocabulary["categories"]) | {IDLE}


def test_every_counter_the_harness_writes_has_its_label_and_schema_field(vocabulary):
    assert vocabulary["counters"], "the binary names no counter"
    assert set(COUNTER_LABELS) == set(vocabulary["counters"])
    schema = json.loads((REPO / "harness" / "results.schema.json").read_text())
    fields = schema["$defs"]["variant"]["properties"]["breakdown"]["properties"]["counters"]["properties"]
    assert set(fields) == set(vocabulary["counters"])
