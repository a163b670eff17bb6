#!/usr/bin/env bash
# Provide a PETSc 3.26 built with CUDA and MPI for petscblockgpu.
#
# If PETSC_DIR (and PETSC_ARCH where needed) names a PETSc configured with CUDA, it is used as is.
# Otherwise PETSc is built once from the PyPI source distribution into a cache directory outside
# the checkout, keyed by version and options, and reused by every later run.
#
# Prints one line per stage with the elapsed time; the last line of stdout is the PETSC_DIR to use
# (written also to conf/petsc.mk so that make picks it up).
#
# Environment:
#   PETSC_DIR, PETSC_ARCH   an existing PETSc to reuse
#   PETSCBLOCKGPU_CACHE     cache root (default: $XDG_CACHE_HOME or ~/.cache, /petscblockgpu)
#   CUDA_ARCH               SM architecture to build for (default 90)
#   CUDA_HOME               CUDA toolkit (default /usr/local/cuda)
#   MAKE_NP                 parallel build jobs (default: nproc)
set -euo pipefail

PETSC_VERSION=3.26.1
CUDA_ARCH=${CUDA_ARCH:-90}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
MAKE_NP=${MAKE_NP:-$(nproc)}
here=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
stage() { printf '[bootstrap %4ds] %s\n' $(( $(date +%s) - start )) "$*" >&2; }
die() { stage "FAILED: $*"; exit 1; }

write_mk() { # $1 = PETSC_DIR, $2 = PETSC_ARCH (may be empty)
  printf 'PETSC_DIR := %s\nPETSC_ARCH := %s\n' "$1" "$2" > "$here/petsc.mk.tmp"
  mv "$here/petsc.mk.tmp" "$here/petsc.mk"
  echo "$1"
}

petsc_has_cuda() { # $1 = PETSC_DIR, $2 = PETSC_ARCH
  local conf
  for conf in "$1/$2/include/petscconf.h" "$1/include/petscconf.h"; do
    [ -f "$conf" ] && grep -q 'define PETSC_HAVE_CUDA 1' "$conf" && return 0
  done
  return 1
}

# 1. An existing PETSc named by the user.
if [ -n "${PETSC_DIR:-}" ]; then
  if petsc_has_cuda "$PETSC_DIR" "${PETSC_ARCH:-}"; then
    stage "using existing PETSC_DIR=$PETSC_DIR PETSC_ARCH=${PETSC_ARCH:-}"
    write_mk "$PETSC_DIR" "${PETSC_ARCH:-}"
    exit 0
  fi
  die "PETSC_DIR=$PETSC_DIR PETSC_ARCH=${PETSC_ARCH:-} is not a PETSc configured with CUDA (no PETSC_HAVE_CUDA in petscconf.h); unset PETSC_DIR to let this script build one"
fi

# 2. The cache, keyed by version and options.
cache_root=${PETSCBLOCKGPU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/petscblockgpu}
config_opts=(
  --with-cc=mpicc --with-cxx=mpicxx --with-fc=0
  --with-cuda=1 "--with-cuda-dir=$CUDA_HOME" "--with-cuda-arch=$CUDA_ARCH"
  --with-blaslapack-lib=/usr/lib/x86_64-linux-gnu/libopenblas.so
  --with-shared-libraries=1 --with-debugging=0 --with-x=0 --with-ssl=0
  COPTFLAGS=-O2 CXXOPTFLAGS=-O2 CUDAOPTFLAGS=-O2
)
key=$(printf '%s\n' "$PETSC_VERSION" "${config_opts[@]}" | sha1sum | cut -c1-10)
prefix="$cache_root/petsc-$PETSC_VERSION-cuda$CUDA_ARCH-$key"
if [ -f "$prefix/.petscblockgpu-complete" ]; then
  stage "reusing cached PETSc $PETSC_VERSION at $prefix"
  write_mk "$prefix" ""
  exit 0
fi

mkdir -p "$cache_root"
exec 9> "$cache_root/.lock"
stage "waiting for the cache lock $cache_root/.lock"
flock 9
if [ -f "$prefix/.petscblockgpu-complete" ]; then # built by another process meanwhile
  stage "reusing cached PETSc $PETSC_VERSION at $prefix"
  write_mk "$prefix" ""
  exit 0
fi

# 3. Debian packages (MPICH, OpenBLAS/LAPACK, and the tools of the build and of make check: clang-format).
need=()
for p in mpich libmpich-dev libopenblas-dev liblapack-dev make python3 xz-utils clang-format; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  stage "installing Debian packages: ${need[*]}"
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -q > "$cache_root/apt.log" 2>&1 || die "apt-get update, see $cache_root/apt.log"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}" >> "$cache_root/apt.log" 2>&1 \
    || die "apt-get install ${need[*]}, see $cache_root/apt.log"
fi
command -v mpicc > /dev/null || die "mpicc not found after installing mpich"
[ -x "$CUDA_HOME/bin/nvcc" ] || die "no nvcc at $CUDA_HOME/bin/nvcc (set CUDA_HOME)"

# 4. Source from PyPI.
build="$cache_root/build-$PETSC_VERSION-$key"
log="$cache_root/petsc-$PETSC_VERSION-$key.log"
rm -rf "$build" "$prefix"
mkdir -p "$build"
stage "downloading petsc==$PETSC_VERSION source from PyPI (log: $log)"
python3 -m pip download -q --no-deps --no-binary :all: "petsc==$PETSC_VERSION" -d "$build" > "$log" 2>&1 \
  || die "pip download petsc==$PETSC_VERSION, see $log"
tar -xzf "$build/petsc-$PETSC_VERSION.tar.gz" -C "$build" || die "unpacking the PETSc source"
src="$build/petsc-$PETSC_VERSION"

# 5. Configure, build, install.  The stamp file is written last, so an interrupted build is never
# taken for a finished one: the next run starts it again.
cd "$src"
unset PETSC_DIR PETSC_ARCH
stage "configuring PETSc $PETSC_VERSION (CUDA arch $CUDA_ARCH, MPICH, OpenBLAS) into $prefix"
python3 ./configure --prefix="$prefix" PETSC_ARCH=arch-pbg "${config_opts[@]}" >> "$log" 2>&1 \
  || die "configure, see $log and $src/configure.log"
stage "building PETSc with $MAKE_NP jobs"
make PETSC_DIR="$src" PETSC_ARCH=arch-pbg MAKE_NP="$MAKE_NP" all >> "$log" 2>&1 || die "make all, see $log"
stage "installing PETSc"
make PETSC_DIR="$src" PETSC_ARCH=arch-pbg install >> "$log" 2>&1 || die "make install, see $log"
# Keep the tutorial sources that the tests build (src/ is not installed).
mkdir -p "$prefix/share/petscblockgpu-tutorials"
cp "$src/src/ksp/ksp/tutorials/ex2.c" "$prefix/share/petscblockgpu-tutorials/"
petsc_has_cuda "$prefix" "" || die "installed PETSc lacks CUDA"
date > "$prefix/.petscblockgpu-complete"
rm -rf "$build"
stage "PETSc $PETSC_VERSION ready at $prefix"
write_mk "$prefix" ""
