"""scripts/lib/estimate_wall.py, whose output the README quotes as the H100
wall-time estimate: the rounds floor, the profiles' caps, the fit added to
the experiments that run it (once per variant, at one shape's step, from a fresh
build), a cold AOTInductor compile, a child process per experiment, the further
processes (builds, warm-up and the repeat's rounds, P - 1 times), the
experiments no GPU has run bounded from a CPU file, the profiled windows; the
session mode's budgets against scripts/gpu-session's own; and the README's
figures reproduced from the H100 files where they are at hand."""

import importlib.util
import json
import os
import re
import subprocess
import sys

import pytest
from conftest import REPO

spec = importlib.util.spec_from_file_location("estimate_wall", REPO / "scripts" / "lib" / "estimate_wall.py")
ew = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ew)

SCRIPT = REPO / "scripts" / "lib" / "estimate_wall.py"
GPU_RUNS = REPO / "report" / "tests" / "fixtures" / "h100_2026-11-24"
H100_FULL = REPO / "report" / "tests" / "fixtures" / "h100_full.json.gz"
CPU_QUICK = REPO / "results" / "2026-11-25_cpu_amd-epyc-2core_libtorch-2.11_quick.json"
CPU_STANDARD = REPO / "results" / "2026-11-25_cpu_amd-epyc-2core_libtorch-2.11.json"
NO_SKIP = lambda name: False  # noqa: E731


def case(
    wall, sampling, rounds, stop="max_time", steps=(0.1, 0.05), params=None, details=None, name="c", warmup=0.0, iters=1
):
    return {
        "name": name,
        "wall_s": wall,
        "sampling_s": sampling,
        "rounds": rounds,
        "stop_reason": stop,
        "params": params or {},
        "variants": [
            {
                "name": f"v{i}",
                "status": "ok",
                "iters_per_sample": iters,
                "stats": {"median": s},
                "warmup": {"seconds": warmup},
            }
            for i, s in enumerate(steps)
        ],
        "comparisons": [{"variant": "v1", "verification": {"status": "passed", "details": details or {}}}],
    }


def doc(device, experiments, profile="quick", date="2026-11-24T10:00:00Z"):
    return {
        "config": {"device": device, "profile": profile},
        "environment": {"device": device, "date": date},
        "experiments": [{"name": e, "cases": cs} for e, cs in experiments.items()],
    }


def est(e, c, profile="standard", fit_steps=0, breakdown=False):
    return ew.estimate_case(e, c, profile, 2048, 0.25, NO_SKIP, fit_steps, breakdown)


def test_one_round_is_raised_to_the_floor_or_the_profiles_sampling_time():
    # 10 s outside sampling; at 0.5 s per round the standard profile's 2 s would
    # be 4 rounds: the floor's 6 instead. At 0.1 s per round: 20 rounds.
    assert ew.CAP_S["standard"] == 2.0  # harness/measure_config.cpp: the first process's max_time
    assert est("zero_grad", case(10.5, 0.5, 1)) == pytest.approx(10.0 + ew.FLOOR * 0.5)
    assert est("zero_grad", case(10.1, 0.1, 1)) == pytest.approx(10.0 + ew.CAP_S["standard"])


def test_a_case_stopped_on_precision_keeps_its_rounds_up_to_the_profiles_cap():
    c = case(12.0, 10.0, 100, stop="precision")  # 0.1 s per round, 10 s: more than either cap
    assert est("zero_grad", c) == pytest.approx(2.0 + ew.CAP_S["standard"])
    assert est("zero_grad", c, "quick") == pytest.approx(2.0 + ew.CAP_S["quick"])
    short = case(2.5, 0.5, 10, stop="precision")  # 0.5 s: under both caps, its own rounds
    assert est("zero_grad", short) == est("zero_grad", short, "quick") == pytest.approx(2.5)


