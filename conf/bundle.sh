#!/usr/bin/env bash
# Build the offline bundle of petscblockgpu (run by `make bundle`, after `make all`):
#
#   bundle/petscblockgpu-bundle.tar.xz   ->   petscblockgpu-bundle/
#       run.sh                 entry point: ./run.sh (test suite), ./run.sh PROGRAM ARGS..., see ./run.sh --help
#       lib/                   libpetscblockgpu.so, libpetsc.so*
#       deps/                  the runtime library closure (as ldd lists it) of every program and library
#                              here, less glibc, libstdc++, libgcc_s and the CUDA libraries of the node;
#       deps/ucx/              UCX transport modules that UCX dlopens (found beside libucs: <libdir>/ucx)
#       bin/                   mpiexec.hydra + hydra_pmi_proxy (hydra runs the proxy from its own directory)
#       tests/{run.sh,cases/,bin/}, examples/{demo.sh,bin/}, bench/bin/, share/petscblockgpu/*.txt
#       bench/scripts/*.sh and *.py, bench/plots/*.py; data/suitesparse/ (../shared/matrices/suitesparse/*.mtx.gz, when present)
#       python/                with PBG_BUNDLE_PYTHON_INCLUDE only: petsc4py built for the node's CPython, the petscblockgpu
#                              module, and examples/python/, tests/python/ (the python cases of ./run.sh run them)
#       BUNDLE-INFO.txt        what was bundled, from where
#
# The target machine is a GPU node (Ubuntu 24.04, CUDA 13 in /usr/local/cuda/lib64, no MPI, no BLAS, no
# PETSc, no network): it brings glibc, libstdc++, libgcc_s, the CUDA toolkit libraries and the driver.
#
# Environment: PETSC_DIR, PETSC_ARCH (the PETSc the tree was built with), MPIEXEC (unused: the bundle
# carries its own), PBG_BUNDLE_PYTHON_INCLUDE (a copy of the node's /usr/include holding python3.X/ and, on Ubuntu,
# x86_64-linux-gnu/python3.X/: petsc4py is then compiled for that Python, see conf/build-petsc4py.sh --for-python;
# without it the bundle has no Python part and its python cases skip), PBG_BUNDLE_MAX_MB (size limit, default 60),
# PBG_BUNDLE_VERIFY (default 1: unpack
# the tarball into a temporary directory and check that every program finds its libraries and runs,
# also under MPI with 2 ranks).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
name=petscblockgpu-bundle
outdir=$root/bundle
stage=$outdir/$name
tarball=$outdir/$name.tar.xz
max_mb=${PBG_BUNDLE_MAX_MB:-60}
verify=${PBG_BUNDLE_VERIFY:-1}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

say() { printf '[bundle] %s\n' "$*"; }
die() { printf '[bundle] ERROR: %s\n' "$*" >&2; exit 1; }

# Libraries that must come from the node, never from the bundle (matched on the soname).
#  - glibc, and the GCC runtime (the node's Ubuntu 24.04 has newer ones that our binaries can use)
#  - the CUDA toolkit (the node's /usr/local/cuda/lib64) and the driver (libcuda, libnvidia-ml)
node_lib_re='^(ld-linux[^/]*|linux-vdso|libc|libm|libmvec|libpthread|libdl|librt|libresolv|libutil|libanl|libnsl|libBrokenLocale|libstdc\+\+|libgcc_s|libcudart|libcublas|libcublasLt|libcusparse|libcusolver|libcusolverMg|libcufft|libcufftw|libcurand|libnvJitLink|libnvrtc|libnvrtc-builtins|libcuda|libnvidia-ml)\.so'
# Of those, the ones that may be missing here (driver libraries; this machine has no GPU driver).
driver_lib_re='^(libcuda|libnvidia-ml)\.so'

