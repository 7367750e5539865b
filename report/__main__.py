"""python3 -m report {validate,...} -- see --help."""
from __future__ import annotations

import argparse
import sys

from .results import ResultsError, load_results, schema_errors


def cmd_validate(args: argparse.Namespace) -> int:
    bad = 0
    for path in args.files:
        try:
            load_results(path)
            print(f"{path}: valid")
        except ResultsError as e:
            print(f"error: {e}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="optbench report", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="check results files against the JSON schema")
    v.add_argument("files", nargs="+")
    v.set_defaults(func=cmd_validate)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
