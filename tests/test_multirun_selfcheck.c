static char help[] = "Self-check of the valgrind groups (tests/multirun): with -leak it loses a block, with -invalid_read it reads\n"
                     "one past an allocation; else it does nothing.\n\n";
/* tests/cases/memcheck_host.sh runs it inside a group (vg_multirun_selfcheck) to show that multirun charges each
   defect to the case that made it, and that the cases after it still run and pass */
#include <petscsys.h>

int main(int argc, char **argv)
{
  PetscBool    leak = PETSC_FALSE, invalid_read = PETSC_FALSE;
  volatile int past = 4; /* volatile: the compiler does not see the read past the end */

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-leak", &leak, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-invalid_read", &invalid_read, NULL));
  if (leak) {
    volatile char *lost = (char *)malloc(1000); /* plain malloc: PETSc's own allocator would report it at PetscFinalize */
    lost[0]             = 1;
    lost                = NULL;
  }
  if (invalid_read) {
    int         *p = (int *)calloc(4, sizeof(int));
    volatile int v = p[past]; /* one past the end */
    (void)v;
    free(p);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "OK\n"));
  PetscCall(PetscFinalize());
  return 0;
}
