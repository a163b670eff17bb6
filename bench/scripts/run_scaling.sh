#!/usr/bin/env bash
# Strong scaling of MatMult over 1, 2, 4 (, 8) GPUs of one host, one MPI rank per GPU: bench_scaling on the same
# global matrix for baijksparse and aijcusparse at every rank count up to the visible GPUs; appends the rows to
# CSV and prints each type's speedup over its one-rank time. From the bundle:
#   ./run.sh bash bench/scripts/run_scaling.sh OUT.csv [bench_scaling options, e.g. -grid 64 -bs 4]
# (MPIEXEC and PATH come from run.sh; elsewhere set MPIEXEC and put bench/bin on PATH.)
set -eu
csv=${1:?usage: run_scaling.sh OUT.csv [bench_scaling options]}
shift
ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true)
[ "$ngpu" -ge 1 ] || { echo "run_scaling.sh: no GPU visible (nvidia-smi -L)" >&2; exit 1; }
# baijksparse with each ghost exchange (NCCL device to device; PETSc's VecScatter, staged through the host by the
# bundle's MPI), aijcusparse (PETSc's VecScatter) beside them; one rank: no exchange, one row per type
for np in 1 2 4 8; do
  [ "$np" -le "$ngpu" ] || break
  for cfg in baijksparse-nccl baijksparse-sf aijcusparse; do
    t=${cfg%%-*}
    opts=()
    case $cfg in *-nccl) opts=(-mat_baijksparse_ghost_exchange nccl) ;; *-sf) opts=(-mat_baijksparse_ghost_exchange sf) ;; esac
    [ "$np" = 1 ] && [ "$cfg" != aijcusparse ] && { [ "$cfg" = baijksparse-nccl ] || continue; cfg=baijksparse; }
    "${MPIEXEC:-mpiexec}" -n "$np" bench_scaling -mat_type "$t" -label "$cfg" "${opts[@]}" -o "$csv" "$@"
  done
done

# speedup of each (configuration, grid, bs) over the one-rank row of its type (baijksparse's for both engines)
awk -F, 'NR > 1 { b = $2; sub(/-.*/, "", b); k = $2 SUBSEP $4 SUBSEP $5; t[k, $3] = $7; if ($3 == 1) one[b SUBSEP $4 SUBSEP $5] = $7; keys[k] = b SUBSEP $4 SUBSEP $5; r[$3] }
  END { for (k in keys) for (n in r) if (((k, n) in t) && (keys[k] in one)) {
          split(k, a, SUBSEP); printf "speedup %-16s grid %s^3 bs %s on %s GPU(s): %.2fx\n", a[1], a[2], a[3], n, one[keys[k]] / t[k, n] } }' "$csv" | sort
