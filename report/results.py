"""Loading results files: schema-checked, with one clear error line on bad input."""
from __future__ import annotations

import json
from pathlib import Path

SCHEMA_NAME = "optbench-results"
SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).resolve().parent.parent / "harness" / "results.schema.json"


class ResultsError(Exception):
    """A results file that cannot be used; the message names the file and why."""


def load_schema() -> dict:
    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return json.load(f)


def schema_errors(doc: object) -> list[str]:
    """Every schema violation as 'path: message' (empty when valid)."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema())
    out = []
    for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in err.absolute_path) or "(root)"
        out.append(f"{where}: {err.message}")
    return out


def load_results(path: str | Path, validate: bool = True) -> dict:
    """Read a results file; raise ResultsError with a one-line reason if it is not
    an optbench results file of a version this report understands."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise ResultsError(f"{p}: is a directory, expected a results .json file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ResultsError(f"{p}: cannot read ({e})") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultsError(f"{p}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_NAME:
        raise ResultsError(f"{p}: not an optbench results file (no \"schema\": \"{SCHEMA_NAME}\")")
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise ResultsError(
            f"{p}: schema version {doc.get('schema_version')!r}; this report reads version {SCHEMA_VERSION}")
    if validate:
        errors = schema_errors(doc)
        if errors:
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            raise ResultsError(f"{p}: does not match the results schema: {errors[0]}{more}")
    doc["_path"] = str(p)
    return doc
