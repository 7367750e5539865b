"""Issue 40, item 2: the report's memory and time do not grow with a file's samples. A
valid 52 MB file (3.5 million samples in one variant) made `render` ask for a 2000 x 3.5M
bootstrap array (52 GiB), and `validate` took 100 s and 1.1 GB; files above a stated
cap are refused before they are read."""

import gzip
import json
import math
import os
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import pytest
import synth
from conftest import REPO
from scipy import stats as sps

from report.load import results
from report.statistics import stats

# The bound a ~50 MB file renders within: the text and its Python objects (about 3 times
# the file, results.MAX_FILE_BYTES) beside the interpreter, numpy, scipy and matplotlib
# (~150 MB), and a bootstrap's bounded batches (stats.BATCH_ELEMENTS). The bootstrap over
# every sample needed 2000 x 2.4M x 8 bytes, 36 GiB, for this file.
RENDER_RSS_BOUND = 1 << 30
# Generous for a 2-core CI VM under load: it takes ~7 s on one.
RENDER_SECONDS_BOUND = 120


def _big_doc(samples: int) -> dict:
    """A GPU run's mixed_precision case measured in one process, its TF32 reference with
    `samples` samples and the others 20: the AMP claim's ratio against TF32 is computed
    from the samples, unpaired (a bootstrap over every TF32 sample, before the fix)."""
    c = synth.case(
        "resnet50_b8",
        [
            ("fp32", synth.lognormal(4.8e-3, 0.01, 20, 1)),
            ("tf32", synth.lognormal(2e-3, 0.01, samples, 2)),
            ("amp_fp16", synth.lognormal(1e-3, 0.01, 20, 3)),
        ],
        params={"model": "resnet50"},
    )
    return synth.document([synth.experiment("mixed_precision", [c], ["amp", "fp16_tensor_cores"])], gpu=synth.H100)


# Runs `python -m report ARGS` as its child and prints the child's peak RSS (bytes) and wall
# time: RUSAGE_CHILDREN of a fresh process counts that child only, none of the test run's.
_MEASURE = """
import resource, subprocess, sys, time
t = time.monotonic()
rc = subprocess.run([sys.executable, "-m", "report", *sys.argv[1:]], stdout=subprocess.DEVNULL).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, time.monotonic() - t)
"""


