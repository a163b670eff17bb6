# The house rules (issue 41), checked by make check: every component's call graph has no loop and no CUDA runtime call
# in its host files (tools/callgraph.py --cuda-runtime: the runtime belongs in cuda/), and every C, C++ and CUDA source
# is formatted (clang-format with .clang-format, PETSc's style), doc/layout.md names every component and host file
# (tools/layoutcheck.py), no source comment carries a measured figure (tools/figurecheck.py), and offloadmask is written
# and the CUDA runtime launchers of the matrix are called only by the device floor. Each check is first shown to fail on a violation planted in a scratch tree, so that it cannot
# pass for want of looking.

pbg_house_callgraph() { python3 "$PBG_ROOT/tools/callgraph.py" --cuda-runtime "$PBG_ROOT/$1"; }
for comp in src/mat/baijcuda_k src/mat/solvers src/pc/vbjacobi src/ksp/idrs src/ksp/chebyshev src/sys src/dm/da; do
  tcheck "house_callgraph_$(basename "$comp")" -- pbg_house_callgraph "$comp"
done

# two files that call each other, one calling the CUDA runtime from a host file: both reported, exit status 1
pbg_house_callgraph_planted() {
  local d=$PBG_WORKDIR/house_callgraph_planted out
  rm -rf "$d" && mkdir -p "$d"
  printf 'int HouseA(int x)\n{\n  return HouseB(x);\n}\n' > "$d/a.c"
  printf 'int HouseB(int x)\n{\n  if (x) return HouseA(x - 1);\n  return (int)cudaDeviceSynchronize();\n}\n' > "$d/b.c"
  if out=$(python3 "$PBG_ROOT/tools/callgraph.py" --cuda-runtime "$d"); then
    echo "$out"
    echo "the planted loop and runtime call passed the check"
    return 1
  fi
  echo "$out"
  grep -q '^LOOP: ' <<< "$out" && grep -q '^CUDA runtime in .*b.c: cudaDeviceSynchronize' <<< "$out"
}
tcheck house_callgraph_detects_planted -- pbg_house_callgraph_planted

# clang-format 14 or newer (installed by conf/bootstrap-petsc.sh with the build's tools); without it the cases skip
pbg_house_clang_format() {
  command -v clang-format > /dev/null || { echo "no clang-format"; return 77; }
  [ "$(clang-format --version | grep -oE '[0-9]+' | head -n 1)" -ge 14 ] || { echo "clang-format older than 14"; return 77; }
}
pbg_house_format() {
  local files
  pbg_house_clang_format || return $?
  files=$(git -C "$PBG_ROOT" ls-files '*.c' '*.h' '*.cu' '*.cuh' '*.cxx') || { echo "not a git checkout"; return 77; }
  echo "$(wc -l <<< "$files") files"
  (cd "$PBG_ROOT" && xargs clang-format --dry-run --Werror <<< "$files")
}
tcheck house_format -- pbg_house_format

# a badly formatted copy of a source file, checked with the project's .clang-format, must fail
pbg_house_format_planted() {
  local d=$PBG_WORKDIR/house_format_planted
  pbg_house_clang_format || return $?
  rm -rf "$d" && mkdir -p "$d"
  cp "$PBG_ROOT/.clang-format" "$d/"
  printf 'static int  HouseC( int x ){return x+1;}\n' > "$d/c.c"
  if (cd "$d" && clang-format --dry-run --Werror c.c); then
    echo "the planted misformatting passed the check"
    return 1
  fi
  echo "the planted misformatting was found"
}
tcheck house_format_detects_planted -- pbg_house_format_planted

