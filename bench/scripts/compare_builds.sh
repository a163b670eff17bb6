#!/usr/bin/env bash
# Two builds of petscblockgpu on one GPU in one session: is a refactor behaviour- and speed-neutral (issue 24)?
#   ./run.sh bash bench/scripts/compare_builds.sh OLD_DIR OUTDIR [ROUNDS]
#   bash bench/scripts/compare_builds.sh --summary-only OUTDIR [ROUNDS]   (the summary again from OUTDIR's files)
# OLD_DIR holds the other build's libpetscblockgpu.so* and its bench_bsrmv and bench_vbjacobi (e.g. unpacked from an
# older bundle); the new build is this bundle's. A round runs, with the old build and then with the new one:
#   bench_bsrmv    -patterns 3d27 -bs 2,4,8,16,32 (the product; at bs 1 this pattern stops with a cuSPARSE
#                  CUSPARSE_STATUS_INVALID_VALUE in a baseline, in both builds of session 14: not investigated)
#   bench_vbjacobi -patterns laplace,blockdiag -maxbs 4,8,32, double (setup and apply)
#   snes ex19 512x512, one Newton step, baijksparse + vbjacobi + idrs (KSPSolve time per iteration)
#   bench_invert   -sizes 2,4,8,16,32 -mixed 8,32 (PetscBlockGPUInvertBatched; when OLD_DIR has bench_invert)
# PARTS (default "bsrmv vbjacobi ex19 invert") selects among them.
# ROUNDS rounds (default 2) alternate the builds, so that clock or temperature drift hits both.
# Output: OUTDIR/{old,new}_r{N}_{bsrmv,vbjacobi}.{csv,txt}, OUTDIR/{old,new}_r{N}_ex19.txt, and OUTDIR/summary.txt: per
# row, the median over the rounds of the new build's time over the old one's (1.00 = unchanged); the same in
# OUTDIR/summary.csv, which bench/plots/plot_compare_builds.py draws.
set -u
summary_only=0
if [ "${1:-}" = --summary-only ]; then summary_only=1; shift; set -- none "$@"; fi
old=${1:?usage: compare_builds.sh OLD_DIR OUTDIR [ROUNDS]}
out=${2:?usage: compare_builds.sh OLD_DIR OUTDIR [ROUNDS]}
rounds=${3:-2}
parts=${PARTS:-bsrmv vbjacobi ex19 invert}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Both builds must choose their kernels from the same tuning table: an OLD_DIR without the table beside its lib/ finds none and falls
# back to the built-in defaults (other kernels, another summation order: in sessions 14 and 15 that alone gave ex19 3792
# iterations against 3518, and bench_bsrmv other kernels). The bundle's table of this GPU, for both.
if [ -z "${PETSCBLOCKGPU_TUNING_FILE:-}" ]; then
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -1 | tr -d '. ')
  [ -n "$cc" ] && [ -f "$here/share/petscblockgpu/baijksparse_tuning_sm$cc.txt" ] && export PETSCBLOCKGPU_TUNING_FILE=$here/share/petscblockgpu/baijksparse_tuning_sm$cc.txt
fi
[ $summary_only = 1 ] || old=$(cd "$old" && pwd)
mkdir -p "$out"