def _measured(*args) -> tuple[int, int, float]:
    p = subprocess.run(
        [sys.executable, "-c", _MEASURE, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=str(REPO),
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    rc, rss, wall = p.stdout.split()
    return int(rc), int(rss), float(wall)


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    """A valid results file of ~50 MB: 2.4 million samples in one variant."""
    src = tmp_path_factory.mktemp("big") / "big.json"
    with open(src, "w") as f:
        json.dump(_big_doc(2_400_000), f)
    assert 45e6 < src.stat().st_size < 60e6
    return src


def test_a_50_MB_file_renders_within_a_stated_memory_bound(big_file, tmp_path):
    rc, rss, wall = _measured("render", big_file, "--out", tmp_path / "out")
    assert rc == 0
    assert rss < RENDER_RSS_BOUND, f"peak RSS {rss / 2**20:.0f} MiB"
    assert wall < RENDER_SECONDS_BOUND, f"{wall:.0f} s"
    md = (tmp_path / "out" / "report.md").read_text()
    assert "amp_fp16 vs tf32" in md


def _peak_bytes(fn) -> int:
    tracemalloc.start()  # numpy's allocations are traced too
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_bootstraps_memory_does_not_grow_with_the_samples():
    """Each bootstrap site draws at most MAX_RESAMPLED a side, in batches of
    BATCH_ELEMENTS: 100,000 samples take what 10,000 take (and their own few copies), not
    2000 x 100,000 x 8 bytes (1.6 GB) an array."""
    small, large = synth.lognormal(1e-3, 0.05, 10_000, 1), synth.lognormal(1e-3, 0.05, 100_000, 2)
    copies = 16 * np.asarray(large).nbytes
    for fn in (
        lambda x: stats.log_median_boot(x, seed=7),
        lambda x: stats.log_ratio_boot(x, x, seed=7),
        lambda x: stats.ratio_of_medians_ci(x, x[:5000], 0.95),
    ):
        assert _peak_bytes(lambda f=fn: f(large)) < _peak_bytes(lambda f=fn: f(small)) + copies


def test_ordinary_samples_are_resampled_as_scipy_resamples_them():
    """Up to MAX_RESAMPLED a side, the batched bootstrap draws what one call of
    scipy.stats.bootstrap draws: the figures of every ordinary file stay as they were."""
    x, y = np.asarray(synth.lognormal(1e-3, 0.1, 1315, 1)), np.asarray(synth.lognormal(5e-4, 0.1, 1315, 2))
    z = np.asarray(synth.lognormal(5e-4, 0.1, 77, 3))
    res = sps.bootstrap(
        (x,),
        lambda a, axis=-1: np.log(np.median(a, axis=axis)),
        n_resamples=stats.RESAMPLES,
        vectorized=True,
        method="percentile",
        random_state=stats.SEED,
    )
    assert np.array_equal(stats.log_median_boot(x.tolist()), res.bootstrap_distribution)
    res = sps.bootstrap(
        (x, y),
        lambda a, b, axis=-1: np.log(np.median(a, axis=axis)) - np.log(np.median(b, axis=axis)),
        n_resamples=stats.RESAMPLES,
        paired=True,
        vectorized=True,
        method="percentile",
        random_state=stats.SEED,
    )
    assert np.array_equal(stats.log_ratio_boot(x.tolist(), y.tolist()), res.bootstrap_distribution)
    for conf in (0.9, 0.95, 0.99):
        res = sps.bootstrap(
            (x, z),
            lambda a, b, axis=-1: np.median(a, axis=axis) / np.median(b, axis=axis),
            n_resamples=stats.RESAMPLES,
            vectorized=True,
            method="percentile",
            confidence_level=conf,
            random_state=stats.SEED,
        )
        assert stats.ratio_of_medians_ci(x.tolist(), z.tolist(), conf) == (
            res.confidence_interval.low,
            res.confidence_interval.high,
        )


def test_many_samples_give_the_full_bootstraps_interval():
    """Above MAX_RESAMPLED, the m-out-of-n bootstrap's interval of a log median is the
    full bootstrap's, to about the Monte Carlo error of RESAMPLES (5 to 10% of its width)."""
    n = 3 * stats.MAX_RESAMPLED
    x = np.asarray(synth.lognormal(1e-3, 0.1, n, 5))
    full = sps.bootstrap(
        (x,),
        lambda a, axis=-1: np.log(np.median(a, axis=axis)),
        n_resamples=stats.RESAMPLES,
        batch=100,
        vectorized=True,
        method="percentile",
        random_state=stats.SEED,
    )
    boot = stats.log_median_boot(x.tolist())
    lo, hi = np.percentile(boot, [2.5, 97.5])
    width = full.confidence_interval.high - full.confidence_interval.low
    assert math.isclose(hi - lo, width, rel_tol=0.15)
    assert abs((lo + hi) / 2 - (full.confidence_interval.low + full.confidence_interval.high) / 2) < 0.1 * width


def test_validate_checks_millions_of_samples_at_once(big_file):
    """Seconds, not the 100 s of jsonschema item by item (number_arrays.py); and a bad
    sample among millions is still found, with its index."""
    doc = results.load_results(big_file, validate=False)
    start = time.monotonic()
    assert results.schema_errors(doc) == []
    assert time.monotonic() - start < 30
    host_s = doc["experiments"][0]["cases"][0]["variants"][1]["samples"]["host_s"]
    host_s[1_234_567], host_s[2_000_000] = 0.0, "1 ms"
    errors = results.schema_errors(doc)
    assert [e.split(": ")[0].rsplit("/", 1)[1] for e in errors] == ["1234567", "2000000"], errors


@pytest.mark.parametrize("gz", [False, True])
def test_a_file_above_the_cap_is_refused_before_it_is_read(gz, tmp_path, cli, monkeypatch):
    """The cap (results.MAX_FILE_BYTES) on the text, also where a small .gz would inflate
    past it; here lowered to 1 MiB so that the test writes little."""
    monkeypatch.setattr(results, "MAX_FILE_BYTES", 1 << 20)
    doc = _big_doc(100_000)
    text = json.dumps(doc)
    assert len(text) > 1 << 20
    p = tmp_path / ("big.json.gz" if gz else "big.json")
    p.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    for args in (["validate", p], ["render", p, "--out", tmp_path / "o"], ["compare", p, p]):
        r = cli(*args)
        lines = r.err.strip().splitlines()
        assert r.rc == 2 and len(lines) == 1, r.err
        assert lines[0] == (
            f"error: {p}: larger than 1 MiB{' uncompressed' if gz else ''}, the most the report "
            "reads (a run writes about 1 MB)"
        )
    monkeypatch.setattr(results, "MAX_FILE_BYTES", 1 << 30)
    assert cli("validate", p).rc == 0