def test_the_fit_is_added_per_variant_only_where_it_runs_and_was_not_already_timed():
    c = case(11.0, 1.0, 1, steps=(0.1, 0.05))
    base = est("mixed_precision", c)
    assert est("mixed_precision", c, fit_steps=9) == pytest.approx(base + 9 * (0.1 + 0.05))
    assert est("zero_grad", c, fit_steps=9) == pytest.approx(est("zero_grad", c))
    timed = case(11.0, 1.0, 1, details={"fit_steps": 2})  # a file written since: its wall has the fit
    assert est("mixed_precision", timed, fit_steps=9) == pytest.approx(est("zero_grad", timed))


def test_the_fit_counts_steps_not_samples():
    # stats are per step: a round costs median x iters_per_sample.
    assert ew.fit_cost(case(11.0, 1.0, 1, steps=(0.01, 0.02), iters=3), 9) == pytest.approx(9 * 0.03)


def test_where_shapes_change_the_fit_counts_the_fastest_step():
    # cudnn.benchmark autotuning at every new shape makes one variant's step 14 s;
    # the fit runs one batch, one shape.
    c = case(50.0, 14.0, 1, steps=(0.15, 13.8), params={"shape": "new every step, 160-224 px"})
    assert ew.fit_cost(c, 9) == pytest.approx(9 * 2 * 0.15)


def test_each_variants_fit_pays_a_fresh_build_bounded_by_the_builds_the_file_timed():
    # Two variants, 1 s of warm-up, 5 s outside sampling and warm-up: the file's
    # five builds (2 timed, 2 traces, the float64 reference) took at most 5 s.
    c = case(8.0, 2.0, 1, warmup=0.5)
    assert ew.fit_build_cost(c) == pytest.approx(2 * 5.0 / 5)
    assert est("mixed_precision", c) == pytest.approx(est("zero_grad", c) + 2.0)
    timed = case(8.0, 2.0, 1, warmup=0.5, details={"fit_steps": 2})
    assert est("mixed_precision", timed) == pytest.approx(est("zero_grad", timed))


def test_cold_first_steps_add_a_process_per_variant_where_the_case_derives_from_them():
    c = case(11.0, 1.0, 1, steps=(0.04, 0.04))
    c["variants"][0]["first_run_s"], c["variants"][1]["first_run_s"] = 1.5, 30.0
    assert ew.cold_cost(c, 1) == 0.0  # derives nothing from its first steps
    c["derived"] = {"first_steps": "cold (fresh process per variant)"}
    assert ew.cold_cost(c, 1) == pytest.approx(2 * ew.PROCESS_START_S + 1.5 + 30.0 + 2 * 0.04)
    assert ew.cold_cost(c, 0) == 0.0  # quick: the timed process's alone
    c["derived"]["first_step_processes"] = 2  # a file written since: its wall has them
    assert ew.cold_cost(c, 1) == 0.0


def test_a_cold_aotinductor_compile_is_added_unless_the_cache_had_the_package():
    c = case(1.4, 0.5, 43, stop="precision")
    c["notes"] = {"compile_s": 73.4, "export_s": 1.3, "inductor_cache": "cold (a fresh TORCHINDUCTOR_CACHE_DIR)"}
    assert est("aot_inductor", c) == pytest.approx(est("zero_grad", c) + 74.7)
    c["notes"]["cache"] = "hit"
    assert est("aot_inductor", c) == pytest.approx(est("zero_grad", c))


def test_the_cold_compile_is_also_named_apart_as_what_only_a_machines_first_run_pays():
    c = case(1.4, 0.5, 43, stop="precision", name="b128")
    c["notes"] = {"compile_s": 73.4, "export_s": 1.3}
    hit = dict(case(1.1, 0.5, 119, stop="precision", name="b1"), notes={"compile_s": 81.6, "cache": "hit"})
    ests = ew.estimate(
        [doc("cuda", {"aot_inductor": [c, hit], "zero_grad": [case(2.0, 1.0, 10)]})], "standard", NO_SKIP
    )
    assert ests["aot_inductor"]["once"] == pytest.approx({"b128": 74.7, "b1": 0.0})
    assert ests["zero_grad"]["once"] == {"c": 0.0}
    assert ew.once_cost(ests) == pytest.approx(74.7)
    # ... inside the first process's cost, not beside it
    assert ests["aot_inductor"]["cases"]["b128"] > 74.7