# --- inputs -------------------------------------------------------------------------------------------
[ -n "${PETSC_DIR:-}" ] || die "PETSC_DIR is not set (run through 'make bundle')"
petsclib=
for d in "$PETSC_DIR/${PETSC_ARCH:-}/lib" "$PETSC_DIR/lib"; do
  if compgen -G "$d/libpetsc.so*" > /dev/null; then petsclib=$(cd "$d" && pwd); break; fi
done
[ -n "$petsclib" ] || die "no libpetsc.so in $PETSC_DIR/${PETSC_ARCH:-}/lib or $PETSC_DIR/lib (PETSc must be built with shared libraries)"
[ -f "$root/lib/libpetscblockgpu.so" ] || die "$root/lib/libpetscblockgpu.so is missing; run 'make all' first"
for t in mpiexec.hydra hydra_pmi_proxy; do
  [ -x "/usr/bin/$t" ] || die "/usr/bin/$t is missing (Debian package mpich)"
done

is_elf() { [ -f "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

# --- stage the tree -----------------------------------------------------------------------------------
say "staging in $stage"
rm -rf "$stage" "$tarball"
mkdir -p "$stage"/{lib,deps,bin,tests/bin,tests/cases,examples/bin,bench/bin,bench/scripts,bench/plots}

cp -a "$root"/lib/libpetscblockgpu.so* "$stage/lib/" # the library (its SONAME) and the link to it
cp -a "$petsclib"/libpetsc.so* "$stage/lib/"

nprog=0
for dir in tests/bin examples/bin bench/bin; do
  [ -d "$root/$dir" ] || continue
  for f in "$root/$dir"/*; do
    [ -f "$f" ] && [ -x "$f" ] || continue
    cp -p "$f" "$stage/$dir/"
    nprog=$((nprog + 1))
  done
done
[ "$nprog" -gt 0 ] || die "no programs in tests/bin, examples/bin, bench/bin; run 'make all' first"

cp -p "$root/tests/run.sh" "$stage/tests/"
cp -p "$root"/tests/cases/*.sh "$stage/tests/cases/"
[ -f "$root/examples/demo.sh" ] && cp -p "$root/examples/demo.sh" "$stage/examples/"
mkdir -p "$stage/share/petscblockgpu" # the tuning tables, beside lib/ as in the tree
compgen -G "$root/share/petscblockgpu/*.txt" > /dev/null && cp -p "$root"/share/petscblockgpu/*.txt "$stage/share/petscblockgpu/"
# the scripts find the root two levels up (bench/scripts/) and the programs in bench/bin, as in the tree
compgen -G "$root/bench/scripts/*.sh" > /dev/null && cp -p "$root"/bench/scripts/*.sh "$stage/bench/scripts/"
compgen -G "$root/bench/scripts/*.py" > /dev/null && cp -p "$root"/bench/scripts/*.py "$stage/bench/scripts/" # tutorials_summary.py
for d in tests/data examples/data bench/data; do # data that cases may read, if any
  [ -d "$root/$d" ] && mkdir -p "$stage/$d" && cp -a "$root/$d/." "$stage/$d/"
done
compgen -G "$root/bench/plots/*.py" > /dev/null && cp -p "$root"/bench/plots/*.py "$stage/bench/plots/" # plot_solve.py, and the plot run_tutorials.sh draws
# the SuiteSparse matrices of the block-Jacobi paper's Table 1 (bench_solve -suitesparse_dir data/suitesparse), when
# this machine has them; the product never needs them
ssdir=$root/../shared/matrices/suitesparse
if compgen -G "$ssdir/*.mtx.gz" > /dev/null; then
  mkdir -p "$stage/data/suitesparse"
  cp -p "$ssdir"/*.mtx.gz "$stage/data/suitesparse/"
  [ -f "$ssdir/README.md" ] && cp -p "$ssdir/README.md" "$stage/data/suitesparse/"
  say "SuiteSparse matrices: $(for f in "$stage"/data/suitesparse/*.mtx.gz; do printf '%s ' "$(basename "$f")"; done)"
fi
cp -p /usr/bin/mpiexec.hydra /usr/bin/hydra_pmi_proxy "$stage/bin/"
ln -s mpiexec.hydra "$stage/bin/mpiexec"

# petsc4py for the node's Python, the petscblockgpu module and the Python examples and tests (optional)
if [ -n "${PBG_BUNDLE_PYTHON_INCLUDE:-}" ]; then
  PETSC_DIR=$PETSC_DIR PETSC_ARCH=${PETSC_ARCH:-} bash "$root/conf/build-petsc4py.sh" --for-python "$PBG_BUNDLE_PYTHON_INCLUDE" "$stage/python" \
    || die "petsc4py for the Python of $PBG_BUNDLE_PYTHON_INCLUDE (conf/build-petsc4py.sh --for-python)"
  cp -a "$root/python/petscblockgpu" "$stage/python/"
  mkdir -p "$stage/examples/python" "$stage/tests/python"
  cp -p "$root"/examples/python/*.py "$stage/examples/python/"
  cp -p "$root"/tests/python/*.py "$stage/tests/python/"
  find "$stage/python" -name __pycache__ -prune -exec rm -rf {} +
  say "petsc4py for CPython $(sed 's/cp\(.\)\(.*\)/\1.\2/' "$stage/python/petsc4py/PBG-PYTHON-TAG") in python/"
fi

# --- the runtime library closure ----------------------------------------------------------------------
elfs=()
for f in "$stage"/lib/*.so* "$stage"/bin/mpiexec.hydra "$stage"/bin/hydra_pmi_proxy "$stage"/{tests,examples,bench}/bin/* "$stage"/python/petsc4py/lib/*.so; do
  [ -e "$f" ] || continue
  [ -L "$f" ] && continue
  is_elf "$f" && elfs+=("$f")
done

declare -A copied=() skipped=() missing=()
closure_of() { # ELF -> copies what it needs into deps/
  local line lib path
  while IFS= read -r line; do
    case "$line" in
      *"=> not found"*)
        lib=$(awk '{print $1}' <<< "$line")
        [[ "$lib" =~ $node_lib_re ]] || missing[$lib]="${missing[$lib]:-} $(basename "$1")"
        ;;
      *"=>"*)
        lib=$(awk '{print $1}' <<< "$line")
        path=$(awk '{print $3}' <<< "$line")
        if [[ "$lib" =~ $node_lib_re ]]; then skipped[$lib]=$path; continue; fi
        case "$path" in "$stage"/*|"$petsclib"/*|"$root"/lib/*) continue ;; esac
        case "$(readlink -f "$path")" in "$(readlink -f "$CUDA_HOME")"/*)
          say "warning: $lib comes from the CUDA toolkit ($path) but is not in the list of node libraries; not bundled"
          skipped[$lib]=$path; continue ;;
        esac
        if [ -z "${copied[$lib]:-}" ]; then
          cp -L "$path" "$stage/deps/$lib"
          chmod u+w "$stage/deps/$lib"
          copied[$lib]=$path
        fi
        ;;
    esac
  done < <(LD_LIBRARY_PATH="$stage/lib:$petsclib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$1" 2>/dev/null)
}
for f in "${elfs[@]}"; do closure_of "$f"; done

# Modules that UCX dlopens from <directory of libucs>/ucx (ldd cannot see them). Only those that need no
# library beyond the closure (libuct_cma: cross-memory-attach between the ranks of one node). The
# InfiniBand/RDMA modules are left out on purpose: they would drag in libibverbs/librdmacm without their
# provider plugins, and on a node with HCAs libibverbs would then warn in every process; shared memory
# (built into libuct) is what single-node runs use.
if [ -n "${copied[libucs.so.0]:-}" ]; then
  ucxmod=$(dirname "$(readlink -f "${copied[libucs.so.0]}")")/ucx
  if [ -d "$ucxmod" ]; then
    mkdir -p "$stage/deps/ucx"
    for m in "$ucxmod"/lib*.so.0; do
      [ -e "$m" ] || continue
      extra=$(LD_LIBRARY_PATH="$stage/deps" ldd "$m" 2>/dev/null | awk '$2 == "=>" {print $1}' | while read -r l; do
                [[ "$l" =~ $node_lib_re ]] || [ -e "$stage/deps/$l" ] || echo "$l"; done | tr '\n' ' ')
      if [ -n "$extra" ]; then
        say "UCX module $(basename "$m") not bundled (it would need: $extra)"
        continue
      fi
      cp -L "$m" "$stage/deps/ucx/"
    done
  fi
fi
if [ ${#missing[@]} -gt 0 ]; then
  for lib in "${!missing[@]}"; do say "unresolved: $lib (needed by${missing[$lib]})"; done
  die "some libraries could not be found; fix the build or LD_LIBRARY_PATH"
fi

# --- run.sh ---------------------------------------------------------------------------------------------
cat > "$stage/run.sh" <<'EOF'
#!/usr/bin/env bash
# Entry point of the petscblockgpu bundle. Needs bash and coreutils; brings its own MPI, BLAS and PETSc.
#
#   ./run.sh                      run the test suite (tests/run.sh), prints "N passed, N failed, N skipped"
#   ./run.sh --check [REGEX]      the test suite, only the cases whose name matches REGEX
#   ./run.sh --demo               the demo (examples/demo.sh: IDR + vbjacobi against IDR + jacobi);
#                                 extra demo options in DEMO_ARGS, MPI ranks in DEMO_NP
#   ./run.sh -n NP PROGRAM ARGS   run PROGRAM under the bundled mpiexec with NP ranks
#   ./run.sh PROGRAM ARGS...      run PROGRAM (a name in tests/bin, examples/bin, bench/bin, bin, or any command)
#   ./run.sh --env                print the environment settings (eval "$(./run.sh --env)")
#
# Sets LD_LIBRARY_PATH (bundle lib/ and deps/, then the node's CUDA), PATH (bundle bin/ first),
# MPIEXEC, HYDRA_LAUNCHER=fork (single node), PETSC_OPTIONS="-use_gpu_aware_mpi 0 $PETSC_OPTIONS"
# (the bundled MPICH is not CUDA-aware), PBG_ROOT (this directory).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cuda=""
for d in "${CUDA_HOME:-/usr/local/cuda}/lib64" /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
         /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu/nvidia/current /usr/lib/wsl/lib; do
  [ -d "$d" ] && case ":$cuda:" in *":$d:"*) ;; *) cuda=${cuda:+$cuda:}$d ;; esac
done
# NCCL for baijksparse's ghost exchange (dlopen'ed by the library, 218 MB: not bundled): the node's, from the CUDA
# toolkit or the nvidia-nccl wheel of its Python
for d in "${CUDA_HOME:-/usr/local/cuda}/lib" $(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2> /dev/null); do
  [ -f "$d/libnccl.so.2" ] && { cuda=${cuda:+$cuda:}$d; break; }
done
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0} # NVLink multicast stays off on shared hosts
export PBG_ROOT=$here
export LD_LIBRARY_PATH="$here/lib:$here/deps${cuda:+:$cuda}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$here/bin:$here/tests/bin:$here/examples/bin:$here/bench/bin:${PATH:-/usr/bin:/bin}"
export MPIEXEC="$here/bin/mpiexec.hydra"
export HYDRA_LAUNCHER=${HYDRA_LAUNCHER:-fork}
export UCX_MODULE_DIR=${UCX_MODULE_DIR:-$here/deps/ucx}
export PETSC_OPTIONS="-use_gpu_aware_mpi 0 ${PETSC_OPTIONS:-}"

resolve() {
  local p
  case "$1" in */*) echo "$1"; return ;; esac
  for p in "$here/tests/bin/$1" "$here/examples/bin/$1" "$here/bench/bin/$1" "$here/bin/$1"; do
    [ -x "$p" ] && { echo "$p"; return; }
  done
  echo "$1"
}

