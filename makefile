# petscblockgpu: PETSc plugin with a GPU variable-block Jacobi PC and a GPU block-CSR matrix.
#
# PETSc is taken from PETSC_DIR / PETSC_ARCH (environment or command line). When none is given,
# conf/bootstrap-petsc.sh builds PETSc 3.26 with CUDA and MPI once into a cache outside the checkout
# and records it in conf/petsc.mk.
#
# Targets: all (library, examples, tests, benchmarks), demo, check, bench, bundle, install, uninstall, petsc4py, clean.
#
# Variables: PREFIX (make install/uninstall, default /usr/local), DESTDIR (staging), PBG_RUNPATH (absolute: the
# library's RUNPATH holds PETSc's and CUDA's library directories, the default; origin: $ORIGIN only, for a tree that
# carries libpetsc beside libpetscblockgpu or finds it through the loader's path). See doc/install.md.
.DEFAULT_GOAL := all
.SUFFIXES:
.DELETE_ON_ERROR:
# object files of programs are kept (no "rm" after the test summary, no relinking)
.SECONDARY:

NO_PETSC_GOALS := clean distclean help uninstall
ifneq ($(filter-out $(NO_PETSC_GOALS),$(or $(MAKECMDGOALS),all)),)
  # PETSC_DIR from the command line or environment wins; otherwise the bootstrap's record. On a fresh
  # clone conf/petsc.mk is missing (or names a PETSc that is gone): make runs its rule below, which
  # builds or finds PETSc, then re-reads this makefile, so nothing PETSc-dependent is checked before.
  ifeq ($(PETSC_DIR),)
    -include conf/petsc.mk
    PBG_PETSC_FROM_RECORD := 1
  endif
  ifneq ($(wildcard $(PETSC_DIR)/lib/petsc/conf/variables),)
    include $(PETSC_DIR)/lib/petsc/conf/variables
    ifeq ($(shell grep -s 'define PETSC_HAVE_CUDA 1' $(PETSCCONF_H)),)
      $(error PETSc at PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) was not configured with CUDA; unset PETSC_DIR to build one)
    endif
  else ifeq ($(PBG_PETSC_FROM_RECORD),)
    $(error PETSC_DIR=$(PETSC_DIR) is not a PETSc installation or source tree (no lib/petsc/conf/variables); unset it to let conf/bootstrap-petsc.sh build one)
  endif
endif

# Recorded by the bootstrap; remade (PETSc built, or found in the cache) when missing or stale.
PBG_PETSC_STALE := $(if $(wildcard $(PETSC_DIR)/lib/petsc/conf/variables),,FORCE)
conf/petsc.mk: conf/bootstrap-petsc.sh $(PBG_PETSC_STALE)
	env -u PETSC_DIR -u PETSC_ARCH bash conf/bootstrap-petsc.sh > /dev/null
.PHONY: FORCE
FORCE:

PREFIX  ?= /usr/local
MPIEXEC ?= $(or $(wildcard $(PETSC_DIR)/$(PETSC_ARCH)/bin/mpiexec),mpiexec)

