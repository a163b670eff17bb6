#!/usr/bin/env bash
# Test runner of petscblockgpu: runs every case declared in tests/cases/*.sh and prints one
# PASS/FAIL/SKIP line per case, then "N passed, N failed, N skipped".
#
# Usage: tests/run.sh [REGEX]    (only the cases whose name matches REGEX)
# Environment: PBG_ROOT (tree holding lib/, tests/bin, examples/bin, bench/bin; default: this checkout),
#              MPIEXEC (default mpiexec), PBG_TEST_TIMEOUT (seconds per case, default 300, 600 with PBG_JOBS > 1),
#              PBG_LOGDIR (default $PBG_ROOT/tests/logs), PBG_FORCE_NO_GPU=1 (treat as a machine without GPU),
#              PBG_GPU_ONLY=1 (run only the --gpu cases), PBG_SHARD=I/N (only every N-th selected case from the I-th,
#              I = 0..N-1: N runners in parallel share the cases), PBG_WRAP (a command put before every test program,
#              e.g. "compute-sanitizer --tool memcheck --error-exitcode 99"; under MPI it wraps each rank),
#              PBG_JOBS=N (N runners of this script at once, default 1: each walks the case list and takes the next case
#              no other runner took, so a long case does not hold the others back; the results are printed in the
#              order of the case list once all runners are done), PBG_LONG (regex of cases the runners take before the
#              short ones, default '^(vg_|emu_)'). The runners take the longest cases first, so that no long case
#              starts last: those that took 40 s or more, then 10 s or more (or match PBG_LONG), then 3 s or more, then
#              the rest, each in the order of the list. A case's expected time is its time in the last run
#              ($PBG_LOGDIR/durations.tsv), else in tests/durations.ref (the cases of 3 s or more in a full run on the
#              2-core machine: a fresh clone has no last run).
# Every case's log ends with its wall time and CPU time ("# wall time S s, CPU C s": user + system of its processes,
# which other load on the machine inflates far less than the wall time); $PBG_LOGDIR/durations.tsv holds
# "NAME<tab>SECONDS<tab>CPU-SECONDS" per case run, and the summary names the slowest cases and the sums of both.
#
# A case file declares cases with
#   tcase NAME [-n NP] [--gpu] [--fail] [--grep REGEX]... [--nogrep REGEX]... -- PROGRAM ARGS...
# (--gpu, --fail, --grep and --nogrep may also stand among the ARGS: they are taken out before the run)
# which passes when PROGRAM (run under MPI when NP > 1) exits 0 (non-zero with --fail) and its output
# (stdout+stderr) matches every --grep and no --nogrep extended regex; and with
#   tcheck NAME [--gpu] -- FUNCTION ARGS...
# which passes when the shell FUNCTION returns 0, and is skipped when it returns 77 (the last line of its output
# says why). Functions may call `pbg_run NP PROGRAM ARGS...`, which prints the program's output and returns its
# status. --gpu cases print SKIP where no CUDA device is usable.
# Files a case file writes go to $PBG_WORKDIR, private to the runner (every runner sources every case file).
set -u
PBG_ROOT=${PBG_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
MPIEXEC=${MPIEXEC:-mpiexec}
PBG_JOBS=${PBG_JOBS:-1}
# a case's time limit finds hangs: with runners side by side (and other load) the long cases take longer
PBG_TEST_TIMEOUT=${PBG_TEST_TIMEOUT:-$((PBG_JOBS > 1 ? 600 : 300))}
PBG_LOGDIR=${PBG_LOGDIR:-$PBG_ROOT/tests/logs}
PBG_LIB=$PBG_ROOT/lib/libpetscblockgpu.so
filter=${1:-}
export PBG_ROOT PBG_LIB
mkdir -p "$PBG_LOGDIR"
PBG_WORKDIR=$PBG_LOGDIR${PBG_RUNNER:+/work.$PBG_RUNNER}
mkdir -p "$PBG_WORKDIR"

pbg_have_gpu=0
if [ "${PBG_FORCE_NO_GPU:-0}" != 1 ] && "$PBG_ROOT/tests/bin/gpu_probe" > /dev/null 2>&1; then pbg_have_gpu=1; fi
pbg_durations=$PBG_LOGDIR/durations.tsv

pbg_usec() { echo "${EPOCHREALTIME/./}"; }
# The CPU time (user + system, microseconds) of the processes this shell has waited for, into pbg_cpu; `times` runs in
# this shell (in a subshell it would see only the subshell's children)
pbg_cpu_now() {
  local l
  times > "$PBG_WORKDIR/.times"
  { read -r l; read -r l; } < "$PBG_WORKDIR/.times"
  [[ $l =~ ^([0-9]+)m([0-9]+)\.([0-9]+)s\ ([0-9]+)m([0-9]+)\.([0-9]+)s$ ]] || { pbg_cpu=0; return; }
  local f1=${BASH_REMATCH[3]}000000 f2=${BASH_REMATCH[6]}000000
  pbg_cpu=$(((10#${BASH_REMATCH[1]} * 60 + 10#${BASH_REMATCH[2]} + 10#${BASH_REMATCH[4]} * 60 + 10#${BASH_REMATCH[5]}) * 1000000 + 10#${f1:0:6} + 10#${f2:0:6}))
}
pbg_seconds() { # MICROSECONDS -> seconds with one decimal
  printf '%d.%d' $(($1 / 1000000)) $(($1 / 100000 % 10))
}

# The slowest cases and the sum of the case times, from durations.tsv
pbg_time_summary() { # WALL-MICROSECONDS [CPU-MICROSECONDS of the whole run]
  [ -s "$pbg_durations" ] || return 0
  echo "slowest cases (s): $(sort -t$'\t' -k2,2 -rn "$pbg_durations" | head -n 10 | awk -F'\t' '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2}')"
  echo "time: $(pbg_seconds "$1") s wall, $(awk -F'\t' '{s += $2} END {printf "%.1f", s}' "$pbg_durations") s summed over $(wc -l < "$pbg_durations") cases, CPU $(awk -F'\t' '{s += $3} END {printf "%.1f", s}' "$pbg_durations") s summed${2:+, $(pbg_seconds "$2") s for the whole run}"
}

# PBG_JOBS > 1: this process only starts the runners, then merges their results in the order of the case list
if [ "$PBG_JOBS" -gt 1 ] && [ -z "${PBG_RUNNER:-}" ]; then
  pbg_t0=$(pbg_usec)
  echo "petscblockgpu tests: root $PBG_ROOT, GPU $([ $pbg_have_gpu = 1 ] && echo present || echo absent), $PBG_JOBS runners"
  rm -rf "$PBG_LOGDIR"/work.* "$PBG_LOGDIR"/runner.*
  pbg_claims=$(mktemp -d "$PBG_LOGDIR/claims.XXXXXX")
  # the expected times: the last run's, else the reference's (tests/durations.ref)
  cat "$pbg_durations" "$PBG_ROOT/tests/durations.ref" 2> /dev/null | awk -F'\t' '!($1 in t) {t[$1] = $2} END {for (c in t) print c "\t" t[c]}' > "$pbg_claims/expected"
  : > "$pbg_durations"
  pbg_pids=()
  trap 'kill "${pbg_pids[@]}" 2> /dev/null; exit 130' INT TERM
  for ((i = 0; i < PBG_JOBS; i++)); do
    # a runner without a GPU where this one found none: every runner skips the same cases
    PBG_RUNNER=$i PBG_CLAIMS=$pbg_claims PBG_FORCE_NO_GPU=$([ $pbg_have_gpu = 1 ] && echo "${PBG_FORCE_NO_GPU:-0}" || echo 1) \
      bash "$0" "$filter" > "$PBG_LOGDIR/runner.$i.out" 2> "$PBG_LOGDIR/runner.$i.err" &
    pbg_pids+=($!)
  done
  pbg_broken=0
  for ((i = 0; i < PBG_JOBS; i++)); do
    wait "${pbg_pids[$i]}"
    pbg_st=$?
    # a runner exits 0 or 1 (a case failed) after its last case, which it marks; anything else is the runner's own failure
    if [ $pbg_st -gt 1 ] || ! grep -q '^# runner done$' "$PBG_LOGDIR/runner.$i.out"; then
      pbg_broken=1
      echo "runner $i stopped early (exit status $pbg_st):" >&2
      sed 's/^/  | /' "$PBG_LOGDIR/runner.$i.err" >&2
    fi
  done
  rm -rf "$pbg_claims"
  # result lines carry the case's position in the list (a FAIL's log tail carries its case's): a stable sort keeps each case's lines together
  pbg_results=$(cat "$PBG_LOGDIR"/runner.*.out | grep -E '^[0-9]+ ' | sort -s -k1,1n | cut -d' ' -f2-)
  [ -z "$pbg_results" ] || echo "$pbg_results"
  PBG_WORKDIR=$PBG_LOGDIR pbg_cpu_now # the runners' CPU, with everything they ran
  pbg_time_summary $(($(pbg_usec) - pbg_t0)) "$pbg_cpu"
  npass=$(grep -c '^PASS ' <<< "$pbg_results")
  nfail=$(grep -c '^FAIL ' <<< "$pbg_results")
  nskip=$(grep -c '^SKIP ' <<< "$pbg_results")
  [ $pbg_broken = 0 ] || nfail=$((nfail + 1)) # counted as a failure so that the totals cannot look clean
  echo "$npass passed, $nfail failed, $nskip skipped"
  [ $nfail = 0 ]
  exit
fi

npass=0 nfail=0 nskip=0
declare -A pbg_seen=()

pbg_resolve() { # program name -> path
  local p
  case "$1" in /*) echo "$1"; return ;; esac
  for p in "$PBG_ROOT/tests/bin/$1" "$PBG_ROOT/examples/bin/$1" "$PBG_ROOT/bench/bin/$1"; do
    [ -x "$p" ] && { echo "$p"; return; }
  done
  echo "$1"
}

pbg_run() { # NP PROGRAM ARGS...
  local np=$1 prog
  prog=$(pbg_resolve "$2"); shift 2
  local wrap=()
  [ -n "${PBG_WRAP:-}" ] && read -r -a wrap <<< "$PBG_WRAP"
  if [ "$np" -gt 1 ]; then
    timeout "$PBG_TEST_TIMEOUT" "$MPIEXEC" -n "$np" "${wrap[@]+"${wrap[@]}"}" "$prog" "$@" 2>&1
  else
    timeout "$PBG_TEST_TIMEOUT" "${wrap[@]+"${wrap[@]}"}" "$prog" "$@" 2>&1
  fi
}

pbg_report() { # NAME STATUS [why]
  # a runner tags its lines with the case's position in the list, for the merge
  local tag=${PBG_RUNNER:+$pbg_selected }
  case "$2" in
    PASS) npass=$((npass + 1)); printf '%sPASS  %s\n' "$tag" "$1" ;;
    SKIP) nskip=$((nskip + 1)); printf '%sSKIP  %s (%s)\n' "$tag" "$1" "$3" ;;
    FAIL) nfail=$((nfail + 1)); printf '%sFAIL  %s (%s; log %s)\n' "$tag" "$1" "$3" "$PBG_LOGDIR/$1.log"
          tail -n 15 "$PBG_LOGDIR/$1.log" | sed "s/^/$tag      | /" ;;
  esac
}

pbg_start() { # the case's start: wall clock into pbg_t0case, CPU into pbg_c0case
  pbg_cpu_now
  pbg_c0case=$pbg_cpu
  pbg_t0case=$(pbg_usec)
}
pbg_timed() { # NAME LOG: the case's wall and CPU time (since pbg_start) into its log and durations.tsv
  local s c
  s=$(pbg_seconds $(($(pbg_usec) - pbg_t0case)))
  pbg_cpu_now
  c=$(pbg_seconds $((pbg_cpu - pbg_c0case)))
  echo "# wall time $s s, CPU $c s" >> "$2"
  printf '%s\t%s\t%s\n' "$1" "$s" "$c" >> "$pbg_durations"
}

pbg_selected=0
pbg_begin() { # NAME -> 0 if the case is to run
  [ -z "${pbg_seen[$1]:-}" ] || { echo "duplicate test case name $1" >&2; exit 2; }
  pbg_seen[$1]=1
  [ -z "$filter" ] || [[ "$1" =~ $filter ]] || return 1
  pbg_selected=$((pbg_selected + 1))
  [ -z "${PBG_SHARD:-}" ] || [ $(((pbg_selected - 1) % ${PBG_SHARD#*/})) = "${PBG_SHARD%/*}" ] || return 1
  # a runner's pass for the cases expected to take pbg_pass seconds or more (0: all the rest)
  [ "$pbg_pass" = 0 ] || [ "${pbg_expected[$1]:-0}" -ge "$pbg_pass" ] || { [ "$pbg_pass" = 10 ] && [[ "$1" =~ $PBG_LONG ]]; } || return 1
  # a runner takes the case unless another took it first (mkdir is atomic)
  [ -z "${PBG_RUNNER:-}" ] || mkdir "$PBG_CLAIMS/$pbg_selected" 2> /dev/null
}

