"""scripts/lib/bisect_mark.py: how the bisect marks a commit between GOOD and BAD
runs. Bad where the gate fails it against GOOD; good where the gate fails BAD against
it on what regressed; skipped where it can be placed on neither side (half-way)."""

import importlib.util
from pathlib import Path

import synth

spec = importlib.util.spec_from_file_location(
    "bisect_mark", Path(__file__).resolve().parents[2] / "scripts" / "lib" / "bisect_mark.py"
)
bisect_mark = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bisect_mark)


def run(median_s: float, seed: int) -> dict:
    base = synth.lognormal(1.0e-3, 0.01, 200, seed)
    opt = synth.lognormal(median_s, 0.01, 200, seed + 1)
    return synth.simple_doc(base, opt)


def test_each_side_and_the_middle():
    good, bad = run(1.0e-3, 1), run(2.0e-3, 3)
    assert bisect_mark.mark(good, bad, run(1.0e-3, 5))[0] == bisect_mark.GOOD
    assert bisect_mark.mark(good, bad, run(2.0e-3, 7))[0] == bisect_mark.BAD
    # Half-way the gate fails it against GOOD: the first step of the slowdown is bad.
    assert bisect_mark.mark(good, bad, run(1.5e-3, 9))[0] == bisect_mark.BAD


def test_a_commit_the_gate_cannot_place_is_skipped():
    """Too noisy to tell from either end: neither good nor bad."""
    good, bad = run(1.0e-3, 1), run(2.0e-3, 3)
    noisy_base = synth.lognormal(1.0e-3, 0.8, 12, 11)
    noisy_opt = synth.lognormal(1.4e-3, 0.8, 12, 12)
    code, why = bisect_mark.mark(good, bad, synth.simple_doc(noisy_base, noisy_opt))
    assert code == bisect_mark.SKIP, why
    assert "neither side" in why
