#!/usr/bin/env bash
# Every wait between ranks has a deadline (OPTBENCH_DIST_TIMEOUT, default 300 s;
# 10 s and 3 s here), so a rank that is stopped or gone ends the run with its name:
#  1. rank 0 stopped (SIGSTOP) mid-run under torchrun: its follower gives up
#     naming rank 0, torchrun stops the run (SIGTERM, then SIGKILL for a rank
#     that cannot answer), and rank 0's file stays valid, not complete;
#     rank 1 stopped: rank 0's collective times out, naming rank 1 in its file;
#  2. rank 0 started without its peer (a rank killed before rendezvous): it fails
#     within the deadline naming the missing rank;
#  3. a follower started without rank 0: it fails within the deadline naming
#     rank 0's store.
# Bounds below are the deadline plus generous room for loading LibTorch.
set -u
PY=${OPTBENCH_PYTHON:-python3}  # the interpreter CMake was configured with (tests/CMakeLists.txt)
OPTBENCH=$1; SRC=$2
tmp=$(mktemp -d)
stopped=""
cleanup() { [ -z "$stopped" ] || kill -CONT "$stopped" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
# 10 s where two ranks must meet (a loaded machine may start one seconds after
# the other), 3 s where one is alone.
export OPTBENCH_DIST_TIMEOUT=10
now() { date +%s; }

# Starts data_parallel on 2 ranks under torchrun (the deadlines must end it; the
# test's own `timeout` only turns a hang into a failure), and SIGSTOPs rank $1
# inside rank 0's first case. Sets rc, took, log, f.
launch_and_stop() {
  local victim=$1 launcher pid p
  f="$tmp/stop$victim.json"; log="$tmp/stop$victim.log"
  OMP_NUM_THREADS=1 timeout 240 "$PY" -m torch.distributed.run --no-python --standalone --nproc-per-node 2 \
    "$OPTBENCH" run data_parallel --quick --device cpu --no-progress --out "$f" >"$log" 2>&1 &
  launcher=$!
  pid=""
  for _ in $(seq 1 600); do
    for p in $(pgrep -P "$launcher"; pgrep -P "$(pgrep -P "$launcher" | head -1)"); do
      tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "RANK=$victim" && pid=$p
    done
    [ -n "$pid" ] && [ -f "$f" ] && grep -q '"cases"' "$f" && break
    sleep 0.2
  done
  [ -n "$pid" ] && [ -f "$f" ] || fail "rank 0 never started its experiment: $(cat "$log")"
  sleep 1  # inside rank 0's first case
  kill -STOP "$pid"; stopped=$pid
  local t_stop; t_stop=$(now)
  wait $launcher; rc=$?
  stopped=""
  took=$(( $(now) - t_stop ))
  [ $rc -ne 124 ] || fail "rank $victim stopped: the run hung (ended by the test's own timeout): $(cat "$log")"
  [ $rc -ne 0 ] || fail "rank $victim stopped: torchrun exit 0: $(cat "$log")"
  [ $took -lt 90 ] || fail "rank $victim stopped: took $took s with a 10 s deadline"
  PYTHONPATH="$SRC" "$PY" -m report validate "$f" || fail "rank $victim stopped: rank 0's file is not schema-valid"
}

# 1a. Rank 0 stopped: rank 1 names it and exits; torchrun stops rank 0, whose
# file stays valid and does not call the run complete.
launch_and_stop 0
grep -q "rank 0 .*\(no sign of life\|stopped answering\)" "$log" \
  || fail "rank 0 stopped: the follower did not name it: $(cat "$log")"
"$PY" - "$f" <<'PY' || fail "rank 0 stopped: its file"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] != "complete", d["status"]  # a killed run is not called complete
assert d["experiments"] and d["experiments"][0]["name"] == "data_parallel", d["experiments"]
PY

# 1b. Rank 1 stopped: rank 0's collective times out and its record names rank 1;
# rank 0 completes its file and exits 1.
launch_and_stop 1
[ $rc -eq 1 ] || fail "rank 1 stopped: exit $rc, expected rank 0's 1: $(cat "$log")"
"$PY" - "$f" <<'PY' || fail "rank 1 stopped: rank 0's record"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "complete", d["status"]
assert "no sign of life from rank 1" in json.dumps(d["experiments"]), "rank 1 not named"
PY

# 2. Rank 0 alone: its peer never comes.
port=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
t0=$(now)
out=$(OPTBENCH_DIST_TIMEOUT=3 WORLD_SIZE=2 RANK=0 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port timeout 120 \
      "$OPTBENCH" run data_parallel --quick --device cpu --no-progress --out "$tmp/alone.json" 2>&1); rc=$?
took=$(( $(now) - t0 ))
[ $rc -ne 124 ] || fail "rank 0 alone: hung: $out"
[ $rc -ne 0 ] || fail "rank 0 alone: exit 0: $out"
[ $took -lt 60 ] || fail "rank 0 alone: took $took s with a 3 s deadline"
echo "$out" | grep -q "waiting up to 3 s" || fail "rank 0 alone: did not say it waits: $out"
echo "$out" | grep -q "rank 1 has not joined within 3 s" || fail "rank 0 alone: missing rank not named: $out"

# 3. A follower alone: rank 0 (the store's host) never comes.
t0=$(now)
out=$(OPTBENCH_DIST_TIMEOUT=3 WORLD_SIZE=2 RANK=1 LOCAL_RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port timeout 120 \
      "$OPTBENCH" run data_parallel --quick --device cpu --no-progress --out "$tmp/f.json" 2>&1); rc=$?
took=$(( $(now) - t0 ))
[ $rc -ne 124 ] && [ $rc -ne 0 ] || fail "follower alone: exit $rc: $out"
[ $took -lt 60 ] || fail "follower alone: took $took s with a 3 s deadline"
echo "$out" | grep -q "hosted by rank 0" || fail "follower alone: rank 0 not named: $out"
echo "dist deadlines: ok"
