#!/usr/bin/env bash
# scripts/bisect finds a planted slowdown at its commit. In a scratch repository
# made from a copy of the tree (as a fresh clone has it): A, then B (a docs
# change), C (a 60 ms sleep in each step of host_sync's no_item variant alone, so
# that its speedup drops; several times the 14-30 ms step, since on a CPU the
# gate's time floors are 140% and a 20 ms sleep sat at the floor on a noisy VM),
# D (a docs change). `scripts/bisect A D -- run host_sync` must name C, and print the
# gate's table between A's run and C's; `scripts/bisect A B` must find nothing to
# bisect (exit 1). A commit one run cannot place is run again (OPTBENCH_BISECT_TRIES,
# default 3): on CI, beside other tests, one quick run of B once placed it on
# neither side and the skip left C unnamed. ccache makes the first build mostly a
# relink; the later ones rebuild one file.
#   bisect.sh SRC
set -u
PY=${OPTBENCH_PYTHON:?the configured Python}
SRC=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$SRC/tests/copy_tree.sh" "$SRC" "$tmp/repo" || fail "copying the source tree"
cd "$tmp/repo" || fail "no copy"
g() { git -c user.name=t -c user.email=t@t -c commit.gpgsign=false "$@" >/dev/null || fail "git $*"; }
g -c init.defaultBranch=main init -q
g add -A && g commit -q -m A
echo "scratch B" >>docs/layout.md && g commit -q -am B
grep -q 'void step() override { run_unit(\*train_, nullptr); }' workloads/host_sync.cpp || fail "the planting point moved"
sed -i -e '0,/^#include/s//#include <chrono>\n#include <thread>\n#include/' \
  -e 's/void step() override { run_unit(\*train_, nullptr); }/void step() override { if (every_ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(60)); run_unit(*train_, nullptr); }/' \
  workloads/host_sync.cpp
g commit -q -am C
echo "scratch D" >>docs/layout.md && g commit -q -am D
c=$(git rev-parse --short HEAD~1)

# Bad input: one line, exit 2, nothing built.
for bad_args in "HEAD~3 HEAD" "nosuch HEAD --" "HEAD HEAD~3 --" "HEAD HEAD --"; do
  # shellcheck disable=SC2086
  out=$(scripts/bisect $bad_args --filter host_sync 2>&1); rc=$?
  [ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] || fail "scripts/bisect $bad_args: exit $rc, expected 2 and one line: $out"
done
out=$(OPTBENCH_BISECT_TRIES=0 scripts/bisect HEAD~3 HEAD -- --filter host_sync 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q OPTBENCH_BISECT_TRIES ||
  fail "OPTBENCH_BISECT_TRIES=0: exit $rc, expected 2 and one line naming it: $out"
scripts/bisect --help | grep -q "^scripts/bisect GOOD BAD -- RUN ARGS" || fail "scripts/bisect --help"

export OPTBENCH_BISECT_DIR=$tmp/scratch  # one worktree and build folder for both bisects
args=(-- --filter host_sync --quick --device cpu)
out=$(OPTBENCH_OUT_DIR=$tmp/ab scripts/bisect HEAD~3 HEAD~2 "${args[@]}" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "A..B (no slowdown): exit $rc, expected 1: $out"
echo "$out" | grep -q "no regression from GOOD to BAD: nothing to bisect" || fail "A..B: $out"

t0=$(date +%s)
out=$(OPTBENCH_OUT_DIR=$tmp/ad scripts/bisect HEAD~3 HEAD "${args[@]}" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "A..D: exit $rc: $out"
echo "$out" | grep -q "^first bad commit: $c C$" || fail "A..D: the first bad commit is not C ($c): $out"
# The slowdown as the gate reads it: no_item's time slower, or its speedup lower (a
# quick run's one-process speedup may read 'cannot tell' on a noisy VM).
echo "$out" | grep -qE "REGRESSION: host_sync/[^ ]+(/| speedup )no_item( vs item_every_step)? (SLOWER|LOWER)" ||
  fail "A..D: the gate's table does not show the slowdown: $out"
ls "$tmp/ad"/*.json >/dev/null 2>&1 || fail "A..D: no run kept"
git status --porcelain | grep -q . && fail "the checkout was changed: $(git status --porcelain)"
echo "$out" | grep "REGRESSION: host_sync"
echo "bisect: ok (A..D in $(( $(date +%s) - t0 )) s, C named)"
