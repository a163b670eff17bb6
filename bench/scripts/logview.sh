#!/usr/bin/env bash
# Sourced by the run_*.sh scripts that read PETSc's -log_view output.
#
# logview_time EVENT LOG: the max time of a -log_view event. PETSc prints n/a for the time of an event that launches GPU
# work when -log_view_gpu_time is off (PCSetUp); its share of the run's time (the Global %T column, to 1%) times the
# run's time stands in for it then. Prints nothing when the event is not in the log.
logview_time() {
  awk -v e="$1" '/^Time \(sec\):/ {total = $3} $1 == e && NF > 10 && !done {t = $4; pct = $11; done = 1}
    END {if (!done) exit; if (t == "n/a") printf "%.4e\n", pct / 100.0 * total; else print t}' "$2"
}
