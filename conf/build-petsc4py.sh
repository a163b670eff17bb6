#!/usr/bin/env bash
# Build petsc4py against the PETSc that petscblockgpu uses, once, into the cache (run by `make petsc4py`).
#
# Usage: conf/build-petsc4py.sh            build (or reuse) it; the last line of stdout is its Python
#        conf/build-petsc4py.sh --query    print that Python if it was built, else say why not (stderr) and exit 1
#        conf/build-petsc4py.sh --for-python INCLUDE_ROOT OUTDIR
#                                          the same petsc4py for another CPython of this platform (x86-64 Linux, a
#                                          glibc no older than here), such as the GPU node's: its extension module is
#                                          compiled from the Cython output of the cached build against that Python's
#                                          headers alone, and the package is written to OUTDIR/petsc4py (used by
#                                          make bundle with PBG_BUNDLE_PYTHON_INCLUDE). INCLUDE_ROOT holds
#                                          python3.X/Python.h and, on Debian and Ubuntu, x86_64-linux-gnu/python3.X/
#                                          (a copy of the other machine's /usr/include, these two folders suffice).
#
# petsc4py must be compiled against the very PETSc (same version, same configuration) that libpetscblockgpu.so
# links, so the wheels of PyPI (which bring their own PETSc) do not do. What works, and what this script does:
#   1. a virtual environment in the cache with Cython, numpy and setuptools (the build requirements);
#   2. the petsc4py sdist of PETSc's version from PyPI (pip download);
#   3. pip install --no-build-isolation with PETSC_DIR/PETSC_ARCH set: without the flag pip builds in an isolated
#      environment whose requirements pull in the petsc sdist and compile a second PETSc.
# Cache: ${PBG_CACHE_DIR:-~/.cache/petscblockgpu}/petsc4py-VERSION-KEY/{venv,.complete}, KEY a hash of PETSC_DIR,
# PETSC_ARCH, the Python and the petsc4py version; the stamp .complete is written last, so an interrupted build is
# made again. Environment: PETSC_DIR, PETSC_ARCH (default: conf/petsc.mk), PBG_CACHE_DIR, PYTHON (default python3),
# PETSC4PY_VERSION (default: PETSc's version).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
query=0
[ "${1:-}" = --query ] && query=1
for_include="" for_out=""
if [ "${1:-}" = --for-python ]; then
  [ $# = 3 ] || { echo "usage: $0 --for-python INCLUDE_ROOT OUTDIR" >&2; exit 2; }
  for_include=$2 for_out=$3
fi
start=$(date +%s)
say() { printf '[petsc4py %4ds] %s\n' $(( $(date +%s) - start )) "$*" >&2; }
die() { say "FAILED: $*"; exit 1; }

if [ -z "${PETSC_DIR:-}" ] && [ -f "$root/conf/petsc.mk" ]; then
  PETSC_DIR=$(sed -n 's/^PETSC_DIR := //p' "$root/conf/petsc.mk")
  PETSC_ARCH=$(sed -n 's/^PETSC_ARCH := //p' "$root/conf/petsc.mk")
fi
[ -n "${PETSC_DIR:-}" ] || die "PETSC_DIR is not set and conf/petsc.mk is missing (run make first)"
PETSC_ARCH=${PETSC_ARCH:-}
vh=""
for f in "$PETSC_DIR/$PETSC_ARCH/include/petscversion.h" "$PETSC_DIR/include/petscversion.h"; do
  [ -f "$f" ] && { vh=$f; break; }
done
[ -n "$vh" ] || die "no petscversion.h under PETSC_DIR=$PETSC_DIR PETSC_ARCH=$PETSC_ARCH"
ver() { awk -v k="PETSC_VERSION_$1" '$1 == "#define" && $2 == k {print $3}' "$vh"; }
petsc_version=$(ver MAJOR).$(ver MINOR).$(ver SUBMINOR)
petsc_libdir=$PETSC_DIR/$PETSC_ARCH/lib
[ -d "$petsc_libdir" ] || petsc_libdir=$PETSC_DIR/lib
version=${PETSC4PY_VERSION:-$petsc_version}
python=${PYTHON:-python3}
pyver=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])') || die "no Python ($python)"
cache=${PBG_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/petscblockgpu}
key=$(printf '%s\n' "$PETSC_DIR" "$PETSC_ARCH" "$pyver" "$version" | sha1sum | cut -c1-10)
dir=$cache/petsc4py-$version-$key
venv=$dir/venv

