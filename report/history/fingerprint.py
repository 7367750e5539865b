"""A strict machine fingerprint: runs that differ in any field are never one series
(a driver or cuDNN update moves times as much as a code change does)."""

from __future__ import annotations

from typing import NamedTuple

from ..load.document import gpu_facts, run_facts


class Fingerprint(NamedTuple):
    device: str  # "cpu" or "cuda"
    model: str  # the GPU's name, else the CPU's model
    count: str  # GPUs the run saw, else the CPU's logical cores
    driver: str
    cuda: str
    cudnn: str
    torch: str  # the LibTorch the run linked
    profile: str

    @property
    def machine(self) -> str:
        """What a reader calls the machine: 'AMD EPYC (2 cores)', 'NVIDIA H100 (1 GPU, driver 570.1)'."""
        if self.device == "cuda":
            extra = ", ".join(
                f"{k} {v}" for k, v in (("driver", self.driver), ("CUDA", self.cuda), ("cuDNN", self.cudnn)) if v != "-"
            )
            return f"{self.model} ({self.count} GPU{'' if self.count == '1' else 's'}{', ' + extra if extra else ''})"
        return f"{self.model} ({self.count} cores)"

    @property
    def label(self) -> str:
        return f"{self.machine}, torch {self.torch}, {self.profile} profile"


FIELDS = Fingerprint._fields


def _s(x: object) -> str:
    return "-" if x is None or x == "" else str(x)


def fingerprint(doc: dict) -> Fingerprint:
    facts, env = run_facts(doc), doc.get("environment") or {}
    gpu = gpu_facts(doc)
    if gpu is not None:
        cuda = facts.cuda
        return Fingerprint(
            "cuda",
            _s(gpu.name),
            _s(cuda.device_count if cuda else None),
            _s(gpu.driver_version),
            _s(cuda.runtime if cuda else None),
            _s(cuda.cudnn if cuda else None),
            _s(facts.libtorch_version),
            _s(facts.profile),
        )
    cpu = env.get("cpu") or {}
    return Fingerprint(
        _s(facts.device),
        _s(cpu.get("model")),
        _s(cpu.get("logical_cores")),
        "-",
        "-",
        "-",
        _s(facts.libtorch_version),
        _s(facts.profile),
    )


def splitting_fields(prints: list[Fingerprint]) -> list[str]:
    """The fields whose values differ between the fingerprints: what split the runs apart."""
    return [f for i, f in enumerate(FIELDS) if len({p[i] for p in prints}) > 1]
