#!/usr/bin/env bash
# Every option of `optbench run` either reaches each experiment's process and
# the results' `config` (a settings field: harness/run_settings.h), or is
# listed below as one that does not travel, with the reason. The suite runs
# every experiment in a child process from the run's settings serialized as
# one object; the child records the settings it ran from and the suite fails
# an experiment whose record differs from what it sent. So a run with every
# option the CLI has set to a non-default value must record each value, differ
# from a default run in each, and keep its experiment "ok"; and --cold-processes
# 3 on the probe (a case that derives from its cold first step) must give each
# variant three cold first steps.
#   forwarded_options.sh OPTBENCH_PROBE
set -u
PY=${OPTBENCH_PYTHON:-python3}
OPTBENCH=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$PY" - "$OPTBENCH" "$tmp" <<'PY' || { echo "FAIL"; exit 1; }
import json, os, re, subprocess, sys
optbench, tmp = sys.argv[1], sys.argv[2]
traces = os.path.join(tmp, "traces")

# option -> (its arguments here, where config records it, the value recorded).
TRAVELS = {
    "--filter": (["--filter", "^isolation_probe$"], "/filter", "^isolation_probe$"),
    "--quick": (["--quick"], "/profile", "quick"),
    "--time-budget": (["--time-budget", "600"], "/time_budget_s", 600.0),
    "--max-time": (["--max-time", "0.3"], "/measure/stopping/max_time_s", 0.3),
    "--min-samples": (["--min-samples", "7"], "/measure/stopping/min_samples", 7),
    "--target-ci": (["--target-ci", "0.5"], "/measure/stopping/target_rel_ci", 0.5),
    "--hang-timeout": (["--hang-timeout", "500"], "/hang_timeout_s", 500.0),
    "--seed": (["--seed", "7"], "/measure/seed", 7),
    "--interleave": (["--interleave", "abba"], "/measure/interleave", "abba"),
    "--no-progress": (["--no-progress"], "/progress", False),
    "--breakdown": (["--breakdown", "on"], "/measure/breakdown/mode", "on"),
    "--trace-dir": (["--trace-dir", traces], "/measure/breakdown/trace_dir", traces),
    "--cold-processes": (["--cold-processes", "3"], "/measure/cold_processes", 3),
    "--isolate": (["--isolate"], "/measure/isolate", True),
    "--repeat-all": (["--repeat-all"], "/measure/repeat_all", True),
    "--processes": (["--processes", "3"], "/measure/processes", 3),
    "--min-processes": (["--min-processes", "2"], "/measure/min_processes", 2),  # with --processes 3
}
# Settings this run cannot give a non-default value (tests/test_run_settings.cpp
# round-trips every field with one).
SAME_HERE = {
    "--full": "/profile",  # excludes --quick, which sets the same field
    "--device": "/device",  # cpu only on this machine: the default here
}
# Options that are no setting and do not travel.
STAYS = {
    "--help": "prints the help",
    "--out": "where this run writes; an experiment's process is given its part file",
    "--overwrite": "checked here before anything runs; an experiment's process overwrites its part file",
    "--in-process": "whether this process starts experiment processes; they never start their own",
}

def run(args, name):
    out = os.path.join(tmp, name + ".json")
    p = subprocess.run([optbench, "run", *args, "--device", "cpu", "--out", out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout, json.load(open(out))

def at(doc, pointer):
    for k in pointer.strip("/").split("/"):
        doc = doc[k]
    return doc

help_text = subprocess.run([optbench, "run", "--help"], stdout=subprocess.PIPE, text=True, check=True).stdout
options = set(re.findall(r"^\s+(?:-\w,)?(--[\w-]+)", help_text, re.M))
placed = set(TRAVELS) | set(SAME_HERE) | set(STAYS)
assert options == placed, ("options of `optbench run` not placed (map each to a settings field in "
                           f"harness/run_settings.h or list it above): {sorted(options - placed)}; "
                           f"placed but gone: {sorted(placed - options)}")

# A default run, its budget too short to start anything: the config to differ from.
rc, log, default = run(["--time-budget", "0.001"], "default")
assert rc == 0, (rc, log)
args = [a for opt in TRAVELS.values() for a in opt[0]]
rc, log, d = run(args, "every")
assert rc == 1, (rc, log)  # the probe's "crash" case has a variant whose worker dies: an error, exit 1
config = d["config"]
for opt, (_, pointer, value) in TRAVELS.items():
    assert at(config, pointer) == value, (opt, pointer, at(config, pointer), value)
    if opt != "--time-budget":  # the default run had one too, shorter
        assert at(default["config"], pointer) != value, (opt, "default run has the same", value)
assert default["config"]["time_budget_s"] == 0.001

(e,) = d["experiments"]
# "failed" with "settings other than the run's" if the child ran from others.
assert e["status"] == "ok", (e["status"], e.get("reason"))
probe = next(c for c in e["cases"] if c["name"] == "probe")
assert probe["status"] == "ok", probe.get("reason")
for v in probe["variants"]:
    assert len(v.get("cold_first_runs_s", [])) == 3, (v["name"], v.get("cold_first_runs_s"))
assert os.listdir(traces), "no trace written under --trace-dir"
assert not re.search(r"^\[\d+/\d+\] ", log, re.M), "progress lines printed with --no-progress:\n" + log
PY
echo "forwarded_options: ok"