def test_the_printed_estimate_names_the_first_runs_compiles():
    rows, out = printed("standard", CPU_STANDARD)
    once = re.search(r"^\s+of which once\s+(\d+)\s+(\d+) s", out, re.M)
    assert once and once.group(1) == once.group(2), out
    assert int(once.group(1)) == round(ew.once_cost(fixture_ests("standard", CPU_STANDARD)))
    assert 0 < int(once.group(1)) < rows["aot_inductor"][0], out
    assert int(once.group(1)) == 158  # docs/setup.md quotes it


def test_every_experiment_pays_its_own_process():
    ests = ew.estimate(
        [
            doc(
                "cuda",
                {
                    "zero_grad": [case(3.0, 1.0, 6, stop="precision")],
                    "host_sync": [case(5.0, 1.0, 6, stop="precision")],
                },
            )
        ],
        "quick",
        NO_SKIP,
    )
    cases = sum(sum(x["cases"].values()) for x in ests.values())
    total = sum(ew.experiment_cost(x) for x in ests.values())
    # At least what the fastest GPU process seen (a gtest check, 0.88 s) took, each.
    assert total == pytest.approx(cases + 2 * ew.EXPERIMENT_PROCESS_S) and total - cases >= 2 * 0.88


def test_an_experiment_no_gpu_ran_is_bounded_from_the_cpu_file_scaled_by_its_work_ratio():
    cpu = case(2.0, 1.5, 13, name="workers_0")
    docs = [
        doc("cuda", {"zero_grad": [case(3.0, 1.0, 6)]}),
        doc("cpu", {"storage_reads": [cpu], "eval_no_grad": [case(1.0, 0.5, 6)]}),
    ]
    ests = ew.estimate(docs, "quick", NO_SKIP)
    r = ew.GPU_WORK_RATIO[r"storage_reads/.*"]
    # 0.5 s outside sampling and 0.115 s a round on the VM, r times each: 6 rounds.
    assert ests["storage_reads"]["basis"] == "cpu"
    assert ests["storage_reads"]["cases"]["workers_0"] == pytest.approx(r * 0.5 + ew.FLOOR * r * 1.5 / 13)
    assert "eval_no_grad" not in ests  # no ratio: a CPU figure is no GPU bound
    with_gpu = ew.estimate(
        docs + [doc("cuda", {"storage_reads": [case(9.0, 1.0, 6, name="workers_0")]})], "quick", NO_SKIP
    )
    assert with_gpu["storage_reads"]["basis"] == "gpu"


def test_the_newest_days_gpu_files_are_used_where_they_have_the_experiment():
    old = doc(
        "cuda",
        {
            "data_parallel": [case(3.0, 1.0, 6, name="gone"), case(3.0, 1.0, 6, name="kept")],
            "aot_inductor": [case(2.0, 1.0, 6)],
        },
        date="2026-11-23T07:00:00Z",
    )
    new = doc("cuda", {"data_parallel": [case(3.0, 1.0, 6, name="kept")]})
    ests = ew.estimate([old, new], "quick", NO_SKIP)
    assert set(ests["data_parallel"]["cases"]) == {"kept"} and ests["aot_inductor"]["day"] == "2026-11-23"


def test_a_profiled_window_per_variant_and_cuptis_set_up_per_experiment():
    c = case(11.0, 1.0, 6, steps=(0.155, 0.07))  # one 0.155 s step each, no warm step
    assert ew.breakdown_cost(c) == pytest.approx(ew.PROFILE_COST_FACTOR * 2 * (0.155 * 1.5 + 0.02))
    assert est("cuda_graphs", c, breakdown=True) == pytest.approx(est("cuda_graphs", c) + ew.breakdown_cost(c))
    short = case(11.0, 1.0, 6, steps=(0.01,))  # 5 steps of 10 ms and a warm step
    assert ew.window_cost(0.01) == pytest.approx(6 * 0.01 * 1.5 + 0.02)
    x = {"basis": "gpu", "cases": {"c": est("cuda_graphs", short, breakdown=True)}}
    assert ew.experiment_cost(x, breakdown=True) == pytest.approx(ew.experiment_cost(x) + ew.CUPTI_SETUP_S)


