# Issue 23: petsc4py with petscblockgpu (examples/python/, tests/python/). They run when `make petsc4py` has built
# petsc4py against this PETSc (conf/build-petsc4py.sh --query finds it in the cache), or, in a bundle, when it carries a
# petsc4py for the python3 on PATH (python/petsc4py/PBG-PYTHON-TAG), and SKIP otherwise.

pbg_py_python=""
pbg_py_why=""
pbg_py_find() { # sets pbg_py_python, or pbg_py_why (once)
  [ -n "$pbg_py_python$pbg_py_why" ] && return 0
  local tag=$PBG_ROOT/python/petsc4py/PBG-PYTHON-TAG have
  if [ -f "$tag" ]; then # a bundle made with PBG_BUNDLE_PYTHON_INCLUDE: petsc4py for one CPython, the python3 on PATH
    have=$(python3 -c 'import sys, numpy; print("cp%d%d" % sys.version_info[:2])' 2> /dev/null)
    if [ "$have" = "$(cat "$tag")" ]; then pbg_py_python=$(command -v python3)
    else pbg_py_why="the bundle's petsc4py is for $(cat "$tag"); python3 here is ${have:-missing or without numpy}"; fi
  elif [ ! -f "$PBG_ROOT/conf/build-petsc4py.sh" ] || [ ! -d "$PBG_ROOT/python" ]; then
    pbg_py_why="no petsc4py in this bundle (make bundle PBG_BUNDLE_PYTHON_INCLUDE=..., doc/bundle.md)"
  elif ! pbg_py_python=$(bash "$PBG_ROOT/conf/build-petsc4py.sh" --query 2> /dev/null); then
    pbg_py_why="petsc4py is not built for this PETSc: run make petsc4py"
    pbg_py_python=""
  fi
}

# pbg_py NP [--env VAR=VALUE] SCRIPT ARGS...: passes when every line of the verdict says OK
pbg_py() {
  local np=$1 out status
  shift
  pbg_py_find
  [ -n "$pbg_py_python" ] || { echo "$pbg_py_why"; return 77; }
  out=$(export PYTHONPATH="$PBG_ROOT/python:$PBG_ROOT/examples/python${PYTHONPATH:+:$PYTHONPATH}"
        if [ "$1" = --env ]; then export "${2?}"; shift 2; fi
        pbg_run "$np" "$pbg_py_python" "$@")
  status=$?
  echo "$out"
  [ $status = 0 ] && grep -q '^OK' <<< "$out" && ! grep -q '^FAILED' <<< "$out"
}

tcheck py_module -- pbg_py 1 "$PBG_ROOT/tests/python/test_module.py"
# issue 37: wrong objects and types, integers beyond PetscInt, unknown enum values, for every function of the module
tcheck py_bad_input -- pbg_py 1 "$PBG_ROOT/tests/python/test_bad_input.py"
tcheck py_dmda_late -- pbg_py 1 "$PBG_ROOT/examples/python/dmda_block.py" --load late
tcheck py_dmda_dll_append -- pbg_py 1 "$PBG_ROOT/examples/python/dmda_block.py" --load dll_append
tcheck py_dmda_options -- pbg_py 1 --env "PETSC_OPTIONS=${PETSC_OPTIONS:+$PETSC_OPTIONS }-dll_append $PBG_LIB" "$PBG_ROOT/examples/python/dmda_block.py" --load options
tcheck py_dmda_late_mpi2 -- pbg_py 2 "$PBG_ROOT/examples/python/dmda_block.py" --load late
tcheck py_dmda_options_mpi2 -- pbg_py 2 --env "PETSC_OPTIONS=${PETSC_OPTIONS:+$PETSC_OPTIONS }-dll_append $PBG_LIB" "$PBG_ROOT/examples/python/dmda_block.py" --load options
tcheck py_coo -- pbg_py 1 "$PBG_ROOT/examples/python/coo_assembly.py"
tcheck py_coo_dll_append_mpi2 -- pbg_py 2 "$PBG_ROOT/examples/python/coo_assembly.py" --load dll_append
