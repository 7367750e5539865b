"""A strict machine fingerprint: runs that differ in any field are never one series
(a driver or cuDNN update moves times as much as a code change does).

Besides the machine, the LibTorch and the profile, it holds the run settings a results
file records that change what is measured, not only how precisely:
- malloc: environment.malloc's glibc tunables (absent: glibc's dynamic thresholds).
  Pinned thresholds remove the page faults a step of large tensors otherwise takes
  now and then (docs/results-history.md, 2026-11-27).
- numerics: environment.numerics, the process-wide TF32, cuDNN benchmark and
  determinism flags every variant starts from; another default is other math.
Settings that only change an interval's width or cost are left out: the number of
processes and their share of the run (processes, min_processes, process_time_share,
cold_processes), the stopping rule, the time budget, and the breakdown's profiling,
which runs outside the timed samples.

On a CPU the model string is what the VM reports ("Intel(R) Xeon(R) Processor", no
generation), so it also holds isa: the kernel level ATen dispatched to and the
instruction-set extensions that choose CPU kernels (environment.cpu.torch_capability
and .isa), e.g. "AVX512 (avx2 avx512f avx512_bf16 amx_tile ...)": an AVX2 EPYC and an
AMX Xeon, or AVX-512 with and without native bf16, run other code under one model
string. Files before format version 6 recorded neither: "-", a series of their own,
since their ISA is not known. A GPU run's isa is "-" (its CPU-side work is not what the
GPU series measure). The autocast path itself is not recorded; the committed
..._bf16_emulated.json is kept apart by its uncommitted tree (runs.py)."""

from __future__ import annotations

from typing import NamedTuple

from ..load.document import gpu_facts, run_facts


class Fingerprint(NamedTuple):
    device: str  # "cpu" or "cuda"
    model: str  # the GPU's name, else the CPU's model
    count: str  # GPUs the run saw, else the CPU's logical cores
    isa: str  # a CPU run's "KERNEL_LEVEL (extensions...)"; "-" where unrecorded, and on a GPU run
    driver: str
    cuda: str
    cudnn: str
    torch: str  # the LibTorch the run linked
    profile: str
    malloc: str  # the glibc tunables the run pinned; "-" for glibc's defaults
    numerics: str  # the process-wide math flags, "name=on/off" joined; "-" where unrecorded

    @property
    def machine(self) -> str:
        """What a reader calls the machine: 'AMD EPYC (2 cores)', 'NVIDIA H100 (1 GPU, driver 570.1)'."""
        if self.device == "cuda":
            extra = ", ".join(
                f"{k} {v}" for k, v in (("driver", self.driver), ("CUDA", self.cuda), ("cuDNN", self.cudnn)) if v != "-"
            )
            return f"{self.model} ({self.count} GPU{'' if self.count == '1' else 's'}{', ' + extra if extra else ''})"
        return f"{self.model} ({self.cores})"

    @property
    def cores(self) -> str:
        """A CPU's cores and, where recorded, its kernels' tier: '2 cores, AMX', '2 cores'."""
        tier = isa_tier(self.isa)
        return f"{self.count} cores{', ' + tier if tier else ''}"

    @property
    def settings(self) -> str:
        """', pinned malloc' where the run pinned malloc's thresholds; '' with glibc's defaults."""
        return ", pinned malloc" if self.malloc != "-" else ""

    @property
    def label(self) -> str:
        return f"{self.machine}, torch {self.torch}, {self.profile} profile{self.settings}"


FIELDS = Fingerprint._fields


def _s(x: object) -> str:
    return "-" if x is None or x == "" else str(x)


# What a reader calls the extensions, the highest first: AMX tiles, AVX-512 (with or
# without native bf16, which decides whether bf16 is emulated), AVX2; ARM's SVE, NEON.
TIERS = (
    ("amx_tile", "AMX"),
    ("avx512_bf16", "AVX-512 bf16"),
    ("avx512f", "AVX-512"),
    ("avx2", "AVX2"),
    ("sve", "SVE"),
    ("asimd", "NEON"),
)


def isa_tier(isa: str) -> str:
    """The highest tier a fingerprint's isa field names: 'AMX', 'AVX2'...; '' where unrecorded."""
    flags = set(isa.partition("(")[2].rstrip(")").split())
    return next((name for flag, name in TIERS if flag in flags), "")


def _isa(cpu: dict) -> str:
    """environment.cpu's kernel level and extensions as one field: 'AVX512 (avx2 avx512f ...)';
    '-' where the file records neither (before format version 6), '?' for a part it left null."""
    if "isa" not in cpu and "torch_capability" not in cpu:
        return "-"
    isa = cpu.get("isa")
    flags = ("none" if not isa else " ".join(str(f) for f in isa)) if isinstance(isa, list) else "?"
    level = cpu.get("torch_capability")
    return f"{level if isinstance(level, str) and level else '?'} ({flags})"


def _settings(env: dict) -> tuple[str, str]:
    malloc = env.get("malloc") if isinstance(env.get("malloc"), dict) else {}
    flags = env.get("numerics") if isinstance(env.get("numerics"), dict) else {}
    numerics = " ".join(f"{k}={'on' if v else 'off'}" for k, v in sorted(flags.items()) if isinstance(v, bool))
    return _s(malloc.get("glibc_tunables")), _s(numerics)


def fingerprint(doc: dict) -> Fingerprint:
    facts, env = run_facts(doc), doc.get("environment") or {}
    gpu = gpu_facts(doc)
    if gpu is not None:
        cuda = facts.cuda
        return Fingerprint(
            "cuda",
            _s(gpu.name),
            _s(cuda.device_count if cuda else None),
            "-",
            _s(gpu.driver_version),
            _s(cuda.runtime if cuda else None),
            _s(cuda.cudnn if cuda else None),
            _s(facts.libtorch_version),
            _s(facts.profile),
            *_settings(env),
        )
    cpu = env.get("cpu") or {}
    return Fingerprint(
        _s(facts.device),
        _s(cpu.get("model")),
        _s(cpu.get("logical_cores")),
        _isa(cpu),
        "-",
        "-",
        "-",
        _s(facts.libtorch_version),
        _s(facts.profile),
        *_settings(env),
    )


def splitting_fields(prints: list[Fingerprint]) -> list[str]:
    """The fields whose values differ between the fingerprints: what split the runs apart."""
    return [f for i, f in enumerate(FIELDS) if len({p[i] for p in prints}) > 1]
