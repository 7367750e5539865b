"""A small structural validator for machines without the jsonschema package.

It walks the same schema file and checks the keywords the results schema uses:
$ref (local), type, const, enum, required, properties, additionalProperties,
items, minItems, minimum, maximum, exclusiveMinimum, exclusiveMaximum, pattern,
oneOf/anyOf, if/then/else. It is not a full JSON Schema implementation; jsonschema is
used whenever it is installed.

Both validators check an array of numbers (a variant's samples: millions, in a large
file) through item_suspects(): at once, with numpy, and then item by item only where
an item may be wrong, so that the messages stay each validator's own."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    # A JSON number is finite: NaN and Infinity (which Python's json reads) are not numbers here.
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
}


# A number's bounds: the keyword, the test that an instance breaks it, and the message (jsonschema's words).
_BOUNDS = {
    "minimum": (lambda v, b: v < b, "is less than the minimum of"),
    "maximum": (lambda v, b: v > b, "is greater than the maximum of"),
    "exclusiveMinimum": (lambda v, b: v <= b, "is less than or equal to the minimum of"),
    "exclusiveMaximum": (lambda v, b: v >= b, "is greater than or equal to the maximum of"),
}
# What a schema that only types and bounds a number may hold (item_suspects).
_NUMBER_ONLY = {"type", "description", "$ref", *_BOUNDS}


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
            results = [_errors(v, sub, path, root) for sub in s[key]]
            ok = sum(1 for r in results if not r)
            fitting = [r for r, sub in zip(results, s[key]) if r and _type_fits(v, sub, root)]
            if ok == 0 and len(fitting) == 1:  # the one form of its type: what is wrong inside it
                errs.extend(fitting[0])
            elif ok == 0 or (key == "oneOf" and ok > 1):
                which = "exactly one" if key == "oneOf" else "any"
                errs.append(f"{where}: does not match {which} of the allowed forms")
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
            for i in item_suspects(s["items"], v, root):
                _walk(v[i], s["items"], f"{path}/{i}" if path else str(i), root, errs)
    if _TYPES["number"](v):
        errs.extend(
            f"{where}: {v!r} {words} {s[key]!r}"
            for key, (breaks, words) in _BOUNDS.items()
            if key in s and breaks(v, s[key])
        )
    if isinstance(v, str) and "pattern" in s and not re.search(s["pattern"], v):
        errs.append(f"{where}: {v!r:.60} does not match {s['pattern']!r}")


def _type_fits(v: object, s: dict, root: dict) -> bool:
    """v is of the type the schema s (through its $ref) names, or s names none."""
    while isinstance(s, dict) and "type" not in s and "$ref" in s:
        s = _resolve(s["$ref"], root)
    if not isinstance(s, dict) or "type" not in s:
        return True
    types = s["type"] if isinstance(s["type"], list) else [s["type"]]
    return any(_TYPES[t](v) for t in types if t in _TYPES)


def _number_rules(s: object, root: dict) -> list[dict] | None:
    """s and the schemas it $refs, which an item must all match, when each only types and
    bounds a number; None when one says more (then each item is checked whole)."""
    rules = []
    while isinstance(s, dict) and set(s) <= _NUMBER_ONLY and len(rules) < 16:
        rules.append(s)
        if "$ref" not in s:
            return rules
        s = _resolve(s["$ref"], root)
    return None


def _breaks(a: np.ndarray, rule: dict) -> np.ndarray:
    """Which of the numbers a (finite or not) may break one rule (_number_rules)."""
    bad = np.zeros(len(a), dtype=bool)
    if "type" in rule:
        types = rule["type"] if isinstance(rule["type"], list) else [rule["type"]]
        if "number" in types:
            bad |= ~np.isfinite(a)  # a JSON number is finite (_TYPES)
        elif "integer" in types:
            bad |= ~np.isfinite(a) | (a != np.floor(a))
        else:
            bad[:] = True
    for key, (breaks, _) in _BOUNDS.items():
        if key in rule:
            bad |= breaks(a, rule[key])
    return bad


def item_suspects(items: dict, v: Sequence, root: dict) -> Sequence[int]:
    """Indices of the items of the array v that may not match the schema `items`: all of
    them, unless `items` only types and bounds a number, when it is only the items that
    are no int or float (bool is neither), or break a bound, found at once with numpy.
    Every other item certainly matches; the validators check the suspects one by one."""
    rules = _number_rules(items, root)
    if rules is None or not v:
        return range(len(v))
    numbers = set(map(type, v)) <= {int, float}
    is_num = (
        np.ones(len(v), dtype=bool)
        if numbers
        else np.fromiter((type(x) in (int, float) for x in v), dtype=bool, count=len(v))
    )
    try:
        a = np.fromiter(v if numbers else (x if ok else 0.0 for x, ok in zip(v, is_num)), dtype=float, count=len(v))
    except OverflowError:  # an integer beyond a double: each item is checked
        return range(len(v))
    bad = ~is_num
    for rule in rules:
        bad |= _breaks(a, rule)
    return np.flatnonzero(bad).tolist()


def _errors(v: object, s: dict, path: str, root: dict) -> list[str]:
    out: list[str] = []
    _walk(v, s, path, root, out)
    return out


def structural_errors(doc: object, schema: dict) -> list[str]:
    """Violations as 'path: message', in document order (empty when valid)."""
    return _errors(doc, schema, "", schema)
