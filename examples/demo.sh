#!/usr/bin/env bash
# The petscblockgpu demo (run by `make demo`): one implicit step of a multi-species reaction-diffusion
# system, assembled as a block matrix, solved twice with IDR(s):
#   1. -pc_type vbjacobi  (petscblockgpu's variable-block Jacobi; must converge)
#   2. -pc_type jacobi    (PETSc's point Jacobi, for comparison)
# then prints the iterations and times of both.
#
# Environment: PBG_ROOT (tree holding examples/bin/demo; default: this checkout),
#              DEMO_ARGS (extra options for both runs, e.g. "-nspecies 6 -da_grid_x 256 -da_grid_y 256"),
#              DEMO_NP (MPI ranks, default 1), MPIEXEC (default mpiexec; used when DEMO_NP > 1).
# Exit status: non-zero when the vbjacobi solve does not converge.
set -euo pipefail
PBG_ROOT=${PBG_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
MPIEXEC=${MPIEXEC:-mpiexec}
DEMO_NP=${DEMO_NP:-1}
demo=$PBG_ROOT/examples/bin/demo
[ -x "$demo" ] || { echo "demo.sh: $demo not found; run 'make examples' first" >&2; exit 1; }
# shellcheck disable=SC2206
extra=(${DEMO_ARGS:-})

run_demo() { # PC -> prints the output of one run, returns its status
  local cmd=("$demo" -ksp_type idr -pc_type "$1" "${extra[@]+"${extra[@]}"}")
  [ "$1" = vbjacobi ] && cmd+=(-check_converged)
  if [ "$DEMO_NP" -gt 1 ]; then cmd=("$MPIEXEC" -n "$DEMO_NP" "${cmd[@]}"); fi
  "${cmd[@]}" 2>&1
}

field() { # LOG LABEL -> first word after the label
  sed -n "s/^  $2  *\([^ ]*\).*/\1/p" "$1" | head -n 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "=== 1/2: IDR(s) + vbjacobi (petscblockgpu) ==="
status=0
run_demo vbjacobi | tee "$tmp/vb.log" || status=$?
echo
echo "=== 2/2: IDR(s) + jacobi (PETSc point Jacobi) ==="
jstatus=0
run_demo jacobi | tee "$tmp/j.log" || jstatus=$?

vb_its=$(field "$tmp/vb.log" "iterations")
vb_reason=$(field "$tmp/vb.log" "converged reason")
vb_setup=$(field "$tmp/vb.log" "setup time")
vb_solve=$(field "$tmp/vb.log" "solve time")
vb_res=$(sed -n 's/.*||b-Ax||\/||b|| = \([^ ]*\).*/\1/p' "$tmp/vb.log" | head -n 1)
j_its=$(field "$tmp/j.log" "iterations")
j_reason=$(field "$tmp/j.log" "converged reason")
j_setup=$(field "$tmp/j.log" "setup time")
j_solve=$(field "$tmp/j.log" "solve time")
j_res=$(sed -n 's/.*||b-Ax||\/||b|| = \([^ ]*\).*/\1/p' "$tmp/j.log" | head -n 1)

echo
echo "=== comparison ==="
printf '  %-10s %10s  %-22s %11s %10s %10s\n' PC iterations reason "rel. resid" "setup [s]" "solve [s]"
printf '  %-10s %10s  %-22s %11s %10s %10s\n' vbjacobi "${vb_its:-?}" "${vb_reason:-?}" "${vb_res:-?}" "${vb_setup:-?}" "${vb_solve:-?}"
printf '  %-10s %10s  %-22s %11s %10s %10s\n' jacobi "${j_its:-?}" "${j_reason:-?}" "${j_res:-?}" "${j_setup:-?}" "${j_solve:-?}"
if [[ "${vb_its:-}" =~ ^[0-9]+$ && "${j_its:-}" =~ ^[0-9]+$ && "$vb_its" -gt 0 && "${vb_reason:-}" == CONVERGED* && "${j_reason:-}" == CONVERGED* ]]; then
  awk -v a="$j_its" -v b="$vb_its" -v ta="${j_solve:-0}" -v tb="${vb_solve:-0}" 'BEGIN {
    printf "  vbjacobi needs %.1fx fewer iterations than jacobi", a / b
    if (tb > 0 && ta > 0) printf "; solve time ratio jacobi/vbjacobi %.2f", ta / tb
    printf "\n" }'
fi
[ "$jstatus" = 0 ] || echo "  (the jacobi run exited with status $jstatus)"

if [ "$status" != 0 ] || [[ "${vb_reason:-}" != CONVERGED* ]]; then
  echo "demo FAILED: the vbjacobi solve did not converge (exit status $status, reason ${vb_reason:-none})" >&2
  exit 1
fi
echo "demo OK: the vbjacobi solve converged"