# The first --grep that LOG lacks or --nogrep that it has (the caller's pbg_greps and pbg_nogreps), else nothing
pbg_output_why() { # LOG
  local g
  for g in "${pbg_greps[@]+"${pbg_greps[@]}"}"; do
    grep -qE -- "$g" "$1" || { echo "output lacks /$g/"; return; }
  done
  for g in "${pbg_nogreps[@]+"${pbg_nogreps[@]}"}"; do
    ! grep -qE -- "$g" "$1" || { echo "output has /$g/"; return; }
  done
}

tcase() {
  local name=$1 np=1 gpu=0 wantfail=0 pbg_greps=() pbg_nogreps=() log status why=""
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      -n) np=$2; shift 2 ;;
      --gpu) gpu=1; shift ;;
      --fail) wantfail=1; shift ;;
      --grep) pbg_greps+=("$2"); shift 2 ;;
      --nogrep) pbg_nogreps+=("$2"); shift 2 ;;
      --) shift; break ;;
      *) echo "tcase $name: unknown option $1" >&2; exit 2 ;;
    esac
  done
  # runner options may also follow the program's arguments (no program here takes --grep/--nogrep/--fail/--gpu)
  local cmd=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --grep) pbg_greps+=("$2"); shift 2 ;;
      --nogrep) pbg_nogreps+=("$2"); shift 2 ;;
      --fail) wantfail=1; shift ;;
      --gpu) gpu=1; shift ;;
      *) cmd+=("$1"); shift ;;
    esac
  done
  set -- "${cmd[@]}"
  pbg_begin "$name" || return 0
  if [ $gpu = 1 ] && [ $pbg_have_gpu = 0 ]; then pbg_report "$name" SKIP "no CUDA device"; return 0; fi
  if [ $gpu = 0 ] && [ "${PBG_GPU_ONLY:-0}" = 1 ]; then return 0; fi
  log=$PBG_LOGDIR/$name.log
  pbg_start
  { echo "# $*  (np=$np)"; pbg_run "$np" "$@"; } > "$log"
  status=$?
  pbg_timed "$name" "$log"
  if [ "$status" = 124 ]; then why="timed out after ${PBG_TEST_TIMEOUT}s"
  elif [ $wantfail = 0 ] && [ "$status" != 0 ]; then why="exit status $status"
  elif [ $wantfail = 1 ] && [ "$status" = 0 ]; then why="expected a failure, got exit 0"
  fi
  # a crash: a fatal signal, or a process that hydra saw die badly; not SIGKILL or SIGHUP alone, which is how hydra
  # stops the other ranks when several call MPI_Abort() at once (seen as "Hangup (signal 1)" on a loaded 2-core host;
  # the expected error is then still checked by the greps)
  if [ $wantfail = 1 ] && { grep -qE 'Segmentation|core dumped|signal ([02-8]|[1-9][0-9]+)([^0-9]|$)' "$log" \
    || { grep -q 'BAD TERMINATION' "$log" && ! grep -qE '(signal [19]|EXIT CODE: [19])([^0-9]|$)' "$log"; }; }; then
    why="crashed instead of failing cleanly"
  fi
  [ -n "$why" ] || why=$(pbg_output_why "$log")
  if [ -z "$why" ]; then pbg_report "$name" PASS; else pbg_report "$name" FAIL "$why"; fi
}

