"""What a verification judged. A training check (workloads/training/verify_losses.h)
records per quantity whether it was judged: details.judged lists them, older files
only have the *_judged flags. A pass that judged nothing but the first loss, which at
initialisation sits near ln(classes) whatever the logits are, would pass a wrong
computation too: it is shown as "not judged", never as "passed". Checks that record
nothing of the kind (a plain output comparison) are what they say.

Pure logic, no imports: tables and claims read it."""
from __future__ import annotations

LABELS = {"first_loss": "first loss", "first_logits": "logits", "trace": "trace", "fit": "fit"}
NOT_JUDGED = "not_judged"


def judged(ver: dict | None) -> list[str] | None:
    """The quantities a verification judged, in LABELS' order; None when it records none."""
    d = (ver or {}).get("details") or {}
    if isinstance(d.get("judged"), list):
        names = [str(n) for n in d["judged"]]
    elif any(f"{k}_judged" in d for k in LABELS):
        names = [k for k in LABELS if d.get(f"{k}_judged") is True]
    else:
        return None
    return [k for k in LABELS if k in names] + [n for n in names if n not in LABELS]


def _label(name: str, d: dict) -> str:
    if name == "fit" and isinstance(d.get("fit_steps"), int):
        return f"{d['fit_steps']}-step fit"
    return LABELS.get(name, name)


def judged_text(ver: dict | None) -> str:
    """'first loss, logits, 8-step fit', or '' when the check records nothing."""
    names = judged(ver) or []
    d = (ver or {}).get("details") or {}
    return ", ".join(_label(n, d) for n in names)


def status(ver: dict | None) -> str | None:
    """The verification's status, with 'passed' turned into 'not_judged' where only the
    first loss (or nothing) was judged."""
    s = (ver or {}).get("status")
    names = judged(ver)
    if s == "passed" and names is not None and set(names) <= {"first_loss"}:
        return NOT_JUDGED
    return s
