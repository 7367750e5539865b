"""scripts/lib/estimate_wall.py, whose output the README quotes as the H100
wall-time estimate: the rounds floor, the quick profile's cap, the fit added to
the experiments that run it (once per variant, at one shape's step), and the
README's figures reproduced from the H100 files where they are at hand."""
import importlib.util
import re
import subprocess
import sys

import pytest

from conftest import REPO

spec = importlib.util.spec_from_file_location("estimate_wall", REPO / "scripts" / "lib" / "estimate_wall.py")
ew = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ew)

GPU_RUNS = REPO / ".." / "shared" / "gpu-runs" / "2026-11-24"
NO_SKIP = lambda name: False  # noqa: E731


def case(wall, sampling, rounds, stop="max_time", steps=(0.1, 0.05), params=None, details=None):
    return {"name": "c", "wall_s": wall, "sampling_s": sampling, "rounds": rounds, "stop_reason": stop,
            "params": params or {},
            "variants": [{"name": f"v{i}", "status": "ok", "iters_per_sample": 1, "stats": {"median": s}}
                         for i, s in enumerate(steps)],
            "comparisons": [{"variant": "v1", "verification": {"status": "passed", "details": details or {}}}]}


def est(e, c, profile="standard", fit_steps=0):
    return ew.estimate_case(e, c, profile, 2048, 0.25, NO_SKIP, fit_steps)


def test_one_round_is_raised_to_the_floor_or_the_profiles_sampling_time():
    # 10 s outside sampling; at 2 s per round the standard profile's 8 s would
    # be 4 rounds: the floor's 6 instead. At 1 s per round: 8 rounds.
    assert est("zero_grad", case(12.0, 2.0, 1)) == pytest.approx(10.0 + ew.FLOOR * 2.0)
    assert est("zero_grad", case(11.0, 1.0, 1)) == pytest.approx(10.0 + ew.CAP_S["standard"])


def test_a_case_stopped_on_precision_keeps_its_rounds_in_standard_and_is_capped_in_quick():
    c = case(12.0, 10.0, 100, stop="precision")  # 0.1 s per round
    assert est("zero_grad", c) == pytest.approx(12.0)
    assert est("zero_grad", c, "quick") == pytest.approx(2.0 + ew.CAP_S["quick"])


def test_the_fit_is_added_per_variant_only_where_it_runs_and_was_not_already_timed():
    c = case(11.0, 1.0, 1, steps=(0.1, 0.05))
    base = est("mixed_precision", c)
    assert est("mixed_precision", c, fit_steps=9) == pytest.approx(base + 9 * (0.1 + 0.05))
    assert est("zero_grad", c, fit_steps=9) == pytest.approx(est("zero_grad", c))
    timed = case(11.0, 1.0, 1, details={"fit_steps": 2})  # a file written since: its wall has the fit
    assert est("mixed_precision", timed, fit_steps=9) == pytest.approx(base)


def test_where_shapes_change_the_fit_counts_the_fastest_step():
    # cudnn.benchmark autotuning at every new shape makes one variant's step 14 s;
    # the fit runs one batch, one shape.
    c = case(50.0, 14.0, 1, steps=(0.15, 13.8), params={"shape": "new every step, 160-224 px"})
    assert ew.fit_cost(c, 9) == pytest.approx(9 * 2 * 0.15)


def test_cold_first_steps_add_a_process_per_variant_where_the_case_derives_from_them():
    c = case(11.0, 1.0, 1, steps=(0.04, 0.04))
    c["variants"][0]["first_run_s"], c["variants"][1]["first_run_s"] = 1.5, 30.0
    assert ew.cold_cost(c, 1) == 0.0  # derives nothing from its first steps
    c["derived"] = {"first_steps": "cold (fresh process per variant)"}
    assert ew.cold_cost(c, 1) == pytest.approx(2 * ew.PROCESS_START_S + 1.5 + 30.0 + 2 * 0.04)
    assert ew.cold_cost(c, 0) == 0.0  # quick: the timed process's alone
    c["derived"]["first_step_processes"] = 2  # a file written since: its wall has them
    assert ew.cold_cost(c, 1) == 0.0


README_SKIP = ("cudnn_benchmark/(new_shape_every_step_b16|fixed_shape_b64_224)|dataloader/pin.*|"
               "dataloader/workers/workers_(1|2|8)(_data_only)?|dataloader/prefetch_w4/prefetch_(2|4)(_data_only)?")


@pytest.mark.skipif(not GPU_RUNS.is_dir(), reason="the H100 files of 2026-11-24 are not beside this checkout")
@pytest.mark.parametrize("profile,skip,readme", [("standard", None, r"about (\d+) s \(14.6 minutes\)"),
                                                 ("quick", README_SKIP, r"about (\d+) s \(253 s if")])
def test_the_readme_quotes_what_the_script_prints(profile, skip, readme):
    files = sorted(str(p) for p in GPU_RUNS.glob("h100_*.json"))
    args = [sys.executable, str(REPO / "scripts" / "lib" / "estimate_wall.py"), "--profile", profile, *files]
    if skip:
        args += ["--skip", skip]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    total = int(re.search(r"total\s+(\d+) s", out).group(1))
    quoted = int(re.search(readme, (REPO / "README.md").read_text().replace("\n", " ")).group(1))
    assert total == quoted, out