# --- the further processes ---------------------------------------------------


def rep_case(e, c, profile="standard"):
    return ew.repeat_case(e, c, profile, 2048, 0.25, NO_SKIP)


def test_a_further_processs_warm_up_is_warmup_cpps_in_a_fresh_process():
    r = ew.REPEAT["standard"]
    assert (r.warmup_min_s, r.warmup_max_s) == (0.05, 0.5)  # harness/measure_config.h, RepeatConfig
    # Short steps: to the minimum (three agreeing calls fit well inside it).
    assert ew.repeat_warmup(0.001, 0.001, r.warmup_min_s, r.warmup_max_s) == pytest.approx(0.05)
    # 30 ms steps: three of them after the first.
    assert ew.repeat_warmup(0.03, 0.03, r.warmup_min_s, r.warmup_max_s) == pytest.approx(4 * 0.03)
    # 0.3 s steps: the maximum passes after the first timed one.
    assert ew.repeat_warmup(0.3, 0.3, r.warmup_min_s, r.warmup_max_s) == pytest.approx(0.6)
    # A first step as slow as the file's (cudnn.benchmark's autotuning), then one timed step.
    assert ew.repeat_warmup(20.0, 0.08, r.warmup_min_s, r.warmup_max_s) == pytest.approx(20.08)


def test_a_further_processs_rounds_are_the_repeats_minimum_capped_unless_the_floor_needs_more():
    r = ew.REPEAT["standard"]
    assert (r.min_rounds, r.min_time_s, r.max_time_s) == (6, 0.05, 0.75)
    assert ew.repeat_sampling(0.001, r) == pytest.approx(0.05)  # 50 rounds to min_time
    assert ew.repeat_sampling(0.05, r) == pytest.approx(0.3)  # 6 rounds
    assert ew.repeat_sampling(0.2, r) == pytest.approx(1.2)  # 6 rounds, past the cap: the floor wins
    full = ew.REPEAT["full"]
    assert ew.repeat_sampling(0.1, full) == pytest.approx(1.0)  # its 10 rounds
    assert ew.repeat_sampling(0.4, full) == pytest.approx(3.0)  # 10 rounds would be 4 s: the cap, >= 6 rounds


def test_a_further_process_builds_warms_up_and_samples_and_nothing_else():
    # 0.1 + 0.05 s steps, first steps as fast; 10 s outside sampling and warm-up.
    c = case(12.0, 1.5, 10, stop="precision", steps=(0.1, 0.05), warmup=0.25)
    for v in c["variants"]:
        v["first_run_s"] = ew.step_s(v)
    warm = ew.repeat_warmup(0.1, 0.1, 0.05, 0.5) + ew.repeat_warmup(0.05, 0.05, 0.05, 0.5)
    expected = 10.0 + warm + 6 * 0.15
    assert rep_case("zero_grad", c) == pytest.approx(expected)
    # No fit, cold first steps, compile or profiled window: the first process's alone.
    c["derived"] = {"first_steps": "cold (fresh process per variant)"}
    c["notes"] = {"compile_s": 73.4, "export_s": 1.3}
    assert rep_case("aot_inductor", c) == rep_case("zero_grad", c) == pytest.approx(expected)
    # A file that splits a case's time: its builds and other time only.
    c["time_s"] = {"build": 0.4, "warmup": 0.25, "sampling": 1.5, "verification": 9.0, "other": 0.1}
    assert rep_case("zero_grad", c) == pytest.approx(0.5 + warm + 6 * 0.15)
    # A training check (verify_losses.h): its n timed builds, bounded as the fit's.
    t = case(8.0, 2.0, 1, warmup=0.5, details={"baseline_trace_rel_dev": 0.0})
    assert ew.repeat_builds(t) == pytest.approx(ew.fit_build_cost(t)) and ew.fit_build_cost(t) < 5.5


