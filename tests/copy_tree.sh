#!/usr/bin/env bash
# Copies the source tree as a fresh clone has it (tracked and
# untracked-but-not-ignored files: no build/, no out/, no deps/) into DEST, for
# the tests that build or change a copy (readme_commands.sh, bisect.sh).
#   copy_tree.sh SRC DEST
set -u
SRC=$1 DEST=$2
git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1 || { echo "FAIL: $SRC is not a git checkout"; exit 1; }
mkdir -p "$DEST" || exit 1
(cd "$SRC" && git ls-files -z --cached --others --exclude-standard | xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' _ |
  tar --null -T - -cf -) | tar -C "$DEST" -xf -