tcheck() {
  local name=$1 gpu=0 log
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --gpu) gpu=1; shift ;;
      --) shift; break ;;
      *) echo "tcheck $name: unknown option $1" >&2; exit 2 ;;
    esac
  done
  pbg_begin "$name" || return 0
  if [ $gpu = 1 ] && [ $pbg_have_gpu = 0 ]; then pbg_report "$name" SKIP "no CUDA device"; return 0; fi
  if [ $gpu = 0 ] && [ "${PBG_GPU_ONLY:-0}" = 1 ]; then return 0; fi
  log=$PBG_LOGDIR/$name.log
  local status
  pbg_start
  "$@" > "$log" 2>&1
  status=$?
  pbg_timed "$name" "$log"
  case $status in
    0) pbg_report "$name" PASS ;;
    77) pbg_report "$name" SKIP "$(tail -n 2 "$log" | head -n 1)" ;; # the last line is the wall time
    *) pbg_report "$name" FAIL "check $1 returned non-zero" ;;
  esac
}

# A valgrind group: cases run one after the other in ONE process of tests/bin/multirun (tests/multirun/multirun.c)
# under WRAPPER (valgrind), because a process that loads PETSc's CUDA libraries costs about 30 s of CPU under valgrind
# before main(). The group is claimed and run as one unit; each member is reported as a case of its own, and the group
# too (its process's exit status: valgrind's --error-exitcode catches what happens outside the members).
#   tvg_begin GROUP [-n NP] -- WRAPPER...
#   tvg NAME [--grep RE]... [--nogrep RE]... -- PROGRAM ARGS...     (PROGRAM: a program of tests/*.c, expected to succeed)
#   tvg_end
# A member passes when its main() returned 0 with no memcheck error and no new definite leak (multirun counts both
# with valgrind's client requests right after it), and its part of the output matches its greps.
tvg_begin() {
  pbg_grp=$1 pbg_grp_np=1 pbg_grp_names=() pbg_grp_lines=() pbg_grp_greps=() pbg_grp_nogreps=()
  shift
  if [ "${1:-}" = -n ]; then pbg_grp_np=$2; shift 2; fi
  if [ "${1:-}" = -- ]; then shift; fi
  pbg_grp_wrap=("$@")
}
tvg() {
  local name=$1 greps=() nogreps=() cmd=()
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --grep) greps+=("$2"); shift 2 ;;
      --nogrep) nogreps+=("$2"); shift 2 ;;
      --) shift ;;
      *) cmd+=("$1"); shift ;;
    esac
  done
  [ -z "${pbg_seen[$name]:-}" ] || { echo "duplicate test case name $name" >&2; exit 2; }
  pbg_seen[$name]=1
  [ -z "$filter" ] || [[ "$name" =~ $filter ]] || [[ "$pbg_grp" =~ $filter ]] || return 0
  pbg_grp_names+=("$name")
  pbg_grp_lines+=("$name ${cmd[*]}")
  pbg_grp_greps+=("$(printf '%s\n' "${greps[@]+"${greps[@]}"}")")
  pbg_grp_nogreps+=("$(printf '%s\n' "${nogreps[@]+"${nogreps[@]}"}")")
}
tvg_end() {
  local group=$pbg_grp f=$filter
  [ ${#pbg_grp_names[@]} -gt 0 ] || return 0
  filter='' # the members were selected already
  pbg_begin "$group" || { filter=$f; return 0; }
  filter=$f
  [ "${PBG_GPU_ONLY:-0}" != 1 ] || return 0
  local cases=$PBG_WORKDIR/$group.cases log=$PBG_LOGDIR/$group.log status i name mlog end why pbg_greps pbg_nogreps
  printf '%s\n' "${pbg_grp_lines[@]}" > "$cases"
  pbg_start
  { echo "# ${pbg_grp_wrap[*]} multirun $cases  (np=$pbg_grp_np)"; cat "$cases"; pbg_run "$pbg_grp_np" "${pbg_grp_wrap[@]}" "$PBG_ROOT/tests/bin/multirun" "$cases"; } > "$log"
  status=$?
  pbg_timed "$group" "$log"
  for i in "${!pbg_grp_names[@]}"; do
    name=${pbg_grp_names[$i]} mlog=$PBG_LOGDIR/${pbg_grp_names[$i]}.log why=""
    { echo "# part of $group (log $log): ${pbg_grp_lines[$i]}  (np=$pbg_grp_np)"
      awk -v b="#### multirun begin $name" -v e="#### multirun end $name " '$0 == b {on = 1} on {print} index($0, e) == 1 {on = 0}' "$log"; } > "$mlog"
    end=$(grep "^#### multirun end $name " "$mlog")
    if [ -z "$end" ]; then why="the group's process ended before this case did (exit status $status)"
    elif ! [[ "$end" =~ \ status\ 0\ errors\ 0\ leaked\ 0\  ]]; then why="${end#"#### multirun end $name "}"
    fi
    pbg_greps=() pbg_nogreps=()
    [ -z "${pbg_grp_greps[$i]}" ] || mapfile -t pbg_greps <<< "${pbg_grp_greps[$i]}"
    [ -z "${pbg_grp_nogreps[$i]}" ] || mapfile -t pbg_nogreps <<< "${pbg_grp_nogreps[$i]}"
    [ -n "$why" ] || why=$(pbg_output_why "$mlog")
    if [ -z "$why" ]; then pbg_report "$name" PASS; else pbg_report "$name" FAIL "$why"; fi
  done
  if [ "$status" = 0 ]; then pbg_report "$group" PASS
  elif [ "$status" = 124 ]; then pbg_report "$group" FAIL "timed out after ${PBG_TEST_TIMEOUT}s"
  else pbg_report "$group" FAIL "exit status $status"
  fi
}

pbg_t0=$(pbg_usec)
if [ -z "${PBG_RUNNER:-}" ]; then
  echo "petscblockgpu tests: root $PBG_ROOT, GPU $([ $pbg_have_gpu = 1 ] && echo present || echo absent)"
  : > "$pbg_durations"
fi
pbg_source_cases() {
  local f
  for f in "$PBG_ROOT"/tests/cases/*.sh; do
    # shellcheck source=/dev/null
    . "$f"
  done
}
pbg_pass=0
declare -A pbg_expected=()
if [ -n "${PBG_RUNNER:-}" ]; then
  # a runner walks the list four times: the cases expected to take 40 s or more, then 10 s or more (or matching
  # PBG_LONG), then 3 s or more, then the others (the claims keep each case to one run)
  PBG_LONG=${PBG_LONG:-'^(vg_|emu_)'}
  while IFS=$'\t' read -r f s; do [[ $s =~ ^[0-9]+ ]] && pbg_expected[$f]=${BASH_REMATCH[0]}; done < "$PBG_CLAIMS/expected"
  for pbg_pass in 40 10 3; do
    pbg_source_cases
    pbg_selected=0
    pbg_seen=()
  done
  pbg_pass=0
fi
pbg_source_cases
if [ -n "${PBG_RUNNER:-}" ]; then
  echo "# runner done"
else
  pbg_cpu_now
  pbg_time_summary $(($(pbg_usec) - pbg_t0)) "$pbg_cpu"
  echo "$npass passed, $nfail failed, $nskip skipped"
fi
[ $nfail = 0 ]