def test_a_cpu_bound_further_process_scales_by_the_work_ratio():
    cpu = case(2.0, 1.5, 15, name="workers_0", steps=(0.05, 0.05))
    for v in cpu["variants"]:
        v["first_run_s"] = 0.05
    r = ew.GPU_WORK_RATIO[r"storage_reads/.*"]
    ests = ew.estimate([doc("cpu", {"storage_reads": [cpu]}, profile="standard")], "standard", NO_SKIP)
    scaled = dict(cpu, wall_s=2.0 * r, sampling_s=1.5 * r)
    assert ests["storage_reads"]["repeats"]["workers_0"] == pytest.approx(
        ew.repeat_case("storage_reads", scaled, "standard", 2048, 0.25, NO_SKIP, r)
    )
    warm = 2 * ew.repeat_warmup(0.05 * r, 0.05 * r, 0.05, 0.5)
    assert ests["storage_reads"]["repeats"]["workers_0"] == pytest.approx(0.5 * r + warm + 6 * 0.1 * r)


def test_an_experiments_cost_grows_linearly_in_its_further_processes():
    ests = ew.estimate(
        [doc("cuda", {"zero_grad": [case(3.0, 1.0, 6, stop="precision")]}, profile="standard")], "standard", NO_SKIP
    )
    x = ests["zero_grad"]
    one = ew.further_process_cost(x)
    assert one == pytest.approx(ew.EXPERIMENT_PROCESS_S + x["repeats"]["c"]) and x["repeats"]["c"] > 0
    assert ew.experiment_cost(x) == pytest.approx(ew.first_process_cost(x))  # P = 1: the first alone
    for p in (2, 5, 10):
        assert ew.experiment_cost(x, processes=p) == pytest.approx(ew.first_process_cost(x) + (p - 1) * one)


def test_the_process_start_is_a_fresh_cuda_processs():
    # Issue 37 item 5: a fresh CUDA process costs 2-3 s.
    assert ew.EXPERIMENT_PROCESS_S == 3.0
    assert ew.PROCESSES == {"quick": 1, "standard": 3, "full": 10}  # measure_config.cpp's min_processes
    assert ew.TIME_SHARE == {"quick": None, "standard": 2.0, "full": 3.0}  # its process_time_share


def test_the_model_is_the_binarys(tmp_path):
    """estimate_wall keeps no copy of the profiles or the budget gate's constants: it
    plans by `optbench model`. A binary whose standard cap is twice as long gives a
    dearer estimate; one without a model stops the script with one line."""
    real = ew.optbench_binary()
    model = json.loads(subprocess.run([str(real), "model"], capture_output=True, text=True, check=True).stdout)
    standard = model["profiles"]["standard"]["measure"]
    assert ew.MODEL == model and ew.CAP_S["standard"] == standard["stopping"]["max_time_s"]
    assert ew.CUPTI_SETUP_S == model["budget"]["cupti_setup_s"]
    path = tmp_path / "h100.json"
    path.write_text(json.dumps(doc("cuda", {"zero_grad": [case(10.2, 0.2, 1)]}, profile="standard")))

    def total(binary):
        out = subprocess.run(
            [sys.executable, str(SCRIPT), "--profile", "standard", str(path)],
            capture_output=True,
            text=True,
            env=dict(os.environ, OPTBENCH_BIN=str(binary)),
        )
        return out, re.search(r"total\s+\d+\s+\d+\s+(\d+) s", out.stdout)

    model["profiles"]["standard"]["measure"]["stopping"]["max_time_s"] *= 2
    fake = tmp_path / "optbench"
    fake.write_text("#!/bin/sh\ncat <<'EOF'\n" + json.dumps(model) + "\nEOF\n")
    fake.chmod(0o755)
    (ours, a), (theirs, b) = total(real), total(fake)
    assert a and b and int(b.group(1)) > int(a.group(1)), (ours.stdout, theirs.stdout)
    none, _ = total(tmp_path / "missing")
    assert none.returncode != 0 and "cannot read" in none.stderr and len(none.stderr.strip().splitlines()) == 1


# --- the session -------------------------------------------------------------


def bash_budget(name, elapsed, session_s, each_alone):
    """scripts/gpu-session's own budget_for, run by bash on its plan."""
    script = (
        f'eval "$(sed -n \'/^plan() {{/,/^}}/p;/^budget_for() {{/,/^}}/p\' "{REPO}/scripts/gpu-session")"\n'
        f"elapsed() {{ echo {elapsed}; }}\nsession_s={session_s}\nbudget_for {name}\n"
    )
    env = dict(os.environ, OPTBENCH_SESSION_EACH_ALONE="1" if each_alone else "0")
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True, env=env).stdout.strip()
    return int(out) if out else None