# The import must find the PETSc it was built against (petsc4py.get_config() records it).
check() {
  "$venv/bin/python" - "$PETSC_DIR" "$PETSC_ARCH" "$petsc_version" <<'EOF'
import os, sys
import petsc4py
petsc4py.init([])
from petsc4py import PETSc
want_dir, want_arch, want_version = sys.argv[1:]
cfg = petsc4py.get_config()
got = "%d.%d.%d" % PETSc.Sys.getVersion()
same = os.path.realpath(cfg["PETSC_DIR"]) == os.path.realpath(want_dir) and (cfg.get("PETSC_ARCH") or "") == want_arch
if got != want_version or not same:
    sys.exit("petsc4py uses PETSc %s at %s (arch %r), expected %s at %s (arch %r)" % (got, cfg["PETSC_DIR"], cfg.get("PETSC_ARCH"), want_version, want_dir, want_arch))
EOF
}

if [ $query = 1 ]; then
  [ -f "$dir/.complete" ] || die "petsc4py $version for PETSC_DIR=$PETSC_DIR is not built ($dir; run make petsc4py)"
  check > /dev/null 2>&1 || die "petsc4py in $dir does not import with PETSC_DIR=$PETSC_DIR (run make petsc4py)"
  echo "$venv/bin/python"
  exit 0
fi

