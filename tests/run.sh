#!/usr/bin/env bash
# Test runner of petscblockgpu: runs every case declared in tests/cases/*.sh and prints one
# PASS/FAIL/SKIP line per case, then "N passed, N failed, N skipped".
#
# Usage: tests/run.sh [REGEX]    (only the cases whose name matches REGEX)
# Environment: PBG_ROOT (tree holding lib/, tests/bin, examples/bin, bench/bin; default: this checkout),
#              MPIEXEC (default mpiexec), PBG_TEST_TIMEOUT (seconds per case, default 300),
#              PBG_LOGDIR (default $PBG_ROOT/tests/logs), PBG_FORCE_NO_GPU=1 (treat as a machine without GPU),
#              PBG_GPU_ONLY=1 (run only the --gpu cases), PBG_SHARD=I/N (only every N-th selected case from the I-th,
#              I = 0..N-1: N runners in parallel share the cases), PBG_WRAP (a command put before every test program,
#              e.g. "compute-sanitizer --tool memcheck --error-exitcode 99"; under MPI it wraps each rank).
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
set -u
PBG_ROOT=${PBG_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
MPIEXEC=${MPIEXEC:-mpiexec}
PBG_TEST_TIMEOUT=${PBG_TEST_TIMEOUT:-300}
PBG_LOGDIR=${PBG_LOGDIR:-$PBG_ROOT/tests/logs}
PBG_LIB=$PBG_ROOT/lib/libpetscblockgpu.so
filter=${1:-}
export PBG_ROOT PBG_LIB
mkdir -p "$PBG_LOGDIR"

pbg_have_gpu=0
if [ "${PBG_FORCE_NO_GPU:-0}" != 1 ] && "$PBG_ROOT/tests/bin/gpu_probe" > /dev/null 2>&1; then pbg_have_gpu=1; fi

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
  case "$2" in
    PASS) npass=$((npass + 1)); printf 'PASS  %s\n' "$1" ;;
    SKIP) nskip=$((nskip + 1)); printf 'SKIP  %s (%s)\n' "$1" "$3" ;;
    FAIL) nfail=$((nfail + 1)); printf 'FAIL  %s (%s; log %s)\n' "$1" "$3" "$PBG_LOGDIR/$1.log"
          tail -n 15 "$PBG_LOGDIR/$1.log" | sed 's/^/      | /' ;;
  esac
}

pbg_selected=0
pbg_begin() { # NAME -> 0 if the case is to run
  [ -z "${pbg_seen[$1]:-}" ] || { echo "duplicate test case name $1" >&2; exit 2; }
  pbg_seen[$1]=1
  [ -z "$filter" ] || [[ "$1" =~ $filter ]] || return 1
  pbg_selected=$((pbg_selected + 1))
  [ -z "${PBG_SHARD:-}" ] || [ $(((pbg_selected - 1) % ${PBG_SHARD#*/})) = "${PBG_SHARD%/*}" ]
}

tcase() {
  local name=$1 np=1 gpu=0 wantfail=0 greps=() nogreps=() log status why=""
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      -n) np=$2; shift 2 ;;
      --gpu) gpu=1; shift ;;
      --fail) wantfail=1; shift ;;
      --grep) greps+=("$2"); shift 2 ;;
      --nogrep) nogreps+=("$2"); shift 2 ;;
      --) shift; break ;;
      *) echo "tcase $name: unknown option $1" >&2; exit 2 ;;
    esac
  done
  # runner options may also follow the program's arguments (no program here takes --grep/--nogrep/--fail/--gpu)
  local cmd=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --grep) greps+=("$2"); shift 2 ;;
      --nogrep) nogreps+=("$2"); shift 2 ;;
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
  { echo "# $*  (np=$np)"; pbg_run "$np" "$@"; } > "$log"
  status=$?
  if [ "$status" = 124 ]; then why="timed out after ${PBG_TEST_TIMEOUT}s"
  elif [ $wantfail = 0 ] && [ "$status" != 0 ]; then why="exit status $status"
  elif [ $wantfail = 1 ] && [ "$status" = 0 ]; then why="expected a failure, got exit 0"
  fi
  if [ $wantfail = 1 ] && grep -qE 'Segmentation|signal [0-9]+|core dumped|BAD TERMINATION' "$log"; then why="crashed instead of failing cleanly"; fi
  local g
  for g in "${greps[@]+"${greps[@]}"}"; do
    [ -n "$why" ] || grep -qE -- "$g" "$log" || why="output lacks /$g/"
  done
  for g in "${nogreps[@]+"${nogreps[@]}"}"; do
    [ -n "$why" ] || ! grep -qE -- "$g" "$log" || why="output has /$g/"
  done
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
  "$@" > "$log" 2>&1
  case $? in
    0) pbg_report "$name" PASS ;;
    77) pbg_report "$name" SKIP "$(tail -n 1 "$log")" ;;
    *) pbg_report "$name" FAIL "check $1 returned non-zero" ;;
  esac
}

echo "petscblockgpu tests: root $PBG_ROOT, GPU $([ $pbg_have_gpu = 1 ] && echo present || echo absent)"
for f in "$PBG_ROOT"/tests/cases/*.sh; do
  # shellcheck source=/dev/null
  . "$f"
done
echo "$npass passed, $nfail failed, $nskip skipped"
[ $nfail = 0 ]
