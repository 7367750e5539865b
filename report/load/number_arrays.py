"""An array of numbers (a variant's samples: millions, in a large file) checked at once.

jsonschema checks an array item by item (100 s for a file of 3.5 million samples);
results.py's validator asks item_suspects() which items may break the schema's `items`,
found with numpy, and jsonschema checks those only, so its messages stay its own."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# A number's bounds: the keyword, the test that an instance breaks it.
_BOUNDS = {
    "minimum": lambda v, b: v < b,
    "maximum": lambda v, b: v > b,
    "exclusiveMinimum": lambda v, b: v <= b,
    "exclusiveMaximum": lambda v, b: v >= b,
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
            bad |= ~np.isfinite(a)  # a JSON number is finite (results.py's validator)
        elif "integer" in types:
            bad |= ~np.isfinite(a) | (a != np.floor(a))
        else:
            bad[:] = True
    for key, breaks in _BOUNDS.items():
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
