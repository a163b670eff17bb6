#!/usr/bin/env bash
# Build petsc4py against the PETSc that petscblockgpu uses, once, into the cache (run by `make petsc4py`).
#
# Usage: conf/build-petsc4py.sh            build (or reuse) it; the last line of stdout is its Python
#        conf/build-petsc4py.sh --query    print that Python if it was built, else say why not (stderr) and exit 1
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