# doc/layout.md names every component directory and host source file (tools/layoutcheck.py); a file added to a scratch
# copy of src/ without a line in the layout must fail it
tcheck house_layout -- python3 "$PBG_ROOT/tools/layoutcheck.py" "$PBG_ROOT"
pbg_house_layout_planted() {
  local d=$PBG_WORKDIR/house_layout_planted out
  rm -rf "$d" && mkdir -p "$d/doc" "$d/src/mat"
  cp -r "$PBG_ROOT/src/mat/solvers" "$d/src/mat/"
  cp "$PBG_ROOT/doc/layout.md" "$d/doc/"
  printf 'int HouseD(void)\n{\n  return 0;\n}\n' > "$d/src/mat/solvers/unlisted.c"
  if out=$(python3 "$PBG_ROOT/tools/layoutcheck.py" "$d"); then
    echo "$out"
    echo "the planted unlisted file passed the check"
    return 1
  fi
  echo "$out"
  grep -q '^not in doc/layout.md: src/mat/solvers/unlisted.c$' <<< "$out"
}
tcheck house_layout_detects_planted -- pbg_house_layout_planted

# no measured figure in a source comment (tools/figurecheck.py: a GPU model, a time, a bandwidth, a size): they go
# stale there and live in doc/benchmarks.md; a planted comment with a timing must fail it, a string with a size must not
tcheck house_no_figures -- python3 "$PBG_ROOT/tools/figurecheck.py" "$PBG_ROOT/src" "$PBG_ROOT/include"
pbg_house_figures_planted() {
  local d=$PBG_WORKDIR/house_figures_planted out
  rm -rf "$d" && mkdir -p "$d"
  printf '/* a string may print a size */\nstatic const char *m = "16 MB";\n' > "$d/clean.c"
  python3 "$PBG_ROOT/tools/figurecheck.py" "$d" || { echo "a clean file failed the check"; return 1; }
  printf '/* the kernel took 14.3 us on an H100 */\nint HouseE(void)\n{\n  return 0; // 2.7 TB/s\n}\n' > "$d/e.c"
  if out=$(python3 "$PBG_ROOT/tools/figurecheck.py" "$d"); then
    echo "$out"
    echo "the planted figures passed the check"
    return 1
  fi
  echo "$out"
  grep -q 'e.c:1: ' <<< "$out" && grep -q 'e.c:4: ' <<< "$out" && grep -q '^measured figures in comments: 2$' <<< "$out"
}
tcheck house_figures_detects_planted -- pbg_house_figures_planted

# bench/results/ holds benchmark outputs only: a GPU test-suite, sanitizer or bundle test log there fails (their summary
# lines go to doc/test_runs.md); a planted one in a scratch copy must fail it
pbg_house_results() { # DIR: the files under it whose names are those of test-suite logs
  local bad
  bad=$(cd "$1" && find . -type f | grep -E '/(gpu_suite|memcheck|racecheck|bundle_tests|gpu_cases|python_cases|tests)[^/]*\.(log|txt)$')
  [ -z "$bad" ] && { echo "$(cd "$1" && find . -type f | wc -l) files, no test-suite log"; return 0; }
  echo "test-suite logs in bench/results (their summary lines belong in doc/test_runs.md):"
  echo "$bad"
  return 1
}
tcheck house_results_benchmarks_only -- pbg_house_results "$PBG_ROOT/bench/results"
pbg_house_results_planted() {
  local d=$PBG_WORKDIR/house_results_planted
  rm -rf "$d" && mkdir -p "$d/sub" && touch "$d/bsrmv_h200.csv" "$d/sub/memcheck_issue99_h200.log"
  if pbg_house_results "$d"; then
    echo "the planted test log passed the check"
    return 1
  fi
  echo "the planted test log was found"
}
tcheck house_results_detects_planted -- pbg_house_results_planted