case "${1:-}" in
  "") exec bash "$here/tests/run.sh" ;;
  --check) shift; exec bash "$here/tests/run.sh" "$@" ;;
  --demo) shift; exec bash "$here/examples/demo.sh" "$@" ;;
  --env)
    for v in PBG_ROOT LD_LIBRARY_PATH PATH MPIEXEC HYDRA_LAUNCHER UCX_MODULE_DIR PETSC_OPTIONS NCCL_NVLS_ENABLE; do
      printf 'export %s=%q\n' "$v" "${!v}"
    done ;;
  -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' ;;
  -n|-np)
    [ $# -ge 3 ] || { echo "usage: ./run.sh -n NP PROGRAM ARGS..." >&2; exit 2; }
    np=$2; prog=$(resolve "$3"); shift 3
    exec "$MPIEXEC" -n "$np" "$prog" "$@" ;;
  *) prog=$(resolve "$1"); shift; exec "$prog" "$@" ;;
esac
EOF
chmod +x "$stage/run.sh"

# --- BUNDLE-INFO.txt --------------------------------------------------------------------------------------
{
  echo "petscblockgpu offline bundle"
  echo "built:   $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -n) ($(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"))"
  echo "source:  $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "PETSc:   $petsclib"
  echo "MPI:     Debian mpich $(dpkg-query -W -f='${Version}' mpich 2>/dev/null || echo '?') (mpiexec.hydra, not CUDA-aware)"
  echo
  echo "Usage:   tar xJf $name.tar.xz && cd $name && ./run.sh      (./run.sh --help)"
  echo
  echo "Bundled runtime libraries (deps/), and where they came from:"
  for lib in $(printf '%s\n' "${!copied[@]}" | sort); do printf '  %-28s %s\n' "$lib" "${copied[$lib]}"; done
  if [ -d "$stage/deps/ucx" ]; then
    echo "UCX modules (deps/ucx/): $(cd "$stage/deps/ucx" && ls | tr '\n' ' ')"
  fi
  echo
  echo "Expected on the node (not bundled):"
  for lib in $(printf '%s\n' "${!skipped[@]}" | sort); do printf '  %s\n' "$lib"; done
  echo
  echo "Programs:"
  (cd "$stage" && find tests/bin examples/bin bench/bin bin -maxdepth 1 \( -type f -o -type l \) | sort | sed 's/^/  /')
} > "$stage/BUNDLE-INFO.txt"