run_build() { # BUILD(old|new) ROUND
  local b=$1 r=$2 lib bin libdir
  if [ "$b" = old ]; then libdir=$old bin=$old; else libdir=$here/lib bin=$here/bench/bin; fi
  lib=$libdir/libpetscblockgpu.so
  case " $parts " in *" bsrmv "*)
    LD_LIBRARY_PATH=$libdir:$LD_LIBRARY_PATH "$bin/bench_bsrmv" -patterns 3d27 -bs 2,4,8,16,32 -runs 15 -o "$out/${b}_r${r}_bsrmv.csv" > "$out/${b}_r${r}_bsrmv.txt" 2>&1 ;;
  esac
  case " $parts " in *" vbjacobi "*)
    LD_LIBRARY_PATH=$libdir:$LD_LIBRARY_PATH "$bin/bench_vbjacobi" -patterns laplace,blockdiag -maxbs 4,8,32 -precisions double -detect_maxbs '' \
      -o "$out/${b}_r${r}_vbjacobi.csv" > "$out/${b}_r${r}_vbjacobi.txt" 2>&1 ;;
  esac
  case " $parts " in *" ex19 "*)
    "$here/bench/bin/ex19" -dll_append "$lib" -da_grid_x 512 -da_grid_y 512 -lidvelocity 100 -grashof 1e3 -dm_mat_type baijksparse \
      -dm_vec_type cuda -pc_type vbjacobi -ksp_type idrs -snes_max_it 1 -snes_convergence_test skip -ksp_max_it 20000 \
      -ksp_converged_reason -log_view > "$out/${b}_r${r}_ex19.txt" 2>&1 ;;
  esac
  case " $parts " in *" invert "*)
    if [ -x "$bin/bench_invert" ]; then
      LD_LIBRARY_PATH=$libdir:$LD_LIBRARY_PATH "$bin/bench_invert" -sizes 2,4,8,16,32 -mixed 8,32 -runs 9 -o "$out/${b}_r${r}_invert.csv" > "$out/${b}_r${r}_invert.txt" 2>&1
    else echo "no $bin/bench_invert: the invert part is skipped for the $b build"; fi ;;
  esac
}

for ((r = 1; r <= rounds && !summary_only; r++)); do
  for b in old new; do
    echo "=== round $r, $b build ($(date +%T))"
    run_build $b $r
  done
done

# new/old per row: bsrmv (pattern,bs -> our time), vbjacobi (pattern,maxbs,matrix,pc -> setup, apply), ex19 (time per iteration)
python3 - "$out" "$rounds" > "$out/summary.txt" << 'EOF'
import csv, re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def rows(path, key, cols):
    got = {}
    try:
        with open(path) as f:
            for r in csv.DictReader(f):
                try:
                    got[tuple(r[k] for k in key)] = [float(r[c]) for c in cols]
                except (KeyError, ValueError, TypeError):
                    pass  # a section of other columns (a second header), or a run that failed
    except OSError as e:
        print(f"cannot read {path}: {e}")
    return got
def ex19(path):
    t = its = None
    try:
        lines = open(path, errors="replace").readlines()
    except OSError as e:
        print(f"cannot read {path}: {e}")
        return {}
    for line in lines:
        m = re.search(r"Linear solve converged due to \S+ iterations (\d+)", line)
        if m: its = int(m.group(1))
        if line.startswith("KSPSolve "): t = float(line.split()[3])
    return {("ex19 512x512 idrs+vbjacobi",): [t / its, its]} if t and its else {}
def compare(name, load, labels):
    ratios = {}
    for r in range(1, rounds + 1):
        o, n = load("old", r), load("new", r)
        for k in o:
            if k in n:
                ratios.setdefault(k, []).append([nv / ov if ov > 0 else float("nan") for nv, ov in zip(n[k], o[k])])
    print(f"== {name}: new/old, median over {rounds} rounds ({', '.join(labels)})")
    for k, v in ratios.items():
        med = [statistics.median(x[i] for x in v) for i in range(len(labels))]
        print("  " + " ".join(k).ljust(40) + "  ".join(f"{l} {m:.3f}" for l, m in zip(labels, med)))
        for l, m in zip(labels, med):
            table.writerow([name, " ".join(k), l, f"{m:.4f}"])
table = csv.writer(open(f"{out}/summary.csv", "w", newline=""))
table.writerow(["benchmark", "row", "metric", "new_over_old"])
compare("bench_bsrmv", lambda b, r: rows(f"{out}/{b}_r{r}_bsrmv.csv", ["pattern", "bs"], ["us_ours"]), ["time"])
compare("bench_vbjacobi", lambda b, r: rows(f"{out}/{b}_r{r}_vbjacobi.csv", ["pattern", "maxbs", "matrix", "pc"], ["setup_s", "apply_s"]), ["setup", "apply"])
compare("snes ex19", lambda b, r: ex19(f"{out}/{b}_r{r}_ex19.txt"), ["time/iteration", "iterations"])
compare("bench_invert", lambda b, r: rows(f"{out}/{b}_r{r}_invert.csv", ["batch", "n"], ["us_ours"]), ["time"])
EOF
cat "$out/summary.txt"
