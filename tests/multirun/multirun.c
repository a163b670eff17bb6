/* multirun: runs several test cases, each a test program's main() with its arguments, one after the other in ONE
   process (tests/run.sh's valgrind groups: tvg_begin/tvg/tvg_end).

   Why: under valgrind, the start-up of a process that loads PETSc's CUDA libraries (their static initialisers:
   cusolver, cublasLt, cusparse, ...) costs about 30 s of CPU before main(). Twenty-odd valgrind cases paid it once
   each; a group pays it once.

   The test programs are the objects of the C test programs (tests/NAME.c) with main renamed pbg_main_<program> (objcopy; see the makefile).
   MPI is initialised here, so each case's PetscInitialize()/PetscFinalize() pair starts and ends PETSc afresh over
   the same MPI (PETSc supports repeated initialisation when the caller owns MPI: its src/sys/tests/ex26).

   Usage: multirun FILE, where each line of FILE is "NAME PROGRAM ARGS..." (words separated by blanks; no quoting).
   Output: rank 0 brackets each case's output with
     #### multirun begin NAME
     #### multirun end NAME status S errors E leaked B seconds T
   S: the largest exit status over the ranks (1 when main() returned with PETSc still initialised, that is through
   an error); E: the memcheck errors found during the case; B: the bytes found definitely lost by a leak check right
   after it (both summed over the ranks, 0 outside valgrind). The exit status is 0 when every case had S = E = B = 0. */
#include <petscsys.h>
#include <time.h>
#include "multirun_programs.h" /* PBG_MULTIRUN_PROGRAMS: X(program) for each, written by the makefile */
#if defined(__has_include)
  #if __has_include(<valgrind/memcheck.h>)
    #include <valgrind/memcheck.h>
    #define PBG_MULTIRUN_MEMCHECK 1
  #endif
#endif

#define X(program) int pbg_main_##program(int, char **);
PBG_MULTIRUN_PROGRAMS
#undef X

static const struct {
  const char *name;
  int (*main)(int, char **);
} programs[] = {
#define X(program) {#program, pbg_main_##program},
  PBG_MULTIRUN_PROGRAMS
#undef X
};

/* definite leaks: a leak check of what was added since the last one, and the total definitely lost after it */
static unsigned long LeakCheck(void)
{
#if defined(PBG_MULTIRUN_MEMCHECK)
  unsigned long leaked = 0, dubious = 0, reachable = 0, suppressed = 0;
  VALGRIND_DO_ADDED_LEAK_CHECK;
  VALGRIND_COUNT_LEAKS(leaked, dubious, reachable, suppressed);
  (void)dubious;
  (void)reachable;
  (void)suppressed;
  return leaked;
#else
  return 0;
#endif
}

static unsigned long ErrorCount(void)
{
#if defined(PBG_MULTIRUN_MEMCHECK)
  return (unsigned long)VALGRIND_COUNT_ERRORS;
#else
  return 0;
#endif
}

static double Seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs one case; its words (NAME PROGRAM ARGS...) are in words[0..nwords-1], which main() may reorder */
static int RunCase(char **words, int nwords, int rank, unsigned long *leaked_before)
{
  int (*program)(int, char **) = NULL;
  unsigned long errors, leaked, counts[3], sums[3];
  double        t0;
  int           status = 0;
  char          name[256];
  PetscBool     initialized;

  snprintf(name, sizeof(name), "%s", words[0]);
  for (size_t p = 0; p < sizeof(programs) / sizeof(programs[0]); p++)
    if (!strcmp(programs[p].name, words[1])) program = programs[p].main;
  fflush(stdout);
  fflush(stderr);
  MPI_Barrier(MPI_COMM_WORLD);
  if (!rank) printf("#### multirun begin %s\n", name);
  fflush(stdout);
  errors = ErrorCount();
  t0     = Seconds();
  if (!program) {
    if (!rank) fprintf(stderr, "multirun: case %s: no program %s in this binary\n", name, words[1]);
    status = 2;
  } else {
    char *argv[256];
    int   argc = nwords - 1;
    for (int i = 0; i < argc; i++) argv[i] = words[i + 1];
    argv[argc] = NULL;
    status     = program(argc, argv) ? 1 : 0;
    /* a main() left through PetscCall() returns with PETSc still up: end it, so that the next case starts afresh */
    if (PetscInitialized(&initialized) == PETSC_SUCCESS && initialized) {
      status = 1;
      (void)PetscFinalize();
    }
  }
  fflush(stdout);
  fflush(stderr);
  leaked         = LeakCheck();
  counts[0]      = (unsigned long)status;
  counts[1]      = ErrorCount() - errors;
  counts[2]      = leaked > *leaked_before ? leaked - *leaked_before : 0;
  *leaked_before = leaked;
  (void)MPI_Allreduce(&counts[0], &sums[0], 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
  (void)MPI_Allreduce(&counts[1], &sums[1], 2, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (!rank) printf("#### multirun end %s status %lu errors %lu leaked %lu seconds %.1f\n", name, sums[0], sums[1], sums[2], Seconds() - t0);
  fflush(stdout);
  return sums[0] || sums[1] || sums[2];
}

int main(int argc, char **argv)
{
  FILE         *f;
  char          line[4096];
  int           rank, failed = 0;
  unsigned long leaked;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 2 || !(f = fopen(argv[1], "r"))) {
    if (!rank) fprintf(stderr, "usage: multirun FILE (lines \"NAME PROGRAM ARGS...\"); cannot read %s\n", argc > 1 ? argv[1] : "(none)");
    MPI_Finalize();
    return 2;
  }
  leaked = LeakCheck(); /* what MPI_Init left is not the cases' */
  while (fgets(line, sizeof(line), f)) {
    char *words[258], *save = NULL;
    int   nwords = 0;
    for (char *w = strtok_r(line, " \t\n", &save); w && nwords < 257; w = strtok_r(NULL, " \t\n", &save)) words[nwords++] = w;
    if (nwords < 2 || words[0][0] == '#') continue;
    failed |= RunCase(words, nwords, rank, &leaked);
  }
  fclose(f);
  MPI_Finalize();
  return failed;
}