# The offload state of our matrices is written only by the device floor (baijksparse_device.c, by intent: device or host
# newer, both current, no values); anywhere else an assignment to offloadmask fails, and a planted one must be found
pbg_house_offload() { # DIR: the source tree to search
  local bad
  bad=$(grep -rnE 'offloadmask[[:space:]]*=[^=]' "$1" --include='*.c' --include='*.cu' --include='*.cxx' | grep -v '/baijksparse_device\.c:' | grep -vE ':[0-9]+:[[:space:]]*(/\*|\*)')
  [ -z "$bad" ] && { echo "offloadmask written only in baijksparse_device.c"; return 0; }
  echo "offloadmask written outside the device floor (use MatBAIJKSPARSEMark*_Private()):"
  echo "$bad"
  return 1
}
tcheck house_offload_floor -- pbg_house_offload "$PBG_ROOT/src"
pbg_house_offload_planted() {
  local d=$PBG_WORKDIR/house_offload_planted
  rm -rf "$d" && mkdir -p "$d/mat" && printf 'void f(Mat A)\n{\n  if (A->offloadmask == PETSC_OFFLOAD_CPU) A->offloadmask = PETSC_OFFLOAD_GPU;\n}\n' > "$d/mat/x.c"
  printf 'void g(Mat A)\n{\n  A->offloadmask = PETSC_OFFLOAD_BOTH;\n}\n' > "$d/mat/baijksparse_device.c"
  if pbg_house_offload "$d"; then
    echo "the planted write passed the check"
    return 1
  fi
  echo "the planted write was found"
}
tcheck house_offload_detects_planted -- pbg_house_offload_planted

# The one-to-one CUDA runtime wrappers of the matrix (memory, copies, stream and event waits; once in a header
# baijksparse_runtime.h) stay gone: every file asks the device floor by intent (baijksparse_device.h, each operation
# its runtime calls in cuda/baijksparse_device.cu). A wrapper called or the header included outside the floor fails;
# a planted call and include must be found, the floor's own not.
pbg_house_runtime() { # DIR: the source tree to search
  local bad
  bad=$({
    grep -rnE 'MatBAIJKSPARSE(Malloc|Free|MallocAsync|FreeAsync|MallocHost|FreeHost|MemcpyAsync|MemsetAsync|StreamSynchronize|EventCreate|EventDestroy|EventRecord|EventSynchronize)_CUDA[[:space:]]*\(' "$1" --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' --include='*.cxx' | grep -vE '/baijksparse_device\.c:|/baijksparse_runtime\.h:|/cuda/baijksparse_device\.cu:'
    grep -rnE '#[[:space:]]*include[[:space:]]*"(\.\./)?baijksparse_runtime\.h"' "$1" --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' --include='*.cxx' | grep -vE '/baijksparse_device\.c:|/cuda/baijksparse_device\.cu:'
  })
  [ -z "$bad" ] && { echo "the CUDA runtime launchers called only by baijksparse_device.c"; return 0; }
  echo "CUDA runtime launchers outside the device floor (use the operations of baijksparse_device.h):"
  echo "$bad"
  return 1
}
tcheck house_runtime_floor -- pbg_house_runtime "$PBG_ROOT/src"
pbg_house_runtime_planted() {
  local d=$PBG_WORKDIR/house_runtime_planted out
  rm -rf "$d" && mkdir -p "$d/mat/cuda"
  printf 'void f(void *p, size_t n, cudaStream_t s)\n{\n  MatBAIJKSPARSEMemsetAsync_CUDA(p, 0, n, s);\n}\n' > "$d/mat/x.c"
  printf '#include "baijksparse_runtime.h"\n' > "$d/mat/y.c"
  printf '#include "baijksparse_runtime.h"\nvoid g(cudaStream_t s)\n{\n  MatBAIJKSPARSEStreamSynchronize_CUDA(s);\n}\n' > "$d/mat/baijksparse_device.c"
  printf '#include "../baijksparse_runtime.h"\nint MatBAIJKSPARSEFree_CUDA(void *p)\n{\n  return 0;\n}\n' > "$d/mat/cuda/baijksparse_device.cu"
  if out=$(pbg_house_runtime "$d"); then
    echo "$out"
    echo "the planted call and include passed the check"
    return 1
  fi
  echo "$out"
  grep -q '/mat/x\.c:3:' <<< "$out" && grep -q '/mat/y\.c:1:' <<< "$out" && ! grep -q 'baijksparse_device\.c\(u\)\?:' <<< "$out"
}
tcheck house_runtime_detects_planted -- pbg_house_runtime_planted
