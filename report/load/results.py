"""Loading results files: schema-checked (jsonschema; without it, read unchecked and
said so once), with one clear error line on bad input, and an older version read as
the current one (versions.py).

Input files are only ever read, never written."""

from __future__ import annotations

import gzip
import json
import math
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

from .versions import READABLE, upgrade

SCHEMA_NAME = "optbench-results"
SCHEMA_PATH = Path(__file__).resolve().parents[2] / "harness" / "results.schema.json"
# The largest results file (its JSON text, gzip-compressed or not) the report reads. A run
# writes ~1 MB (the largest committed: 1.9 MB; the harness stops a variant at 100,000
# samples), so 256 MiB is over 100 times any run; the report holds about 3 times a file's
# text while it reads it (the text, then a Python float for each ~20-character number), so
# the cap keeps that near 1 GiB. Larger is refused before it is read, not half-read.
MAX_FILE_BYTES = 256 << 20


class ResultsError(Exception):
    """A results file that cannot be used; the message names the file and why."""


def load_schema() -> dict:
    try:
        with open(SCHEMA_PATH, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ResultsError(f"{SCHEMA_PATH}: cannot read the results schema ({e})") from None


def have_jsonschema() -> bool:
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        return False
    return True


NO_JSONSCHEMA = "jsonschema is not installed: results files are read without schema validation (pip install jsonschema)"
_told = False


def validator_name() -> str:
    """Which checker schema_errors() uses, for telling the user."""
    return "jsonschema" if have_jsonschema() else f"none ({NO_JSONSCHEMA})"


def _finite_validator(jsonschema, schema: dict):
    """Draft 2020-12 whose "number" is a JSON number: finite. Python's json reads NaN and
    Infinity, which JSON has not, and every comparison with NaN is false, so a NaN time
    would pass "minimum": 0. Its "items" checks an array of numbers at once
    (number_arrays.item_suspects)."""
    from .number_arrays import item_suspects

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine(
        "number", lambda chk, v: base.TYPE_CHECKER.is_type(v, "number") and math.isfinite(v)
    )
    plain_items = base.VALIDATORS["items"]

    def items(validator, sub, instance, where):
        if not (isinstance(instance, list) and isinstance(sub, dict) and "prefixItems" not in where):
            yield from plain_items(validator, sub, instance, where)
            return
        for i in item_suspects(sub, instance, schema):
            yield from validator.descend(instance[i], sub, path=i)

    return jsonschema.validators.extend(base, validators={"items": items}, type_checker=checker)


def _members(v: object):
    return iter(v.items()) if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else iter(())


def non_finite_at(doc: object, path: str = "") -> str | None:
    """Where the first NaN or +-Infinity is (a/b/0), or None. JSON has no such numbers and the
    harness writes none (nlohmann::json writes null), so one anywhere is a damaged or forged
    file, also where the schema leaves a value open (params, notes, derived)."""
    if isinstance(doc, float) and not math.isfinite(doc):
        return path or "(root)"
    # Iterative, in document order: a deeply nested file must not exhaust the recursion limit,
    # and memory is one iterator per level, not a path per number (millions in a large file).
    stack = [(path, _members(doc))]
    while stack:
        where, members = stack[-1]
        for k, x in members:
            if isinstance(x, float):
                if not math.isfinite(x):
                    return f"{where}/{k}" if where else str(k)
            elif isinstance(x, (dict, list)):
                stack.append((f"{where}/{k}" if where else str(k), _members(x)))
                break
        else:
            stack.pop()
    return None


def schema_errors(doc: object) -> list[str] | None:
    """Every schema violation as 'path: message' (empty when valid); None where jsonschema
    is not installed, said once on stderr."""
    global _told
    if not have_jsonschema():
        if not _told:
            print(f"note: {NO_JSONSCHEMA}", file=sys.stderr)
            _told = True
        return None
    import jsonschema
    from jsonschema.exceptions import best_match

    schema = load_schema()
    validator = _finite_validator(jsonschema, schema)(schema)
    # A oneOf/anyOf failure is told by what is wrong inside the form of the value's type
    # (stats/median, not stats).
    errors = [best_match([e]) for e in validator.iter_errors(doc)]
    out = []
    for err in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]):
        where = "/".join(str(p) for p in err.absolute_path) or "(root)"
        out.append(f"{where}: {err.message}")
    return out


