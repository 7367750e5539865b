"""A small structural validator for machines without the jsonschema package.

It walks the same schema file and checks the keywords the results schema uses:
$ref (local), type, const, enum, required, properties, additionalProperties,
items, minItems, minimum, pattern, oneOf/anyOf, if/then/else. It is not a full
JSON Schema implementation; jsonschema is used whenever it is installed."""
from __future__ import annotations

import math
import re

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    # A JSON number is finite: NaN and Infinity (which Python's json reads) are not numbers here.
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
    or (isinstance(v, float) and v.is_integer()),
}


def _resolve(ref: str, root: dict) -> dict:
    if not ref.startswith("#/"):
        raise ValueError(f"unsupported $ref {ref!r}")
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def _walk(v: object, s: dict, path: str, root: dict, errs: list[str]) -> None:
    if not isinstance(s, dict):
        return
    where = path or "(root)"
    if "$ref" in s:
        _walk(v, _resolve(s["$ref"], root), path, root, errs)
    if "type" in s:
        types = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(_TYPES[t](v) for t in types if t in _TYPES):
            errs.append(f"{where}: {v!r:.60} is not of type {' or '.join(types)}")
            return
    if "const" in s and v != s["const"]:
        errs.append(f"{where}: {s['const']!r} was expected")
    if "enum" in s and v not in s["enum"]:
        errs.append(f"{where}: {v!r:.60} is not one of {s['enum']}")
    for key in ("oneOf", "anyOf"):
        if key in s:
            ok = sum(1 for sub in s[key] if not _errors(v, sub, path, root))
            if ok == 0 or (key == "oneOf" and ok > 1):
                errs.append(f"{where}: does not match {'exactly one' if key == 'oneOf' else 'any'} of the allowed forms")
    if "if" in s:
        branch = s.get("then") if not _errors(v, s["if"], path, root) else s.get("else")
        if branch:
            _walk(v, branch, path, root, errs)
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                errs.append(f"{where}: {k!r} is a required property")
        props = s.get("properties", {})
        for k, sub in props.items():
            if k in v:
                _walk(v[k], sub, f"{path}/{k}" if path else k, root, errs)
        extra = s.get("additionalProperties", True)
        for k in v:
            if k in props:
                continue
            if extra is False:
                errs.append(f"{where}: additional property {k!r} is not allowed")
            elif isinstance(extra, dict):
                _walk(v[k], extra, f"{path}/{k}" if path else k, root, errs)
    if isinstance(v, list):
        if "minItems" in s and len(v) < s["minItems"]:
            errs.append(f"{where}: should have at least {s['minItems']} items")
        if isinstance(s.get("items"), dict):
            for i, item in enumerate(v):
                _walk(item, s["items"], f"{path}/{i}" if path else str(i), root, errs)
    if _TYPES["number"](v) and "minimum" in s and v < s["minimum"]:
        errs.append(f"{where}: {v} is less than the minimum of {s['minimum']}")
    if isinstance(v, str) and "pattern" in s and not re.search(s["pattern"], v):
        errs.append(f"{where}: {v!r:.60} does not match {s['pattern']!r}")


def _errors(v: object, s: dict, path: str, root: dict) -> list[str]:
    out: list[str] = []
    _walk(v, s, path, root, out)
    return out


def structural_errors(doc: object, schema: dict) -> list[str]:
    """Violations as 'path: message', in document order (empty when valid)."""
    return _errors(doc, schema, "", schema)
