"""What a verification judged. A training check (workloads/training/verify_losses.h)
records per quantity whether it was judged: details.judged lists them (an older file's
flags are listed as it is read, load/versions.py). A pass that judged nothing but the first loss, which at
initialisation sits near ln(classes) whatever the logits are, would pass a wrong
computation too: it is shown as "not judged", never as "passed". Checks that record
nothing of the kind (a plain output comparison) are what they say.

Logic over document.Verification: tables and claims read it."""

from __future__ import annotations

from ..load.document import Verification

LABELS = {"first_loss": "first loss", "first_logits": "logits", "trace": "trace", "fit": "fit"}
NOT_JUDGED = "not_judged"


def judged(ver: Verification | dict | None) -> list[str] | None:
    """The quantities a verification judged, in LABELS' order; None when it records none."""
    names = Verification.of(ver).judged_names
    if names is None:
        return None
    return [k for k in LABELS if k in names] + [n for n in names if n not in LABELS]


def _label(name: str, ver: Verification) -> str:
    if name == "fit" and ver.fit_steps is not None:
        return f"{ver.fit_steps}-step fit"
    return LABELS.get(name, name)


def judged_text(ver: Verification | dict | None) -> str:
    """'first loss, logits, 8-step fit', or '' when the check records nothing."""
    v = Verification.of(ver)
    return ", ".join(_label(n, v) for n in judged(v) or [])


def status(ver: Verification | dict | None) -> str | None:
    """The verification's status, with 'passed' turned into 'not_judged' where only the
    first loss (or nothing) was judged."""
    s = Verification.of(ver).status
    names = judged(ver)
    if s == "passed" and names is not None and set(names) <= {"first_loss"}:
        return NOT_JUDGED
    return s