@pytest.mark.parametrize("each_alone", [False, True])
def test_the_session_budgets_are_the_scripts_own(each_alone):
    plan = ew.read_plan()
    assert [p["step"] for p in plan][:3] == ["bindings", "gpu_tests", "new"]  # the plan is read, not written here
    for elapsed, session_s in [(176, 480), (300, 480), (420, 480), (176, 900), (250, 330)]:
        for i, p in enumerate(plan):
            assert ew.budget_for(plan, i, elapsed, session_s, each_alone) == bash_budget(
                p["step"], elapsed, session_s, each_alone
            ), (p["step"], elapsed, session_s)


def synthetic_docs(tmp_path):
    """Every planned experiment at 20 s a case (two cases), so steps overflow."""
    names = sorted({n for p in ew.read_plan() if p["what"].startswith("run ") for n in ew.run_args(p["what"])[0]})
    path = tmp_path / "h100.json"
    path.write_text(
        json.dumps(doc("cuda", {n: [case(20.0, 1.0, 6, name="a"), case(20.0, 1.0, 6, name="b")] for n in names}))
    )
    return [str(path)]


def run_session(files, session_s, each_alone="0", *extra):
    env = dict(os.environ, OPTBENCH_SESSION_S=str(session_s), OPTBENCH_SESSION_EACH_ALONE=each_alone)
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--session", *extra, *files], capture_output=True, text=True, check=True, env=env
    ).stdout
    rows = {}
    for line in out.splitlines()[1:]:
        m = re.match(r"\s+(\S+)\s+(\S+)\s+(\S+)\s*(.*)", line)
        rows[m.group(1)] = (m.group(2), m.group(3), m.group(4))
    return rows


@pytest.mark.parametrize("session_s", [200, 330, 480, 540, 700, 1000])
@pytest.mark.parametrize("each_alone", ["0", "1"])
def test_the_session_total_never_exceeds_its_deadline(tmp_path, session_s, each_alone):
    rows = run_session(synthetic_docs(tmp_path), session_s, each_alone)
    steps = [s for s in rows if s not in ("total", "setup", "build")]
    spent = ew.SETUP_S + ew.BUILD_S + sum(int(rows[s][1]) for s in steps if rows[s][1] != "-")
    assert int(rows["total"][1]) == spent <= session_s


def test_the_session_tracks_the_deadline_and_the_plan(tmp_path):
    files = synthetic_docs(tmp_path)
    # new starts after set-up, build, bindings and gpu_tests (190 s) and leaves room for
    # the reserved minimums and overruns after it (breakdown 45, aot_inductor 95) and its
    # own overrun (5): its cap at 900 s, 420 - 190 - 145 at 420 s, nothing at 380 s
    # (where the reserved steps' minimums leave it 45 s, under its own 60).
    rows = {s: run_session(files, s)["new"] for s in (900, 420, 380)}
    assert rows[900][0] == "120" and rows[420][0] == "85" and rows[380][2].startswith("skipped")
    # Another plan: new's cap halved; the script is whatever --gpu-session names.
    fake = tmp_path / "gpu-session"
    plan = subprocess.run(
        [str(REPO / "scripts" / "gpu-session"), "--plan"], capture_output=True, text=True, check=True
    ).stdout
    fake.write_text("#!/bin/sh\ncat <<'EOF'\n" + re.sub(r"^new\t60\t120", "new\t60\t60", plan, flags=re.M) + "EOF\n")
    fake.chmod(0o755)
    changed = run_session(files, 900, "0", "--gpu-session", str(fake))
    # Its experiments cost more than either cap: the budget and one overrun.
    assert changed["new"][:2] == ("60", str(60 + int(ew.OVERRUN_S))) and rows[900][1] == str(120 + int(ew.OVERRUN_S))


# --- the README's figures ------------------------------------------------------