def _read_text(p: Path) -> str:
    """The file's text (decompressed where it ends in .gz), refused above MAX_FILE_BYTES
    without reading more than that: a gzip bomb or /dev/zero stops there too."""
    with gzip.open(p, "rb") if p.suffix == ".gz" else open(p, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        what = " uncompressed" if p.suffix == ".gz" else ""
        raise ResultsError(
            f"{p}: larger than {MAX_FILE_BYTES >> 20} MiB{what}, the most the report reads (a run writes about 1 MB)"
        )
    return data.decode("utf-8")


def read_json(path: str | Path) -> object:
    """Parse one JSON file (gzip-compressed when it ends in .gz); ResultsError with a
    one-line reason otherwise."""
    p = Path(path)
    try:
        text = _read_text(p)
    except FileNotFoundError:
        raise ResultsError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise ResultsError(f"{p}: is a directory, expected a results .json file") from None
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as e:  # gzip.BadGzipFile is an OSError
        raise ResultsError(f"{p}: cannot read ({e})") from None
    if not text.strip():
        raise ResultsError(f"{p}: empty file, expected JSON")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultsError(f"{p}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except RecursionError:
        raise ResultsError(f"{p}: not usable JSON (nested too deeply)") from None
    except ValueError as e:  # an integer of more digits than Python converts (4300 by default)
        raise ResultsError(f"{p}: not usable JSON ({str(e).split(';')[0]})") from None


def is_gbench(doc: object) -> bool:
    """A Google Benchmark --benchmark_out JSON (context + benchmarks)."""
    return isinstance(doc, dict) and "context" in doc and "benchmarks" in doc


def check_results(doc: object, p: Path, validate: bool = True) -> dict:
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_NAME:
        hint = " (it is a Google Benchmark file)" if is_gbench(doc) else ""
        raise ResultsError(f'{p}: not an optbench results file (no "schema": "{SCHEMA_NAME}"){hint}')
    if doc.get("schema_version") not in READABLE or isinstance(doc.get("schema_version"), bool):
        readable = ", ".join(map(str, READABLE))
        raise ResultsError(f"{p}: schema version {doc.get('schema_version')!r}; this report reads versions {readable}")
    if (bad := non_finite_at(doc)) is not None:
        raise ResultsError(f"{p}: not a finite number at {bad}: results files hold finite numbers only")
    if validate:
        errors = schema_errors(doc)
        if errors:
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            raise ResultsError(f"{p}: does not match the results schema: {errors[0]}{more}")
    doc["_path"] = str(p)
    return upgrade(doc)


def load_results(path: str | Path, validate: bool = True) -> dict:
    """Read a results file; raise ResultsError with a one-line reason if it is not
    an optbench results file of a version this report understands."""
    p = Path(path)
    return check_results(read_json(p), p, validate)


def expand_paths(paths: list[str | Path]) -> list[Path]:
    """Files as given; a directory stands for the *.json (and *.json.gz) files directly inside it."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(q for pat in ("*.json", "*.json.gz") for q in p.glob(pat) if q.is_file())
            if not found:
                raise ResultsError(f"{p}: directory holds no .json files")
            out.extend(found)
        elif not p.exists():
            raise ResultsError(f"{p}: no such file")
        else:
            out.append(p)
    if not out:
        raise ResultsError("no input files given")
    return out


@dataclass
class Input:
    kind: str  # "optbench" or "gbench"
    path: Path
    doc: dict


def load_inputs(paths: list[str | Path], allow_gbench: bool = False) -> list[Input]:
    """Expand directories and load every file; Google Benchmark files only where allowed."""
    out = []
    for p in expand_paths(paths):
        doc = read_json(p)
        if is_gbench(doc) and not (isinstance(doc, dict) and doc.get("schema") == SCHEMA_NAME):
            if not allow_gbench:
                raise ResultsError(f"{p}: a Google Benchmark file; only `render` reads those")
            from .gbench import check_gbench

            out.append(Input("gbench", p, check_gbench(doc, p)))
        else:
            out.append(Input("optbench", p, check_results(doc, p)))
    return out
