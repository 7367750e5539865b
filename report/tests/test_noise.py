import itertools
import math

import numpy as np
import pytest
import synth

from report.gate.compare import Run
from report.gate.noise import BASE, SPREAD_FACTOR, Floor, floor_for, history_floor, kind, spread
from report.load.document import Document


def test_kind_follows_device_and_timer():
    cpu = synth.simple_doc([1e-3] * 5, [1e-3] * 5, gpu=None)
    gpu = synth.simple_doc([1e-3] * 5, [1e-3] * 5)

    def case(doc, **kw):
        doc["experiments"][0]["cases"][0].update(kw)
        return Document(doc).experiments[0].cases[0]

    assert kind(case(cpu)) == "cpu"
    assert kind(case(gpu)) == "host"
    assert kind(case(gpu, primary_metric="device_s")) == "device"


def test_spread_of_normal_noise():
    x = np.random.default_rng(0).normal(0, 0.05, 20000)
    assert spread(x) == pytest.approx(1.2816 * 0.05, rel=0.03)
    assert spread(np.array([0.3])) == 0.0


def test_quiet_case_gets_the_base_and_noisy_case_its_spread():
    quiet = floor_for("device", "time", [0.0001, 0.0002], [], min_effect=0.02)
    assert quiet.source == "model" and quiet.value == pytest.approx(BASE["time"]["device"], rel=0.01)
    noisy = floor_for("device", "time", [0.001, 0.10], [], min_effect=0.02)
    base = math.log1p(BASE["time"]["device"])
    assert noisy.value == pytest.approx(math.expm1(math.hypot(base, SPREAD_FACTOR * 0.10)))
    assert floor_for("host", "time", [0.0], [], 0.02).value > quiet.value
    # CPU-run times move with the machine's load; their speedups do not.
    assert floor_for("cpu", "time", [0.0], [], 0.02).value > 10 * floor_for("cpu", "speedup", [0.0], [], 0.02).value


def test_history_only_widens():
    model = floor_for("device", "time", [0.001], [], 0.02)
    steady = floor_for("device", "time", [0.001], [0.0, 0.0001, -0.0001], 0.02)
    assert steady == model
    drifting = floor_for("device", "time", [0.001], [0.0, 0.05], 0.02)
    assert drifting.source == "history"
    assert drifting.value == pytest.approx(history_floor([0.0, 0.05]))
    assert history_floor([0.1]) is None


def test_fixed_and_min_effect():
    assert floor_for("host", "time", [0.3], [0.0, 0.5], 0.02, fixed=0.05) == Floor(0.05, "fixed")
    assert floor_for("host", "speedup", [0.3], [], 0.02, fixed=0.001) == Floor(0.02, "fixed")
    assert floor_for("device", "speedup", [0.0], [], 0.10).source == "min effect"


def _worst(docs: list[dict], what: str) -> float:
    """The largest |change| / model floor over every pair of runs."""
    worst = 0.0
    for a, b in itertools.combinations([Run(d) for d in docs], 2):
        for key in a.times() if what == "time" else a.comparisons():
            va, vb = a.log_value(what, key), b.log_value(what, key)
            if va is None or vb is None:
                continue
            spreads = [spread(_logs(r, what, key)) for r in (a, b)]
            floor = floor_for(kind(b.cases[key[:2]]), what, spreads, [], 0.0)
            worst = max(worst, abs(vb - va) / math.log1p(floor.value))
    return worst


def test_floors_cover_every_change_between_same_code_runs(runs, cpu_runs):
    """The calibration noise.py states: between the three same-commit H100 runs the
    largest change is 0.82 of its model floor (a time and a speedup of pageable
    copies); between the three CPU runs, 0.82 for the times, 0.44 for the speedups."""
    h100 = [runs[n] for n in ("h100_rest", "h100_again", "h100_full")]
    assert max(_worst(h100, "time"), _worst(h100, "speedup")) == pytest.approx(0.82, abs=0.02)
    assert _worst(cpu_runs, "time") == pytest.approx(0.82, abs=0.02)
    assert _worst(cpu_runs, "speedup") == pytest.approx(0.44, abs=0.02)


def _logs(run: Run, what: str, key):
    if what == "time":
        return np.log(run.time_samples(key)[0])
    b, v = run.round_pairs(key)[0]
    return np.log(b) - np.log(v)


def test_speedups_between_processes_get_the_drift_floor_and_it_covers_the_committed_pair():
    """noise.py: a speedup measured in several processes carries its spread in its
    interval, so its floor is BASE alone (no widening to the processes' spread: that
    gave +-245% floors). What BASE must cover is drift the processes of one run do not
    show: on the committed 3-process pair, the changes whose interval excludes no change
    (zero_grad: its processes agree within 1% and the runs 4.5% apart) stay under it."""
    from conftest import REPO

    from report.gate.compare import Settings, compare_docs
    from report.load.results import load_results

    docs = [
        load_results(REPO / "results" / f"2026-11-26_cpu_amd-epyc-2core_libtorch-2.11_processes{s}.json")
        for s in ("", "_second")
    ]
    rows = compare_docs(docs[0], docs[1], Settings()).speedups
    assert len(rows) == 67 and {(r.floor.source, round(r.floor.value, 6)) for r in rows} == {
        ("model", BASE["speedup"]["cpu"])
    }
    drift = [abs(r.change) for r in rows if r.ci_low > 0 or r.ci_high < 0]
    assert drift and max(drift) < 0.8 * BASE["speedup"]["cpu"]