# --for-python: the extension for another CPython, from the cached build's sources and Cython
if [ -n "$for_include" ]; then
  inc=$(cd "$for_include" 2> /dev/null && pwd) || die "no directory $for_include"
  pydir=$(cd "$inc" && ls -d python3.* 2> /dev/null | head -1)
  [ -n "$pydir" ] && [ -f "$inc/$pydir/Python.h" ] && [ -f "$inc/$pydir/patchlevel.h" ] || die "no python3.X/Python.h and patchlevel.h under $inc"
  pv() { awk -v k="$1" '$1 == "#define" && $2 == k {print $3}' "$inc/$pydir/patchlevel.h"; }
  tag=$(pv PY_MAJOR_VERSION)$(pv PY_MINOR_VERSION)
  [ -f "$dir/.complete" ] || die "build petsc4py here first (make petsc4py): its sources and Cython are reused"
  sdist=$(find "$dir/download" -maxdepth 1 -name 'petsc4py-*.tar.gz' -print -quit)
  [ -n "$sdist" ] || die "no petsc4py sdist in $dir/download"
  site=$("$venv/bin/python" -c 'import petsc4py, os; print(os.path.dirname(petsc4py.__file__))')
  numpy_inc=$("$venv/bin/python" -c 'import numpy; print(numpy.get_include())')
  hkey=$(cat "$inc/$pydir"/*.h $(find "$inc" -path "*linux-gnu/$pydir/pyconfig.h") 2> /dev/null | sha1sum | cut -c1-10)
  cross=$dir/cross-cp$tag-$hkey
  so=PETSc.cpython-$tag-x86_64-linux-gnu.so
  mkdir -p "$cache"
  exec 9> "$cache/.petsc4py.lock"
  flock 9
  if [ ! -f "$cross/.complete" ]; then
    rm -rf "$cross"
    mkdir -p "$cross"
    tar xzf "$sdist" -C "$cross" --strip-components 1
    log=$cross/build.log
    say "Cython: petsc4py/PETSc.pyx -> PETSc.c (log: $log)"
    (cd "$cross" && "$venv/bin/python" conf/cythonize.py --working src petsc4py/PETSc.pyx --output-file petsc4py/PETSc.c) > "$log" 2>&1 || die "cython, see $log"
    say "compiling petsc4py's extension for CPython ${tag:0:1}.${tag:1} (${inc}; a few minutes)"
    mpicc=$(command -v mpicc) || die "no mpicc (Debian package mpich)"
    # -O1: -O2/-O3 take several times longer on this 35 MB source for the same solve times (the work is in PETSc)
    (cd "$cross" && "$mpicc" -O1 -fPIC -shared -fwrapv -DNDEBUG -DMPICH_SKIP_MPICXX=1 -DOMPI_SKIP_MPICXX=1 -DNPY_NO_DEPRECATED_API=NPY_1_7_API_VERSION \
       -Isrc -Isrc/petsc4py/include -I"$numpy_inc" -I"$PETSC_DIR/include" ${PETSC_ARCH:+-I"$PETSC_DIR/$PETSC_ARCH/include"} \
       -I"${CUDA_HOME:-/usr/local/cuda}/include" -I"$inc/$pydir" -I"$inc" src/petsc4py/PETSc.c \
       -L"$petsc_libdir" -lpetsc -o "$so") >> "$log" 2>&1 || die "compiling PETSc.c, see $log"
    date > "$cross/.complete"
  fi
  rm -rf "$for_out/petsc4py"
  mkdir -p "$for_out"
  cp -a "$site" "$for_out/petsc4py"
  find "$for_out/petsc4py" \( -name '*.so' -o -name __pycache__ \) -prune -exec rm -rf {} +
  cp -p "$cross/$so" "$for_out/petsc4py/lib/"
  echo "cp$tag" > "$for_out/petsc4py/PBG-PYTHON-TAG"
  say "petsc4py $version for CPython ${tag:0:1}.${tag:1}: $for_out/petsc4py"
  exit 0
fi

mkdir -p "$cache"
exec 9> "$cache/.petsc4py.lock"
flock 9
if [ -f "$dir/.complete" ] && check > /dev/null 2>&1; then
  say "reusing petsc4py $version at $dir"
  echo "$venv/bin/python"
  exit 0
fi

rm -rf "$dir"
mkdir -p "$dir/download"
log=$dir/build.log
say "virtual environment $venv with cython, numpy, setuptools (log: $log)"
"$python" -m venv "$venv" > "$log" 2>&1 || die "python3 -m venv, see $log"
pip=("$venv/bin/python" -m pip --disable-pip-version-check)
"${pip[@]}" install -q "cython>=3" numpy setuptools wheel >> "$log" 2>&1 || die "pip install cython numpy setuptools, see $log"
say "downloading the petsc4py==$version sdist from PyPI"
export PETSC_DIR PETSC_ARCH
"${pip[@]}" download -q --no-deps --no-binary :all: --no-build-isolation "petsc4py==$version" -d "$dir/download" >> "$log" 2>&1 \
  || die "pip download petsc4py==$version, see $log"
sdist=$(find "$dir/download" -maxdepth 1 -name 'petsc4py-*.tar.gz' -print -quit)
[ -n "$sdist" ] || die "pip download left no petsc4py sdist in $dir/download"
say "building petsc4py $version against PETSC_DIR=$PETSC_DIR PETSC_ARCH=$PETSC_ARCH (several minutes)"
"${pip[@]}" install -v --no-deps --no-build-isolation "$sdist" >> "$log" 2>&1 || die "pip install $sdist, see $log"
check >> "$log" 2>&1 || die "the built petsc4py does not import or uses another PETSc, see $log"
date > "$dir/.complete"
say "petsc4py $version ready: $venv/bin/python"
echo "$venv/bin/python"