def h100_files(cpu):
    return sorted(str(p) for p in GPU_RUNS.glob("h100_*.json.gz")) + [str(H100_FULL), str(cpu)]


def printed(profile, cpu, *extra):
    """The script's rows: experiment -> (first, further, total) seconds, and its header."""
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--profile", profile, *extra, *h100_files(cpu)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = {
        m.group(1): tuple(int(m.group(k)) for k in (2, 3, 4))
        for m in re.finditer(r"^\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+) s", out, re.M)
    }
    return rows, out


def fixture_ests(profile, cpu):
    docs = [ew.load(f) for f in h100_files(cpu)]
    skip_re = ew.LEAVES_OUT[profile]
    return ew.estimate(docs, profile, lambda n: bool(skip_re and re.fullmatch(skip_re, n)))


# The quick total on the committed files before the further processes were
# modelled (EXPERIMENT_PROCESS_S was 2.0 s then): 459.62 s. Quick runs one
# process, so only the process start may move it.
QUICK_BEFORE_PROCESSES_S = 459.62


def test_quick_is_one_process_and_unchanged_but_for_the_process_start(monkeypatch):
    ests = fixture_ests("quick", CPU_QUICK)
    total = sum(ew.experiment_cost(x, processes=ew.PROCESSES["quick"]) for x in ests.values())
    assert total == pytest.approx(QUICK_BEFORE_PROCESSES_S + len(ests) * (ew.EXPERIMENT_PROCESS_S - 2.0), rel=0.01)
    monkeypatch.setattr(ew, "EXPERIMENT_PROCESS_S", 2.0)
    again = sum(ew.experiment_cost(x, processes=ew.PROCESSES["quick"]) for x in ests.values())
    assert again == pytest.approx(QUICK_BEFORE_PROCESSES_S, rel=0.01)
    rows, out = printed("quick", CPU_QUICK)
    assert "1 processes per experiment assumed" in out and all(r[1] == 0 for r in rows.values())


def test_the_further_processes_are_there_and_linear_in_p_minus_one():
    ests = fixture_ests("standard", CPU_STANDARD)
    for e, x in ests.items():
        assert ew.further_process_cost(x) > ew.EXPERIMENT_PROCESS_S, e  # every experiment measures again
    rows = {p: printed("standard", CPU_STANDARD, "--processes", str(p)) for p in (1, 2, 3, 5, 10)}
    assert "3 processes per experiment assumed" in printed("standard", CPU_STANDARD)[1]
    assert printed("standard", CPU_STANDARD)[0] == rows[3][0]  # 3 by default
    assert "10 processes per experiment assumed" in rows[10][1]
    for e in list(ests) + ["total"]:
        first, further = rows[1][0][e][0], rows[2][0][e][1]
        assert rows[1][0][e][1] == 0 and further > 0, e
        for p in (5, 10):
            f, fp, total = rows[p][0][e]
            assert f == first and abs(fp - (p - 1) * further) <= p and abs(total - first - fp) <= 1, (e, p)
        assert rows[10][0][e][2] > rows[5][0][e][2] > rows[1][0][e][2], e


# The figures the README quotes (section "Wall time on an H100").
README_TOTALS = {"quick": 479, "standard": 1652}
README_SESSION = {
    "setup": "48",
    "build": "128",
    "bindings": "4",
    "gpu_tests": "10",
    "new": "124",
    "breakdown": "103",
    "aot_inductor": "84",
    "verified": "38",
    "matmul_check": "-",
    "total": "539",
}


@pytest.mark.parametrize("profile,cpu", [("quick", CPU_QUICK), ("standard", CPU_STANDARD)])
def test_the_readme_totals_are_what_the_script_prints(profile, cpu):
    rows, out = printed(profile, cpu)
    assert rows["total"][2] == README_TOTALS[profile], out


def test_the_readme_session_table_is_what_the_script_prints():
    rows = run_session(h100_files(CPU_QUICK), ew.SESSION_S)
    assert {s: rows[s][1] for s in README_SESSION} == README_SESSION, rows
    assert "mixed_precision" in rows["breakdown"][2] and "not run" not in rows["breakdown"][2]
