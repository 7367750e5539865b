# run_and_render OPTBENCH OUTDIR [optbench run arguments...]: scripts/run's last
# step, apart so that a test can give it a build of its own. Runs the suite into
# OUTDIR/results.json and renders the report beside it, printing the four paths
# on stdout. Exit status: optbench run's; 1 when the report cannot be rendered
# after a run that passed.
#
# SIGINT or SIGTERM (a CI job's timeout signals the process group): optbench
# stops as it does alone (the case in flight interrupted, the file closed,
# exit 130), and the report of what it kept is still rendered, without plots, so
# that it is done within the few seconds a runner leaves before SIGKILL. A signal
# during that rendering ends it. Sourced after common.sh (log).
run_and_render() {
  local optbench=$1 outdir=$2 results rc stopped=0 plots=()
  shift 2
  results="$outdir/results.json"
  set +e
  # Bash runs the trap once optbench, which got the signal too, has exited.
  trap 'stopped=1' INT TERM
  "$optbench" run --out "$results" "$@"
  rc=$?
  trap - INT TERM
  [ -f "$results" ] || return "$rc"
  if [ "$stopped" = 1 ]; then
    log "stopped: rendering the report of what the run kept (no plots)"
    plots=(--plots none)
  fi
  if ! "$optbench" report render "$results" --out "$outdir" "${plots[@]}" >&2; then
    log "the report could not be rendered (results kept in $results)"
    [ "$rc" = 0 ] && rc=1
    echo "$results"
    return "$rc"
  fi
  log "results and report:"
  printf '%s\n' "$results" "$outdir/report.md" "$outdir/report.html" "$outdir/results.csv"
  return "$rc"
}
