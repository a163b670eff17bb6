# Issue 23: `make install PREFIX=...` into a temporary prefix, a program built against it with pkg-config, the tuning
# table found from that prefix with no environment variable, `make uninstall`, which leaves the prefix as it was. Issue
# 37: the same with a space in PREFIX. Needs the build tree (not the bundle).

# PETSC_DIR and PETSC_ARCH of the build: the environment, else conf/petsc.mk
pbg_petsc_dirs() {
  if [ -z "${PETSC_DIR:-}" ] && [ -f "$PBG_ROOT/conf/petsc.mk" ]; then
    PETSC_DIR=$(sed -n 's/^PETSC_DIR := //p' "$PBG_ROOT/conf/petsc.mk")
    PETSC_ARCH=$(sed -n 's/^PETSC_ARCH := //p' "$PBG_ROOT/conf/petsc.mk")
  fi
  [ -n "${PETSC_DIR:-}" ]
}

# make -C the checkout; the install cases one at a time, as each links the library with its PREFIX in build/install/
pbg_make_install() {
  local lock=()
  command -v flock > /dev/null && lock=(flock "$PBG_LOGDIR/install.lock")
  "${lock[@]}" env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$PBG_ROOT" "$@"
}

pbg_install_check() { # [space]
  local tmp status prefix root_before root_new
  [ -f "$PBG_ROOT/makefile" ] || { echo "no makefile in $PBG_ROOT (a bundle): nothing to install from"; return 77; }
  command -v pkg-config > /dev/null || { echo "no pkg-config on this machine (Debian package pkg-config)"; return 77; }
  pbg_petsc_dirs || { echo "no PETSC_DIR and no conf/petsc.mk"; return 1; }
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/pbg-install.XXXXXX") || return 1
  prefix=$tmp/prefix
  root_before=$(cd "$PBG_ROOT" && LC_ALL=C ls -A)
  if [ "${1:-}" = space ]; then
    # issue 37: a space in PREFIX, a file named by its first word (which the unquoted rules removed) and a directory and
    # a file of the user's in the prefix, which stay
    prefix="$tmp/pbg-first-word pbg-second-word/prefix"
    echo "not ours" > "$tmp/pbg-first-word"
    mkdir -p "$prefix/include" "$prefix/lib" && echo "not ours" > "$prefix/lib/user.txt"
    echo "== make uninstall PREFIX='$prefix' before any install: removes nothing"
    pbg_make_install uninstall PREFIX="$prefix"
    [ -f "$tmp/pbg-first-word" ] && [ -f "$prefix/lib/user.txt" ] && [ -d "$prefix/include" ] \
      || { echo "uninstall removed $tmp/pbg-first-word or what the user had in the prefix"; rm -rf "$tmp"; return 1; }
  fi
  pbg_install_steps "$tmp" "$prefix"
  status=$?
  [ ! -f "$tmp/pbg-first-word" ] || [ "$(cat "$tmp/pbg-first-word")" = "not ours" ] || { echo "$tmp/pbg-first-word changed"; status=1; }
  # nothing made in the checkout (an unquoted PREFIX made its words after the first there)
  root_new=$(cd "$PBG_ROOT" && LC_ALL=C ls -A | LC_ALL=C comm -13 <(echo "$root_before") -)
  [ -z "$root_new" ] || { echo "install/uninstall made in $PBG_ROOT: $root_new"; status=1; }
  rm -rf "$tmp"
  return $status
}

