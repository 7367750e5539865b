#!/usr/bin/env bash
# On a GPU machine: a quick CUDA run of every experiment is schema-valid and
# every comparison verifies.
set -u
OPTBENCH=$1; SRC=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$OPTBENCH" run --quick --device cuda --out "$tmp/r.json"; rc=$?
PYTHONPATH="$SRC" /usr/bin/python3 -m report validate "$tmp/r.json" || exit 1
[ $rc -eq 0 ] || { echo "FAIL: run exited $rc"; exit 1; }