# --- tarball ------------------------------------------------------------------------------------------
say "compressing ($(du -sh "$stage" | cut -f1) unpacked)"
XZ_OPT=${XZ_OPT:--6 -T0} tar -C "$outdir" --owner=0 --group=0 -cJf "$tarball" "$name"
bytes=$(stat -c %s "$tarball")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
[ "$bytes" -le $((max_mb * 1048576)) ] || die "$tarball is $mb MB, over the limit of $max_mb MB"

# --- verification: unpack elsewhere and run with a clean environment -----------------------------------------
if [ "$verify" = 1 ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  tar -C "$tmp" -xJf "$tarball"
  u=$tmp/$name
  say "verifying in $u"
  bad=0
  while IFS= read -r f; do
    is_elf "$f" || continue
    lddout=$(env -i PATH=/usr/bin:/bin bash -c 'eval "$("$1"/run.sh --env)"; ldd "$2"' _ "$u" "$f" 2>&1)
    nf=$(grep 'not found' <<< "$lddout" | awk '{print $1}' | grep -Ev "$driver_lib_re" || true)
    if [ -n "$nf" ]; then say "  ${f#"$u"/}: not found: $(echo $nf)"; bad=1; fi
    # everything that is not the node's own must come from the bundle
    outside=$(awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' <<< "$lddout" | while read -r l p; do
                [[ "$l" =~ $node_lib_re ]] || case "$p" in "$u"/*) ;; *) echo "$l=$p" ;; esac; done)
    if [ -n "$outside" ]; then say "  ${f#"$u"/}: loads from outside the bundle: $(echo $outside)"; bad=1; fi
  done < <(find "$u" -type f \( -path '*/bin/*' -o -name '*.so*' \))
  [ "$bad" = 0 ] || die "bundled programs miss libraries (see above)"
  # the bundled libraries, not the system's, must be the ones loaded
  # (ldd's output taken whole first: `ldd | grep -q` under pipefail fails when grep exits before ldd has written all)
  demo_ldd=$(env -i PATH=/usr/bin:/bin bash -c 'eval "$("$1"/run.sh --env)"; ldd "$1/examples/bin/demo"' _ "$u")
  grep -q "$u/deps/libmpich" <<< "$demo_ldd" || die "examples/bin/demo does not load the bundled libmpich"
  if [ -x "$u/examples/bin/demo" ]; then
    (cd "$tmp" && env -i PATH=/usr/bin:/bin HOME="$tmp" "$u/run.sh" demo -da_grid_x 24 -da_grid_y 24 -ksp_type idr -pc_type vbjacobi -check_converged > "$tmp/demo1.log" 2>&1) \
      || { cat "$tmp/demo1.log"; die "demo failed in the unpacked bundle"; }
    (cd "$tmp" && env -i PATH=/usr/bin:/bin HOME="$tmp" "$u/run.sh" -n 2 demo -da_grid_x 24 -da_grid_y 24 -ksp_type idr -pc_type vbjacobi -check_converged > "$tmp/demo2.log" 2>&1) \
      || { cat "$tmp/demo2.log"; die "demo under the bundled mpiexec -n 2 failed in the unpacked bundle"; }
    grep -q '2 MPI ranks' "$tmp/demo2.log" || { cat "$tmp/demo2.log"; die "mpiexec -n 2 did not give 2 ranks"; }
    say "  demo runs in the unpacked bundle, alone and under its mpiexec -n 2"
  fi
  # PETSc's tutorials dump their Jacobians from the bundle (no PETSc install there), and bench_solve reads them
  if [ -x "$u/bench/bin/ex19" ] && [ -x "$u/bench/bin/ex5" ] && [ -x "$u/bench/bin/bench_solve" ]; then
    (cd "$tmp" && env -i PATH=/usr/bin:/bin HOME="$tmp" "$u/run.sh" bash "$u/bench/scripts/make_tutorial_jacobians.sh" "$tmp/tut" --grid 16 > "$tmp/tut.log" 2>&1 \
       && env -i PATH=/usr/bin:/bin HOME="$tmp" "$u/run.sh" bench_solve -f "$tmp/tut/cavity16.petsc:4,$tmp/tut/grayscott16.petsc:2" -ksp_types gmres \
            -pcs jacobi,vbjacobi -bounds 8 -max_it 20 -warmup 0 >> "$tmp/tut.log" 2>&1) \
      || { cat "$tmp/tut.log"; die "bench/scripts/make_tutorial_jacobians.sh or bench_solve failed in the unpacked bundle"; }
    say "  bench/bin/ex19 and ex5 dump their Jacobians in the unpacked bundle; bench_solve reads them"
  else
    say "  warning: bench/bin/ex19, ex5 or bench_solve missing (make bench builds them from PETSc's tutorial sources)"
  fi
  filter=${PBG_BUNDLE_VERIFY_FILTER:-^demo_}
  (cd "$tmp" && env -i PATH=/usr/bin:/bin HOME="$tmp" "$u/run.sh" --check "$filter" > "$tmp/check.log" 2>&1) \
    || { cat "$tmp/check.log"; die "test cases matching /$filter/ failed in the unpacked bundle"; }
  say "  test cases matching /$filter/ in the unpacked bundle: $(tail -n 1 "$tmp/check.log")"
  say "  all programs and libraries find their dependencies (driver libraries aside)"
fi

say "contents: $(find "$stage" -type f | wc -l) files; lib/: $(ls "$stage/lib" | tr '\n' ' ')"
say "deps/: $(ls "$stage/deps" | tr '\n' ' ')"
say "programs: $nprog; see $stage/BUNDLE-INFO.txt"
say "$tarball: $mb MB"