pbg_install_steps() { # TMPDIR_OF_THE_CASE PREFIX
  local tmp=$1 prefix=$2 pcdir cc out table moved flags before
  pcdir=$PETSC_DIR/${PETSC_ARCH:+$PETSC_ARCH/}lib/pkgconfig
  before=$(cd "$prefix" 2> /dev/null && find . | LC_ALL=C sort)
  echo "== make install PREFIX=$prefix"
  pbg_make_install install PREFIX="$prefix" || return 1
  (cd "$prefix" && find . | sort)
  [ -f "$prefix/share/petscblockgpu/baijksparse_tuning_sm90.txt" ] || { echo "no tuning table in $prefix/share/petscblockgpu"; return 1; }
  [ ! -e "$prefix/include/petscblockgpu" ] || { echo "install made $prefix/include/petscblockgpu"; return 1; }
  readelf -d "$prefix/lib/libpetscblockgpu.so" | grep -E 'SONAME|RUNPATH'
  readelf -d "$prefix/lib/libpetscblockgpu.so" | grep -q 'SONAME.*\[libpetscblockgpu\.so\.[0-9]' || { echo "no SONAME"; return 1; }

  echo "== pkg-config (PKG_CONFIG_PATH=$prefix/lib/pkgconfig:$pcdir)"
  export PKG_CONFIG_PATH=$prefix/lib/pkgconfig:$pcdir
  pkg-config --print-requires petscblockgpu
  pkg-config --print-requires petscblockgpu | grep -q '^PETSc' || { echo "petscblockgpu.pc does not require PETSc"; return 1; }
  flags=$(pkg-config --cflags --libs petscblockgpu) || return 1
  echo "$flags"
  # a space of PREFIX comes escaped ("\ "): a shell reading the flags makes one word of each path
  eval "set -- $flags"
  printf '%s\n' "$@" | grep -qxF -- "-I$prefix/include" || { echo "no -I$prefix/include among the flags"; return 1; }
  cc=$(pkg-config --variable=ccompiler PETSc)
  "$cc" -o "$tmp/ex_installed" "$PBG_ROOT/examples/installed/ex_installed.c" "$@" \
    -Wl,-rpath,"$(pkg-config --variable=libdir PETSc)" || return 1
  ldd "$tmp/ex_installed" | grep libpetscblockgpu
  ldd "$tmp/ex_installed" | grep -q "libpetscblockgpu.* => $prefix/lib/" || { echo "the program does not load the installed library"; return 1; }

  # the tuning table from the prefix, relative to the library, with no variable that names it
  echo "== run (no PETSCBLOCKGPU_TUNING_FILE)"
  out=$(unset PETSCBLOCKGPU_TUNING_FILE LD_LIBRARY_PATH PETSC_OPTIONS; pbg_run 1 "$tmp/ex_installed") || { echo "$out"; return 1; }
  echo "$out"
  grep -q "install prefix: $prefix;" <<< "$out" || { echo "the library does not know its install prefix"; return 1; }
  table=$(sed -n 's/^tuning table for sm_90: //p' <<< "$out")
  [ -n "$table" ] && [ "$(readlink -f "$table")" = "$(readlink -f "$prefix/share/petscblockgpu/baijksparse_tuning_sm90.txt")" ] \
    || { echo "the installed library did not find $prefix/share/petscblockgpu/baijksparse_tuning_sm90.txt"; return 1; }
  grep -q '^OK: baijksparse + vbjacobi + idrs' <<< "$out" || return 1
  out=$(unset PETSCBLOCKGPU_TUNING_FILE; pbg_run 2 "$tmp/ex_installed") || { echo "$out"; return 1; }
  echo "$out"
  grep -q '^OK: baijksparse + vbjacobi + idrs' <<< "$out" || return 1

  # an architecture without a table: none, and the places searched (relative, then the compiled-in prefix)
  out=$(unset PETSCBLOCKGPU_TUNING_FILE; pbg_run 1 "$tmp/ex_installed" -arch 12 -mbs 4) || { echo "$out"; return 1; }
  echo "$out"
  grep -qF "tuning table for sm_12: none (looked for $prefix/lib/../share/petscblockgpu/baijksparse_tuning_sm12.txt, $prefix/share/petscblockgpu/baijksparse_tuning_sm12.txt)" <<< "$out" || return 1

  # the library away from its prefix (a copy elsewhere): the compiled-in prefix still finds the table
  moved=$tmp/elsewhere/lib
  mkdir -p "$moved" && cp -a "$prefix"/lib/libpetscblockgpu.so* "$moved/"
  echo "== the library copied to $moved"
  out=$(unset PETSCBLOCKGPU_TUNING_FILE; export LD_LIBRARY_PATH=$moved; pbg_run 1 "$tmp/ex_installed" -mbs 4) || { echo "$out"; return 1; }
  echo "$out"
  grep -qxF "tuning table for sm_90: $prefix/share/petscblockgpu/baijksparse_tuning_sm90.txt" <<< "$out" || return 1

  # the Python module of the prefix, when petsc4py is built (tests/cases/python.sh): it opens the prefix's library
  local py
  if py=$(bash "$PBG_ROOT/conf/build-petsc4py.sh" --query 2> /dev/null); then
    echo "== the Python module from $prefix/share/petscblockgpu/python"
    out=$(cd "$tmp" && unset PETSCBLOCKGPU_TUNING_FILE PETSCBLOCKGPU_LIBRARY; PYTHONPATH=$prefix/share/petscblockgpu/python "$py" -c '
import petscblockgpu as pbg
pbg.load()
print("library:", pbg.library_path())
print("table:", pbg.MatBAIJKSPARSEGetTuningTable(90)[0])
print("prefix:", pbg.build_info()[2])') || { echo "$out"; return 1; }
    echo "$out"
    grep -qxF "library: $prefix/lib/libpetscblockgpu.so" <<< "$out" && grep -qxF "prefix: $prefix" <<< "$out" \
      && [ "$(readlink -f "$(sed -n 's/^table: //p' <<< "$out")")" = "$(readlink -f "$prefix/share/petscblockgpu/baijksparse_tuning_sm90.txt")" ] || return 1
  else
    echo "== (petsc4py is not built: the installed Python module is not tried)"
  fi

  echo "== make uninstall PREFIX=$prefix"
  pbg_make_install uninstall PREFIX="$prefix" || return 1
  # the prefix as it was before: no file of ours, no directory install made (empty or not), what was there kept
  [ "$(cd "$prefix" 2> /dev/null && find . | LC_ALL=C sort)" = "$before" ] \
    || { echo "the prefix after uninstall is not as before install; left:"; find "$prefix"; return 1; }
  echo "install, pkg-config build, tuning table lookup, uninstall: OK"
}
tcheck install_pkgconfig -- pbg_install_check
tcheck install_prefix_space -- pbg_install_check space

# GPU: the build tree's library finds share/petscblockgpu/baijksparse_tuning_sm90.txt with no option or variable (the GPU nodes are
# sm_90), and a copy of the library with no table beside it says so in -mat_view and in -info.
tcase install_gpu_table_build_tree --gpu -- test_baijksparse -gpu -bs 6 -view_matrix \
      --grep 'baijksparse: tuning table: .*/share/petscblockgpu/baijksparse_tuning_sm90\.txt' --grep '^OK'
pbg_gpu_no_table() {
  local tmp status
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/pbg-notable.XXXXXX") || return 1
  mkdir -p "$tmp/lib" && cp -a "$PBG_ROOT"/lib/libpetscblockgpu.so* "$tmp/lib/"
  (unset PETSCBLOCKGPU_TUNING_FILE; export LD_LIBRARY_PATH=$tmp/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
   pbg_run 1 test_baijksparse -gpu -bs 6 -view_matrix -info) > "$tmp/out"
  status=$?
  grep 'tuning table' "$tmp/out"
  [ $status = 0 ] && grep -q "^OK" "$tmp/out" \
    && grep -qE "^[[:space:]]*baijksparse: tuning table: none found for sm_[0-9]+ \(looked for $tmp/lib/\.\./share/petscblockgpu/baijksparse_tuning_sm[0-9]+\.txt[^)]*\), built-in kernel parameters" "$tmp/out" \
    && grep -qE '^\[0\] .*baijksparse: tuning table: none found for sm_' "$tmp/out" # -info
  status=$?
  rm -rf "$tmp"
  return $status
}
tcheck install_gpu_no_table --gpu -- pbg_gpu_no_table