# The library: lib/libpetscblockgpu.so -> libpetscblockgpu.so.MAJOR.MINOR (its SONAME; the version of include/petscblockgpu.h)
PBG_VERSION := $(shell awk '$$2 == "PETSCBLOCKGPU_VERSION_MAJOR" {M = $$3} $$2 == "PETSCBLOCKGPU_VERSION_MINOR" {m = $$3} END {print M "." m}' include/petscblockgpu.h)
LIBSONAME := libpetscblockgpu.so.$(PBG_VERSION)
LIBNAME  := lib/libpetscblockgpu.so
PBG_RUNPATH ?= absolute
OBJDIR   := build/obj
LIB_C    := $(sort $(wildcard src/*/*.c src/*/*/*.c))
LIB_CU   := $(sort $(wildcard src/*/cuda/*.cu src/*/*/cuda/*.cu src/*/*/*/cuda/*.cu))
LIB_OBJ  := $(LIB_C:%.c=$(OBJDIR)/%.o) $(LIB_CU:%.cu=$(OBJDIR)/%.o)
TESTS    := $(patsubst tests/%.c,tests/bin/%,$(wildcard tests/*.c)) tests/bin/ex2
# tests/*.cxx: the device kernels run in the host warp emulator (tests/emu/cuda_emu.h), built by the C++ compiler
TESTS    += $(patsubst tests/%.cxx,tests/bin/%,$(wildcard tests/*.cxx))
# tests/bin/multirun: every C test program in one binary, for the valgrind groups of tests/run.sh (its rules below)
TESTS    += tests/bin/multirun
EXAMPLES := $(patsubst examples/%.c,examples/bin/%,$(wildcard examples/*.c))
# bench/drivers/*.{c,cu}: the benchmark programs, built into bench/bin/; bench/common/: the helper all of them link
# (the triad, the CUDA-event timer, the median, the CSV)
BENCHES  := $(patsubst bench/drivers/%.c,bench/bin/%,$(wildcard bench/drivers/*.c)) $(patsubst bench/drivers/%.cu,bench/bin/%,$(wildcard bench/drivers/*.cu))
BENCH_COMMON_OBJ := $(patsubst %.cu,$(OBJDIR)/%.o,$(wildcard bench/common/*.cu)) $(patsubst %.c,$(OBJDIR)/%.o,$(wildcard bench/common/*.c))

PBG_INCLUDES := -Iinclude -Ibuild/gen
# PETSc's matrix methods as an X-macro (struct _MatOps of the PETSc in use), for the generated method tables of MATBAIJKSPARSE
PBG_MATOPS_H := build/gen/pbg_matops.h
$(PBG_MATOPS_H): conf/gen_matops.py $(wildcard $(PETSC_DIR)/include/petsc/private/matimpl.h)
	@mkdir -p $(@D)
	python3 conf/gen_matops.py $(PETSC_DIR)/include $@
PBG_CFLAGS   := $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) $(PBG_INCLUDES) -MMD -MP
PBG_CUFLAGS  := $(CUDAC_FLAGS) $(CUDAFLAGS) $(CUDACPPFLAGS) $(MPICXX_INCLUDES) $(PBG_INCLUDES) -Xcompiler -fPIC --compiler-options="$(CXXCPPFLAGS)" -MMD -MP
PBG_CUDA_LIBS := -lcusolver -lcublas -lcusparse -lcudart
PBG_LINK_LIB := -L$(CURDIR)/lib -lpetscblockgpu $(CC_LINKER_SLFLAG)$(CURDIR)/lib $(PETSC_LIB) $(PBG_CUDA_LIBS)

.PHONY: all lib examples tests bench demo check memcheck bundle install uninstall petsc4py clean distclean help matrices format
all: lib examples tests bench
lib: $(LIBNAME)
examples: $(EXAMPLES)
tests: $(TESTS)
bench: $(BENCHES)

# PETSc's link line carries -Wl,-rpath into PETSc's and CUDA's directories; PBG_RUNPATH=origin swaps them for $ORIGIN
comma := ,
ifeq ($(PBG_RUNPATH),absolute)
  PBG_LIB_LIBS := $(PETSC_LIB) $(PBG_CUDA_LIBS)
else ifeq ($(PBG_RUNPATH),origin)
  PBG_LIB_LIBS := -Wl,-rpath,'$$ORIGIN' $(filter-out -Wl$(comma)-rpath$(comma)%,$(PETSC_LIB)) $(PBG_CUDA_LIBS)
else
  $(error PBG_RUNPATH=$(PBG_RUNPATH): expected absolute or origin)
endif
PBG_LIB_LINK = $(PCC_LINKER) -shared -Wl,--no-undefined -Wl,-soname,$(LIBSONAME) $(PCC_LINKER_FLAGS)
# A change of PBG_RUNPATH relinks: build/runpath holds the value, rewritten (made newer) only when it changes
PBG_RUNPATH_STAMP := build/runpath
ifeq ($(filter-out $(NO_PETSC_GOALS),$(or $(MAKECMDGOALS),all)),$(or $(MAKECMDGOALS),all))
  $(shell mkdir -p build && { [ "$$(cat $(PBG_RUNPATH_STAMP) 2> /dev/null)" = "$(PBG_RUNPATH)" ] || echo "$(PBG_RUNPATH)" > $(PBG_RUNPATH_STAMP); })
endif
lib/$(LIBSONAME): $(LIB_OBJ) $(PBG_RUNPATH_STAMP)
	@mkdir -p $(@D)
	$(PBG_LIB_LINK) -o $@ $(LIB_OBJ) $(PBG_LIB_LIBS)
$(LIBNAME): lib/$(LIBSONAME)
	ln -sf $(LIBSONAME) $@

$(OBJDIR)/%.o: %.c | $(PBG_MATOPS_H)
	@mkdir -p $(@D)
	$(PCC) -o $@ -c $(PBG_CFLAGS) $<

$(OBJDIR)/tests/%.o: tests/%.cxx | $(PBG_MATOPS_H)
	@mkdir -p $(@D)
	$(CXX) -o $@ -c -std=c++20 -O2 -pthread -Wall -Wno-unknown-pragmas -Itests/emu/stub $(CXXCPPFLAGS) -Itests $(PBG_INCLUDES) -MMD -MP $<

$(OBJDIR)/%.o: %.cu | $(PBG_MATOPS_H)
	@mkdir -p $(@D)
	$(CUDAC) -o $@ -c $(PBG_CUFLAGS) $<

# Programs link the library by path; the bundle's run script sets LD_LIBRARY_PATH instead.
tests/bin/%: $(OBJDIR)/tests/%.o $(LIBNAME)
	@mkdir -p $(@D)
	$(PCC_LINKER) $(PCC_LINKER_FLAGS) -o $@ $< $(PBG_LINK_LIB)
# tests/bin/multirun: every C test program in one binary (tests/multirun/multirun.c), for the valgrind groups of
# tests/run.sh: each program's object with its main renamed pbg_main_<program>
# (their list, build/gen/multirun_programs.h, is rewritten only when a program comes or goes)
MULTIRUN_PROGRAMS := $(filter-out gpu_probe,$(patsubst tests/%.c,%,$(wildcard tests/*.c))) ex2
MULTIRUN_LIST := \#define PBG_MULTIRUN_PROGRAMS $(foreach p,$(MULTIRUN_PROGRAMS),X($(p)))
ifeq ($(filter-out $(NO_PETSC_GOALS),$(or $(MAKECMDGOALS),all)),$(or $(MAKECMDGOALS),all))
  $(shell mkdir -p build/gen && { [ "$$(cat build/gen/multirun_programs.h 2> /dev/null)" = "$(MULTIRUN_LIST)" ] || echo "$(MULTIRUN_LIST)" > build/gen/multirun_programs.h; })
endif
$(OBJDIR)/tests/multirun/main_%.o: $(OBJDIR)/tests/%.o
	@mkdir -p $(@D)
	objcopy --redefine-sym main=pbg_main_$* $< $@
$(OBJDIR)/tests/multirun/main_ex2.o: $(OBJDIR)/petsc-tutorials/ex2.o
	@mkdir -p $(@D)
	objcopy --redefine-sym main=pbg_main_ex2 $< $@
tests/bin/multirun: $(OBJDIR)/tests/multirun/multirun.o $(MULTIRUN_PROGRAMS:%=$(OBJDIR)/tests/multirun/main_%.o) $(LIBNAME)
	@mkdir -p $(@D)
	$(PCC_LINKER) $(PCC_LINKER_FLAGS) -o $@ $(filter %.o,$^) $(PBG_LINK_LIB)
examples/bin/%: $(OBJDIR)/examples/%.o $(LIBNAME)
	@mkdir -p $(@D)
	$(PCC_LINKER) $(PCC_LINKER_FLAGS) -o $@ $< $(PBG_LINK_LIB)
$(OBJDIR)/bench/%.o: PBG_CFLAGS += -Ibench/common
$(OBJDIR)/bench/%.o: PBG_CUFLAGS += -Ibench/common
bench/bin/%: $(OBJDIR)/bench/drivers/%.o $(BENCH_COMMON_OBJ) $(LIBNAME)
	@mkdir -p $(@D)
	$(PCC_LINKER) $(PCC_LINKER_FLAGS) -o $@ $< $(BENCH_COMMON_OBJ) $(PBG_LINK_LIB)

# PETSc's own tutorial, unmodified: proves that -dll_append registers our types.
PETSC_EX2 := $(firstword $(wildcard $(PETSC_DIR)/share/petscblockgpu-tutorials/ex2.c $(PETSC_DIR)/src/ksp/ksp/tutorials/ex2.c))
$(OBJDIR)/petsc-tutorials/ex2.o: $(PETSC_EX2)
	@mkdir -p $(@D)
	$(PCC) -o $@ -c $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) $<
tests/bin/ex2: $(OBJDIR)/petsc-tutorials/ex2.o
	@mkdir -p $(@D)
	$(PCC_LINKER) $(PCC_LINKER_FLAGS) -o $@ $< $(PETSC_LIB)

# PETSc's snes ex19 (driven cavity, 4 dof) and ts ex5 (Gray-Scott, 2 dof), unmodified: bench/scripts/make_tutorial_jacobians.sh
# runs them (also on the GPU node, from the bundle) to dump their Jacobians for bench_solve.
PETSC_TUTSRC := $(firstword $(wildcard $(PETSC_DIR)/share/petsc/examples/src $(PETSC_DIR)/src))
PETSC_EX19   := $(wildcard $(PETSC_TUTSRC)/snes/tutorials/ex19.c)
PETSC_EX5    := $(wildcard $(addprefix $(PETSC_TUTSRC)/ts/tutorials/advection-diffusion-reaction/,ex5.c reaction_diffusion.c))
$(OBJDIR)/petsc-tutorials/ex19.o: $(PETSC_EX19)
	@mkdir -p $(@D)
	$(PCC) -o $@ -c $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) $<
$(OBJDIR)/petsc-tutorials/ex5/%.o: $(PETSC_TUTSRC)/ts/tutorials/advection-diffusion-reaction/%.c
	@mkdir -p $(@D)
	$(PCC) -o $@ -c $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) $<
bench/bin/ex19: $(OBJDIR)/petsc-tutorials/ex19.o
	@mkdir -p $(@D)
	$(PCC_LINKER) $(PCC_LINKER_FLAGS) -o $@ $< $(PETSC_LIB)
bench/bin/ex5: $(OBJDIR)/petsc-tutorials/ex5/ex5.o $(OBJDIR)/petsc-tutorials/ex5/reaction_diffusion.o
	@mkdir -p $(@D)
	$(PCC_LINKER) $(PCC_LINKER_FLAGS) -o $@ $^ $(PETSC_LIB)
# bench/scripts/run_tutorials.sh also runs snes ex17 (DMPlex finite-element linear elasticity, vector fields) and ksp ex56 (3-D
# Q1 elasticity, bs 3, CG/GAMG), unmodified
PETSC_EX17 := $(wildcard $(PETSC_TUTSRC)/snes/tutorials/ex17.c)
PETSC_EX56 := $(wildcard $(PETSC_TUTSRC)/ksp/ksp/tutorials/ex56.c)
$(OBJDIR)/petsc-tutorials/ex17.o: $(PETSC_EX17)
	@mkdir -p $(@D)
	$(PCC) -o $@ -c $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) $<
$(OBJDIR)/petsc-tutorials/ex56.o: $(PETSC_EX56)
	@mkdir -p $(@D)
	$(PCC) -o $@ -c $(PCC_FLAGS) $(CFLAGS) $(CCPPFLAGS) $<
bench/bin/ex17 bench/bin/ex56: bench/bin/%: $(OBJDIR)/petsc-tutorials/%.o
	@mkdir -p $(@D)
	$(PCC_LINKER) $(PCC_LINKER_FLAGS) -o $@ $< $(PETSC_LIB)
# bench/scripts/run_dropin.sh (issue 38, the drop-in sweep: aijcusparse against baijksparse) runs more of PETSc's tutorials,
# unmodified, named DIR_exN after their directory (snes ex5 is bench/bin/snes_ex5; bench/bin/ex5 stays ts ex5): NAME=SOURCE
# pairs, SOURCE relative to PETSC_TUTSRC without .c; one whose source this PETSc lacks is left out
PETSC_DROPIN := ksp_ex2=ksp/ksp/tutorials/ex2 ksp_ex3=ksp/ksp/tutorials/ex3 ksp_ex23=ksp/ksp/tutorials/ex23 \
  ksp_ex45=ksp/ksp/tutorials/ex45 ksp_ex50=ksp/ksp/tutorials/ex50 snes_ex3=snes/tutorials/ex3 snes_ex5=snes/tutorials/ex5 \
  snes_ex12=snes/tutorials/ex12 snes_ex13=snes/tutorials/ex13 snes_ex62=snes/tutorials/ex62 ts_ex2=ts/tutorials/ex2 \
  ts_ex4=ts/tutorials/ex4 ts_ex26=ts/tutorials/ex26 ts_ex45=ts/tutorials/ex45 ksp_ex55=ksp/ksp/tutorials/ex55
define pbg_tutorial_rules # NAME SOURCE
$(OBJDIR)/petsc-tutorials/$(1).o: $(PETSC_TUTSRC)/$(2).c
	@mkdir -p $$(@D)
	$$(PCC) -o $$@ -c $$(PCC_FLAGS) $$(CFLAGS) $$(CCPPFLAGS) $$<
bench/bin/$(1): $(OBJDIR)/petsc-tutorials/$(1).o
	@mkdir -p $$(@D)
	$$(PCC_LINKER) $$(PCC_LINKER_FLAGS) -o $$@ $$< $$(PETSC_LIB)
endef
pbg_dropin_name = $(word 1,$(subst =, ,$(1)))
pbg_dropin_src  = $(word 2,$(subst =, ,$(1)))
PETSC_DROPIN_FOUND := $(foreach t,$(PETSC_DROPIN),$(if $(wildcard $(PETSC_TUTSRC)/$(call pbg_dropin_src,$(t)).c),$(t)))
$(foreach t,$(PETSC_DROPIN_FOUND),$(eval $(call pbg_tutorial_rules,$(call pbg_dropin_name,$(t)),$(call pbg_dropin_src,$(t)))))
PETSC_TUTORIAL_BINS := $(if $(PETSC_EX19),bench/bin/ex19) $(if $(word 2,$(PETSC_EX5)),bench/bin/ex5) $(if $(PETSC_EX17),bench/bin/ex17) $(if $(PETSC_EX56),bench/bin/ex56)
PETSC_TUTORIAL_BINS += $(foreach t,$(PETSC_DROPIN_FOUND),bench/bin/$(call pbg_dropin_name,$(t)))
bench: $(PETSC_TUTORIAL_BINS)
# The benchmark programs that the test cases run (tests/cases/*.sh), which make check builds; the GPU-only drivers
# (bench_bsrmv, bench_invert, tune_baijksparse: CUDA sources, run by bench/scripts/gpu_session.sh on the GPU node, about
# 20 s of a 2-core build's tail) are left to make all and make bench
CHECK_BENCHES := $(addprefix bench/bin/,bench_scaling bench_solve bench_values bench_vbjacobi) $(PETSC_TUTORIAL_BINS)

demo: examples/bin/demo lib
	@PBG_ROOT=$(CURDIR) MPIEXEC="$(MPIEXEC)" bash examples/demo.sh

# The cases run in PBG_JOBS runners at once (tests/run.sh), one a core by default: they are CPU-bound (MPICH's ranks
# busy-poll while they wait, valgrind translates), and a runner more than the cores left 2 cores with 4..6 busy
# processes (the MPI cases of 2..4 ranks: 145 s with 3 runners against 129 s with 2 on the CI machine, session 15);
# PBG_JOBS=1 runs them one after the other.
PBG_JOBS ?= $(shell nproc 2> /dev/null || echo 2)
# What the cases need is built first with PBG_BUILD_JOBS compile jobs (default: the cores), also when make check itself
# was started without -j (CI): the CUDA sources dominate a fresh build (about 7 minutes serial on 2 cores)
PBG_BUILD_JOBS ?= $(shell nproc 2> /dev/null || echo 2)
check:
	@$(MAKE) --no-print-directory -j$(PBG_BUILD_JOBS) lib tests examples $(CHECK_BENCHES) matrices
	@PBG_ROOT=$(CURDIR) MPIEXEC="$(MPIEXEC)" PBG_JOBS=$(PBG_JOBS) bash tests/run.sh

# The host memory check alone (make check runs it too): host-path cases under valgrind, suppressions in conf/valgrind.supp
memcheck: lib tests
	@PBG_ROOT=$(CURDIR) MPIEXEC="$(MPIEXEC)" bash tests/run.sh '^vg_'

bundle: all matrices
	@PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) MPIEXEC="$(MPIEXEC)" bash conf/bundle.sh

# Real matrices (Debian/PyPI package data, PETSc tutorial Jacobians) for the end-to-end cases: fetched once into the
# cache outside the checkout, installed in tests/data/matrices.
# Formats the C, C++ and CUDA sources in place with .clang-format (PETSc's style; clang-format 14 or newer)
format:
	@git ls-files '*.c' '*.h' '*.cu' '*.cuh' '*.cxx' | xargs clang-format -i

matrices:
	@bash conf/fetch-matrices.sh

# The installed library is linked apart (build/install/), with PREFIX compiled into src/sys/buildinfo.c, so that it
# finds PREFIX/share/petscblockgpu/ even when moved away from it; lib/ of the build tree is left as it is.
PBG_PY_FILES := $(wildcard python/petscblockgpu/*.py)
PBG_PETSC_VERSION_H := $(firstword $(wildcard $(PETSC_DIR)/$(PETSC_ARCH)/include/petscversion.h $(PETSC_DIR)/include/petscversion.h))
PBG_PETSC_MINOR := $(shell awk '$$2 == "PETSC_VERSION_MAJOR" {M = $$3} $$2 == "PETSC_VERSION_MINOR" {m = $$3} END {print M "." m "|" M "." m + 1}' $(PBG_PETSC_VERSION_H) 2> /dev/null)
# Paths may hold spaces and quotes (anything but a newline): every one the shell sees is quoted with pbg_sq. In
# petscblockgpu.pc a space of PREFIX is escaped with a backslash, pkg-config's rule; the sed replacement escapes \ & |.
pbg_sq = '$(subst ','\'',$(1))'
pbg_empty :=
pbg_space := $(pbg_empty) $(pbg_empty)
PBG_DEST = $(call pbg_sq,$(DESTDIR)$(PREFIX))
PBG_PC_PREFIX = $(subst |,\|,$(subst &,\&,$(subst \,\\,$(subst $(pbg_space),\$(pbg_space),$(PREFIX)))))
PBG_C_PREFIX = $(subst ",\",$(subst \,\\,$(PREFIX)))
# The directories install makes (PREFIX and its missing parents included) are recorded, without DESTDIR, in
# share/petscblockgpu/created-dirs; uninstall removes those that are then empty, and no other directory.
PBG_INSTALL_DIRS = $(PBG_DEST)/lib/pkgconfig $(PBG_DEST)/include $(PBG_DEST)/share/petscblockgpu/python/petscblockgpu
install: lib
	@mkdir -p build/install
	$(PCC) -o build/install/buildinfo.o -c $(PBG_CFLAGS) -DPBG_INSTALL_PREFIX=$(call pbg_sq,"$(PBG_C_PREFIX)") src/sys/buildinfo.c
	$(PBG_LIB_LINK) -o build/install/$(LIBSONAME) $(filter-out $(OBJDIR)/src/sys/buildinfo.o,$(LIB_OBJ)) build/install/buildinfo.o $(PBG_LIB_LIBS)
	@for d in $(PBG_INSTALL_DIRS); do \
	  while [ ! -d "$$d" ]; do case $$d in $(call pbg_sq,$(DESTDIR))?*) ;; *) break ;; esac; \
	    printf '%s\n' "$${d#$(call pbg_sq,$(DESTDIR))}"; d=$$(dirname "$$d"); done; \
	done > build/install/created-dirs.new
	install -d $(PBG_INSTALL_DIRS)
	@cat $(PBG_DEST)/share/petscblockgpu/created-dirs build/install/created-dirs.new 2> /dev/null | LC_ALL=C sort -u > build/install/created-dirs
	install -m 644 build/install/created-dirs $(PBG_DEST)/share/petscblockgpu/
	install -m 755 build/install/$(LIBSONAME) $(PBG_DEST)/lib/
	ln -sf $(LIBSONAME) $(PBG_DEST)/lib/libpetscblockgpu.so
	install -m 644 include/petscblockgpu.h $(PBG_DEST)/include/
	install -m 644 share/petscblockgpu/baijksparse_tuning_sm*.txt $(PBG_DEST)/share/petscblockgpu/
	install -m 644 $(PBG_PY_FILES) $(PBG_DEST)/share/petscblockgpu/python/petscblockgpu/
	sed -e $(call pbg_sq,s|@PREFIX@|$(PBG_PC_PREFIX)|g) -e 's|@VERSION@|$(PBG_VERSION)|g' \
	    -e 's/@PETSC_MIN@/$(word 1,$(subst |, ,$(PBG_PETSC_MINOR)))/g' -e 's/@PETSC_NEXT@/$(word 2,$(subst |, ,$(PBG_PETSC_MINOR)))/g' \
	    conf/petscblockgpu.pc.in > $(PBG_DEST)/lib/pkgconfig/petscblockgpu.pc

# Removes what install put there, then the directories install made (created-dirs) that are left empty, deepest
# first; PREFIX and DESTDIR as for install.
uninstall:
	rm -f $(PBG_DEST)/lib/libpetscblockgpu.so $(PBG_DEST)/lib/libpetscblockgpu.so.* \
	      $(PBG_DEST)/include/petscblockgpu.h $(PBG_DEST)/lib/pkgconfig/petscblockgpu.pc
	@dirs=$$(cat $(PBG_DEST)/share/petscblockgpu/created-dirs 2> /dev/null); \
	printf 'rm -rf %s\n' $(PBG_DEST)/share/petscblockgpu; rm -rf $(PBG_DEST)/share/petscblockgpu; \
	printf '%s\n' "$$dirs" | LC_ALL=C sort -r | while IFS= read -r d; do \
	  [ -n "$$d" ] && rmdir -- $(call pbg_sq,$(DESTDIR))"$$d" 2> /dev/null && printf 'rmdir %s\n' $(call pbg_sq,$(DESTDIR))"$$d"; \
	done; true

# petsc4py built against the PETSc in use, once, in the cache (conf/build-petsc4py.sh; several minutes); make check
# runs the Python cases when it is there, and skips them otherwise
petsc4py:
	@PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) bash conf/build-petsc4py.sh

clean:
	rm -rf build lib tests/bin examples/bin bench/bin bundle

distclean: clean
	rm -f conf/petsc.mk

help:
	@echo "targets: all demo check bench bundle install uninstall petsc4py format clean distclean; PETSC_DIR/PETSC_ARCH select an existing PETSc with CUDA; PREFIX, DESTDIR, PBG_RUNPATH=absolute|origin (doc/install.md)"

-include $(LIB_OBJ:.o=.d) $(wildcard $(OBJDIR)/tests/*.d $(OBJDIR)/tests/multirun/*.d $(OBJDIR)/examples/*.d $(OBJDIR)/bench/*/*.d)
